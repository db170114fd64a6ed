"""``spmm``: ``A @ b`` for a sparse A given as (indices, values), with a backward that stays sparse.

pyGAT's ``SpecialSpmmFunction`` (Diego999/pyGAT, ``layers.py``) has the same signature,
``(indices, values, shape, b)``, and computes the gradient of the values like this::

    grad_a_dense = grad_output.matmul(b.t())                       # N x N, dense
    edge_idx = a._indices()[0, :] * ctx.N + a._indices()[1, :]
    grad_values = grad_a_dense.view(-1)[edge_idx]                  # keep nnz of the N*N numbers

Only nnz of those ``N * N`` numbers are used: entry k of ``grad_output @ b.t()`` is the dot product
of row ``rows[k]`` of ``grad_output`` with row ``cols[k]`` of ``b``. ``Spmm.backward`` computes just
those nnz dot products (``kernels.sampled_dot``): O(nnz * d) time and memory instead of O(N^2).
At N = 20,000 that is the difference between a 1.6 GB float32 matrix and a few megabytes.

>>> import minigrad as torch
>>> from minigrad.sparse import spmm
>>> indices = torch.tensor([[0, 0, 1, 2, 3], [1, 2, 2, 3, 0]])
>>> values = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True)
>>> b = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]],
...                  requires_grad=True)
>>> out = spmm(indices, values, (4, 4), b)
>>> out.grad_fn.name(), out.grad_fn.needs_input_grad
('SpmmBackward', (False, True, False, True))
>>> out.sum().backward()
>>> values.grad
tensor([15., 24., 24., 33.,  6.])
>>> b.grad
tensor([[5., 5., 5.],
        [1., 1., 1.],
        [5., 5., 5.],
        [4., 4., 4.]])
"""
from __future__ import annotations

from typing import Sequence

from ..autograd.function import Function, once_differentiable
from ..tensor import Tensor
from . import kernels
from .coo import check_coo, index_array


class Spmm(Function):
    """``out = A @ b`` where ``A[indices[0, k], indices[1, k]] += values[k]`` (repeats add up).

    ∂L/∂values[k] = dot(grad_output[i], b[j]) for (i, j) = indices[:, k]: one dot product per stored
    entry, no N x N matrix; ∂L/∂b = A.T @ grad_output. Forward saves indices, values only when b needs
    a gradient, and b only when values need one.

    Written like any Function you write yourself: ``forward`` saves what ``backward`` needs,
    ``backward`` returns one gradient per forward argument (None for ``indices`` and ``shape``).
    """

    @staticmethod
    def forward(ctx, indices: Tensor, values: Tensor, shape: tuple, b: Tensor) -> Tensor:
        n_rows, n_cols = _check(indices, values, shape, b)
        ctx.shape = (n_rows, n_cols)
        # Save only what backward will use: values for grad_b, b for grad_values.
        ctx.save_for_backward(indices,
                              values if ctx.needs_input_grad[3] else None,
                              b if ctx.needs_input_grad[1] else None)
        rows, cols = indices._data
        return Tensor._make(kernels.scatter_add(rows, cols, values._data, b._data, n_out=n_rows))

    @staticmethod
    # Backward is numpy, so it runs without recording. Under create_graph=True each gradient it
    # returns passes through an Error node whose edges lead to detached aliases of the gradients made
    # to require grad (new leaves sharing their data; only when the incoming gradient requires grad).
    # A pass that reaches the Error node raises; autograd.grad with respect to Spmm's inputs finds no
    # path to them (an error, or None with allow_unused=True); code that turns that None into zeros,
    # as gradgradcheck's Jacobian does, sees a second derivative of zero. It never returns a wrong
    # nonzero number.
    @once_differentiable
    def backward(ctx, grad_output: Tensor):
        indices, values, b = ctx.saved_tensors
        rows, cols = indices._data
        grad_values = grad_b = None
        if ctx.needs_input_grad[1]:
            # grad_values[k] = <grad_output[rows[k]], b[cols[k]]> = (grad_output @ b.T)[rows[k], cols[k]]
            grad_values = Tensor._make(kernels.sampled_dot(rows, cols, grad_output._data, b._data))
        if ctx.needs_input_grad[3]:
            # grad_b = A.T @ grad_output: the same scatter as forward, rows and columns swapped
            grad_b = Tensor._make(kernels.scatter_add(cols, rows, values._data, grad_output._data,
                                                      n_out=ctx.shape[1]))
        return None, grad_values, None, grad_b


def _check(indices: Tensor, values: Tensor, shape: tuple, b: Tensor) -> tuple:
    if not isinstance(values, Tensor) or values.ndim != 1:
        raise TypeError("spmm: values must be a 1-D tensor (one value per column of indices)")
    if not isinstance(b, Tensor) or b.ndim != 2:
        raise TypeError(f"spmm: b must be a 2-D tensor, got {b.ndim if isinstance(b, Tensor) else type(b).__name__}"
                        f"{'-D' if isinstance(b, Tensor) else ''}")
    n_rows, n_cols = check_coo(indices._data, tuple(values.shape), shape)
    if b.shape[0] != n_cols:
        raise RuntimeError(f"spmm: a sparse matrix of shape {(n_rows, n_cols)} needs b with {n_cols} rows, "
                           f"but b has shape {tuple(b.shape)}")
    if values.dtype is not b.dtype:
        raise RuntimeError(f"expected scalar type {values.dtype.legacy_name[:-6]} but found "
                           f"{b.dtype.legacy_name[:-6]}")
    return n_rows, n_cols


def spmm(indices, values: Tensor, shape: Sequence[int], b: Tensor) -> Tensor:
    """``A @ b`` for ``A = sparse_coo_tensor(indices, values, shape)``, differentiable with respect to
    ``values`` and ``b`` in O(nnz * d) time and memory (``Spmm.apply`` after checking ``indices``).

    ``indices`` is ``(2, nnz)`` (integers; repeated coordinates add up), ``values`` is ``(nnz,)``,
    ``shape`` is ``(n_rows, n_cols)`` and ``b`` is ``(n_cols, d)``; the result is ``(n_rows, d)``.
    """
    if shape is None or len(shape) != 2:
        raise RuntimeError(f"spmm: shape must be (n_rows, n_cols), got {shape!r}")
    if not isinstance(indices, Tensor) or indices.dtype.name != "int64":
        indices = Tensor._make(index_array(indices))
    return Spmm.apply(indices, values, tuple(shape), b)
