"""dtypes, devices and sizes: the small value types a Tensor carries.

minigrad prints them the way PyTorch does (``torch.float32``, ``torch.Size([2, 3])``), so that a
program written for ``import torch`` prints the same text with ``import minigrad as torch``.

>>> import minigrad as torch
>>> torch.ones(2, 3).shape
torch.Size([2, 3])
>>> torch.float64
torch.float64
"""
from __future__ import annotations

import builtins
import math

import numpy as np


class dtype:
    """A tensor element type, backed by a numpy dtype."""

    __slots__ = ("name", "numpy", "is_floating_point", "legacy_name")

    def __init__(self, name: str, numpy_dtype: type, legacy_name: str) -> None:
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self.is_floating_point = self.numpy.kind == "f"
        self.legacy_name = legacy_name  # the "torch.FloatTensor" spelling used in error messages

    @property
    def itemsize(self) -> int:
        return self.numpy.itemsize

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return (from_numpy_dtype, (self.numpy,))


float16 = half = dtype("float16", np.float16, "HalfTensor")
float32 = float = dtype("float32", np.float32, "FloatTensor")
float64 = double = dtype("float64", np.float64, "DoubleTensor")
int32 = int = dtype("int32", np.int32, "IntTensor")
int64 = long = dtype("int64", np.int64, "LongTensor")
uint8 = dtype("uint8", np.uint8, "ByteTensor")
bool_ = dtype("bool", np.bool_, "BoolTensor")

_BY_NUMPY = {d.numpy: d for d in (float16, float32, float64, int32, int64, uint8, bool_)}


def from_numpy_dtype(numpy_dtype) -> dtype:
    """The minigrad dtype for a numpy dtype, e.g. ``np.float32`` -> ``torch.float32``."""
    try:
        return _BY_NUMPY[np.dtype(numpy_dtype)]
    except KeyError:
        raise TypeError(f"minigrad does not support numpy arrays of dtype {np.dtype(numpy_dtype)}; "
                        "use float32, float64, int32, int64, uint8 or bool") from None


def promote_types(a: dtype, b: dtype) -> dtype:
    """The dtype of ``a op b`` for two tensors of these dtypes (PyTorch's promotion rules)."""
    if a is b:
        return a
    if category(a) != category(b):   # the higher kind wins as it is: int64 * float32 is float32
        return a if category(a) > category(b) else b
    return from_numpy_dtype(np.promote_types(a.numpy, b.numpy))


def category(d: dtype) -> builtins.int:
    """0 for bool, 1 for integers, 2 for floating point: the order PyTorch promotes in."""
    return 2 if d.is_floating_point else (0 if d is bool_ else 1)


# The C++ type names in PyTorch's error for a number out of a dtype's range.
_SCALAR_TYPE_NAMES = {"float16": "c10::Half", "float32": "float", "float64": "double", "int32": "int",
                      "int64": "int64_t", "uint8": "uint8_t"}


def scalar_as(value, numpy_dtype: np.dtype) -> np.generic:
    """A Python number (a fill value, an ``alpha``) as a number of ``numpy_dtype``, converted as PyTorch
    converts a Scalar: a float given to an integer dtype is truncated; a negative int given to an
    unsigned dtype wraps around, as in two's complement (-1 is 255 for uint8), down to minus the
    dtype's largest value; anything else out of the dtype's range (or a nan or infinity for an
    integer dtype) is PyTorch's RuntimeError. A bool dtype takes any number as its truth value.

    >>> scalar_as(-3, np.dtype(np.uint8)), scalar_as(2.5, np.dtype(np.uint8))
    (np.uint8(253), np.uint8(2))
    >>> scalar_as(256, np.dtype(np.uint8))
    Traceback (most recent call last):
    RuntimeError: value cannot be converted to type uint8_t without overflow
    """
    numpy_dtype = np.dtype(numpy_dtype)
    if numpy_dtype.kind == "b":
        return np.bool_(value)
    value = value.item() if isinstance(value, np.generic) else value
    if numpy_dtype.kind in "iu":
        info = np.iinfo(numpy_dtype)
        if isinstance(value, builtins.float):
            if info.min <= value <= info.max:   # False for nan and the infinities
                return numpy_dtype.type(builtins.int(value))
        elif info.min <= value <= info.max:
            return numpy_dtype.type(value)
        elif numpy_dtype.kind == "u" and -info.max <= value < 0:
            return numpy_dtype.type(value + info.max + 1)
    elif not np.isfinite(value) or abs(value) <= builtins.float(np.finfo(numpy_dtype).max):
        return numpy_dtype.type(value)
    raise RuntimeError(f"value cannot be converted to type {_SCALAR_TYPE_NAMES[numpy_dtype.name]} without overflow")


class Size(tuple):
    """The shape of a tensor: a tuple of ints that prints like ``torch.Size([2, 3])``."""

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(n) for n in self)}])"

    __str__ = __repr__

    def numel(self) -> builtins.int:
        """The number of elements a tensor of this shape has."""
        return math.prod(self)

    def __getitem__(self, item):
        result = tuple.__getitem__(self, item)
        return Size(result) if isinstance(item, slice) else result


def broadcast_shapes(x_shape: tuple, y_shape: tuple) -> tuple:
    """The shape that tensors of ``x_shape`` and ``y_shape`` broadcast to, or PyTorch's error
    naming the last dimension where they clash. The one broadcast check of minigrad: element-wise
    operations ask it, and so does backward, of a gradient against its input.

    >>> broadcast_shapes((64, 10), (10,)), broadcast_shapes((2, 1), (1, 3))
    ((64, 10), (2, 3))
    >>> broadcast_shapes((2, 3), (3, 2))
    Traceback (most recent call last):
      ...
    RuntimeError: The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1
    """
    if len(y_shape) <= len(x_shape):   # the common cases first: one shape is the end of the other
        if x_shape[len(x_shape) - len(y_shape):] == y_shape:
            return x_shape   # (a bias against a batch, a number against anything)
    elif y_shape[len(y_shape) - len(x_shape):] == x_shape:
        return y_shape
    ndim = max(len(x_shape), len(y_shape))
    x_full = (1,) * (ndim - len(x_shape)) + tuple(x_shape)
    y_full = (1,) * (ndim - len(y_shape)) + tuple(y_shape)
    for dim in reversed(range(ndim)):   # PyTorch reports the last clashing dimension
        m, n = x_full[dim], y_full[dim]
        if m != n and m != 1 and n != 1:
            raise RuntimeError(f"The size of tensor a ({m}) must match the size of tensor b ({n}) at "
                               f"non-singleton dimension {dim}")
    return tuple(m if n == 1 else n for m, n in zip(x_full, y_full))


class device:
    """Where a tensor lives. minigrad runs on numpy, so the only device is the CPU."""

    __slots__ = ("type", "index")

    def __init__(self, type: str = "cpu", index: builtins.int | None = None) -> None:
        if isinstance(type, device):
            type, index = type.type, type.index
        kind = str(type).split(":")[0]
        if kind != "cpu":
            raise NotImplementedError(
                f"minigrad runs on the CPU only (numpy); device '{type}' is not available. "
                "Use device='cpu' or leave the argument out.")
        self.type = "cpu"
        self.index = index

    def __repr__(self) -> str:
        return "device(type='cpu')"

    def __str__(self) -> str:
        return "cpu"

    def __eq__(self, other) -> builtins.bool:
        return isinstance(other, (device, str)) and str(other).split(":")[0] == "cpu"

    def __hash__(self) -> builtins.int:
        return hash("cpu")


cpu = device("cpu")


def check_device(value) -> None:
    """Accept ``device=None``, ``"cpu"`` or ``device("cpu")``; refuse anything else clearly."""
    if value is not None:
        device(value)


class layout:
    """How a tensor's elements are stored: ``torch.strided`` (dense) or ``torch.sparse_coo``."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"


strided = layout("strided")
sparse_coo = layout("sparse_coo")
