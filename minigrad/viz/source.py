"""Print the real source of an object, whole or only its key lines, for a notebook's listing.

>>> show_source(_where, ("def _where", "def _where"), ("try:", "return path.name"))
def _where(obj: Any) -> str:
    ...
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.name
(key lines of _where; the whole of it: minigrad/viz/source.py)
"""
from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any


def show_source(obj: Any, *parts: tuple[str, str]) -> None:
    """Print ``obj``'s source as ``inspect.getsource`` gives it, or only some of its lines.

    Each part ``(first, last)`` runs from the first line containing the text ``first`` to the next
    line (the same one included) containing ``last``; a method's decorators always show, ``...``
    stands for the lines left out, and a last line says where the whole source is.
    """
    lines = inspect.getsource(obj).splitlines()
    if not parts:
        print("\n".join(lines))
        return
    shown: set[int] = set()
    for first, last in parts:
        start = next((i for i, line in enumerate(lines) if first in line), None)
        if start is None:
            raise ValueError(f"no line of {obj.__qualname__} contains {first!r}")
        end = next((i for i in range(start, len(lines)) if last in lines[i]), None)
        if end is None:
            raise ValueError(f"no line of {obj.__qualname__} from {first!r} on contains {last!r}")
        shown.update(range(start, end + 1))
    decorators = 0
    while decorators < len(lines) and lines[decorators].lstrip().startswith("@"):
        decorators += 1
    shown.update(range(decorators))   # a method's decorators always show (``@staticmethod``)
    for i, line in enumerate(lines):
        if i in shown:
            print(line)
        elif i - 1 in shown or i == 0:
            print(line[:len(line) - len(line.lstrip())] + "...")
    print(f"(key lines of {obj.__qualname__}; the whole of it: {_where(obj)})")


def _where(obj: Any) -> str:
    """The file of ``obj``, relative to the folder that holds the ``minigrad`` package."""
    path = Path(inspect.getsourcefile(inspect.unwrap(obj))).resolve()   # a decorated function's own file
    root = Path(__file__).resolve().parents[2]
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.name
