"""In-place arithmetic (``add_``, ``mul_``, ``+=``, ``zero_``...): Functions that modify their
first input and call ``ctx.mark_dirty`` on it, which bumps its version counter."""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor, _operand
from ._util import Builtin, check_broadcast, qualify_node_name, wrap, zero_gradient
from ..autograd.views import check_inplace, check_no_partial_overlap, writeable_memory
from .arithmetic import check_bool_subtraction


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
        numpy_function(a._data, y, out=writeable_memory(a._data), casting="same_kind")
    except TypeError:   # numpy refuses e.g. writing floats into an integer tensor
        raise RuntimeError(f"result type {'Float' if np.asarray(y).dtype.kind == 'f' else 'Long'} can't be cast "
                           f"to the desired output type {a.dtype.legacy_name.replace('Tensor', '')}") from None


class AddInplace(Builtin):
    """f(a, b) = a + b, written into a (``a.add_(b)``, ``a += b``)

    ∂L/∂a = grad,  ∂L/∂b = grad
    Saves nothing: both derivatives are 1. With alpha=k (PyTorch's ``add_(b, alpha=k)``: a + k * b),
    ∂L/∂b = k * grad. Node: AddBackward0, as for ``a + b``.
    """

    _node_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        ctx._alpha = alpha
        _write(np.add, a, b._data if alpha == 1 else alpha * b._data)
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        return grad, (grad if ctx._alpha == 1 else grad * ctx._alpha), None


class SubInplace(AddInplace):
    """f(a, b) = a - b, written into a (``a.sub_(b)``, ``a -= b``)

    ∂L/∂a = grad,  ∂L/∂b = -grad: AddInplace's backward, with alpha -1 (-k for ``sub_(b, alpha=k)``)
    Saves nothing. Node: SubBackward0, as for ``a - b``.
    """

    _node_name = "SubBackward0"

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        check_bool_subtraction(a, b)
        ctx._alpha = -alpha
        _write(np.subtract, a, b._data if alpha == 1 else alpha * b._data)
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
        _memory_cells(a._data).fill(value)
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
    and of its base (``CopySlices``, see ``autograd/views.py``).
    """
    filling = function is FillInplace or function is ZeroInplace
    check_inplace(a, other, overlap_allowed=filling)
    if filling:
        if isinstance(other, Tensor):
            return FillTensorInplace.apply(a, other)
        return function.apply(a, other)
    check_no_partial_overlap(a, other)
    other = _operand(other)
    check_output_shape(a, other)
    return function.apply(a, other, *extra)


def check_output_shape(a: Tensor, other: Tensor) -> None:
    """An in-place result keeps ``a``'s shape: ``other`` must broadcast to it (PyTorch's errors, not numpy's)."""
    if other._data.shape != a._data.shape and other._data.ndim:
        shape = check_broadcast(a._data.shape, other._data.shape)
        if shape != a._data.shape:
            raise RuntimeError(f"output with shape {list(a._data.shape)} doesn't match the broadcast shape {list(shape)}")

