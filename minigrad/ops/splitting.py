"""Pieces of a tensor along one dimension: ``split``, ``chunk`` and ``narrow``. All return views.

``split`` is one Function with several outputs: its node receives one gradient per piece (zeros for
pieces that were not used) and glues them back together.

>>> import minigrad as torch
>>> x = torch.arange(5.0, requires_grad=True)
>>> x.split(2)
(tensor([0., 1.], grad_fn=<SplitBackward0>), tensor([2., 3.], grad_fn=<SplitBackward0>), tensor([4.], grad_fn=<SplitBackward0>))
>>> x.narrow(0, 1, 3)
tensor([1., 2., 3.], grad_fn=<SliceBackward0>)
"""
from __future__ import annotations

import math

from ..tensor import Tensor
from ._util import Builtin, view_of
from .indexing import Slice
from .shape import MultiViewFunction, cat


def _dim_error(dim: int, ndim: int) -> IndexError:
    low, high = (-ndim, ndim - 1) if ndim else (-1, 0)
    return IndexError(f"Dimension out of range (expected to be in range of [{low}, {high}], but got {dim})")


def _wrap_dim(dim: int, ndim: int) -> int:
    if not -max(ndim, 1) <= dim < max(ndim, 1):
        raise _dim_error(dim, ndim)
    return dim % max(ndim, 1)


class Split(MultiViewFunction):
    """f(a) = (a[s0:s1], a[s1:s2], ...) along dim: views of consecutive pieces of the given sizes

    ∂L/∂a = cat(grads, dim): each piece's gradient back in its place (the engine gives zeros for a
    piece that was not used)
    Saves nothing: keeps dim and a's sizes.
    """

    _node_name = "SplitBackward0"

    @staticmethod
    def forward(ctx, a, dim, sizes):
        ctx._saved_dim, ctx._saved_self_sym_sizes = dim, tuple(a.shape)
        pieces, start = [], 0
        for size in sizes:
            key = (slice(None),) * dim + (slice(start, start + size),)
            pieces.append(view_of(a, a._data[key]))
            start += size
        return tuple(pieces)

    @staticmethod
    def backward(ctx, *grads):
        return cat(grads, ctx._saved_dim), None, None


class SplitWithSizes(Split):
    """f(a) = pieces of the listed sizes along dim: ``split([2, 3])``

    ∂L/∂a = cat(grads, dim), as Split. Node: SplitWithSizesBackward0.
    """

    _node_name = "SplitWithSizesBackward0"


def split(a: Tensor, split_size_or_sections, dim: int = 0) -> tuple:
    """Pieces of ``split_size`` along ``dim`` (the last one may be shorter), or of the listed sizes."""
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = _wrap_dim(dim, a.ndim)
    length = a.shape[dim]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = [int(s) for s in split_size_or_sections]
        if sum(sizes) != length or any(s < 0 for s in sizes):
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {length} (input tensor's size "
                               f"at dimension {dim}), but got split_sizes={sizes}")
        return SplitWithSizes.apply(a, dim, tuple(sizes))
    size = int(split_size_or_sections)
    if size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={size}")
    if size == 0 and length != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {length}")
    count = max(math.ceil(length / size), 1) if size else 1
    sizes = [size] * (count - 1) + [length - size * (count - 1)]
    outputs = Split.apply(a, dim, tuple(sizes))
    return outputs if isinstance(outputs, tuple) else (outputs,)


def chunk(a: Tensor, chunks: int, dim: int = 0) -> tuple:
    """At most ``chunks`` pieces of equal size (``ceil(n / chunks)``) along ``dim``."""
    if a.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    length = a.shape[_wrap_dim(dim, a.ndim)]
    return split(a, max(math.ceil(length / chunks), 1) if length else 0, dim)


def narrow(a: Tensor, dim: int, start, length: int) -> Tensor:
    """The view ``a[..., start:start + length, ...]`` along ``dim``."""
    if a.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    dim = _wrap_dim(dim, a.ndim)
    size, start = a.shape[dim], int(start)
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return Slice.apply(a, (slice(None),) * dim + (slice(start, start + length),))
