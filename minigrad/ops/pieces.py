"""Several results from one node: ``var_mean`` and ``std_mean`` (two statistics in one pass), and
``unbind`` and ``split_with_sizes`` (views of the pieces of a tensor).

>>> import minigrad as torch
>>> x = torch.tensor([[1.0, 2.0], [3.0, 5.0]], requires_grad=True)
>>> torch.var_mean(x, 1)
(tensor([0.5000, 2.0000], grad_fn=<VarMeanBackward0>), tensor([1.5000, 4.0000], grad_fn=<VarMeanBackward0>))
>>> x.unbind(1)
(tensor([1., 3.], grad_fn=<UnbindBackward0>), tensor([2., 5.], grad_fn=<UnbindBackward0>))
"""
from __future__ import annotations

import warnings

import numpy as np

from ..tensor import Tensor
from ._util import Builtin, view_of, wrap, wrap_dim
from .reduction import _restore_dims
from .shape import MultiViewFunction, stack
from .splitting import SplitWithSizes, _wrap_dim
from .statistics import _over_everything, _var_arguments, var_backward


def _degrees_of_freedom(a: Tensor, dims: tuple, correction, name: str) -> float:
    dof = (int(np.prod([a.shape[d] for d in dims])) if a.ndim else 1) - correction
    if dof <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
                      "factor (input numel divided by output numel).", UserWarning, stacklevel=5)
    return dof


class VarMean(Builtin):
    """``torch.var_mean(x, dim)``: f(x) = (var, mean) over ``dims``, with
    var = sum((x - mean)^2) / (N - correction) and mean = sum(x) / N.

    ∂L/∂x = ∂L/∂var * 2 (x - mean) / (N - correction) + ∂L/∂mean / N (each part only when its
    output received a gradient; the var part is PyTorch's var_backward, as for ``var``, so
    N - correction <= 0 gives inf or nan, never a ZeroDivisionError). Saves the input.
    """

    _node_name = "VarMeanBackward0"
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

    _node_name = "StdMeanBackward0"
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


class Unbind(MultiViewFunction):
    """``x.unbind(dim)``: f(x) = (x[0], x[1], ...) along ``dim``: views, one per index.

    ∂L/∂x = the gradients of the pieces stacked back along ``dim`` (zeros for unused pieces).
    Nothing is saved.
    """

    _node_name = "UnbindBackward0"

    @staticmethod
    def forward(ctx, a, dim):
        ctx._saved_dim = dim
        lead = (slice(None),) * dim
        return tuple(view_of(a, a._data[lead + (i,)]) for i in range(a._data.shape[dim]))

    @staticmethod
    def backward(ctx, *grads):
        return stack(grads, ctx._saved_dim), None


def unbind(a: Tensor, dim: int = 0) -> tuple:
    dim = wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if a._data.shape[dim] == 0:
        return ()
    pieces = Unbind.apply(a, dim)
    return pieces if isinstance(pieces, tuple) else (pieces,)


def split_with_sizes(a: Tensor, split_sizes, dim: int = 0) -> tuple:
    """Views of consecutive pieces of the listed sizes along ``dim`` (they must add up to its length)."""
    if not isinstance(split_sizes, (list, tuple)):
        raise TypeError("split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, not "
                        f"{type(split_sizes).__name__}")
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = _wrap_dim(dim, a.ndim)
    sizes, length = [int(s) for s in split_sizes], a.shape[dim]
    if sum(sizes) != length:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {length} (input tensor's size "
                           f"at dimension {dim}), but got split_sizes={sizes}")
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                           f"split_sizes={sizes}")
    pieces = SplitWithSizes.apply(a, dim, tuple(sizes))
    return pieces if isinstance(pieces, tuple) else (pieces,)


__all__ = ["VarMean", "StdMean", "var_mean", "std_mean", "Unbind", "unbind", "split_with_sizes"]
