"""Scans, norms and index-driven reductions: ``cumsum``, ``norm``, ``topk``, ``gather``,
``scatter_add``/``scatter_add_`` and ``embedding``.

>>> import minigrad as torch
>>> x = torch.tensor([[3.0, -4.0], [1.0, 2.0]], requires_grad=True)
>>> x.cumsum(1)
tensor([[ 3., -1.],
        [ 1.,  3.]], grad_fn=<CumsumBackward0>)
>>> x.norm(dim=1)
tensor([5.0000, 2.2361], grad_fn=<LinalgVectorNormBackward0>)
>>> x.topk(1).indices
tensor([[0],
        [1]])
"""
from __future__ import annotations

import math

import numpy as np

from ..tensor import Tensor
from ._util import Builtin, NoEdge, normalize_dims, wrap, wrap_dim
from .reduction import Gather, ScatterAdd, _descending_order, _restore_dims, _return_type

topk_return = _return_type("topk")


# ------------------------------------------------------------------------------------ cumsum
class Cumsum(Builtin):
    """``x.cumsum(dim)``: f(x)[i] = x[0] + ... + x[i] along ``dim``.

    ∂L/∂x[i] = grad[i] + ... + grad[n - 1]: the cumulative sum of grad taken from the end
    (``grad.flip(dim).cumsum(dim).flip(dim)``). Nothing is saved.
    """

    _node_name = "CumsumBackward0"

    @staticmethod
    def forward(ctx, a, dim, dtype):
        ctx._saved_dim, ctx._input_dtype = dim, a.dtype
        x = a._data
        if dtype is not None:
            x = x.astype(dtype.numpy)
        elif x.dtype.kind in "biu":
            x = x.astype(np.int64)
        return wrap(np.cumsum(x, axis=dim) if x.ndim else x.copy())

    @staticmethod
    def backward(ctx, grad):
        if not grad.ndim:
            return grad, None, None
        dim = ctx._saved_dim
        return grad.to(ctx._input_dtype).flip([dim]).cumsum(dim).flip([dim]), None, None


def cumsum(a: Tensor, dim=None, dtype=None) -> Tensor:
    if dim is None:
        raise TypeError('cumsum() missing 1 required positional arguments: "dim"')
    return Cumsum.apply(a, wrap_dim(dim, a.ndim), dtype)


# ------------------------------------------------------------------------------------ norm
class LinalgVectorNorm(Builtin):
    """``x.norm(p, dim)``: f(x) = (sum |x|^p) ^ (1/p) over ``dim`` (p = inf: max |x|; p = 0: the
    number of non-zero elements).

    ∂L/∂x, with n = f(x): p = 2: grad * x / n; p = 1: grad * sign(x); p = inf: grad * sign(x)
    shared among the elements where |x| = n; other p: grad * sign(x) * |x|^(p-1) / n^(p-1);
    p = 0: none (the count does not change under small moves). Wherever n = 0 the gradient is 0.
    Saves the input and the result, as PyTorch does.
    """

    _node_name = "LinalgVectorNormBackward0"
    _saved_names = ("self", "result")

    @staticmethod
    def forward(ctx, a, p, dims, keepdim, dtype):
        ctx._saved_ord, ctx._saved_dim, ctx._saved_keepdim, ctx._input_dtype = p, dims, keepdim, a.dtype
        x = np.abs(a._data if dtype is None else a._data.astype(dtype.numpy))
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            if p == math.inf:
                out = np.max(x, axis=dims, keepdims=keepdim, initial=0)
            elif p == -math.inf:
                out = np.min(x, axis=dims, keepdims=keepdim)
            elif p == 0:
                out = np.count_nonzero(x, axis=dims, keepdims=keepdim).astype(x.dtype)
            elif p == 1:
                out = np.sum(x, axis=dims, keepdims=keepdim)
            elif p == 2:
                out = np.sqrt(np.sum(x * x, axis=dims, keepdims=keepdim))
            else:
                out = np.sum(x ** p, axis=dims, keepdims=keepdim) ** (1 / p)
        result = wrap(np.asarray(out, dtype=x.dtype))
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, norm = ctx.saved_tensors
        p, dims = ctx._saved_ord, ctx._saved_dim
        if p == 0:
            return None, None, None, None, None
        if norm.dtype is not a.dtype:   # norm(dtype=...) computed in another dtype
            a = a.to(norm.dtype)
        grad_a = LinalgVectorNorm._gradient(grad, a, norm, p, dims, ctx._saved_keepdim)
        return grad_a.to(ctx._input_dtype), None, None, None, None

    @staticmethod
    def _gradient(grad: Tensor, a: Tensor, norm: Tensor, p: float, dims: tuple, keepdim: bool) -> Tensor:
        grad, norm = _restore_dims(grad, dims, keepdim), _restore_dims(norm, dims, keepdim)
        zero = norm == 0
        if p == 2:
            return grad * (a / norm).masked_fill(zero, 0)
        if p == 1:
            return a.sign() * grad
        if math.isinf(p):
            magnitude = a.abs()
            winners = (magnitude == norm) | magnitude.isnan()
            shared = winners.to(a.dtype)
            return a.sign() * ((grad / shared.sum(dims, keepdim=True)) * shared)
        if p < 1:
            scaled = a.sign() * (a.abs() ** (p - 1)).masked_fill(a == 0, 0)
            return scaled * grad * norm ** (1 - p)
        scaled = a.sign() * a.abs() ** (p - 1) if p < 2 else a * a.abs() ** (p - 2)
        return scaled * (grad / norm ** (p - 1)).masked_fill(zero, 0)


def norm(a: Tensor, p="fro", dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """The vector p-norm of ``a`` (all elements, or over ``dim``); ``'fro'`` is the 2-norm."""
    if isinstance(p, str):
        if p != "fro":
            if p == "nuc":
                raise NotImplementedError("minigrad: the nuclear norm (norm(p='nuc'), a matrix norm) is not "
                                          "implemented")
            raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
        p = 2
    if p is None:
        p = 2
    if a._data.dtype.kind not in "fc":
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{a.dtype.legacy_name[:-6]}")
    dims = normalize_dims(dim, a.ndim)
    empty = [d for d in dims if a.shape[d] == 0] if math.isinf(p) else []
    if empty:   # max and min of nothing: PyTorch's two texts (the second one lacks a space, as in PyTorch)
        where = "an empty tensor " if dim is None else f"the dimension {empty[0]}because this dimension is empty and "
        raise RuntimeError(f"linalg.vector_norm cannot compute the {p} norm on {where}"
                           f"{'because ' if dim is None else ''}the operation does not have an identity")
    return LinalgVectorNorm.apply(a, float(p), dims, keepdim, dtype)


# ------------------------------------------------------------------------------------ topk
class Topk(Builtin):
    """``x.topk(k, dim)``: the k largest (or smallest) values along ``dim`` and their indices.

    ∂L/∂x = zeros shaped like x, with grad put back at the chosen indices. The indices are an
    output too, marked non-differentiable; saved, as PyTorch's node, and read in backward (so a
    second backward, or an in-place change of them, is refused). Keeps dim and x's shape.
    """

    _node_name = "TopkBackward0"
    _saved_names = ("indices",)

    @staticmethod
    def forward(ctx, a, k, dim, largest):
        x = a._data.reshape(1) if a._data.ndim == 0 else a._data
        order = _descending_order(x, dim) if largest else np.argsort(x, axis=dim, kind="stable")
        chosen = np.take(order, np.arange(k if x is a._data else 1), axis=dim)   # a 0-dim tensor: itself, k = 0 too
        if x.ndim and 0 < k and k * 64 > x.shape[dim]:
            chosen = _pytorch_tie_order(x, chosen, k, dim, largest)
        values = np.take_along_axis(x, chosen, axis=dim)
        if a._data.ndim == 0:
            values, chosen = values.reshape(()), chosen.reshape(())
        ctx._shape, ctx._dim = a._data.shape, dim
        indices = wrap(chosen.astype(np.int64))
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return wrap(values), indices

    @staticmethod
    def backward(ctx, grad, grad_indices):
        indices, = ctx.saved_tensors
        if not ctx._shape:
            return grad, None, None, None
        return ScatterAdd.apply(grad, ctx._dim, NoEdge(indices), ctx._shape), None, None, None


def _pytorch_tie_order(x: np.ndarray, chosen: np.ndarray, k: int, dim: int, largest: bool) -> np.ndarray:
    """Which of several equal values ``topk`` returns, and in what order, is up to PyTorch's CPU
    kernel: for ``k * 64 > n`` it runs ``std::nth_element`` then ``std::sort`` on the first ``k - 1``
    (GNU libstdc++). Rows without ties have one answer; rows with ties replay that algorithm."""
    rows = np.moveaxis(x, dim, -1).reshape(-1, x.shape[dim])
    picks = np.moveaxis(chosen, dim, -1).reshape(-1, k).copy()
    ordered = np.sort(rows, axis=1)
    tied = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1) | (np.isnan(rows).sum(axis=1) > 1)
    for r in np.flatnonzero(tied):
        picks[r] = _nth_element_then_sort(rows[r].tolist(), k, largest)
    shape = np.moveaxis(chosen, dim, -1).shape
    return np.moveaxis(picks.reshape(shape), -1, dim)


def _nth_element_then_sort(values: list, k: int, largest: bool) -> list:
    """The indices PyTorch's topk kernel leaves in its first k places: libstdc++'s ``nth_element``
    (introselect) then ``sort`` of the first k - 1 (introsort), replayed step by step."""
    def before(p, q):   # PyTorch's comparator: nan first when largest, last otherwise
        u, v = p[0], q[0]
        if largest:
            return (u != u and v == v) or u > v
        return (u == u and v != v) or u < v

    queue = [(v, i) for i, v in enumerate(values)]
    first, last, nth = 0, len(queue), k - 1
    depth = 2 * (last.bit_length() - 1)
    while last - first > 3 and depth > 0:   # (depth 0: a heap select, never reached at these sizes)
        depth -= 1
        cut = _partition_around_median(queue, first, last, before)
        first, last = (cut, last) if cut <= nth else (first, cut)
    _insertion_sort(queue, first, last, before)
    _introsort(queue, 0, k - 1, 2 * (max(k - 1, 1).bit_length() - 1), before)
    if k - 1 > 16:
        _insertion_sort(queue, 0, 16, before)
        _insertion_sort(queue, 16, k - 1, before, guarded=False)
    else:
        _insertion_sort(queue, 0, k - 1, before)
    return [i for _, i in queue[:k]]


def _partition_around_median(queue: list, first: int, last: int, before) -> int:
    """libstdc++'s ``__unguarded_partition_pivot``: the median of three moved to ``first``, then a
    Hoare partition of the rest around it; returns the cut."""
    mid = first + (last - first) // 2
    a, b, c = first + 1, mid, last - 1
    if before(queue[a], queue[b]):
        pivot = b if before(queue[b], queue[c]) else (c if before(queue[a], queue[c]) else a)
    else:
        pivot = a if before(queue[a], queue[c]) else (c if before(queue[b], queue[c]) else b)
    queue[first], queue[pivot] = queue[pivot], queue[first]
    lo, hi = first + 1, last
    while True:
        while before(queue[lo], queue[first]):
            lo += 1
        hi -= 1
        while before(queue[first], queue[hi]):
            hi -= 1
        if not lo < hi:
            return lo
        queue[lo], queue[hi] = queue[hi], queue[lo]
        lo += 1


def _introsort(queue: list, first: int, last: int, depth: int, before) -> None:
    """libstdc++'s ``__introsort_loop``: partition until pieces are at most 16 long."""
    while last - first > 16 and depth > 0:
        depth -= 1
        cut = _partition_around_median(queue, first, last, before)
        _introsort(queue, cut, last, depth, before)
        last = cut


def _insertion_sort(queue: list, first: int, last: int, before, guarded: bool = True) -> None:
    for i in range(first + 1 if guarded else first, last):
        item, j = queue[i], i
        if guarded and before(item, queue[first]):
            queue[first + 1:i + 1] = queue[first:i]
            queue[first] = item
            continue
        while before(item, queue[j - 1]):
            queue[j] = queue[j - 1]
            j -= 1
        queue[j] = item


def topk(a: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    dim = wrap_dim(dim, a.ndim)
    size = a._data.shape[dim] if a.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    return topk_return(*Topk.apply(a, k, dim, largest))


# ------------------------------------------------------------------------------------ gather, scatter_add
def _index_array(index, what: str) -> np.ndarray:
    """The numpy array of ``index`` (an int32 or int64 tensor), for the checks made before the op."""
    if not isinstance(index, Tensor):
        raise TypeError(f"{what}(): argument 'index' (position 2) must be Tensor, not {type(index).__name__}")
    if index._data.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{what}(): Expected dtype int32/int64 for index")
    return index._data


def _check_bounds(index: np.ndarray, dim: int, size: int) -> None:
    bad = (index < 0) | (index >= size)
    if bad.any():
        raise RuntimeError(f"index {index[bad].flat[0]} is out of bounds for dimension {dim} with size {size}")


def gather(a: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    """``out[i][j] = a[i][index[i][j]]`` (for dim = 1): pick one element of ``a`` per entry of ``index``."""
    if sparse_grad:
        raise NotImplementedError("minigrad: gather(sparse_grad=True) is not implemented (sparse gradients)")
    dim = wrap_dim(dim, a.ndim)
    idx = _index_array(index, "gather")
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
        part = tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(index.shape))
        return wrap(np.take_along_axis(a._data[part], index._data, axis=dim))

    @staticmethod
    def backward(ctx, grad):
        if not ctx._shape:
            ctx.saved_tensors   # read, as the index is read for any other a: freed, or changed in place, raises
            return grad.sum(), None, None
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
        coords = list(np.indices(index.shape, sparse=True))
        coords[dim] = index._data
        np.add.at(out, tuple(coords), src._data[tuple(slice(0, n) for n in index.shape)])
        return wrap(out)

    @staticmethod
    def backward(ctx, grad):
        grad_src = None
        if ctx.needs_input_grad[3]:
            index, = ctx.saved_tensors
            grad_src = Gather.apply(grad, ctx._dim, NoEdge(index))
        return grad, None, None, grad_src


def _scatter_arguments(a: Tensor, dim: int, index: Tensor, src: Tensor) -> int:
    """PyTorch's checks of ``scatter_add``; returns dim as a non-negative axis."""
    dim = wrap_dim(dim, a.ndim)
    idx = _index_array(index, "scatter")
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_add(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}")
    if idx.ndim != a.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if src.dtype is not a.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    too_big = any(idx.shape[d] > a.shape[d] for d in range(a.ndim) if d != dim)
    if too_big or any(n > m for n, m in zip(idx.shape, src.shape)):
        raise RuntimeError(f"Expected index {list(idx.shape)} to be no larger than self {list(a.shape)} apart "
                           f"from dimension {dim} and to be no larger size than src {list(src.shape)}")
    _check_bounds(idx, dim, a.shape[dim])
    return dim


def scatter_add(a: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return ScatterAddInto.apply(a, _scatter_arguments(a, dim, index, src), NoEdge(index), src)


def scatter_add_(a: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    from .inplace_unary import ScatterAddInplace, unary_
    return unary_(ScatterAddInplace, a, _scatter_arguments(a, dim, index, src), NoEdge(index), src)


# ------------------------------------------------------------------------------------ embedding
class Embedding(Builtin):
    """``F.embedding(indices, weight)``: f(weight) = weight[indices], one row per index.

    ∂L/∂weight = zeros shaped like weight, with each row of grad added to the row its index
    names (repeats add up; divided by the index's count with ``scale_grad_by_freq``); the row
    ``padding_idx`` gets none. Saves the indices (``_saved_indices``), as PyTorch's node: backward
    reads them, so an in-place change of them before backward is refused. They come in a
    ``NoEdge``: no next_functions entry for them.
    """

    _node_name = "EmbeddingBackward0"
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


__all__ = ["Cumsum", "cumsum", "LinalgVectorNorm", "norm", "Topk", "topk", "topk_return", "gather",
           "GatherPart", "ScatterAddInto", "scatter_add", "scatter_add_", "Embedding", "embedding"]
