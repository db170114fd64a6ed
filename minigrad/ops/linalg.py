"""Matrix products. ``matmul`` picks the product PyTorch would (dot, mv, mm, or batched)."""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor, _operand
from ._util import Builtin, binary_arrays, wrap
from .shape import SqueezeInplaceDim


def _check_mm(a: Tensor, b: Tensor) -> None:
    x, y = a._data.shape, b._data.shape
    if len(x) != 2 or len(y) != 2:
        raise RuntimeError(f"{'self' if len(x) != 2 else 'mat2'} must be a matrix")
    if x[1] != y[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({x[0]}x{x[1]} and {y[0]}x{y[1]})")


class Mm(Builtin):
    _node_name = "MmBackward0"
    _arg_names = ("self", "mat2")   # PyTorch's names for the inputs
    _saved_names = ("self", "mat2")

    @staticmethod
    def forward(ctx, a, b):
        x, y = binary_arrays(a, b, elementwise=False)
        needs_mat1_grad, needs_mat2_grad = ctx.needs_input_grad
        ctx.save_for_backward(a if needs_mat2_grad else None, b if needs_mat1_grad else None)
        ctx._mat2_transposed = needs_mat2_grad and _is_transposed(b)   # read for mat2's gradient only
        return wrap(x @ y)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return (grad.mm(b.t()) if ctx.needs_input_grad[0] else None,
                _mat2_grad(a, grad, ctx._mat2_transposed) if ctx.needs_input_grad[1] else None)


def _is_transposed(t: Tensor) -> bool:
    """True for a transposed view such as ``weight.t()`` (column-major memory)."""
    flags = t._data.flags
    return flags.f_contiguous and not flags.c_contiguous


def _mat2_grad(mat1: Tensor, grad: Tensor, mat2_transposed: bool) -> Tensor:
    """``mat1.T @ grad``, computed in mat2's own memory layout (as PyTorch does), so that the
    gradient of a weight used as ``weight.t()`` arrives row-major and needs no slow strided copy."""
    if mat2_transposed:
        return grad.t().mm(mat1).t()
    return mat1.t().mm(grad)


class Addmm(Builtin):
    """``bias + mat1 @ mat2``: what ``nn.Linear`` computes for a batch, in one node."""

    _node_name = "AddmmBackward0"
    _saved_names = ("mat1", "mat2")

    @staticmethod
    def forward(ctx, bias, mat1, mat2):
        _check_mm(mat1, mat2)
        ctx.save_for_backward(mat1 if ctx.needs_input_grad[2] else None,
                              mat2 if ctx.needs_input_grad[1] else None)
        ctx._bias_is_vector = bias.ndim == 1
        ctx._mat2_transposed = _is_transposed(mat2)
        out = mat1._data @ mat2._data
        out += bias._data
        return wrap(out)

    @staticmethod
    def backward(ctx, grad):
        mat1, mat2 = ctx.saved_tensors
        return (grad.sum(0) if ctx.needs_input_grad[0] and ctx._bias_is_vector else grad,
                grad.mm(mat2.t()) if ctx.needs_input_grad[1] else None,
                _mat2_grad(mat1, grad, ctx._mat2_transposed) if ctx.needs_input_grad[2] else None)


class Dot(Builtin):
    _node_name = "DotBackward0"
    _arg_names = ("self", "tensor")   # PyTorch's names for the inputs
    _saved_names = ("self", "tensor")

    @staticmethod
    def forward(ctx, a, b):
        if a.shape != b.shape:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] "
                               "to have the same number of elements, but got "
                               f"{a.shape[0]} and {b.shape[0]} elements respectively")
        ctx.save_for_backward(a, b)
        x, y = binary_arrays(a, b, elementwise=False)
        return wrap(x @ y)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad * b, grad * a


class Mv(Builtin):
    _node_name = "MvBackward0"
    _arg_names = ("self", "vec")   # PyTorch's names for the inputs
    _saved_names = ("self", "vec")

    @staticmethod
    def forward(ctx, a, v):
        ctx.save_for_backward(a, v)
        x, y = binary_arrays(a, v, elementwise=False)
        return wrap(x @ y)

    @staticmethod
    def backward(ctx, grad):
        a, v = ctx.saved_tensors
        return grad.unsqueeze(1) * v.unsqueeze(0), a.t().mm(grad.unsqueeze(1)).squeeze(1)


class BatchedMatmul(Builtin):
    """Products of stacks of matrices (3-D and more); the batch dimensions broadcast."""

    _node_name = "BmmBackward0"
    _arg_names = ("self", "mat2")   # PyTorch's names for the inputs
    _saved_names = ("self", "mat2")

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        x, y = binary_arrays(a, b, elementwise=False)
        return wrap(np.matmul(x, y))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad.matmul(b.transpose(-1, -2)), a.transpose(-1, -2).matmul(grad)


def mm(a: Tensor, b: Tensor) -> Tensor:
    if b.is_sparse:   # dense @ sparse: the sparse tensor knows how
        return b.__rmatmul__(a)
    _check_mm(a, b)
    return Mm.apply(a, b)


def matmul(a: Tensor, b) -> Tensor:
    """Matrix product with PyTorch's rules for 1-D operands."""
    b = _operand(b)
    if b.is_sparse:
        return b.__rmatmul__(a)
    if a._data.ndim == 2 and b._data.ndim == 2:   # the common case first
        return mm(a, b)
    if a.ndim == 1 and b.ndim == 1:
        return Dot.apply(a, b)
    if a.ndim == 2 and b.ndim == 1:
        if a.shape[1] != b.shape[0]:
            raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{a.shape[1]}), vec ({b.shape[0]})")
        return Mv.apply(a, b)
    if a.ndim == 1 and b.ndim == 2:
        return SqueezeInplaceDim.apply(mm(a.unsqueeze(0), b), (0,))
    if a.ndim == 1:
        return matmul(a.unsqueeze(0), b).squeeze(-2)
    if b.ndim == 1:
        return matmul(a, b.unsqueeze(-1)).squeeze(-1)
    if a.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{b.shape[0]}, {a.shape[-1]}] but got: [{b.shape[0]}, {b.shape[-2]}].")
    return BatchedMatmul.apply(a, b)
