"""Reading and writing parts of a tensor: ``x[0]``, ``x[1:3]``, ``x[mask]``, ``x[idx] = v``,
``index_add_``. Reads by ints and slices return views; the others copy."""
from __future__ import annotations

import numpy as np

from .. import grad_mode
from ..tensor import Tensor, _operand
from ._util import Builtin, view_of, wrap


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
    """Backward of indexing: a zero tensor with ``grad`` added at ``key`` (repeats add up)."""

    _node_name = "IndexBackwardBackward0"

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


class Select(Builtin):
    """``x[i]`` along one dimension: a view."""

    _node_name = "SelectBackward0"

    @staticmethod
    def forward(ctx, a, key):
        ctx._shape, ctx._key = a.shape, key
        return view_of(a, a._data[key])

    @staticmethod
    def backward(ctx, grad):
        return PutIntoZeros.apply(grad, ctx._shape, ctx._key), None


class Slice(Select):
    """``x[start:stop:step]``: a view."""

    _node_name = "SliceBackward0"


class Index(Builtin):
    """Indexing with integer tensors or boolean masks: a copy."""

    _node_name = "IndexBackward0"

    @staticmethod
    def forward(ctx, a, key):
        ctx._shape, ctx._key = a.shape, key
        return wrap(a._data[key])

    @staticmethod
    def backward(ctx, grad):
        return PutIntoZeros.apply(grad, ctx._shape, ctx._key), None


def _check_bounds(a: Tensor, key) -> None:
    items = key if isinstance(key, tuple) else (key,)
    dim = 0
    for k in items:
        if k is None:
            continue
        if k is Ellipsis:
            dim = a.ndim - sum(1 for j in items if j is not None and j is not Ellipsis) + dim
            continue
        if isinstance(k, (int, np.integer)):
            if dim >= a.ndim:
                raise IndexError(f"too many indices for tensor of dimension {a.ndim}")
            size = a.shape[dim]
            if not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for dimension {dim} with size {size}")
        dim += 1


def getitem(a: Tensor, key) -> Tensor:
    key = _numpy_key(key)
    if _is_basic(key):
        _check_bounds(a, key)
        items = key if isinstance(key, tuple) else (key,)
        is_select = any(isinstance(k, (int, np.integer)) for k in items)
        return (Select if is_select else Slice).apply(a, key)
    return Index.apply(a, key)


class IndexPut(Builtin):
    """``x[key] = value`` in place."""

    _node_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, a, value, key):
        a._data[key] = value._data
        ctx._key = key
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        keep = np.ones(grad.shape, dtype=bool)
        keep[ctx._key] = False
        return grad * wrap(keep), getitem(grad, ctx._key), None


def check_inplace(a: Tensor) -> None:
    if grad_mode.state.enabled and a.grad_fn is None and a._requires_grad:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def setitem(a: Tensor, key, value) -> None:
    check_inplace(a)
    IndexPut.apply(a, _operand(value), _numpy_key(key))


class IndexAdd(Builtin):
    """``x.index_add_(dim, index, source)``: add slices of ``source`` at ``index`` along ``dim``."""

    _node_name = "IndexAddBackward0"

    @staticmethod
    def forward(ctx, a, dim, index, source, alpha):
        key = (slice(None),) * dim + (index._data,)
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
    return IndexAdd.apply(a, dim % a.ndim, index, source, alpha)
