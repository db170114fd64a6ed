"""In-place changes through views: how autograd stays right after ``v = y[0]; v.mul_(2)``.

A **view** shares memory with its **base**: ``y[0]``, ``y.t()``, ``y.view(-1)`` and views of views
all point at the same root base (``v._base is y``) and share its version counter. Changing a view in
place therefore changes its base too, and both histories must be rewritten, as PyTorch does:

1. **The base** now holds new values in the viewed region. Its ``grad_fn`` becomes a ``CopySlices``
   node (``name()`` is ``'torch::autograd::CopySlices'``). In backward it receives the gradient for
   the whole base, runs the in-place operation's own backward on the viewed region only, and passes
   the gradient of every other element through unchanged.
2. **The view** gets ``AsStridedBackward0``: "I am these elements of my base", pointing at the
   base's new ``CopySlices``.

Other views of the same base are out of date as well. They notice through the shared version
counter: when a view's ``grad_fn`` is read and the counter moved since that ``grad_fn`` was set, the
view gets a fresh ``AsStridedBackward0`` pointing at the base's current history (``current_grad_fn``).

Which elements of its base a view shows is worked out from memory addresses (``positions_in_base``):
PyTorch records the same thing as the view's sizes, strides and storage offset, for ``as_strided``.

Two kinds of views must not be changed in place, and PyTorch forbids them with an error:

- a view made under ``no_grad`` (was the change meant to be recorded or not?);
- a view returned by a custom Function (rewriting its history would bypass the custom backward).

>>> import minigrad as torch
>>> x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
>>> y = x.clone()
>>> v = y[0]
>>> _ = v.mul_(2)
>>> y.grad_fn.name(), v.grad_fn.name(), y._version, v._version
('torch::autograd::CopySlices', 'AsStridedBackward0', 1, 1)
>>> y.sum().backward(); x.grad
tensor([[2., 2.],
        [1., 1.]])
"""
from __future__ import annotations

import re

import numpy as np

from .. import grad_mode
from ..tensor import Tensor, shape_and_dtype
from . import anomaly_mode
from .function import BackwardCFunction, Function, _tensor_requires_grad
from .graph import _sequence_numbers
from .saved import BACKWARD_TWICE

# How a view was made (PyTorch's CreationMeta): it decides whether an in-place change is allowed.
DEFAULT = "default"
NO_GRAD = "no_grad"                    # made while grad mode was off
INFERENCE_MODE = "inference_mode"      # made inside torch.inference_mode()
CUSTOM_FUNCTION = "custom_function"    # returned by a custom Function (or an input returned as-is)
MULTI_OUTPUT = "multi_output"          # one of several views made by one node (split, chunk, unbind)

LEAF_IN_PLACE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_IN_PLACE = "a view of a leaf Variable that requires grad is being used in an in-place operation."
OVERLAPPING_WRITE = ("unsupported operation: more than one element of the written-to tensor refers to a single "
                     "memory location. Please clone() the tensor before performing the operation.")
PARTIAL_OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                   "single memory location. Please clone() the tensor before performing the operation.")
MULTIPLE_OUTPUTS = (
    "If your Function modifies inplace an input that is a view of another Tensor, your Function cannot return "
    "more than one Tensor. This is not supported by the current autograd engine. You should either make sure the "
    "input is not a view (using .clone() for example) or make your Function only return one Tensor (potentially "
    "splitting it into two Functions: one doing the inplace that returns a single Tensor and a second one that "
    "does the other operations). You can ask on the forum https://discuss.pytorch.org/ if you need help to do "
    "this change.")
_NO_GRAD_ADVICE = (
    " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving "
    "both the view and the inplace either both inside the no_grad block (if you don't want the inplace to be "
    "tracked) or both outside (if you want the inplace to be tracked).")
_CUSTOM_FUNCTION_ADVICE = (
    " This view was created inside a custom Function (or because an input was returned as-is) and the autograd "
    "logic to handle view+inplace would override the custom backward associated with the custom Function, "
    "leading to incorrect gradients. This behavior is forbidden. You can fix this by cloning the output of the "
    "custom Function.")

_MULTI_OUTPUT_ADVICE = (
    " This view is the output of a function that returns multiple views. Such functions do not allow the output "
    "views to be modified inplace. You should replace the inplace operation by an out-of-place one.")
_INFERENCE_MODE_ADVICE = _NO_GRAD_ADVICE.replace("no_grad block", "inference_mode block")
_ADVICE = {NO_GRAD: _NO_GRAD_ADVICE, INFERENCE_MODE: _INFERENCE_MODE_ADVICE, CUSTOM_FUNCTION: _CUSTOM_FUNCTION_ADVICE,
           MULTI_OUTPUT: _MULTI_OUTPUT_ADVICE}


# ---------------------------------------------------------------------------- making views
def remember_creation(view: Tensor, parent: Tensor, in_no_grad: bool, multi_output: bool = False) -> None:
    """Record how a builtin view op made ``view`` from ``parent`` (called right after the op)."""
    view._grad_fn_version = view._version_counter.value
    if in_no_grad:
        view._view_creation = INFERENCE_MODE if grad_mode.is_inference_mode_enabled() else NO_GRAD
    elif parent._view_base is not None and parent._view_creation != DEFAULT:
        view._view_creation = parent._view_creation   # a view of a special view is special too
    elif multi_output:
        view._view_creation = MULTI_OUTPUT


def mark_custom_function_output(ctx, output: Tensor) -> None:
    """A custom Function returned a view (or one of its inputs): forbid later in-place changes to it."""
    if not ctx._forward_cls._is_builtin:
        output._view_creation = CUSTOM_FUNCTION


# ---------------------------------------------------------------------------- the checks
def _refusal(view: Tensor, indirect: bool) -> str | None:
    """PyTorch's message when ``view`` may not be rebased (``indirect``: its base or a sibling changed)."""
    creation = view._view_creation
    if creation == DEFAULT:
        return None
    change = "its base or another view of its base has been" if indirect else "is being"
    node = view._node
    who = f"Output {view._output_nr} of {re.sub(r'Backward[0-9]*$', '', node.name())}" if node is not None else ""
    if creation in (NO_GRAD, INFERENCE_MODE) or node is None:
        prefix = f"{who} is a view of a view which was created in" if node is not None else "A view was created in"
        mode, now = ("inference", "in normal mode") if creation == INFERENCE_MODE else ("no_grad", "with grad mode enabled")
        message = f"{prefix} {mode} mode and {change} modified inplace {now}."
    else:
        message = f"{who} is a view and {change} modified inplace."
    return message + _ADVICE[creation]


def check_inplace(tensor: Tensor, *others, overlap_allowed: bool = False) -> None:
    """PyTorch's checks before an in-place operation writes into ``tensor`` (``others``: its other inputs).

    ``overlap_allowed``: the operation may write into an expanded tensor (fill_ and zero_ may: they
    write one value, so every element sharing a memory cell gets the same).
    """
    strides = tensor._data.strides
    if not overlap_allowed and 0 in strides and tensor._data.size and any(
            s == 0 and n > 1 for s, n in zip(strides, tensor._data.shape)):   # (an empty tensor has no element)
        raise RuntimeError(OVERLAPPING_WRITE)   # an expanded tensor: one memory cell, several elements
    if not grad_mode.state.enabled:
        return
    requires_grad = _tensor_requires_grad(tensor)
    if not requires_grad and not any(isinstance(o, Tensor) and _tensor_requires_grad(o) for o in others):
        return   # nothing will be recorded
    if tensor._view_base is not None:
        message = _refusal(tensor, indirect=False)
        if message is not None:
            raise RuntimeError(message)
        if requires_grad and tensor._view_base.is_leaf:
            raise RuntimeError(VIEW_OF_LEAF_IN_PLACE)
    if requires_grad and tensor.is_leaf:
        raise RuntimeError(LEAF_IN_PLACE)


def writeable_memory(array: np.ndarray) -> np.ndarray:
    """``array``, or a writeable view of the same memory if numpy marked it read-only: an expanded
    tensor (and any view of one) is a read-only numpy view. PyTorch writes into such a tensor when no
    two written elements share a memory cell (``check_inplace`` refuses the others): ``g[0] = 0``
    on ``g = torch.ones(1).expand(10)`` changes all ten elements, as they are one."""
    if array.flags.writeable:
        return array
    view = array.view()
    view.flags.writeable = True   # numpy refuses if the memory itself is read-only
    return view


def check_no_partial_overlap(written: Tensor, read) -> None:
    """PyTorch refuses an in-place operation that reads part of the memory it writes
    (``x.add_(x.t())``, ``x.mul_(x[0])``), and allows one that reads exactly what it writes
    (``x.mul_(x)``). Like PyTorch, it only judges tensors whose elements fill one block of memory."""
    if not isinstance(read, Tensor) or read is written or read._version_counter is not written._version_counter:
        return   # different memory: only views of one tensor share its version counter
    a, b = written._data, read._data
    if a.size == 0 or b.size == 0 or not (_dense(a) and _dense(b)):
        return   # PyTorch calls this "too hard" to tell, and lets the operation run
    a_begin, b_begin = a.__array_interface__["data"][0], b.__array_interface__["data"][0]
    a_end, b_end = a_begin + a.nbytes, b_begin + b.nbytes
    same_block = (a_begin, a_end) == (b_begin, b_end)
    if (same_block and a.strides != b.strides) or (not same_block and a_begin < b_end and b_begin < a_end):
        raise RuntimeError(PARTIAL_OVERLAP)


def _dense(array: np.ndarray) -> bool:
    """PyTorch's ``is_non_overlapping_and_dense``: the elements fill one block of memory, in any order."""
    expected = array.itemsize
    for stride, size in sorted(zip(array.strides, array.shape)):
        if size == 1:
            continue
        if stride != expected:
            return False
        expected *= size
    return True


# ---------------------------------------------------------------------------- geometry
def _byte_offsets(array: np.ndarray, origin: np.ndarray) -> np.ndarray:
    """Where each element of ``array`` lives, in bytes from the first byte of ``origin``."""
    start = array.__array_interface__["data"][0] - origin.__array_interface__["data"][0]
    grids = np.indices(array.shape, sparse=True, dtype=np.int64)
    return np.asarray(start + sum((g * s for g, s in zip(grids, array.strides)), np.int64(0)))


def positions_in_base(view: Tensor) -> tuple:
    """Which elements of its base ``view`` shows: a numpy index ``key`` of index arrays, with
    ``base[key]`` equal to ``view`` (index arrays, never plain integers: ``base[key]`` is a copy).
    For a 0-dim base the key indexes ``base.reshape(1)``: every element of the view is its one element.

    >>> import minigrad as torch
    >>> y = torch.tensor([[0, 1, 2], [3, 4, 5]])
    >>> key = positions_in_base(y.t()[1:])
    >>> y.numpy()[key]
    array([[1, 4],
           [2, 5]])
    """
    base = view._view_base._data
    if base.ndim == 0:
        return (np.zeros(view._data.shape, np.intp),)
    if view._data.size == 0:   # an empty view shows no element (numpy says it shares no memory)
        return np.unravel_index(np.zeros(view._data.shape, np.intp), base.shape)
    if not np.may_share_memory(view._data, base):
        raise NotImplementedError("minigrad: this view does not share memory with its base (its data was "
                                  "replaced); an in-place change through it cannot be tracked")
    view_offsets = _byte_offsets(view._data, base)
    if base.flags.c_contiguous:      # the usual case: memory order is the row-major order of the elements
        return _index_arrays(np.unravel_index(view_offsets // base.itemsize, base.shape))
    base_offsets = _byte_offsets(base, base).ravel()
    order = np.argsort(base_offsets, kind="stable")    # match addresses: which base element lives there?
    found = order[np.searchsorted(base_offsets[order], view_offsets)]
    return _index_arrays(np.unravel_index(found, base.shape))


def _index_arrays(key: tuple) -> tuple:
    """numpy gives plain integers for a 0-dim view: make them 0-dim arrays, so that indexing copies."""
    return tuple(np.asarray(k) for k in key)


def _as_rows(grad: Tensor, base_shape: tuple) -> Tensor:
    """The gradient of a base as ``positions_in_base`` indexes it: a 0-dim base as one element in a row."""
    return grad.reshape(1) if not base_shape else grad


# ---------------------------------------------------------------------------- the two nodes
# In PyTorch these are C++ nodes, not autograd Functions, and no forward ever runs for them: the
# in-place change they stand for has already happened when they are made. minigrad declares them
# as builtin Functions with a backward only, so that they are nodes like any other (names, pictures,
# node_info); their nodes are made by _new_node below, never by apply.
class AsStrided(Function):
    """The ``grad_fn`` a view gets once its base's history changed: its gradient lands on its elements."""

    _is_builtin = True
    _node_name = "AsStridedBackward0"

    @staticmethod
    def backward(ctx, grad):
        # Zeros of the base's shape, with grad added at the view's places: an element the view shows
        # several times (an expanded view) gets the sum. A 0-dim base is one element (see
        # positions_in_base). Tensor methods, so that a backward with create_graph=True records it.
        shape = ctx._base_shape
        places = np.ravel_multi_index(ctx._key, shape or (1,)).reshape(-1)
        summed = grad.new_zeros(int(np.prod(shape))).index_add_(0, Tensor._make(places), grad.reshape(-1))
        return summed.reshape(shape)


class CopySlicesNode(BackwardCFunction):
    """The class of CopySlices nodes: PyTorch's C++ name, and what its backward frees."""

    _fn = None   # the in-place operation's node it wraps (set by rebase_view)

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def _release_saved(self) -> None:
        """After a backward without retain_graph, CopySlices lets go of the node it wraps (and so of its
        saved tensors), as PyTorch's does: a second backward through it fails even if that node saved nothing."""
        if self._fn is not None:
            self._fn._release_saved()
            self._fn = None


class CopySlices(Function):
    """The base's ``grad_fn`` after an in-place change through one of its views.

    It wraps the in-place operation's own node (``ctx._fn``), made when the view was changed.
    """

    _is_builtin = True
    _node_name = "CopySlices"
    _node_base = CopySlicesNode   # its nodes are CopySlicesNode objects

    @staticmethod
    def backward(ctx, grad):
        if ctx._fn is None:   # released by an earlier backward, as PyTorch's CopySlices releases its fn
            raise RuntimeError(BACKWARD_TWICE)
        key = ctx._key
        result = _as_rows(grad, ctx._base_shape).clone()   # the gradient for every element of the base...
        # ...but the viewed region goes through the op's backward. It gets a copy of that region (the
        # key holds index arrays), as in PyTorch: a gradient the op returns as it got it (copy_'s
        # for its source) must not change when the region is overwritten below.
        grads = ctx._fn.apply(result[key])   # the wrapped node's backward (node.apply, not Function.apply)
        grads = grads if isinstance(grads, tuple) else (grads,)
        if not ctx.needs_input_grad[0]:
            return (None,) + grads[1:]
        region = grads[0] if grads[0] is not None else 0.0
        if isinstance(region, Tensor) and region.dtype is not result.dtype:
            region = region.to(result.dtype)   # as the engine casts a gradient to its input's dtype
        result[key] = region
        return (result if ctx._base_shape else result.reshape(()),) + grads[1:]


def _new_node(function: type, edges: tuple, needs: tuple, input_info: list, output: Tensor):
    """A node made by hand, as ``Function.apply`` makes one for these edges (``_connect_to_inputs``)."""
    node = function._backward_cls()
    node.needs_input_grad, node._next_functions, node._input_info = needs, edges, input_info
    node._sequence_nr = next(_sequence_numbers)
    node._output_info = (shape_and_dtype(output),)
    if anomaly_mode.state.enabled:
        anomaly_mode.record_forward(node)
    return node


def _as_strided_node(view: Tensor):
    base = view._view_base
    node = _new_node(AsStrided, (base._gradient_edge(),), (True,), [shape_and_dtype(base)], view)
    node._base_shape, node._key = base._data.shape, positions_in_base(view)
    return node


# ---------------------------------------------------------------------------- rewriting histories
def current_grad_fn(view: Tensor):
    """A view's ``grad_fn``, made anew if its base or a sibling view changed in place since it was set."""
    if view._node is None and not view._view_base.requires_grad:
        return None
    message = _refusal(view, indirect=True)
    if message is not None:
        if not grad_mode.state.enabled:
            return view._node   # nothing is being recorded: an operation under no_grad may still use it
        raise RuntimeError(message)
    return _point_view_at_base(view)


def _point_view_at_base(view: Tensor):
    old = view._node
    node = _as_strided_node(view)
    view._node, view._output_nr, view._grad_fn_version = node, 0, view._version_counter.value
    if view._retains_grad:
        move_retained_grad(view, old, node)
    return node


def move_retained_grad(tensor: Tensor, old, new) -> None:
    """``retain_grad()`` follows the tensor to its new ``grad_fn`` (hooks stay with the old one, as in PyTorch)."""
    if old is not None and old._retain_grad_tensors:
        old._retain_grad_tensors.pop(tensor._output_nr, None)
    tensor._retains_grad = False
    if new is not None:
        tensor.retain_grad()


def rebase_view(view: Tensor, fn, args: tuple, n_tensor_outputs: int) -> None:
    """After ``fn`` (an in-place op's node) changed ``view`` in place: give its base a ``CopySlices``
    wrapping ``fn``, and the view an ``AsStridedBackward0`` pointing at it."""
    if not any(view is a for a in args):   # PyTorch refuses a view that is not an input (others get a warning)
        raise RuntimeError("ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have "
                           "been mutated should be passed to ctx.mark_dirty().")
    message = _refusal(view, indirect=False)
    if message is not None:
        raise RuntimeError(message)
    base = view._view_base
    if base._node is None and base._requires_grad:
        raise RuntimeError(VIEW_OF_LEAF_IN_PLACE)
    if n_tensor_outputs > 1:
        raise RuntimeError(MULTIPLE_OUTPUTS)
    if not args or args[0] is not view:
        raise NotImplementedError("minigrad: a Function that modifies in place (mark_dirty) a view that is not its "
                                  "first argument is not supported; pass the view first, or clone() it")
    edge = base._gradient_edge()
    node = _new_node(CopySlices, (edge,) + fn.next_functions[1:], (edge[0] is not None,) + fn.needs_input_grad[1:],
                     [shape_and_dtype(base)] + fn._input_info[1:], base)
    node._fn, node._key, node._base_shape = fn, positions_in_base(view), base._data.shape
    base.grad_fn = node
    base._output_nr = 0
    _point_view_at_base(view)
