"""Arithmetic on sparse tensors: sums, products, division, sums over dimensions and the norm.

===================================  ========================  ===================================
operation                            node (``grad_fn``)        output
===================================  ========================  ===================================
``s + t``, ``s - t`` (both sparse)   ``AddBackward0``, ``Sub``  sparse (repeats kept)
``d + s``, ``torch.add(d, s, α)``    ``AddBackward0``          dense (no broadcasting)
``s * 2``, ``s * d``, ``d * s``      ``MulBackward0``          sparse, on s's coordinates
``s * t`` (both sparse)              ``MulBackward0``          sparse, where both store entries
``s / 2``, ``s.div(2, rounding..)``  ``DivBackward0``/``2``     sparse
``-s``                               ``NegBackward0``          sparse
``torch.sparse.sum(s)``              ``SumBackward0``          dense 0-dim; masked gradient
``torch.sparse.sum(s, dim)``         ``SparseSumBackward0``    sparse, or dense once no sparse
                                                               dimension is left
``s.sum()``, ``s.sum(dim)``          ``SumBackward0``/``1``    as above; dense gradient
``s.norm(p)``                        ``NormBackward1``         dense 0-dim (no gradient: PyTorch
                                                               has none either)
===================================  ========================  ===================================

A product keeps the zeros of the sparse factor, so ``s * d`` is sparse and only reads ``d`` at
``s``'s coordinates. A sum does not (``s + 1`` would be dense everywhere): PyTorch refuses
``sparse + dense`` and computes ``dense + sparse`` as a dense tensor, and so does minigrad.

>>> import minigrad as torch
>>> s = torch.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], (2, 2))
>>> (s * torch.tensor([[10.0, 20.0], [30.0, 40.0]])).to_dense()
tensor([[ 0., 40.],
        [90.,  0.]])
>>> torch.sparse.sum(s, 0).to_dense()        # the column sums, still sparse before to_dense()
tensor([3., 2.])
"""
from __future__ import annotations

import numpy as np

from ..ops._util import Builtin, check_broadcast, normalize_dims, result_dtype, wrap
from ..ops.linalg import _save_each_for_the_other
from ..tensor import Tensor, _operand
from . import arrays
from .coo import SparseTensor, not_for_sparse
from .functions import SparseCooTensorWithDimsAndTensors, ValuesAt


# ---------------------------------------------------------------------- sums of two tensors
def add(a: Tensor, b, alpha=1, subtract: bool = False) -> Tensor:
    """``a + alpha * b`` for sparse ``a`` and ``b``, or dense ``a`` and sparse ``b`` (``subtract``:
    the node of ``a - b``), with PyTorch's checks."""
    b = _operand(b)
    if not b.is_sparse:
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    dtype = result_dtype(a, b)
    if isinstance(alpha, float) and not dtype.is_floating_point:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if not a.is_sparse:
        if a.shape != b.shape:
            raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size {list(a.shape)} "
                               f"while other has size {list(b.shape)} (FYI: dense-sparse addition does not currently "
                               "support broadcasting)")
        return (SubDenseSparse if subtract else AddDenseSparse).apply(a, b, alpha)
    if a.shape != b.shape:
        raise RuntimeError(f"add: expected sizes of 'self' and 'other' to match, but {list(a.shape)} != "
                           f"{list(b.shape)}")
    if a.sparse_dim() != b.sparse_dim():
        raise RuntimeError(f"add: expected 'self' and 'other' to have same density, but 'self' has {a.sparse_dim()} "
                           f"sparse dimensions while 'other' has {b.sparse_dim()} sparse dimensions")
    return (SparseSub if subtract else SparseAdd).apply(a, b, alpha)


class SparseAdd(Builtin):
    """f(a, b) = a + alpha * b, for two sparse tensors of the same shape: the two lists of entries
    merged as PyTorch merges them (``arrays.merge``), coalesced when both are

    ∂L/∂a = grad,  ∂L/∂b = alpha * grad (each as it arrives: dense or sparse)
    Saves nothing (alpha). Node: AddBackward0.
    """

    _node_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, b, alpha):
        ctx.alpha = alpha
        dtype = result_dtype(a, b).numpy
        scaled = (b._value_array * alpha if alpha != 1 else b._value_array).astype(dtype, copy=False)
        shape = tuple(a.shape)
        merged = arrays.merge(a._index_array, a._value_array.astype(dtype, copy=False), b._index_array, scaled, shape,
                              sorted_unique=a._coalesced and b._coalesced)
        return SparseTensor._from_arrays(*merged, shape, coalesced=a._coalesced and b._coalesced)

    @staticmethod
    def backward(ctx, grad):
        return grad, (grad * ctx.alpha if ctx.alpha != 1 else grad), None


class SparseSub(SparseAdd):
    """f(a, b) = a - alpha * b (SparseAdd with the sign of alpha turned)

    ∂L/∂a = grad,  ∂L/∂b = -alpha * grad. Node: SubBackward0.
    """

    _node_name = "SubBackward0"


class AddDenseSparse(Builtin):
    """f(a, s) = a + alpha * s, for a dense a and a sparse s of the same shape (``dense + sparse``): dense

    ∂L/∂a = grad,  ∂L/∂s = alpha * grad (dense, as PyTorch's)
    Saves nothing (alpha). Node: AddBackward0. PyTorch does not broadcast here, and refuses
    ``sparse + dense``.
    """

    _node_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, s, alpha):
        ctx.alpha = alpha
        dtype = result_dtype(a, s).numpy   # PyTorch's promotion: int64 + float32 is float32
        added = arrays.to_dense(s._index_array, s._value_array, tuple(s.shape))
        return wrap(a._data.astype(dtype) + (added * alpha if alpha != 1 else added).astype(dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        return grad, (grad * ctx.alpha if ctx.alpha != 1 else grad), None


class SubDenseSparse(AddDenseSparse):
    """f(a, s) = a - alpha * s (AddDenseSparse with the sign of alpha turned)

    ∂L/∂a = grad,  ∂L/∂s = -alpha * grad. Node: SubBackward0.
    """

    _node_name = "SubBackward0"


# ---------------------------------------------------------------------- products
def mul(x: Tensor, y) -> SparseTensor:
    """``x * y`` where one or both are sparse: sparse, on the sparse factor's coordinates."""
    y = _operand(y)
    if x.is_sparse and y.is_sparse and (x.ndim == 0) != (y.ndim == 0):   # a 0-dim sparse factor is a number
        x, y = (x.to_dense(), y) if x.ndim == 0 else (x, y.to_dense())
    s, other = (x, y) if x.is_sparse else (y, x)
    if other.is_sparse:
        if s.ndim != other.ndim or s.sparse_dim() != other.sparse_dim() or \
                s.shape[:s.sparse_dim()] != other.shape[:s.sparse_dim()]:
            raise RuntimeError("sparse_binary_op_intersection_cpu(): expects sparse inputs with equal dimensionality, "
                               "number of sparse dimensions, and shape of sparse dimensions")
        if s.shape != other.shape:
            raise not_for_sparse("sparse * sparse with dense dimensions that broadcast")
        return SparseMulSparse.apply(x, y)
    if other.ndim and check_broadcast(tuple(other.shape), tuple(s.shape)) != tuple(s.shape):
        raise not_for_sparse("sparse * dense where the sparse tensor would broadcast to the dense one's larger shape")
    return SparseDenseMul.apply(x, y)


class SparseDenseMul(Builtin):
    """f(x, y) = x * y, one sparse (s) and one dense (d, which broadcasts to s's shape): sparse, with
    s's coordinates and s.values * d read there

    ∂L/∂s = grad * d (sparse if grad is),  ∂L/∂d = grad * s (sparse; dense and summed when d was
    broadcast)
    Saves d only when s needs a gradient, and s only when d does. Node: MulBackward0.
    """

    _node_name = "MulBackward0"
    _saved_names = ("self", "other")

    @staticmethod
    def forward(ctx, x, y):
        _save_each_for_the_other(ctx, x, y)
        ctx.shapes = tuple(x.shape), tuple(y.shape)
        s, d = (x, y) if x.is_sparse else (y, x)
        dtype = result_dtype(s, d).numpy
        factor = d._data if d.ndim == 0 else arrays.gather(np.broadcast_to(d._data, tuple(s.shape)), s._index_array)
        return s._like(values=(s._value_array * factor).astype(dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return (_scaled_gradient(grad, y, ctx.shapes[0]) if ctx.needs_input_grad[0] else None,
                _scaled_gradient(grad, x, ctx.shapes[1]) if ctx.needs_input_grad[1] else None)


def _scaled_gradient(grad: Tensor, factor: Tensor, shape: tuple) -> Tensor:
    """``grad * factor``, the gradient of the input of ``shape`` whose partner is ``factor``; a dense
    input that was broadcast gets it dense and summed back to its shape (the engine's
    sum_to_size is for dense gradients only)."""
    result = grad * factor
    return result if tuple(result.shape) == shape else result.to_dense().sum_to_size(shape)


class SparseMulSparse(Builtin):
    """f(a, b) = a * b, both sparse: the entries of a whose coordinates b stores too, times b's
    (summed) value there; a's coordinates and coalesced flag are kept

    ∂L/∂a = grad * b,  ∂L/∂b = grad * a (sparse)
    Saves each input only when the other needs a gradient. Node: MulBackward0.
    """

    _node_name = "MulBackward0"
    _saved_names = ("self", "other")

    @staticmethod
    def forward(ctx, a, b):
        _save_each_for_the_other(ctx, a, b)
        dtype = result_dtype(a, b).numpy
        shape = tuple(a.shape)
        other, found = arrays.lookup(b._index_array, b._value_array, shape, a._index_array, with_found=True)
        values = (a._value_array[found] * other[found]).astype(dtype, copy=False)
        return a._like(np.ascontiguousarray(a._index_array[:, found]), values)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return (grad * b if ctx.needs_input_grad[0] else None,
                grad * a if ctx.needs_input_grad[1] else None)


# ---------------------------------------------------------------------- division and negation
def div(a: Tensor, b, rounding_mode: str | None = None, floor_division: bool = False) -> SparseTensor:
    """``a / b`` for a sparse ``a`` and a number or 0-dim dense ``b`` (PyTorch divides by nothing else)."""
    b = _operand(b)
    what = "Sparse floor division" if floor_division else "Sparse division"
    if b.ndim:
        raise RuntimeError(f"{what} requires a scalar or zero-dim dense tensor divisor (got shape {list(b.shape)} "
                           "for divisor)")
    if b.is_sparse:
        raise RuntimeError(f"{what} requires a scalar or zero-dim dense tensor divisor (got a sparse divisor)")
    if rounding_mode not in (None, "trunc", "floor"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    return (SparseDivRounding if rounding_mode else SparseDiv).apply(a, b, rounding_mode)


class SparseDiv(Builtin):
    """f(s, d) = s / d, for a number or 0-dim tensor d: s's values divided (its zeros stay zero)

    ∂L/∂s = grad / d,  ∂L/∂d = -sum(grad * s) / d²
    Saves d when s needs a gradient, s and d when d does. Node: DivBackward0. With a rounding
    mode (DivBackward2), the result is piecewise constant: both gradients are zero.
    """

    _node_name = "DivBackward0"
    _saved_names = ("self", "other")

    @staticmethod
    def forward(ctx, s, d, rounding_mode):
        ctx.save_for_backward(s if ctx.needs_input_grad[1] else None, d)
        dtype = result_dtype(s, d)
        if rounding_mode is None and not dtype.is_floating_point:
            dtype = _default_float()
        indices, values = s._index_array, s._value_array.astype(dtype.numpy, copy=False)
        if rounding_mode:   # rounding is not linear: the repeats are summed first
            indices, values = arrays.coalesce(indices, values, tuple(s.shape))
        if rounding_mode == "floor":
            values = np.floor_divide(values, d._data.astype(dtype.numpy))
        elif rounding_mode == "trunc":
            values = np.trunc(values / d._data).astype(dtype.numpy, copy=False) if dtype.is_floating_point \
                else np.fix(values / d._data).astype(dtype.numpy)
        else:
            values = (values / d._data).astype(dtype.numpy, copy=False)
        return s._like(indices, values, coalesced=s._coalesced or bool(rounding_mode))

    @staticmethod
    def backward(ctx, grad):
        s, d = ctx.saved_tensors
        return (grad / d if ctx.needs_input_grad[0] else None,
                -(grad * s).sum() / (d * d) if ctx.needs_input_grad[1] else None, None)


class SparseDivRounding(SparseDiv):
    """f(s, d) = s / d rounded (``rounding_mode`` "floor" or "trunc"): piecewise constant

    ∂L/∂s = 0,  ∂L/∂d = 0. Node: DivBackward2.
    """

    _node_name = "DivBackward2"

    @staticmethod
    def backward(ctx, grad):
        s, d = ctx.saved_tensors
        return (grad * 0 if ctx.needs_input_grad[0] else None,
                d.detach() * 0 if ctx.needs_input_grad[1] else None, None)


def _default_float():
    from ..types import float32
    return float32


class Neg(Builtin):
    """f(s) = -s: the values negated

    ∂L/∂s = -grad
    Saves nothing.
    """

    @staticmethod
    def forward(ctx, s):
        return s._like(values=np.negative(s._value_array))

    @staticmethod
    def backward(ctx, grad):
        return -grad


def power(s: SparseTensor, exponent) -> SparseTensor:
    """``s ** p`` for a number p other than 0 (which would fill every element with ones)."""
    if isinstance(exponent, Tensor):
        raise not_for_sparse("pow() with a tensor exponent")
    if exponent == 0:
        raise RuntimeError("pow: cannot raise to zeroth power on sparse tensor; it would make the result tensor dense")
    return Pow.apply(s, exponent)


class Pow(Builtin):
    """f(s) = s ** p: s coalesced, then its values raised to p (the elements not stored stay 0 for
    p > 0; PyTorch keeps them 0 for p < 0 too). Coalesced first: (1 + 2) ** 2 is not 1 + 4

    ∂L/∂s = grad * p * s ** (p - 1) (sparse, on s's coordinates)
    Saves s. Node: PowBackward0.
    """

    _node_name = "PowBackward0"
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, s, exponent):
        ctx.exponent = exponent
        ctx.save_for_backward(s)
        dtype = result_dtype(s, _operand(exponent)).numpy
        indices, values = arrays.coalesce(s._index_array, s._value_array.astype(dtype, copy=False), tuple(s.shape))
        return s._like(indices, np.power(values, exponent).astype(dtype, copy=False), coalesced=True)

    @staticmethod
    def backward(ctx, grad):
        s, = ctx.saved_tensors
        p = ctx.exponent
        return (grad * (s ** (p - 1) * p) if p != 1 else grad), None


# ---------------------------------------------------------------------- sums over dimensions
def _summed(a: SparseTensor, dims: tuple, keepdim: bool, dtype) -> Tensor | SparseTensor:
    """The forward of every sum: ``a`` summed over ``dims`` (sorted, non-negative). Sparse while a
    sparse dimension is left, dense (a numpy array wrapped) once none is."""
    sparse_dim = a.sparse_dim()
    values = a._value_array if dtype is None else a._value_array.astype(dtype.numpy)
    out_dtype = values.dtype if values.dtype.kind in "fc" else np.dtype(np.int64)
    dense_axes = tuple(1 + d - sparse_dim for d in dims if d >= sparse_dim)
    values = values.sum(axis=dense_axes, keepdims=keepdim, dtype=out_dtype) if dense_axes else values.astype(out_dtype)
    kept = [r for r in range(sparse_dim) if r not in dims]
    if not kept:   # no sparse dimension left: the sum of the entries, a dense tensor
        total = values.sum(axis=0, dtype=out_dtype) if values.shape[0] else np.zeros(values.shape[1:], out_dtype)
        return wrap(total.reshape((1,) * sparse_dim + total.shape) if keepdim else total)
    if keepdim:
        indices = a._index_array.copy()
        indices[[r for r in range(sparse_dim) if r in dims]] = 0
    else:
        indices = a._index_array[kept]
    shape = tuple(1 if d in dims else n for d, n in enumerate(a.shape)) if keepdim else \
        tuple(n for d, n in enumerate(a.shape) if d not in dims)
    # sorted and unique either way; PyTorch flags the keepdim result uncoalesced
    return SparseTensor._from_arrays(*arrays.coalesce(indices, values, shape), shape, coalesced=not keepdim)


class SparseSum(Builtin):
    """f(a) = a summed over ``dims`` (``torch.sparse.sum(a, dim)``): sparse, or dense once no sparse
    dimension is left

    ∂L/∂a = grad read at each of a's coordinates, with the summed dimensions dropped (masked, sparse)
    Saves a (its coordinates). Node: SparseSumBackward0.
    """

    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, dims, dtype):
        ctx.dims = dims
        ctx.save_for_backward(a)
        return _summed(a, dims, False, dtype)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return _sum_gradient(grad, a, ctx.dims), None, None


def _sum_gradient(grad: Tensor, a: SparseTensor, dims: tuple) -> SparseTensor:
    """The masked gradient of a sum over ``dims``: at each coordinate of ``a`` (each once), the
    gradient of the slice it was summed into, repeated along the summed dense dimensions."""
    sparse_dim, shape = a.sparse_dim(), tuple(a.shape)
    indices = arrays.unique_coordinates(a._index_array, shape)
    n, kept = indices.shape[1], [r for r in range(sparse_dim) if r not in dims]
    if kept:
        read = ValuesAt.apply(grad, np.ascontiguousarray(indices[kept]), tuple(grad.shape))
    else:
        read = grad.to_dense().unsqueeze(0).expand(n, *grad.shape)
    for d in dims:
        if d >= sparse_dim:
            read = read.unsqueeze(1 + d - sparse_dim)
    values = read.expand(n, *shape[sparse_dim:]).contiguous()
    return SparseCooTensorWithDimsAndTensors.apply(values, indices, shape, True)


class SparseSumAll(Builtin):
    """f(a) = the sum of all of a's entries (``torch.sparse.sum(a)``): a dense 0-dim tensor

    ∂L/∂a = grad at each of a's coordinates (masked, sparse)
    Saves a (its coordinates). Node: SumBackward0.
    """

    _node_name = "SumBackward0"
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, dtype):
        ctx.save_for_backward(a)
        return _summed(a, tuple(range(a.ndim)), False, dtype)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return _sum_gradient(grad, a, tuple(range(a.ndim))), None


def sparse_sum(a: SparseTensor, dim=None, dtype=None) -> Tensor:
    """``torch.sparse.sum(a, dim=None, dtype=None)``: the sum of every entry (dense 0-dim), or the sum
    over ``dim`` (sparse while a sparse dimension is left). Its gradient is masked: sparse, on a's
    coordinates.

    >>> import minigrad as torch
    >>> s = torch.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0], (2, 3), requires_grad=True)
    >>> total = torch.sparse.sum(s)
    >>> total.backward(); total, s.grad.to_dense()
    (tensor(12., grad_fn=<SumBackward0>), tensor([[0., 0., 1.],
            [1., 0., 1.]]))
    """
    if not a.is_sparse:   # PyTorch's answers: the first thing each path asks of a sparse tensor
        if dim is None:
            raise RuntimeError("coalesce expected sparse coordinate tensor layout but got Strided")
        raise NotImplementedError("minigrad: torch.sparse.sum(x, dim) needs a sparse x; use x.sum(dim) for a dense one")
    if dim is None:
        return SparseSumAll.apply(a, dtype)
    return SparseSum.apply(a, normalize_dims(dim, a.ndim), dtype)


def tensor_sum(a: SparseTensor, dim, keepdim: bool, dtype) -> Tensor:
    """``a.sum(...)``: the same sums, with ``Tensor.sum``'s dense gradient (PyTorch's SumBackward0/1)."""
    if dim is None:
        return SparseTensorSum.apply(a, tuple(range(a.ndim)), keepdim, dtype)
    return SparseTensorSumDims.apply(a, normalize_dims(dim, a.ndim), keepdim, dtype)


class SparseTensorSum(Builtin):
    """f(a) = the sum of all of a's entries (``a.sum()``): a dense 0-dim tensor

    ∂L/∂a = grad everywhere: a dense tensor of a's shape (PyTorch's ``Tensor.sum`` expands it)
    Saves nothing (a's shape). Node: SumBackward0.
    """

    _node_name = "SumBackward0"

    @staticmethod
    def forward(ctx, a, dims, keepdim, dtype):
        ctx.shape, ctx.dims, ctx.keepdim = tuple(a.shape), dims, keepdim
        return _summed(a, dims, keepdim, dtype)

    @staticmethod
    def backward(ctx, grad):
        if grad.is_sparse:
            raise RuntimeError("expand is unsupported for Sparse tensors")
        if not ctx.keepdim:
            grad = grad.reshape(tuple(1 if d in ctx.dims else n for d, n in enumerate(ctx.shape)))
        return grad.expand(ctx.shape), None, None, None


class SparseTensorSumDims(SparseTensorSum):
    """f(a) = a summed over ``dim`` (``a.sum(dim, keepdim)``): as ``torch.sparse.sum``, with keepdim

    ∂L/∂a = grad expanded to a's shape (dense). When the sum is still sparse, PyTorch's backward
    cannot expand it and raises; so does minigrad's. Node: SumBackward1.
    """

    _node_name = "SumBackward1"


# ---------------------------------------------------------------------- norm and truth
def norm(a: SparseTensor, p="fro", dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """``a.norm(p)``: the p-norm of the coalesced values, with PyTorch's refusals."""
    if keepdim:
        raise RuntimeError("norm_sparse currently does not support keepdim=True")
    if dim is not None and normalize_dims(dim, a.ndim) != tuple(range(a.ndim)):
        raise RuntimeError("norm_sparse currently only supports full reductions, so 'dim' must either be empty or "
                           "contain all dimensions of the input")
    if dtype is not None:
        if p == "fro":
            raise ValueError("dtype argument is not supported in frobenius norm")
        raise RuntimeError("norm_sparse currently does not support 'dtype' argument")
    if p == "nuc":
        raise not_for_sparse("norm(p='nuc')")
    if a.dtype.numpy.kind not in "fc":
        raise RuntimeError("norm(): input dtype should be either floating point or complex. Got "
                           f"{a.dtype.legacy_name[:-6]} instead.")
    return SparseNorm.apply(a, 2 if p == "fro" else p)


class SparseNorm(Builtin):
    """f(a) = the p-norm of a's values after coalescing: (sum |v|^p)^(1/p); max |v| for p = inf,
    the count of nonzero values for p = 0

    ∂L/∂a: not computed. PyTorch 2.13's backward fails for a sparse input too; minigrad raises a
    NotImplementedError that says so. Saves nothing. Node: NormBackward1.
    """

    _node_name = "NormBackward1"

    @staticmethod
    def forward(ctx, a, p):
        _, values = arrays.coalesce(a._index_array, a._value_array, tuple(a.shape))
        magnitudes = np.abs(values).reshape(-1)
        if p == 0:
            result = np.count_nonzero(magnitudes)
        elif p == float("inf"):
            result = magnitudes.max(initial=0)
        elif p == float("-inf"):
            result = magnitudes.min(initial=np.inf) if magnitudes.size else 0
        else:
            result = np.sum(magnitudes ** p) ** (1 / p)
        return wrap(np.asarray(result, dtype=a.dtype.numpy))

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError("minigrad: the gradient of norm() of a sparse tensor is not implemented (PyTorch "
                                  "2.13 cannot compute it either); use torch.sparse.sum(s * s).sqrt() for a "
                                  "differentiable 2-norm")


def is_nonzero(a: SparseTensor) -> bool:
    if a.numel() == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if a.numel() > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(arrays.to_dense(a._index_array, a._value_array, tuple(a.shape)).reshape(-1)[0] != 0)
