"""The checkers of notebook 09, the capstone, a sparse GCN (``minigrad/exercises/nb09.py``): right answers
written several ways, and the wrong answers students write, each with the verdict it must give
in English and in Chinese."""
from __future__ import annotations

import math

import numpy as np

import minigrad as torch
from minigrad import factories
from minigrad.exercises import nb09
from minigrad.sparse import spmm

from exercise_helpers import run, verdict_tests


# =========================================================================== Your turn 1: Â as COO
def both_directions_and_loops(edges, num_nodes):
    pairs = torch.tensor(edges)
    loops = torch.arange(num_nodes)
    rows = torch.cat([pairs[:, 0], pairs[:, 1], loops])
    cols = torch.cat([pairs[:, 1], pairs[:, 0], loops])
    return rows, cols


def solution_spmm_degrees(edges, num_nodes):
    """The notebook's worked solution: degrees as (A + I) @ 1."""
    rows, cols = both_directions_and_loops(edges, num_nodes)
    indices = torch.stack([rows, cols])
    shape = (num_nodes, num_nodes)
    degree = spmm(indices, torch.ones(rows.shape[0]), shape, torch.ones(num_nodes, 1))[:, 0]
    return indices, degree[rows].pow(-0.5) * degree[cols].pow(-0.5)


def solution_index_add(edges, num_nodes):
    """Also right: degrees counted with index_add_, values with sqrt and a division."""
    rows, cols = both_directions_and_loops(edges, num_nodes)
    degree = torch.zeros(num_nodes).index_add_(0, rows, torch.ones(rows.shape[0]))
    return torch.stack([rows, cols]), 1 / (degree[rows] * degree[cols]).sqrt()


def solution_python_loops(edges, num_nodes):
    """Also right: plain Python, self-loops first, then tensors at the end."""
    pairs = [(i, i) for i in range(num_nodes)] + [(i, j) for i, j in edges] + [(j, i) for i, j in edges]
    degree = [1] * num_nodes
    for i, j in edges:
        degree[i] += 1
        degree[j] += 1
    values = [1 / math.sqrt(degree[i] * degree[j]) for i, j in pairs]
    return torch.tensor(pairs).t(), torch.tensor(values)


def starter(edges, num_nodes):
    """The notebook's starter: one direction, no self-loops, values 1."""
    pairs = torch.tensor(edges)
    rows, cols = pairs[:, 0], pairs[:, 1]
    return torch.stack([rows, cols]), torch.ones(rows.shape[0])


def one_direction_with_loops(edges, num_nodes):
    pairs = torch.tensor(edges)
    loops = torch.arange(num_nodes)
    rows, cols = torch.cat([pairs[:, 0], loops]), torch.cat([pairs[:, 1], loops])
    return torch.stack([rows, cols]), torch.ones(rows.shape[0])


def loops_twice(edges, num_nodes):
    indices, values = solution_spmm_degrees(edges, num_nodes)
    loops = torch.arange(num_nodes)
    return torch.cat([indices, torch.stack([loops, loops])], 1), torch.cat([values, torch.ones(num_nodes)])


def with_values(make_values):
    """Correct indices, values computed by make_values(degree, rows, cols), degrees of A + I."""
    def answer(edges, num_nodes):
        rows, cols = both_directions_and_loops(edges, num_nodes)
        degree = torch.zeros(num_nodes).index_add_(0, rows, torch.ones(rows.shape[0]))
        return torch.stack([rows, cols]), make_values(degree, rows, cols)
    return answer


def degree_without_self_loop(edges, num_nodes):
    rows, cols = both_directions_and_loops(edges, num_nodes)
    pairs = torch.tensor(edges)
    friends = torch.zeros(num_nodes).index_add_(0, torch.cat([pairs[:, 0], pairs[:, 1]]), torch.ones(2 * len(edges)))
    friends = friends.clamp(min=1)      # member 5 of the small graph has no friends
    return torch.stack([rows, cols]), friends[rows].pow(-0.5) * friends[cols].pow(-0.5)


def hard_coded_34(edges, num_nodes):
    return solution_spmm_degrees(edges, 34)


def missing_friendship(edges, num_nodes):
    return solution_spmm_degrees(list(edges)[1:], num_nodes)


def extra_entry(edges, num_nodes):
    return solution_spmm_degrees(list(edges) + [(0, num_nodes - 1)], num_nodes)


WRONG_ADJACENCIES = [
    (starter, "What is wrong: for the karate club, there is no self-loop (0, 0): Â is built from A + I"),
    (one_direction_with_loops, "What is wrong: for the karate club, (0, 1) is there but (1, 0) is not: A must be "
                               "symmetric"),
    (loops_twice, "What is wrong: for the karate club, the coordinate (0, 0) appears more than once (repeated "
                  "coordinates add up)"),
    (with_values(lambda d, r, c: torch.ones(r.shape[0])),
     "What is wrong: for the karate club, every value is 1: these are the entries of A + I, not yet normalised"),
    (degree_without_self_loop, "What is wrong: for the karate club, the values use the degree without the "
                               "self-loop"),
    (with_values(lambda d, r, c: 1 / d[r]),
     "What is wrong: for the karate club, the values are 1 / degree[row]: that is D^-1 (A + I), which is not "
     "symmetric"),
    (with_values(lambda d, r, c: 1 / (d[r] * d[c])),
     "What is wrong: for the karate club, the values are 1 / (degree[row] * degree[col]): the square root is "
     "missing"),
    (with_values(lambda d, r, c: (d[r] * d[c]).pow(-0.5) * 1.01),
     "What is wrong: for the karate club, the value at (0, 1) is 0.0775; expected 1 / sqrt(17 * 10) = 0.0767"),
    (with_values(lambda d, r, c: (d[r] * d[c]).pow(-0.5).double()),
     "What is wrong: values are torch.float64; use float32, the dtype of the weights they will multiply"),
    (hard_coded_34, "What is wrong: for a path 0-1-2-3-4 plus a member 5 with no friends"),
    (extra_entry, "What is wrong: for the karate club, the entry (0, 33) is not a friendship"),
    (missing_friendship, "What is wrong: for the karate club, the friendship (0, 1) is missing: nnz is 188, "
                         "expected 2 * 78 + 34 = 190"),
    (lambda edges, n: None, "What is wrong: for the karate club, normalized_adjacency returned NoneType, not a "
                            "pair (indices, values)"),
    (lambda edges, n: ([[0], [0]], [1.0]), "What is wrong: indices and values must both be tensors"),
    (lambda edges, n: (torch.zeros(2, 3), torch.ones(3)), "What is wrong: indices must be an int64 tensor of "
                                                         "shape [2, nnz]; got torch.float32 of shape [2, 3]"),
]


def test_dense_reference_is_symmetric_with_rows_of_the_right_weights():
    a = nb09.dense_normalized_adjacency(nb09.SMALL_EDGES, nb09.SMALL_NODES)
    assert np.allclose(a, a.T)
    assert a[5, 5] == 1.0                         # no friends: degree 1, self-loop 1
    assert np.isclose(a[0, 1], 1 / math.sqrt(2 * 3))


# =========================================================================== Your turn 2: the layer
class Solution(torch.nn.Module):
    """The notebook's worked solution."""

    def __init__(self, in_features, out_features):
        super().__init__()
        bound = math.sqrt(6 / (in_features + out_features))
        self.weight = torch.nn.Parameter((torch.rand(in_features, out_features) * 2 - 1) * bound)

    def forward(self, h, adjacency):
        indices, values, shape = adjacency
        return spmm(indices, values, shape, h @ self.weight)


class Starter(Solution):
    def forward(self, h, adjacency):
        return h @ self.weight


class SpmmFirst(Solution):
    """(Â h) W: the same numbers, but the sparse product runs on in_features columns."""

    def forward(self, h, adjacency):
        indices, values, shape = adjacency
        return spmm(indices, values, shape, h) @ self.weight


class DenseSparseTensor(Solution):
    def forward(self, h, adjacency):
        indices, values, shape = adjacency
        return torch.sparse_coo_tensor(indices, values, shape) @ (h @ self.weight)


class DetachedWeight(Solution):
    def forward(self, h, adjacency):
        indices, values, shape = adjacency
        return spmm(indices, values, shape, h @ self.weight.detach())


class DetachedInput(Solution):
    def forward(self, h, adjacency):
        indices, values, shape = adjacency
        return spmm(indices, values, shape, h.detach() @ self.weight)


class DoubledValues(Solution):
    def forward(self, h, adjacency):
        indices, values, shape = adjacency
        return spmm(indices, values * 2, shape, h @ self.weight)


class SwappedIndices(Solution):
    """Â.T h W: right only when Â is symmetric, as a GCN's Â always is."""

    def forward(self, h, adjacency):
        indices, values, shape = adjacency
        return spmm(torch.stack([indices[1], indices[0]]), values, shape, h @ self.weight)


class OnesForValues(Solution):
    def forward(self, h, adjacency):
        indices, values, shape = adjacency
        return spmm(indices, torch.ones_like(values), shape, h @ self.weight)


class ReturnsNothing(Solution):
    def forward(self, h, adjacency):
        indices, values, shape = adjacency
        spmm(indices, values, shape, h @ self.weight)


class NoWeight(torch.nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()

    def forward(self, h, adjacency):
        return h


WRONG_LAYERS = [
    (Starter, "What is wrong: the output is h @ W: the layer ignores the graph"),
    (SpmmFirst, "What is wrong: the output's grad_fn is MmBackward0, not SpmmBackward: the last step must be spmm"),
    (DenseSparseTensor, "What is wrong: the output's grad_fn is MmBackward0, not SpmmBackward"),
    (DetachedWeight, "What is wrong: after backward, self.weight.grad is None"),
    (DetachedInput, "What is wrong: the gradient does not flow back to h correctly"),
    (DoubledValues, "What is wrong: the output differs from Â @ h @ W computed densely: row "),
    (SwappedIndices, "What is wrong: the output is Â.T @ h @ W: rows and columns of the adjacency are swapped"),
    (OnesForValues, "What is wrong: the output is A @ h @ W with every stored value equal to 1"),
    (ReturnsNothing, "What is wrong: forward returned NoneType, not a tensor"),
    (NoWeight, "What is wrong: GraphConvolution(4, 3).weight should be a [4, 3] Parameter; got NoneType"),
]


def test_turn_2_asks_for_the_class_and_not_an_instance(capsys):
    result, out = run(nb09.your_turn_2, Solution(4, 3), capsys)
    assert not result and out.startswith("✗ Your turn 2: a graph convolution layer with spmm — not yet.\n"), out
    assert "\n  What is wrong: pass the class itself: check.your_turn_2(GraphConvolution)" in out, out
    assert "Hint: the checker makes its own layers of several sizes from the class: GraphConvolution, not " \
           "GraphConvolution(3, 4)" in out, out


# (checker, answer, what the problem line says, from its start); None: accepted. CASES, at the
# end, gathers them.
RIGHT_AND_WRONG = ([(nb09.your_turn_1, answer, None)
                    for answer in (solution_spmm_degrees, solution_index_add, solution_python_loops)]
                   + [(nb09.your_turn_2, Solution, None)]
                   + [(nb09.your_turn_1, *case) for case in WRONG_ADJACENCIES]
                   + [(nb09.your_turn_2, *case) for case in WRONG_LAYERS])


def test_turn_2_reports_an_error_raised_by_the_layer(capsys):
    class WrongOrder(Solution):
        def forward(self, h, adjacency):
            indices, values, shape = adjacency
            return spmm(indices, values, shape, self.weight @ h)     # [4, 3] @ [6, 4]: shapes do not fit

    result, out = run(nb09.your_turn_2, WrongOrder, capsys)
    assert not result
    assert "your code raised an error" in out.splitlines()[0]


def test_turn_2_leaves_the_random_generator_as_it_was(capsys):
    # Creating the learner's layer draws random weights; the notebook's later numbers must not
    # depend on whether (or how often) the check ran.
    torch.manual_seed(3)
    expected = torch.rand(5).tolist()
    torch.manual_seed(3)
    run(nb09.your_turn_2, Solution, capsys)
    run(nb09.your_turn_2, Starter, capsys)
    assert torch.rand(5).tolist() == expected


def test_turn_2_leaves_the_random_generator_as_it_was_when_the_layer_raises(capsys):
    class Broken(Solution):
        def __init__(self, in_features, out_features):
            super().__init__(in_features, out_features)
            raise ValueError("broken")

    state = factories._generator.bit_generator.state
    result, out = run(nb09.your_turn_2, Broken, capsys)
    assert not result and "ValueError: broken" in out
    assert factories._generator.bit_generator.state == state


def adjacency_for_34_members(edges, num_nodes):
    pairs = torch.tensor(edges)
    loops = torch.arange(34)
    rows = torch.cat([pairs[:, 0], pairs[:, 1], loops])
    cols = torch.cat([pairs[:, 1], pairs[:, 0], loops])
    degree = torch.zeros(34).index_add_(0, rows, torch.ones(rows.shape[0]))
    return torch.stack([rows, cols]), degree[rows].pow(-0.5) * degree[cols].pow(-0.5)


# --------------------------------------------------------------------------- more answers students write
def adjacency_as_a_list(edges, num_nodes):
    pairs = torch.tensor(edges)
    loops = torch.arange(num_nodes)
    rows = torch.cat([pairs[:, 0], pairs[:, 1], loops])
    cols = torch.cat([pairs[:, 1], pairs[:, 0], loops])
    degree = torch.zeros(num_nodes).index_add_(0, rows, torch.ones(rows.shape[0]))
    return [torch.stack([rows, cols]), degree[rows].pow(-0.5) * degree[cols].pow(-0.5)]


class CachesTheAdjacency(torch.nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(in_features, out_features))
        self.first = None

    def forward(self, h, adjacency):
        if self.first is None:
            self.first = adjacency
        indices, values, shape = self.first
        return spmm(indices, values, shape, h @ self.weight)


def test_nb09_turn2_refuses_a_layer_that_keeps_the_first_adjacency(verdict):
    result, out = verdict(nb09.your_turn_2, CachesTheAdjacency)
    assert not result and "for a second adjacency (another graph on the same members)" in out, out

# (checker, answer, what the problem line says); None: accepted.
CASES = RIGHT_AND_WRONG + [
    (nb09.your_turn_1, adjacency_for_34_members, "for a path 0-1-2-3-4 plus a member 5 with no friends"),
    # the false rejections
    (nb09.your_turn_1, adjacency_as_a_list, None),
]

test_each_answer_gets_the_right_verdict, test_the_chinese_verdict_is_the_same_and_wholly_chinese = verdict_tests(CASES)
