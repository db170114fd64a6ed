"""Element-wise functions of a sparse tensor: those with f(0) = 0, which leave the zeros zero.

``s.abs()``, ``s.sign()``, ``s.sin()``, ``s.sqrt()``, ``s.tanh()``, ``s.relu()`` (and ``torch.abs(s)``,
``F.relu(s)``...) coalesce s, then apply f to its values: the result is sparse, coalesced, with the
dense function's node name (``SinBackward0``...). Coalescing first matters: sin(1 + 2) is not
sin(1) + sin(2). ``s.isnan()`` and ``s.isinf()`` answer per stored value (a bool sparse tensor).

Each gradient is masked, on s's coordinates: ``grad * f'(s)`` there, written with tensor operations
(``ValuesAt`` reads s and grad at the coordinates), so that it can be differentiated again. PyTorch
2.13 computes the forward the same way, and the masked gradient of abs and relu; its backward of
sin, sqrt and tanh on a sparse input fails ("Could not run 'aten::cos' with arguments from the
'SparseCPU' backend").

>>> import minigrad as torch
>>> s = torch.sparse_coo_tensor([[0, 2, 2]], [-1.0, 0.5, 0.5], (4,))
>>> s.abs()
tensor(indices=tensor([[0, 2]]),
       values=tensor([1., 1.]),
       size=(4,), nnz=2, layout=torch.sparse_coo)
"""
from __future__ import annotations

import numpy as np

from ..ops._util import Builtin, zero_gradient
from ..ops.pointwise import _float, signum
from ..tensor import Tensor
from . import arrays
from .coo import SparseTensor
from .functions import SparseCooTensorWithDimsAndTensors, ValuesAt


class ZeroPreserving(Builtin):
    """The base of the element-wise functions below: forward coalesces and applies the subclass's
    ``values``; backward is its ``derivative`` at s's coordinates (ctx._forward_cls is the subclass).
    The result keeps s's dtype, except for the ``floating`` ones (sin, sqrt, tanh), which give float32
    for integer or bool values, as the dense functions do."""

    _saved_names = ("self",)
    floating = False

    @staticmethod
    def values(v: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    @staticmethod
    def derivative(v: Tensor, grad: Tensor) -> Tensor:
        raise NotImplementedError

    @staticmethod
    def forward(ctx, s):
        ctx.save_for_backward(s)
        indices, values = arrays.coalesce(s._index_array, s._value_array, tuple(s.shape))
        ctx.indices = indices
        if ctx._forward_cls.floating:
            values = _float(values)
        return s._like(indices, ctx._forward_cls.values(values).astype(values.dtype, copy=False), coalesced=True)

    @staticmethod
    def backward(ctx, grad):
        s, = ctx.saved_tensors
        shape = tuple(s.shape)
        at_values = ValuesAt.apply(s, ctx.indices, shape)            # s's (summed) values, differentiable
        grad_values = ValuesAt.apply(grad, ctx.indices, shape)
        return SparseCooTensorWithDimsAndTensors.apply(ctx._forward_cls.derivative(at_values, grad_values),
                                                       ctx.indices, shape, True)


class Abs(ZeroPreserving):
    """f(s) = |s| on the stored values (coalesced first)

    ∂L/∂s = grad * sign(s) (masked)
    Saves s. Node: AbsBackward0.
    """

    values = staticmethod(np.abs)

    @staticmethod
    def derivative(v, grad):
        return grad * v.sign()


class Sign(ZeroPreserving):
    """f(s) = sign(s) on the stored values (coalesced first): piecewise constant

    ∂L/∂s = 0 (masked: zeros at s's coordinates)
    Saves s. Node: SignBackward0.
    """

    values = staticmethod(signum)

    @staticmethod
    def derivative(v, grad):
        return zero_gradient(grad)


class Sin(ZeroPreserving):
    """f(s) = sin(s) on the stored values (coalesced first)

    ∂L/∂s = grad * cos(s) (masked)
    Saves s. Node: SinBackward0.
    """

    values = staticmethod(np.sin)
    floating = True

    @staticmethod
    def derivative(v, grad):
        return grad * v.cos()


class Sqrt(ZeroPreserving):
    """f(s) = sqrt(s) on the stored values (coalesced first)

    ∂L/∂s = grad / (2 sqrt(s)) (masked)
    Saves s. Node: SqrtBackward0.
    """

    values = staticmethod(np.sqrt)
    floating = True

    @staticmethod
    def derivative(v, grad):
        return grad / (2 * v.sqrt())


class Tanh(ZeroPreserving):
    """f(s) = tanh(s) on the stored values (coalesced first)

    ∂L/∂s = grad * (1 - tanh(s)²) (masked)
    Saves s. Node: TanhBackward0.
    """

    values = staticmethod(np.tanh)
    floating = True

    @staticmethod
    def derivative(v, grad):
        t = v.tanh()
        return grad * (1 - t * t)


class Relu(ZeroPreserving):
    """f(s) = max(s, 0) on the stored values (coalesced first; an entry that becomes 0 stays stored)

    ∂L/∂s = grad where s > 0, 0 elsewhere (masked)
    Saves s. Node: ReluBackward0.
    """

    @staticmethod
    def values(v):
        return np.maximum(v, 0)

    @staticmethod
    def derivative(v, grad):
        return grad * (v > 0)


def test(s: SparseTensor, test) -> SparseTensor:
    """``s.isnan()``, ``s.isinf()``: ``test`` of each stored value (coalesced first), a bool sparse tensor."""
    indices, values = arrays.coalesce(s._index_array, s._value_array, tuple(s.shape))
    result = test(values) if values.dtype.kind in "fc" else np.zeros(values.shape, bool)
    return SparseTensor._from_arrays(indices, result, s.shape, coalesced=True)
