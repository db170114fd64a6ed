"""What a picture, a checker or a curious learner may ask a backward node, beyond PyTorch's own names.

PyTorch's public names come first and need nothing from here: ``node.name()``,
``node.next_functions``, ``node.metadata``, ``node.register_hook`` / ``register_prehook``, on a
custom Function's node ``ctx.needs_input_grad`` and ``ctx.saved_tensors``, and on a builtin node
``node._saved_self`` / ``node._raw_saved_self`` (PyTorch documents these in "Autograd mechanics:
saved tensors"). The functions below answer the rest without a check or a side effect: reading
them never raises a version error, never frees anything and never changes the graph. Every one
accepts any node (an ``AccumulateGrad`` too) and answers with an empty value when the question
does not apply.

>>> import minigrad as torch
>>> from minigrad.autograd import node_info
>>> x = torch.tensor([1., 2.], requires_grad=True)
>>> y = x.exp()                        # ExpBackward0 saves its result
>>> node = y.grad_fn
>>> node_info.kind(node), node_info.saved_names(node), node_info.saved_output_nr(node, 0)
('builtin', ('result',), 0)
>>> y.sum().backward()
>>> node_info.saved_tensors(node) is None     # freed by backward
True
"""
from __future__ import annotations

import inspect
import weakref
from typing import Any

from ..types import Size, from_numpy_dtype
from .graph import AccumulateGrad
from .listeners import graph_walk

BUILTIN, FUNCTION, ACCUMULATE, OTHER = "builtin", "function", "accumulate", "other"
# The names PyTorch itself defines on a ctx; everything else set on ctx is the user's own.
_CTX_MEMBERS = frozenset({"needs_input_grad", "next_functions", "to_save", "dirty_tensors",
                          "non_differentiable", "materialize_grads", "requires_grad", "saved_for_forward"})
_BUILTIN_ARG_NAMES = {"a": "self", "b": "other"}   # minigrad's ops say a, b where PyTorch says self, other


# ---------------------------------------------------------------------------- what the node is
def kind(node: Any) -> str:
    """``'builtin'`` (minigrad's own operation), ``'function'`` (a custom Function's ctx),
    ``'accumulate'`` (a leaf's AccumulateGrad) or ``'other'``.

    >>> import minigrad as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> kind((x * 2).grad_fn), kind((x * 2).grad_fn.next_functions[0][0])
    ('builtin', 'accumulate')
    """
    if isinstance(node, AccumulateGrad):
        return ACCUMULATE
    function = function_class(node)
    if function is None:
        return OTHER
    return BUILTIN if getattr(function, "_is_builtin", False) else FUNCTION


def function_class(node: Any) -> type | None:
    """The ``Function`` class whose backward this node runs (PyTorch keeps it as ``_forward_cls``).

    >>> import minigrad as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> function_class((x * 2).grad_fn).__name__
    'Mul'
    """
    return getattr(node, "_forward_cls", None)


def sequence_nr(node: Any) -> int:
    """The node's number in creation order: the engine runs later nodes first (PyTorch's
    ``node._sequence_nr()``). AccumulateGrad nodes have the largest number: they run as soon as ready.

    >>> import minigrad as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> y = x * 2
    >>> z = y + 1
    >>> sequence_nr(z.grad_fn) > sequence_nr(y.grad_fn)
    True
    """
    return getattr(node, "_sequence_nr", 0)


def uses_setup_context(node: Any) -> bool:
    """True if the node's Function is written in the separate style (``forward`` + ``setup_context``)."""
    function = function_class(node)
    return bool(getattr(function, "_uses_setup_context", False))


# ---------------------------------------------------------------------------- its inputs and outputs
def argument_positions(node: Any) -> tuple | None:
    """For each edge in ``next_functions``, which argument of forward it belongs to (non-tensor
    arguments have no edge). None for a node without forward arguments (AccumulateGrad).

    >>> import minigrad as torch
    >>> class Scale(torch.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, factor, tensor):      # a number first, then a tensor
    ...         ctx.factor = factor
    ...         return tensor * factor
    ...     @staticmethod
    ...     def backward(ctx, grad_output):
    ...         return None, grad_output * ctx.factor
    >>> node = Scale.apply(2.0, torch.ones(2, requires_grad=True)).grad_fn
    >>> len(node.next_functions), argument_positions(node), argument_names(node)
    (1, (1,), ['factor', 'tensor'])
    """
    if kind(node) in (ACCUMULATE, OTHER):
        return None
    return node._input_positions


def argument_names(node: Any) -> list[str]:
    """The names of forward's positional parameters, without ``ctx``, as the learner wrote them;
    for minigrad's own operations PyTorch's names (``self``, ``other``, ``mat2``...).

    >>> import minigrad as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> argument_names((x * 2).grad_fn)
    ['self', 'other']
    """
    function = function_class(node)
    explicit = getattr(function, "_arg_names", None)
    if explicit:
        return list(explicit)
    try:
        params = list(inspect.signature(function.forward).parameters.values())
    except (AttributeError, TypeError, ValueError):
        return []
    if not uses_setup_context(node):
        params = params[1:]   # forward(ctx, *args) in the combined style
    names = []
    for p in params:
        if p.kind == p.VAR_POSITIONAL:
            break
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
    if kind(node) == BUILTIN:
        names = [_BUILTIN_ARG_NAMES.get(name, name) for name in names]
    return names


def input_metadata(node: Any) -> tuple:
    """``(torch.Size, dtype)`` of each tensor argument, in ``next_functions`` order: what a
    gradient sent along that edge must fit. (PyTorch checks it against the next node's
    ``_input_metadata``, which is what ``output_metadata`` gives for that node.)"""
    infos = [info for info in getattr(node, "_input_info", ()) if info is not None]   # (None: not a tensor)
    return tuple((Size(shape), from_numpy_dtype(dtype)) for shape, dtype in infos)


def output_metadata(node: Any) -> tuple:
    """``(torch.Size, dtype)`` of each output of forward (None for an output that is not a tensor):
    PyTorch's ``node._input_metadata``, named from backward's side, where they are the node's inputs.

    >>> import minigrad as torch
    >>> x = torch.ones(2, 3, requires_grad=True)
    >>> output_metadata(x.sum(0).grad_fn)
    ((torch.Size([3]), torch.float32),)
    """
    if isinstance(node, AccumulateGrad):
        return ()
    return tuple(None if info is None else (Size(info[0]), from_numpy_dtype(info[1]))
                 for info in getattr(node, "_output_info", ()))


# ---------------------------------------------------------------------------- what ctx holds
def ctx_attributes(node: Any) -> dict:
    """What the user's forward or setup_context stored on ctx as plain attributes.

    >>> import minigrad as torch
    >>> class MulConstant(torch.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, tensor, constant):
    ...         ctx.constant = constant
    ...         return tensor * constant
    ...     @staticmethod
    ...     def backward(ctx, grad_output):
    ...         return grad_output * ctx.constant, None
    >>> ctx_attributes(MulConstant.apply(torch.ones(1, requires_grad=True), 10).grad_fn)
    {'constant': 10}
    """
    if kind(node) in (ACCUMULATE, OTHER):
        return {}
    return {k: v for k, v in vars(node).items() if not k.startswith("_") and k not in _CTX_MEMBERS}


def saved_tensors(node: Any) -> tuple | None:
    """The tensors the node saved for backward, without the version check of ``ctx.saved_tensors``
    (None where None was saved). None once backward freed them; ``()`` for a node that saves nothing.

    >>> import minigrad as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> y = x * x
    >>> [t is x for t in saved_tensors(y.grad_fn)]
    [True, True]
    """
    if kind(node) in (ACCUMULATE, OTHER):
        return ()
    return node._raw_saved_tensors


def saved_names(node: Any) -> tuple:
    """PyTorch's name of each saved tensor of a builtin node: ``node._saved_<name>`` reads it.
    A custom Function's saved tensors have no names: ``()``.

    >>> import minigrad as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> saved_names((x * x).grad_fn)
    ('self', 'other')
    """
    return tuple(getattr(function_class(node), "_saved_names", ()) or ())


def saved_output_nr(node: Any, index: int) -> int | None:
    """Which output of ``node`` its saved tensor ``index`` is, or None (an input, another tensor, or freed).
    A saved output is kept without its ``grad_fn`` (no reference cycle) and rebuilt on unpacking."""
    records = getattr(node, "_saved", None) or ()
    record = records[index] if index < len(records) else None
    return record.output_nr if record is not None and record.is_output else None


def freed_slots(node: Any) -> tuple | None:
    """After backward freed a node's saved tensors: for each slot, whether it held a tensor
    (a slot given None held nothing). None while they are still there, or if never freed."""
    if saved_tensors(node) is not None:
        return None
    return getattr(node, "_freed_slots", None)


def dirty_tensors(node: Any) -> list:
    """The tensors forward marked with ``ctx.mark_dirty``, those still alive (PyTorch empties
    ``ctx.dirty_tensors`` once the outputs are wrapped; minigrad keeps weak references)."""
    return _alive(getattr(node, "_dirty_refs", ()))


def non_differentiable_tensors(node: Any) -> list:
    """The outputs forward marked with ``ctx.mark_non_differentiable``, those still alive.

    >>> import minigrad as torch
    >>> values, indices = torch.tensor([3., 1.], requires_grad=True).sort()
    >>> non_differentiable_tensors(values.grad_fn)[0] is indices
    True
    """
    return _alive(getattr(node, "_non_differentiable_refs", ()))


def retained_tensors(node: Any) -> dict:
    """``{output_nr: tensor}`` for the outputs of ``node`` that called ``retain_grad()``, still alive.

    >>> import minigrad as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> y = x * 2
    >>> y.retain_grad()
    >>> retained_tensors(y.grad_fn) == {0: y}
    True
    """
    refs = getattr(node, "_retain_grad_tensors", None) or {}
    alive = {nr: ref() for nr, ref in sorted(refs.items())}
    return {nr: t for nr, t in alive.items() if t is not None}


def _alive(refs) -> list:
    return [t for t in (ref() if isinstance(ref, weakref.ref) else ref for ref in refs) if t is not None]


# ---------------------------------------------------------------------------- the whole graph
@graph_walk
def reachable_nodes(*roots: Any) -> list:
    """Every node reachable from ``roots`` through ``next_functions``, each once, the roots first,
    breadth-first. The same nodes the engine's discovery pass counts.

    >>> import minigrad as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> y = x * 2
    >>> [node.name() for node in reachable_nodes((y + y).grad_fn)]
    ['AddBackward0', 'MulBackward0', 'torch::autograd::AccumulateGrad']
    """
    order = [node for node in dict.fromkeys(roots) if node is not None]
    seen = set(order)
    for node in order:   # order grows while we walk it
        for next_node, _ in getattr(node, "next_functions", ()):
            if next_node is not None and next_node not in seen:
                seen.add(next_node)
                order.append(next_node)
    return order
