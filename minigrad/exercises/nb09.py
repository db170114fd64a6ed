"""Checkers for ``09_capstone_sparse_gcn.ipynb``.

Your turn 1 builds the normalised adjacency ``Â = D^-1/2 (A + I) D^-1/2`` of a graph as COO
``(indices, values)``; Your turn 2 writes a graph convolution layer's forward with ``spmm``.
Both are compared with a dense numpy computation, on the karate club and on a second small graph
(so an answer that only works for 34 members is caught).

>>> import minigrad as torch
>>> from minigrad.exercises import nb09 as check
>>> def normalized_adjacency(edges, num_nodes):
...     pairs = torch.tensor(edges)
...     loops = torch.arange(num_nodes)
...     rows = torch.cat([pairs[:, 0], pairs[:, 1], loops])
...     cols = torch.cat([pairs[:, 1], pairs[:, 0], loops])
...     indices = torch.stack([rows, cols])
...     degree = torch.zeros(num_nodes).index_add_(0, rows, torch.ones(rows.shape[0]))
...     values = degree[rows].pow(-0.5) * degree[cols].pow(-0.5)
...     return indices, values
>>> result = check.your_turn_1(normalized_adjacency)
✓ Your turn 1: Â as COO from the edge list — correct.
"""
from __future__ import annotations

import contextlib
from typing import Iterator

import numpy as np

from .. import factories
from ..datasets import KARATE_EDGES
from ..nn.module import Module
from ..tensor import Tensor
from ._feedback import NotYet, _, N_, exercise, expect

# A second graph: a path 0-1-2-3-4 and member 5 with no friends (only its self-loop).
SMALL_EDGES = [(0, 1), (1, 2), (2, 3), (3, 4)]
SMALL_NODES = 6


def dense_normalized_adjacency(edges, num_nodes: int) -> np.ndarray:
    """``D^-1/2 (A + I) D^-1/2`` as a dense float64 array: the reference both checks compare with."""
    a = np.eye(num_nodes)
    for i, j in edges:
        a[i, j] = a[j, i] = 1.0
    d = a.sum(axis=1)
    return a / np.sqrt(np.outer(d, d))


def _array(t: Tensor) -> np.ndarray:
    return np.asarray(t.detach()._data)


def _pair(pair) -> str:
    return f"({int(pair[0])}, {int(pair[1])})"


@contextlib.contextmanager
def _random_state_kept() -> Iterator[None]:
    """Leave minigrad's random generator as it was: creating the learner's layer draws from it,
    and the notebook's numbers must not depend on how often a check was run."""
    state = factories._generator.bit_generator.state
    try:
        yield
    finally:
        factories._generator.bit_generator.state = state


# =========================================================================== Your turn 1
@exercise("Your turn 1: Â as COO from the edge list",
          deeper_hint=N_("The rows and columns come from both directions of every edge, plus (i, i) for every "
                         "member; a node's degree is the number of entries in its row; each value is 1 / "
                         "sqrt(degree[row] * degree[col])."))
def your_turn_1(normalized_adjacency) -> None:
    """``normalized_adjacency(edges, num_nodes)`` returns ``(indices, values)`` for Â."""
    expect(callable(normalized_adjacency), _("pass the function itself: check.your_turn_1(normalized_adjacency)"))
    for edges, n, name in ((list(KARATE_EDGES), 34, N_("the karate club")),
                           (SMALL_EDGES, SMALL_NODES, _("a path 0-1-2-3-4 plus a member 5 with no friends (edges "
                                                        "{SMALL_EDGES}, num_nodes={SMALL_NODES})")
                                                      .format(SMALL_EDGES=SMALL_EDGES, SMALL_NODES=SMALL_NODES))):
        _check_adjacency(normalized_adjacency(list(edges), n), edges, n, name)


def _check_adjacency(result, edges, n: int, name: str) -> None:
    expect(isinstance(result, (tuple, list)) and len(result) == 2,
           _("for {name}, normalized_adjacency returned {what_result}, not a pair (indices, values)")
           .format(name=name, what_result=_what(result)),
           _("end with: return indices, values"))
    indices, values = result
    expect(isinstance(indices, Tensor) and isinstance(values, Tensor),
           _("indices and values must both be tensors"),
           _("torch.stack([rows, cols]) gives the indices; the values come from tensor arithmetic"))
    expect(indices.dtype.name == "int64" and indices.ndim == 2 and indices.shape[0] == 2,
           _("indices must be an int64 tensor of shape [2, nnz]; got {indices_dtype} of shape {indices_shape}")
           .format(indices_dtype=indices.dtype, indices_shape=list(indices.shape)),
           _("row 0 holds the row numbers, row 1 the column numbers: torch.stack([rows, cols])"))
    nnz = indices.shape[1]
    expect(values.ndim == 1 and values.shape[0] == nnz,
           _("values must have one entry per column of indices ({nnz}); got shape {values_shape}")
           .format(nnz=nnz, values_shape=list(values.shape)))
    expect(values.dtype.name == "float32",
           _("values are {values_dtype}; use float32, the dtype of the weights they will multiply")
           .format(values_dtype=values.dtype),
           _("spmm refuses to mix dtypes; build the degrees from torch.ones(...) (float32 by default)"))

    pairs = [tuple(p) for p in _array(indices).T.tolist()]
    present = set(pairs)
    if len(present) != len(pairs):
        raise NotYet(_("for {name}, the coordinate {pair_first_repeat_pairs} appears more than once (repeated "
                       "coordinates add up)").format(name=name, pair_first_repeat_pairs=_pair(_first_repeat(pairs))),
                     _("list each friendship once per direction, and each self-loop once"))
    missing_loops = [i for i in range(n) if (i, i) not in present]
    if missing_loops:
        raise NotYet(_("for {name}, there is no self-loop ({missing_loops}, {missing_loops}): Â is built from A + I")
                     .format(name=name, missing_loops=missing_loops[0]), _("add one entry (i, i) for every member: torch.arange(num_nodes) gives them all"))
    one_way = [(i, j) for (i, j) in pairs if (j, i) not in present]
    if one_way:
        i, j = one_way[0]
        raise NotYet(_("for {name}, ({i}, {j}) is there but ({j}, {i}) is not: A must be symmetric")
                     .format(name=name, i=i, j=j),
                     _("a friendship goes both ways: put (i, j) and (j, i) in the indices"))
    expected = {(i, j) for i, j in edges} | {(j, i) for i, j in edges} | {(i, i) for i in range(n)}
    extra = [p for p in pairs if p not in expected]
    if extra:
        raise NotYet(_("for {name}, the entry {pair_extra} is not a friendship")
                     .format(name=name, pair_extra=_pair(extra[0])),
                     _("the indices are the edges (both directions) and the self-loops, nothing else"))
    missing = sorted(expected - present)
    if missing:
        raise NotYet(_("for {name}, the friendship {pair_missing} is missing: nnz is {nnz}, expected 2 * {n_edges} "
                       "+ {n} = {len_edges_n}")
                     .format(name=name, pair_missing=_pair(missing[0]), nnz=nnz, n_edges=len(edges), n=n, len_edges_n=2 * len(edges) + n),
                     _("every friendship in both directions, plus one self-loop per member"))

    dense = dense_normalized_adjacency(edges, n)
    got = _array(values).astype(np.float64)
    want = np.array([dense[i, j] for i, j in pairs])
    if not np.allclose(got, want, rtol=1e-5, atol=1e-6):
        _diagnose_values(got, want, pairs, edges, n, name)


def _what(value) -> str:
    """``'NoneType'``, ``'tuple of length 3'``: what was returned instead of a pair."""
    if isinstance(value, (tuple, list)):
        return _("{value_type} of length {n_value}").format(value_type=type(value).__name__, n_value=len(value))
    return type(value).__name__


def _first_repeat(pairs: list) -> tuple:
    seen = set()
    for p in pairs:
        if p in seen:
            return p
        seen.add(p)
    return pairs[0]


def _diagnose_values(got: np.ndarray, want: np.ndarray, pairs: list, edges, n: int, name: str) -> None:
    """Name the usual mistake behind wrong values, or point at the first wrong entry."""
    a = np.eye(n)
    for i, j in edges:
        a[i, j] = a[j, i] = 1.0
    degree = a.sum(axis=1)
    rows = np.array([p[0] for p in pairs])
    cols = np.array([p[1] for p in pairs])
    close = lambda candidate: np.allclose(got, candidate, rtol=1e-5, atol=1e-6)   # noqa: E731
    expect(not close(np.ones_like(want)), _("for {name}, every value is 1: these are the entries of A + I, not yet "
                                            "normalised")
                                          .format(name=name), _("value k is 1 / sqrt(degree[rows[k]] * degree[cols[k]])"))
    without_loop = np.maximum(degree - 1, 1)
    expect(not close(1 / np.sqrt(without_loop[rows] * without_loop[cols])),
           _("for {name}, the values use the degree without the self-loop").format(name=name),
           _("count the self-loop in the degree: the degree of A + I (member 0 of the karate club has 16 friends, "
             "so its degree is 17 and Â[0, 0] = 1/17)"))
    expect(not close(1 / degree[rows]),
           _("for {name}, the values are 1 / degree[row]: that is D^-1 (A + I), which is not symmetric")
           .format(name=name),
           _("divide by the square root of both degrees: 1 / sqrt(degree[rows] * degree[cols])"))
    expect(not close(1 / (degree[rows] * degree[cols])),
           _("for {name}, the values are 1 / (degree[row] * degree[col]): the square root is missing")
           .format(name=name),
           _("D^-1/2 on each side: 1 / sqrt(degree[rows] * degree[cols]), e.g. degree.pow(-0.5)"))
    k = int(np.argmax(~np.isclose(got, want, rtol=1e-5, atol=1e-6)))
    i, j = pairs[k]
    raise NotYet(_("for {name}, the value at ({i}, {j}) is {got_k:.4f}; expected 1 / sqrt({degree_i:g} * "
                   "{degree_j:g}) = {want_k:.4f}")
                 .format(name=name, i=i, j=j, got_k=got[k], degree_i=degree[i], degree_j=degree[j], want_k=want[k]),
                 _("value k is 1 / sqrt(degree[rows[k]] * degree[cols[k]]), degrees of A + I (self-loop counted)"))


# =========================================================================== Your turn 2
@exercise("Your turn 2: a graph convolution layer with spmm",
          deeper_hint=N_("First the dense product of h and self.weight (nodes × out_features), then spmm with Â on "
                         "the left and that product on the right, so that each node sums the rows of its neighbours."))
def your_turn_2(layer_class) -> None:
    """``layer_class(in_features, out_features)`` has a ``weight``; ``layer(h, adjacency)`` is ``Â h W``."""
    expect(isinstance(layer_class, type) and issubclass(layer_class, Module),
           _("pass the class itself: check.your_turn_2(GraphConvolution)"),
           _("the checker makes its own layers of several sizes from the class: GraphConvolution, not "
             "GraphConvolution(3, 4)"))
    rng = np.random.default_rng(9)
    # Rows scaled differently, so that this test matrix is not symmetric: a layer that swaps rows
    # and columns (Â.T @ h @ W) gives other numbers than Â @ h @ W.
    dense = dense_normalized_adjacency(SMALL_EDGES, SMALL_NODES) * np.linspace(1.0, 2.0, SMALL_NODES)[:, None]
    rows, cols = np.nonzero(dense)
    adjacency = (Tensor._make(np.stack([rows, cols]).astype(np.int64)),
                 Tensor._make(dense[rows, cols].astype(np.float32)), (SMALL_NODES, SMALL_NODES))
    with _random_state_kept():
        layer = layer_class(4, 3)
    weight = getattr(layer, "weight", None)
    expect(isinstance(weight, Tensor) and list(weight.shape) == [4, 3],
           _("GraphConvolution(4, 3).weight should be a [4, 3] Parameter; got {weight_shape}")
           .format(weight_shape=list(weight.shape) if isinstance(weight, Tensor) else type(weight).__name__),
           _("keep the __init__ of the starter: self.weight = torch.nn.Parameter(...)"))
    h = Tensor._make(rng.standard_normal((SMALL_NODES, 4)).astype(np.float32))
    h.requires_grad_(True)
    out = layer(h, adjacency)
    expect(isinstance(out, Tensor), _("forward returned {out_type}, not a tensor").format(out_type=type(out).__name__),
           _("return spmm(indices, values, shape, h @ self.weight)"))
    expect(list(out.shape) == [SMALL_NODES, 3],
           _("for h of shape [{SMALL_NODES}, 4], the output has shape {out_shape}; expected [{SMALL_NODES}, 3]: one "
             "row per member, out_features columns").format(SMALL_NODES=SMALL_NODES, out_shape=list(out.shape)))
    w, x, y = _array(weight).astype(np.float64), _array(h).astype(np.float64), _array(out).astype(np.float64)
    close = lambda candidate: np.allclose(y, candidate, rtol=1e-4, atol=1e-5)   # noqa: E731
    expect(not close(x @ w), _("the output is h @ W: the layer ignores the graph, so no member hears from its "
                               "friends"),
           _("multiply by Â too, with spmm (imported at the top): it multiplies the sparse matrix given by indices, "
             "values and shape with a dense one. Which dense matrix, and in which order?"))
    expect(not close(dense.T @ x @ w),
           _("the output is Â.T @ h @ W: rows and columns of the adjacency are swapped"),
           _("indices[0] holds the rows and indices[1] the columns: pass indices to spmm as they are"))
    expect(not close((dense != 0) @ x @ w),
           _("the output is A @ h @ W with every stored value equal to 1: the values were not used"),
           _("pass values to spmm: spmm(indices, values, shape, h @ self.weight)"))
    want = dense @ x @ w
    i = int(np.argmax(np.abs(y - want).max(axis=1)))
    expect(close(want), _("the output differs from Â @ h @ W computed densely: row {i} is {y_i}, Â @ h @ W gives "
                          "{want_i}").format(i=i, y_i=np.round(y[i], 4).tolist(), want_i=np.round(want[i], 4).tolist()),
           _("spmm(indices, values, shape, b) computes Â @ b; b is h @ self.weight"))
    name = out.grad_fn.name() if out.grad_fn is not None else None
    expect(name == "SpmmBackward",
           _("the output's grad_fn is {name}, not SpmmBackward: the last step must be spmm").format(name=name),
           _("compute h @ self.weight first, then spmm(indices, values, shape, that): spmm then works on "
             "out_features columns, and no dense Â is ever made (sparse_coo_tensor @ ... or spmm(...) @ W end in "
             "MmBackward0)"))
    upstream = rng.standard_normal((SMALL_NODES, 3))
    (out * Tensor._make(upstream.astype(np.float32))).sum().backward()
    expect(weight.grad is not None, _("after backward, self.weight.grad is None: no gradient reached the weight"),
           _("use self.weight itself in forward (not a detached copy or its .data)"))
    expect(np.allclose(_array(weight.grad), x.T @ dense.T @ upstream, rtol=1e-4, atol=1e-5),
           _("self.weight.grad differs from h.T @ Â.T @ grad_output"))
    expect(h.grad is not None and np.allclose(_array(h.grad), dense.T @ upstream @ w.T, rtol=1e-4, atol=1e-5),
           _("the gradient does not flow back to h correctly (the layer below would not learn)"),
           _("do not detach h; compute everything with tensor operations and spmm"))
    other = dense_normalized_adjacency(SMALL_EDGES[::2], SMALL_NODES)   # another graph, same members
    rows, cols = np.nonzero(other)
    again = layer(h, (Tensor._make(np.stack([rows, cols]).astype(np.int64)),
                      Tensor._make(other[rows, cols].astype(np.float32)), (SMALL_NODES, SMALL_NODES)))
    expect(isinstance(again, Tensor) and np.allclose(_array(again), other @ x @ w, rtol=1e-4, atol=1e-5),
           _("for a second adjacency (another graph on the same members), the output is not Â @ h @ W of that "
             "graph: the layer keeps something of the first call (the adjacency, on self?)"),
           _("use the adjacency passed to forward on every call; the layer keeps only its weight"))
