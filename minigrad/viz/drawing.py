"""``draw()``: the backward graph of some tensors, as a picture with a description.

>>> import minigrad as torch
>>> from minigrad.viz import draw
>>> x = torch.ones(3, requires_grad=True)
>>> g = draw((x * 2).sum(), names={"x": x})
>>> print(g)
Backward graph: 3 nodes, 2 edges between nodes, 1 edge (None, 0) leading nowhere (-> is the way gradients flow)
output: scalar float32 -> SumBackward0
SumBackward0
  -> MulBackward0
MulBackward0
  saved: self: None (not saved); other = 2 (a Python number, made a tensor)
  -> AccumulateGrad(x) (self)
  other: needs no gradient, its edge next_functions[1] is (None, 0)
AccumulateGrad(x) -> leaf x: [3] float32, grad: not computed yet
"""
from __future__ import annotations

from typing import Any, Mapping

from minigrad.doctor import require_dot

from .describe import describe
from .display import Graph
from .dot_source import to_dot
from .graph_walk import walk
from .legend import legend_cluster
from .options import DrawOptions

DEFAULT_MAX_NODES = 40


def draw(*tensors: Any, params: Any = None, names: Mapping[str, Any] | None = None,
         show_saved: bool = True, show_attrs: bool = True, show_grads: bool = True,
         show_data: bool = False, max_nodes: int | None = DEFAULT_MAX_NODES,
         rankdir: str = "TB", title: str | None = None, legend: bool = False,
         max_attr_chars: int = 50) -> Graph:
    """Draw the backward graph that ends in ``tensors``.

    The picture shows, from the outputs (top) to the leaves (bottom), every node that
    backward will run, with arrows pointing the way the gradient flows:

    * output tensors (green), with shape and dtype;
    * backward nodes by name: built-in ones (grey, ``MulBackward0``) and the ctx of
      your own Functions (purple, ``MulConstantBackward``) with what forward stored on
      ctx (``constant=10``), ``needs_input_grad``, and arguments that are not tensors;
    * each edge labelled with the forward argument it carries the gradient of;
    * saved tensors (orange, dashed), "freed" once backward has run;
    * ``AccumulateGrad`` nodes and their leaves (blue) with ``.grad``: "not computed
      yet" before backward, the values after;
    * non-leaf tensors that called ``retain_grad()`` (yellow), and outputs marked
      non-differentiable (dashed).

    Args:
        *tensors: the outputs to draw from (a tuple returned by a Function is fine).
        params: names for leaves: ``dict(model.named_parameters())``, the module
            itself, or ``{name: tensor}`` (torchviz's ``make_dot(y, params=...)``).
        names: names for any tensors: outputs, leaves or intermediates,
            ``{"x": x, "y": y}``. A named intermediate is drawn next to its node.
        show_saved: draw saved tensors (torchviz's ``show_saved``).
        show_attrs: show ctx attributes, ``needs_input_grad`` and non-tensor
            arguments (torchviz's ``show_attrs``).
        show_grads: show ``.grad`` of leaves and retained tensors.
        show_data: show the values of small tensors.
        max_nodes: graphs with more nodes are collapsed: the nodes nearest the
            outputs are drawn and the rest summarised in one box. ``None`` draws all.
        rankdir: ``"TB"`` (outputs on top), ``"BT"``, ``"LR"`` or ``"RL"``.
        title: a caption above the picture and the description.
        legend: add the colour key to the picture.
        max_attr_chars: cut longer ctx attribute values (torchviz's option).

    Returns:
        a :class:`Graph`: a notebook shows its PNG; ``print()`` shows the description.

    Raises:
        minigrad.doctor.DotNotFoundError: Graphviz's ``dot`` is not installed
            (the message says how to install it).

    >>> import minigrad as torch
    >>> x = torch.ones(3, requires_grad=True)
    >>> g = draw(x * 2, names={"x": x}, show_attrs=False, show_saved=False)
    >>> print(g)
    Backward graph: 2 nodes, 1 edge between nodes, 1 edge (None, 0) leading nowhere (-> is the way gradients flow)
    output: [3] float32 -> MulBackward0
    MulBackward0
      -> AccumulateGrad(x)
    AccumulateGrad(x) -> leaf x: [3] float32, grad: not computed yet
    >>> g.png()[:4]
    b'\\x89PNG'
    """
    require_dot()  # fail here, with install steps, if Graphviz is missing
    options = DrawOptions(show_saved=show_saved, show_attrs=show_attrs, show_grads=show_grads,
                          show_data=show_data, max_attr_chars=max_attr_chars, rankdir=rankdir,
                          title=title)
    model = walk(tensors, params=params, names=names, max_nodes=max_nodes)
    source = to_dot(model, options)
    if legend:
        source = source.rstrip().rstrip("}") + legend_cluster() + "}\n"
    return Graph(source, describe(model, options))


make_dot = draw
"""torchviz's name: ``make_dot(y, params=dict(model.named_parameters()), show_attrs=True, show_saved=True)``."""
