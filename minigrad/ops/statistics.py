"""``prod``, ``var`` and ``std``: reductions whose gradient depends on every element.

>>> import minigrad as torch
>>> x = torch.tensor([[1.0, 2.0], [3.0, 5.0]], requires_grad=True)
>>> x.prod(1)
tensor([ 2., 15.], grad_fn=<ProdBackward1>)
>>> x.var()
tensor(2.9167, grad_fn=<VarBackward0>)
"""
from __future__ import annotations

import sys
import warnings

import numpy as np

from .. import grad_mode
from ..tensor import Tensor
from ._util import Builtin, normalize_dims, wrap
from .reduction import _restore_dims


def _prod_input(a: Tensor, dtype) -> np.ndarray:
    x = a._data
    if dtype is not None:
        return x.astype(dtype.numpy)
    return x.astype(np.int64) if x.dtype.kind in "biu" else x


def _product_of_the_others(x: np.ndarray, axis: int) -> np.ndarray:
    """For each element, the product of the other elements along ``axis`` (correct with zeros)."""
    ones = np.ones_like(np.take(x, [0], axis=axis))
    before = np.cumprod(np.concatenate([ones, np.delete(x, -1, axis=axis)], axis=axis), axis=axis)
    after = np.flip(np.cumprod(np.concatenate([ones, np.flip(np.delete(x, 0, axis=axis), axis)], axis=axis),
                               axis=axis), axis)
    return before * after


def _prod_grad(grad: Tensor, a: Tensor, result: Tensor, axis) -> Tensor:
    """``grad * result / a``, or, where ``a`` has zeros, grad times the product of the others."""
    if (a._data != 0).all():
        return grad * result / a
    if grad_mode.is_grad_enabled():
        raise NotImplementedError("minigrad: the second derivative of prod() over an input that contains "
                                  "zeros is not implemented")
    if axis is None:
        others = _product_of_the_others(a._data.reshape(-1), 0).reshape(a._data.shape)
    else:
        others = _product_of_the_others(a._data, axis)
    return grad * wrap(others.astype(grad._data.dtype, copy=False))


class Prod(Builtin):
    """f(a) = the product of all elements of a

    ∂L/∂a_i = grad * (the product of the other elements), computed as grad * f / a_i when a has no
    zeros, else from running products from each side
    Saves a and f, which the derivative reads. The second derivative where a has zeros is not
    implemented (a NotImplementedError says so).
    """

    _node_name = "ProdBackward0"
    _saved_names = ("self", "result")

    @staticmethod
    def forward(ctx, a, dtype=None):
        out = wrap(_prod_input(a, dtype).prod())
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        return _prod_grad(grad, a, result, None), None


class ProdDim(Builtin):
    """f(a) = the product of the elements of a along dim

    ∂L/∂a_i = grad * (the product of the others along dim), as Prod's
    Saves a and f, which the derivative reads. Node: ProdBackward1.
    """

    _node_name = "ProdBackward1"
    _saved_names = ("self", "result")

    @staticmethod
    def forward(ctx, a, dim, keepdim, dtype=None):
        out = wrap(_prod_input(a, dtype).prod(axis=dim, keepdims=keepdim))
        ctx.save_for_backward(a, out)
        ctx._saved_dim, ctx._saved_keepdim = dim, keepdim
        return out

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        dims = (ctx._saved_dim,)
        grad = _restore_dims(grad, dims, ctx._saved_keepdim)
        result = _restore_dims(result, dims, ctx._saved_keepdim)
        return _prod_grad(grad, a, result, ctx._saved_dim), None, None, None


def prod(a: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The product of all elements, or along one dimension ``dim``."""
    if dim is None:
        return Prod.apply(a, dtype) if dtype is not None else Prod.apply(a)
    if not isinstance(dim, int):
        raise TypeError(f"prod() received an invalid combination of arguments - got ({type(dim).__name__}), but "
                        "expected one of:\n * (*, torch.dtype dtype = None)\n"
                        " * (int dim, bool keepdim = False, *, torch.dtype dtype = None)\n")
    return ProdDim.apply(a, normalize_dims(dim, a.ndim)[0] if a.ndim else 0, keepdim, dtype)


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

    _node_name = "VarBackward0"
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

    _node_name = "StdBackward0"
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
    return normalize_dims(dim, a.ndim), correction, keepdim


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
