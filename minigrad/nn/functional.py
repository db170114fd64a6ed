"""Functions used by the layers, and losses: ``relu``, ``linear``, ``mse_loss``, ``cross_entropy``."""
from __future__ import annotations

import numpy as np

from ..ops import Addmm
from ..ops._util import Builtin, binary_arrays, wrap
from ..tensor import Tensor


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return input.relu()


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def softmax(input: Tensor, dim: int) -> Tensor:
    return input.softmax(dim)


def log_softmax(input: Tensor, dim: int) -> Tensor:
    return input.log_softmax(dim)


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
    _node_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, log_probs, target, reduction):
        # target is a numpy array of class labels: like PyTorch's node, no next_functions entry for it
        rows = np.arange(log_probs.shape[0])
        picked = log_probs._data[rows, target]
        weight = np.zeros(log_probs._data.shape, dtype=log_probs._data.dtype)
        weight[rows, target] = -1.0 / (len(rows) if reduction == "mean" else 1)
        ctx._weight = weight
        if reduction == "none":
            raise NotImplementedError("minigrad: nll_loss(reduction='none') is not implemented")
        return wrap(-picked.mean() if reduction == "mean" else -picked.sum())

    @staticmethod
    def backward(ctx, grad):
        return grad * wrap(ctx._weight), None, None


def nll_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    return NllLoss.apply(input, target._data, reduction)


def cross_entropy(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """``nll_loss(log_softmax(input, 1), target)``: class scores against integer labels."""
    if target.dtype.is_floating_point:
        raise NotImplementedError("minigrad: cross_entropy with class probabilities is not implemented; "
                                  "pass integer class labels")
    return nll_loss(input.log_softmax(1), target, reduction)
