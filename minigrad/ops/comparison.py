"""Comparison and selection: ``sign``, ``isclose``/``allclose``, ``flip``, ``masked_select``,
``index_select`` (``masked_fill_`` is with the other in-place functions, in ``inplace_unary.py``).

>>> import minigrad as torch
>>> x = torch.tensor([[1.0, -2.0], [3.0, -4.0]], requires_grad=True)
>>> x.flip(0)
tensor([[ 3., -4.],
        [ 1., -2.]], grad_fn=<FlipBackward0>)
>>> x.masked_select(x > 0)
tensor([1., 3.], grad_fn=<MaskedSelectBackward0>)
>>> x.index_select(1, torch.tensor([1, 1]))
tensor([[-2., -2.],
        [-4., -4.]], grad_fn=<IndexSelectBackward0>)
"""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from ._util import Builtin, NoEdge, check_broadcast, normalize_dims, view_of, wrap, wrap_dim
from .indexing import PutIntoZeros


class Signum(Builtin):
    """``torch.sign``: f(x) = -1, 0 or 1 as x is negative, zero or positive (0 for nan, as in PyTorch).

    ∂L/∂x = 0 everywhere (``zeros_like(grad)``, so a nan gradient gives 0). Nothing is saved.
    (abs's backward uses ``sgn``, the same values under the node name ``SgnBackward0``: see ``Sign``.)
    """

    _node_name = "SignBackward0"

    @staticmethod
    def forward(ctx, a):
        x = a._data
        if x.dtype.kind != "f":
            return wrap(x.copy() if x.dtype == np.bool_ else np.sign(x))
        return wrap(np.where(np.isnan(x), x.dtype.type(0), np.sign(x)))

    @staticmethod
    def backward(ctx, grad):
        return wrap(np.zeros_like(grad._data))


def _argument_error(function: str, name: str, position: int, expected: str, value) -> TypeError:
    return TypeError(f"{function}(): argument '{name}' (position {position}) must be {expected}, "
                     f"not {type(value).__name__}")


def isclose(a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """``|a - b| <= atol + rtol * |b|`` element-wise (equal infinities are close); never differentiable."""
    if not isinstance(b, Tensor):
        raise _argument_error("isclose", "other", 2, "Tensor", b)
    if a.dtype is not b.dtype:
        raise RuntimeError(f"{a.dtype.legacy_name[:-6]} did not match {b.dtype.legacy_name[:-6]}")
    for name, value in (("rtol", rtol), ("atol", atol)):
        if value < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {value}")
    check_broadcast(a._data.shape, b._data.shape)
    with np.errstate(invalid="ignore", over="ignore"):
        return wrap(np.isclose(a._data, b._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def allclose(a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """True when every element of ``isclose(a, b)`` is True."""
    if not isinstance(b, Tensor):
        raise _argument_error("allclose", "other", 2, "Tensor", b)
    return bool(isclose(a, b, rtol, atol, equal_nan)._data.all())


class Flip(Builtin):
    """``x.flip(dims)``: f(x) = x with the order of the elements reversed along each of ``dims``.

    ∂L/∂x = grad flipped along the same dims. Nothing is saved (flipping is its own inverse).
    """

    _node_name = "FlipBackward0"

    @staticmethod
    def forward(ctx, a, dims):
        ctx._saved_dims = dims
        return wrap(np.flip(a._data, dims).copy() if dims else a._data.copy())   # a copy, as in PyTorch

    @staticmethod
    def backward(ctx, grad):
        return Flip.apply(grad, ctx._saved_dims), None


def flip(a: Tensor, dims) -> Tensor:
    if isinstance(dims, int):
        raise _argument_error("flip", "dims", 2, "tuple of ints", dims)
    return Flip.apply(a, normalize_dims(tuple(dims), a.ndim))


class MaskedSelect(Builtin):
    """``x.masked_select(mask)``: f(x) = the elements of x where ``mask`` is True, as a 1-D tensor
    (x and mask broadcast against each other first).

    ∂L/∂x = zeros of the broadcast shape with ``grad`` put back where ``mask`` is True, summed
    back to x's shape. Saves x and the mask, as PyTorch's node: backward reads the mask, so an
    in-place change of either before backward is refused. The mask comes in a ``NoEdge``: no
    next_functions entry for it, as in PyTorch.
    """

    _node_name = "MaskedSelectBackward0"
    _saved_names = ("self", "mask")

    @staticmethod
    def forward(ctx, a, mask):
        mask = mask.tensor
        ctx._shape = check_broadcast(mask.shape, a._data.shape)
        ctx.save_for_backward(a, mask)
        return wrap(np.broadcast_to(a._data, ctx._shape)[np.broadcast_to(mask._data, ctx._shape)])

    @staticmethod
    def backward(ctx, grad):
        a, mask = ctx.saved_tensors
        if mask.shape != ctx._shape:   # a view of the mask, broadcast (it shares the mask's version counter)
            mask = view_of(mask, np.broadcast_to(mask._data, ctx._shape))
        spread = PutIntoZeros.apply(grad, ctx._shape, (mask,))
        return spread.sum_to_size(a.shape), None


def masked_select(a: Tensor, mask: Tensor) -> Tensor:
    if not isinstance(mask, Tensor):
        raise _argument_error("masked_select", "mask", 2, "Tensor", mask)
    if mask._data.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    return MaskedSelect.apply(a, NoEdge(mask))


class IndexSelect(Builtin):
    """``x.index_select(dim, index)``: f(x) = the slices x[..., index[k], ...] along ``dim``, in order.

    ∂L/∂x = zeros shaped like x with each slice of ``grad`` added at its index (a repeated index
    gets the sum). Saves the index (``_saved_index``), which backward reads, as PyTorch's node: an
    in-place change of it before backward, or a second backward, is refused. It comes in a
    ``NoEdge``: no next_functions entry for it, as in PyTorch. Keeps dim and x's shape.
    """

    _node_name = "IndexSelectBackward0"
    _saved_names = ("index",)

    @staticmethod
    def forward(ctx, a, dim, index):
        index = index.tensor
        ctx._shape, ctx._dim = a._data.shape, dim
        ctx.save_for_backward(index)
        if not a._data.ndim:
            return wrap(a._data.copy())
        return wrap(np.take(a._data, index._data.reshape(-1), axis=dim))

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        if not ctx._shape:
            return grad, None, None
        if index.ndim == 0:   # a 0-dim index picks one slice, as a 1-element one
            index = view_of(index, index._data.reshape(1))
        return PutIntoZeros.apply(grad, ctx._shape, (slice(None),) * ctx._dim + (index,)), None, None


def index_select(a: Tensor, dim: int, index: Tensor) -> Tensor:
    if not isinstance(index, Tensor):
        raise _argument_error("index_select", "index", 2, "Tensor", index)
    dim = wrap_dim(dim, a.ndim)
    if index._data.dtype not in (np.int64, np.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    indices = index._data.reshape(-1)
    if a.ndim == 0:
        if indices.size != 1:
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {indices.size} value(s)")
        if indices[0] != 0:
            raise IndexError("index out of range in self")
    size = a._data.shape[dim] if a.ndim else 1
    bad = (indices < 0) | (indices >= size)
    if bad.any():
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={indices[bad][0]} axis_dim={size}")
    return IndexSelect.apply(a, dim, NoEdge(index))


__all__ = ["Signum", "isclose", "allclose", "Flip", "flip", "MaskedSelect", "masked_select", "IndexSelect",
           "index_select"]
