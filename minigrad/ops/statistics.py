"""Statistics: ``var`` and ``std``, and ``var_mean`` and ``std_mean`` (two statistics in one pass, one node
with two outputs). Their gradients depend on every element.

>>> import minigrad as torch
>>> x = torch.tensor([[1.0, 2.0], [3.0, 5.0]], requires_grad=True)
>>> x.var()
tensor(2.9167, grad_fn=<VarBackward0>)
>>> torch.var_mean(x, 1)
(tensor([0.5000, 2.0000], grad_fn=<VarMeanBackward0>), tensor([1.5000, 4.0000], grad_fn=<VarMeanBackward0>))
"""
from __future__ import annotations

import sys
import warnings

import numpy as np

from ..tensor import Tensor
from ._util import Builtin, check_keepdim, reduced_dims, wrap
from .reduction import _restore_dims


def _degrees_of_freedom(a: Tensor, dims: tuple, correction, name: str) -> float:
    """N - correction, for the N elements each result reduces; PyTorch warns when it is <= 0."""
    dof = _count(a, dims) - correction
    if dof <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
                      "factor (input numel divided by output numel).", UserWarning, stacklevel=_caller_outside_minigrad())
    return dof


def _caller_outside_minigrad() -> int:
    """The ``stacklevel`` that names the first line outside minigrad (PyTorch's warnings name the user's line)."""
    frame, level = sys._getframe(2), 2
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "minigrad":
        frame, level = frame.f_back, level + 1
    return level


def _count(a: Tensor, dims: tuple) -> int:
    return int(np.prod([a.shape[d] for d in dims])) if a.ndim else 1


def _variance(a: Tensor, dims: tuple, dof: float, keepdim: bool) -> np.ndarray:
    """sum((a - mean) ** 2) / max(0, dof), as PyTorch's kernel: inf or nan when dof <= 0, nan for no elements."""
    x = a._data
    with np.errstate(divide="ignore", invalid="ignore"):   # silently, as in PyTorch
        centred = x - np.add.reduce(x, axis=dims, keepdims=True) / x.dtype.type(_count(a, dims))
        return (centred * centred).sum(axis=dims, keepdims=keepdim) / x.dtype.type(max(0, dof))


def var_backward(grad: Tensor, a: Tensor, dims: tuple, correction, keepdim: bool, everything: bool) -> Tensor:
    """PyTorch's ``var_backward``: ∂L/∂a = (2 / (N - correction)) * grad * (a - mean(a)).

    Over every element (``x.var()``, or a 0-dim tensor) with N - correction <= 0, 2 / 0 is infinite:
    the gradient is grad * inf, or grad * nan where a equals its mean (inf * 0). Along dims, the
    division is done as it is (inf for 0, negative below), as PyTorch's.
    """
    from .pointwise import where
    if everything:
        dof = a.numel() - correction
        if dof <= 0:
            return grad * where(a == a.mean(), float("nan"), float("inf"))
        return (2.0 / dof) * grad * (a - a.mean())
    dof = _count(a, dims) - correction
    grad = _restore_dims(grad, dims, keepdim)
    return (2.0 / dof if dof else float("inf")) * grad * (a - a.mean(dims, keepdim=True))


class Var(Builtin):
    """f(a) = sum((a - mean(a)) ** 2) / max(0, N - correction) over dims, for the N elements reduced

    ∂L/∂a = grad * 2 * (a - mean(a)) / (N - correction) (the mean's own derivative drops out:
    the deviations sum to 0); with N - correction <= 0 over every element, grad * inf, nan where a
    equals its mean (PyTorch's var_backward, see ``var_backward``)
    Saves a, from which backward computes the deviations again.
    """

    _saved_names = ("self",)
    _name = "var"

    @staticmethod
    def forward(ctx, a, dims, correction, keepdim, everything=False):
        ctx.save_for_backward(a)
        ctx._dims, ctx._everything = dims, everything
        ctx._saved_dim = None if everything else dims   # PyTorch shows None for x.var()
        ctx._saved_correction, ctx._saved_keepdim = correction, keepdim
        dof = _degrees_of_freedom(a, dims, correction, ctx._forward_cls._name)
        return wrap(_variance(a, dims, dof, keepdim))

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return var_backward(grad, a, ctx._dims, ctx._saved_correction, ctx._saved_keepdim, ctx._everything), \
            None, None, None, None


class Std(Var):
    """f(a) = sqrt(var(a)): the standard deviation over dims

    ∂L/∂a = var's gradient for grad / (2 * f), where that is 0 where f = 0 (all values equal: 0, not
    0 / 0), as PyTorch's std_backward
    Saves a and f, which the derivative reads.
    """

    _saved_names = ("self", "result")
    _name = "std"

    @staticmethod
    def forward(ctx, a, dims, correction, keepdim, everything=False):
        out = wrap(np.sqrt(Var.forward(ctx, a, dims, correction, keepdim, everything)._data))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        grad_var = (grad / (result * 2)).masked_fill(result == 0, 0)
        return var_backward(grad_var, a, ctx._dims, ctx._saved_correction, ctx._saved_keepdim, ctx._everything), \
            None, None, None, None


def _var_arguments(a: Tensor, dim, unbiased, keepdim, correction) -> tuple:
    if a._data.dtype.kind not in "fc":
        raise RuntimeError("std and var only support floating point and complex dtypes")
    if isinstance(dim, bool):          # var(False): the old positional ``unbiased``
        dim, unbiased = None, dim
    if correction is None:
        correction = 1 if unbiased in (None, True) else 0
    check_keepdim("var", keepdim, 3)
    return reduced_dims(dim, a.ndim), correction, keepdim


def var(a: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *, correction=None) -> Tensor:
    """Variance along ``dim`` (all dimensions by default), divided by ``N - 1`` unless told otherwise."""
    return Var.apply(a, *_var_arguments(a, dim, unbiased, keepdim, correction), _over_everything(a, dim))


def std(a: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *, correction=None) -> Tensor:
    """Standard deviation along ``dim``, with the same arguments as ``var``."""
    return Std.apply(a, *_var_arguments(a, dim, unbiased, keepdim, correction), _over_everything(a, dim))


def _over_everything(a: Tensor, dim) -> bool:
    """``x.var()`` (no dim, or a bool in its place) and any 0-dim tensor: PyTorch's var_backward then
    treats N - correction <= 0 apart."""
    return dim is None or isinstance(dim, bool) or a.ndim == 0


class VarMean(Builtin):
    """``torch.var_mean(x, dim)``: f(x) = (var, mean) over ``dims``, with
    var = sum((x - mean)^2) / (N - correction) and mean = sum(x) / N.

    ∂L/∂x = ∂L/∂var * 2 (x - mean) / (N - correction) + ∂L/∂mean / N (each part only when its
    output received a gradient; the var part is PyTorch's var_backward, as for ``var``, so
    N - correction <= 0 gives inf or nan, never a ZeroDivisionError). Saves the input.
    """

    _saved_names = ("self",)
    _name = "var_mean"

    @staticmethod
    def forward(ctx, a, dims, correction, keepdim, everything=False):
        ctx.save_for_backward(a)
        ctx._saved_dim, ctx._saved_correction, ctx._saved_keepdim = dims, correction, keepdim
        ctx._everything = everything   # x.var_mean() over every element: var_backward treats dof <= 0 apart
        dof = _degrees_of_freedom(a, dims, correction, ctx._forward_cls._name)
        ctx._count = int(np.prod([a.shape[d] for d in dims])) if a.ndim else 1
        x = a._data
        with np.errstate(divide="ignore", invalid="ignore"):   # (an empty input: nan, silently as in PyTorch)
            mean = np.add.reduce(x, axis=dims, keepdims=True) / x.dtype.type(ctx._count)
            if not np.isfinite(mean).all():
                mean = _running_mean(x, dims)   # an inf or nan among the values: PyTorch's running mean
            centred = x - mean
            var = (centred * centred).sum(axis=dims, keepdims=keepdim) / x.dtype.type(dof)
        if not ctx._count:
            var = np.full_like(var, np.nan)   # the variance of nothing is nan, as in PyTorch
        return wrap(var), wrap(mean if keepdim else mean.squeeze(dims) if dims else mean.reshape(()))

    @staticmethod
    def backward(ctx, grad_var, grad_mean):
        a, = ctx.saved_tensors
        return _var_mean_backward(ctx, a, grad_var, grad_mean), None, None, None, None


class StdMean(VarMean):
    """``torch.std_mean(x, dim)``: f(x) = (std, mean), std = sqrt(var).

    ∂L/∂x = ∂L/∂std * (x - mean) / (std * (N - correction)) + ∂L/∂mean / N: var's part for
    ∂L/∂var = ∂L/∂std / (2 std), taken as 0 where std = 0 (PyTorch's std_backward). Saves the input
    and the standard deviation.
    """

    _saved_names = ("self", "result0")
    _name = "std_mean"

    @staticmethod
    def forward(ctx, a, dims, correction, keepdim, everything=False):
        var, mean = VarMean.forward(ctx, a, dims, correction, keepdim, everything)
        std = wrap(np.sqrt(var._data))
        ctx.save_for_backward(a, std)
        return std, mean

    @staticmethod
    def backward(ctx, grad_std, grad_mean):
        a, std = ctx.saved_tensors
        grad_var = None if grad_std is None else (grad_std / (std * 2)).masked_fill(std == 0, 0)
        return _var_mean_backward(ctx, a, grad_var, grad_mean), None, None, None, None


def _running_mean(x: np.ndarray, dims: tuple) -> np.ndarray:
    """The mean PyTorch's var_mean computes, element by element (Welford's update m += (x_k - m) / k),
    kept with ``keepdims``. It equals sum / N for finite values; with an infinity it differs: an inf
    followed by a finite value gives nan, where sum / N gives inf."""
    moved = np.moveaxis(x, dims, range(x.ndim - len(dims), x.ndim)) if dims else x[..., None]
    rows = moved.reshape(moved.shape[:moved.ndim - max(len(dims), 1)] + (-1,))
    mean = np.zeros(rows.shape[:-1], x.dtype)
    for k in range(rows.shape[-1]):
        mean = mean + (rows[..., k] - mean) / x.dtype.type(k + 1)
    shape = tuple(1 if d in dims else n for d, n in enumerate(x.shape))
    return mean.reshape(shape)


def _var_mean_backward(ctx, a: Tensor, grad_var, grad_mean):
    """∂L/∂x from the variance's gradient (``var_backward``) plus the mean's, spread over the N elements."""
    dims, keepdim = ctx._saved_dim, ctx._saved_keepdim
    grad = None
    if grad_var is not None:
        grad = var_backward(grad_var, a, dims, ctx._saved_correction, keepdim, ctx._everything)
    if grad_mean is not None:
        spread = _restore_dims(grad_mean, dims, keepdim).expand(a.shape) / ctx._count
        grad = spread if grad is None else grad + spread
    return grad


def _statistics(function: type, name: str, a: Tensor, dim, unbiased, keepdim, correction) -> tuple:
    if a._data.dtype.kind not in "fc":
        raise RuntimeError(f"{name} only support floating point and complex dtypes")
    return function.apply(a, *_var_arguments(a, dim, unbiased, keepdim, correction), _over_everything(a, dim))


def var_mean(a: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *, correction=None) -> tuple:
    """``(var, mean)`` along ``dim``, with ``var``'s arguments."""
    return _statistics(VarMean, "var_mean", a, dim, unbiased, keepdim, correction)


def std_mean(a: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *, correction=None) -> tuple:
    """``(std, mean)`` along ``dim``, with ``std``'s arguments."""
    return _statistics(StdMean, "std_mean", a, dim, unbiased, keepdim, correction)
