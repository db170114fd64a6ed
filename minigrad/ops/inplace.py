"""In-place operations: arithmetic (``add_``, ``mul_``, ``+=``, ``zero_``, ``copy_``, ``pow_``...),
element-wise functions (``x.exp_()``, ``x.relu_()``, ``x.clamp_(0, 1)``...), ``masked_fill_``,
``scatter_add_``, and the random fills ``x.uniform_()`` and ``x.normal_()``. Each modifies its first
input and calls ``ctx.mark_dirty`` on it, which bumps its version counter.

An in-place element-wise function is its out-of-place Function with two changes: its result is
written into the input, which it marks dirty (so the version counter moves and, for a view, the
base's history is rewritten), and what backward needs is kept safe from that write. The node is the
out-of-place op's own, as in PyTorch (``ExpBackward0``, ``ClampBackward1``...):

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
from ..autograd.views import check_inplace, check_no_partial_overlap, writeable_memory
from ..tensor import Tensor, _operand
from ..types import scalar_as
from ._util import (Builtin, NoEdge, _CPP_NAMES, binary_arrays, check_broadcast, qualify_node_name, result_dtype,
                    times_alpha, wrap, zero_gradient)
from .activation import Hardtanh, Relu
from .arithmetic import (Add, AddScaled, DivRounding, Neg, Pow, PowTensor, Sub, SubScaled, check_bool_subtraction,
                         power, scalar_power)
from .gather_scatter import ScatterAddInto
from .indexing import MaskedFill, MaskedFillTensor, _check_mask, _is_tensor_value
from .pointwise import (Abs, Clamp, ClampTensor, Cos, Exp, Log, Sigmoid, Signum, Sin, Sqrt, Tanh, has_tensor_bound,
                        tensor_bounds)


def _old_values(a: Tensor, b: Tensor) -> Tensor:
    """``b`` as backward will need it: a copy if writing into ``a`` overwrites it (``a`` itself,
    ``v.mul_(v)``, or another view of the same memory). The copy keeps ``b``'s history, as PyTorch's
    saved ``self.clone()`` does, so that a backward of backward still reaches it."""
    if b._version_counter is not a._version_counter:
        return b
    copy = wrap(b._data.copy())
    if b.grad_fn is not None:
        copy.grad_fn, copy._output_nr = b.grad_fn, b._output_nr
    return copy


def _write(numpy_function, a: Tensor, y) -> None:
    try:
        numpy_function(a._data, y, out=writeable_memory(a._data))   # (numpy's default casting: "same_kind")
    except TypeError:   # numpy refuses e.g. writing floats into an integer tensor
        raise RuntimeError(f"result type {'Float' if np.asarray(y).dtype.kind == 'f' else 'Long'} can't be cast "
                           f"to the desired output type {a.dtype.legacy_name.replace('Tensor', '')}") from None


def _alpha_times(alpha, a: Tensor, b: Tensor) -> np.ndarray:
    """``alpha * b`` for ``a.add_(b, alpha=...)`` and ``sub_``, in the dtype of ``a + b``."""
    return times_alpha(alpha, b._data.astype(result_dtype(a, b).numpy, copy=False))


class AddInplace(Add):
    """f(a, b) = a + b, written into a (``a.add_(b)``, ``a += b``)

    ∂L/∂a = grad,  ∂L/∂b = grad: Add's backward
    Saves nothing. Node: AddBackward0, as for ``a + b``. (``add_(b, alpha=k)``: AddScaledInplace.)
    """

    _node_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, b):
        _write(np.add, a, b._data)
        ctx.mark_dirty(a)
        return a


class AddScaledInplace(AddScaled):
    """f(a, b, k) = a + k * b, written into a (``a.add_(b, alpha=k)``)

    ∂L/∂a = grad,  ∂L/∂b = k * grad: AddScaled's backward
    Saves nothing: keeps k. Node: AddBackward0.
    """

    _node_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, b, alpha):
        ctx._alpha = alpha
        _write(np.add, a, _alpha_times(alpha, a, b))
        ctx.mark_dirty(a)
        return a


class SubInplace(Sub):
    """f(a, b) = a - b, written into a (``a.sub_(b)``, ``a -= b``)

    ∂L/∂a = grad,  ∂L/∂b = -grad: Sub's backward
    Saves nothing. Node: SubBackward0, as for ``a - b``. (``sub_(b, alpha=k)``: SubScaledInplace.)
    """

    _node_name = "SubBackward0"

    @staticmethod
    def forward(ctx, a, b):
        check_bool_subtraction(a, b)
        _write(np.subtract, a, b._data)
        ctx.mark_dirty(a)
        return a


class SubScaledInplace(SubScaled):
    """f(a, b, k) = a - k * b, written into a (``a.sub_(b, alpha=k)``)

    ∂L/∂a = grad,  ∂L/∂b = -k * grad: SubScaled's backward
    Saves nothing: keeps k. Node: SubBackward0.
    """

    _node_name = "SubBackward0"

    @staticmethod
    def forward(ctx, a, b, alpha):
        check_bool_subtraction(a, b)
        ctx._alpha = alpha
        _write(np.subtract, a, _alpha_times(alpha, a, b))
        ctx.mark_dirty(a)
        return a


class MulInplace(Builtin):
    """f(a, b) = a * b, written into a (``a.mul_(b)``, ``a *= b``)

    ∂L/∂a = grad * b,  ∂L/∂b = grad * a_old (a's values before the write)
    Saves a_old when b needs a gradient and b when a needs one. The write destroys a's values, so a_old
    is a copy, and so is b when it shares a's memory (``x.mul_(x)``). Node: MulBackward0.
    """

    _node_name = "MulBackward0"
    _saved_names = ("self", "other")

    @staticmethod
    def forward(ctx, a, b):
        # a's old values are needed for b's gradient, and are about to be overwritten: copy them.
        original = _old_values(a, a) if ctx.needs_input_grad[1] else None
        ctx.save_for_backward(original, _old_values(a, b) if ctx.needs_input_grad[0] else None)
        _write(np.multiply, a, b._data)
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return (grad * b if ctx.needs_input_grad[0] else None,
                grad * a if ctx.needs_input_grad[1] else None)


class DivInplace(Builtin):
    """f(a, b) = a / b, written into a (``a.div_(b)``, ``a /= b``)

    ∂L/∂a = grad / b,  ∂L/∂b = -grad * a_old / b ** 2 (computed as -grad * ((a_old / b) / b), PyTorch's order)
    Saves b, which both gradients read (a copy if it shares a's memory), and a copy of a's old values
    a_old when b needs a gradient. Node: DivBackward0.
    """

    _node_name = "DivBackward0"
    _saved_names = ("self", "other")

    @staticmethod
    def forward(ctx, a, b):
        original = _old_values(a, a) if ctx.needs_input_grad[1] else None
        ctx.save_for_backward(original, _old_values(a, b))
        _write(np.true_divide, a, b._data)
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return (grad / b if ctx.needs_input_grad[0] else None,
                -grad * ((a / b) / b) if ctx.needs_input_grad[1] else None)   # PyTorch's formula, in its order


def _memory_cells(array: np.ndarray) -> np.ndarray:
    """``array``'s memory with each cell once, writeable. An expanded array repeats cells along its
    0-stride dimensions, and numpy makes it read-only; fill_ and zero_ may write into it anyway."""
    if array.flags.writeable:
        return array
    return writeable_memory(array[tuple(slice(0, 1) if stride == 0 else slice(None) for stride in array.strides)])


class FillInplace(Builtin):
    """f(a) = a with every element set to a number (``a.fill_(number)``)

    ∂L/∂a = 0 (zeros, never grad * 0): the old values no longer count
    Saves nothing. Node: FillBackward2.
    """

    _node_name = "FillBackward2"

    @staticmethod
    def forward(ctx, a, value):
        _memory_cells(a._data).fill(scalar_as(value, a._data.dtype))
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        return zero_gradient(grad), None


class ZeroInplace(FillInplace):
    """f(a) = a with every element set to 0 (``a.zero_()``): FillInplace with 0

    ∂L/∂a = 0 (FillInplace's backward)
    Saves nothing.
    """

    _node_name = "ZeroBackward0"


class Fill(Builtin):
    """f(a) = a tensor shaped like a with every element a number (``torch.fill(a, number)``)

    ∂L/∂a = 0 (zeros): a's values do not count
    Saves nothing. Node: FillBackward0 (FillBackward1 for a tensor value, FillTensor).
    """

    @staticmethod
    def forward(ctx, a, value):
        return wrap(np.full(a._data.shape, scalar_as(value, a._data.dtype), a._data.dtype))

    @staticmethod
    def backward(ctx, grad):
        return zero_gradient(grad), None


class FillTensor(Builtin):
    """f(a, v) = a tensor shaped like a with every element v, a 0-dim tensor (``torch.fill(a, v)``)

    ∂L/∂a = 0 (zeros),  ∂L/∂v = grad.sum(): v was copied to every element
    Saves nothing. Node: FillBackward1.
    """

    _node_name = "FillBackward1"

    @staticmethod
    def forward(ctx, a, value):
        return wrap(np.full(a._data.shape, value._data.item(), a._data.dtype))

    @staticmethod
    def backward(ctx, grad):
        return zero_gradient(grad), grad.sum()


def fill(a: Tensor, value) -> Tensor:
    """A new tensor shaped like ``a``, every element ``value`` (a number or a 0-dim tensor)."""
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} "
                               "dimensions.")
        return FillTensor.apply(a, value)
    return Fill.apply(a, value)


class FillTensorInplace(Builtin):
    """f(a, v) = a with every element set to v, a one-element tensor (``a.fill_(v)``, ``a[:] = number``)

    ∂L/∂a = 0 (zeros),  ∂L/∂v = grad.sum(): v was copied to every element
    Saves nothing. Node: FillBackward3.
    """

    _node_name = "FillBackward3"

    @staticmethod
    def forward(ctx, a, value):
        _memory_cells(a._data).fill(value._data.item())
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        return zero_gradient(grad), grad.sum()


class CopyInplace(Builtin):
    """f(a, source) = a with source's values written into it (``a.copy_(source)``, ``a[i] = t``)

    ∂L/∂a = 0 (zeros),  ∂L/∂source = grad (summed to source's shape by the engine if it was broadcast)
    Saves nothing. Node: ``torch::autograd::CopyBackwards``, PyTorch's C++ name.
    """

    _node_name = "CopyBackwards"

    @staticmethod
    def forward(ctx, a, source):
        np.copyto(writeable_memory(a._data), np.broadcast_to(source._data, a._data.shape), casting="unsafe")
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        return zero_gradient(grad) if ctx.needs_input_grad[0] else None, grad

qualify_node_name(CopyInplace, "torch::autograd::CopyBackwards")


def inplace(function: type, a: Tensor, other, *extra) -> Tensor:
    """Run an in-place Function after PyTorch's checks (``a`` is not a leaf requiring grad...).

    When ``a`` is a view, the same Function runs: ``mark_dirty`` then rewrites the histories of ``a``
    and of its base (``CopySlices``, see ``autograd/views.py``). ``fill_`` and ``zero_`` go through
    ``inplace_fill``.
    """
    other = _operand(other)
    check_inplace(a, other)
    if other._version_counter is a._version_counter:   # the same memory, perhaps (``x.add_(x.t())``)
        check_no_partial_overlap(a, other)
    if other._data.shape != a._data.shape:
        check_output_shape(a, other)
    return function.apply(a, other, *extra)


def inplace_fill(function: type, a: Tensor, value) -> Tensor:
    """``a.fill_(value)`` and ``a.zero_()``: ``inplace``'s checks, except that an expanded tensor may
    take one value (every element sharing a memory cell gets the same); a tensor value has 0 dims."""
    check_inplace(a, value, overlap_allowed=True)
    if not isinstance(value, Tensor):
        return function.apply(a, value)
    if value._data.ndim:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value._data.ndim} "
                           "dimensions.")
    return FillTensorInplace.apply(a, value)


def check_output_shape(a: Tensor, other: Tensor) -> None:
    """An in-place result keeps ``a``'s shape: ``other`` must broadcast to it (PyTorch's errors, not numpy's)."""
    if other._data.shape != a._data.shape and other._data.ndim:
        shape = check_broadcast(a._data.shape, other._data.shape)
        if shape != a._data.shape:
            raise RuntimeError(f"output with shape {list(a._data.shape)} doesn't match the broadcast shape {list(shape)}")


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
           f"{function.__name__}'s ({function._backward_cls.__name__}):\n\n{inspect.getdoc(function)}")
    return type(name, (function,), {"_node_name": function._backward_cls.__name__, "forward": staticmethod(forward),
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
DivRoundingInplace = _in_place(DivRounding, "div_")


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


# ------------------------------------------------------------------------------------ pow_
class PowInplace(Pow):
    """f(a) = a ** n, written into a (``a.pow_(n)``, n a number)

    ∂L/∂a = grad * n * a_old ** (n - 1) (Pow's backward, a_old being a's values before the write)
    Saves a_old, a copy (the write destroys a's values). Node: PowBackward0, as for ``a ** n``.
    """

    _node_name = "PowBackward0"

    @staticmethod
    def forward(ctx, a, exponent):
        ctx.save_for_backward(_old_values(a, a) if ctx.needs_input_grad[0] else None)
        ctx._exponent = exponent
        _write_result(a, scalar_power(a._data, exponent))
        ctx.mark_dirty(a)
        return a


class PowTensorInplace(PowTensor):
    """f(a, b) = a ** b, written into a (``a.pow_(b)``, b a tensor)

    ∂L/∂a = grad * b * a_old ** (b - 1),  ∂L/∂b = grad * f * log(a_old) (PowTensor's backward)
    Saves a_old (a copy: the write destroys a's values), b and the result f. Node: PowBackward1.
    """

    _node_name = "PowBackward1"

    @staticmethod
    def forward(ctx, a, b):
        original = _old_values(a, a)
        _write_result(a, power(*binary_arrays(a, b)))
        ctx.mark_dirty(a)
        ctx.save_for_backward(original, _old_values(a, b), a)
        return a


def _write_result(a: Tensor, result: np.ndarray) -> None:
    """Write an in-place result into ``a``, refused as PyTorch does if its dtype cannot hold it."""
    if result.dtype.kind == "f" and a._data.dtype.kind != "f":
        raise RuntimeError(f"result type Float can't be cast to the desired output type {a.dtype.legacy_name[:-6]}")
    np.copyto(writeable_memory(a._data), result, casting="unsafe")


def pow_(a: Tensor, exponent) -> Tensor:
    """``a.pow_(exponent)``: a number exponent gives PowBackward0 (one edge), a tensor PowBackward1."""
    if isinstance(exponent, Tensor):
        check_inplace(a, exponent)
        check_output_shape(a, exponent)
        return PowTensorInplace.apply(a, exponent)
    check_inplace(a)
    return PowInplace.apply(a, exponent)
