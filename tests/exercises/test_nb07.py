"""The checkers of notebook 07, tracing SpecialSpmmFunction (``minigrad/exercises/nb07.py``): right answers
written several ways, and the wrong answers students write, each with the verdict it must give
in English and in Chinese."""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import minigrad as torch
from minigrad.exercises import nb07

from exercise_helpers import run, verdict_tests


TITLE_2 = "Your turn 2: predict needs_input_grad"


PYTORCH_FLAGS = [(False, True, False, False), (False, False, False, True),
                 (False, True, False, True), (False, True, False, True)]


# =========================================================================== Your turn 1
def gather_rows(indices, grad_output, b):
    """The worked solution, in tensor operations."""
    rows, cols = indices[0], indices[1]
    return (grad_output[rows] * b[cols]).sum(1)


def numpy_rows(indices, grad_output, b):
    rows, cols = indices.numpy()
    return (grad_output.numpy()[rows] * b.numpy()[cols]).sum(axis=1)


def einsum_list(indices, grad_output, b):
    rows, cols = indices.numpy()
    return np.einsum("kd,kd->k", grad_output.numpy()[rows], b.numpy()[cols]).tolist()


def dense_starter(indices, grad_output, b):
    """The notebook's starter: pyGAT's lines, right values and an N x N matrix."""
    n = grad_output.shape[0]
    grad_a_dense = grad_output.matmul(b.t())
    edge_idx = indices[0] * n + indices[1]
    return grad_a_dense.view(-1)[edge_idx]


def to_dense_first(indices, grad_output, b):
    """Another way to need N x N memory: a dense 0/1 mask of the edges."""
    n = grad_output.shape[0]
    mask = np.zeros((n, n), np.float32)
    rows, cols = indices.numpy()
    mask[rows, cols] = 1.0
    return (grad_output.numpy()[rows] * b.numpy()[cols]).sum(axis=1) * mask[rows, cols]


def in_row_blocks(pieces=None, rows_per_block=None, library="minigrad"):
    """(grad_output @ b.T)[rows, cols] computed a block of rows at a time: never N x N at once, yet
    every pair of nodes worked out (N * N dot products)."""
    def grad_values(indices, grad_output, b):
        n = grad_output.shape[0]
        step = rows_per_block or max(1, n // pieces)
        rows, cols = indices.numpy()
        out = np.zeros(len(rows), np.float32)
        g, other = (grad_output, b.t()) if library == "minigrad" else (grad_output.numpy(), b.numpy().T)
        for start in range(0, n, step):
            block = g[start:start + step] @ other
            block = block.numpy() if library == "minigrad" else block
            here = (rows >= start) & (rows < start + step)
            out[here] = block[rows[here] - start, cols[here]]
        return torch.tensor(out)
    return grad_values


def under_no_grad(grad_values):
    """The same answer run under ``torch.no_grad()``: minigrad's operations take apply's no-grad
    shortcut there, which must still tell the checker's listener what they computed."""
    def wrapped(indices, grad_output, b):
        with torch.no_grad():
            return grad_values(indices, grad_output, b)
    return wrapped


def edge_by_edge(indices, grad_output, b):
    """One dot product per edge in a Python loop: slow, but exactly the work that is needed."""
    return torch.stack([(grad_output[row] * b[col]).sum() for row, col in indices.t().tolist()])


def swapped(indices, grad_output, b):
    return (grad_output[indices[1]] * b[indices[0]]).sum(1)


def merged_duplicates(indices, grad_output, b):
    rows, cols = np.unique(indices.numpy(), axis=1)
    return (grad_output.numpy()[rows] * b.numpy()[cols]).sum(axis=1)


def ignores_grad_output(indices, grad_output, b):
    return b[indices[1]].sum(1)          # right only when grad_output is all ones


def stub(indices, grad_output, b):
    ...


def raises(indices, grad_output, b):
    raise IndexError("index 7 is out of bounds")


# (checker, answer, what the problem line says, from its start); None: accepted. CASES, at the
# end, gathers them.
TURN_1 = [(nb07.your_turn_1, answer, problem and f"What is wrong: {problem}") for answer, problem in [
    (gather_rows, None), (numpy_rows, None), (einsum_list, None),      # gathered dot products
    (dense_starter, "the values are right, but at N = 4,000 (19,200 edges, d = 8) memory use peaked above "
                    "32 MB while it ran: an N x N float32 matrix is 64 MB, the gradient itself 77 KB"),
    (to_dense_first, "the values are right, but at N = 4,000"),
    (in_row_blocks(pieces=4), "the values are right, but at N = 4,000"),
    (in_row_blocks(pieces=8), "the values are right, but at N = 4,000 (19,200 edges, d = 8) your function computed "
                              "16,000,000 numbers, where one dot product per edge needs about nnz x d = 153,600"),
    (in_row_blocks(rows_per_block=100), "the values are right, but at N = 4,000 (19,200 edges, d = 8) your function computed 16,"),
    (in_row_blocks(rows_per_block=100, library="numpy"), "the values are right, but at N = 4,000 (19,200 edges, d = 8) your function computed 16,"),
    (swapped, "for the four-node graph you returned [6.0, 6.0, 15.0, 24.0, 33.0]: rows and columns are swapped"),
    (merged_duplicates, "on a random graph with 6 nodes and 10 edges (some repeated) grad_values returned "
                        "shape [8]; expected [10]"),
    (ignores_grad_output, "on a random graph with 6 nodes and 10 edges (some repeated) your values differ "
                          "from (grad_output @ b.T)[rows, cols]"),
    (stub, "grad_values returned None"),
    (lambda indices, grad_output, b: "fifteen", "grad_values returned str, not numbers"),
    (lambda indices, grad_output, b: torch.ones(5, 1), "for the four-node graph (5 edges) grad_values returned "
                                                       "shape [5, 1]; expected [5]"),
    (3, "3 is not a function"),
]]


@pytest.mark.parametrize("answer, most", [(gather_rows, 5), (numpy_rows, 4), (einsum_list, 4), (edge_by_edge, 5)])
def test_turn1_counts_a_few_numbers_per_edge_and_feature_for_every_right_answer(answer, most):
    """The work limit is 20 numbers per edge and feature; a right answer computes about 1 to 5,
    a Python loop over the edges included (the whole check of that loop takes seconds: a smaller graph)."""
    indices, grad_output, b = nb07.random_graph(300, 1200, 8, which=5)
    with nb07._counting_work(grad_output, b) as computed:
        answer(indices, grad_output, b)
    assert 0 < computed[0] <= most * indices.shape[1] * 8 < nb07.WORK_PER_EDGE_FEATURE * indices.shape[1] * 8


def test_turn1_reports_an_error_and_leaves_tracemalloc_as_it_was(capsys):
    result, out = run(nb07.your_turn_1, raises, capsys)
    assert not result
    assert "your code raised an error" in out and "IndexError: index 7 is out of bounds" in out
    assert not tracemalloc.is_tracing()
    run(nb07.your_turn_1, gather_rows, capsys)
    assert not tracemalloc.is_tracing()


def test_turn1_works_while_the_learner_is_tracing_memory(capsys):
    tracemalloc.start()
    try:
        result, _ = run(nb07.your_turn_1, gather_rows, capsys)
        assert result and tracemalloc.is_tracing()
        result, out = run(nb07.your_turn_1, dense_starter, capsys)
        assert not result and "memory use peaked above 32 MB" in out
    finally:
        tracemalloc.stop()


def test_random_graphs_have_repeated_edges_and_the_reference_is_pygats_formula():
    indices, grad_output, b = nb07.random_graph(6, 9, 3, which=1)
    pairs = indices.numpy().T.tolist()
    assert len(pairs) == 10 and len({tuple(p) for p in pairs}) < len(pairs)
    full = grad_output.numpy().astype(np.float64) @ b.numpy().astype(np.float64).T
    n = full.shape[0]
    edge_idx = indices.numpy()[0] * n + indices.numpy()[1]
    assert np.allclose(nb07.dense_reference(indices, grad_output, b), full.reshape(-1)[edge_idx])


def test_four_node_answer_is_pytorchs():
    indices = torch.tensor(nb07.FOUR_NODE_INDICES)
    got = nb07.dense_reference(indices, torch.ones(4, 3), torch.tensor(nb07.FOUR_NODE_B))
    assert got.tolist() == nb07.FOUR_NODE_GRAD_VALUES == [15.0, 24.0, 24.0, 33.0, 6.0]


# =========================================================================== Your turn 2
def test_turn2_truth_is_what_pytorch_shows():
    assert nb07.observed_needs_input_grad() == PYTORCH_FLAGS


AS_INTS = [tuple(int(flag) for flag in p) for p in PYTORCH_FLAGS]


# The right predictions as tuples, lists or numpy bools, a tuple of them, and ones and zeros.
TURN_2_RIGHT = [(nb07.your_turn_2, predictions, None) for predictions in (
    PYTORCH_FLAGS, [list(p) for p in PYTORCH_FLAGS], [tuple(np.array(p)) for p in PYTORCH_FLAGS],
    tuple(PYTORCH_FLAGS), AS_INTS, [list(p) for p in AS_INTS])]


def flip(call: int, position: int) -> list:
    """The right predictions with one flag wrong."""
    wrong = [list(p) for p in PYTORCH_FLAGS]
    wrong[call - 1][position] = not wrong[call - 1][position]
    return [tuple(p) for p in wrong]


@pytest.mark.parametrize("answer, problem, hint", [
    ([..., ..., ..., ...], "call 1: still ... (the starter's placeholder)", "a tuple of four booleans"),
    (flip(1, 0), "call 1: you predicted True for indices (needs_input_grad[0])", "integer tensor"),
    (flip(1, 3), "call 1: you predicted True for b (needs_input_grad[3])", "features is plain input data"),
    (flip(2, 1), "call 2: you predicted True for values (needs_input_grad[1])", "values.detach()"),
    (flip(2, 2), "call 2: you predicted True for shape (needs_input_grad[2])", "not a tensor"),
    (flip(3, 1), "call 3: you predicted False for values (needs_input_grad[1])", "values * 2 is not a leaf"),
    (flip(3, 3), "call 3: you predicted False for b (needs_input_grad[3])", "because weight does"),
    (flip(4, 1), "call 4: you predicted False for values (needs_input_grad[1])", "no_grad only stops"),
    (flip(4, 3), "call 4: you predicted False for b (needs_input_grad[3])", "no_grad only stops"),
    (PYTORCH_FLAGS[:3], "predictions should be a list of 4 tuples, one per call", "one tuple for each"),
    ([(0, 1, 0, 0)] * 4, "call 2: you predicted True for values (needs_input_grad[1])", "values.detach()"),
    ([(0, 2, 0, 0)] * 4, "call 1: (0, 2, 0, 0) is not four True/False values", "one True/False per argument"),
    ([(False, True, False)] * 4, "call 1: (False, True, False) is not four True/False values", "(indices, values"),
])
def test_turn2_says_which_call_and_argument_is_wrong(answer, problem, hint, capsys):
    result, out = run(nb07.your_turn_2, answer, capsys)
    assert not result
    assert out.startswith(f"✗ {TITLE_2} — not yet.\n"), out
    assert f"What is wrong: {problem}" in out, out
    assert hint in out.split("Hint: ", 1)[1], out


def merges_repeated_edges(indices, grad_output, b):
    rows, cols = zip(*sorted(set(zip(*indices.tolist()))))
    return (grad_output[torch.tensor(list(rows))] * b[torch.tensor(list(cols))]).sum(1)


# --------------------------------------------------------------------------- Your turn 1: more answers students write
def numpy_row_blocks(copy):
    """(grad_output @ b.T) a block of rows at a time, in numpy, on a copy of the numbers."""
    def grad_values(indices, grad_output, b):
        g, other = copy(grad_output), copy(b).T
        rows, cols = indices.numpy()
        out = np.empty(rows.size)
        for start in range(0, g.shape[0], 256):
            block = g[start:start + 256] @ other
            here = (rows >= start) & (rows < start + 256)
            out[here] = block[rows[here] - start, cols[here]]
        return out
    return grad_values


def gathered_in_float64(indices, grad_output, b):
    rows, cols = indices.numpy()
    g, other = np.asarray(grad_output.numpy(), dtype=np.float64), np.asarray(b.numpy(), dtype=np.float64)
    return (g[rows] * other[cols]).sum(1)


PREDICTIONS = [(False, True, False, False), (False, False, False, True), (False, True, False, True),
               (False, True, False, True)]


def test_nb07_counting_work_leaves_numpy_as_it_was_and_counts_copies():
    array, asarray = np.array, np.asarray
    g = torch.ones(10, 2)
    with nb07._counting_work(g, g) as computed:
        copy = np.array(g.numpy())
        copy @ copy.T
    assert computed[0] >= 100
    assert np.array is array and np.asarray is asarray and type(g._data) is np.ndarray

# (checker, answer, what the problem line says); None: accepted.
CASES = TURN_1 + TURN_2_RIGHT + [
    (nb07.your_turn_1, in_row_blocks(pieces=8), "your function computed 16,000,000 numbers"),
    (nb07.your_turn_1, under_no_grad(in_row_blocks(rows_per_block=64)), "your function computed 16,000,000 numbers"),
    (nb07.your_turn_1, merges_repeated_edges, "on a random graph with 6 nodes and 10 edges (some repeated)"),
    # the false acceptances, in the order of the report
    (nb07.your_turn_1, numpy_row_blocks(lambda t: t.double().numpy()), "your function computed 16,0"),
    (nb07.your_turn_1, numpy_row_blocks(lambda t: np.array(t.numpy())), "your function computed 16,000,000 numbers"),
    (nb07.your_turn_1, numpy_row_blocks(lambda t: t.numpy().astype(np.float64)), "your function computed 16,000,000 numbers"),
    (nb07.your_turn_1, numpy_row_blocks(lambda t: np.asarray(t.numpy(), dtype=np.float64) + 0.0),
     "your function computed 16,"),
    (nb07.your_turn_1, gathered_in_float64, None),
    (nb07.your_turn_2, [np.array(p) for p in PREDICTIONS], None),
    (nb07.your_turn_2, [torch.tensor(p) for p in PREDICTIONS], None),
    (nb07.your_turn_2, np.array(PREDICTIONS), None),
]

test_each_answer_gets_the_right_verdict, test_the_chinese_verdict_is_the_same_and_wholly_chinese = verdict_tests(CASES)
