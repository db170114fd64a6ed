"""The operations on sparse tensors, each a builtin Function named like PyTorch's node.

=============================  ==============================================  ==========================
operation                      node (``grad_fn``)                              output
=============================  ==============================================  ==========================
``sparse_coo_tensor(i, v, s)`` ``SparseCooTensorWithDimsAndTensorsBackward0``  sparse
``a @ b``, ``a.mm(b)``         ``MmBackward0`` (``MvBackward0`` for a vector)  dense
``minigrad.sparse.mm(a, b)``   ``SparseAddmmBackward0``                        dense
``b @ a`` (dense @ sparse)     ``MmBackward0``                                 dense
``a.t()``                      ``TBackward0``                                  sparse
``a.to_dense()``               ``ToDenseBackward0``                            dense
``a.coalesce()``               ``CoalesceBackward0``                           sparse
=============================  ==============================================  ==========================

**Gradients with respect to a sparse tensor are dense**, as in PyTorch: the backward of
``a @ b`` computes ``grad @ b.t()``, an ``n_rows x n_cols`` matrix, and the node that built ``a``
then reads its nnz entries off it. That is correct, and it is the O(N^2) memory that pyGAT's
``SpecialSpmmFunction`` and ``minigrad.sparse.spmm`` avoid (see ``spmm.py``).

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

from ..ops._util import Builtin, result_dtype, wrap
from ..tensor import Tensor, _operand
from . import kernels
from .coo import UNSUPPORTED, SparseTensor


# ---------------------------------------------------------------------- building and converting
class SparseCooTensorWithDimsAndTensors(Builtin):
    """f(values) = the sparse tensor with values[k] at indices[:, k] (``sparse_coo_tensor``)

    ∂L/∂values[k] = grad[indices[:, k]]: the (dense) gradient read at each stored coordinate; a
    repeated coordinate gets the full gradient at each of its repeats
    Saves the result, whose index array backward reads. Only values is differentiable: indices is
    passed as an array, so the node has no next_functions entry for it.
    """

    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, values, indices, size, is_coalesced):
        result = SparseTensor._from_arrays(indices, values._data, size, is_coalesced)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return entries_at(grad, result._index_array), None, None, None


def entries_at(grad: Tensor, index: np.ndarray) -> Tensor:
    """``grad[index[0, k], index[1, k], ...]`` for every k: the gradient of each stored value.

    A repeated coordinate gets the full gradient at each of its repeats (its entries add up).
    """
    return grad.to_dense()[tuple(Tensor._make(row) for row in index)]


def dense_array(a: SparseTensor) -> np.ndarray:
    dense = np.zeros(tuple(a.shape), a._value_array.dtype)
    np.add.at(dense, tuple(a._index_array), a._value_array)   # repeated coordinates add up
    return dense


class AddDenseSparse(Builtin):
    """f(a, s) = a + s, for a dense a and a sparse s of the same shape (``dense + sparse``): dense

    ∂L/∂a = grad,  ∂L/∂s = grad (dense, as every gradient of a sparse input here)
    Saves nothing. Node: AddBackward0, as PyTorch's. PyTorch does not broadcast here, and refuses
    ``sparse + dense`` (SparseTensor.__add__ says so).
    """

    _node_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, s):
        if a.shape != s.shape:
            raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size {list(a.shape)} "
                               f"while other has size {list(s.shape)} (FYI: dense-sparse addition does not currently "
                               "support broadcasting)")
        dtype = result_dtype(a, s).numpy   # PyTorch's promotion: int64 + float32 is float32
        return wrap(a._data.astype(dtype) + dense_array(s).astype(dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        return grad, grad


class ToDense(Builtin):
    """f(a) = the dense tensor of the sparse a (repeated coordinates add up)

    ∂L/∂a = grad: the gradient of a sparse input is dense, as in PyTorch
    Saves nothing.
    """

    @staticmethod
    def forward(ctx, a):
        return wrap(dense_array(a))

    @staticmethod
    def backward(ctx, grad):
        return grad   # the gradient of the sparse input, in dense form


def coalesced_arrays(index: np.ndarray, values: np.ndarray) -> tuple:
    """Coordinates sorted (first dimension first), each kept once, with their values summed."""
    if values.shape[0] == 0:
        return index.copy(), values.copy()
    order = np.lexsort(index[::-1])
    index = index[:, order]
    starts_new = np.ones(index.shape[1], dtype=bool)
    starts_new[1:] = (index[:, 1:] != index[:, :-1]).any(axis=0)
    starts = np.flatnonzero(starts_new)
    return index[:, starts], np.add.reduceat(values[order], starts)


class Coalesce(Builtin):
    """f(a) = a with its coordinates sorted and each kept once, the values of repeats summed

    ∂L/∂a = grad (dense): the same matrix, so the derivative is 1
    Saves nothing.
    """

    @staticmethod
    def forward(ctx, a):
        index, values = coalesced_arrays(a._index_array, a._value_array)
        return SparseTensor._from_arrays(index, values, a.shape, coalesced=True)

    @staticmethod
    def backward(ctx, grad):
        return grad


class SparseT(Builtin):
    """f(a) = a.T: the same entries with the two index rows swapped (a view, as in PyTorch)

    ∂L/∂a = grad.t()
    Saves nothing. Node: TBackward0, as for a dense ``t()``.
    """

    _node_name = "TBackward0"

    @staticmethod
    def forward(ctx, a):
        out = SparseTensor._from_arrays(a._index_array[::-1], a._value_array, tuple(a.shape)[::-1])
        out._version_counter = a._version_counter
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad.t()


# ---------------------------------------------------------------------- products with a dense tensor
def _product(a: SparseTensor, dense: np.ndarray) -> np.ndarray:
    """``a @ dense`` for a 2-D sparse ``a`` and a 2-D array: O(nnz * d), repeats add up."""
    rows, cols = a._index_array
    return kernels.scatter_add(rows, cols, a._value_array, dense, n_out=a.shape[0])


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
        ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, b if ctx.needs_input_grad[0] else None)
        return wrap(_product(a, b._data))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return (grad.mm(b.t()) if ctx.needs_input_grad[0] else None,   # dense n_rows x n_cols
                a.t().mm(grad) if ctx.needs_input_grad[1] else None)


class SparseAddmm(SparseMm):
    """f(a, b) = a @ b, as SparseMm, with the node ``torch.sparse.mm`` gives it

    ∂L/∂a = grad @ b.T (dense),  ∂L/∂b = a.T @ grad: SparseMm's backward. Node: SparseAddmmBackward0.
    """



class SparseMv(Builtin):
    """f(a, v) = a @ v, for a 2-D sparse a and a vector v

    ∂L/∂a = outer(grad, v) (dense, like PyTorch's),  ∂L/∂v = a.T @ grad (a sparse product)
    Saves v only when a needs a gradient, and a only when v does. Node: MvBackward0.
    """

    _node_name = "MvBackward0"
    _saved_names = ("self", "vec")

    @staticmethod
    def forward(ctx, a, v):
        ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, v if ctx.needs_input_grad[0] else None)
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
        ctx.save_for_backward(d if ctx.needs_input_grad[1] else None, a if ctx.needs_input_grad[0] else None)
        rows, cols = a._index_array
        out_t = kernels.scatter_add(cols, rows, a._value_array, d._data.T, n_out=a.shape[1])
        return wrap(np.ascontiguousarray(out_t.T))

    @staticmethod
    def backward(ctx, grad):
        d, a = ctx.saved_tensors
        return (a.matmul(grad.t()).t() if ctx.needs_input_grad[0] else None,
                d.t().mm(grad) if ctx.needs_input_grad[1] else None)   # dense, like PyTorch


def _scalar_name(t: Tensor) -> str:
    return t.dtype.legacy_name[:-len("Tensor")]   # "FloatTensor" -> "Float"


def _check_dtypes(a: SparseTensor, dense: Tensor) -> None:
    if a.dtype is not dense.dtype:
        raise RuntimeError(f"expected scalar type {_scalar_name(a)} but found {_scalar_name(dense)}")
    if a.dtype.name == "bool":
        raise NotImplementedError("\"addmm_sparse_dense\" not implemented for 'Bool'")


def sparse_matmul(a: SparseTensor, other, matrix_only: bool = False, function=SparseMm) -> Tensor:
    """``a @ other`` with PyTorch's checks and error texts (``matrix_only``: ``a.mm(other)``)."""
    other = _operand(other)
    if isinstance(other, SparseTensor):
        raise NotImplementedError("minigrad: sparse @ sparse is not implemented; the other operand must be dense "
                                  "(use .to_dense() on it)")
    if a.ndim != 2:
        raise NotImplementedError(f"minigrad: matmul needs a 2-D sparse matrix, got {a.ndim} dimensions. {UNSUPPORTED}")
    if other.ndim == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are 2D and 0D")
    if matrix_only and other.ndim != 2:
        raise RuntimeError(f"addmm: matrices expected, got {other.ndim}D tensor")
    if other.ndim > 2:
        raise RuntimeError("expand is unsupported for Sparse tensors")
    _check_dtypes(a, other)
    if other.ndim == 1:
        if other.shape[0] != a.shape[1]:
            raise RuntimeError("mv: expected self.size(-1) == vec.size(-1)")
        return SparseMv.apply(a, other)
    if other.shape[0] != a.shape[1]:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {a.shape[1]}, got {other.shape[0]}")
    return function.apply(a, other)


def dense_sparse_matmul(d, a: SparseTensor) -> Tensor:
    """``d @ a`` for a dense matrix ``d`` and a 2-D sparse ``a``."""
    d = _operand(d)
    if a.ndim != 2 or d.ndim != 2:
        raise NotImplementedError("minigrad: dense @ sparse is implemented for two matrices only")
    if d.shape[1] != a.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({d.shape[0]}x{d.shape[1]} and "
                           f"{a.shape[0]}x{a.shape[1]})")
    _check_dtypes(a, d)
    return DenseSparseMm.apply(d, a)


def mm(a: SparseTensor, b: Tensor) -> Tensor:
    """``torch.sparse.mm(a, b)``: ``a @ b`` for a sparse ``a`` and a dense matrix ``b``.

    >>> import minigrad as torch
    >>> a = torch.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], (2, 2), requires_grad=True)
    >>> torch.sparse.mm(a, torch.ones(2, 1))
    tensor([[2.],
            [3.]], grad_fn=<SparseAddmmBackward0>)
    """
    if not isinstance(a, SparseTensor):
        raise NotImplementedError("minigrad.sparse.mm: the first argument must be a sparse tensor")
    return sparse_matmul(a, b, matrix_only=True, function=SparseAddmm)
