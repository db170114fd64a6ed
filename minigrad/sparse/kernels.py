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

How (the choices were measured, see bench/bench_sparse.py):

- Both loops walk the feature dimension one column at a time. ``b[:, j]`` copied into a
  contiguous row of ``b.T`` is ``n * 4`` bytes (4 MB for a million float32 rows): the random
  reads ``column[take]`` then mostly hit the CPU cache. Gathering whole rows ``b[take]`` instead
  reads the full matrix at random and was about twice as slow on large graphs.
- The scatter is ``np.bincount(into, weights=..., minlength=n_out)``, which adds repeated
  indices correctly and needs no sorting. (``np.add.at`` was about 3x slower; sorting the edges
  by row for ``np.add.reduceat`` cost more than it saved.) bincount adds in float64, so float32
  results are slightly *more* accurate than a float32 sum.
- Edges are processed in chunks of ``CHUNK`` so that the temporary arrays stay bounded
  (a few ``CHUNK``-long buffers) however many edges there are.
"""
from __future__ import annotations

import numpy as np

CHUNK = 1 << 22
"""Edges handled per step: each temporary buffer is CHUNK values long (16 MB in float32; bincount
adds a float64 copy of its weights). Smaller chunks were slower on a million-node graph: each one
adds a full-length bincount result to the running total."""


def _columns(matrix: np.ndarray) -> np.ndarray:
    """``matrix.T`` as a C-contiguous array: row j is column j of ``matrix``, contiguous."""
    return np.ascontiguousarray(matrix.T)


def scatter_add(into: np.ndarray, take: np.ndarray, weights: np.ndarray, source: np.ndarray,
                n_out: int) -> np.ndarray:
    """``out[into[k]] += weights[k] * source[take[k]]`` for every k; ``out`` has ``n_out`` rows.

    ``into`` and ``take`` are valid int64 row numbers (checked by the caller); ``source`` is 2-D.
    """
    nnz, d = len(into), source.shape[1]
    dtype = np.result_type(weights, source)
    columns = _columns(source.astype(dtype, copy=False))
    weights = weights.astype(dtype, copy=False)
    out = np.zeros((n_out, d), dtype)
    buffer = np.empty(min(CHUNK, nnz), dtype)
    for j in range(d):
        column = columns[j]
        total = None
        for start in range(0, nnz, CHUNK):
            stop = min(start + CHUNK, nnz)
            products = buffer[:stop - start]
            np.take(column, take[start:stop], out=products, mode="clip")   # "clip": indices are valid
            products *= weights[start:stop]
            part = np.bincount(into[start:stop], weights=products, minlength=n_out)
            if total is None:
                total = part
            else:
                total += part
        if total is not None:
            out[:, j] = total
    return out


def sampled_dot(rows: np.ndarray, cols: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """``out[k] = sum_j left[rows[k], j] * right[cols[k], j]``: ``(left @ right.T)[rows, cols]``.

    Costs O(nnz * d) time and O(nnz + CHUNK) extra memory, where forming ``left @ right.T`` first
    would cost O(n_rows * n_cols).
    """
    nnz, d = len(rows), left.shape[1]
    dtype = np.result_type(left, right)
    left_columns = _columns(left.astype(dtype, copy=False))
    right_columns = _columns(right.astype(dtype, copy=False))
    out = np.zeros(nnz, dtype)
    size = min(CHUNK, nnz)
    from_left, from_right = np.empty(size, dtype), np.empty(size, dtype)
    for start in range(0, nnz, CHUNK):
        stop = min(start + CHUNK, nnz)
        n = stop - start
        total, a, b = out[start:stop], from_left[:n], from_right[:n]
        row_chunk, col_chunk = rows[start:stop], cols[start:stop]
        for j in range(d):
            np.take(left_columns[j], row_chunk, out=a, mode="clip")
            np.take(right_columns[j], col_chunk, out=b, mode="clip")
            a *= b
            total += a
    return out
