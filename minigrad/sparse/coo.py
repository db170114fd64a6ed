"""Sparse COO tensors: ``sparse_coo_tensor(indices, values, size)`` and what it returns.

A COO ("coordinate") tensor stores only its nonzero entries: an index matrix of shape
``(sparse_dim, nnz)`` whose column k is the position of entry k, and the ``nnz`` values. As in
PyTorch:

- **Nothing is sorted or merged on construction.** ``_indices()`` returns the coordinates in the
  order and number given; a coordinate may repeat, and repeated entries *add up* in every
  operation (``to_dense``, ``@``). ``coalesce()`` sorts them and sums the repeats.
- **Values may be blocks.** With ``values`` of shape ``(nnz, 2)`` each entry is a row of 2 numbers:
  the tensor is *hybrid*, with ``sparse_dim()`` sparse dimensions followed by ``dense_dim()`` dense
  ones. A 0-dim sparse tensor has no sparse dimension; its value is the sum of its entries.
- A sparse tensor built from ``values`` that require grad is part of the graph
  (``grad_fn=<SparseCooTensorWithDimsAndTensorsBackward0>``); one made with ``requires_grad=True``
  is a leaf whose ``.grad`` is sparse or dense, as each operation's backward makes it.

>>> import minigrad as torch
>>> a = torch.sparse_coo_tensor([[0, 0, 1], [1, 1, 0]], [1.0, 2.0, 3.0], (2, 2))
>>> a._indices()             # as given: the repeated (0, 1) stays twice
tensor([[0, 0, 1],
        [1, 1, 0]])
>>> a.to_dense()             # ...and adds up
tensor([[0., 3.],
        [3., 0.]])
>>> a.coalesce()._nnz(), a.is_sparse, a.shape
(2, True, torch.Size([2, 2]))
>>> h = torch.sparse_coo_tensor([[0, 2]], [[1.0, 2.0], [3.0, 4.0]])   # hybrid: one sparse, one dense dim
>>> h.shape, h.sparse_dim(), h.dense_dim()
(torch.Size([3, 2]), 1, 1)

Operations are in ``functions.py`` (building, converting, transposing), ``arithmetic.py`` (sums,
products with numbers and tensors, sums over dimensions, norm) and ``products.py`` (matrix
products). Any other Tensor method raises a NotImplementedError that names it (``_refuse_the_rest``
at the end of this file), instead of computing something wrong.
"""
from __future__ import annotations

import inspect
import os
import sys

import numpy as np

from .. import types
from ..tensor import Tensor, VersionCounter, _operand, refuse_writes
from ..types import check_device, sparse_coo
from . import arrays
from .printing import sparse_repr

CSR_AND_FRIENDS = ("minigrad implements one sparse layout, COO (torch.sparse_coo); the compressed layouts "
                   "(CSR, CSC, BSR, BSC) are outside its scope")


def not_for_sparse(name: str) -> NotImplementedError:
    return NotImplementedError(f"minigrad: {name} is not implemented for sparse COO tensors; call .to_dense() "
                               "first (see minigrad/sparse/__init__.py for what sparse tensors support)")


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _called_operation() -> str:
    """The name of the minigrad function the user called, found on the call stack: the outermost
    frame inside the package (``torch.cat`` gives "cat()"), for ShapeOnly's refusals."""
    frame, name = sys._getframe(2), "this operation"
    while frame is not None:
        code = frame.f_code
        if code.co_filename.startswith(_PACKAGE) and code.co_name not in ("function", "<lambda>", "<genexpr>"):
            name = f"{code.co_name}()"
        frame = frame.f_back
    return name


class ShapeOnly:
    """What a SparseTensor holds where a dense tensor holds its numpy array: shape and dtype only.

    minigrad's autograd reads ``tensor._data.shape`` and ``tensor._data.dtype`` of every tensor it
    meets, so those work (with ``ndim``, ``size``, ``itemsize``, ``nbytes``). Anything else, such as
    using it as an array in dense arithmetic, raises a NotImplementedError that says what to do,
    instead of silently computing on the wrong data.
    """

    __slots__ = ("shape", "dtype", "nbytes")

    def __init__(self, shape: tuple, dtype: np.dtype, nbytes: int) -> None:
        self.shape, self.dtype, self.nbytes = shape, dtype, nbytes

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)   # let Python's and numpy's protocol look-ups fail normally
        raise not_for_sparse(_called_operation())

    def _refuse(self, *args, **kwargs):
        raise not_for_sparse(_called_operation())

    __array__ = __getitem__ = __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __bool__ = __len__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = __neg__ = _refuse
    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"<no dense data: sparse {list(self.shape)} {self.dtype}>"


class SparseTensor(Tensor):
    """A sparse tensor in COO form (``layout=torch.sparse_coo``). Make one with ``sparse_coo_tensor``.

    It stores ``_index_array`` (int64, ``(sparse_dim, nnz)``), ``_value_array`` (``(nnz, *dense
    shape)``) and ``_coalesced``; its ``_data`` is a ``ShapeOnly`` stand-in, so the Tensor methods
    that only read the shape and dtype (``shape``, ``dtype``, ``dim()``, ``numel()``,
    ``requires_grad``...) work unchanged.
    """

    _is_sparse, _layout = True, sparse_coo   # what the read-only properties is_sparse and layout read

    @classmethod
    def _from_arrays(cls, indices: np.ndarray, values: np.ndarray, size: tuple,
                     coalesced: bool = False) -> "SparseTensor":
        """Wrap already checked arrays without copying them (internal constructor)."""
        t = object.__new__(cls)
        t._index_array = indices
        t._value_array = values
        t._coalesced = bool(coalesced)
        t._data = ShapeOnly(tuple(int(n) for n in size), values.dtype, indices.nbytes + values.nbytes)
        t._version_counter = VersionCounter()
        return t

    def _like(self, indices: np.ndarray | None = None, values: np.ndarray | None = None,
              coalesced: bool | None = None, size: tuple | None = None) -> "SparseTensor":
        """A new sparse tensor with this one's parts, except those given."""
        return SparseTensor._from_arrays(self._index_array if indices is None else indices,
                                         self._value_array if values is None else values,
                                         self._data.shape if size is None else size,
                                         self._coalesced if coalesced is None else coalesced)

    def _alias(self, grad_fn=None, output_nr: int = 0) -> "SparseTensor":
        """A new object over the same arrays and version counter (used for saved outputs)."""
        t = self._like()
        t._version_counter = self._version_counter
        if grad_fn is not None:
            t.grad_fn = grad_fn
            t._output_nr = output_nr
        return t

    def sparse_dim(self) -> int:
        return self._index_array.shape[0]

    def dense_dim(self) -> int:
        return self._value_array.ndim - 1

    _dimI, _dimV = sparse_dim, dense_dim

    def _nnz(self) -> int:
        """The number of stored entries, repeated coordinates included."""
        return self._value_array.shape[0]

    def ndimension(self) -> int:
        return self._data.ndim

    def detach(self) -> "SparseTensor":
        """The same entries, cut off from the graph."""
        return self._alias()

    @property
    def data(self) -> "SparseTensor":
        return self._like()

    @data.setter
    def data(self, value: "SparseTensor") -> None:
        Tensor.data.fset(self, value)   # a tensor of the same layout, as PyTorch checks
        self._index_array, self._value_array, self._coalesced = value._index_array, value._value_array, value._coalesced

    data = data.deleter(Tensor.data.fdel)   # PyTorch's refusal, as for a dense tensor

    def numpy(self, *, force: bool = False):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")

    def __array__(self, dtype=None, copy=None):
        return self.numpy()

    def __repr__(self) -> str:
        return sparse_repr(self._index_array, self._value_array, self._data.shape, self.grad_fn, self._requires_grad)

    def __reduce_ex__(self, protocol):
        # pickle stores the two parts, the size and the coalesced flag (never the graph).
        return _rebuild, (self._indices(), self._values(), tuple(self.shape), self._coalesced, self.requires_grad)

    # ------------------------------------------------------------------ the COO parts
    def _indices(self) -> Tensor:
        """The ``(sparse_dim, nnz)`` int64 coordinates, in the order given (a tensor sharing memory)."""
        return self._shared(self._index_array)

    def _values(self) -> Tensor:
        """The values, in the order given (sharing memory). Not differentiable, as in PyTorch."""
        return self._shared(self._value_array)

    def indices(self) -> Tensor:
        """Like ``_indices()``, but only for a coalesced tensor (PyTorch's rule)."""
        if not self._coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return self._indices()

    def values(self) -> Tensor:
        """Like ``_values()``, but only for a coalesced tensor, and differentiable (``ValuesBackward0``)."""
        if not self._coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        return _functions.Values.apply(self) if self.requires_grad else self._values()

    def _detached_copy(self) -> "SparseTensor":
        return self._like(self._index_array.copy(), self._value_array.copy())

    def _shared(self, array: np.ndarray) -> Tensor:
        t = Tensor._make(array)
        t._version_counter = self._version_counter
        return t

    def is_coalesced(self) -> bool:
        """True after ``coalesce()`` (PyTorch keeps a flag; it does not look at the indices)."""
        return self._coalesced

    def _coalesced_(self, coalesced: bool) -> "SparseTensor":
        """Set the flag without looking at the indices (PyTorch's unchecked setter)."""
        self._coalesced = bool(coalesced)
        return self

    def coalesce(self) -> "SparseTensor":
        """Sorted coordinates, each once, with the values of repeated coordinates summed."""
        return self if self._coalesced else _functions.Coalesce.apply(self)

    def to_dense(self, dtype=None, *, masked_grad: bool | None = None) -> Tensor:
        """The dense tensor this sparse tensor stands for (repeated coordinates add up). Its
        gradient, the gradient of this tensor, is sparse: on this tensor's pattern only, or, with
        ``masked_grad=False``, wherever the incoming gradient is not zero."""
        out = _functions.ToDense.apply(self, masked_grad is not False)
        return out if dtype is None else out.to(dtype)

    def to_sparse(self, *args, layout=None, blocksize=None, dense_dim=None) -> "SparseTensor":
        _functions.check_to_sparse_layout(layout, blocksize)
        if args and args[0] != self.sparse_dim():
            raise RuntimeError("to_sparse: conversion from Sparse to Sparse with sparse_dim argument "
                               "!=self.sparse_dim() is not supported")
        return self

    def to_sparse_coo(self) -> "SparseTensor":
        return self

    def sparse_mask(self, mask: "SparseTensor") -> "SparseTensor":
        """This tensor kept where ``mask`` stores entries (``SparseMaskBackward0``)."""
        return _functions.sparse_mask(self, mask)

    def clone(self, *, memory_format=None) -> "SparseTensor":
        """A copy of the two parts; the coalesced flag is kept (``CloneBackward0``)."""
        return _functions.Clone.apply(self)

    def to(self, *args, **kwargs) -> "SparseTensor":
        """Another dtype (``ToCopyBackward0``); the device can only be the CPU."""
        dtype = _functions.target_dtype(args, kwargs)
        if dtype is None or dtype is self.dtype:
            return self
        return _functions.ToCopy.apply(self, dtype)

    def type(self, dtype=None, non_blocking: bool = False):
        if dtype is None:
            return "torch.sparse." + self.dtype.legacy_name
        return self.to(dtype)

    def double(self): return self.to(types.float64)
    def float(self): return self.to(types.float32)   # noqa: A003
    def long(self): return self.to(types.int64)
    def int(self): return self.to(types.int32)   # noqa: A003
    def bool(self): return self.to(types.bool_)   # noqa: A003

    def new(self, *args, device=None, **kwargs) -> "SparseTensor":
        """PyTorch's legacy constructor of this type: ``s.new(indices, values[, size])`` (the values keep
        their dtype), ``s.new(size)`` and ``s.new()`` (empty, of this tensor's dtype)."""
        check_device(device)
        if args and isinstance(args[0], Tensor):
            if len(args) < 2 or not isinstance(args[1], Tensor) or args[0].is_sparse:
                got = ", ".join(type(a).__name__ for a in args)
                raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one "
                                "of:\n * (*, torch.device device = None)\n * (Tensor indices, Tensor values, *, "
                                "torch.device device = None)\n * (Tensor indices, Tensor values, tuple of ints size, "
                                "*, torch.device device = None)\n * (tuple of ints size, *, torch.device device = None)\n")
            return sparse_coo_tensor(args[0], args[1], tuple(args[2]) if len(args) > 2 else None)
        if len(args) == 1 and isinstance(args[0], list):
            raise TypeError("SparseTensor.new(sequence) only accepts sizes.  Please use torch.sparse_coo_tensor() or "
                            "construct a strided tensor and convert it to sparse via to_sparse.")
        size = tuple(args[0]) if len(args) == 1 and isinstance(args[0], tuple) else args
        if not all(isinstance(n, (int, np.integer)) for n in size):
            raise TypeError(f"new(): invalid data type '{type(size[0]).__name__}'")
        return sparse_coo_tensor(size or (0,), dtype=self.dtype)

    # ------------------------------------------------------------------ shape
    def t(self) -> "SparseTensor":
        """The transpose: the two index rows swapped, repeats kept (``nnz`` unchanged)."""
        if self.sparse_dim() > 2 or self.dense_dim():
            raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got "
                               f"{self.sparse_dim()} sparse and {self.dense_dim()} dense dimensions")
        return _functions.SparseT.apply(self, 0, min(1, self.ndim - 1) if self.ndim else 0)

    @property
    def T(self) -> "SparseTensor":
        return self.t()

    def transpose(self, dim0: int, dim1: int) -> "SparseTensor":
        """Two dimensions swapped: two sparse ones (index rows), or two dense ones (value axes)."""
        return _functions.transpose(self, dim0, dim1)

    def t_(self) -> "SparseTensor":
        return self._in_place(self.t())

    def transpose_(self, dim0: int, dim1: int) -> "SparseTensor":
        return self._in_place(self.transpose(dim0, dim1))

    # ------------------------------------------------------------------ arithmetic
    def __add__(self, other) -> "SparseTensor":
        return _arithmetic.add(self, other)

    def __radd__(self, other, alpha=1) -> Tensor:
        # ``dense + sparse`` is dense, as in PyTorch (Python calls this first, as for __rmatmul__
        # below; so does Tensor.add, which passes its alpha). ``1 + s`` is ``s + 1`` for PyTorch: refused.
        if not isinstance(other, Tensor):
            return _arithmetic.add(self, other)
        return _arithmetic.add(other, self, alpha)

    def add(self, other, *, alpha=1) -> "SparseTensor":
        return _arithmetic.add(self, other, alpha)

    def __sub__(self, other) -> "SparseTensor":
        return _arithmetic.add(self, other, -1, subtract=True)

    def __rsub__(self, other, alpha=1) -> Tensor:
        return _arithmetic.add(_operand(other), self, -alpha, subtract=True)

    def sub(self, other, *, alpha=1) -> "SparseTensor":
        return _arithmetic.add(self, other, -alpha, subtract=True)

    def __mul__(self, other) -> "SparseTensor":
        return _arithmetic.mul(self, other)

    def __rmul__(self, other) -> "SparseTensor":
        return _arithmetic.mul(self, other)

    def mul(self, other) -> "SparseTensor":
        return _arithmetic.mul(self, other)

    def __truediv__(self, other) -> "SparseTensor":
        return _arithmetic.div(self, other)

    def __rtruediv__(self, other):
        raise not_for_sparse("division by a sparse tensor")

    def div(self, other, *, rounding_mode=None) -> "SparseTensor":
        return _arithmetic.div(self, other, rounding_mode)

    def __floordiv__(self, other) -> "SparseTensor":
        return _arithmetic.div(self, other, "floor", floor_division=True)

    def __neg__(self) -> "SparseTensor":
        return _arithmetic.Neg.apply(self)

    def neg(self) -> "SparseTensor":
        return _arithmetic.Neg.apply(self)

    negative = neg

    def __pow__(self, exponent) -> "SparseTensor":
        return _arithmetic.power(self, exponent)

    pow = __pow__

    def __setitem__(self, key, value):
        raise TypeError("Cannot assign to a sparse tensor")

    def abs(self): return _pointwise.Abs.apply(self)
    def sign(self): return _pointwise.Sign.apply(self)
    def sin(self): return _pointwise.Sin.apply(self)
    def sqrt(self): return _pointwise.Sqrt.apply(self)
    def tanh(self): return _pointwise.Tanh.apply(self)
    def relu(self): return _pointwise.Relu.apply(self)
    def isnan(self): return _pointwise.test(self, np.isnan)
    def isinf(self): return _pointwise.test(self, np.isinf)

    def any(self, dim=None, keepdim: bool = False) -> Tensor:
        """True if any stored value is nonzero (the elements not stored are zeros)."""
        if dim is not None:
            raise not_for_sparse("any(dim)")
        return Tensor._make(np.asarray(bool(self._value_array.any())))

    def mul_(self, other) -> "SparseTensor":
        result = self * other
        if result.dtype is not self.dtype:
            raise RuntimeError(f"dtype of values ({result.dtype.legacy_name[:-6]}) must match dtype of sparse tensor "
                               f"({self.dtype.legacy_name[:-6]})")
        return self._in_place(result)

    def div_(self, other, *, rounding_mode=None) -> "SparseTensor":
        return self._in_place(self.div(other, rounding_mode=rounding_mode))

    def add_(self, other, *, alpha=1) -> "SparseTensor":
        return self._in_place(self.add(other, alpha=alpha))

    def sub_(self, other, *, alpha=1) -> "SparseTensor":
        return self._in_place(self.sub(other, alpha=alpha))

    def neg_(self) -> "SparseTensor":
        return self._in_place(-self)

    def zero_(self) -> "SparseTensor":
        """No entries left (the shape stays)."""
        values = np.zeros((0,) + self._value_array.shape[1:], self.dtype.numpy)
        return self._in_place(self._like(np.zeros((self.sparse_dim(), 0), np.int64), values, coalesced=True))

    __iadd__, __isub__, __imul__, __itruediv__ = add_, sub_, mul_, div_

    def _in_place(self, result: "SparseTensor") -> "SparseTensor":
        """Make this tensor hold ``result``'s parts (and shape): minigrad's in-place sparse operations
        are the out-of-place ones written back, for tensors that no gradient flows through."""
        if self.is_leaf and self.requires_grad:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        if self.requires_grad or result.requires_grad:
            raise NotImplementedError("minigrad: in-place operations on a sparse tensor that requires grad are not "
                                      "implemented; use the out-of-place operation (s = s * 2, not s.mul_(2))")
        if result.dtype is not self.dtype:
            raise RuntimeError(f"result type {result.dtype.legacy_name[:-6]} can't be cast to the desired output "
                               f"type {self.dtype.legacy_name[:-6]}")
        self._index_array, self._value_array = result._index_array, result._value_array
        self._coalesced, self._data = result._coalesced, result._data
        self._version_counter.value += 1
        return self

    # ------------------------------------------------------------------ reductions
    def sum(self, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
        """All entries summed (dense; its gradient is dense too, as PyTorch's ``Tensor.sum``), or the
        sum over ``dim`` as ``torch.sparse.sum`` computes it."""
        return _arithmetic.tensor_sum(self, dim, keepdim, dtype)

    def norm(self, p="fro", dim=None, keepdim: bool = False, dtype=None) -> Tensor:
        return _arithmetic.norm(self, p, dim, keepdim, dtype)

    def is_nonzero(self) -> bool:
        return _arithmetic.is_nonzero(self)

    __bool__ = is_nonzero

    def item(self):
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        return self.to_dense().item()

    # ------------------------------------------------------------------ products
    def matmul(self, other) -> Tensor:
        """``sparse @ dense`` (dense) or ``sparse @ sparse`` (sparse); repeated coordinates add up."""
        return _products.sparse_matmul(self, other)

    def mm(self, other) -> Tensor:
        return _products.sparse_matmul(self, other, matrix_only=True)

    def mv(self, vec) -> Tensor:
        return _products.mv(self, vec)

    def __matmul__(self, other) -> Tensor:
        return self.matmul(other)

    def __rmatmul__(self, other) -> Tensor:
        # ``dense @ sparse``: Python calls this before Tensor.__matmul__ because SparseTensor is a
        # subclass of Tensor that overrides the reflected method.
        return _products.dense_sparse_matmul(other, self)

    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        raise RuntimeError("expand is unsupported for Sparse tensors")


def zeros_like(t: SparseTensor, dtype=None, device=None, requires_grad: bool = False) -> SparseTensor:
    """``torch.zeros_like(s)``: no entries, with ``s``'s shape and its sparse and dense dimensions."""
    check_device(device)
    values = np.zeros((0,) + t._value_array.shape[1:], (dtype or t.dtype).numpy)
    result = SparseTensor._from_arrays(np.zeros((t.sparse_dim(), 0), np.int64), values, t.shape, coalesced=True)
    return result.requires_grad_() if requires_grad else result


def _rebuild(indices: Tensor, values: Tensor, size: tuple, coalesced: bool, requires_grad: bool) -> SparseTensor:
    """Called by pickle to make a sparse tensor back from its parts."""
    t = SparseTensor._from_arrays(indices._data, values._data, size, coalesced)
    return t.requires_grad_() if requires_grad else t


# ---------------------------------------------------------------------- checking the arguments
def index_array(indices) -> np.ndarray:
    """``indices`` (tensor, numpy array or nested list) as an int64 numpy array, shared if possible.

    Like PyTorch, integer, bool and float indices are cast to int64; unlike PyTorch, which would
    truncate 0.5 to 0, minigrad refuses indices that are not whole numbers.
    """
    array = indices._data if isinstance(indices, Tensor) else np.asarray(indices)
    if array.dtype == np.int64:
        return array
    if array.dtype.kind in "iub":
        return array.astype(np.int64)
    if array.dtype.kind == "f":
        bad = array[~(np.isfinite(array) & (array == np.floor(array)))]
        if bad.size:
            raise RuntimeError(f"indices must be whole numbers, but got {bad.flat[0]}; use an int64 tensor "
                               "(PyTorch would silently cast it to int64, turning 0.5 into 0)")
        return array.astype(np.int64)
    raise TypeError(f"indices must be an integer tensor, but got an array of dtype {array.dtype}")


def check_coo(indices: np.ndarray, values_shape: tuple, size) -> tuple:
    """Check ``indices`` against the values and the size as PyTorch does; return the size.

    ``size=None`` infers it: one more than the largest index in each sparse dimension (0 when there
    are no entries), then the values' dense dimensions.
    """
    if indices.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(indices.shape)}")
    sparse_dim, nnz = indices.shape
    dense_dim = len(values_shape) - 1
    if size is None:
        _check_negative(indices)
        size = tuple(int(n) + 1 for n in indices.max(axis=1)) if nnz else (0,) * sparse_dim
        size += tuple(values_shape[1:])
    size = tuple(int(n) for n in size)
    if len(size) != sparse_dim + dense_dim:
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(size)}, "
                           f"sparse_dim = {sparse_dim}, dense_dim = {dense_dim}")
    if nnz != values_shape[0]:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {nnz}, "
                           f"nnz from values: {values_shape[0]}")
    if tuple(values_shape[1:]) != size[sparse_dim:]:
        raise RuntimeError(f"values has incorrect size, expected {[nnz, *size[sparse_dim:]]}, got "
                           f"{list(values_shape)}")
    _check_numel(size)
    if nnz:
        _check_bounds(indices, size)
    return size


def _check_numel(size: tuple) -> None:
    numel = 1
    for n in size:
        numel *= n
        if n < 0 or numel >= 2 ** 63:
            raise RuntimeError("numel: integer multiplication overflow")


def _check_negative(indices: np.ndarray) -> None:
    if indices.shape[1]:
        lowest = indices.min(axis=1)
        for dim, low in enumerate(lowest):
            if low < 0:
                raise RuntimeError(f"found negative index {low} for dim {dim}")


def _check_bounds(indices: np.ndarray, size: tuple) -> None:
    """PyTorch checks this only with ``check_invariants=True``; minigrad always does (it is cheap)."""
    if not indices.shape[0]:
        return
    lowest, highest = indices.min(axis=1), indices.max(axis=1)
    for dim, (low, high) in enumerate(zip(lowest, highest)):
        if low < 0:
            raise RuntimeError(f"found negative index {low} for dim {dim}")
        if high >= size[dim]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {dim}, size is {size[dim]} but "
                               f"found index {high}")


def _is_size(obj) -> bool:
    return isinstance(obj, (tuple, list)) and all(isinstance(n, (int, np.integer)) for n in obj)


# ---------------------------------------------------------------------- the factory
def sparse_coo_tensor(indices=None, values=None, size=None, *, dtype=None, device=None, pin_memory: bool = False,
                      requires_grad: bool = False, check_invariants: bool | None = None,
                      is_coalesced: bool | None = None) -> SparseTensor:
    """A sparse COO tensor with ``values[k]`` at position ``indices[:, k]`` (``torch.sparse_coo_tensor``).

    ``indices`` is ``(sparse_dim, nnz)``; ``values`` is ``(nnz,)``, or ``(nnz, *dense_shape)`` for a
    hybrid tensor. The indices are kept as given, repeats included (nothing is sorted or merged).
    ``size`` defaults to one more than the largest index in each dimension.
    ``sparse_coo_tensor(size)`` is an empty tensor of that size. The indices are always checked
    against ``size`` (PyTorch checks them only with ``check_invariants=True``; ``pin_memory`` is
    accepted and ignored). If ``values`` requires grad, so does the result, and gradients flow back
    to ``values``.

    >>> import minigrad as torch
    >>> v = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> a = torch.sparse_coo_tensor([[0, 1], [1, 0]], v, (2, 2))
    >>> a.grad_fn.name(), a.requires_grad, a.is_leaf
    ('SparseCooTensorWithDimsAndTensorsBackward0', True, False)
    >>> torch.sparse_coo_tensor((2, 3))._nnz()
    0
    """
    from ..factories import tensor as dense_tensor
    check_device(device)
    if values is None and size is None and _is_size(indices if indices is not None else ()):
        indices, size = None, indices
    if indices is None:   # sparse_coo_tensor(size): no entries
        if size is None:
            raise TypeError("sparse_coo_tensor() missing required argument 'indices' (pos 1)")
        size = tuple(int(n) for n in size)
        index, values = np.zeros((len(size), 0), np.int64), dense_tensor(np.zeros(0, (dtype or types.float32).numpy))
        dtype = None
    else:
        index = index_array(indices)
        if values is None:
            raise RuntimeError("Could not infer dtype of NoneType")
        if not isinstance(values, Tensor):
            values = dense_tensor(values)
    if dtype is not None:
        values = values.to(dtype)
    if values.ndim == 0:
        values = values.reshape(1)
    size = check_coo(index, tuple(values.shape), size)
    coalesced = bool(is_coalesced)
    if coalesced and check_invariants and not arrays.is_coalesced(index, size):
        raise RuntimeError("cannot set is_coalesced to true if indices correspond to uncoalesced COO tensor")
    result = _functions.SparseCooTensorWithDimsAndTensors.apply(values, index, size, coalesced)
    if requires_grad and not result.requires_grad:
        if result.dtype.numpy.kind not in "fc":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        result._requires_grad = True
    return result


from . import arithmetic as _arithmetic, functions as _functions, pointwise as _pointwise  # noqa: E402,I001
from . import products as _products  # noqa: E402


# ---------------------------------------------------------------------- everything else says so
_INHERITED = {
    # read the shape, dtype or autograd state only, or are autograd's own: they work as they are
    "backward", "register_hook", "retain_grad", "requires_grad_", "size", "dim", "numel", "nelement",
    "element_size", "is_floating_point", "is_complex", "detach_", "cpu", "cuda", "is_inference", "type_as",
    "register_post_accumulate_grad_hook", "is_leaf", "output_nr", "retains_grad",
    # dense-only conversions that PyTorch also answers for a sparse tensor
    "is_coalesced",
}


def _refusal(what: str):
    def refused(self, *args, **kwargs):
        raise not_for_sparse(what)
    refused.__doc__ = f"Not implemented for sparse tensors: raises NotImplementedError naming ``{what}``."
    return refused


def _refuse_the_rest() -> None:
    """Every public method of Tensor that SparseTensor neither defines nor inherits knowingly
    (``_INHERITED``) raises a NotImplementedError naming itself: ``s.exp()`` says "exp()", never a
    numpy error from the stand-in ``ShapeOnly``. Found from ``dir(Tensor)``, so that a method added
    to Tensor later is covered too."""
    for name in dir(Tensor):
        if name.startswith("_") or name in _INHERITED or name in SparseTensor.__dict__:
            continue
        if inspect.isfunction(inspect.getattr_static(Tensor, name)):
            setattr(SparseTensor, name, _refusal(f"{name}()"))
    for name, label in _OPERATORS.items():
        if hasattr(Tensor, name) and name not in SparseTensor.__dict__:
            setattr(SparseTensor, name, _refusal(label))


_OPERATORS = {"__getitem__": "indexing (s[...])", "__rpow__": "x ** s", "__mod__": "s % x", "__rmod__": "x % s",
              "__rfloordiv__": "x // s", "__iter__": "iterating over s", "__float__": "float(s)", "__int__": "int(s)",
              "__index__": "s as an index", "__and__": "s & x", "__or__": "s | x", "__invert__": "~s",
              "__abs__": "abs(s)", **{f"__{op}__": f"comparison (s {sign} ...)" for op, sign in (
                  ("eq", "=="), ("ne", "!="), ("lt", "<"), ("le", "<="), ("gt", ">"), ("ge", ">="))}}


_refuse_the_rest()
SparseTensor.__hash__ = Tensor.__hash__
refuse_writes(SparseTensor)   # its own read-only properties (T) refuse as Tensor's do

__all__ = ["SparseTensor", "sparse_coo_tensor", "CSR_AND_FRIENDS"]
