"""``nn.init``: fill a weight tensor in place with values of a chosen scale, as PyTorch does.

Every function works under ``no_grad`` (so parameters can be filled directly), bumps the tensor's
version counter, and returns the tensor it was given. The random numbers come from minigrad's
generator, so the values differ from PyTorch's; the distributions and their bounds are the same.

>>> import minigrad as torch
>>> w = torch.empty(3, 5)
>>> torch.nn.init.xavier_uniform_(w, gain=1.414) is w
True
>>> bool(w.abs().max() <= 1.414 * (6 / (3 + 5)) ** 0.5)
True
>>> torch.nn.init.constant_(torch.empty(2), 0.5)
tensor([0.5000, 0.5000])
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import factories, grad_mode
from ..tensor import Tensor

_LINEAR_GAIN = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                "conv_transpose3d", "sigmoid")


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The factor that keeps activations at unit scale through ``nonlinearity``."""
    if nonlinearity in _LINEAR_GAIN:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple:
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field = int(np.prod(tensor.shape[2:])) if tensor.dim() > 2 else 1
    return tensor.shape[1] * receptive_field, tensor.shape[0] * receptive_field


def _fill(tensor: Tensor, values: np.ndarray, kernel: str) -> Tensor:
    """Write ``values`` into ``tensor`` in place (a version bump, no graph), and return it."""
    if tensor._data.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{tensor.dtype.legacy_name[:-6]}'")
    with grad_mode.no_grad():
        tensor.copy_(Tensor._make(np.asarray(values, dtype=tensor._data.dtype)))
    return tensor


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Values drawn uniformly from ``[a, b)``."""
    return _fill(tensor, factories._generator.uniform(a, b, tensor._data.shape), "check_uniform_bounds")


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Values drawn from a normal distribution ``N(mean, std^2)``."""
    return _fill(tensor, factories._generator.normal(mean, std, tensor._data.shape), "normal_kernel_cpu")


def constant_(tensor: Tensor, val: float) -> Tensor:
    return _fill(tensor, np.full(tensor._data.shape, val), "fill_")


def zeros_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 0.0)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def eye_(tensor: Tensor) -> Tensor:
    """The identity matrix (for a 2-d tensor)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(tensor, np.eye(*tensor._data.shape), "fill_")


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot's uniform initialisation: bound ``gain * sqrt(6 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot's normal initialisation: std ``gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)))


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str) -> float | None:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", UserWarning, stacklevel=3)
        return None
    return calculate_gain(nonlinearity, a) / math.sqrt(fan_in if mode == "fan_in" else fan_out)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator=None) -> Tensor:
    """He's uniform initialisation: bound ``sqrt(3) * gain / sqrt(fan)``."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    return tensor if std is None else uniform_(tensor, -math.sqrt(3.0) * std, math.sqrt(3.0) * std)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator=None) -> Tensor:
    """He's normal initialisation: std ``gain / sqrt(fan)``."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    return tensor if std is None else normal_(tensor, 0.0, std)


__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "zeros_", "ones_", "eye_", "xavier_uniform_",
           "xavier_normal_", "kaiming_uniform_", "kaiming_normal_"]
