"""Sparse COO tensors: ``sparse_coo_tensor(indices, values, size)`` and what it returns.

A COO ("coordinate") tensor stores only its nonzero entries: an index matrix of shape
``(ndim, nnz)`` whose column k is the position of entry k, and the ``nnz`` values. As in PyTorch:

- **Nothing is sorted or merged on construction.** ``_indices()`` returns the coordinates in the
  order and number given; a coordinate may repeat, and repeated entries *add up* in every
  operation (``to_dense``, ``@``). ``coalesce()`` sorts them and sums the repeats.
- A sparse tensor built from ``values`` that require grad is part of the graph
  (``grad_fn=<SparseCooTensorWithDimsAndTensorsBackward0>``), and ``sparse @ dense`` is
  differentiable with respect to those values.

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

Only what the course needs is implemented (see ``SUPPORTED``); anything else raises a
NotImplementedError that says so, instead of computing something wrong.
"""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor, VersionCounter
from ..types import check_device, sparse_coo
from .printing import sparse_repr

SUPPORTED = ("_indices(), _values(), _nnz(), indices(), values(), coalesce(), is_coalesced(), t(), to_dense(), "
             "detach(), and matmul / mm / @ with a dense tensor")
UNSUPPORTED = ("minigrad: this operation is not implemented for sparse tensors. A sparse tensor supports "
               f"{SUPPORTED}; call .to_dense() first for anything else.")


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
        raise NotImplementedError(UNSUPPORTED)

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(UNSUPPORTED)

    def __getitem__(self, key):
        raise NotImplementedError(UNSUPPORTED)

    def __repr__(self) -> str:
        return f"<no dense data: sparse {list(self.shape)} {self.dtype}>"


class SparseTensor(Tensor):
    """A sparse tensor in COO form (``layout=torch.sparse_coo``). Make one with ``sparse_coo_tensor``.

    It stores ``_index_array`` (int64, ``(ndim, nnz)``), ``_value_array`` (``(nnz,)``) and
    ``_coalesced``; its ``_data`` is a ``ShapeOnly`` stand-in, so the Tensor methods that only read
    the shape and dtype (``shape``, ``dtype``, ``dim()``, ``numel()``, ``requires_grad``...) work
    unchanged, and the ones that need dense values raise.
    """

    is_sparse = True
    layout = sparse_coo

    @classmethod
    def _from_arrays(cls, indices: np.ndarray, values: np.ndarray, size: tuple,
                     coalesced: bool = False) -> "SparseTensor":
        """Wrap already checked arrays without copying them (internal constructor)."""
        t = object.__new__(cls)
        t._index_array = indices
        t._value_array = values
        t._coalesced = coalesced
        t._data = ShapeOnly(tuple(int(n) for n in size), values.dtype, indices.nbytes + values.nbytes)
        t._version_counter = VersionCounter()
        return t

    def _alias(self, grad_fn=None, output_nr: int = 0) -> "SparseTensor":
        """A new object over the same arrays and version counter (used for saved outputs)."""
        t = SparseTensor._from_arrays(self._index_array, self._value_array, self._data.shape, self._coalesced)
        t._version_counter = self._version_counter
        if grad_fn is not None:
            t.grad_fn = grad_fn
            t._output_nr = output_nr
        return t

    def sparse_dim(self) -> int:
        return self._data.ndim

    def dense_dim(self) -> int:
        return 0

    def _nnz(self) -> int:
        """The number of stored entries, repeated coordinates included."""
        return self._value_array.shape[0]

    def detach(self) -> "SparseTensor":
        """The same entries, cut off from the graph."""
        return self._alias()

    @property
    def data(self) -> "SparseTensor":
        return SparseTensor._from_arrays(self._index_array, self._value_array, self._data.shape, self._coalesced)

    @data.setter
    def data(self, value: "SparseTensor") -> None:
        Tensor.data.fset(self, value)   # a tensor of the same layout, as PyTorch checks
        self._index_array, self._value_array, self._coalesced = value._index_array, value._value_array, value._coalesced

    def numpy(self):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")

    def __array__(self, dtype=None, copy=None):
        return self.numpy()

    def __repr__(self) -> str:
        return sparse_repr(self._index_array, self._value_array, self._data.shape, self.grad_fn, self._requires_grad)

    # ------------------------------------------------------------------ the COO parts
    def _indices(self) -> Tensor:
        """The ``(ndim, nnz)`` int64 coordinates, in the order given (a tensor sharing memory)."""
        return self._shared(self._index_array)

    def _values(self) -> Tensor:
        """The ``nnz`` values, in the order given. Not differentiable, as in PyTorch."""
        return self._shared(self._value_array)

    def indices(self) -> Tensor:
        """Like ``_indices()``, but only for a coalesced tensor (PyTorch's rule)."""
        if not self._coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return self._indices()

    def values(self) -> Tensor:
        if not self._coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        return self._values()

    def _shared(self, array: np.ndarray) -> Tensor:
        t = Tensor._make(array)
        t._version_counter = self._version_counter
        return t

    def is_coalesced(self) -> bool:
        """True after ``coalesce()`` (PyTorch keeps a flag; it does not look at the indices)."""
        return self._coalesced

    def coalesce(self) -> "SparseTensor":
        """Sorted coordinates, each once, with the values of repeated coordinates summed."""
        return self if self._coalesced else _functions.Coalesce.apply(self)

    def to_dense(self) -> Tensor:
        """The dense tensor this sparse tensor stands for (repeated coordinates add up)."""
        return _functions.ToDense.apply(self)

    # ------------------------------------------------------------------ transpose and products
    def t(self) -> "SparseTensor":
        """The transpose: the two index rows swapped, repeats kept (``nnz`` unchanged)."""
        if self.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got "
                               f"{self.ndim} sparse and 0 dense dimensions")
        return _functions.SparseT.apply(self)

    @property
    def T(self) -> "SparseTensor":
        return self.t()

    def transpose(self, dim0: int, dim1: int) -> "SparseTensor":
        if self.ndim != 2 or {dim0 % 2, dim1 % 2} != {0, 1}:
            raise NotImplementedError(UNSUPPORTED)
        return self.t()

    def matmul(self, other) -> Tensor:
        """``sparse @ dense``: a dense result; repeated coordinates add up."""
        return _functions.sparse_matmul(self, other)

    def mm(self, other) -> Tensor:
        return _functions.sparse_matmul(self, other, matrix_only=True)

    def __matmul__(self, other) -> Tensor:
        return self.matmul(other)

    def __add__(self, other) -> Tensor:
        if isinstance(other, SparseTensor):
            raise NotImplementedError(UNSUPPORTED)
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")

    def __radd__(self, other) -> Tensor:
        # ``dense + sparse`` is dense, as in PyTorch (Python calls this first, as for __rmatmul__ below)
        if isinstance(other, Tensor):
            return _functions.AddDenseSparse.apply(other, self)
        return self + other   # a number first: PyTorch refuses it as sparse + dense

    def __rmatmul__(self, other) -> Tensor:
        # ``dense @ sparse``: Python calls this before Tensor.__matmul__ because SparseTensor is a
        # subclass of Tensor that overrides the reflected method.
        return _functions.dense_sparse_matmul(other, self)


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

    ``size=None`` infers it: one more than the largest index in each dimension.
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
    if dense_dim:
        raise NotImplementedError(f"minigrad's sparse tensors have 1-D values (one number per index); got "
                                  f"values of shape {list(values_shape)}")
    if sparse_dim == 0:
        raise NotImplementedError("minigrad's sparse tensors need at least one dimension")
    if nnz != values_shape[0]:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {nnz}, "
                           f"nnz from values: {values_shape[0]}")
    if nnz:
        _check_bounds(indices, size)
    return size


def _check_negative(indices: np.ndarray) -> None:
    if indices.shape[1]:
        lowest = indices.min(axis=1)
        for dim, low in enumerate(lowest):
            if low < 0:
                raise RuntimeError(f"found negative index {low} for dim {dim}")


def _check_bounds(indices: np.ndarray, size: tuple) -> None:
    """PyTorch checks this only with ``check_invariants=True``; minigrad always does (it is cheap)."""
    lowest, highest = indices.min(axis=1), indices.max(axis=1)
    for dim, (low, high) in enumerate(zip(lowest, highest)):
        if low < 0:
            raise RuntimeError(f"found negative index {low} for dim {dim}")
        if high >= size[dim]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {dim}, size is {size[dim]} but "
                               f"found index {high}")


# ---------------------------------------------------------------------- the factory
def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory: bool = False,
                      requires_grad: bool = False, check_invariants: bool | None = None,
                      is_coalesced: bool | None = None) -> SparseTensor:
    """A sparse COO tensor with ``values[k]`` at position ``indices[:, k]`` (``torch.sparse_coo_tensor``).

    ``indices`` is ``(ndim, nnz)``; the indices are kept as given, repeats included (nothing is
    sorted or merged). ``size`` defaults to one more than the largest index in each dimension. The
    indices are always checked against ``size`` (PyTorch checks them only with
    ``check_invariants=True``; ``pin_memory`` and ``check_invariants`` are accepted and ignored).
    If ``values`` requires grad, so does the result, and gradients flow back to ``values``.

    >>> import minigrad as torch
    >>> v = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> a = torch.sparse_coo_tensor([[0, 1], [1, 0]], v, (2, 2))
    >>> a.grad_fn.name(), a.requires_grad, a.is_leaf
    ('SparseCooTensorWithDimsAndTensorsBackward0', True, False)
    """
    from ..factories import tensor as dense_tensor
    check_device(device)
    index = index_array(indices)
    if not isinstance(values, Tensor):
        values = dense_tensor(values)
    if dtype is not None:
        values = values.to(dtype)
    if values.ndim == 0:
        values = values.reshape(1)
    size = check_coo(index, tuple(values.shape), size)
    result = _functions.SparseCooTensorWithDimsAndTensors.apply(values, index, size, bool(is_coalesced))
    if requires_grad and not result.requires_grad:
        if result.dtype.numpy.kind not in "fc":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        result._requires_grad = True
    return result


from . import functions as _functions  # noqa: E402  (functions.py builds SparseTensor objects)

__all__ = ["SparseTensor", "sparse_coo_tensor"]
