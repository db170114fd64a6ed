"""The numpy arithmetic of COO tensors: every sparse operation is one of these few array steps.

A COO tensor of ``shape`` is two arrays: ``indices``, int64 of shape ``(sparse_dim, nnz)``, and
``values``, of shape ``(nnz, *shape[sparse_dim:])``. Entry k says: the slice at the coordinates
``indices[:, k]`` of the first ``sparse_dim`` dimensions is ``values[k]``; what no entry names is
zero, and entries that name the same coordinates add up. The last ``values.ndim - 1`` dimensions
are the *dense* ones of a hybrid tensor: an entry of a ``(4, 5, 2)`` tensor with one sparse
dimension is a whole ``(5, 2)`` block. A 0-dim sparse tensor has ``sparse_dim = 0``: every entry
names "the" element, and the tensor is the sum of its values.

>>> import numpy as np
>>> indices = np.array([[2, 0, 2]])                  # one sparse dimension, entries at 2, 0 and 2 again
>>> values = np.array([[1.0, 1.0], [5.0, 6.0], [2.0, 3.0]])
>>> to_dense(indices, values, (3, 2))
array([[5., 6.],
       [0., 0.],
       [3., 4.]])
>>> coalesce(indices, values, (3, 2))             # sorted, each coordinate once, repeats summed
(array([[0, 2]]), array([[5., 6.],
       [3., 4.]]))
"""
from __future__ import annotations

import numpy as np


def sparse_shape(indices: np.ndarray, shape: tuple) -> tuple:
    return tuple(shape[:indices.shape[0]])


def flat_positions(indices: np.ndarray, shape: tuple) -> np.ndarray:
    """Each entry's position in the row-major order of the sparse dimensions (int64, ``(nnz,)``)."""
    if indices.shape[0] == 0:
        return np.zeros(indices.shape[1], np.int64)
    return np.ravel_multi_index(tuple(indices), sparse_shape(indices, shape)).astype(np.int64, copy=False)


def coalesce(indices: np.ndarray, values: np.ndarray, shape: tuple) -> tuple:
    """``(indices, values)`` sorted by coordinates, each coordinate once, the values of repeats summed."""
    if values.shape[0] < 2:
        return indices.copy(), values.copy()
    order, starts = _sorted_runs(indices, shape)
    summed = np.add.reduceat(values[order], starts, axis=0) if values.size else values[order][starts]
    return np.ascontiguousarray(indices[:, order[starts]]), summed.astype(values.dtype, copy=False)


def unique_coordinates(indices: np.ndarray, shape: tuple) -> np.ndarray:
    """The coordinates of ``indices``, sorted, each once (the indices ``coalesce`` would give)."""
    if indices.shape[1] < 2:
        return indices.copy()
    order, starts = _sorted_runs(indices, shape)
    return np.ascontiguousarray(indices[:, order[starts]])


def _sorted_runs(indices: np.ndarray, shape: tuple) -> tuple:
    """The order that sorts the entries by coordinates, and where each run of equal ones starts."""
    positions = flat_positions(indices, shape)
    order = np.argsort(positions, kind="stable")
    positions = positions[order]
    return order, np.flatnonzero(np.concatenate(([True], positions[1:] != positions[:-1])))


def is_coalesced(indices: np.ndarray, shape: tuple) -> bool:
    """True if the coordinates are sorted and none repeats (what ``coalesce`` would leave as it is)."""
    positions = flat_positions(indices, shape)
    return bool(np.all(positions[1:] > positions[:-1]))


def to_dense(indices: np.ndarray, values: np.ndarray, shape: tuple) -> np.ndarray:
    """The dense array: zeros, plus every entry added at its coordinates."""
    dense = np.zeros(shape, values.dtype)
    if indices.shape[0] == 0:   # a 0-dim tensor (or dense dimensions only): the sum of the entries
        dense[...] = values.sum(axis=0, dtype=values.dtype) if values.shape[0] else 0
    elif values.shape[0]:
        np.add.at(dense, tuple(indices), values)
    return dense


def gather(dense: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """``dense`` read at every entry's coordinates: shape ``(nnz, *dense_shape)``."""
    if indices.shape[0] == 0:
        return np.broadcast_to(dense, (indices.shape[1],) + dense.shape).copy()
    return dense[tuple(indices)]


def lookup(indices: np.ndarray, values: np.ndarray, shape: tuple, at: np.ndarray, with_found: bool = False):
    """The sparse tensor ``(indices, values)`` read at the coordinates ``at`` (``(sparse_dim, n)``):
    the sum of its entries there, zero where it has none. Shape ``(n, *dense_shape)``; with
    ``with_found``, also which of the ``n`` coordinates it has entries at."""
    indices, values = coalesce(indices, values, shape)
    known, wanted = flat_positions(indices, shape), flat_positions(at, shape)
    out = np.zeros((at.shape[1],) + values.shape[1:], values.dtype)
    found = np.zeros(at.shape[1], bool)
    if known.size and wanted.size:
        slot = np.minimum(np.searchsorted(known, wanted), known.size - 1)
        found = known[slot] == wanted
        out[found] = values[slot[found]]
    return (out, found) if with_found else out


def from_dense(dense: np.ndarray, sparse_dim: int) -> tuple:
    """``(indices, values)`` of the coalesced COO form of ``dense`` with ``sparse_dim`` sparse
    dimensions: one entry per slice of the dense dimensions that is not all zeros."""
    if sparse_dim == 0:   # a 0-dim tensor: one entry, or none when it is zero
        kept = int(bool((dense != 0).any()))
        return np.zeros((0, kept), np.int64), dense.reshape((1,) + dense.shape)[:kept].copy()
    dense_numel = int(np.prod(dense.shape[sparse_dim:], dtype=np.int64))
    blocks = dense.reshape(dense.shape[:sparse_dim] + (dense_numel,))
    indices = np.array(np.nonzero((blocks != 0).any(axis=-1)), dtype=np.int64).reshape(sparse_dim, -1)
    return indices, np.ascontiguousarray(gather(dense, indices))


def intersect(a_indices: np.ndarray, b_indices: np.ndarray, shape: tuple) -> tuple:
    """For two coalesced index arrays: the positions in a and in b of the coordinates both have."""
    a_flat, b_flat = flat_positions(a_indices, shape), flat_positions(b_indices, shape)
    _, in_a, in_b = np.intersect1d(a_flat, b_flat, assume_unique=True, return_indices=True)
    return in_a, in_b


def all_positions(shape: tuple, sparse_dim: int) -> np.ndarray:
    """The coordinates of every element of the sparse dimensions, in row-major order."""
    if sparse_dim == 0:   # a 0-dim tensor has one element
        return np.zeros((0, 1), np.int64)
    return np.indices(shape[:sparse_dim], dtype=np.int64).reshape(sparse_dim, -1)


def element_positions(indices: np.ndarray, values_shape: tuple, shape: tuple) -> np.ndarray:
    """For each number of ``values`` (flattened), the row-major position in the whole tensor of the
    element it adds to: what gradcheck needs to place a stored value's derivative."""
    dense_numel = int(np.prod(values_shape[1:], dtype=np.int64))
    starts = flat_positions(indices, shape) * dense_numel
    return (starts[:, None] + np.arange(dense_numel, dtype=np.int64)[None, :]).reshape(-1)


def merge(a_indices: np.ndarray, a_values: np.ndarray, b_indices: np.ndarray, b_values: np.ndarray, shape: tuple,
          sorted_unique: bool) -> tuple:
    """The entries of a and b in one list, as PyTorch's sparse addition walks them: two cursors, the
    entry with the smaller coordinates first, the two summed into one when their coordinates are
    equal. For two coalesced inputs that is their sorted union (computed at once); otherwise the
    order and the repeats follow the walk entry by entry, so that the result is PyTorch's own."""
    indices = np.concatenate([a_indices, b_indices], axis=1)
    values = np.concatenate([a_values, b_values])
    if sorted_unique:
        return coalesce(indices, values, shape)
    a_keys, b_keys = flat_positions(a_indices, shape).tolist(), flat_positions(b_indices, shape).tolist()
    taken, summed_with, i, j = [], [], 0, 0
    while i < len(a_keys) or j < len(b_keys):
        if j == len(b_keys) or (i < len(a_keys) and a_keys[i] < b_keys[j]):
            taken.append(i), summed_with.append(-1)
            i += 1
        elif i == len(a_keys) or b_keys[j] < a_keys[i]:
            taken.append(len(a_keys) + j), summed_with.append(-1)
            j += 1
        else:   # equal coordinates: one entry, the two values summed
            taken.append(i), summed_with.append(len(a_keys) + j)
            i, j = i + 1, j + 1
    taken, summed_with = np.array(taken, np.int64), np.array(summed_with, np.int64)
    merged = values[taken]
    both = summed_with >= 0
    merged[both] = merged[both] + values[summed_with[both]]
    return np.ascontiguousarray(indices[:, taken]), merged
