"""Pictures of backward graphs that render everywhere and explain ctx.

>>> import minigrad as torch
>>> from minigrad import viz
>>> x = torch.ones(3, requires_grad=True)
>>> y = (x * 2).sum()
>>> graph = viz.draw(y, names={"x": x})      # a notebook shows the PNG
>>> print(graph.text.splitlines()[0])         # ... and stores these words with it
Backward graph: 3 nodes, 2 edges between nodes, 1 edge (None, 0) leading nowhere (-> is the way gradients flow)
>>> trace = viz.trace_backward(y, names={"x": x})   # runs backward, step by step
>>> print(trace.lines[0])
step 1: SumBackward0 receives 1., sends [1., 1., 1.] to MulBackward0

Public API:

* :func:`draw` (alias :func:`make_dot`, torchviz's name): the graph of some tensors.
* :func:`trace_backward`: run backward and record each step, with one frame per step.
* :func:`legend`: the colour key used by every picture.
* :func:`show_source`: print the real source of a function, whole or only its key lines.
* :class:`Graph`, :class:`Trace`, :class:`Step`: what they return.

Modules, one job each: ``graph_walk`` (collect nodes and edges), ``describe`` (the
words), ``dot_source`` (the DOT text), ``render`` (run ``dot``), ``display`` (the
notebook object), ``trace`` (step by step), ``legend``, ``style`` (colours),
``formatting`` (numbers), ``options``, ``source`` (listings of the package's code).
"""
from .display import Graph
from .drawing import draw, make_dot
from .legend import legend
from .source import show_source
from .trace import Step, Trace, trace_backward
from .watch import watch

__all__ = ["draw", "make_dot", "trace_backward", "legend", "show_source", "watch", "Graph", "Trace", "Step"]
