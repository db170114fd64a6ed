"""Reductions: ``sum``, ``mean``, ``amax``/``amin``, ``prod`` and ``norm`` (``max``/``min``, which also
return indices along a dimension, are in ``sorting.py``; ``var``/``std`` in ``statistics.py``).

>>> import minigrad as torch
>>> x = torch.tensor([[3.0, -4.0], [1.0, 2.0]], requires_grad=True)
>>> x.amax(1)
tensor([3., 2.], grad_fn=<AmaxBackward0>)
>>> x.prod(1)
tensor([-12.,   2.], grad_fn=<ProdBackward1>)
>>> x.norm(dim=1)
tensor([5.0000, 2.2361], grad_fn=<LinalgVectorNormBackward0>)
"""
from __future__ import annotations

import math

import numpy as np

from .. import grad_mode
from ..tensor import Tensor
from ._util import Builtin, accumulate, accumulation_dtype, check_keepdim, normalize_dims, reduced_dims, wrap, wrap_dim
from .shape import View


def _restore_dims(grad: Tensor, dims: tuple, keepdim: bool) -> Tensor:
    """Put back the reduced dimensions (as size 1) so the gradient broadcasts over them."""
    if not keepdim:
        for d in dims:
            grad = grad.unsqueeze(d)
    return grad


class Sum(Builtin):
    """f(a) = the sum of all elements of a, in ``dtype`` if given, else in int64 for an integer or bool a

    ∂L/∂a = grad expanded to a's shape: each element's derivative is 1
    Saves nothing: keeps a's shape.
    """

    @staticmethod
    def forward(ctx, a, dtype=None):
        ctx._shape = a.shape
        return wrap(accumulate(np.add.reduce, a._data, dtype, axis=None))

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx._shape), None


class SumDim(Builtin):
    """f(a) = a summed over dims (kept as size 1 with keepdim)

    ∂L/∂a = grad, with the summed dims put back as size 1, expanded to a's shape
    Saves nothing: keeps a's shape, dims and keepdim. Node: SumBackward1.
    """

    _node_name = "SumBackward1"

    @staticmethod
    def forward(ctx, a, dims, keepdim, dtype=None):
        ctx._shape, ctx._dims, ctx._keepdim = a.shape, dims, keepdim
        x = a._data   # np.add.reduce: x.sum(...), minus a Python layer
        return wrap(accumulate(np.add.reduce, x, dtype, axis=dims, keepdims=keepdim))

    @staticmethod
    def backward(ctx, grad):
        return _restore_dims(grad, ctx._dims, ctx._keepdim).expand(ctx._shape), None, None, None


class Mean(Builtin):
    """f(a) = sum(a) / N, for the N elements of a

    ∂L/∂a = grad / N, expanded to a's shape
    Saves nothing: keeps a's shape. (``a.mean(dtype=...)``: MeanDtype.)
    """

    @staticmethod
    def forward(ctx, a):
        return _mean(ctx, a, a._data)

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx._shape) / (ctx._shape.numel() or 1)


class MeanDtype(Mean):
    """f(a) = sum(a) / N, computed in the given dtype (``a.mean(dtype=torch.float64)``)

    ∂L/∂a = grad / N, expanded to a's shape (Mean's backward; the engine casts it to a's dtype)
    Saves nothing: keeps a's shape. Node: MeanBackward0, as for Mean.
    """

    _node_name = "MeanBackward0"

    @staticmethod
    def forward(ctx, a, dtype):
        return _mean(ctx, a, a._data.astype(dtype.numpy))

    @staticmethod
    def backward(ctx, grad):
        return Mean.backward(ctx, grad), None   # None: dtype is not a tensor


def _mean(ctx, a: Tensor, x: np.ndarray) -> Tensor:
    """Mean's and MeanDtype's forward: the mean of ``x`` (``a``'s values, in the dtype asked for);
    ctx keeps ``a``'s shape for backward."""
    ctx._shape = a.shape
    if x.size and (x.dtype == np.float32 or x.dtype == np.float64):
        total = np.add.reduce(x, axis=None)   # what x.mean() computes, minus its Python layer
        return wrap(total.dtype.type(total / np.intp(x.size)))
    if not x.size:   # the mean of nothing is nan, without numpy's "Mean of empty slice" warning
        return wrap(np.full((), np.nan, x.dtype))
    return wrap(x.mean())


class MeanDim(Builtin):
    """f(a) = a summed over dims, divided by the number n of elements summed

    ∂L/∂a = grad / n, with the reduced dims put back as size 1, expanded to a's shape
    Saves nothing: keeps a's shape, dims, keepdim and n. Node: MeanBackward1.
    """

    _node_name = "MeanBackward1"

    @staticmethod
    def forward(ctx, a, dims, keepdim, dtype=None):
        ctx._shape, ctx._dims, ctx._keepdim = a.shape, dims, keepdim
        x = a._data if dtype is None else a._data.astype(dtype.numpy)
        ctx._count = int(np.prod([a.shape[d] for d in dims])) if dims else 1
        if not x.size:   # the mean of nothing is nan, without numpy's "Mean of empty slice" warning
            return wrap(np.full(x.sum(axis=dims, keepdims=keepdim).shape, np.nan, x.dtype))
        return wrap(x.mean(axis=dims, keepdims=keepdim))

    @staticmethod
    def backward(ctx, grad):
        return _restore_dims(grad, ctx._dims, ctx._keepdim).expand(ctx._shape) / ctx._count, None, None, None


def sum(a: Tensor, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    if dim is None and keepdim is False:
        return Sum.apply(a, dtype) if dtype is not None else Sum.apply(a)
    check_keepdim("sum", keepdim)
    return SumDim.apply(a, reduced_dims(dim, a.ndim), keepdim, dtype)


def mean(a: Tensor, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """The mean over ``dim`` (all elements by default), in ``dtype`` if given: a floating-point one."""
    kind, checked = ("Optional", dtype) if dtype is not None else ("Input", a.dtype)
    if not checked.is_floating_point:
        raise RuntimeError(f"mean(): could not infer output dtype. {kind} dtype must be either a floating point or "
                           f"complex dtype. Got: {checked.legacy_name.replace('Tensor', '')}")
    if dim is None and keepdim is False:
        return MeanDtype.apply(a, dtype) if dtype is not None else Mean.apply(a)
    check_keepdim("mean", keepdim)
    return MeanDim.apply(a, reduced_dims(dim, a.ndim), keepdim, dtype)


def sum_to_size(a: Tensor, shape) -> Tensor:
    """Sum the dimensions that broadcasting added or stretched, giving ``shape`` (which must broadcast
    to a's shape)."""
    shape = tuple(shape)
    own = a._data.shape
    if not shape:   # as PyTorch's sum_to: the sum of everything, even of a 0-dim tensor (int64 for integers)
        return Sum.apply(a)
    if own == shape:
        return a
    lead = len(own) - len(shape)
    if lead > 0 and own[lead:] == shape and not grad_mode.state.enabled:
        # Only leading dimensions to drop and nothing is recorded: one sum gives the same values
        # as PyTorch's two steps below (a bias's gradient in a backward without create_graph).
        return SumDim.apply(a, tuple(range(lead)), False)
    if lead < 0 or any(n != m and n != 1 for n, m in zip(reversed(shape), reversed(own))):
        raise RuntimeError(f"size {{[{', '.join(map(str, shape))}]}} is not expandable to size "
                           f"{{[{', '.join(map(str, own))}]}}.")
    stretched = tuple(lead + i for i, n in enumerate(shape) if n == 1 and own[lead + i] != 1)
    dims = tuple(range(lead)) + stretched
    out = SumDim.apply(a, dims, True) if dims else a
    return View.apply(out, shape) if lead else out   # as PyTorch: sum with keepdim, then view


# ------------------------------------------------------------------------------------ amax, amin
class Amax(Builtin):
    """f(a) = the largest element of a over dims (all dims when none are given)

    ∂L/∂a = (grad / k) * mask, where mask marks the k elements equal to f: tied maxima share the
    gradient, as PyTorch's ``scale_grad_by_count`` (a product with the mask, so an inf gradient gives
    nan at the others, and a nan maximum, equal to nothing, a nan gradient, as in PyTorch)
    Saves a and f, which the mask compares. Node: AmaxBackward0.
    """

    _saved_names = ("self", "result")
    _name = "amax"
    _reduce = staticmethod(np.max)

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        ctx._saved_dim, ctx._saved_keepdim = dims, keepdim
        axes = dims or None
        out = wrap(np.asarray(ctx._forward_cls._reduce(a._data, axis=axes, keepdims=keepdim)))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        dims = ctx._saved_dim or tuple(range(a.ndim))
        grad, result = _restore_dims(grad, dims, ctx._saved_keepdim), _restore_dims(result, dims, ctx._saved_keepdim)
        mask = a._data == result._data
        count = wrap(mask.sum(axis=dims, keepdims=True))
        return grad / count * wrap(mask), None, None


class Amin(Amax):
    """f(a) = the smallest element of a over dims (all dims when none are given)

    ∂L/∂a = (grad / k) * mask, for the k elements equal to f, as Amax's
    Saves a and f. Node: AminBackward0.
    """

    _name = "amin"
    _reduce = staticmethod(np.min)


def _extreme(function: type, a: Tensor, dim, keepdim: bool) -> Tensor:
    dims = normalize_dims(() if dim is None else dim, a.ndim)
    if a._data.size == 0:
        if not dims:
            raise RuntimeError(f"{function._name}(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        empty = [d for d in dims if a.shape[d] == 0]
        if empty:
            raise IndexError(f"{function._name}(): Expected reduction dim {empty[0]} to have non-zero size.")
    return function.apply(a, dims, keepdim)


def amax(a: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    """The largest value over ``dim`` (an int or a tuple; all dimensions by default)."""
    return _extreme(Amax, a, dim, keepdim)


def amin(a: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    """The smallest value over ``dim`` (an int or a tuple; all dimensions by default)."""
    return _extreme(Amin, a, dim, keepdim)




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
    """f(a) = the product of all elements of a, in ``dtype`` if given, else in int64 for an integer or bool a

    ∂L/∂a_i = grad * (the product of the other elements), computed as grad * f / a_i when a has no
    zeros, else from running products from each side
    Saves a and f, which the derivative reads. The second derivative where a has zeros is not
    implemented (a NotImplementedError says so).
    """

    _saved_names = ("self", "result")

    @staticmethod
    def forward(ctx, a, dtype=None):
        out = wrap(accumulate(np.multiply.reduce, a._data, dtype, axis=None))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        if a.ndim == 0:   # f(a) = a: PyTorch passes grad on as it is
            return grad, None
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
        x = a._data
        out = wrap(accumulate(np.multiply.reduce, x, dtype, axis=dim, keepdims=keepdim) if x.ndim
                   else x.astype(accumulation_dtype(x, dtype)))   # a 0-dim a: itself
        ctx.save_for_backward(a, out)
        ctx._saved_dim, ctx._saved_keepdim = dim, keepdim
        return out

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        if a.ndim == 0:   # f(a) = a: PyTorch passes grad on as it is
            return grad, None, None, None
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
    check_keepdim("prod", keepdim)
    return ProdDim.apply(a, wrap_dim(dim, a.ndim), keepdim, dtype)


# ------------------------------------------------------------------------------------ norm
class LinalgVectorNorm(Builtin):
    """``x.norm(p, dim)``: f(x) = (sum |x|^p) ^ (1/p) over ``dim`` (p = inf: max |x|; p = 0: the
    number of non-zero elements).

    ∂L/∂x, with n = f(x): p = 2: grad * x / n; p = 1: grad * sign(x); p = inf: grad * sign(x)
    shared among the elements where |x| = n; other p: grad * sign(x) * |x|^(p-1) / n^(p-1);
    p = 0: none (the count does not change under small moves). Wherever n = 0 the gradient is 0.
    Saves the input and the result, as PyTorch does.
    """

    _saved_names = ("self", "result")

    @staticmethod
    def forward(ctx, a, p, dims, keepdim, dtype):
        ctx._saved_ord, ctx._saved_dim, ctx._saved_keepdim, ctx._input_dtype = p, dims, keepdim, a.dtype
        x = np.abs(a._data if dtype is None else a._data.astype(dtype.numpy))
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            if p == math.inf:
                out = np.max(x, axis=dims, keepdims=keepdim, initial=0)
            elif p == -math.inf:
                out = np.min(x, axis=dims, keepdims=keepdim)
            elif p == 0:
                out = np.count_nonzero(x, axis=dims, keepdims=keepdim).astype(x.dtype)
            elif p == 1:
                out = np.sum(x, axis=dims, keepdims=keepdim)
            elif p == 2:
                out = np.sqrt(np.sum(x * x, axis=dims, keepdims=keepdim))
            else:
                out = np.sum(x ** p, axis=dims, keepdims=keepdim) ** (1 / p)
        result = wrap(np.asarray(out, dtype=x.dtype))
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, norm = ctx.saved_tensors
        p, dims = ctx._saved_ord, ctx._saved_dim
        if p == 0:
            return None, None, None, None, None
        if norm.dtype is not a.dtype:   # norm(dtype=...) computed in another dtype
            a = a.to(norm.dtype)
        grad_a = LinalgVectorNorm._gradient(grad, a, norm, p, dims, ctx._saved_keepdim)
        return grad_a.to(ctx._input_dtype), None, None, None, None

    @staticmethod
    def _gradient(grad: Tensor, a: Tensor, norm: Tensor, p: float, dims: tuple, keepdim: bool) -> Tensor:
        grad, norm = _restore_dims(grad, dims, keepdim), _restore_dims(norm, dims, keepdim)
        zero = norm == 0
        if p == 2:
            return grad * (a / norm).masked_fill(zero, 0)
        if p == 1:
            return a.sign() * grad
        if math.isinf(p):
            magnitude = a.abs()
            winners = (magnitude == norm) | magnitude.isnan()
            shared = winners.to(a.dtype)
            return a.sign() * ((grad / shared.sum(dims, keepdim=True)) * shared)
        if p < 1:
            scaled = a.sign() * (a.abs() ** (p - 1)).masked_fill(a == 0, 0)
            return scaled * grad * norm ** (1 - p)
        scaled = a.sign() * a.abs() ** (p - 1) if p < 2 else a * a.abs() ** (p - 2)
        return scaled * (grad / norm ** (p - 1)).masked_fill(zero, 0)


def norm(a: Tensor, p="fro", dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """The vector p-norm of ``a`` (all elements, or over ``dim``); ``'fro'`` is the 2-norm."""
    if isinstance(p, str):
        if p != "fro":
            if p == "nuc":
                raise NotImplementedError("minigrad: the nuclear norm (norm(p='nuc'), a matrix norm) is not "
                                          "implemented")
            raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
        p = 2
    if p is None:
        p = 2
    if a._data.dtype.kind not in "fc":
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{a.dtype.legacy_name[:-6]}")
    dims = normalize_dims(dim, a.ndim)
    empty = [d for d in dims if a.shape[d] == 0] if math.isinf(p) else []
    if empty:   # max and min of nothing: PyTorch's two texts (the second one lacks a space, as in PyTorch)
        where = "an empty tensor " if dim is None else f"the dimension {empty[0]}because this dimension is empty and "
        raise RuntimeError(f"linalg.vector_norm cannot compute the {p} norm on {where}"
                           f"{'because ' if dim is None else ''}the operation does not have an identity")
    return LinalgVectorNorm.apply(a, float(p), dims, keepdim, dtype)
