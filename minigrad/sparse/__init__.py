"""minigrad.sparse: sparse COO tensors, and ``spmm``, a sparse product whose backward stays sparse.

Read in this order:

- ``coo.py``: ``sparse_coo_tensor`` and the ``SparseTensor`` it returns (indices kept as given,
  repeats add up; values may be blocks: hybrid tensors), with PyTorch's checks and error texts;
- ``arrays.py``: the few numpy steps every operation is made of (coalesce, to_dense, lookup);
- ``functions.py``, ``arithmetic.py``, ``products.py``: the operations, as builtin Functions with
  PyTorch's node names. The gradient of a sparse input is sparse or dense, as PyTorch's backward
  makes it;
- ``spmm.py``: ``Spmm``, a Function with the signature of pyGAT's ``SpecialSpmmFunction`` whose
  backward computes the values' gradient on the sparsity pattern only;
- ``kernels.py``: the two numpy loops (scatter-add and sampled dot products) doing the work.

What a sparse tensor supports: ``_indices() _values() indices() values() _nnz() sparse_dim()
dense_dim() coalesce() is_coalesced() to_dense() clone() to() t() transpose() new()``; ``+ -`` with
a sparse tensor (``dense + sparse`` is dense), ``*`` with a number, a dense or a sparse tensor, ``/``
by a number, ``-s``; ``sum()``, ``torch.sparse.sum``, ``norm()``; ``@``, ``mm``, ``mv``,
``torch.addmm``, ``torch.sparse.mm``, ``torch.sparse.addmm``. Every other Tensor method raises a
NotImplementedError naming itself. Only the COO layout exists: CSR, CSC, BSR and BSC are outside
minigrad's scope.

>>> import minigrad as torch
>>> a = torch.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], (2, 2))
>>> a @ torch.tensor([[1.0], [10.0]])
tensor([[20.],
        [ 3.]])
>>> torch.sparse.spmm(a._indices(), a._values(), a.shape, torch.tensor([[1.0], [10.0]]))
tensor([[20.],
        [ 3.]])
"""
from .coo import SparseTensor, sparse_coo_tensor
from .arithmetic import sparse_sum as sum  # noqa: A001  (torch.sparse.sum)
from .products import addmm, mm
from .legacy import DoubleTensor, FloatTensor, LongTensor
from .spmm import Spmm, spmm

__all__ = ["SparseTensor", "sparse_coo_tensor", "sum", "mm", "addmm", "Spmm", "spmm", "FloatTensor",
           "DoubleTensor", "LongTensor"]

from ..inventory import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.sparse")   # a PyTorch name minigrad lacks: NotImplementedError with the reason
