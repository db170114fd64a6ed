"""Functions used by the layers, and losses: ``relu``, ``linear``, ``mse_loss``, ``cross_entropy``."""
from __future__ import annotations

import warnings

import numpy as np

from .. import factories
from ..ops import Addmm, Elu, LeakyRelu, losses
from ..ops.activation import Softplus
from ..ops.arithmetic import DivScalar, MulScalar
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
    """exp(x) / sum(exp(x)) along ``dim``; with ``dtype``, the input is converted first (ToCopyBackward0)."""
    if dim is None:
        dim = _implicit_dim("softmax", input.ndim)
    return input.softmax(dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    if dim is None:
        dim = _implicit_dim("log_softmax", input.ndim)
    return input.log_softmax(dim, dtype=dtype)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + exp(beta * x)) / beta, a smooth relu (``Softplus`` in ``minigrad/ops/activation.py``)."""
    return Softplus.apply(input, beta, threshold)


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


def _reduction(size_average, reduce, reduction: str) -> str:
    """``reduction``, or what the legacy ``size_average`` and ``reduce`` arguments ask for, with
    PyTorch's warning (both default to True: mean; reduce=False: none; size_average=False: sum)."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.",
                  UserWarning, stacklevel=3)
    return reduction


def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """Mean squared error (``MseLoss`` in ``minigrad/ops/losses.py``)."""
    return losses.mse_loss(input, target, _reduction(size_average, reduce, reduction))


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None, ignore_index: int = -100,
             reduce=None, reduction: str = "mean") -> Tensor:
    """The mean (or sum) of ``-input[i, target[i]]``: use it after ``log_softmax`` (``NllLoss`` in
    ``minigrad/ops/losses.py``)."""
    return losses.nll_loss(input, target, weight, ignore_index, _reduction(size_average, reduce, reduction))


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                  ignore_index: int = -100, reduce=None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """``nll_loss(log_softmax(input, 1), target)``: class scores against integer labels, or against class
    probabilities (a floating target shaped like the input); ``label_smoothing`` mixes the target with
    the uniform distribution. Classes are along dim 1 (dim 0 for one sample of shape ``[C]``). Built from
    the same operations as PyTorch's, so the graph has its nodes."""
    reduction = _reduction(size_average, reduce, reduction)
    class_dim = 0 if input.ndim == 1 else 1
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if target.shape == input.shape:
        if not target.dtype.is_floating_point:
            raise RuntimeError("Expected floating point type for target with class probabilities, got "
                               f"{target.dtype.legacy_name[:-6]}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_with_probabilities(input, target, weight, reduction, label_smoothing, class_dim)
    log_probs = input.log_softmax(class_dim)
    loss = losses.nll_loss(log_probs, target, weight, ignore_index, reduction)
    if label_smoothing == 0.0:
        return loss
    return _smoothed(loss, log_probs, target, weight, ignore_index, reduction, label_smoothing, class_dim)


def _cross_entropy_with_probabilities(input, target, weight, reduction, label_smoothing, class_dim) -> Tensor:
    classes = input.shape[class_dim]
    if weight is not None and (weight.ndim != 1 or weight.numel() != classes):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {classes} classes or no "
                           f"classes but got weight tensor of shape: {list(weight.shape)}")
    log_probs = input.log_softmax(class_dim)
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    terms = log_probs * target
    if weight is not None:
        terms = terms * weight.view([classes if d == class_dim else 1 for d in range(input.ndim)])
    if reduction == "none":
        return -terms.sum(class_dim)
    total = -terms.sum()
    return DivScalar.apply(total, input.numel() // classes) if reduction == "mean" else total


def _smoothed(loss, log_probs, target, weight, ignore_index, reduction, label_smoothing, class_dim) -> Tensor:
    """PyTorch's label smoothing over integer labels: (1 - s) * nll + s / C * (the loss against the
    uniform distribution), ignored positions counting for nothing."""
    classes = log_probs.shape[class_dim]
    ignored = target == ignore_index
    if weight is not None:
        shape = [classes if d == class_dim else 1 for d in range(log_probs.ndim)]
        smooth = -(log_probs * weight.view(shape)).sum(class_dim)
    else:
        smooth = -log_probs.sum(class_dim)
    smooth = smooth.masked_fill(ignored, 0.0)
    if reduction == "mean":
        if weight is not None:
            smooth = smooth.sum() / weight.gather(0, target.masked_select(~ignored).flatten()).sum()
        else:
            smooth = smooth.sum() / (~ignored).sum()
    elif reduction == "sum":
        smooth = smooth.sum()
    return MulScalar.apply(loss, 1 - label_smoothing) + MulScalar.apply(smooth, label_smoothing / classes)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                         reduce=None, reduction: str = "mean") -> Tensor:
    """-(t log(p) + (1 - t) log(1 - p)), averaged: for probabilities ``input`` (after a sigmoid)."""
    return losses.binary_cross_entropy(input, target, weight, _reduction(size_average, reduce, reduction))


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                                     reduce=None, reduction: str = "mean", pos_weight: Tensor | None = None) -> Tensor:
    """``binary_cross_entropy(sigmoid(input), target)``, computed from the logits without overflow;
    ``pos_weight`` weighs the positive targets' term."""
    return losses.binary_cross_entropy_with_logits(input, target, weight, _reduction(size_average, reduce, reduction),
                                                   pos_weight)


# F.conv2d, F.max_pool2d, F.batch_norm...: outside the subset, NotImplementedError when called.
from .unsupported import FUNCTIONS as _UNSUPPORTED_FUNCTIONS  # noqa: E402

globals().update(_UNSUPPORTED_FUNCTIONS)
