"""The two numpy loops behind every sparse product, in O(nnz * d) time and bounded memory.

A sparse matrix ``A`` of shape ``(n_rows, n_cols)`` in COO form is three arrays of length nnz:
``rows``, ``cols`` and ``values``, meaning ``A[rows[k], cols[k]] += values[k]`` (repeated
coordinates add up). Everything a sparse product and its backward need is one of two loops:

- ``scatter_add``: ``out[into[k]] += weights[k] * source[take[k]]`` for every k. With
  ``into=rows, take=cols`` it computes ``A @ b``; with ``into=cols, take=rows`` it computes
  ``A.T @ g`` (the gradient of ``b``).
- ``sampled_dot``: ``out[k] = <left[rows[k]], right[cols[k]]>`` for every k: the gradient of the
  values, ``(g @ b.T)[rows[k], cols[k]]``, computed for the nnz entries only, without ever
  forming the ``n_rows x n_cols`` matrix ``g @ b.T``.

>>> import numpy as np
>>> rows, cols = np.array([0, 0, 1]), np.array([1, 1, 0])        # A = [[0, 2+3], [4, 0]]
>>> values = np.array([2.0, 3.0, 4.0])
>>> b = np.array([[1.0, 10.0], [2.0, 20.0]])
>>> scatter_add(rows, cols, values, b, n_out=2)                   # A @ b
array([[ 10., 100.],
       [  4.,  40.]])
>>> sampled_dot(rows, cols, np.ones((2, 2)), b)                   # (ones @ b.T)[rows, cols]
array([22., 22., 11.])

How (the choices were measured with numpy 2.4, see bench/bench_sparse.py):

- ``scatter_add`` walks the feature dimension one column at a time. Column j of ``source`` is
  copied into a contiguous row (``n * 4`` bytes, 4 MB for a million float32 rows), so the random
  reads ``column[take]`` mostly hit the CPU cache. The products are added into row j of the
  (transposed) result with ``np.add.at``, which adds repeated indices correctly, needs no sorting
  and works in the result's dtype. (``np.bincount`` works in float64 and was about 1.7x slower;
  sorting the edges for ``np.add.reduceat`` cost more than it saved; gathering whole rows and
  scattering them column by column was slower too.) For float data two columns travel together
  as the real and imaginary parts of one complex number: half the calls, about 25% faster.
- ``sampled_dot`` gathers whole rows ``left[rows]`` and ``right[cols]`` for a chunk of edges and
  multiplies them row by row (``einsum``): three times faster than a column at a time, at a
  million nodes as well as at twenty thousand.
- Edges are processed in chunks so that the temporary arrays stay bounded (a few megabytes)
  however many edges there are.
"""
from __future__ import annotations

import numpy as np

CHUNK = 1 << 22
"""Edges handled per step of ``scatter_add``: its temporary buffer is CHUNK values long (16 MB in
float32). Smaller chunks were slower on a million-node graph."""

ROW_CHUNK_ELEMENTS = 1 << 19
"""Numbers gathered per step of ``sampled_dot`` (2 MB of float32 per gathered block), i.e.
``ROW_CHUNK_ELEMENTS // d`` edges at a time."""


def scatter_add(into: np.ndarray, take: np.ndarray, weights: np.ndarray, source: np.ndarray,
                n_out: int) -> np.ndarray:
    """``out[into[k]] += weights[k] * source[take[k]]`` for every k; ``out`` has ``n_out`` rows.

    ``into`` and ``take`` are valid int64 row numbers (checked by the caller); ``source`` is 2-D.
    """
    dtype = np.result_type(weights, source)
    source, weights = source.astype(dtype, copy=False), weights.astype(dtype, copy=False)
    pair = _PAIRS.get(dtype)
    if pair is not None and source.shape[1] % 2 == 0:
        # Two float columns travel as one complex number (real, imaginary): half as many gathers
        # and additions, and each complex addition is exactly the two float additions.
        packed = np.ascontiguousarray(source).view(pair)
        return _scatter_columns(into, take, weights, packed, n_out).view(dtype)
    return _scatter_columns(into, take, weights, source, n_out)


_PAIRS = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}


def _scatter_columns(into: np.ndarray, take: np.ndarray, weights: np.ndarray, source: np.ndarray,
                     n_out: int) -> np.ndarray:
    """scatter_add, one column of ``source`` at a time (weights are real; source may be complex)."""
    nnz, d = len(into), source.shape[1]
    columns = np.ascontiguousarray(source.T)   # row j: column j of source, contiguous
    out_columns = np.zeros((d, n_out), source.dtype)
    buffer = np.empty(min(CHUNK, nnz), source.dtype)
    for start in range(0, nnz, CHUNK):
        stop = min(start + CHUNK, nnz)
        products, into_chunk, take_chunk = buffer[:stop - start], into[start:stop], take[start:stop]
        for j in range(d):
            np.take(columns[j], take_chunk, out=products, mode="clip")   # "clip": indices are valid
            products *= weights[start:stop]
            np.add.at(out_columns[j], into_chunk, products)
    return np.ascontiguousarray(out_columns.T)


def sampled_dot(rows: np.ndarray, cols: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """``out[k] = sum_j left[rows[k], j] * right[cols[k], j]``: ``(left @ right.T)[rows, cols]``.

    Costs O(nnz * d) time and O(nnz) extra memory plus two small blocks, where forming
    ``left @ right.T`` first would cost O(n_rows * n_cols).
    """
    nnz, d = len(rows), left.shape[1]
    dtype = np.result_type(left, right)
    # Contiguous once here: take() would otherwise copy a strided input (such as the broadcast
    # gradient of out.sum()) again for every chunk.
    left = np.ascontiguousarray(left.astype(dtype, copy=False))
    right = np.ascontiguousarray(right.astype(dtype, copy=False))
    out = np.empty(nnz, dtype)
    step = max(1, ROW_CHUNK_ELEMENTS // max(d, 1))
    for start in range(0, nnz, step):
        stop = min(start + step, nnz)
        from_left = np.take(left, rows[start:stop], axis=0)     # (edges in chunk, d)
        from_right = np.take(right, cols[start:stop], axis=0)
        np.einsum("ij,ij->i", from_left, from_right, out=out[start:stop])   # row-wise dot products
    return out
