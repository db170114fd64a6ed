"""Linear algebra: matrix products. ``matmul`` picks the product PyTorch would (dot, mv, mm, or
batched); ``torch.addmm`` takes its ``beta``/``alpha`` scalings; ``torch.einsum``, as in PyTorch,
records no node of its own but the permutes, reshapes and batched products it is made of.

>>> import minigrad as torch
>>> a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
>>> torch.addmm(torch.ones(2), a, a, beta=0.5, alpha=2)
tensor([[14.5000, 20.5000],
        [30.5000, 44.5000]], grad_fn=<AddmmBackward0>)
>>> torch.einsum("ij,jk->ik", a, a).grad_fn.name()
'ViewBackward0'
"""
from __future__ import annotations

import numpy as np

from ..autograd.engine import in_backward
from ..tensor import Tensor, _operand
from ._util import Builtin, _CPP_NAMES, binary_arrays, check_broadcast, wrap
from .shape import SqueezeInplaceDim, UnsafeView, expand, reshape, squeeze


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
    """PyTorch's checks of ``mm(a, b)``: two matrices that fit, of one dtype (``Mm`` relies on them)."""
    x, y = a._data, b._data
    if x.ndim != 2 or y.ndim != 2:
        raise RuntimeError(f"{'self' if x.ndim != 2 else 'mat2'} must be a matrix")
    if x.shape[1] != y.shape[0]:
        (n, k), (k2, m) = x.shape, y.shape
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
    if x.dtype != y.dtype:
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

    _arg_names = ("self", "mat2")   # PyTorch's names for the inputs
    _saved_names = ("self", "mat2")

    @staticmethod
    def forward(ctx, a, b):
        x, y = a._data, b._data   # two matrices of one dtype: mm() checked them (_check_mm)
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
        _check_mm(a, b)
        return Mm.apply(a, b)
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


class AddmmScaled(Addmm):
    """``torch.addmm(input, mat1, mat2, beta=b, alpha=a)``: f = b * input + a * (mat1 @ mat2)
    (with b = 0, ``input`` is ignored, nan and inf included).

    ∂L/∂input = b * grad (summed back to input's shape); ∂L/∂mat1 = a * grad @ mat2.T;
    ∂L/∂mat2 = a * mat1.T @ grad. Saves mat1 and mat2 (each only if the other needs a gradient).
    """

    _node_name = "AddmmBackward0"

    @staticmethod
    def forward(ctx, bias, mat1, mat2, beta, alpha):
        _check_mm(mat1, mat2)
        ctx.save_for_backward(mat1 if ctx.needs_input_grad[2] else None,
                              mat2 if ctx.needs_input_grad[1] else None)
        ctx._beta, ctx._alpha, ctx._mat2_transposed = beta, alpha, False
        out = mat1._data.dot(mat2._data)
        if alpha != 1:
            out *= out.dtype.type(alpha)
        if beta != 0:
            out += bias._data * bias._data.dtype.type(beta) if beta != 1 else bias._data
        return wrap(out)

    @staticmethod
    def backward(ctx, grad):
        mat1, mat2 = ctx.saved_tensors
        beta, alpha = ctx._beta, ctx._alpha
        grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_bias = grad * beta if beta != 1 else grad
        scaled = grad * alpha if alpha != 1 else grad
        return (grad_bias,
                scaled.mm(mat2.t()) if ctx.needs_input_grad[1] else None,
                _mat2_grad(mat1, scaled, False) if ctx.needs_input_grad[2] else None, None, None)


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)``; ``input`` broadcasts to the product's shape."""
    if mat1.is_sparse:   # the sparse tensor knows how (its gradient is dense, as PyTorch's)
        from ..sparse.products import addmm as sparse_addmm
        return sparse_addmm(input, mat1, mat2, beta=beta, alpha=alpha, masked=False)
    for (name, t) in (("self", input), ("mat1", mat1)):   # PyTorch's checks, in its order
        if t.dtype is not mat2.dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got {t.dtype.legacy_name[:-6]} and "
                               f"{mat2.dtype.legacy_name[:-6]}")
    for (name, t) in (("mat1", mat1), ("mat2", mat2)):
        if t.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {t.ndim}-D tensor")
    _check_mm(mat1, mat2)
    input.detach().expand(mat1.shape[0], mat2.shape[1])   # PyTorch's errors for an input that does not broadcast
    if beta == 1 and alpha == 1:
        return Addmm.apply(input, mat1, mat2)
    return AddmmScaled.apply(input, mat1, mat2, beta, alpha)


# ---------------------------------------------------------------------------------- einsum
_LETTERS = 26


def _subscript(label: str) -> int:
    return ord(label) - ord("A") if label.isupper() else ord(label) - ord("a") + _LETTERS


def _parse_operands(lhs: str, count: int) -> list:
    labels, current, ellipsis_seen, i = [[] for _ in range(count)], 0, False, 0
    while i < len(lhs):
        label = lhs[i]
        if label == " ":
            pass
        elif label == ".":
            if ellipsis_seen:
                raise RuntimeError(f"einsum(): found '.' for operand {current} for which an ellipsis was already found")
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise RuntimeError(f"einsum(): found '.' for operand {current} that is not part of any ellipsis")
            labels[current].append("...")
            ellipsis_seen, i = True, i + 2
        elif label == ",":
            current += 1
            if current >= count:
                raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
            ellipsis_seen = False
        elif label.isascii() and label.isalpha():
            labels[current].append(_subscript(label))
        else:
            raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, subscripts "
                               "must be in [a-zA-Z]")
        i += 1
    if current != count - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return labels


def einsum(equation: str, *operands) -> Tensor:
    """Einstein summation, computed as PyTorch computes it (so the graph has PyTorch's nodes):
    each operand's dimensions are aligned (unsqueeze, permute) to ``output + contracted``, then
    operands are multiplied pairwise from the left, each pair as one batched product
    (``sumproduct_pair``). A label repeated within one operand (a diagonal) is not implemented.
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels = _parse_operands(lhs, len(operands))

    label_count, ell_num_dim = [0] * (2 * _LETTERS), 0
    for i, (operand, labels) in enumerate(zip(operands, op_labels)):
        named = [s for s in labels if s != "..."]
        has_ellipsis = len(named) != len(labels)
        for s in named:
            label_count[s] += 1
        if has_ellipsis:
            ell_num_dim = max(ell_num_dim, operand.ndim - len(named))
        if (len(named) > operand.ndim) if has_ellipsis else (len(named) != operand.ndim):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(named)}) "
                f"{'is more than' if has_ellipsis else 'does not match'} the number of dimensions ({operand.ndim}) "
                f"for operand {i}{'' if has_ellipsis else ' and no ellipsis was given'}")

    perm_index_of, perm_index, ell_index, ell_in_output = [-1] * (2 * _LETTERS), 0, 0, False
    if arrow < 0:   # implicit output: the ellipsis, then the labels seen once, in alphabetical order
        perm_index, ell_in_output = ell_num_dim, True
        for s in range(2 * _LETTERS):
            if label_count[s] == 1:
                perm_index_of[s], perm_index = perm_index, perm_index + 1
    else:
        rhs, i = equation[arrow + 2:], 0
        while i < len(rhs):
            label = rhs[i]
            if label == ".":
                if ell_in_output:
                    raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was already found")
                if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                    raise RuntimeError("einsum(): found '.' for output that is not part of any ellipsis (...)")
                ell_index, perm_index, ell_in_output, i = perm_index, perm_index + ell_num_dim, True, i + 2
            elif label != " ":
                if not (label.isascii() and label.isalpha()):
                    raise RuntimeError(f"einsum(): invalid subscript given at index {len(lhs) + 2 + i} in the "
                                       "equation string, subscripts must be in [a-zA-Z]")
                s = _subscript(label)
                if not (label_count[s] > 0 and perm_index_of[s] == -1):
                    raise RuntimeError(f"einsum(): output subscript {label}" + (
                        " appears more than once in the output" if perm_index_of[s] > -1
                        else " does not appear in the equation for any input operand"))
                perm_index_of[s], perm_index = perm_index, perm_index + 1
            i += 1
    out_num_dim = perm_index
    if not ell_in_output:
        ell_index, perm_index = perm_index, perm_index + ell_num_dim
    for s in range(2 * _LETTERS):
        if label_count[s] > 0 and perm_index_of[s] == -1:
            perm_index_of[s], perm_index = perm_index, perm_index + 1

    ops, dim_counts = _aligned_operands(operands, op_labels, perm_index_of, perm_index, ell_index, ell_num_dim)
    while len(ops) > 1:
        a, b = ops.pop(0), ops.pop(0)
        sum_dims, a_dims, b_dims = [], [], []
        for dim in range(out_num_dim, perm_index):
            if a.shape[dim] != 1 and b.shape[dim] != 1:
                dim_counts[dim] -= 1
                if dim_counts[dim] == 1:
                    sum_dims.append(dim)
                    dim_counts[dim] = 0
            elif dim_counts[dim] == 1:
                if a.shape[dim] != 1:
                    a_dims.append(dim)
                    dim_counts[dim] = 0
                elif b.shape[dim] != 1:
                    b_dims.append(dim)
                    dim_counts[dim] = 0
        if a_dims:
            a = a.sum(a_dims, keepdim=True)
        if b_dims:
            b = b.sum(b_dims, keepdim=True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims))
    result = ops[0]
    if perm_index > out_num_dim:
        if len(operands) > 1:
            return result.view(tuple(result.shape[:out_num_dim]))
        return result.sum(list(range(out_num_dim, perm_index)))
    return result


def _aligned_operands(operands, op_labels, perm_index_of, perm_index, ell_index, ell_num_dim) -> tuple:
    """Each operand unsqueezed and permuted to the dimensions ``output + contracted``, and for each
    of those dimensions how many operands have it with a size other than 1."""
    label_size, ell_sizes, dim_counts, ops = [1] * (2 * _LETTERS), [1] * ell_num_dim, [0] * perm_index, []
    for i, (op, labels) in enumerate(zip(operands, op_labels)):
        permutation, dim = [-1] * perm_index, 0
        for s in labels:
            if s == "...":
                covered = op.ndim - (len(labels) - 1)
                for j in range(ell_num_dim - covered, ell_num_dim):
                    if op.shape[dim] != 1:
                        if ell_sizes[j] != 1 and ell_sizes[j] != op.shape[dim]:
                            raise RuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {i}has size "
                                f"{op.shape[dim]} which does not broadcast with previously seen ellipsis with size "
                                f"{ell_sizes[j]} for the respective dimension")
                        ell_sizes[j] = op.shape[dim]
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j], dim = dim, dim + 1
            elif permutation[perm_index_of[s]] == -1:
                if op.shape[dim] != 1:
                    if label_size[s] != 1 and label_size[s] != op.shape[dim]:
                        label = chr(s + ord("A")) if s < _LETTERS else chr(s - _LETTERS + ord("a"))
                        raise RuntimeError(f"einsum(): subscript {label} has size {op.shape[dim]} for operand {i} "
                                           f"which does not broadcast with previously seen size {label_size[s]}")
                    label_size[s] = op.shape[dim]
                    dim_counts[perm_index_of[s]] += 1
                permutation[perm_index_of[s]], dim = dim, dim + 1
            else:
                raise NotImplementedError("minigrad: einsum with a subscript repeated within one operand "
                                          "(a diagonal, e.g. 'ii->i') is not implemented")
        for k, value in enumerate(permutation):
            if value == -1:
                op = op.unsqueeze(dim)
                permutation[k], dim = dim, dim + 1
        ops.append(op.permute(*permutation))
    return ops, dim_counts


def _sumproduct_pair(left: Tensor, right: Tensor, sum_dims: list) -> Tensor:
    """``(left * right).sum(sum_dims, keepdim=True)`` as one batched matrix product, the way
    PyTorch's ``sumproduct_pair`` computes it: permute each side to (kept by both, kept by one,
    summed), flatten those groups to a 3-D stack, ``bmm``, then view and permute back."""
    if not sum_dims:
        return left * right
    ndim = left.ndim
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(ndim):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                if left.shape[i] != right.shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left.shape[i]
            elif sl:
                left = left.sum(i, keepdim=True)
            elif sr:
                right = right.sum(i, keepdim=True)
        elif sl and sr:
            if left.shape[i] != right.shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left.shape[i]
        else:
            ro.append(i)
            ro_size *= right.shape[i]
    out_size = [left.shape[d] for d in lro] + [left.shape[d] for d in lo] + [1] * len(sum_dims) + \
        [right.shape[d] for d in ro]
    lpermutation = lro + lo + sum_dims + ro
    rpermutation = lro + sum_dims + ro + lo
    opermutation = [0] * len(out_size)
    for i, d in enumerate(lro + lo + sum_dims + ro):
        opermutation[d] = i
    left = left.permute(*lpermutation).reshape(lro_size, lo_size, sum_size)
    right = right.permute(*rpermutation).reshape(lro_size, sum_size, ro_size)
    return BatchedMatmul.apply(left, right).view(*out_size).permute(*opermutation)
