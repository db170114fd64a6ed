"""The legacy tensor types ``FloatTensor``, ``LongTensor``, ... that older PyTorch code still calls.

``torch.FloatTensor(data)`` makes a float32 tensor from a list, a range or a numpy array (sharing a
numpy array's memory when it already is float32); ``torch.FloatTensor(2, 3)`` makes one of that
shape. ``isinstance(x, torch.FloatTensor)`` asks whether ``x`` is a float32 tensor.

>>> import numpy as np
>>> import minigrad as torch
>>> torch.LongTensor(range(3))
tensor([0, 1, 2])
>>> torch.FloatTensor(np.array([1, 2]))
tensor([1., 2.])
>>> torch.FloatTensor(2, 3).shape
torch.Size([2, 3])
>>> isinstance(torch.ones(2), torch.FloatTensor), isinstance(torch.ones(2), torch.LongTensor)
(True, False)
"""
from __future__ import annotations

import numpy as np

from . import types
from .tensor import Tensor
from .types import Size

# How PyTorch spells each dtype inside its TensorOptions error message.
_OPTIONS_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
                  "int32": "int", "uint8": "unsigned char", "bool": "bool"}


def _options(dtype: types.dtype) -> str:
    return (f"TensorOptions(dtype={_OPTIONS_NAMES[dtype.name]}, device=cpu, layout=Strided, requires_grad=false "
            "(default), pinned_memory=false (default), memory_format=(nullopt))")


def _bad_arguments(args: tuple, kwargs: dict) -> TypeError:
    def name(value) -> str:   # PyTorch's spelling of an argument's type, e.g. "torch.dtype"
        return f"torch.{type(value).__name__}" if isinstance(value, types.dtype) else type(value).__name__
    got = ", ".join([name(a) for a in args] + [f"{k}={name(v)}" for k, v in kwargs.items()])
    return TypeError(
        f"new() received an invalid combination of arguments - got ({got}), but expected one of:\n"
        " * (*, torch.device device = None)\n"
        f"      didn't match because some of the keywords were incorrect: {', '.join(kwargs)}\n"
        " * (torch.Storage storage)\n * (Tensor other)\n * (tuple of ints size, *, torch.device device = None)\n"
        " * (object data, *, torch.device device = None)\n")


class _LegacyTensorType(type):
    """Metaclass: calling the class builds a tensor; isinstance checks the dtype."""

    dtype: types.dtype

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and not obj.is_sparse and obj.dtype is cls.dtype

    def __call__(cls, *args, device=None, size=None, **kwargs) -> Tensor:
        types.check_device(device)
        if kwargs:
            raise _bad_arguments(args, kwargs)
        if size is not None:
            args = tuple(size)
        elif not args:
            args = (0,)                       # FloatTensor() is an empty tensor
        dtype = cls.dtype
        if len(args) == 1 and isinstance(args[0], Tensor):
            source = args[0]
            if source.dtype is not dtype:
                raise TypeError(f"expected {_options(dtype)} (got {_options(source.dtype)})")
            return source.detach()
        if len(args) == 1 and not isinstance(args[0], (int, np.integer, Size)):
            data = args[0]
            if isinstance(data, np.ndarray):
                return Tensor._make(data if data.dtype == dtype.numpy else data.astype(dtype.numpy))
            if not hasattr(data, "__len__") and not hasattr(data, "__iter__"):
                raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
            if isinstance(data, str):
                raise TypeError("new(): invalid data type 'str'")
            from .factories import tensor
            values = tensor(list(data) if not isinstance(data, list) else data)
            return Tensor._make(values._data.astype(dtype.numpy))
        shape = tuple(args[0]) if len(args) == 1 and isinstance(args[0], Size) else tuple(int(a) for a in args)
        for n in shape:
            if n < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {list(shape)}")
        return Tensor._make(np.zeros(shape, dtype.numpy))   # PyTorch leaves it uninitialised


def _legacy_type(d: types.dtype) -> type:
    name = d.legacy_name
    return _LegacyTensorType(name, (), {"dtype": d, "__module__": "minigrad", "__qualname__": name,
                                        "__doc__": f"Legacy constructor of {d!r} tensors."})


FloatTensor, DoubleTensor, HalfTensor = map(_legacy_type, (types.float32, types.float64, types.float16))
LongTensor, IntTensor, ByteTensor, BoolTensor = map(_legacy_type, (types.int64, types.int32, types.uint8, types.bool_))
_BY_NAME = {f"torch.{t.__name__}": t for t in (FloatTensor, DoubleTensor, HalfTensor, LongTensor, IntTensor,
                                                ByteTensor, BoolTensor)}


def legacy_type_of(dtype: types.dtype) -> type:
    """The legacy type of ``dtype`` (``FloatTensor`` for float32): what ``x.new(...)`` calls."""
    return _BY_NAME[f"torch.{dtype.legacy_name}"]


def dtype_of_legacy_type(value) -> types.dtype:
    """The dtype named by ``torch.DoubleTensor`` or ``'torch.DoubleTensor'`` (for ``Tensor.type``)."""
    if isinstance(value, _LegacyTensorType):
        return value.dtype
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value].dtype
    raise ValueError(f"invalid type: {value!r}")
