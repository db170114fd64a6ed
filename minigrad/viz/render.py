"""Run Graphviz's ``dot`` program on DOT text and return the picture's bytes.

Only the standard library is used (``subprocess``): the ``graphviz`` Python package
is not needed to draw. A missing ``dot`` is reported by
:func:`minigrad.doctor.require_dot`, with the install steps for each system, before
anything is run.

>>> png = render('digraph { a -> b }', "png")
>>> png[:4]
b'\\x89PNG'
"""
from __future__ import annotations

import shutil
import subprocess

from minigrad.doctor import DotNotFoundError, require_dot

FORMATS = ("png", "svg", "pdf")
TIMEOUT = 120  # seconds; a collapsed graph takes well under one


def dot_program() -> str:
    """The path of ``dot``; raises :class:`~minigrad.doctor.DotNotFoundError` if missing."""
    require_dot()
    path = shutil.which("dot")
    if path is None:  # require_dot() looked at the same PATH a moment ago
        raise DotNotFoundError()
    return path


def render(source: str, fmt: str = "png") -> bytes:
    """Draw DOT ``source`` with ``dot -T<fmt>`` and return the bytes (png, svg or pdf)."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")
    program = dot_program()
    # -Tpng:cairo picks the cairo renderer explicitly: antialiased text, same on every run.
    target = "png:cairo" if fmt == "png" else fmt
    try:
        run = subprocess.run([program, f"-T{target}"], input=source.encode("utf-8"),
                             capture_output=True, timeout=TIMEOUT, check=False)
    except FileNotFoundError as exc:  # removed between the check and the run
        raise DotNotFoundError() from exc
    if run.returncode != 0 or not run.stdout:
        message = run.stderr.decode("utf-8", "replace").strip()
        raise RuntimeError(f"Graphviz's dot failed to draw the graph (exit code {run.returncode}): {message}")
    return run.stdout
