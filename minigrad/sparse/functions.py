"""Building, converting and transposing sparse tensors, each a builtin Function named like PyTorch's node.

==================================  ==============================================  ==============
operation                           node (``grad_fn``)                              output
==================================  ==============================================  ==============
``sparse_coo_tensor(i, v, size)``   ``SparseCooTensorWithDimsAndTensorsBackward0``  sparse
``s.to_dense()``                    ``ToDenseBackward0``                            dense
``d.to_sparse()``, ``to_sparse(k)`` ``ToSparseBackward1``, ``ToSparseBackward0``    sparse
``s.coalesce()``                    ``CoalesceBackward0``                           sparse
``s.values()``                      ``ValuesBackward0``                             dense
``s.clone()``, ``s.to(dtype)``      ``CloneBackward0``, ``ToCopyBackward0``         sparse
``s.t()``, ``s.transpose(i, j)``    ``TBackward0``, ``TransposeBackward0``          sparse
``x.sparse_mask(mask)``             ``SparseMaskBackward0``                         sparse
==================================  ==============================================  ==============

**The gradient of a sparse tensor may be sparse or dense**, as in PyTorch: each backward returns
what PyTorch's does. ``to_dense``'s is sparse and *masked*: it holds the incoming gradient at the
coordinates the input stores, nothing elsewhere (``masked_gradient``). A product such as ``s @ d``
(``products.py``) gives a dense one. Every backward here accepts either kind.

>>> import minigrad as torch
>>> s = torch.sparse_coo_tensor([[0, 0, 1], [1, 1, 0]], [1.0, 2.0, 3.0], (2, 2), requires_grad=True)
>>> (s.to_dense() * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
>>> s.grad                                      # on s's pattern: (0, 1) and (1, 0), each once
tensor(indices=tensor([[0, 1],
                       [1, 0]]),
       values=tensor([2., 3.]),
       size=(2, 2), nnz=2, layout=torch.sparse_coo)
"""
from __future__ import annotations

import numpy as np

from .. import types
from ..ops._util import Builtin, NoEdge, wrap, wrap_dim
from ..tensor import Tensor
from . import arrays
from .coo import CSR_AND_FRIENDS, SparseTensor, not_for_sparse


# ---------------------------------------------------------------------- gradients of sparse inputs
def read_at(x: Tensor, indices: np.ndarray) -> np.ndarray:
    """``x`` (dense or sparse) read at each coordinate of ``indices``: ``(n, *dense_shape)``."""
    if x.is_sparse:
        return arrays.lookup(x._index_array, x._value_array, tuple(x.shape), indices)
    return arrays.gather(x._data, indices)


class ValuesAt(Builtin):
    """f(x) = x read at each coordinate of ``indices``: ``(n, *dense_shape)`` (a sparse x gives its
    summed value there, 0 where it stores none). The step every masked gradient starts with.

    ∂L/∂x = the sparse tensor with grad[k] at indices[:, k] (repeats add up); dense for a dense x
    Saves nothing (the coordinates are an array). A minigrad node (PyTorch's backward does the
    same inside its C++ kernels).
    """

    @staticmethod
    def forward(ctx, x, indices, shape):
        ctx.indices, ctx.shape, ctx.sparse_input = indices, shape, x.is_sparse
        return wrap(read_at(x, indices))

    @staticmethod
    def backward(ctx, grad):
        scattered = SparseCooTensorWithDimsAndTensors.apply(grad, ctx.indices, ctx.shape, False)
        return (scattered if ctx.sparse_input else scattered.to_dense()), None, None


def masked_gradient(grad: Tensor, a: SparseTensor) -> SparseTensor:
    """``grad`` kept at the coordinates ``a`` stores (each once, sorted, so coalesced), dropped
    elsewhere: PyTorch's ``grad.sparse_mask(a)``, the masked gradient of a sparse input. Built from
    Functions, so that it can be differentiated again."""
    shape = tuple(a.shape)
    indices = arrays.unique_coordinates(a._index_array, shape)
    return SparseCooTensorWithDimsAndTensors.apply(ValuesAt.apply(grad, indices, shape), indices, shape, True)


def densified(a: SparseTensor) -> SparseTensor:
    """``a`` with every element stored (zeros included), coalesced: the input gradcheck perturbs
    element by element when it checks a sparse input's gradient everywhere (``masked=False``)."""
    shape = tuple(a.shape)
    indices = arrays.all_positions(shape, a.sparse_dim())
    values = arrays.gather(arrays.to_dense(a._index_array, a._value_array, shape), indices)
    return SparseTensor._from_arrays(indices, values, shape, coalesced=True).requires_grad_(a.requires_grad)


# ---------------------------------------------------------------------- building and converting
class SparseCooTensorWithDimsAndTensors(Builtin):
    """f(values) = the sparse tensor with values[k] at indices[:, k] (``sparse_coo_tensor``)

    ∂L/∂values[k] = grad[indices[:, k]]: the gradient (dense or sparse) read at each stored
    coordinate; a repeated coordinate gets the full gradient at each of its repeats
    Saves the result, whose index array backward reads. Only values is differentiable: indices is
    passed as an array, so the node has no next_functions entry for it.
    """

    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, values, indices, size, is_coalesced):
        # at most one entry: coalesced from the start, as in PyTorch
        result = SparseTensor._from_arrays(indices, values._data, size, is_coalesced or values.shape[0] < 2)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return ValuesAt.apply(grad, result._index_array, tuple(result.shape)), None, None, None


class ToDense(Builtin):
    """f(a) = the dense tensor of the sparse a (repeated coordinates add up)

    ∂L/∂a = grad on a's pattern (masked, sparse), or, with ``masked_grad=False``, grad as a sparse
    tensor with every nonzero of grad
    Saves a when masked (its coordinates make the pattern).
    """

    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, masked):
        ctx.masked, ctx.sparse_dim = masked, a.sparse_dim()
        ctx.save_for_backward(a if masked else None)
        return wrap(arrays.to_dense(a._index_array, a._value_array, tuple(a.shape)))

    @staticmethod
    def backward(ctx, grad):
        if ctx.masked:
            a, = ctx.saved_tensors
            return masked_gradient(grad, a), None
        return ToSparse.apply(grad.to_dense(), ctx.sparse_dim), None


def to_sparse_array(dense: np.ndarray, sparse_dim: int) -> SparseTensor:
    indices, values = arrays.from_dense(dense, sparse_dim)
    return SparseTensor._from_arrays(indices, values, dense.shape, coalesced=True)


class ToSparse(Builtin):
    """f(d) = the sparse (coalesced) form of the dense d with ``sparse_dim`` sparse dimensions

    ∂L/∂d = grad as a dense tensor
    Saves nothing. Node: ToSparseBackward0 (``to_sparse(sparse_dim)``); ToSparseBackward1 below.
    """

    @staticmethod
    def forward(ctx, d, sparse_dim):
        return to_sparse_array(d._data, sparse_dim)

    @staticmethod
    def backward(ctx, grad):
        return grad.to_dense(), None


class ToSparseAll(ToSparse):
    """f(d) = ``d.to_sparse()``: every dimension sparse (see ToSparse)

    ∂L/∂d = grad as a dense tensor. Node: ToSparseBackward1.
    """

    _node_name = "ToSparseBackward1"


def check_to_sparse_layout(layout, blocksize) -> None:
    if (layout is not None and layout is not types.sparse_coo) or blocksize is not None:
        raise NotImplementedError(f"minigrad: to_sparse(layout={layout}) is not implemented: {CSR_AND_FRIENDS}")


def to_sparse(d: Tensor, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None) -> SparseTensor:
    """``d.to_sparse()``: a coalesced sparse tensor holding the nonzero elements (or nonzero blocks of
    the last dimensions, with ``sparse_dim`` sparse dimensions) of a dense tensor."""
    check_to_sparse_layout(layout, blocksize)
    if sparse_dim is None:
        return ToSparseAll.apply(d, d.ndim)
    if not 0 <= sparse_dim <= d.ndim:
        raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{d.ndim}] range, but {sparse_dim} "
                           "is given")
    if sparse_dim == 0 and d.ndim:
        raise RuntimeError("dense_to_sparse: sparse_dim argument must be in >0 when self.dim()>0")
    return ToSparse.apply(d, int(sparse_dim))


class Coalesce(Builtin):
    """f(a) = a with its coordinates sorted and each kept once, the values of repeats summed

    ∂L/∂a = grad: the same tensor, so the derivative is 1
    Saves nothing.
    """

    @staticmethod
    def forward(ctx, a):
        indices, values = arrays.coalesce(a._index_array, a._value_array, tuple(a.shape))
        return SparseTensor._from_arrays(indices, values, a.shape, coalesced=True)

    @staticmethod
    def backward(ctx, grad):
        return grad


class Values(Builtin):
    """f(a) = the values of the coalesced a, ``(nnz, *dense_shape)``, sharing its memory

    ∂L/∂a = the sparse tensor with a's coordinates and grad as its values
    Saves a (its coordinates).
    """

    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return wrap(a._value_array)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return SparseCooTensorWithDimsAndTensors.apply(grad, a._index_array, tuple(a.shape), True)


class Clone(Builtin):
    """f(a) = a copy of the sparse a (indices, values and the coalesced flag)

    ∂L/∂a = grad
    Saves nothing.
    """

    @staticmethod
    def forward(ctx, a):
        return a._like(a._index_array.copy(), a._value_array.copy())

    @staticmethod
    def backward(ctx, grad):
        return grad


class ToCopy(Builtin):
    """f(a) = a with its values converted to ``dtype``

    ∂L/∂a = grad converted back to a's dtype
    Saves nothing (a's dtype).
    """

    @staticmethod
    def forward(ctx, a, dtype):
        ctx.dtype = a.dtype
        return a._like(values=a._value_array.astype(dtype.numpy))

    @staticmethod
    def backward(ctx, grad):
        return grad.to(ctx.dtype), None


def target_dtype(args: tuple, kwargs: dict):
    """The dtype that ``s.to(...)`` asks for (None if only a device, which must be the CPU)."""
    target = kwargs.get("dtype")
    for a in (*args, kwargs.get("device")):
        if isinstance(a, types.dtype):
            target = a
        elif isinstance(a, Tensor):
            target = a.dtype
        elif a is not None:
            types.check_device(a)
    return target


class SparseMask(Builtin):
    """f(x) = x read at each entry of the sparse ``mask``: a sparse tensor with mask's coordinates (as
    given, repeats included) and flag, and x's (summed) value there (``x.sparse_mask(mask)``)

    ∂L/∂x = grad.sparse_mask(mask): a coordinate the mask repeats k times holds k copies of x's
    value, so it gets k times the gradient (sparse; made dense for a dense x)
    Saves the mask (its coordinates), which gets no gradient (no next_functions entry).
    """

    _saved_names = ("mask",)

    @staticmethod
    def forward(ctx, x, box):
        mask = box.tensor
        ctx.dense_input = not x.is_sparse
        ctx.save_for_backward(mask)
        return mask._like(values=read_at(x, mask._index_array).astype(x.dtype.numpy, copy=False))

    @staticmethod
    def backward(ctx, grad):
        mask, = ctx.saved_tensors
        shape = tuple(mask.shape)
        grad = SparseCooTensorWithDimsAndTensors.apply(ValuesAt.apply(grad, mask._index_array, shape),
                                                       mask._index_array, shape, mask._coalesced)
        return (grad.to_dense() if ctx.dense_input else grad), None


def sparse_mask(x: Tensor, mask) -> SparseTensor:
    """``x.sparse_mask(mask)``: x (dense or sparse) kept where the sparse ``mask`` stores entries."""
    if not getattr(mask, "is_sparse", False):
        raise not_for_sparse("sparse_mask() with a dense mask")
    if x.shape != mask.shape:
        raise RuntimeError(f"sparse_mask(): operands have incompatible sizes; self has size {list(x.shape)} but mask "
                           f"has size {list(mask.shape)}")
    return SparseMask.apply(x, NoEdge(mask))


# ---------------------------------------------------------------------- transposing
class SparseTranspose(Builtin):
    """f(a) = a with sparse dimensions dim0 and dim1 swapped: two index rows exchanged

    ∂L/∂a = grad.transpose(dim0, dim1)
    Saves nothing. The result is not flagged coalesced (its coordinates are no longer sorted) unless
    it has no entries.
    """

    _node_name = "TransposeBackward0"

    @staticmethod
    def forward(ctx, a, dim0, dim1):
        ctx.dims = dim0, dim1
        if dim0 == dim1:   # t() of a vector or of a 0-dim tensor
            return a._like(a._index_array.copy(), a._value_array.copy())
        order = list(range(a.sparse_dim()))
        order[dim0], order[dim1] = dim1, dim0
        size = list(a.shape)
        size[dim0], size[dim1] = size[dim1], size[dim0]
        return a._like(np.ascontiguousarray(a._index_array[order]), a._value_array.copy(),
                       a._coalesced and not a._nnz(), tuple(size))

    @staticmethod
    def backward(ctx, grad):
        return (grad if ctx.dims[0] == ctx.dims[1] else grad.transpose(*ctx.dims)), None, None


class SparseT(SparseTranspose):
    """f(a) = a.t(): the transpose of a sparse matrix (see SparseTranspose)

    ∂L/∂a = grad.t(). Node: TBackward0.
    """

    _node_name = "TBackward0"


def transpose(a: SparseTensor, dim0: int, dim1: int) -> SparseTensor:
    dim0, dim1 = wrap_dim(dim0, a.ndim), wrap_dim(dim1, a.ndim)
    if max(dim0, dim1) >= a.sparse_dim():
        raise RuntimeError(f"sparse transpose: transposed dimensions must be sparse Got sparse_dim: {a.sparse_dim()}, "
                           f"d0: {dim0}, d1: {dim1}")
    return SparseTranspose.apply(a, dim0, dim1)
