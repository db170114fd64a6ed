"""Print the real source of a piece of minigrad, whole or only its key lines.

The notebooks show the package's own code, never a copy. A long function is shown by its key lines:
each part runs from the first line containing its first text to the next line containing its last
text (a part given as one text is that one line); ``...``, indented like the line it replaces,
stands for the lines left out, and the last line says where the whole source is.

>>> from minigrad import viz
>>> from minigrad.autograd.function import Function
>>> viz.show_source(Function.apply, "def apply", "ctx IS the backward node")  # doctest: +ELLIPSIS
def apply(cls, *args: Any, **kwargs: Any) -> Any:
    ...
    ctx = cls._backward_cls()                     # ctx IS the backward node: a <Name>Backward
    ...
# 2 of ... lines shown; the whole source: minigrad/autograd/function.py, line ...
>>> viz.show_source(Function.apply, "no such line")
Traceback (most recent call last):
  ...
ValueError: no line of the source of Function.apply contains 'no such line'
"""
from __future__ import annotations

import inspect
import textwrap
from pathlib import Path

_PACKAGE_ROOT = Path(__file__).resolve().parent.parent.parent


def source_lines(obj, *parts: str | tuple[str, str]) -> tuple[list[str], int]:
    """The lines ``show_source`` prints, without its last line, and how many lines of the source
    they show (see the module docstring). A text that no line contains raises ``ValueError``."""
    lines = textwrap.dedent(inspect.getsource(obj)).splitlines()
    if not parts:
        return lines, len(lines)
    shown: set[int] = set()
    for part in parts:
        first, last = (part, part) if isinstance(part, str) else part
        start = _find(lines, first, 0, obj)
        shown.update(range(start, _find(lines, last, start, obj) + 1))
    out = [line if i in shown else line[:len(line) - len(line.lstrip())] + "..."
           for i, line in enumerate(lines) if i in shown or i - 1 in shown]
    return out, len(shown)


def show_source(obj, *parts: str | tuple[str, str]) -> None:
    """Print the source of ``obj`` (a function, method or class): whole, or only ``parts``, each a
    pair (text of its first line, text of its last line) or one text (that one line), then where
    the whole source is."""
    lines, shown = source_lines(obj, *parts)
    print("\n".join(lines))
    if parts:
        total = len(inspect.getsource(obj).splitlines())
        print(f"# {shown} of {total} lines shown; the whole source: {_where(obj)}")


def _where(obj) -> str:
    path = Path(inspect.getsourcefile(inspect.unwrap(obj))).resolve()
    try:
        path = path.relative_to(_PACKAGE_ROOT)
    except ValueError:
        pass
    return f"{path.as_posix()}, line {inspect.getsourcelines(obj)[1]}"


def _find(lines: list[str], text: str, start: int, obj) -> int:
    for i in range(start, len(lines)):
        if text in lines[i]:
            return i
    raise ValueError(f"no line of the source of {getattr(obj, '__qualname__', obj)} contains {text!r}")
