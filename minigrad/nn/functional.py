"""Functions used by the layers, and losses: ``relu``, ``linear``, ``mse_loss``, ``cross_entropy``."""
from __future__ import annotations

import warnings

import numpy as np

from .. import factories
from ..ops import Addmm, Elu, LeakyRelu, losses
from ..tensor import Tensor


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return input.relu_() if inplace else input.relu()


def relu_(input: Tensor) -> Tensor:
    return input.relu_()


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """``input`` clipped to ``[min_val, max_val]``; the gradient is 1 strictly inside, 0 elsewhere."""
    from ..ops import hardtanh as clip
    return clip(input, min_val, max_val, inplace)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, inplace=True)


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def _implicit_dim(name: str, ndim: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", UserWarning, stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    if dim is None:
        dim = _implicit_dim("softmax", input.ndim)
    return (input if dtype is None else input.to(dtype)).softmax(dim)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    if dim is None:
        dim = _implicit_dim("log_softmax", input.ndim)
    return (input if dtype is None else input.to(dtype)).log_softmax(dim)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``x`` for positive ``x``, ``negative_slope * x`` otherwise."""
    _refuse_inplace("leaky_relu", inplace)
    return LeakyRelu.apply(input, negative_slope)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` for positive ``x``, ``alpha * (exp(x) - 1)`` otherwise."""
    _refuse_inplace("elu", inplace)
    return Elu.apply(input, alpha)


def _refuse_inplace(name: str, inplace: bool) -> None:
    if inplace:
        raise NotImplementedError(f"minigrad: {name}(inplace=True) is not implemented; use inplace=False")


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """The rows of ``weight`` named by the integer tensor ``input`` (see ``ops/gather_scatter.py``)."""
    from ..ops import embedding as lookup
    return lookup(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """While training, zero each element with probability ``p`` and scale the others by ``1 / (1 - p)``.

    Not training (or ``p == 0``), the input itself comes back. As in PyTorch on the CPU, the
    result is ``input * mask``, so its node is a MulBackward0.

    >>> import minigrad as torch
    >>> x = torch.ones(6, requires_grad=True)
    >>> torch.nn.functional.dropout(x, 0.5, training=False) is x
    True
    >>> torch.nn.functional.dropout(x, 0.5).grad_fn.name()
    'MulBackward0'
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input.numel() == 0:
        return input
    if not input.is_floating_point():
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{input.dtype.legacy_name[:-len('Tensor')]}")
    if p == 1:
        mask = Tensor._zeros((), input.dtype)
    else:
        dtype = input._data.dtype if input._data.dtype in (np.float32, np.float64) else np.float64
        keep = factories._generator.random(input._data.shape, dtype=dtype) >= p
        mask = Tensor._make(keep.astype(input._data.dtype) * input._data.dtype.type(1 / (1 - p)))
    return input.mul_(mask) if inplace else input * mask


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``; for a batch of vectors, one AddmmBackward0 node (as in PyTorch)."""
    if input.ndim == 2 and bias is not None:
        return Addmm.apply(bias, input, weight.t())
    if input.ndim == 1 and bias is not None:   # PyTorch views the vector as a 1-row matrix
        return Addmm.apply(bias, input.view(1, -1), weight.t()).view(-1)
    out = input.matmul(weight.t())
    return out + bias if bias is not None else out


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """Mean squared error (``MseLoss`` in ``minigrad/ops/losses.py``)."""
    return losses.mse_loss(input, target, reduction)


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None, ignore_index: int = -100,
             reduce=None, reduction: str = "mean") -> Tensor:
    """The mean (or sum) of ``-input[i, target[i]]``: use it after ``log_softmax`` (``NllLoss`` in
    ``minigrad/ops/losses.py``)."""
    return losses.nll_loss(input, target, weight, ignore_index, reduction)


def cross_entropy(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """``nll_loss(log_softmax(input, 1), target)``: class scores against integer labels (for one
    sample of shape ``[C]``, log_softmax over dim 0, as PyTorch does)."""
    if target.dtype.is_floating_point:
        raise NotImplementedError("minigrad: cross_entropy with class probabilities is not implemented; "
                                  "pass integer class labels")
    return nll_loss(input.log_softmax(0 if input.ndim == 1 else 1), target, reduction=reduction)


# F.conv2d, F.max_pool2d, F.batch_norm...: outside the subset, NotImplementedError when called.
from .unsupported import FUNCTIONS as _UNSUPPORTED_FUNCTIONS  # noqa: E402

globals().update(_UNSUPPORTED_FUNCTIONS)
