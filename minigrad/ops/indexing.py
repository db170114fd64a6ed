"""Reading and writing parts of a tensor: ``x[0]``, ``x[1:3]``, ``x[mask]``, ``x[idx] = v``,
``index_add_``. Reads by ints and slices return views; the others copy."""
from __future__ import annotations

import numpy as np

from .. import grad_mode
from ..tensor import Tensor, _operand
from ._util import Builtin, qualify_node_name, view_of, wrap
from .shape import Unsqueeze


def _numpy_key(key):
    """Turn tensors inside an index into numpy arrays, and lists into arrays."""
    if isinstance(key, Tensor):
        return key._data
    if isinstance(key, list):
        return np.asarray([_numpy_key(k) for k in key])
    if isinstance(key, tuple):
        return tuple(_numpy_key(k) for k in key)
    return key


def _is_basic(key) -> bool:
    items = key if isinstance(key, tuple) else (key,)
    return all(isinstance(k, (int, np.integer, slice)) or k is None or k is Ellipsis for k in items)


class PutIntoZeros(Builtin):
    """Backward of reading ``x[key]``: zeros shaped like ``x`` with ``grad`` added at ``key`` (repeats add up)."""

    _node_name = "IndexPutImplBackward0"

    @staticmethod
    def forward(ctx, grad, shape, key):
        ctx._key = key
        out = np.zeros(shape, dtype=grad._data.dtype)
        if _is_basic(key):
            out[key] = grad._data
        else:
            np.add.at(out, key, grad._data)
        return wrap(out)

    @staticmethod
    def backward(ctx, grad):
        return getitem(grad, ctx._key), None, None


class SelectBackward(PutIntoZeros):
    _node_name = "SelectBackwardBackward0"


class SliceBackward(PutIntoZeros):
    _node_name = "SliceBackwardBackward0"


class Select(Builtin):
    """``x[i]`` along one dimension (``key`` is ``(slice(None),) * dim + (i,)``): a view."""

    _node_name = "SelectBackward0"
    _put = SelectBackward

    @staticmethod
    def forward(ctx, a, key):
        ctx._shape, ctx._key = a.shape, key
        return view_of(a, a._data[key])

    @staticmethod
    def backward(ctx, grad):
        return ctx._forward_cls._put.apply(grad, ctx._shape, ctx._key), None


class Slice(Select):
    """``x[start:stop:step]`` along one dimension: a view."""

    _node_name = "SliceBackward0"
    _put = SliceBackward


class Alias(Builtin):
    """``x[:, :]`` or ``x[...]``: a new view of all of ``x``."""

    _node_name = "AliasBackward0"

    @staticmethod
    def forward(ctx, a):
        return view_of(a, a._data)

    @staticmethod
    def backward(ctx, grad):
        return grad


class Index(Builtin):
    """Indexing with integer tensors or boolean masks: a copy."""

    _node_name = "IndexBackward0"

    @staticmethod
    def forward(ctx, a, key):
        ctx._shape, ctx._key = a.shape, key
        # PyTorch's node saves the index tensors: after backward frees them, a second backward is refused
        ctx.save_for_backward(*[wrap(k) for k in key if isinstance(k, np.ndarray)])
        try:
            return wrap(a._data[key])
        except IndexError as error:   # numpy says "axis", PyTorch says "dimension"
            raise IndexError(str(error).replace(" for axis ", " for dimension ")) from None

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors   # noqa: B018  (reading them checks that backward has not freed them)
        return PutIntoZeros.apply(grad, ctx._shape, ctx._key), None


def _dims_used(k) -> int:
    """How many dimensions of the tensor an index item consumes (a boolean mask: all of its own)."""
    if k is None or k is Ellipsis:
        return 0
    if isinstance(k, np.ndarray) and k.dtype == np.bool_:
        return k.ndim
    return 1


def _check_zero_dim_key(key) -> None:
    """PyTorch's errors for ints and slices used on a 0-dim tensor."""
    first = key
    if isinstance(first, slice):
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if isinstance(first, (int, np.integer)) and not isinstance(first, (bool, np.bool_)):
        if first == 0:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                             "in C++ to convert a 0-dim tensor to a number")
        raise IndexError(f"index {first} is out of bounds for dimension 0 with size 0")


def getitem(a: Tensor, key) -> Tensor:
    """``a[key]`` the way PyTorch builds it: ints select, slices slice, None unsqueezes, one node
    each and in order (views); then integer tensors and masks index what is left (a copy)."""
    key = _numpy_key(key)
    if a.ndim == 0 and not isinstance(key, tuple):
        _check_zero_dim_key(key)
        if isinstance(key, np.ndarray) and key.dtype == np.bool_ and key.ndim == 0:
            return Index.apply(Unsqueeze.apply(a, 0), (key.reshape(1),))   # as PyTorch: unsqueeze, then mask
    if not isinstance(key, tuple):
        if isinstance(key, slice):          # a single slice always makes a SliceBackward0 node
            return Slice.apply(a, (key,))
        if key is Ellipsis:
            return Alias.apply(a)
        key = (key,)
    used = sum(_dims_used(k) for k in key)
    if used > a.ndim:
        raise IndexError(f"too many indices for tensor of dimension {a.ndim}")
    result, dim, advanced = a, 0, []
    for position, k in enumerate(key):   # PyTorch's errors name the item's place in the key
        if k is Ellipsis:
            skip = a.ndim - used
            advanced.extend([slice(None)] * skip)
            dim += skip
        elif k is None:
            result = Unsqueeze.apply(result, dim)
            advanced.append(slice(None))
            dim += 1
        elif isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
            size = result.shape[dim]
            if not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for dimension {position} with size {size}")
            result = Select.apply(result, (slice(None),) * dim + (k,))
        elif isinstance(k, slice):
            if k != slice(None):
                result = Slice.apply(result, (slice(None),) * dim + (k,))
            advanced.append(slice(None))
            dim += 1
        else:                                 # an integer array or a boolean mask
            advanced.append(k)
            dim += _dims_used(k)
    if any(not isinstance(k, slice) for k in advanced):
        while advanced and isinstance(advanced[-1], slice):
            advanced.pop()
        return Index.apply(result, tuple(advanced))
    return result if result is not a else Alias.apply(a)


class IndexPut(Builtin):
    """``x[key] = value`` in place."""

    _node_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, a, value, key):
        try:
            a._data[key] = value._data
        except IndexError as error:   # numpy says "axis", PyTorch says "dimension"
            raise IndexError(str(error).replace(" for axis ", " for dimension ")) from None
        ctx._key = key
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        keep = np.ones(grad.shape, dtype=bool)
        keep[ctx._key] = False
        return grad * wrap(keep), getitem(grad, ctx._key), None


class CopySlices(IndexPut):
    """``x[key] = value`` where ``x[key]`` is a view (ints, slices, None): PyTorch's CopySlices node."""

    _node_name = "CopySlices"


qualify_node_name(CopySlices, "torch::autograd::CopySlices")

LEAF_IN_PLACE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_IN_PLACE = "a view of a leaf Variable that requires grad is being used in an in-place operation."


def check_inplace(a: Tensor, through_view: bool = False) -> None:
    """PyTorch's refusal to change a leaf that requires grad (or a view of one) while grad mode is on."""
    if not grad_mode.state.enabled:
        return
    if a.grad_fn is None and a._requires_grad:
        raise RuntimeError(VIEW_OF_LEAF_IN_PLACE if through_view else LEAF_IN_PLACE)
    base = a._base
    if base is not None and base.grad_fn is None and base._requires_grad:
        raise RuntimeError(VIEW_OF_LEAF_IN_PLACE)


def _makes_view(key) -> bool:
    """Does ``x[key]`` start with a view, as in PyTorch's ``x[key] = v`` (ints, None, real slices)?"""
    items = key if isinstance(key, tuple) else (key,)
    return any(k is None or isinstance(k, (int, np.integer)) or (isinstance(k, slice) and k != slice(None))
               for k in items if not isinstance(k, (bool, np.bool_)))


def setitem(a: Tensor, key, value) -> None:
    from .inplace import CopyInplace, FillTensorInplace
    key = _numpy_key(key)
    items = key if isinstance(key, tuple) else (key,)
    view = _makes_view(key)
    check_inplace(a, through_view=view)
    value = _operand(value)
    if all(k is Ellipsis or (isinstance(k, slice) and k == slice(None)) for k in items):
        # x[:] = v and x[...] = v change the whole tensor: a fill or a copy, as in PyTorch
        if value._wrapped_number:
            FillTensorInplace.apply(a, value)
        else:
            CopyInplace.apply(a, value if value.shape == a.shape else value.expand(a.shape))
        return
    (CopySlices if view else IndexPut).apply(a, value, key)


class IndexAdd(Builtin):
    """``x.index_add_(dim, index, source)``: add slices of ``source`` at ``index`` along ``dim``."""

    _node_name = "IndexAddBackward0"

    @staticmethod
    def forward(ctx, a, dim, index, source, alpha):
        # index is a numpy array: like PyTorch's node, this one has no next_functions entry for it
        key = (slice(None),) * dim + (index,)
        add = source._data if alpha == 1 else alpha * source._data
        np.add.at(a._data, key, add.astype(a._data.dtype, copy=False))
        ctx._key, ctx._alpha = key, alpha
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        grad_source = getitem(grad, ctx._key)
        return grad, None, None, grad_source if ctx._alpha == 1 else grad_source * ctx._alpha, None


def index_add_(a: Tensor, dim: int, index: Tensor, source: Tensor, alpha=1) -> Tensor:
    check_inplace(a)
    return IndexAdd.apply(a, dim % a.ndim, index._data, source, alpha)
