"""Activations with a parameter: ``leaky_relu`` and ``elu``, each a Function with PyTorch's node.

Their backward formulas are written with tensor operations on the saved input, so they can be
differentiated again (``create_graph=True``).

>>> import minigrad as torch
>>> x = torch.tensor([-1.0, 2.0], requires_grad=True)
>>> torch.nn.functional.leaky_relu(x, 0.2)
tensor([-0.2000,  2.0000], grad_fn=<LeakyReluBackward0>)
"""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from ._util import Builtin, wrap


def _check_floating(a: Tensor, kernel: str) -> None:
    if a._data.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{a.dtype.legacy_name[:-len('Tensor')]}'")


class LeakyRelu(Builtin):
    """f(a) = a where a > 0, else negative_slope * a

    ∂L/∂a = grad where a > 0, else negative_slope * grad
    Saves a, whose sign picks the slope (negative_slope is kept as a number).
    """

    _node_name = "LeakyReluBackward0"
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, negative_slope):
        _check_floating(a, "leaky_relu_cpu")
        ctx.save_for_backward(a)
        ctx._saved_negative_slope = negative_slope
        x = a._data
        return wrap(np.where(x > 0, x, x * x.dtype.type(negative_slope)))

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        slope = np.where(a._data > 0, 1, ctx._saved_negative_slope).astype(grad._data.dtype)
        return grad * wrap(slope), None


class Elu(Builtin):
    """f(a) = a where a > 0, else alpha * (exp(a) - 1)

    ∂L/∂a = grad where a > 0, else grad * alpha * exp(a)
    Saves a: the derivative reads its sign, and exp(a) on the negative side.
    """

    _node_name = "EluBackward0"
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, alpha):
        _check_floating(a, "elu_cpu")
        ctx.save_for_backward(a)
        ctx._saved_alpha, ctx._saved_scale, ctx._saved_input_scale = alpha, 1, 1
        x = a._data
        with np.errstate(over="ignore"):
            return wrap(np.where(x > 0, x, x.dtype.type(alpha) * np.expm1(np.minimum(x.dtype.type(0), x))))   # 0 first: -0.0 stays -0.0

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        from .pointwise import where
        # PyTorch's choice: the alpha * e^x branch where x <= 0 (so a nan input passes its gradient on);
        # inside it, e^min(x, 0) with a derivative only where x < 0 (the second derivative at 0 is 0)
        negative_part = grad * ctx._saved_alpha * where(a < 0, a, 0.0).exp()   # d/dx alpha * (e^x - 1)
        return where(a <= 0, negative_part, grad), None
