"""``hardtanh``: x clipped to [min_val, max_val]. The gradient that straight-through estimators use
(``F.hardtanh(grad_output)`` in their backward), and BinaryNet's activation.

>>> import minigrad as torch
>>> x = torch.tensor([-2.0, 0.5, 1.0], requires_grad=True)
>>> torch.nn.functional.hardtanh(x)
tensor([-1.0000,  0.5000,  1.0000], grad_fn=<HardtanhBackward0>)
"""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from ._util import Builtin, wrap


class Hardtanh(Builtin):
    """``F.hardtanh(x, min_val, max_val)``: f(x) = min(max(x, min_val), max_val).

    ∂L/∂x = grad where min_val < x < max_val (strictly: 0 at the corners, unlike clamp), else 0.
    Saves the input.
    """

    _node_name = "HardtanhBackward0"
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, min_val, max_val):
        if a._data.dtype == np.bool_:
            raise RuntimeError("Bool inputs not supported for hardtanh")
        ctx.save_for_backward(a)
        ctx._saved_min_val, ctx._saved_max_val = min_val, max_val
        x = a._data
        return wrap(np.clip(x, x.dtype.type(min_val), x.dtype.type(max_val)))

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        inside = (a._data > ctx._saved_min_val) & (a._data < ctx._saved_max_val)
        return grad * wrap(inside), None, None


def hardtanh(a: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        from .inplace_unary import HardtanhInplace, unary_
        return unary_(HardtanhInplace, a, min_val, max_val)
    return Hardtanh.apply(a, min_val, max_val)
