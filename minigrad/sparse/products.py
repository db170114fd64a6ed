"""Matrix products with a sparse factor, each a builtin Function named like PyTorch's node.

=====================================  ==============================  =====================================
operation                              node (``grad_fn``)              gradient of the sparse factor
=====================================  ==============================  =====================================
``s @ d``, ``s.mm(d)``, ``torch.mm``   ``MmBackward0``                 dense, ``grad @ d.T``
``s @ v``, ``s.mv(v)``                 ``MvBackward0``                 dense, ``outer(grad, v)``
``d @ s``                              ``MmBackward0``                 dense, ``d.T @ grad``
``torch.addmm(x, s, d, β, α)``         ``AddmmBackward0``              dense
``torch.sparse.mm(s, d)``              ``SparseAddmmBackward0``        sparse, on s's pattern (masked)
``torch.sparse.addmm(x, s, d, β, α)``  ``SparseAddmmBackward0``        sparse, on s's pattern (masked)
``s @ t``, ``torch.sparse.mm(s, t)``   ``MmBackward0``,                sparse (both factors sparse: the
                                       ``SparseSparseMatmulBackward0`` product is sparse too)
=====================================  ==============================  =====================================

**A dense gradient of a sparse matrix is ``n_rows x n_cols``**, as in PyTorch: the backward of
``s @ d`` computes ``grad @ d.T``, and the node that built ``s`` then reads its nnz entries off
it. That is correct, and it is the O(N^2) memory that pyGAT's ``SpecialSpmmFunction`` and
``minigrad.sparse.spmm`` avoid (see ``spmm.py``). ``torch.sparse.mm`` asks only for the masked
gradient, the nnz entries; PyTorch still computes it from the dense ``grad @ d.T``, minigrad
computes just those nnz dot products (``kernels.sampled_dot``): the same numbers, O(nnz * d).

>>> import minigrad as torch
>>> v = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
>>> a = torch.sparse_coo_tensor([[0, 0, 1], [1, 1, 0]], v, (2, 2))   # (0, 1) appears twice
>>> out = a @ torch.tensor([[1.0], [10.0]])
>>> out
tensor([[30.],
        [ 3.]], grad_fn=<MmBackward0>)
>>> out.sum().backward(); v.grad                                     # each repeat gets the full gradient
tensor([10., 10.,  1.])
"""
from __future__ import annotations

import numpy as np

from ..ops._util import Builtin, wrap
from ..ops.linalg import _save_each_for_the_other
from ..ops.shape import SqueezeInplaceDim, UnsafeView
from ..tensor import Tensor, _operand, _warn_once
from . import arrays, kernels
from .coo import SparseTensor, not_for_sparse
from .functions import SparseCooTensorWithDimsAndTensors, masked_gradient


# ---------------------------------------------------------------------- the arrays
def _product(a: SparseTensor, dense: np.ndarray) -> np.ndarray:
    """``a @ dense`` for a 2-D sparse ``a`` and a 2-D array: O(nnz * d), repeats add up."""
    rows, cols = a._index_array
    return kernels.scatter_add(rows, cols, a._value_array, dense, n_out=a.shape[0])


def _sampled_gradient(grad: Tensor, b: Tensor, a: SparseTensor, alpha) -> SparseTensor:
    """The masked gradient of ``a`` in ``alpha * a @ b``: ``alpha * (grad @ b.T)`` read at a's
    coordinates (each once), computed as one dot product per coordinate."""
    shape = tuple(a.shape)
    indices = arrays.unique_coordinates(a._index_array, shape)
    values = SampledDot.apply(grad, b, indices, shape)
    return SparseCooTensorWithDimsAndTensors.apply(values * alpha if alpha != 1 else values, indices, shape, True)


class SampledDot(Builtin):
    """f(g, b) = (g @ b.T) read at the coordinates (i, j) of ``indices``: one dot product
    <g[i], b[j]> per coordinate, never the whole matrix (``kernels.sampled_dot``)

    ∂L/∂g = S @ b,  ∂L/∂b = S.T @ g, with S the sparse matrix holding grad at those coordinates
    Saves g only when b needs a gradient, and b only when g does. A minigrad node: the masked
    gradient of ``torch.sparse.mm``, which PyTorch computes from the dense ``g @ b.T``.
    """

    @staticmethod
    def forward(ctx, g, b, indices, shape):
        _save_each_for_the_other(ctx, g, b)
        ctx.indices, ctx.shape = indices, shape
        return wrap(kernels.sampled_dot(indices[0], indices[1], g._data, b._data))

    @staticmethod
    def backward(ctx, grad):
        g, b = ctx.saved_tensors
        s = SparseCooTensorWithDimsAndTensors.apply(grad, ctx.indices, ctx.shape, True)
        return (s.mm(b) if ctx.needs_input_grad[0] else None,
                s.t().mm(g) if ctx.needs_input_grad[1] else None, None, None)


def _sparse_sparse(a: SparseTensor, b: SparseTensor) -> SparseTensor:
    """``a @ b`` for two sparse matrices: every entry (i, j) of a meets every entry (j, k) of b.
    (PyTorch computes it through its CSR layout, and warns once that CSR is in beta: so does minigrad.)"""
    _warn_once("Sparse CSR tensor support is in beta state. If you miss a functionality in the sparse tensor support, "
               "please submit a feature request to https://github.com/pytorch/pytorch/issues.")
    a_index, a_values = arrays.coalesce(a._index_array, a._value_array, tuple(a.shape))
    b_index, b_values = arrays.coalesce(b._index_array, b._value_array, tuple(b.shape))
    per_row = np.bincount(b_index[0], minlength=b.shape[0])   # b is sorted by rows
    row_start = np.cumsum(per_row) - per_row
    meets = per_row[a_index[1]]                               # how many entries of b each entry of a meets
    left = np.repeat(np.arange(a_index.shape[1]), meets)
    right = row_start[a_index[1]][left] + np.arange(left.size) - np.repeat(np.cumsum(meets) - meets, meets)
    indices = np.stack([a_index[0][left], b_index[1][right]]).reshape(2, -1)
    values = (a_values[left] * b_values[right]).astype(a._value_array.dtype, copy=False)
    shape = (a.shape[0], b.shape[1])
    return SparseTensor._from_arrays(*arrays.coalesce(indices, values, shape), shape, coalesced=True)


def _addmm_forward(ctx, x: Tensor, a: SparseTensor, b: Tensor, beta, alpha) -> Tensor:
    ctx.beta, ctx.alpha, ctx.x_shape = beta, alpha, tuple(x.shape)
    out = _product(a, b._data)
    if alpha != 1:
        out = out * alpha
    if beta != 0:
        out = out + beta * x._data
    return wrap(out.astype(a._value_array.dtype, copy=False))


# ---------------------------------------------------------------------- the Functions
class SparseMm(Builtin):
    """f(a, b) = a @ b, for a 2-D sparse a and a dense matrix b

    ∂L/∂a = grad @ b.T (dense, n_rows x n_cols, like PyTorch's),  ∂L/∂b = a.T @ grad (a sparse product)
    Saves b only when a needs a gradient, and a only when b does: each is read by the other's gradient.
    Node: MmBackward0, as for dense matrices.
    """

    _node_name = "MmBackward0"
    _saved_names = ("self", "mat2")

    @staticmethod
    def forward(ctx, a, b):
        _save_each_for_the_other(ctx, a, b)
        return wrap(_product(a, b._data))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return (grad.mm(b.t()) if ctx.needs_input_grad[0] else None,   # dense n_rows x n_cols
                a.t().mm(grad) if ctx.needs_input_grad[1] else None)


class SparseAddmm(Builtin):
    """f(x, a, b) = beta * x + alpha * (a @ b), for a 2-D sparse a and a dense matrix b
    (``torch.sparse.addmm``; ``torch.sparse.mm`` is beta = 0 with an x that needs no gradient)

    ∂L/∂x = beta * grad (summed back to x's shape),  ∂L/∂a = alpha * (grad @ b.T) at a's
    coordinates only (masked, sparse: nnz dot products),  ∂L/∂b = alpha * a.T @ grad
    Saves a only when b needs a gradient, and b only when a does. Node: SparseAddmmBackward0.
    """

    _saved_names = ("mat1", "mat2")

    @staticmethod
    def forward(ctx, x, a, b, beta, alpha):
        # a's coordinates make its masked gradient: a is saved for either gradient
        ctx.save_for_backward(a if ctx.needs_input_grad[1] or ctx.needs_input_grad[2] else None,
                              b if ctx.needs_input_grad[1] else None)
        return _addmm_forward(ctx, x, a, b, beta, alpha)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        grad_x = None
        if ctx.needs_input_grad[0]:
            grad_x = (grad * ctx.beta).sum_to_size(ctx.x_shape)
        return (grad_x,
                _sampled_gradient(grad.to_dense(), b, a, ctx.alpha) if ctx.needs_input_grad[1] else None,
                (a.t().mm(grad) * ctx.alpha) if ctx.needs_input_grad[2] else None, None, None)


class AddmmSparse(Builtin):
    """f(x, a, b) = beta * x + alpha * (a @ b), for a 2-D sparse a (``torch.addmm(x, a, b)``)

    ∂L/∂x = beta * grad (summed back to x's shape),  ∂L/∂a = alpha * grad @ b.T (dense, like
    PyTorch's),  ∂L/∂b = alpha * a.T @ grad
    Saves a only when b needs a gradient, and b only when a does. Node: AddmmBackward0.
    """

    _node_name = "AddmmBackward0"
    _saved_names = ("mat1", "mat2")

    @staticmethod
    def forward(ctx, x, a, b, beta, alpha):
        ctx.save_for_backward(a if ctx.needs_input_grad[2] else None, b if ctx.needs_input_grad[1] else None)
        return _addmm_forward(ctx, x, a, b, beta, alpha)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        grad_x = (grad * ctx.beta).sum_to_size(ctx.x_shape) if ctx.needs_input_grad[0] else None
        return (grad_x,
                grad.mm(b.t()) * ctx.alpha if ctx.needs_input_grad[1] else None,
                (a.t().mm(grad) * ctx.alpha) if ctx.needs_input_grad[2] else None, None, None)


class SparseMv(Builtin):
    """f(a, v) = a @ v, for a 2-D sparse a and a vector v

    ∂L/∂a = outer(grad, v) (dense, like PyTorch's),  ∂L/∂v = a.T @ grad (a sparse product)
    Saves v only when a needs a gradient, and a only when v does. Node: MvBackward0.
    """

    _node_name = "MvBackward0"
    _saved_names = ("self", "vec")

    @staticmethod
    def forward(ctx, a, v):
        _save_each_for_the_other(ctx, a, v)
        return wrap(_product(a, v._data[:, None])[:, 0])

    @staticmethod
    def backward(ctx, grad):
        a, v = ctx.saved_tensors
        return (grad.unsqueeze(1) * v.unsqueeze(0) if ctx.needs_input_grad[0] else None,
                a.t().matmul(grad) if ctx.needs_input_grad[1] else None)


class DenseSparseMm(Builtin):
    """f(d, a) = d @ a, for a dense matrix d and a 2-D sparse a, computed as (a.T @ d.T).T without
    forming anything dense

    ∂L/∂d = grad @ a.T (computed as (a @ grad.T).T, a sparse product),  ∂L/∂a = d.T @ grad (dense,
    like PyTorch's)
    Saves a only when d needs a gradient, and d only when a does. Node: MmBackward0.
    """

    _node_name = "MmBackward0"
    _saved_names = ("self", "mat2")

    @staticmethod
    def forward(ctx, d, a):
        _save_each_for_the_other(ctx, d, a)
        rows, cols = a._index_array
        out_t = kernels.scatter_add(cols, rows, a._value_array, d._data.T, n_out=a.shape[1])
        return wrap(np.ascontiguousarray(out_t.T))

    @staticmethod
    def backward(ctx, grad):
        d, a = ctx.saved_tensors
        return (a.matmul(grad.t()).t() if ctx.needs_input_grad[0] else None,
                d.t().mm(grad) if ctx.needs_input_grad[1] else None)   # dense, like PyTorch


class SparseSparseMm(Builtin):
    """f(a, b) = a @ b, both 2-D sparse: sparse and coalesced

    ∂L/∂a = grad @ b.T,  ∂L/∂b = a.T @ grad (products with a sparse factor)
    Saves each input only when the other needs a gradient. Node: MmBackward0.
    """

    _node_name = "MmBackward0"
    _saved_names = ("self", "mat2")

    @staticmethod
    def forward(ctx, a, b):
        _save_each_for_the_other(ctx, a, b)
        return _sparse_sparse(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return (grad @ b.t() if ctx.needs_input_grad[0] else None,
                a.t() @ grad if ctx.needs_input_grad[1] else None)


class SparseSparseMatmul(SparseSparseMm):
    """f(a, b) = a @ b, both sparse (``torch.sparse.mm``), as SparseSparseMm

    ∂L/∂a = (grad @ b.T) on a's pattern,  ∂L/∂b = (a.T @ grad) on b's pattern (masked, sparse).
    Saves a and b when either needs a gradient (each one's pattern masks its own). Node:
    SparseSparseMatmulBackward0.
    """

    _node_name = "SparseSparseMatmulBackward0"

    @staticmethod
    def forward(ctx, a, b):
        if ctx.needs_input_grad[0] or ctx.needs_input_grad[1]:
            ctx.save_for_backward(a, b)
        return _sparse_sparse(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return (masked_gradient(grad @ b.t(), a) if ctx.needs_input_grad[0] else None,
                masked_gradient(a.t() @ grad, b) if ctx.needs_input_grad[1] else None)


# ---------------------------------------------------------------------- checks and dispatch
def _scalar_name(t: Tensor) -> str:
    return t.dtype.legacy_name[:-len("Tensor")]   # "FloatTensor" -> "Float"


def _check_dtypes(a: Tensor, *others: Tensor) -> None:
    for other in others:
        if a.dtype is not other.dtype:
            raise RuntimeError(f"expected scalar type {_scalar_name(a)} but found {_scalar_name(other)}")
    if a.dtype.name == "bool":
        raise NotImplementedError("\"addmm_sparse_dense\" not implemented for 'Bool'")


def _check_matrix(a: SparseTensor) -> None:
    if a.dense_dim():
        raise RuntimeError(f"addmm: matrices expected, got {a.dense_dim()}D tensor")
    if a.ndim != 2:
        raise not_for_sparse(f"a matrix product with a {a.ndim}-D sparse tensor")


def _check_sparse_dense(a: SparseTensor, b: Tensor) -> None:
    _check_matrix(a)
    if b.ndim != 2:
        raise RuntimeError(f"addmm: matrices expected, got {b.ndim}D tensor")
    if b.shape[0] != a.shape[1]:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {a.shape[1]}, got {b.shape[0]}")
    _check_dtypes(a, b)


def _check_sparse_sparse(a: SparseTensor, b: SparseTensor) -> None:
    if a.ndim != 2 or b.ndim != 2 or a.dense_dim() or b.dense_dim():
        raise RuntimeError(f"Expected 2D sparse COO tensors, got {a.ndim}D and {b.ndim}D")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"mat1 dtype {_scalar_name(a)} does not match mat2 dtype {_scalar_name(b)}")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
                           f"{b.shape[0]}x{b.shape[1]})")


def sparse_matmul(a: SparseTensor, other, matrix_only: bool = False) -> Tensor:
    """``a @ other`` with PyTorch's checks and error texts (``matrix_only``: ``a.mm(other)``)."""
    other = _operand(other)
    if other.is_sparse:
        _check_sparse_sparse(a, other)
        return SparseSparseMm.apply(a, other)
    if other.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {a.ndim}D and 0D")
    if not matrix_only and other.ndim == 1 and a.ndim == 2:
        return mv(a, other)
    if other.ndim > 2:
        return _folded(a, other)
    _check_sparse_dense(a, other)
    return SparseMm.apply(a, other)


def _folded(a: SparseTensor, batch: Tensor) -> Tensor:
    """``a @ batch`` for a batch of matrices: PyTorch folds it into one product, ``(batch.mT @ a.T).mT``
    with the batch's matrices stacked, when ``a`` requires grad; otherwise it would expand ``a``,
    which a sparse tensor cannot do."""
    if not a.requires_grad:
        raise RuntimeError("expand is unsupported for Sparse tensors")
    _check_matrix(a)
    if batch.shape[-2] != a.shape[1]:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {a.shape[1]}, got {batch.shape[-2]}")
    rows = batch.transpose(-1, -2).reshape(-1, batch.shape[-2])
    product = dense_sparse_matmul(rows, a.t())
    return UnsafeView.apply(product, tuple(batch.shape[:-2]) + (batch.shape[-1], a.shape[0])).transpose(-1, -2) \
        .contiguous()


def mv(a: SparseTensor, vec) -> Tensor:
    """``a.mv(vec)``: a sparse matrix times a dense vector (dense)."""
    vec = _operand(vec)
    if a.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"mv: two tensor dim should be 2 and 1, but got SparseTensor Dim: {a.ndim}Tensor Dim: "
                           f"{vec.ndim}")
    if vec.is_sparse:
        raise not_for_sparse("mv() with a sparse vector")
    _check_matrix(a)
    if vec.shape[0] != a.shape[1]:
        raise RuntimeError("mv: expected self.size(-1) == vec.size(-1)")
    _check_dtypes(a, vec)
    return SparseMv.apply(a, vec)


def dense_sparse_matmul(d, a: SparseTensor) -> Tensor:
    """``d @ a`` for a dense ``d`` (a vector, a matrix, or a batch of matrices) and a sparse matrix ``a``."""
    d = _operand(d)
    _check_matrix(a)
    if d.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are 0D and {a.ndim}D")
    if d.shape[-1] != a.shape[0]:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {a.shape[0]}, got {d.shape[-1]}")
    _check_dtypes(a, d)
    if d.ndim == 2:
        return DenseSparseMm.apply(d, a)
    if d.ndim == 1:   # a vector is one row (PyTorch's nodes: unsqueeze, mm, squeeze)
        return SqueezeInplaceDim.apply(DenseSparseMm.apply(d.unsqueeze(0), a), (0,))
    rows = d.reshape(-1, d.shape[-1])   # a batch: its matrices' rows one after the other
    return UnsafeView.apply(DenseSparseMm.apply(rows, a), tuple(d.shape[:-1]) + (a.shape[1],))


def mm(a: Tensor, b: Tensor) -> Tensor:
    """``torch.sparse.mm(a, b)``: ``a @ b`` for a sparse ``a`` and a dense or sparse matrix ``b``; the
    gradient of a sparse factor is masked (on its own pattern).

    >>> import minigrad as torch
    >>> a = torch.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], (2, 2), requires_grad=True)
    >>> torch.sparse.mm(a, torch.ones(2, 1))
    tensor([[2.],
            [3.]], grad_fn=<SparseAddmmBackward0>)
    """
    if not a.is_sparse:
        return a.mm(b)
    b = _operand(b)
    if b.is_sparse:
        _check_sparse_sparse(a, b)
        return SparseSparseMatmul.apply(a, b)
    if b.ndim != 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [-{max(b.ndim, 1)}, "
                         f"{max(b.ndim, 1) - 1}], but got 1)")
    _check_sparse_dense(a, b)
    return SparseAddmm.apply(Tensor._zeros((), a.dtype), a, b, 0, 1)


def addmm(x: Tensor, a: Tensor, b: Tensor, *, beta=1, alpha=1, masked: bool = True) -> Tensor:
    """``torch.sparse.addmm(x, a, b, beta=1, alpha=1)``: ``beta * x + alpha * (a @ b)`` for a sparse
    ``a``; the gradient of ``a`` is masked. ``masked=False`` is ``torch.addmm(x, a, b)``, whose
    gradient of ``a`` is dense (``AddmmBackward0``)."""
    if not a.is_sparse:
        return x.addmm(a, b, beta=beta, alpha=alpha)
    if x.is_sparse:
        raise RuntimeError("expand is unsupported for Sparse tensors")
    b = _operand(b)
    if b.is_sparse:
        raise not_for_sparse("addmm with two sparse matrices")
    _check_sparse_dense(a, b)
    _check_dtypes(a, x)
    x.detach().expand(a.shape[0], b.shape[1])   # PyTorch's errors for an input that does not broadcast
    return (SparseAddmm if masked else AddmmSparse).apply(x, a, b, beta, alpha)
