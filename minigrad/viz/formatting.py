"""Turn shapes, dtypes and tensor values into short, machine-independent text.

Everything a graph picture or its description prints about a tensor goes through
here, so that the same graph gives the same words on every machine: no memory
addresses, and numbers written the way ``print(tensor)`` writes them in PyTorch
(``3.`` for whole numbers, otherwise 4 decimals, or ``1.0000e-05`` when the
values span a wide range).

>>> import numpy as np
>>> format_values(np.array([3.0, 3.0, 3.0], dtype=np.float32))
'[3., 3., 3.]'
>>> format_values(np.array([0.5, -0.125]))
'[0.5000, -0.1250]'
>>> format_shape((2, 3)), format_shape(())
('[2, 3]', 'scalar')
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

PRECISION = 4  # decimals, as PyTorch prints them
SMALL = 8  # tensors with at most this many elements are shown in full
FIRST = 3  # how many values a large tensor shows before "..."


def format_shape(shape: Sequence[int]) -> str:
    """``(2, 3)`` -> ``'[2, 3]'``; a 0-d tensor's shape ``()`` -> ``'scalar'``."""
    if len(shape) == 0:
        return "scalar"
    return "[" + ", ".join(str(int(n)) for n in shape) + "]"


def format_dtype(dtype: Any) -> str:
    """``torch.float32`` (or a numpy dtype) -> ``'float32'``."""
    return str(dtype).replace("torch.", "")


class _NumberStyle:
    """One notation for a whole group of numbers, chosen the way PyTorch chooses it."""

    def __init__(self, values: np.ndarray) -> None:
        self.kind = values.dtype.kind
        self.int_mode, self.sci_mode = True, False
        if self.kind not in "fc":
            return
        flat = values.ravel().astype(np.float64)
        finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size == 0:
            return
        magnitude = np.abs(finite)
        self.int_mode = bool(np.all(finite == np.round(finite)))
        small, large = magnitude.min(), magnitude.max()
        self.sci_mode = bool(large / small > 1000.0 or large > 1.0e8 or small < 1.0e-4)

    def __call__(self, value: Any) -> str:
        if self.kind == "b":
            return str(bool(value))
        if self.kind not in "fc":
            return str(int(value))
        value = float(value)
        if math.isnan(value) or math.isinf(value):
            return str(value)
        if self.sci_mode:
            return f"{value:.{PRECISION}e}"
        if self.int_mode:
            return f"{value:.0f}."
        return f"{value:.{PRECISION}f}"


def _nested(values: np.ndarray, style: _NumberStyle) -> str:
    if values.ndim == 0:
        return style(values.item())
    if values.ndim == 1:
        return "[" + ", ".join(style(v) for v in values.tolist()) + "]"
    return "[" + ", ".join(_nested(row, style) for row in values) + "]"


def format_values(data: np.ndarray, limit: int = SMALL) -> str:
    """The values of a small array on one line, e.g. ``'[[1., 2.], [3., 4.]]'``.

    Arrays with more than ``limit`` elements show their first values and ``...``.

    >>> format_values(np.arange(20.0))
    '[0., 1., 2., ...] (20 values)'
    """
    data = np.asarray(data)
    if data.size <= limit:
        return _nested(data, _NumberStyle(data))
    first = data.ravel()[:FIRST]
    style = _NumberStyle(first)
    return "[" + ", ".join(style(v) for v in first.tolist()) + f", ...] ({data.size} values)"


def format_norm(data: np.ndarray) -> str:
    """The Euclidean norm of an array with 4 significant digits, e.g. ``'norm 2.236'``."""
    norm = float(np.sqrt(np.sum(np.square(np.asarray(data, dtype=np.float64)))))
    return f"norm {norm:.4g}"


def describe_value_short(tensor: Any, limit: int = 4) -> str:
    """Values of a tiny tensor, or its shape and norm (for edge labels and trace steps).

    >>> describe_value_short(np.ones(3))
    '[1., 1., 1.]'
    >>> describe_value_short(np.ones((10, 10)))
    'shape [10, 10] (norm 10)'
    """
    data = tensor_data(tensor)
    if data.size <= limit:
        return format_values(data, limit)
    return f"shape {format_shape(data.shape)} ({format_norm(data)})"


def tensor_data(tensor: Any) -> np.ndarray:
    """The numpy array behind a minigrad tensor (or an array passed as is)."""
    data = getattr(tensor, "_data", tensor)
    return np.asarray(data)


def describe_tensor(tensor: Any) -> str:
    """Shape and dtype, e.g. ``'[3] float32'``."""
    return f"{format_shape(tuple(tensor.shape))} {format_dtype(tensor.dtype)}"


def describe_value(tensor: Any, limit: int = SMALL) -> str:
    """Values of a small tensor, or first values and the norm of a large one.

    >>> describe_value(np.ones(3))
    '[1., 1., 1.]'
    >>> describe_value(np.ones((10, 10)))
    '[1., 1., 1., ...] (100 values), norm 10'
    """
    data = tensor_data(tensor)
    text = format_values(data, limit)
    if data.size > limit and data.dtype.kind in "fciu":
        text += ", " + format_norm(data)
    return text
