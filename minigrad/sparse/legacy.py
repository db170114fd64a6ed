"""The legacy sparse constructors ``torch.sparse.FloatTensor(indices, values, size)`` and friends,
which older code (pygcn's ``sparse_mx_to_torch_sparse_tensor``) still calls. As in PyTorch they warn
that they are deprecated and build what ``sparse_coo_tensor`` builds (the values keep their dtype);
``torch.sparse.FloatTensor(2, 3)`` is an empty sparse matrix of that size.

>>> import warnings
>>> import minigrad as torch
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")   # the deprecation warning, shown once per process
...     a = torch.sparse.FloatTensor(torch.tensor([[0, 1], [1, 0]]), torch.tensor([1.0, 2.0]), torch.Size([2, 2]))
>>> a.to_dense()
tensor([[0., 1.],
        [2., 0.]])
"""
from __future__ import annotations

import numpy as np

from .. import types
from ..tensor import Tensor, _warn_once
from .coo import SparseTensor, sparse_coo_tensor

_DEPRECATED = ("torch.sparse.SparseTensor({}*, device=) is deprecated.  Please use "
               "torch.sparse_coo_tensor({}dtype=, device=).")


class _LegacySparseType(type):
    """Metaclass: calling the class builds a sparse tensor; isinstance checks layout and dtype."""

    dtype: types.dtype

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, SparseTensor) and obj.dtype is cls.dtype

    def __call__(cls, *args, device=None) -> SparseTensor:
        types.check_device(device)
        if args and isinstance(args[0], Tensor):
            indices, values, *size = args
            form = "indices, values, shape, " if size else "indices, values, "
            _warn_once(_DEPRECATED.format(form, form))   # once per process, as in PyTorch
            return sparse_coo_tensor(indices, values, tuple(size[0]) if size else None)
        shape = tuple(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) else tuple(args)
        _warn_once(_DEPRECATED.format("shape, ", "shape, "))
        indices = np.zeros((len(shape), 0), np.int64)
        return sparse_coo_tensor(indices, np.zeros(0, cls.dtype.numpy), shape)


def _legacy_sparse_type(d: types.dtype) -> type:
    name = d.legacy_name
    return _LegacySparseType(name, (), {"dtype": d, "__module__": "minigrad.sparse", "__qualname__": name,
                                        "__doc__": f"Legacy constructor of sparse {d!r} tensors."})


FloatTensor, DoubleTensor, LongTensor = map(_legacy_sparse_type, (types.float32, types.float64, types.int64))

__all__ = ["FloatTensor", "DoubleTensor", "LongTensor"]
