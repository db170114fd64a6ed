"""Functions used by the layers, and losses: ``relu``, ``linear``, ``mse_loss``, ``cross_entropy``."""
from __future__ import annotations

import warnings

import numpy as np

from .. import factories
from ..ops import Addmm, Elu, LeakyRelu
from ..ops._util import Builtin, binary_arrays, wrap
from ..tensor import Tensor


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return input.relu()


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


class MseLoss(Builtin):
    _node_name = "MseLossBackward0"
    _saved_names = ("self", "target")

    @staticmethod
    def forward(ctx, input, target, reduction):
        x, y = binary_arrays(input, target)
        diff = x - y
        ctx.save_for_backward(input, target)
        ctx._reduction = reduction
        squared = diff * diff
        return wrap(squared.mean() if reduction == "mean" else squared.sum() if reduction == "sum" else squared)

    @staticmethod
    def backward(ctx, grad):
        input, target = ctx.saved_tensors
        scale = 2.0 / input.numel() if ctx._reduction == "mean" else 2.0
        grad_input = grad * scale * (input - target)
        return (grad_input if ctx.needs_input_grad[0] else None,
                -grad_input if ctx.needs_input_grad[1] else None, None)


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """Mean squared error."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return MseLoss.apply(input, target, reduction)


class NllLoss(Builtin):
    """Negative log-likelihood of the target classes, from log-probabilities of shape ``[N, C]`` (or ``[C]``)."""

    _node_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, log_probs, target, weight, reduction, ignore_index):
        # target and weight are numpy arrays: like PyTorch's node, no next_functions entries for them
        x = log_probs._data.reshape(1, -1) if log_probs.ndim == 1 else log_probs._data
        target = target.reshape(-1)
        rows = np.arange(x.shape[0])
        kept = target != ignore_index
        safe_target = np.where(kept, target, 0)
        row_weight = (np.ones(x.shape[1], x.dtype) if weight is None else weight.astype(x.dtype))[safe_target] * kept
        losses = -x[rows, safe_target] * row_weight
        coefficients = np.zeros(x.shape, dtype=x.dtype)   # d loss_i / d x[i, target_i]
        coefficients[rows, safe_target] = -row_weight
        if reduction == "mean":
            total = row_weight.sum()
            coefficients /= total
            out = losses.sum() / total
        elif reduction == "sum":
            out = losses.sum()
        else:
            out = losses if log_probs.ndim == 2 else losses.reshape(())
        ctx._coefficients = coefficients.reshape(log_probs._data.shape)
        ctx._reduction = reduction
        return wrap(np.asarray(out, dtype=x.dtype))

    @staticmethod
    def backward(ctx, grad):
        if ctx._reduction == "none" and grad.ndim == 1:
            grad = grad.unsqueeze(1)
        return grad * wrap(ctx._coefficients), None, None, None, None


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None, ignore_index: int = -100,
             reduce=None, reduction: str = "mean") -> Tensor:
    """The mean (or sum) of ``-input[i, target[i]]``: use it after ``log_softmax``."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if input.ndim not in (1, 2):
        raise NotImplementedError(f"minigrad: nll_loss of a {input.ndim}-d input is not implemented")
    if target.dtype.legacy_name not in ("LongTensor", "ByteTensor"):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {target.dtype.legacy_name[:-6]}")
    batch = input.shape[0] if input.ndim == 2 else 1
    if target.numel() != batch or (input.ndim == 1 and target.ndim != 0):
        raise ValueError(f"Expected input batch_size ({batch}) to match target batch_size ({target.numel()}).")
    labels = target._data.astype(np.int64)
    classes = input.shape[-1]
    for label in labels.reshape(-1):
        if label != ignore_index and not 0 <= label < classes:
            raise IndexError(f"Target {label} is out of bounds.")
    return NllLoss.apply(input, labels, None if weight is None else weight._data, reduction, ignore_index)


def cross_entropy(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """``nll_loss(log_softmax(input, 1), target)``: class scores against integer labels."""
    if target.dtype.is_floating_point:
        raise NotImplementedError("minigrad: cross_entropy with class probabilities is not implemented; "
                                  "pass integer class labels")
    return nll_loss(input.log_softmax(1), target, reduction=reduction)
