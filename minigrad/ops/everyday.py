"""Operations students and real programs reach for beyond the course's own: ``argsort``, ``scatter``
(and ``scatter_``), ``pow_``, ``amax``/``amin``, ``median`` and ``stride``. Each has PyTorch's node
name, gradients and error texts.

>>> import minigrad as torch
>>> x = torch.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 5.0]], requires_grad=True)
>>> x.argsort(1)
tensor([[1, 2, 0],
        [0, 1, 2]])
>>> x.amax(1)
tensor([3., 5.], grad_fn=<AmaxBackward0>)
>>> x.median()
tensor(2., grad_fn=<MedianBackward0>)
>>> torch.zeros(2, 3).scatter(1, torch.tensor([[2], [0]]), 7.0)
tensor([[0., 0., 7.],
        [7., 0., 0.]])
"""
from __future__ import annotations

import numpy as np

from ..autograd.views import check_inplace, writeable_memory
from ..tensor import Tensor
from ._util import Builtin, NoEdge, binary_arrays, normalize_dims, wrap, wrap_dim
from .arithmetic import Pow, PowTensor, power, scalar_power
from .inplace import _old_values, check_output_shape
from .pointwise import _keep_gradient
from .reduction import Gather, MaxAll, MaxDim, _restore_dims, _return_type, sort


def argsort(a: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """The indices that sort ``a`` along ``dim``: ``sort``'s indices (NaN counts as the largest value;
    equal values keep their order, which is what PyTorch's CPU sort gives, ``stable`` or not)."""
    return sort(a, dim, descending).indices


# ------------------------------------------------------------------------------------ scatter
def _index(index, ndim: int, what: str) -> np.ndarray:
    if not isinstance(index, Tensor):
        raise TypeError(f"{what}(): argument 'index' (position 2) must be Tensor, not {type(index).__name__}")
    if index._data.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{what}(): Expected dtype int32/int64 for index")
    if index.ndim != ndim and not (index.ndim <= 1 and ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    return index._data if ndim else index._data.reshape(-1)


def _scatter_arguments(a: Tensor, dim: int, index, src) -> int:
    """PyTorch's checks of ``scatter``, in its order; returns dim as a non-negative axis."""
    dim = wrap_dim(dim, a.ndim)
    idx = _index(index, a.ndim, "scatter")
    shape = a.shape if a.ndim else (1,)
    bigger = any(idx.shape[d] > shape[d] for d in range(idx.ndim) if d != dim)
    if isinstance(src, Tensor):
        if src.ndim != a.ndim and not (src.ndim <= 1 and a.ndim <= 1):
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
        if src.dtype is not a.dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
        if bigger or any(n > m for n, m in zip(idx.shape, src.shape)):
            raise RuntimeError(f"Expected index {list(idx.shape)} to be no larger than self {list(a.shape)} apart "
                               f"from dimension {dim} and to be no larger size than src {list(src.shape)}")
    elif bigger:
        raise RuntimeError(f"Expected index {list(idx.shape)} to be no larger than self {list(a.shape)} apart from "
                           f"dimension {dim}")
    bad = (idx < 0) | (idx >= shape[dim])
    if bad.any():
        raise RuntimeError(f"index {idx[bad].flat[0]} is out of bounds for dimension {dim} with size {shape[dim]}")
    return dim


def _written(x: np.ndarray, dim: int, index: np.ndarray, values) -> np.ndarray:
    """``x`` with ``values`` written at ``index`` along ``dim``, in place: ``x[i][index[i][j]] = values[i][j]``
    for every position (i, j) of index (dim = 1), and nowhere else; a repeated index keeps the last."""
    target = x.reshape(1) if x.ndim == 0 else x
    if isinstance(values, np.ndarray) and values.ndim:
        values = values[tuple(slice(0, n) for n in index.shape)]   # src may be larger than index
    coords = list(np.indices(index.shape, sparse=True))
    coords[dim] = index
    target[tuple(coords)] = values
    return x


class Scatter(Builtin):
    """f(a, src) = a with src[i][j] written at a[i][index[i][j]] (for dim = 1): ``a.scatter(dim, index, src)``

    ∂L/∂a = grad, with 0 where something was written (even for an inf or nan grad);
    ∂L/∂src = grad gathered at index (``grad.gather(dim, index)``, of index's shape, as PyTorch's:
    a src larger than index gets PyTorch's error about the gradient's shape)
    Saves the index, which both gradients read, as PyTorch's node: an in-place change of it before
    backward, or a second backward, is refused. It comes in a ``NoEdge``: no next_functions entry for
    it, as in PyTorch. Keeps dim. ``a.scatter_(...)`` is the same node, writing into a.
    Node: ScatterBackward0.
    """

    _node_name = "ScatterBackward0"
    _saved_names = ("index",)

    @staticmethod
    def forward(ctx, a, dim, index, src, in_place=False):
        return _scatter_into(ctx, a, dim, index.tensor, src._data, in_place)

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        return (_unwritten_gradient(grad, ctx._saved_dim, index) if ctx.needs_input_grad[0] else None, None, None,
                _gathered(grad, ctx._saved_dim, index) if ctx.needs_input_grad[3] else None, None)


class ScatterValue(Builtin):
    """f(a) = a with a number v written at a[i][index[i][j]] (for dim = 1): ``a.scatter(dim, index, v)``

    ∂L/∂a = grad, with 0 where v was written (even for an inf or nan grad)
    Saves the index, as Scatter (in a ``NoEdge``); keeps dim. Node: ScatterBackward1.
    """

    _node_name = "ScatterBackward1"
    _saved_names = ("index",)

    @staticmethod
    def forward(ctx, a, dim, index, value, in_place=False):
        return _scatter_into(ctx, a, dim, index.tensor, np.asarray(value), in_place)

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        return _unwritten_gradient(grad, ctx._saved_dim, index), None, None, None, None


def _scatter_into(ctx, a: Tensor, dim: int, index: Tensor, values: np.ndarray, in_place: bool) -> Tensor:
    """Both scatters' forward: a copy of ``a`` written into (or ``a`` itself, marked dirty, for ``scatter_``)."""
    ctx._saved_dim = dim
    ctx.save_for_backward(index)
    x = writeable_memory(a._data) if in_place else a._data.copy()
    out = _written(x, dim, _index_of(index, a), values.astype(x.dtype, copy=False))
    if not in_place:
        return wrap(out)
    ctx.mark_dirty(a)
    return a


def _index_of(index: Tensor, a) -> np.ndarray:
    """The index array scatter writes with: for a 0-dim ``a``, a 0-dim index as one element."""
    return index._data if a.ndim else index._data.reshape(-1)


def _unwritten_gradient(grad: Tensor, dim: int, index: Tensor) -> Tensor:
    """``grad.scatter(dim, index, 0)``: the gradient of what scatter kept (kept or zeroed, never grad * 0)."""
    kept = _written(np.ones(grad.shape, dtype=bool), dim, _index_of(index, grad), False)
    return _keep_gradient(wrap(kept), grad)


def _gathered(grad: Tensor, dim: int, index: Tensor) -> Tensor:
    """``grad.gather(dim, index)``: of index's shape, read from the part of grad the index covers."""
    if grad.ndim == 0:
        return grad.reshape(index.shape)
    if any(n < m for d, (n, m) in enumerate(zip(index.shape, grad.shape)) if d != dim):
        grad = grad[tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(index.shape))]
    return Gather.apply(grad, dim, NoEdge(index))


def scatter(a: Tensor, dim: int, index, src=None, *, value=None, reduce=None, in_place: bool = False) -> Tensor:
    """``a.scatter(dim, index, src)`` or ``a.scatter(dim, index, value)``; ``scatter_`` writes into ``a``."""
    if reduce is not None:
        raise NotImplementedError("minigrad: scatter(reduce=...) is not implemented; use scatter_add for 'add'")
    src = value if src is None else src
    dim = _scatter_arguments(a, dim, index, src)
    if in_place:
        check_inplace(a, *([src] if isinstance(src, Tensor) else []))
    if isinstance(src, Tensor):
        return Scatter.apply(a, dim, NoEdge(index), src, in_place)
    return ScatterValue.apply(a, dim, NoEdge(index), src, in_place)


# ------------------------------------------------------------------------------------ pow_
class PowInplace(Pow):
    """f(a) = a ** n, written into a (``a.pow_(n)``, n a number)

    ∂L/∂a = grad * n * a_old ** (n - 1) (Pow's backward, a_old being a's values before the write)
    Saves a_old, a copy (the write destroys a's values). Node: PowBackward0, as for ``a ** n``.
    """

    _node_name = "PowBackward0"

    @staticmethod
    def forward(ctx, a, exponent):
        ctx.save_for_backward(_old_values(a, a) if ctx.needs_input_grad[0] else None)
        ctx._exponent = exponent
        _write_result(a, scalar_power(a._data, exponent))
        ctx.mark_dirty(a)
        return a


class PowTensorInplace(PowTensor):
    """f(a, b) = a ** b, written into a (``a.pow_(b)``, b a tensor)

    ∂L/∂a = grad * b * a_old ** (b - 1),  ∂L/∂b = grad * f * log(a_old) (PowTensor's backward)
    Saves a_old (a copy: the write destroys a's values), b and the result f. Node: PowBackward1.
    """

    _node_name = "PowBackward1"

    @staticmethod
    def forward(ctx, a, b):
        original = _old_values(a, a)
        _write_result(a, power(*binary_arrays(a, b)))
        ctx.mark_dirty(a)
        ctx.save_for_backward(original, _old_values(a, b), a)
        return a


def _write_result(a: Tensor, result: np.ndarray) -> None:
    """Write an in-place result into ``a``, refused as PyTorch does if its dtype cannot hold it."""
    if result.dtype.kind == "f" and a._data.dtype.kind != "f":
        raise RuntimeError(f"result type Float can't be cast to the desired output type {a.dtype.legacy_name[:-6]}")
    np.copyto(writeable_memory(a._data), result, casting="unsafe")


def pow_(a: Tensor, exponent) -> Tensor:
    """``a.pow_(exponent)``: a number exponent gives PowBackward0 (one edge), a tensor PowBackward1."""
    if isinstance(exponent, Tensor):
        check_inplace(a, exponent)
        check_output_shape(a, exponent)
        return PowTensorInplace.apply(a, exponent)
    check_inplace(a)
    return PowInplace.apply(a, exponent)


# ------------------------------------------------------------------------------------ amax, amin
class Amax(Builtin):
    """f(a) = the largest element of a over dims (all dims when none are given)

    ∂L/∂a = (grad / k) * mask, where mask marks the k elements equal to f: tied maxima share the
    gradient, as PyTorch's ``scale_grad_by_count`` (a product with the mask, so an inf gradient gives
    nan at the others, and a nan maximum, equal to nothing, a nan gradient, as in PyTorch)
    Saves a and f, which the mask compares. Node: AmaxBackward0.
    """

    _node_name = "AmaxBackward0"
    _saved_names = ("self", "result")
    _name = "amax"
    _reduce = staticmethod(np.max)

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        ctx._saved_dim, ctx._saved_keepdim = dims, keepdim
        axes = dims or None
        out = wrap(np.asarray(ctx._forward_cls._reduce(a._data, axis=axes, keepdims=keepdim)))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        dims = ctx._saved_dim or tuple(range(a.ndim))
        grad, result = _restore_dims(grad, dims, ctx._saved_keepdim), _restore_dims(result, dims, ctx._saved_keepdim)
        mask = a._data == result._data
        count = wrap(mask.sum(axis=dims, keepdims=True))
        return grad / count * wrap(mask), None, None


class Amin(Amax):
    """f(a) = the smallest element of a over dims (all dims when none are given)

    ∂L/∂a = (grad / k) * mask, for the k elements equal to f, as Amax's
    Saves a and f. Node: AminBackward0.
    """

    _node_name = "AminBackward0"
    _name = "amin"
    _reduce = staticmethod(np.min)


def _extreme(function: type, a: Tensor, dim, keepdim: bool) -> Tensor:
    dims = normalize_dims(() if dim is None else dim, a.ndim)
    if a._data.size == 0:
        if not dims:
            raise RuntimeError(f"{function._name}(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        empty = [d for d in dims if a.shape[d] == 0]
        if empty:
            raise IndexError(f"{function._name}(): Expected reduction dim {empty[0]} to have non-zero size.")
    return function.apply(a, dims, keepdim)


def amax(a: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    """The largest value over ``dim`` (an int or a tuple; all dimensions by default)."""
    return _extreme(Amax, a, dim, keepdim)


def amin(a: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    """The smallest value over ``dim`` (an int or a tuple; all dimensions by default)."""
    return _extreme(Amin, a, dim, keepdim)


# ------------------------------------------------------------------------------------ median
def _lower_median(x: np.ndarray, axis=None):
    """The lower of the two middle values (PyTorch's median), nan if there is a nan."""
    flat = x.reshape(-1)
    if flat.size == 0:
        return np.array(np.nan, dtype=x.dtype if x.dtype.kind == "f" else np.float32)
    if x.dtype.kind == "f" and np.isnan(flat).any():
        return np.array(np.nan, dtype=x.dtype)
    return np.sort(flat)[(flat.size - 1) // 2]


def _median_index(x: np.ndarray, axis: int) -> np.ndarray:
    """Where the lower median of each row along ``axis`` is: among equal values the first in order
    (PyTorch's CPU kernel breaks ties by position), and the first nan in a row with nans."""
    order = np.argsort(x, axis=axis, kind="stable")
    index = np.take(order, (x.shape[axis] - 1) // 2, axis=axis)
    if x.dtype.kind == "f":
        nan = np.isnan(x)
        index = np.where(nan.any(axis=axis), np.argmax(nan, axis=axis), index)
    return index


class MedianAll(MaxAll):
    """f(a) = the median of all elements of a: the lower of the two middle values, nan if there is one

    ∂L/∂a = grad / k at each of the k elements equal to f (the nan elements if f is nan), 0 elsewhere,
    as MaxAll's (PyTorch's ``evenly_distribute_backward``)
    Saves a and f, which pick the elements. Node: MedianBackward0.
    """

    _node_name = "MedianBackward0"

    @staticmethod
    def forward(ctx, a):
        if a._data.dtype == np.bool_:
            raise NotImplementedError("\"median_cpu\" not implemented for 'Bool'")
        out = wrap(_lower_median(a._data))
        ctx.save_for_backward(a, out)
        return out


class MedianDim(MaxDim):
    """f(a) = (values, indices): the lower median along dim, and where it was found (``x.median(dim)``)

    ∂L/∂a = grad put at the index of each median along dim, 0 elsewhere, as MaxDim's
    The indices are marked non-differentiable. Saves nothing: keeps the indices. Node: MedianBackward1.
    """

    _node_name = "MedianBackward1"
    _name = "median"
    _arg = staticmethod(_median_index)


median_return = _return_type("median")


def median(a: Tensor, dim=None, keepdim: bool = False):
    """The median of all elements (a tensor), or along ``dim`` (values and indices)."""
    if dim is None:
        return MedianAll.apply(a)
    if a._data.dtype == np.bool_:
        raise NotImplementedError("\"median_out\" not implemented for 'Bool'")
    return median_return(*MedianDim.apply(a, wrap_dim(dim, a.ndim), keepdim))


# ------------------------------------------------------------------------------------ stride
def stride(a: Tensor, dim=None):
    """The step, in elements, between neighbours along each dimension (0 along an expanded one): the
    numpy array's strides, which minigrad's operations keep as PyTorch's do."""
    x = a._data
    strides = [s // x.itemsize for s in x.strides]
    if dim is None:
        return tuple(strides)
    if not strides:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return strides[wrap_dim(dim, x.ndim)]
