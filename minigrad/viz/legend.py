"""The colour key of the course's graph pictures.

>>> from minigrad.viz import legend
>>> print(legend())                                   # doctest: +ELLIPSIS
How to read a backward graph (colours are colour-blind friendly):
  green box: an output tensor you drew, with its shape and dtype
...
"""
from __future__ import annotations

from . import style
from .display import Graph
from .dot_source import attrs, box, graph_header, html, label
from .options import DrawOptions

# (sample label, look, explanation) for each row of the key, top to bottom: only what the course's
# pictures show. (A graph too big to draw whole has one more box, which says what it is itself:
# "... N more nodes", "raise max_nodes to draw them".)
_ROWS = [
    ("z", box(style.OUTPUT), "green box: an output tensor you drew, with its shape and dtype"),
    ("MulBackward0", box(style.BUILTIN, rounded=True),
     "grey node: a built-in operation's backward node (its grad_fn)"),
    ("MulConstantBackward", box(style.FUNCTION, rounded=True),
     "purple node: the ctx of your own Function (ctx attributes, needs_input_grad)"),
    ("self", box(style.SAVED), "orange box, dashed line: a value a node keeps for backward (save_for_backward, or a number a built-in kept)"),
    ("AccumulateGrad", box(style.ACCUMULATE, rounded=True),
     "white node, blue border: AccumulateGrad adds the gradient into a leaf's .grad"),
    ("x", box(style.LEAF), "blue box: a leaf tensor or parameter, with its .grad"),
    ("y", box(style.RETAINED), "yellow box: a non-leaf tensor that called retain_grad() (or that you named)"),
    ("indices", box(style.NON_DIFFERENTIABLE, dashed=True),
     "dashed white box: an output marked non-differentiable (no gradient flows from it)"),
    ("step", {"style": "rounded,filled", "fillcolor": style.BUILTIN[0], "color": style.CURRENT, "penwidth": "3.5"},
     "vermillion border (traces): the node running now; its edges carry its gradients"),
]
_ARROWS = "arrows: the way gradients flow, output -> next_functions -> leaves"


def _description(text: str) -> str:
    """A plain, left-aligned text cell of one fixed width, so all rows line up."""
    cell = f'<TD WIDTH="470" ALIGN="LEFT">{html(text)}</TD>'
    return f'[shape=plaintext, style="", label=<<TABLE BORDER="0" CELLPADDING="0"><TR>{cell}</TR></TABLE>>]'


def _rows_dot(prefix: str) -> list[str]:
    lines = []
    for i, (sample, look, text) in enumerate(_ROWS):
        lines.append(f"  {prefix}s{i} {attrs(label=label(sample, bold=False), width='2.0', **look)};")
        lines.append(f"  {prefix}d{i} {_description(text)};")
        lines.append(f"  {prefix}s{i} -> {prefix}d{i} [style=invis];")
        lines.append(f"  {{rank=same; {prefix}s{i}; {prefix}d{i};}}")
        if i:
            lines.append(f"  {prefix}s{i - 1} -> {prefix}s{i} [style=invis];")
    lines.append(f"  {prefix}a0 {attrs(label='z', width='2.0', **box(style.OUTPUT))};")
    lines.append(f"  {prefix}a1 {attrs(label='x', width='2.0', **box(style.LEAF))};")
    lines.append(f"  {prefix}a2 {_description(_ARROWS)};")
    lines.append(f"  {prefix}s{len(_ROWS) - 1} -> {prefix}a0 [style=invis];")
    lines.append(f"  {prefix}a0 -> {prefix}a1 [label=\" gradient\"];")
    lines.append(f"  {{rank=same; {prefix}a0; {prefix}a2;}}")
    lines.append(f"  {prefix}a0 -> {prefix}a2 [style=invis];")
    return lines


def legend_text() -> str:
    """The key in words (the legend's text/plain)."""
    lines = ["How to read a backward graph (colours are colour-blind friendly):"]
    lines += [f"  {text}" for _, _, text in _ROWS]
    lines.append(f"  {_ARROWS}")
    return "\n".join(lines)


def legend_cluster() -> str:
    """The key as a DOT cluster, added to a graph by ``draw(..., legend=True)``."""
    body = "\n".join(_rows_dot("legend_"))
    return f"  subgraph cluster_legend {{\n  label=\"key\"; color=\"{style.LIGHT_GREY}\";\n{body}\n  }}\n"


def legend() -> Graph:
    """The colour key of every graph picture in the course, as a :class:`Graph`.

    >>> legend().png()[:4]
    b'\\x89PNG'
    """
    lines = graph_header(DrawOptions(), name="legend") + _rows_dot("") + ["}"]
    return Graph("\n".join(lines) + "\n", legend_text())
