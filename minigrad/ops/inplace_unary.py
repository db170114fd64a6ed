"""In-place element-wise functions (``x.exp_()``, ``x.relu_()``, ``x.clamp_(0, 1)``...) and the random
fills ``x.uniform_()`` and ``x.normal_()``.

An in-place function is its out-of-place Function with two changes: its result is written into the
input, which it marks dirty (so the version counter moves and, for a view, the base's history is
rewritten), and what backward needs is kept safe from that write. The node is the out-of-place
op's own, as in PyTorch (``ExpBackward0``, ``ClampBackward1``...):

- an op whose derivative reads its *output* (exp, tanh, sigmoid, relu, sqrt) saves the written
  tensor itself: changing it again in place is then caught at backward, as in PyTorch;
- an op whose derivative reads its *input* (log, sin, cos, abs, clamp) saves a copy of the old
  values, taken before they are overwritten (PyTorch saves ``self.clone()`` too).

>>> import minigrad as torch
>>> x = torch.tensor([0.0, 1.0], requires_grad=True)
>>> y = x * 2
>>> y.exp_()
tensor([1.0000, 7.3891], grad_fn=<ExpBackward0>)
>>> y.sum().backward(); x.grad
tensor([ 2.0000, 14.7781])
"""
from __future__ import annotations

import inspect

import numpy as np

from .. import factories
from ..autograd.views import check_inplace
from ..tensor import Tensor
from ._util import Builtin, NoEdge, wrap
from .arithmetic import Neg
from .comparison import Signum
from .hardtanh import Hardtanh
from .masking import MaskedFill, MaskedFillTensor, _check_mask, _is_tensor_value
from .pointwise import (Abs, Clamp, ClampTensor, Cos, Exp, Log, Relu, Sigmoid, Sin, Sqrt, Tanh,
                        has_tensor_bound, tensor_bounds)
from .scans import ScatterAddInto


def _kept_input(a: Tensor) -> Tensor:
    """A copy of ``a``'s values with ``a``'s history: what an op that saves its input must keep
    when the input is about to be overwritten."""
    copy = wrap(a._data.copy())
    if a.grad_fn is not None:
        copy.grad_fn, copy._output_nr = a.grad_fn, a._output_nr
    return copy


def _in_place(function: type, method: str) -> type:
    """The in-place version of an out-of-place Function whose first argument is the tensor written
    (same node name, same backward)."""

    def forward(ctx, a, *args):
        saves_input = "self" in function._saved_names and any(ctx.needs_input_grad)
        out = function.forward(ctx, _kept_input(a) if saves_input else a, *args)
        if out._data.dtype.kind == "f" and a._data.dtype.kind != "f":
            raise RuntimeError(f"result type Float can't be cast to the desired output type "
                               f"{a.dtype.legacy_name.replace('Tensor', '')}")
        np.copyto(a._data, out._data, casting="unsafe")
        if ctx.to_save is not None:   # a saved output is the written tensor itself
            ctx.to_save = tuple(a if t is out else t for t in ctx.to_save)
        ctx.mark_dirty(a)
        return a

    name = function.__name__ + "Inplace"
    doc = (f"``x.{method}(...)``: {function.__name__}'s result written into ``x``; its derivative is "
           f"{function.__name__}'s ({function._node_name}):\n\n{inspect.getdoc(function)}")
    return type(name, (function,), {"_node_name": function._node_name, "forward": staticmethod(forward),
                                    "__doc__": doc, "__module__": __name__})


ExpInplace, LogInplace, SinInplace, CosInplace = (_in_place(f, m) for f, m in [
    (Exp, "exp_"), (Log, "log_"), (Sin, "sin_"), (Cos, "cos_")])
TanhInplace, SigmoidInplace, ReluInplace, SqrtInplace = (_in_place(f, m) for f, m in [
    (Tanh, "tanh_"), (Sigmoid, "sigmoid_"), (Relu, "relu_"), (Sqrt, "sqrt_")])
AbsInplace, NegInplace, SignInplace, ClampInplace, HardtanhInplace = (_in_place(f, m) for f, m in [
    (Abs, "abs_"), (Neg, "neg_"), (Signum, "sign_"), (Clamp, "clamp_"), (Hardtanh, "hardtanh_")])
ClampTensorInplace = _in_place(ClampTensor, "clamp_")
MaskedFillInplace, MaskedFillTensorInplace = (_in_place(f, "masked_fill_") for f in (MaskedFill, MaskedFillTensor))
ScatterAddInplace = _in_place(ScatterAddInto, "scatter_add_")


def unary_(function: type, a: Tensor, *args) -> Tensor:
    """Run an in-place unary Function after PyTorch's checks (not a leaf that requires grad, not an
    expanded tensor...)."""
    check_inplace(a)
    return function.apply(a, *args)


def clamp_(a: Tensor, min=None, max=None) -> Tensor:
    """``a.clamp_(min, max)``; PyTorch names the C++ type when float bounds meet an integer tensor."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if has_tensor_bound(min, max):
        return unary_(ClampTensorInplace, a, *tensor_bounds(min, max))
    if a._data.dtype.kind in "biu" and any(isinstance(v, float) for v in (min, max)):
        from .linalg import _CPP_NAMES
        raise RuntimeError(f"result type Float can't be cast to the desired output type {_CPP_NAMES[a.dtype.name]}")
    return unary_(ClampInplace, a, min, max)


def masked_fill_(a: Tensor, mask: Tensor, value) -> Tensor:
    """Write ``value`` (a number or a 0-dim tensor) into ``a`` where ``mask`` is True."""
    shape = _check_mask(mask, a)
    if shape != a._data.shape:
        raise RuntimeError(f"output with shape {list(a.shape)} doesn't match the broadcast shape {list(shape)}")
    check_inplace(a, value)
    if _is_tensor_value(value):
        return MaskedFillTensorInplace.apply(a, NoEdge(mask), value)
    return MaskedFillInplace.apply(a, NoEdge(mask), value)


class UniformInplace(Builtin):
    """``x.uniform_(a, b)``: x filled with numbers drawn uniformly from [a, b).

    The new values do not depend on the old ones: ∂L/∂x = 0. Nothing is saved.
    """

    _node_name = "UniformBackward0"
    _draw = staticmethod(lambda low, high, shape: factories._generator.uniform(low, high, size=shape))

    @staticmethod
    def forward(ctx, a, first, second):
        a._data[...] = ctx._forward_cls._draw(first, second, a._data.shape)
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        return wrap(np.zeros_like(grad._data)), None, None


class NormalInplace(UniformInplace):
    """``x.normal_(mean, std)``: x filled with numbers drawn from a normal distribution.

    The new values do not depend on the old ones: ∂L/∂x = 0. Nothing is saved.
    """

    _node_name = "NormalBackward0"
    _draw = staticmethod(lambda mean, std, shape: factories._generator.normal(mean, std, size=shape))


def uniform_(a: Tensor, low: float = 0.0, high: float = 1.0) -> Tensor:
    if a._data.dtype.kind != "f":
        raise NotImplementedError(f"\"check_uniform_bounds\" not implemented for '{a.dtype.legacy_name[:-6]}'")
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={low} > to={high}")
    return unary_(UniformInplace, a, low, high)


def normal_(a: Tensor, mean: float = 0.0, std: float = 1.0) -> Tensor:
    if a._data.dtype.kind != "f":
        raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{a.dtype.legacy_name[:-6]}'")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    return unary_(NormalInplace, a, mean, std)
