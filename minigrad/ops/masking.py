"""Masks: ``masked_fill`` (a Function), and the never-differentiable tests ``nonzero``, ``isnan``,
``isinf``, ``isfinite``.

>>> import minigrad as torch
>>> x = torch.tensor([1.0, float('nan'), 3.0], requires_grad=True)
>>> torch.isnan(x)
tensor([False,  True, False])
>>> x.masked_fill(torch.isnan(x), 0.0)
tensor([1., 0., 3.], grad_fn=<MaskedFillBackward0>)
>>> torch.isnan(x).nonzero()
tensor([[1]])
"""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from ._util import Builtin, NoEdge, binary_arrays, check_broadcast, wrap

# How PyTorch's C++ core names element types in its error messages.
_CPP_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
                   "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char"}


def _check_mask(mask: Tensor, a: Tensor) -> tuple:
    """PyTorch's checks of a mask for ``masked_fill``; returns the shape mask and a broadcast to."""
    if mask._data.dtype != np.bool_:
        name = _CPP_TYPE_NAMES.get(mask._data.dtype.name, mask._data.dtype.name)
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {name}")
    return check_broadcast(mask._data.shape, a._data.shape)


class MaskedFill(Builtin):
    """f(a) = value where mask, else a (value a number)

    ∂L/∂a = grad, with 0 where mask
    Saves the mask (``_saved_mask``), which backward reads, as PyTorch's node: an in-place change of
    it before backward, or a second backward, is refused. It comes in a ``NoEdge``: like PyTorch's
    node, this one has no next_functions entry for it.
    """

    _node_name = "MaskedFillBackward0"
    _saved_names = ("mask",)

    @staticmethod
    def forward(ctx, a, mask, value):
        mask = mask.tensor
        ctx.save_for_backward(mask)
        x = a._data
        return wrap(np.where(mask._data, x.dtype.type(value), x))

    @staticmethod
    def backward(ctx, grad):
        mask, = ctx.saved_tensors
        return grad.masked_fill(mask, 0), None, None


class MaskedFillTensor(Builtin):
    """f(a, value) = value where mask, else a (value a 0-dim tensor)

    ∂L/∂a = grad, with 0 where mask;  ∂L/∂value = the sum of grad where mask
    Saves the mask (``_saved_mask``), which both gradients read, as MaskedFill (in a ``NoEdge``).
    Node: MaskedFillBackward1.
    """

    _node_name = "MaskedFillBackward1"
    _saved_names = ("mask",)

    @staticmethod
    def forward(ctx, a, mask, value):
        mask = mask.tensor
        ctx.save_for_backward(mask)
        x, v = binary_arrays(a, value)
        return wrap(np.where(mask._data, v.astype(x.dtype, copy=False), a._data))

    @staticmethod
    def backward(ctx, grad):
        mask, = ctx.saved_tensors
        grad_value = grad.masked_fill(~mask, 0).sum() if ctx.needs_input_grad[2] else None
        return grad.masked_fill(mask, 0), None, grad_value


def masked_fill(a: Tensor, mask: Tensor, value) -> Tensor:
    """``a`` with ``value`` written where ``mask`` (a bool tensor broadcastable to ``a``) is True."""
    _check_mask(mask, a)
    if _is_tensor_value(value):
        return MaskedFillTensor.apply(a, NoEdge(mask), value)
    return MaskedFill.apply(a, NoEdge(mask), value)


def _is_tensor_value(value) -> bool:
    """True for a 0-dim tensor value (its gradient flows), False for a number; PyTorch's error otherwise."""
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.ndim} dimension(s).")
    return isinstance(value, Tensor)


def nonzero(a: Tensor, as_tuple: bool = False):
    """Indices of the non-zero elements: one row per element (int64), or one tensor per dimension."""
    x = a._data if a._data.dtype == np.bool_ else a._data != 0   # numpy finds True values fastest
    if as_tuple:
        return tuple(wrap(i.astype(np.int64)) for i in np.nonzero(np.atleast_1d(x)))
    if x.ndim == 0:
        return wrap(np.zeros((1 if x else 0, 0), dtype=np.int64))
    return wrap(np.argwhere(x).astype(np.int64))


def isnan(a: Tensor) -> Tensor:
    return wrap(np.isnan(a._data) if a._data.dtype.kind == "f" else np.zeros(a._data.shape, bool))


def isinf(a: Tensor) -> Tensor:
    return wrap(np.isinf(a._data) if a._data.dtype.kind == "f" else np.zeros(a._data.shape, bool))


def isfinite(a: Tensor) -> Tensor:
    return wrap(np.isfinite(a._data) if a._data.dtype.kind == "f" else np.ones(a._data.shape, bool))


__all__ = ["MaskedFill", "MaskedFillTensor", "masked_fill", "nonzero", "isnan", "isinf", "isfinite"]
