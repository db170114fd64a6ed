"""Products written in other words: ``torch.addmm`` with its ``beta``/``alpha`` scalings, and
``torch.einsum``, which (as in PyTorch) records no node of its own but the permutes, reshapes and
batched products it is made of.

>>> import minigrad as torch
>>> a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
>>> torch.addmm(torch.ones(2), a, a, beta=0.5, alpha=2)
tensor([[14.5000, 20.5000],
        [30.5000, 44.5000]], grad_fn=<AddmmBackward0>)
>>> torch.einsum("ij,jk->ik", a, a).grad_fn.name()
'ViewBackward0'
"""
from __future__ import annotations

from ..tensor import Tensor
from ._util import wrap
from .linalg import Addmm, BatchedMatmul, _check_mm, _mat2_grad


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


__all__ = ["AddmmScaled", "addmm", "einsum"]
