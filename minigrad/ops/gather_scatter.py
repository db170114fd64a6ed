"""Indexing along one dimension with an index tensor: ``gather``, ``scatter``, ``scatter_add``,
``index_select``, ``index_add_``, and ``embedding`` (rows of a weight, by index).

>>> import minigrad as torch
>>> x = torch.tensor([[1.0, -2.0], [3.0, -4.0]], requires_grad=True)
>>> x.index_select(1, torch.tensor([1, 1]))
tensor([[-2., -2.],
        [-4., -4.]], grad_fn=<IndexSelectBackward0>)
>>> torch.zeros(2, 3).scatter(1, torch.tensor([[2], [0]]), 7.0)
tensor([[0., 0., 7.],
        [7., 0., 0.]])
"""
from __future__ import annotations

import numpy as np

from ..autograd.views import check_inplace, writeable_memory
from ..tensor import Tensor
from ..types import scalar_as
from ._util import Builtin, NoEdge, _argument_error, view_of, wrap, wrap_dim
from .indexing import PutIntoZeros, getitem
from .pointwise import _keep_gradient


class Gather(Builtin):
    """f(a)[i][j] = a[i][index[i][j]] along dim (dim = 1 shown)

    ∂L/∂a = zeros shaped like a, with grad added at index along dim (ScatterAdd; repeats add up)
    Saves a and index, as PyTorch's node: backward reads index, so an in-place change of either
    before backward is refused; keeps dim and a's shape. index comes in a ``NoEdge``: no
    next_functions entry for it, as in PyTorch.
    """

    _saved_names = ("self", "index")

    @staticmethod
    def forward(ctx, a, dim, index):
        index = index.tensor
        ctx._shape, ctx._dim = a.shape, dim
        ctx.save_for_backward(a, index)
        return wrap(np.take_along_axis(a._data, index._data, axis=dim))

    @staticmethod
    def backward(ctx, grad):
        _, index = ctx.saved_tensors
        return ScatterAdd.apply(grad, ctx._dim, NoEdge(index), ctx._shape), None, None


class ScatterAdd(Builtin):
    """f(g) = zeros of ``shape``, with g added at index along dim: Gather's backward, as an operation

    ∂L/∂g = grad gathered at index along dim (Gather)
    Saves index, which backward reads (in a ``NoEdge``, as Gather's); keeps dim.
    """

    _saved_names = ("index",)

    @staticmethod
    def forward(ctx, grad, dim, index, shape):
        index = index.tensor
        ctx._dim = dim
        ctx.save_for_backward(index)
        out = np.zeros(shape, dtype=grad._data.dtype)
        # np.add.at has no axis argument: build full coordinate arrays for the indexed axis.
        coords = list(np.indices(index.shape, sparse=True))
        coords[dim] = index._data
        np.add.at(out, tuple(coords), grad._data)
        return wrap(out)

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        return Gather.apply(grad, ctx._dim, NoEdge(index)), None, None, None


# ------------------------------------------------------------------------------------ gather, scatter_add
def _index_array(index, what: str) -> np.ndarray:
    """The numpy array of ``index`` (an int32 or int64 tensor), for the checks made before the op."""
    if not isinstance(index, Tensor):
        raise TypeError(f"{what}(): argument 'index' (position 2) must be Tensor, not {type(index).__name__}")
    if index._data.dtype not in (np.int64, np.int32) and index._data.size:   # an empty index may be of any dtype
        raise RuntimeError(f"{what}(): Expected dtype int32/int64 for index")
    return index._data if index._data.size else index._data.astype(np.int64)


def _check_bounds(index: np.ndarray, dim: int, size: int) -> None:
    if index.size and (index.min() < 0 or index.max() >= size):   # (the masks only when one is out)
        bad = (index < 0) | (index >= size)
        raise RuntimeError(f"index {index[bad].flat[0]} is out of bounds for dimension {dim} with size {size}")


def gather(a: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    """``out[i][j] = a[i][index[i][j]]`` (for dim = 1): pick one element of ``a`` per entry of ``index``."""
    if sparse_grad:
        raise NotImplementedError("minigrad: gather(sparse_grad=True) is not implemented (sparse gradients)")
    dim = wrap_dim(dim, a.ndim)
    idx = _index_array(index, "gather")
    if not idx.size:   # an empty index, of any shape, gathers nothing (PyTorch checks no more)
        return GatherPart.apply(a, dim, NoEdge(index))
    if idx.ndim != a.ndim and not (idx.ndim <= 1 and a.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    if a.ndim == 0:   # a 0-dim tensor gathers as if it had one element
        _check_bounds(idx, 0, 1)
    else:
        for d in range(a.ndim):
            if d != dim and idx.shape[d] > a.shape[d]:
                raise RuntimeError(f"Size does not match at dimension {d} expected index {list(idx.shape)} to be "
                                   f"no larger than self {list(a.shape)} apart from dimension {dim}")
        _check_bounds(idx, dim, a.shape[dim])
    return GatherPart.apply(a, dim, NoEdge(index))


class GatherPart(Gather):
    """``torch.gather``: f(a)[i][j] = a[i][index[i][j]] (for dim = 1). ``index`` may be smaller than
    ``a`` in the other dimensions: only that leading part of ``a`` is read. A 0-dim ``a`` gathers
    as if it had one element.

    ∂L/∂a = zeros shaped like a, with grad added at the gathered places (repeats add up); for a
    0-dim a, the sum of grad. Saves a and index, as Gather (index in a ``NoEdge``).
    """

    _node_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, a, dim, index):
        index = index.tensor
        ctx._shape, ctx._dim = a.shape, dim
        ctx.save_for_backward(a, index)
        if a._data.ndim == 0:
            return wrap(np.take(a._data.reshape(1), index._data))
        if not index._data.size:
            return wrap(np.zeros(index._data.shape, a._data.dtype))
        part = tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(index.shape))
        return wrap(np.take_along_axis(a._data[part], index._data, axis=dim))

    @staticmethod
    def backward(ctx, grad):
        if not ctx._shape:
            ctx.saved_tensors   # read, as the index is read for any other a: freed, or changed in place, raises
            return grad.sum(), None, None
        if not grad.numel():   # nothing was gathered: zeros shaped like a
            ctx.saved_tensors
            return wrap(np.zeros(tuple(ctx._shape), grad._data.dtype)), None, None
        return Gather.backward(ctx, grad)


class ScatterAddInto(Builtin):
    """``x.scatter_add(dim, index, src)``: f(x, src) = x with src[i][j] added to x[i][index[i][j]]
    (for dim = 1), repeats adding up.

    ∂L/∂x = grad; ∂L/∂src = grad gathered at ``index`` (``grad.gather(dim, index)``).
    Saves index (in a ``NoEdge``: no next_functions entry), as PyTorch's node; as there, only src's
    gradient reads it, so only then is an in-place change of it (or a second backward) refused.
    """

    _node_name = "ScatterAddBackward0"
    _saved_names = ("index",)

    @staticmethod
    def forward(ctx, a, dim, index, src):
        index = index.tensor
        ctx._dim = dim
        ctx.save_for_backward(index)
        out = a._data.copy()
        x = out if out.ndim else out.reshape(1)   # 0-dim and 1-dim tensors count as one dimension
        idx = index._data if index.ndim == x.ndim else index._data.reshape(-1)
        values = src._data if src.ndim == x.ndim else src._data.reshape(-1)
        coords = list(np.indices(idx.shape, sparse=True))
        coords[dim] = idx
        np.add.at(x, tuple(coords), values[tuple(slice(0, n) for n in idx.shape)])
        return wrap(out)

    @staticmethod
    def backward(ctx, grad):
        grad_src = None
        if ctx.needs_input_grad[3]:
            index, = ctx.saved_tensors   # (index may be smaller than grad outside dim: GatherPart reads that part)
            grad_src = GatherPart.apply(grad, ctx._dim, NoEdge(index))
        return grad, None, None, grad_src


def _scatter_add_arguments(a: Tensor, dim: int, index: Tensor, src: Tensor) -> int:
    """PyTorch's checks of ``scatter_add``, in its order; returns dim as a non-negative axis."""
    dim = wrap_dim(dim, a.ndim)
    if not isinstance(index, Tensor):
        raise _argument_error("scatter_add", "index", 2, "Tensor", index)
    idx = _index_array(index, "scatter")
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_add(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}")
    if idx.ndim != a.ndim and not (idx.ndim <= 1 and a.ndim <= 1):   # 0-dim and 1-dim count as one
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if src.dtype is not a.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    shape, idx_shape, src_shape = a.shape or (1,), idx.shape or (1,), src.shape or (1,)
    if src.ndim and src.ndim < idx.ndim:   # PyTorch asks src for the size of each of index's dimensions
        wrap_dim(src.ndim, src.ndim)
    too_big = any(idx_shape[d] > shape[d] for d in range(len(shape)) if d != dim)
    if too_big or any(n > m for n, m in zip(idx_shape, src_shape)):
        raise RuntimeError(f"Expected index {list(idx.shape)} to be no larger than self {list(a.shape)} apart "
                           f"from dimension {dim} and to be no larger size than src {list(src.shape)}")
    if src.ndim != idx.ndim and not (src.ndim <= 1 and idx.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    _check_bounds(idx, dim, shape[dim])
    return dim


def scatter_add(a: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return ScatterAddInto.apply(a, _scatter_add_arguments(a, dim, index, src), NoEdge(index), src)


def scatter_add_(a: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    from .inplace import ScatterAddInplace, unary_
    return unary_(ScatterAddInplace, a, _scatter_add_arguments(a, dim, index, src), NoEdge(index), src)


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


class IndexSelect(Builtin):
    """``x.index_select(dim, index)``: f(x) = the slices x[..., index[k], ...] along ``dim``, in order.

    ∂L/∂x = zeros shaped like x with each slice of ``grad`` added at its index (a repeated index
    gets the sum). Saves the index (``_saved_index``), which backward reads, as PyTorch's node: an
    in-place change of it before backward, or a second backward, is refused. It comes in a
    ``NoEdge``: no next_functions entry for it, as in PyTorch. Keeps dim and x's shape.
    """

    _saved_names = ("index",)

    @staticmethod
    def forward(ctx, a, dim, index):
        index = index.tensor
        ctx._shape, ctx._dim = a._data.shape, dim
        ctx.save_for_backward(index)
        if not a._data.ndim:
            return wrap(a._data.copy())
        return wrap(np.take(a._data, index._data.reshape(-1), axis=dim))

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        if not ctx._shape:
            return grad, None, None
        if index.ndim == 0:   # a 0-dim index picks one slice, as a 1-element one
            index = view_of(index, index._data.reshape(1))
        return PutIntoZeros.apply(grad, ctx._shape, (slice(None),) * ctx._dim + (index,)), None, None


def index_select(a: Tensor, dim: int, index: Tensor) -> Tensor:
    if not isinstance(index, Tensor):
        raise _argument_error("index_select", "index", 2, "Tensor", index)
    dim = wrap_dim(dim, a.ndim)
    if index._data.dtype not in (np.int64, np.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    indices = index._data.reshape(-1)
    if a.ndim == 0:
        if indices.size != 1:
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {indices.size} value(s)")
        if indices[0] != 0:
            raise IndexError("index out of range in self")
    size = a._data.shape[dim] if a.ndim else 1
    bad = (indices < 0) | (indices >= size)
    if bad.any():   # PyTorch's kernel for dim 1 says it in its own words
        if dim == 1:
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={indices[bad][0]} axis_dim={size}")
        raise IndexError("index out of range in self")
    return IndexSelect.apply(a, dim, NoEdge(index))


class IndexAdd(Builtin):
    """f(a, source) = a with alpha * source added at index along dim, in place (``index_add_``)

    ∂L/∂a = grad,  ∂L/∂source = alpha * grad[..., index] (index along dim)
    Saves the index and source, as PyTorch's node; as there, only source's gradient reads them, so
    only then is an in-place change of either (or a second backward) refused. The index comes in a
    ``NoEdge``: no next_functions entry for it, as in PyTorch. Keeps dim and alpha.
    """

    _saved_names = ("index", "source")

    @staticmethod
    def forward(ctx, a, dim, index, source, alpha):
        _add_at_index(ctx, writeable_memory(a._data), dim, index.tensor, source, alpha)
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        grad_source = None
        if ctx.needs_input_grad[3]:
            index, source = ctx.saved_tensors
            if grad.ndim == 0:   # a 0-dim tensor's one element: its gradient, shaped like source
                grad_source = grad.reshape(source.shape)
            else:
                grad_source = getitem(grad, (slice(None),) * ctx._dim + (index,))
            if ctx._alpha != 1:
                grad_source = grad_source * ctx._alpha
        return grad, None, None, grad_source, None


class IndexAddOutOfPlace(IndexAdd):
    """``torch.index_add(a, dim, index, source)``: IndexAdd's f and derivatives (∂L/∂a = grad,
    ∂L/∂source = alpha * grad[..., index]) on a copy of a, which stays as it was. Node:
    IndexAddBackward0, as for ``index_add_``."""

    _node_name = "IndexAddBackward0"

    @staticmethod
    def forward(ctx, a, dim, index, source, alpha):
        out = a._data.copy()
        _add_at_index(ctx, out, dim, index.tensor, source, alpha)
        return wrap(out)


def _add_at_index(ctx, out: np.ndarray, dim: int, index: Tensor, source: Tensor, alpha) -> None:
    """``out[..., index, ...] += alpha * source`` along dim (repeats add up); saves what backward reads."""
    ctx._dim, ctx._alpha = dim, alpha
    ctx.save_for_backward(index, source)
    add = source._data if alpha == 1 else scalar_as(alpha, source._data.dtype) * source._data
    if out.ndim == 0:   # a 0-dim tensor takes its one element
        out += add.reshape(()).astype(out.dtype)
        return
    np.add.at(out, (slice(None),) * dim + (index._data.reshape(-1),), add.astype(out.dtype, copy=False))


def _index_add_arguments(a: Tensor, dim: int, index: Tensor, source: Tensor) -> int:
    """PyTorch's checks of index_add and index_add_, in its order; returns dim as a non-negative axis."""
    dim = wrap_dim(dim, a.ndim)
    if index.ndim > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
                         f"{index.dtype.legacy_name[:-6]} and size: {list(index.shape)}")
    if index._data.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: {index.dtype.legacy_name[:-6]}")
    if source.dtype is not a.dtype:
        raise RuntimeError(f"index_add_(): self ({a.dtype.legacy_name[:-6]}) and source "
                           f"({source.dtype.legacy_name[:-6]}) must have the same scalar type")
    if source.ndim != a.ndim and not (a.ndim == 0 and source.ndim == 0) or \
            any(n != m for d, (n, m) in enumerate(zip(a.shape, source.shape)) if d != dim):
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(a.shape)} source.shape = {list(source.shape)}")
    count = source.shape[dim] if source.ndim else 1
    if index.numel() != count:
        raise RuntimeError(f"index_add_(): Number of indices ({index.numel()}) should be equal to source.size(dim): "
                           f"({count}), for dim: {dim}")
    _check_bounds(index._data, dim, a.shape[dim] if a.ndim else 1)
    return dim


def index_add_(a: Tensor, dim: int, index: Tensor, source: Tensor, alpha=1) -> Tensor:
    dim = _index_add_arguments(a, dim, index, source)
    check_inplace(a, source)
    return IndexAdd.apply(a, dim, NoEdge(index), source, alpha)


def index_add(a: Tensor, dim: int, index: Tensor, source: Tensor, alpha=1) -> Tensor:
    """``a`` with ``alpha * source`` added at ``index`` along ``dim``, as a new tensor (``a`` is unchanged)."""
    dim = _index_add_arguments(a, dim, index, source)
    return IndexAddOutOfPlace.apply(a, dim, NoEdge(index), source, alpha)


# ------------------------------------------------------------------------------------ embedding
class Embedding(Builtin):
    """``F.embedding(indices, weight)``: f(weight) = weight[indices], one row per index.

    ∂L/∂weight = zeros shaped like weight, with each row of grad added to the row its index
    names (repeats add up; divided by the index's count with ``scale_grad_by_freq``); the row
    ``padding_idx`` gets none. Saves the indices (``_saved_indices``), as PyTorch's node: backward
    reads them, so an in-place change of them before backward is refused. They come in a
    ``NoEdge``: no next_functions entry for them.
    """

    _saved_names = ("indices",)

    @staticmethod
    def forward(ctx, weight, indices, padding_idx, scale_grad_by_freq):
        indices = indices.tensor
        ctx._padding_idx, ctx._scale = padding_idx, scale_grad_by_freq
        ctx._num_weights = weight._data.shape[0]
        ctx.save_for_backward(indices)
        return wrap(weight._data[indices._data])

    @staticmethod
    def backward(ctx, grad):
        indices, = ctx.saved_tensors
        flat = indices.reshape(-1)
        rows = grad.reshape(flat.numel(), grad.shape[-1])
        if ctx._scale:
            counts = np.bincount(flat._data, minlength=ctx._num_weights)[flat._data]
            rows = rows / wrap(counts.astype(grad._data.dtype)).unsqueeze(1)
        if ctx._padding_idx is not None:
            rows = rows.masked_fill(wrap(flat._data == ctx._padding_idx).unsqueeze(1), 0)
        from .indexing import PutIntoZeros
        return PutIntoZeros.apply(rows, (ctx._num_weights, grad.shape[-1]), (flat,)), None, None, None


def embedding(input: Tensor, weight: Tensor, padding_idx=None, max_norm=None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Look up rows of ``weight``: ``weight[input]``, as ``torch.nn.functional.embedding``."""
    if input._data.dtype not in (np.int64, np.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got torch.{input.dtype.legacy_name} instead (while checking arguments "
                           "for embedding)")
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    rows = weight.shape[0]
    if padding_idx is not None:
        if not -rows <= padding_idx < rows:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= rows
    indices = input._data
    if ((indices < 0) | (indices >= rows)).any():
        raise IndexError("index out of range in self")
    if sparse:
        raise NotImplementedError("minigrad: embedding(sparse=True) is not implemented (sparse gradients); "
                                  "use sparse=False")
    if max_norm is not None:
        _renormalize_rows(weight, np.unique(indices), max_norm, norm_type)
    return Embedding.apply(weight, NoEdge(input), padding_idx, scale_grad_by_freq)


def _renormalize_rows(weight: Tensor, rows: np.ndarray, max_norm: float, norm_type: float) -> None:
    """PyTorch's ``embedding_renorm_``: rows used whose norm exceeds ``max_norm`` are scaled down in
    place, outside autograd (the weight's version moves)."""
    chosen = weight._data[rows]
    norms = np.linalg.norm(chosen, ord=norm_type, axis=1)
    too_long = norms > max_norm
    scale = (max_norm / (norms[too_long] + 1e-7)).astype(chosen.dtype)
    weight._data[rows[too_long]] = chosen[too_long] * scale[:, None]
    weight._version_counter.value += 1


# ------------------------------------------------------------------------------------ repeat_interleave
def repeat_interleave(a: Tensor, repeats=None, dim=None, output_size=None) -> Tensor:
    """Each element (or slice along ``dim``) repeated ``repeats`` times in a row, built from the
    operations PyTorch uses, so that the graph has its nodes: for a number, unsqueeze, expand,
    clone and view; for a tensor of counts, ``index_select`` with the repeated positions.
    ``torch.repeat_interleave(counts)`` alone gives those positions."""
    if repeats is None:   # torch.repeat_interleave(counts): 0 counts[0] times, 1 counts[1] times...
        counts = a
        if counts.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        return wrap(np.repeat(np.arange(counts.shape[0]), _counts(counts)))
    if not isinstance(repeats, (int, np.integer, Tensor)) or isinstance(repeats, bool):
        raise TypeError(f"repeat_interleave() received an invalid combination of arguments - got "
                        f"({type(repeats).__name__}), but expected one of:\n * (Tensor repeats, int dim = None, *, "
                        "int output_size = None)\n * (int repeats, int dim = None, *, int output_size = None)\n")
    if dim is None:
        a, dim = a.reshape(-1), 0
    dim = wrap_dim(dim, a.ndim)
    if isinstance(repeats, Tensor):
        if repeats.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if repeats._data.dtype.kind not in "iu":
            raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for "
                                      f"'{repeats.dtype.legacy_name[:-6]}'")
        counts = repeats._data.reshape(-1)
        size = a.shape[dim] if a.ndim else 1
        if counts.size == 1:
            counts = np.repeat(counts, size)
        elif counts.size != size:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{counts.size} and input.size(0) = {size}")
        return index_select(a, dim, wrap(np.repeat(np.arange(size), _counts(wrap(counts)))))
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    expanded = list(a.shape)
    expanded.insert(dim + 1, int(repeats))
    flat = list(a.shape)
    flat[dim] *= int(repeats)
    return a.unsqueeze(dim + 1).expand(expanded).clone().view(flat)


def _counts(counts: Tensor) -> np.ndarray:
    if (counts._data < 0).any():
        raise RuntimeError("repeats can not be negative")
    return counts._data
