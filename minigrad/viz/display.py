"""``Graph``: the object a notebook displays for a graph picture.

A Jupyter notebook asks an object for its ``_repr_mimebundle_`` and stores what it
gets. ``Graph`` answers with exactly two entries:

* ``image/png``: the picture, drawn by Graphviz's ``dot``. PNG shows everywhere:
  in an untrusted JupyterLab (every freshly cloned notebook), on GitHub and in
  nbconvert's HTML. SVG is deliberately left out: JupyterLab hides it in untrusted
  notebooks and its text differs from machine to machine.
* ``text/plain``: the graph described in words (see :mod:`minigrad.viz.describe`),
  the same on every machine, so nbval can compare it.

>>> g = Graph("digraph { a -> b }", "a graph with one edge")
>>> print(g)
a graph with one edge
>>> sorted(g._repr_mimebundle_())
['image/png', 'text/plain']
"""
from __future__ import annotations

import base64
import os
from pathlib import Path

from minigrad.doctor import require_dot

from .render import render


class Graph:
    """A graph picture: DOT source, its PNG, and a description in words.

    Attributes:
        source: the DOT text that ``dot`` draws.
        text: the description in words (also what ``str(graph)`` returns).

    Methods ``png()``, ``svg()`` and ``save(path)`` draw it; the PNG is drawn once and
    kept. Creating a Graph checks at once that ``dot`` is installed, so a missing
    Graphviz fails here with install steps, not later inside the notebook's display code.
    """

    def __init__(self, source: str, text: str, *, check_dot: bool = True) -> None:
        if check_dot:
            require_dot()
        self.source = source
        self.text = text
        self._png: bytes | None = None

    def png(self) -> bytes:
        """The picture as PNG bytes (drawn at a fixed dpi, so the same on every run)."""
        if self._png is None:
            self._png = render(self.source, "png")
        return self._png

    def svg(self) -> str:
        """The picture as SVG text (not used for notebook display: it varies between machines)."""
        return render(self.source, "svg").decode("utf-8")

    def pdf(self) -> bytes:
        """The picture as PDF bytes."""
        return render(self.source, "pdf")

    def save(self, path: str | os.PathLike) -> Path:
        """Write the picture; the extension picks the format: .png, .svg, .pdf, .dot/.gv or .txt.

        >>> import tempfile; folder = tempfile.mkdtemp()
        >>> Graph("digraph { a -> b }", "a -> b").save(Path(folder) / "ab.dot").name
        'ab.dot'
        """
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix == ".png":
            path.write_bytes(self.png())
        elif suffix == ".svg":
            path.write_text(self.svg(), encoding="utf-8")
        elif suffix == ".pdf":
            path.write_bytes(self.pdf())
        elif suffix in (".dot", ".gv"):
            path.write_text(self.source, encoding="utf-8")
        elif suffix == ".txt":
            path.write_text(self.text + "\n", encoding="utf-8")
        else:
            raise ValueError(f"cannot tell the format from {path.name!r}: "
                             "use .png, .svg, .pdf, .dot, .gv or .txt")
        return path

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        """What Jupyter shows and stores: the PNG and the words (never SVG)."""
        return {"image/png": base64.b64encode(self.png()).decode("ascii"), "text/plain": self.text}

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return self.text
