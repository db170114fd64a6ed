"""Matrix products. ``matmul`` picks the product PyTorch would (dot, mv, mm, or batched)."""
from __future__ import annotations

import numpy as np

from ..autograd.engine import in_backward
from ..tensor import Tensor, _operand
from ._util import Builtin, binary_arrays, check_broadcast, wrap
from .shape import SqueezeInplaceDim, UnsafeView, expand, reshape, squeeze


# PyTorch names dtypes the C++ way in some matrix-product errors and the "Float" way in others.
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
              "uint8": "unsigned char", "bool": "bool"}


def _scalar_name(t: Tensor) -> str:
    return t.dtype.legacy_name.replace("Tensor", "")


# The products are computed silently: one with inf * 0 (or inf - inf, or a float32 overflow) inside is
# nan or inf, as in PyTorch, where numpy would warn. errstate as a decorator costs about a microsecond
# per call (half of a `with` block); a backward pass runs under one errstate already, so its products
# (two for each one of the forward) skip it.
def _plain_product(x: np.ndarray, y: np.ndarray, bias: np.ndarray | None = None) -> np.ndarray:
    """``x @ y (+ bias)`` for vectors and matrices. ndarray.dot makes the same BLAS call as ``@`` with less
    call overhead; the bias is added in place, into the new result."""
    out = x.dot(y)
    if bias is not None:
        out += bias
    return out


_silent_product = np.errstate(invalid="ignore", over="ignore")(_plain_product)


def _product(x: np.ndarray, y: np.ndarray, bias: np.ndarray | None = None) -> np.ndarray:
    """``x @ y (+ bias)``, silently: under its own errstate, or the engine's in a backward pass."""
    return (_plain_product if in_backward() else _silent_product)(x, y, bias)


@np.errstate(invalid="ignore", over="ignore")
def _stacked_product(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x[i] @ y[i]`` for every i: two stacks of matrices."""
    return np.matmul(x, y)


def _check_mm(a: Tensor, b: Tensor) -> None:
    x, y = a._data.shape, b._data.shape
    if len(x) != 2 or len(y) != 2:
        raise RuntimeError(f"{'self' if len(x) != 2 else 'mat2'} must be a matrix")
    if x[1] != y[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({x[0]}x{x[1]} and {y[0]}x{y[1]})")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_CPP_NAMES[a.dtype.name]} != "
                           f"{_CPP_NAMES[b.dtype.name]}")


class Mm(Builtin):
    """f(a, b) = a @ b, for matrices a (n x k) and b (k x m)

    ∂L/∂a = grad @ b.T,  ∂L/∂b = a.T @ grad
    Saves b only when a needs a gradient, and a only when b does: each is read by the other's gradient.
    When b is a transposed view (``weight.t()``), ∂L/∂b is computed in b's memory layout, as PyTorch
    does (see _mat2_grad).

    >>> import minigrad as torch
    >>> a, b = torch.ones(2, 3, requires_grad=True), torch.arange(12.0).view(3, 4).requires_grad_()
    >>> (a @ b).backward(torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 10.0]]))
    >>> a.grad                                       # grad @ b.T
    tensor([[  0.,   4.,   8.],
            [ 30.,  70., 110.]])
    """

    _node_name = "MmBackward0"
    _arg_names = ("self", "mat2")   # PyTorch's names for the inputs
    _saved_names = ("self", "mat2")

    @staticmethod
    def forward(ctx, a, b):
        x, y = binary_arrays(a, b, elementwise=False)
        needs_mat1_grad, needs_mat2_grad = ctx.needs_input_grad
        ctx.save_for_backward(a if needs_mat2_grad else None, b if needs_mat1_grad else None)
        ctx._mat2_transposed = needs_mat2_grad and _is_transposed(b)   # read for mat2's gradient only
        return wrap(_product(x, y))

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
    """f(bias, m1, m2) = bias + m1 @ m2: what ``nn.Linear`` computes for a batch, in one node

    ∂L/∂bias = grad.sum(0) (grad itself for a 2-D bias: the engine sums it to its shape),
    ∂L/∂m1 = grad @ m2.T,  ∂L/∂m2 = m1.T @ grad
    Saves m2 only when m1 needs a gradient, and m1 only when m2 does.
    """

    _node_name = "AddmmBackward0"
    _saved_names = ("mat1", "mat2")

    @staticmethod
    def forward(ctx, bias, mat1, mat2):
        _check_mm(mat1, mat2)
        ctx.save_for_backward(mat1 if ctx.needs_input_grad[2] else None,
                              mat2 if ctx.needs_input_grad[1] else None)
        ctx._bias_is_vector = bias.ndim == 1
        ctx._mat2_transposed = _is_transposed(mat2)
        return wrap(_product(mat1._data, mat2._data, bias._data))

    @staticmethod
    def backward(ctx, grad):
        mat1, mat2 = ctx.saved_tensors
        return (grad.sum(0) if ctx.needs_input_grad[0] and ctx._bias_is_vector else grad,
                grad.mm(mat2.t()) if ctx.needs_input_grad[1] else None,
                _mat2_grad(mat1, grad, ctx._mat2_transposed) if ctx.needs_input_grad[2] else None)


class Dot(Builtin):
    """f(a, b) = sum(a * b), for two vectors

    ∂L/∂a = grad * b,  ∂L/∂b = grad * a (grad is a 0-dim tensor)
    Saves b only when a needs a gradient, and a only when b does, as PyTorch: each is read by the other's.
    """

    _node_name = "DotBackward0"
    _arg_names = ("self", "tensor")   # PyTorch's names for the inputs
    _saved_names = ("self", "tensor")

    @staticmethod
    def forward(ctx, a, b):
        if a.dtype is not b.dtype:
            raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_scalar_name(a)} and "
                               f"{_scalar_name(b)}")
        if a.shape != b.shape:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] "
                               "to have the same number of elements, but got "
                               f"{a.shape[0]} and {b.shape[0]} elements respectively")
        _save_each_for_the_other(ctx, a, b)
        return wrap(_product(*binary_arrays(a, b, elementwise=False)))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad * b if ctx.needs_input_grad[0] else None, grad * a if ctx.needs_input_grad[1] else None


class Mv(Builtin):
    """f(A, v) = A @ v, for a matrix and a vector

    ∂L/∂A = outer(grad, v) (computed as grad.unsqueeze(1) * v.unsqueeze(0)),  ∂L/∂v = A.T @ grad
    Saves v only when A needs a gradient, and A only when v does, as PyTorch.
    """

    _node_name = "MvBackward0"
    _arg_names = ("self", "vec")   # PyTorch's names for the inputs
    _saved_names = ("self", "vec")

    @staticmethod
    def forward(ctx, a, v):
        if a.shape[1] != v.shape[0]:
            raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{a.shape[1]}), "
                               f"vec ({v.shape[0]})")
        if a.dtype is not v.dtype:
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_scalar_name(v)}, "
                               f"{_scalar_name(a)}, and {_scalar_name(v)}")
        _save_each_for_the_other(ctx, a, v)
        return wrap(_product(*binary_arrays(a, v, elementwise=False)))

    @staticmethod
    def backward(ctx, grad):
        a, v = ctx.saved_tensors
        return (grad.unsqueeze(1) * v.unsqueeze(0) if ctx.needs_input_grad[0] else None,
                a.t().mm(grad.unsqueeze(1)).squeeze(1) if ctx.needs_input_grad[1] else None)


class BatchedMatmul(Builtin):
    """f(a, b)[i] = a[i] @ b[i]: ``bmm`` of two stacks of matrices of the same length (3-D tensors)

    ∂L/∂a = grad @ b.transpose(1, 2),  ∂L/∂b = a.transpose(1, 2) @ grad (each a bmm)
    Saves b only when a needs a gradient, and a only when b does, as PyTorch. Node: BmmBackward0.
    """

    _node_name = "BmmBackward0"
    _arg_names = ("self", "mat2")   # PyTorch's names for the inputs
    _saved_names = ("self", "mat2")

    @staticmethod
    def forward(ctx, a, b):
        (batch, _, m1), (batch2, m2, _) = a.shape, b.shape
        if (batch2, m2) != (batch, m1):
            raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{batch}, {m1}] "
                               f"but got: [{batch2}, {m2}].")
        if a.dtype is not b.dtype:
            raise RuntimeError(f"expected scalar type {_scalar_name(a)} but found {_scalar_name(b)}")
        _save_each_for_the_other(ctx, a, b)
        return wrap(_stacked_product(a._data, b._data))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return (BatchedMatmul.apply(grad, b.transpose(1, 2)) if ctx.needs_input_grad[0] else None,
                BatchedMatmul.apply(a.transpose(1, 2), grad) if ctx.needs_input_grad[1] else None)


def _save_each_for_the_other(ctx, a: Tensor, b: Tensor) -> None:
    """Save a only when b needs a gradient, and b only when a does: a product's gradient for one factor
    reads the other, and PyTorch saves no more (an in-place change of a factor nobody reads is allowed)."""
    needs_a, needs_b = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
    ctx.save_for_backward(a if needs_b else None, b if needs_a else None)


def _should_fold(a: Tensor, b: Tensor) -> bool:
    """Does PyTorch fold the batch of the larger operand into matrix rows and call mm/mv instead of bmm?
    It does when the other operand has at most 2 dimensions and requires grad, or when folding needs no copy."""
    a_larger = a.ndim >= b.ndim
    big, small = (a, b) if a_larger else (b, a)
    if not (big.ndim >= 3 and small.ndim <= 2):
        return False
    if small.requires_grad:
        return True
    if a.ndim == 2:
        return False
    array = a._data if a_larger else np.swapaxes(b._data, -1, -2)
    if array.size == 0:
        return True
    shape, strides = array.shape, array.strides
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(array.ndim - 2))


def _folded_matmul(a: Tensor, b: Tensor) -> Tensor:
    """``a @ b`` with the batch of the larger operand folded into the rows of one matrix."""
    transpose = b.ndim > a.ndim
    big = b.mT if transpose else a
    small = (a.t() if a.ndim == 2 else a) if transpose else b
    out_shape = tuple(big.shape[:-1])
    folded = reshape(big, (int(np.prod(out_shape)), big.shape[-1]))
    if small.ndim == 1:
        return UnsafeView.apply(matmul(folded, small), out_shape)
    out = UnsafeView.apply(mm(folded, small), out_shape + (small.shape[1],))
    return out.mT.contiguous() if transpose else out


def _batched_matmul(a: Tensor, b: Tensor) -> Tensor:
    """``a @ b`` as one bmm: both operands expanded to the broadcast batch and flattened to 3-D."""
    n, m1 = (a.shape[-2] if a.ndim > 1 else 1), a.shape[-1]
    m2, p = (b.shape[-2], b.shape[-1]) if b.ndim > 1 else (b.shape[0], 1)
    batch = check_broadcast(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    count = int(np.prod(batch))
    left = reshape(expand(a, (batch + (n, m1),)), (count, n, m1))
    if b.ndim == 1:
        right = reshape(expand(b, (batch + (m2,),)), (count, m2)).unsqueeze(2)
    else:
        right = reshape(expand(b, (batch + (m2, p),)), (count, m2, p))
    out = BatchedMatmul.apply(left, right)
    if b.ndim == 1:
        out = squeeze(out, -1)
    return UnsafeView.apply(out, batch + ((n,) if a.ndim > 1 else ()) + ((p,) if b.ndim > 1 else ()))


def mm(a: Tensor, b: Tensor) -> Tensor:
    if b.is_sparse:   # dense @ sparse: the sparse tensor knows how
        return b.__rmatmul__(a)
    _check_mm(a, b)
    return Mm.apply(a, b)


def matmul(a: Tensor, b) -> Tensor:
    """Matrix product, built from the same nodes as PyTorch's ``matmul`` (dot, mv, mm, or a folded or
    batched product for 3-D and more), so that the graph shows the same chain of nodes."""
    b = _operand(b)
    if b.is_sparse:
        return b.__rmatmul__(a)
    d1, d2 = a._data.ndim, b._data.ndim
    if d1 == 2 and d2 == 2:   # the common case first
        return mm(a, b)
    if d1 == 0 or d2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D")
    if d1 == 1 and d2 == 1:
        return Dot.apply(a, b)
    if d1 == 2 and d2 == 1:
        return Mv.apply(a, b)
    if d1 == 1 and d2 == 2:
        return SqueezeInplaceDim.apply(mm(a.unsqueeze(0), b), (0,))
    if d1 == 3 and d2 == 3 and a.shape[0] != b.shape[0]:
        # one stack holds a single matrix that requires grad: PyTorch squeezes it and multiplies by a
        # matrix, so that its gradient is never expanded to the other's batch
        if a.shape[0] == 1 and a.requires_grad:
            return matmul(squeeze(a, 0), b)
        if b.shape[0] == 1 and b.requires_grad:
            return matmul(a, squeeze(b, 0))
    if _should_fold(a, b):
        return _folded_matmul(a, b)
    return _batched_matmul(a, b)
