"""watch: print a function's lines as they run, and the variables each line sets.

It is how the course traces a backward "line by line": wrap the call that will run the function
(for a Function's backward, the ``.backward()`` of a loss) in ``with watch(Function.backward):``.
It uses ``sys.settrace``, the hook debuggers are built on: Python calls the tracer at every line
of the function being watched, and every other function runs untraced.

>>> def area(width, height):
...     double = 2 * width
...     return double * height / 2
>>> with watch(area):
...     _ = area(3, 4)
area(width, height) called
  -> width = int
  -> height = int
double = 2 * width
  -> double = int
return double * height / 2
"""
from __future__ import annotations

import contextlib
import inspect
import linecache
import sys
from typing import Callable, Iterator

from ..tensor import Tensor


def _show(name: str, value, indent: int) -> None:
    """``-> name = value``: tensors and None in full, other values by their type."""
    text = repr(value) if value is None or isinstance(value, Tensor) else type(value).__name__
    prefix = " " * indent + f"-> {name} = "
    print(prefix + text.replace("\n", "\n" + " " * len(prefix)))


def _body_indent(function: Callable) -> int:
    lines, _ = inspect.getsourcelines(function)
    for line in lines[1:]:
        if line.strip() and not line.lstrip().startswith(("#", '"""', "'''")):
            return len(line) - len(line.lstrip())
    return 4


@contextlib.contextmanager
def watch(function: Callable, values: bool = True) -> Iterator[None]:
    """While the with-block runs, print each line of ``function`` as it is about to run and, under
    it after ``->``, the variables the line set (with ``values=False``, the lines only)."""
    function = getattr(function, "__func__", function)
    code, seen = function.__code__, {}
    indent_of_body = _body_indent(function)
    indent = 2

    def report(frame) -> None:
        for name, value in frame.f_locals.items():
            if seen.get(name, ...) is not value:
                seen[name] = value
                if values:
                    _show(name, value, indent)

    def tracer(frame, event, arg):
        nonlocal indent
        if frame.f_code is not code:
            return None                          # any other function: not traced
        if event == "call":                      # entering: show the arguments
            print(f"{code.co_name}{inspect.signature(function)} called")
            seen.clear()
            report(frame)
        else:                                    # "line" (one is about to run) or "return"
            report(frame)                        # what the previous line set
            if event == "line":
                line = linecache.getline(code.co_filename, frame.f_lineno).rstrip()[indent_of_body:]
                indent = len(line) - len(line.lstrip()) + 2
                print(line)
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        yield
    finally:
        sys.settrace(previous)
