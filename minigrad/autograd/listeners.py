"""Listeners: watch autograd work without changing it.

A listener is a function autograd calls when something happens. It is told, never asked: what it
returns is ignored (a hook, by contrast, may replace a gradient). Five events:

- ``on_apply_start(fn)``: ``fn(function, args)`` when ``Function.apply`` is called, before forward runs;
- ``on_apply_end(fn)``: ``fn(function, ctx, args, outputs)`` when ``Function.apply`` returns;
- ``on_node(fn)``: ``fn(node, grad_outputs, grad_inputs)`` after a node of a backward pass ran
  (``grad_inputs`` is ``()`` for a leaf's ``AccumulateGrad``);
- ``on_backward_start(fn)``: ``fn(task)`` when a backward pass begins;
- ``on_backward_end(fn)``: ``fn(task, error)`` when it ends, ``error`` None if it succeeded.

``function`` is the Function class (each builtin operation is one too), ``args`` its arguments by
position, ``ctx`` the ctx forward got (the node, ``outputs.grad_fn``, when a graph was recorded).
``task`` is the pass (a ``GraphTask``): ``task.retain_graph``, ``task.create_graph``,
``task.inputs`` (None for a plain backward) and ``task.accumulate`` (True for
``backward(inputs=...)``, False for ``autograd.grad``).

Each registration returns a handle: ``handle.remove()`` unregisters, and the handle is a context
manager that does it at the end of a ``with`` block. Listeners run in the order they were
registered, on the thread where the event happens. With none registered, an event costs one test.

>>> import minigrad as torch
>>> from minigrad.autograd import listeners
>>> x = torch.ones(2, requires_grad=True)
>>> ran = []
>>> with listeners.on_node(lambda node, grad_outputs, grad_inputs: ran.append(node.name())):
...     (x * 3).sum().backward()
>>> ran
['SumBackward0', 'MulBackward0', 'torch::autograd::AccumulateGrad']

Tools that watch which functions run (a profiler, a checker asking whether a learner wrote a
graph walk or called one) can also ask which of minigrad's functions walk the graph: each is
marked with ``@graph_walk``, and ``graph_walks()`` lists them.
"""
from __future__ import annotations

from typing import Callable

from .graph import RemovableHandle

# Registration id -> listener, one dict per event: the engine and Function.apply test the dict
# (empty: nothing to do) and call ``notify``.
_APPLY_START: dict = {}
_APPLY_END: dict = {}
_APPLY_ANY: dict = {}   # the listeners of both: Function.apply's no-grad shortcut tests this one dict
_NODE: dict = {}
_BACKWARD_START: dict = {}
_BACKWARD_END: dict = {}
_GRAPH_WALKS: dict = {}   # code object -> the function that walks the graph


def notify(listeners: dict, *event) -> None:
    """Call every listener with ``event``; one registered or removed meanwhile waits for the next event."""
    for listener in tuple(listeners.values()):
        listener(*event)


def on_apply_start(fn: Callable) -> RemovableHandle:
    """Call ``fn(function, args)`` whenever a Function is applied, before its forward runs.

    >>> import minigrad as torch
    >>> with on_apply_start(lambda function, args: print(function.__name__, len(args))):
    ...     y = torch.ones(2) * 3
    Mul 2
    """
    return RemovableHandle(_APPLY_START, fn, extra_dict=_APPLY_ANY)


def on_apply_end(fn: Callable) -> RemovableHandle:
    """Call ``fn(function, ctx, args, outputs)`` whenever ``Function.apply`` returns (not if forward raised).

    >>> import minigrad as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> seen = []
    >>> with on_apply_end(lambda function, ctx, args, outputs: seen.append((function.__name__, ctx, outputs))):
    ...     y = x.exp()
    >>> name, ctx, output = seen[0]
    >>> name, ctx is y.grad_fn, output is y
    ('Exp', True, True)
    """
    return RemovableHandle(_APPLY_END, fn, extra_dict=_APPLY_ANY)


def on_node(fn: Callable) -> RemovableHandle:
    """Call ``fn(node, grad_outputs, grad_inputs)`` after each node of a backward pass ran: the
    gradients it received (after its hooks) and those it sent along its edges, one per edge.

    >>> import minigrad as torch
    >>> x = torch.tensor([1., 2.], requires_grad=True)
    >>> def show(node, grad_outputs, grad_inputs):
    ...     print(node.name(), grad_outputs, grad_inputs)
    >>> with on_node(show):
    ...     (x * x).sum().backward()
    SumBackward0 (tensor(1.),) (tensor([1., 1.]),)
    MulBackward0 (tensor([1., 1.]),) (tensor([1., 2.]), tensor([1., 2.]))
    torch::autograd::AccumulateGrad (tensor([2., 4.]),) ()
    """
    return RemovableHandle(_NODE, fn)


def on_backward_start(fn: Callable) -> RemovableHandle:
    """Call ``fn(task)`` when a backward pass (``backward()``, ``autograd.grad``...) begins.

    >>> import minigrad as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> def show(task):
    ...     print(task.retain_graph, task.create_graph, task.inputs is not None, task.accumulate)
    >>> with on_backward_start(show):
    ...     (x * 2).sum().backward(retain_graph=True)
    ...     _ = torch.autograd.grad((x * 2).sum(), x)
    True False False False
    False False True False
    """
    return RemovableHandle(_BACKWARD_START, fn)


def on_backward_end(fn: Callable) -> RemovableHandle:
    """Call ``fn(task, error)`` when a backward pass ends: ``error`` is None, or the exception it
    raises (the listener runs before it reaches the caller).

    >>> import minigrad as torch
    >>> y = (torch.ones(2, requires_grad=True) * 2).sum()
    >>> with on_backward_end(lambda task, error: print(type(error).__name__)):
    ...     y.backward()
    ...     try:
    ...         y.backward()          # the saved tensors are gone
    ...     except RuntimeError:
    ...         pass
    NoneType
    RuntimeError
    """
    return RemovableHandle(_BACKWARD_END, fn)


def graph_walk(function: Callable) -> Callable:
    """Mark ``function`` as one of minigrad's walks over ``next_functions`` (it is returned unchanged)."""
    _GRAPH_WALKS[function.__code__] = function
    return function


def graph_walks() -> dict:
    """``{code object: function}`` for every function marked ``@graph_walk``: a tool that sees a
    frame run (``sys.setprofile``) asks ``frame.f_code in graph_walks()``.

    >>> from minigrad.autograd import node_info
    >>> node_info.reachable_nodes.__code__ in graph_walks()
    True
    """
    return dict(_GRAPH_WALKS)
