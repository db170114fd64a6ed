"""Joining tensors and taking them apart along one dimension: ``cat`` and ``stack``; ``split``,
``split_with_sizes``, ``chunk``, ``unbind`` and ``narrow``, which return views.

``split`` is one Function with several outputs: its node receives one gradient per piece (zeros for
pieces that were not used) and glues them back together.

>>> import minigrad as torch
>>> x = torch.arange(5.0, requires_grad=True)
>>> x.split(2)
(tensor([0., 1.], grad_fn=<SplitBackward0>), tensor([2., 3.], grad_fn=<SplitBackward0>), tensor([4.], grad_fn=<SplitBackward0>))
>>> x.narrow(0, 1, 3)
tensor([1., 2., 3.], grad_fn=<SliceBackward0>)
>>> torch.stack([x, x]).unbind(1)[0]
tensor([0., 0.], grad_fn=<UnbindBackward0>)
"""
from __future__ import annotations

import math

import numpy as np

from ..tensor import Tensor
from ..types import promote_types
from ._util import Builtin, _accepts, _dim_argument, int_argument, invalid_arguments, view_of, wrap, wrap_dim
from .indexing import Slice
from .shape import MultiViewFunction


def _same_dtype(tensors) -> list:
    """The tensors' arrays, cast to PyTorch's common dtype (int64 and float32 give float32, not float64)."""
    target = tensors[0].dtype
    for t in tensors[1:]:
        target = promote_types(target, t.dtype)
    return [t._data if t._data.dtype == target.numpy else t._data.astype(target.numpy) for t in tensors]


class Cat(Builtin):
    """f(t1, t2, ...) = the tensors joined along dim (``cat``)

    ∂L/∂ti = the slice of grad along dim where ti was placed (None for dim, the first argument)
    Saves nothing: keeps dim and each tensor's size along it. PyTorch's legacy rule: a 1-D empty
    tensor (shape ``(0,)``) is skipped, whatever the other tensors' shapes, and gets an empty gradient.
    """

    @staticmethod
    def forward(ctx, dim, *tensors):
        ctx._dim = dim
        arrays = _same_dtype(tensors)   # the dtype counts every tensor, even a skipped one
        ctx._sizes = [None if _skipped_in_cat(t) else t.shape[dim] for t in tensors]
        joined = [array for size, array in zip(ctx._sizes, arrays) if size is not None] or arrays[:1]
        # numpy keeps its inputs' memory order (a transposed input gives a transposed result); PyTorch's is contiguous
        return wrap(np.ascontiguousarray(np.concatenate(joined, axis=dim)))

    @staticmethod
    def backward(ctx, grad):
        grads, start = [None], 0
        index = [slice(None)] * grad.ndim
        for size in ctx._sizes:
            if size is None:   # a skipped empty tensor gets an empty gradient
                grads.append(wrap(np.zeros(0, grad._data.dtype)))
                continue
            index[ctx._dim] = slice(start, start + size)
            grads.append(grad[tuple(index)])
            start += size
        return tuple(grads)


def _skipped_in_cat(t: Tensor) -> bool:
    """PyTorch's cat skips a 1-D empty tensor (shape ``(0,)``), whatever the other tensors' shapes:
    an old rule, kept so that ``cat([torch.tensor([]), x])`` works."""
    return t._data.shape == (0,)


class Stack(Builtin):
    """f(t1, t2, ...) = the tensors joined along a new dimension dim (``stack``)

    ∂L/∂ti = grad[..., i] along dim (None for dim, the first argument)
    Saves nothing: keeps dim.
    """

    @staticmethod
    def forward(ctx, dim, *tensors):
        ctx._dim = dim
        return wrap(np.ascontiguousarray(np.stack(_same_dtype(tensors), axis=dim)))

    @staticmethod
    def backward(ctx, grad):
        index = [slice(None)] * grad.ndim
        grads = [None]
        for i in range(grad.shape[ctx._dim]):
            index[ctx._dim] = i
            grads.append(grad[tuple(index)])
        return tuple(grads)


def _tensor_list(function: str, tensors) -> list:
    """``tensors`` as a list, after PyTorch's checks of a list-of-tensors argument."""
    if isinstance(tensors, Tensor):
        raise TypeError(f"{function}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    tensors = list(tensors)
    for position, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {position} in argument 0, but got {type(t).__name__}")
    return tensors


def cat(tensors, dim: int = 0) -> Tensor:
    """Join tensors along an existing dimension."""
    tensors = _tensor_list("cat", tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for position, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {position}) cannot be concatenated")
    joined = [(number, t) for number, t in enumerate(tensors) if not _skipped_in_cat(t)] or [(0, tensors[0])]
    dim = wrap_dim(dim, joined[0][1].ndim)
    first = joined[0][1].shape
    for number, t in joined[1:]:
        if t.ndim != len(first):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(first)} and {t.ndim}")
        for d, (expected, got) in enumerate(zip(first, t.shape)):
            if d != dim and expected != got:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. Expected size {expected} "
                                   f"but got size {got} for tensor number {number} in the list.")
    return Cat.apply(dim, *tensors)


def stack(tensors, dim: int = 0) -> Tensor:
    """Join tensors along a new dimension."""
    tensors = _tensor_list("stack", tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for entry, t in enumerate(tensors[1:], start=1):
        if t.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(tensors[0].shape)} at "
                               f"entry 0 and {list(t.shape)} at entry {entry}")
    return Stack.apply(wrap_dim(dim, tensors[0].ndim + 1), *tensors)


def _dim_error(dim: int, ndim: int) -> IndexError:
    low, high = (-ndim, ndim - 1) if ndim else (-1, 0)
    return IndexError(f"Dimension out of range (expected to be in range of [{low}, {high}], but got {dim})")


def _wrap_dim(dim: int, ndim: int) -> int:
    if type(dim) is not int:
        dim = _dim_argument(dim)
    if not -max(ndim, 1) <= dim < max(ndim, 1):
        raise _dim_error(dim, ndim)
    return dim % max(ndim, 1)


class Split(MultiViewFunction):
    """f(a) = (a[s0:s1], a[s1:s2], ...) along dim: views of consecutive pieces of the given sizes

    ∂L/∂a = cat(grads, dim): each piece's gradient back in its place (the engine gives zeros for a
    piece that was not used)
    Saves nothing: keeps dim and a's sizes.
    """

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
    int_argument("split", "split_size", 1, split_size_or_sections)
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
    int_argument("chunk", "chunks", 1, chunks)
    if a.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    length = a.shape[_wrap_dim(dim, a.ndim)]
    return split(a, max(math.ceil(length / chunks), 1) if length else 0, dim)


_NARROW_SIGNATURES = [[("int", "dim"), ("Tensor", "start"), ("int", "length")],
                      [("int", "dim"), ("int", "start"), ("int", "length")]]


def narrow(a: Tensor, dim: int, start, length: int, method: bool = False) -> Tensor:
    """The view ``a[..., start:start + length, ...]`` along ``dim``; ``start`` may be a 0-dim integer
    tensor. (``method``: called as ``a.narrow(...)``, which PyTorch's argument errors do not count ``a`` in.)"""
    if not (_accepts("int", dim) and _accepts("int", length) and (_accepts("int", start) or
                                                                  isinstance(start, Tensor))):
        if method:
            raise invalid_arguments("narrow", _NARROW_SIGNATURES, (dim, start, length))
        raise invalid_arguments("narrow", [[("Tensor", "input")] + s for s in _NARROW_SIGNATURES],
                                (a, dim, start, length))
    if isinstance(start, Tensor) and (start.ndim != 0 or start._data.dtype.kind not in "iu"):
        raise RuntimeError("start must be an 0-dim integral Tensor.")
    dim, length = int(dim), int(length)
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


class Unbind(MultiViewFunction):
    """``x.unbind(dim)``: f(x) = (x[0], x[1], ...) along ``dim``: views, one per index.

    ∂L/∂x = the gradients of the pieces stacked back along ``dim`` (zeros for unused pieces).
    Nothing is saved.
    """

    @staticmethod
    def forward(ctx, a, dim):
        ctx._saved_dim = dim
        lead = (slice(None),) * dim
        return tuple(view_of(a, a._data[lead + (i,)]) for i in range(a._data.shape[dim]))

    @staticmethod
    def backward(ctx, *grads):
        return stack(grads, ctx._saved_dim), None


def unbind(a: Tensor, dim: int = 0) -> tuple:
    dim = wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if a._data.shape[dim] == 0:
        return ()
    pieces = Unbind.apply(a, dim)
    return pieces if isinstance(pieces, tuple) else (pieces,)


def split_with_sizes(a: Tensor, split_sizes, dim: int = 0) -> tuple:
    """Views of consecutive pieces of the listed sizes along ``dim`` (they must add up to its length)."""
    if not isinstance(split_sizes, (list, tuple)):
        raise TypeError("split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, not "
                        f"{type(split_sizes).__name__}")
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = _wrap_dim(dim, a.ndim)
    sizes, length = [int(s) for s in split_sizes], a.shape[dim]
    if sum(sizes) != length:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {length} (input tensor's size "
                           f"at dimension {dim}), but got split_sizes={sizes}")
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                           f"split_sizes={sizes}")
    pieces = SplitWithSizes.apply(a, dim, tuple(sizes))
    return pieces if isinstance(pieces, tuple) else (pieces,)
