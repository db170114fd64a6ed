"""Sorting, selection and scans: ``max``/``min`` (with their indices along a dimension), ``argmax``/
``argmin``, ``sort``, ``argsort``, ``topk``, ``median`` and ``cumsum``.

>>> import minigrad as torch
>>> x = torch.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 5.0]], requires_grad=True)
>>> x.argsort(1)
tensor([[1, 2, 0],
        [0, 1, 2]])
>>> x.median()
tensor(2., grad_fn=<MedianBackward0>)
>>> x.topk(1).indices
tensor([[0],
        [1]])
>>> x.cumsum(1)
tensor([[ 3.,  4.,  6.],
        [ 0.,  5., 10.]], grad_fn=<CumsumBackward0>)
"""
from __future__ import annotations

import builtins

import numpy as np

from ..tensor import Tensor
from ._util import Builtin, NoEdge, accumulate, accumulation_dtype, check_keepdim, int_argument, wrap, wrap_dim
from .gather_scatter import ScatterAdd


class _ReturnTypes(tuple):
    """PyTorch's named pair ``torch.return_types.max(values=..., indices=...)``."""

    _name = ""

    def __new__(cls, values, indices):
        return tuple.__new__(cls, (values, indices))

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]

    def __repr__(self) -> str:
        return f"torch.return_types.{self._name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


def _return_type(name: str) -> type:
    return type(name, (_ReturnTypes,), {"_name": name})


max_return, min_return, sort_return = _return_type("max"), _return_type("min"), _return_type("sort")


class MaxAll(Builtin):
    """f(a) = max(a) (``x.max()``)

    ∂L/∂a = grad / k at each of the k elements equal to f, 0 elsewhere: tied maxima share the
    gradient evenly, as in PyTorch (``evenly_distribute_backward``)
    Saves a and f, which pick the winners; saving a also catches an in-place change of it, as in PyTorch.
    Node: MaxBackward1.
    """

    _node_name = "MaxBackward1"
    _saved_names = ("self", "result")
    _reduce = staticmethod(np.max)

    @staticmethod
    def forward(ctx, a):
        if a._data.size == 0:
            raise RuntimeError("max(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        out = wrap(ctx._forward_cls._reduce(a._data))
        ctx.save_for_backward(a, out)   # as PyTorch: changing the input in place is then caught
        return out

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        from .pointwise import where
        # PyTorch's evenly_distribute_backward: the winners share the gradient; if the result is nan,
        # the winners are the nan elements
        winners = np.isnan(a._data) if np.isnan(result._data) else a._data == result._data
        return where(wrap(winners), grad / int(winners.sum()), 0.0)


class MinAll(MaxAll):
    """f(a) = min(a) (``x.min()``)

    ∂L/∂a = grad / k at each of the k elements equal to f, 0 elsewhere, as MaxAll's
    Saves a and f, as MaxAll. Node: MinBackward1.
    """

    _node_name = "MinBackward1"
    _reduce = staticmethod(np.min)


class MaxDim(Builtin):
    """f(a) = (values, indices): the maximum along dim, and where it was found (``x.max(dim)``)

    ∂L/∂a = grad put at the index of each maximum along dim, 0 elsewhere (ScatterAdd)
    The indices are marked non-differentiable: their gradient (grad_indices) is ignored.
    Saves the indices, as PyTorch's node, and reads them in backward (so a second backward, or an
    in-place change of them, is refused); keeps dim, keepdim and a's shape. Node: MaxBackward0.
    """

    _node_name = "MaxBackward0"
    _saved_names = ("indices",)
    _name = "max"
    _arg = staticmethod(np.argmax)

    @staticmethod
    def forward(ctx, a, dim, keepdim):
        ctx._shape, ctx._dim, ctx._keepdim = a.shape, dim, keepdim
        if a._data.ndim == 0:   # a 0-dim tensor is its own maximum, at index 0
            indices = wrap(np.zeros((), np.int64))
            ctx.mark_non_differentiable(indices)
            ctx.save_for_backward(indices)
            return wrap(a._data.copy()), indices
        if a._data.shape[dim] == 0:
            raise IndexError(f"{ctx._forward_cls._name}(): Expected reduction dim {dim} to have non-zero size.")
        index = np.expand_dims(ctx._forward_cls._arg(a._data, axis=dim), dim)
        values = np.take_along_axis(a._data, index, axis=dim)
        if not keepdim:
            values, index = values.squeeze(dim), index.squeeze(dim)
        indices = wrap(index.astype(np.int64))
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return wrap(values), indices

    @staticmethod
    def backward(ctx, grad, grad_indices):
        indices, = ctx.saved_tensors
        if not ctx._shape:
            return grad, None, None
        if not ctx._keepdim:
            grad, indices = grad.unsqueeze(ctx._dim), indices.unsqueeze(ctx._dim)
        return ScatterAdd.apply(grad, ctx._dim, NoEdge(indices), ctx._shape), None, None


class MinDim(MaxDim):
    """f(a) = (values, indices): the minimum along dim, and where it was found (``x.min(dim)``)

    ∂L/∂a = grad put at the index of each minimum along dim, 0 elsewhere, as MaxDim's
    Node: MinBackward0.
    """

    _node_name = "MinBackward0"
    _name = "min"
    _arg = staticmethod(np.argmin)


def max(a: Tensor, dim=None, keepdim: bool = False, method: bool = False):
    """The largest element; along ``dim``, the largest values and their indices; with a tensor in
    place of ``dim``, the element-wise maximum (``method``: called as ``a.max(...)``, for the errors)."""
    if isinstance(dim, Tensor):
        from .pointwise import Maximum
        return Maximum.apply(a, dim)
    if dim is None:
        return MaxAll.apply(a)
    _check_dim_argument("max", dim, method)
    check_keepdim("max", keepdim)
    return max_return(*MaxDim.apply(a, wrap_dim(dim, a.ndim), keepdim))


def min(a: Tensor, dim=None, keepdim: bool = False, method: bool = False):
    """The smallest element; along ``dim``, the smallest values and their indices; with a tensor in
    place of ``dim``, the element-wise minimum."""
    if isinstance(dim, Tensor):
        from .pointwise import Minimum
        return Minimum.apply(a, dim)
    if dim is None:
        return MinAll.apply(a)
    _check_dim_argument("min", dim, method)
    check_keepdim("min", keepdim)
    return min_return(*MinDim.apply(a, wrap_dim(dim, a.ndim), keepdim))


def _check_dim_argument(function: str, dim, method: bool) -> None:
    """PyTorch's error for ``max(x, 2.0)``: a number is neither a dimension nor the other tensor."""
    if isinstance(dim, (int, np.integer)) and not isinstance(dim, bool):
        return
    kind = type(dim).__name__
    if method:
        raise TypeError(f"{function}() received an invalid combination of arguments - got ({kind}), but expected one "
                        f"of:\n * ()\n      didn't match because some of the arguments have invalid types: (!{kind}!)\n"
                        f" * (Tensor other)\n      didn't match because some of the arguments have invalid types: "
                        f"(!{kind}!)\n * (int dim, bool keepdim = False)\n")
    raise TypeError(f"{function}() received an invalid combination of arguments - got (Tensor, {kind}), but expected "
                    f"one of:\n * (Tensor input, *, Tensor out = None)\n * (Tensor input, Tensor other, *, Tensor out "
                    f"= None)\n * (Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)\n")


def argmax(a: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    return _arg_extreme(np.argmax, a, dim, keepdim)


def argmin(a: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    return _arg_extreme(np.argmin, a, dim, keepdim)


def _arg_extreme(find, a: Tensor, dim, keepdim: bool) -> Tensor:
    """The int64 index of the largest (``find`` = np.argmax) or smallest value, over everything or
    along ``dim``; never differentiable."""
    name = find.__name__
    if a._data.dtype == np.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is None:
        return wrap(np.int64(find(a._data)))
    dim = wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        return wrap(np.zeros((), np.int64))
    if a.shape[dim] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")
    return wrap(find(a._data, axis=dim, keepdims=keepdim).astype(np.int64))


def _descending_order(x: np.ndarray, dim: int) -> np.ndarray:
    """Indices that sort ``x`` from largest to smallest. PyTorch counts NaN as larger than
    everything, so NaNs come first (numpy's argsort of ``-x`` would put them last)."""
    keys = -x if x.dtype.kind in "fi" else -x.astype(np.int64)   # bool and uint8 cannot be negated as they are
    order = np.argsort(keys, axis=dim, kind="stable")
    if np.issubdtype(x.dtype, np.floating):
        is_number = ~np.isnan(np.take_along_axis(x, order, axis=dim))
        order = np.take_along_axis(order, np.argsort(is_number, axis=dim, kind="stable"), axis=dim)
    return order


class Sort(Builtin):
    """f(a) = (values, indices): a sorted along dim, and where each value came from

    ∂L/∂a = grad sent back to where each value came from (ScatterAdd at the indices)
    The indices are marked non-differentiable. Saves the indices, as PyTorch's node, and reads them
    in backward (so a second backward, or an in-place change of them, is refused); keeps dim.
    """

    _saved_names = ("indices",)

    @staticmethod
    def forward(ctx, a, dim, descending):
        x = a._data
        if x.ndim == 0:   # one element: it is already sorted
            x, dim = x.reshape(1), 0
        order = _descending_order(x, dim) if descending else np.argsort(x, axis=dim, kind="stable")
        values = np.take_along_axis(x, order, axis=dim)
        if a._data.ndim == 0:
            values, order = values.reshape(()), order.reshape(())
        ctx._dim = dim
        indices = wrap(order.astype(np.int64))
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return wrap(values), indices

    @staticmethod
    def backward(ctx, grad, grad_indices):
        indices, = ctx.saved_tensors
        if not grad.shape:
            return grad, None, None
        return ScatterAdd.apply(grad, ctx._dim, NoEdge(indices), tuple(grad.shape)), None, None


def sort(a: Tensor, dim: int = -1, descending: bool = False):
    return sort_return(*Sort.apply(a, wrap_dim(dim, a.ndim), descending))


def argsort(a: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """The indices that sort ``a`` along ``dim``: ``sort``'s indices (NaN counts as the largest value;
    equal values keep their order, which is what PyTorch's CPU sort gives, ``stable`` or not)."""
    return sort(a, dim, descending).indices


topk_return = _return_type("topk")


# ------------------------------------------------------------------------------------ topk
class Topk(Builtin):
    """``x.topk(k, dim)``: the k largest (or smallest) values along ``dim`` and their indices.

    ∂L/∂x = zeros shaped like x, with grad put back at the chosen indices. The indices are an
    output too, marked non-differentiable; saved, as PyTorch's node, and read in backward (so a
    second backward, or an in-place change of them, is refused). Keeps dim and x's shape.
    """

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
    _introsort(queue, 0, k - 1, 2 * (builtins.max(k - 1, 1).bit_length() - 1), before)
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
    int_argument("topk", "k", 1, k)
    dim = wrap_dim(dim, a.ndim)
    size = a._data.shape[dim] if a.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    return topk_return(*Topk.apply(a, k, dim, largest))


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


# ------------------------------------------------------------------------------------ cumsum
class Cumsum(Builtin):
    """``x.cumsum(dim)``: f(x)[i] = x[0] + ... + x[i] along ``dim`` (in int64 for an integer or bool x,
    unless ``dtype`` is given).

    ∂L/∂x[i] = grad[i] + ... + grad[n - 1]: the cumulative sum of grad taken from the end
    (``grad.flip(dim).cumsum(dim).flip(dim)``). Nothing is saved.
    """

    @staticmethod
    def forward(ctx, a, dim, dtype):
        ctx._saved_dim, ctx._input_dtype = dim, a.dtype
        x = a._data
        return wrap(accumulate(np.cumsum, x, dtype, axis=dim) if x.ndim else x.astype(accumulation_dtype(x, dtype)))

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
