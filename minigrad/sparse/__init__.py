"""minigrad.sparse: sparse COO tensors, and ``spmm``, a sparse product whose backward stays sparse.

Read in this order:

- ``coo.py``: ``sparse_coo_tensor`` and the ``SparseTensor`` it returns (indices kept as given,
  repeats add up), with PyTorch's checks and error texts;
- ``functions.py``: ``a @ b``, ``a.t()``, ``to_dense``, ``coalesce`` as builtin Functions with
  PyTorch's node names. Their gradient with respect to a sparse matrix is dense, as in PyTorch;
- ``spmm.py``: ``Spmm``, a Function with the signature of pyGAT's ``SpecialSpmmFunction`` whose
  backward computes the values' gradient on the sparsity pattern only;
- ``kernels.py``: the two numpy loops (scatter-add and sampled dot products) doing the work.

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
from .functions import mm
from .legacy import DoubleTensor, FloatTensor, LongTensor
from .spmm import Spmm, spmm

__all__ = ["SparseTensor", "sparse_coo_tensor", "mm", "Spmm", "spmm", "FloatTensor", "DoubleTensor", "LongTensor"]

from ..inventory import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.sparse")   # a PyTorch name minigrad lacks: NotImplementedError with the reason
