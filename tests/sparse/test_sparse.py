"""Sparse COO tensors and spmm: PyTorch's semantics, pyGAT's SpecialSpmmFunction, and the O(nnz * d) backward.

The expected numbers and error texts were observed on PyTorch 2.13 (pytorch-semantics.md section 6);
dense references are computed here with numpy, independently of minigrad.
"""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad as torch
from minigrad.sparse import Spmm, kernels, spmm
from minigrad.sparse.coo import SparseTensor
import warnings


# pyGAT's SpecialSpmmFunction (Diego999/pyGAT, layers.py), unchanged but for `import minigrad as torch`.
class SpecialSpmmFunction(torch.autograd.Function):
    """Special function for only sparse region backpropataion layer."""
    @staticmethod
    def forward(ctx, indices, values, shape, b):
        assert indices.requires_grad == False  # noqa: E712
        a = torch.sparse_coo_tensor(indices, values, shape)
        ctx.save_for_backward(a, b)
        ctx.N = shape[0]
        return torch.matmul(a, b)

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        grad_values = grad_b = None
        if ctx.needs_input_grad[1]:
            grad_a_dense = grad_output.matmul(b.t())
            edge_idx = a._indices()[0, :] * ctx.N + a._indices()[1, :]
            grad_values = grad_a_dense.view(-1)[edge_idx]
        if ctx.needs_input_grad[3]:
            grad_b = a.t().matmul(grad_output)
        return None, grad_values, None, grad_b


# The example of pytorch-semantics.md section 6, with PyTorch's results.
INDICES = [[0, 0, 1, 2, 3], [1, 2, 2, 3, 0]]
VALUES = [1.0, 2.0, 3.0, 4.0, 5.0]
B = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]
OUT = [[18, 21, 24], [21, 24, 27], [40, 44, 48], [5, 10, 15]]
VALUES_GRAD = [15, 24, 24, 33, 6]
B_GRAD = [[5, 5, 5], [1, 1, 1], [5, 5, 5], [4, 4, 4]]

# Repeated and unsorted coordinates: (2, 1) three times, (0, 3) twice, rows out of order.
DUP_INDICES = [[2, 0, 2, 1, 0, 2, 3], [1, 3, 1, 0, 3, 1, 2]]
DUP_VALUES = [1.0, -2.0, 0.5, 3.0, 4.0, -1.5, 2.0]


def example(indices=INDICES, values=VALUES, b=B, dtype=torch.float32):
    # Through numpy arrays of the target dtype, so that float64 values are not rounded on the way.
    return (torch.tensor(indices), torch.tensor(np.asarray(values, dtype=dtype.numpy), requires_grad=True),
            torch.tensor(np.asarray(b, dtype=dtype.numpy), requires_grad=True))


def dense_reference(indices, values, shape, b, upstream):
    """out = A @ b, and the gradients of sum(out * upstream), from a dense A built with numpy."""
    rows, cols = np.asarray(indices, dtype=np.int64).reshape(2, -1)
    values, b = np.asarray(values, dtype=np.float64), np.asarray(b, dtype=np.float64)
    a = np.zeros(shape)
    np.add.at(a, (rows, cols), values)
    grad_a = upstream @ b.T
    return a @ b, grad_a[rows, cols], a.T @ upstream


def run(function, indices, values, shape, b, upstream):
    out = function(indices, values, shape, b)
    (out * torch.tensor(upstream, dtype=out.dtype)).sum().backward()
    return out


SPMM_VARIANTS = {"SpecialSpmmFunction": SpecialSpmmFunction.apply, "spmm": spmm}


# --------------------------------------------------------------------------- SpecialSpmmFunction and spmm on known numbers
@pytest.mark.parametrize("name", SPMM_VARIANTS)
def test_worked_example_matches_pytorch(name):
    indices, values, b = example()
    out = SPMM_VARIANTS[name](indices, values, torch.Size([4, 4]), b)
    assert out.tolist() == OUT
    assert out.grad_fn.needs_input_grad == (False, True, False, True)
    out.sum().backward()
    assert values.grad.tolist() == VALUES_GRAD
    assert b.grad.tolist() == B_GRAD


def test_spmm_node_reads_like_a_custom_function():
    indices, values, b = example()
    out = spmm(indices, values, (4, 4), b)
    node = out.grad_fn
    assert type(node).__name__ == "SpmmBackward" and node.name() == "SpmmBackward"
    assert type(node)._forward_cls is Spmm
    (indices_edge, values_edge, b_edge) = node.next_functions
    assert indices_edge == (None, 0)
    assert values_edge[0].variable is values and b_edge[0].variable is b
    assert node.shape == (4, 4)


@pytest.mark.parametrize("name", SPMM_VARIANTS)
def test_duplicate_unsorted_edges_match_a_dense_computation(name):
    rng = np.random.default_rng(1)
    b_array = rng.standard_normal((4, 3))
    upstream = rng.standard_normal((4, 3))
    indices, values, b = example(DUP_INDICES, DUP_VALUES, b_array, dtype=torch.float64)
    out = run(SPMM_VARIANTS[name], indices, values, (4, 4), b, upstream)
    expected_out, expected_values_grad, expected_b_grad = dense_reference(DUP_INDICES, DUP_VALUES, (4, 4),
                                                                          b_array, upstream)
    np.testing.assert_allclose(out.detach().numpy(), expected_out, rtol=1e-12)
    np.testing.assert_allclose(values.grad.numpy(), expected_values_grad, rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), expected_b_grad, rtol=1e-12)
    # every repeat of a coordinate receives the full gradient of that coordinate
    grads = values.grad.numpy()
    assert grads[0] == grads[2] == grads[5] and grads[1] == grads[4]


def test_rectangular_matrix():
    rng = np.random.default_rng(2)
    indices_list = [[0, 2, 1, 2], [4, 0, 4, 3]]
    values_list = [1.0, 2.0, -1.0, 0.5]
    b_array, upstream = rng.standard_normal((5, 2)), rng.standard_normal((3, 2))
    indices, values, b = example(indices_list, values_list, b_array, dtype=torch.float64)
    out = run(spmm, indices, values, (3, 5), b, upstream)
    expected = dense_reference(indices_list, values_list, (3, 5), b_array, upstream)
    for got, want in zip((out.detach(), values.grad, b.grad), expected):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


@st.composite
def graphs(draw, square: bool = False):
    n_rows = draw(st.integers(1, 6))
    n_cols = n_rows if square else draw(st.integers(1, 6))
    nnz, d = draw(st.integers(0, 15)), draw(st.integers(1, 4))
    rows = draw(st.lists(st.integers(0, n_rows - 1), min_size=nnz, max_size=nnz))
    cols = draw(st.lists(st.integers(0, n_cols - 1), min_size=nnz, max_size=nnz))
    seed = draw(st.integers(0, 2**32 - 1))
    return n_rows, n_cols, [rows, cols], d, seed


def check_against_dense(function, graph):
    n_rows, n_cols, indices_list, d, seed = graph
    rng = np.random.default_rng(seed)
    values_list = rng.standard_normal(len(indices_list[0])).tolist()
    b_array, upstream = rng.standard_normal((n_cols, d)), rng.standard_normal((n_rows, d))
    expected = dense_reference(indices_list, values_list, (n_rows, n_cols), b_array, upstream)
    _, values, b = example(indices_list, values_list, b_array, dtype=torch.float64)
    indices = torch.tensor(indices_list, dtype=torch.int64).view(2, -1)
    out = run(function, indices, values, (n_rows, n_cols), b, upstream)
    for got, want in zip((out.detach(), values.grad, b.grad), expected):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-12)


@given(graphs())
@settings(max_examples=40, deadline=None)
def test_spmm_matches_dense_on_random_graphs(graph):
    check_against_dense(spmm, graph)


@given(graphs(square=True))
@settings(max_examples=25, deadline=None)
def test_spmm_and_seed_agree_on_random_square_graphs(graph):
    # SpecialSpmmFunction flattens (row, col) as row * N + col with N = shape[0]: square matrices only.
    check_against_dense(spmm, graph)
    check_against_dense(SpecialSpmmFunction.apply, graph)


def test_chunked_loops_give_the_same_result(monkeypatch):
    """Chunks of 3 edges: every chunk boundary splits some row's edges."""
    rng = np.random.default_rng(3)
    n, nnz, d = 7, 40, 5
    indices_list = rng.integers(0, n, (2, nnz)).tolist()
    values_list = rng.standard_normal(nnz).tolist()
    b_array, upstream = rng.standard_normal((n, d)), rng.standard_normal((n, d))
    monkeypatch.setattr(kernels, "CHUNK", 3)
    indices, values, b = example(indices_list, values_list, b_array, dtype=torch.float64)
    out = run(spmm, indices, values, (n, n), b, upstream)
    expected = dense_reference(indices_list, values_list, (n, n), b_array, upstream)
    for got, want in zip((out.detach(), values.grad, b.grad), expected):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-10)


def test_float32_in_float32_out():
    indices, values, b = example()
    out = spmm(indices, values, (4, 4), b)
    out.sum().backward()
    assert out.dtype is torch.float32 and values.grad.dtype is torch.float32 and b.grad.dtype is torch.float32


def test_no_edges():
    values = torch.zeros(0, requires_grad=True)
    b = torch.ones(3, 2, requires_grad=True)
    out = spmm(torch.zeros(2, 0, dtype=torch.int64), values, (2, 3), b)
    assert out.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    out.sum().backward()
    assert values.grad.shape == (0,) and b.grad.tolist() == [[0.0, 0.0]] * 3


# --------------------------------------------------------------------------- needs_input_grad, memory, gradcheck
class CallCounter:
    def __init__(self, function):
        self.function, self.calls = function, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.function(*args, **kwargs)


def test_grad_values_branch_skipped_when_values_do_not_require_grad(monkeypatch):
    sampled_dot = CallCounter(kernels.sampled_dot)
    monkeypatch.setattr(kernels, "sampled_dot", sampled_dot)
    indices, values, b = example()
    values.requires_grad_(False)
    out = spmm(indices, values, (4, 4), b)
    assert out.grad_fn.needs_input_grad == (False, False, False, True)
    out.sum().backward()
    assert b.grad.tolist() == B_GRAD
    assert values.grad is None
    assert sampled_dot.calls == 0


def test_grad_b_branch_skipped_when_b_does_not_require_grad(monkeypatch):
    scatter_add = CallCounter(kernels.scatter_add)
    monkeypatch.setattr(kernels, "scatter_add", scatter_add)
    indices, values, b = example()
    b.requires_grad_(False)
    out = spmm(indices, values, (4, 4), b)
    assert scatter_add.calls == 1          # the forward product
    out.sum().backward()
    assert scatter_add.calls == 1          # backward did not compute grad_b
    assert values.grad.tolist() == VALUES_GRAD and b.grad is None


def test_spmm_saves_only_what_backward_needs():
    indices, values, b = example()
    b.requires_grad_(False)
    node = spmm(indices, values, (4, 4), b).grad_fn
    saved_indices, saved_values, saved_b = node.saved_tensors
    assert saved_indices is indices and saved_values is None and saved_b is b


def test_spmm_backward_never_builds_an_n_by_n_matrix():
    n, nnz, d = 20_000, 20_000, 4          # an n x n float32 matrix would be 1.6 GB
    rng = np.random.default_rng(4)
    indices = torch.from_numpy(rng.integers(0, n, (2, nnz)))
    values = torch.from_numpy(rng.standard_normal(nnz).astype(np.float32)).requires_grad_()
    b = torch.from_numpy(rng.standard_normal((n, d)).astype(np.float32)).requires_grad_()
    tracemalloc.start()
    try:
        spmm(indices, values, (n, n), b).sum().backward()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20, f"spmm forward + backward allocated {peak / 2**20:.0f} MiB"
    assert values.grad.shape == (nnz,)


def test_gradcheck_spmm_float64():
    rng = np.random.default_rng(5)
    indices = torch.tensor(DUP_INDICES)
    values = torch.tensor(DUP_VALUES, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    assert torch.autograd.gradcheck(lambda v, m: spmm(indices, v, (4, 4), m), (values, b))


def test_gradcheck_sparse_coo_tensor_matmul_float64():
    rng = np.random.default_rng(6)
    indices = torch.tensor(DUP_INDICES)
    values = torch.tensor(DUP_VALUES, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    assert torch.autograd.gradcheck(lambda v, m: torch.sparse_coo_tensor(indices, v, (4, 4)) @ m, (values, b))


def test_differentiating_spmm_backward_twice_raises():
    indices, values, b = example(dtype=torch.float64)
    out = spmm(indices, values, (4, 4), b)
    grad_values, = torch.autograd.grad((out * out).sum(), values, create_graph=True)
    with pytest.raises(RuntimeError, match="^trying to differentiate twice a function that was marked with "
                                           "@once_differentiable$"):
        grad_values.sum().backward()


def test_spmm_backward_twice_needs_retain_graph():
    indices, values, b = example()
    out = spmm(indices, values, (4, 4), b).sum()
    out.backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        out.backward()


# --------------------------------------------------------------------------- errors
def test_nnz_mismatch():
    with pytest.raises(RuntimeError) as info:
        torch.sparse_coo_tensor(torch.tensor(INDICES), torch.ones(3), (4, 4))
    assert str(info.value) == "indices and values must have same nnz, but got nnz from indices: 5, nnz from values: 3"
    with pytest.raises(RuntimeError, match="^indices and values must have same nnz, but got nnz from indices: 5, "
                                           "nnz from values: 3$"):
        spmm(torch.tensor(INDICES), torch.ones(3), (4, 4), torch.ones(4, 2))


@pytest.mark.parametrize("indices, message", [
    ([[0, 5], [1, 1]], "size is inconsistent with indices: for dim 0, size is 4 but found index 5"),
    ([[0, 1], [1, 4]], "size is inconsistent with indices: for dim 1, size is 4 but found index 4"),
    ([[9, 5], [0, 0]], "size is inconsistent with indices: for dim 0, size is 4 but found index 9"),
    ([[0, -1], [1, 1]], "found negative index -1 for dim 0"),
    ([[-1, -3], [0, 0]], "found negative index -3 for dim 0"),
    ([[7, -1], [0, 0]], "found negative index -1 for dim 0"),
    ([[0, 7], [-9, 1]], "size is inconsistent with indices: for dim 0, size is 4 but found index 7"),
])
def test_out_of_range_indices(indices, message):
    with pytest.raises(RuntimeError) as info:
        torch.sparse_coo_tensor(torch.tensor(indices), torch.ones(2), (4, 4))
    assert str(info.value) == message
    with pytest.raises(RuntimeError) as info:
        spmm(torch.tensor(indices), torch.ones(2), (4, 4), torch.ones(4, 1))
    assert str(info.value) == message


@pytest.mark.parametrize("indices, values, size, message", [
    (torch.tensor([0, 1]), torch.ones(2), (4, 4), "indices must be sparse_dim x nnz, but got: [2]"),
    (torch.zeros(2, 1, 1, dtype=torch.int64), torch.ones(1), (4, 4),
     "indices must be sparse_dim x nnz, but got: [2, 1, 1]"),
    (torch.tensor([[0, 1], [1, 1], [0, 0]]), torch.ones(2), (4, 4),
     "'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = 2, sparse_dim = 3, dense_dim = 0"),
    ([[0, 1], [1, 3]], torch.ones(2), (2, 4, 5),
     "'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = 3, sparse_dim = 2, dense_dim = 0"),
    ([[0, 1], [1, 1]], torch.ones(2, 3), (2, 4),
     "'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = 2, sparse_dim = 2, dense_dim = 1"),
    ([[0, -1], [1, 1]], torch.ones(2), None, "found negative index -1 for dim 0"),
    (torch.zeros(2, 4, dtype=torch.int64), torch.zeros(2), None,
     "indices and values must have same nnz, but got nnz from indices: 4, nnz from values: 2"),
])
def test_malformed_arguments(indices, values, size, message):
    with pytest.raises(RuntimeError) as info:
        torch.sparse_coo_tensor(indices, values, size)
    assert str(info.value) == message


def test_index_dtypes():
    # Integer and bool indices are cast to int64, as in PyTorch; whole-number floats too.
    for indices in (torch.tensor([[0, 1], [1, 1]], dtype=torch.int32), torch.tensor([[0.0, 1.0], [1.0, 1.0]])):
        a = torch.sparse_coo_tensor(indices, torch.ones(2), (4, 4))
        assert a._indices().dtype is torch.int64 and a._indices().tolist() == [[0, 1], [1, 1]]
    # PyTorch would truncate 0.5 to 0 silently; minigrad refuses.
    for bad, shown in ((0.5, r"0\.5"), (float("nan"), "nan")):
        with pytest.raises(RuntimeError, match=rf"^indices must be whole numbers, but got {shown}; use an int64 "
                                               r"tensor \(PyTorch would silently cast it to int64, turning 0\.5 "
                                               r"into 0\)$"):
            torch.sparse_coo_tensor(torch.tensor([[bad, 1.0], [1.0, 1.0]]), torch.ones(2), (4, 4))
    with pytest.raises(TypeError, match="^indices must be an integer tensor, but got an array of dtype <U1$"):
        torch.sparse_coo_tensor([["a"], ["b"]], torch.ones(1), (4, 4))


@pytest.mark.parametrize("other, message", [
    (torch.ones(3, 2), "addmm: Argument #3 (dense): Expected dim 0 size 4, got 3"),
    (torch.ones(4, 2, dtype=torch.float64), "expected scalar type Float but found Double"),
    (torch.ones(4, 2, dtype=torch.int64), "expected scalar type Float but found Long"),
    (torch.ones(3), "mv: expected self.size(-1) == vec.size(-1)"),
    (torch.tensor(1.0), "both arguments to matmul need to be at least 1D, but they are 2D and 0D"),
    (torch.ones(2, 4, 2), "expand is unsupported for Sparse tensors"),
])
def test_matmul_errors(other, message):
    a = torch.sparse_coo_tensor(torch.tensor(INDICES), torch.arange(5.0), (4, 4))
    for product in (lambda: a @ other, lambda: torch.matmul(a, other)):
        with pytest.raises(RuntimeError) as info:
            product()
        assert str(info.value) == message


def test_spmm_errors():
    indices = torch.tensor(INDICES)
    with pytest.raises(RuntimeError, match=r"^spmm: a sparse matrix of shape \(4, 4\) needs b with 4 rows, "
                                           r"but b has shape \(3, 2\)$"):
        spmm(indices, torch.ones(5), (4, 4), torch.ones(3, 2))
    with pytest.raises(RuntimeError, match="^expected scalar type Float but found Double$"):
        spmm(indices, torch.ones(5), (4, 4), torch.ones(4, 2, dtype=torch.float64))
    with pytest.raises(TypeError, match="^spmm: b must be a 2-D tensor, got 1-D$"):
        spmm(indices, torch.ones(5), (4, 4), torch.ones(4))
    with pytest.raises(RuntimeError, match=r"^spmm: shape must be \(n_rows, n_cols\), got \(4,\)$"):
        spmm(indices, torch.ones(5), (4,), torch.ones(4, 2))


def test_dense_operations_on_a_sparse_tensor_say_what_to_do():
    a = torch.sparse_coo_tensor(torch.tensor(INDICES), torch.arange(5.0), (4, 4))
    for operation, name in ((lambda: a[0], r"indexing \(s\[\.\.\.\]\)"), (lambda: a.exp(), r"exp\(\)"),
                            (lambda: a.view(16), r"view\(\)"), (lambda: torch.cat([a, a]), r"cat\(\)"),
                            (lambda: a > 0, r"comparison \(s > \.\.\.\)")):
        with pytest.raises(NotImplementedError, match=rf"^minigrad: {name} is not implemented for sparse COO tensors; "
                                                      r"call \.to_dense\(\) first"):
            operation()
    with pytest.raises(TypeError, match=r"^can't convert Sparse layout tensor to numpy\. Use Tensor\.to_dense\(\) "
                                        r"first\.$"):
        a.numpy()


def test_dense_plus_sparse_is_dense_and_sparse_plus_dense_is_refused_as_in_pytorch():
    a = torch.sparse_coo_tensor(torch.tensor([[0, 1], [1, 0]]), torch.tensor([1., 2.]), (2, 2))
    d = torch.ones(2, 2, requires_grad=True)
    total = d + a
    assert total.layout == torch.strided and total.tolist() == [[1.0, 2.0], [3.0, 1.0]]
    assert total.grad_fn.name() == "AddBackward0"
    total.sum().backward()
    assert d.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert (torch.ones(2, 2, dtype=torch.int64) + a).dtype == torch.float32   # PyTorch 2.13's promotion
    for operation in (lambda: a + d, lambda: a + 1, lambda: 1 + a):
        with pytest.raises(RuntimeError, match=r"^add\(sparse, dense\) is not supported\. Use add\(dense, sparse\) "
                                               r"instead\.$"):
            operation()
    with pytest.raises(RuntimeError, match=r"^add: expected 'self' and 'other' to have same size, but self has size "
                                           r"\[2\] while other has size \[2, 2\] \(FYI: dense-sparse addition does not "
                                           r"currently support broadcasting\)$"):
        torch.ones(2) + a


# --------------------------------------------------------------------------- COO semantics
def test_indices_are_kept_as_given():
    indices = torch.tensor(DUP_INDICES)
    a = torch.sparse_coo_tensor(indices, torch.tensor(DUP_VALUES), (4, 4))
    assert a._indices().tolist() == DUP_INDICES
    assert a._values().tolist() == DUP_VALUES
    assert a._nnz() == 7 and not a.is_coalesced()
    assert a.is_sparse and a.layout is torch.sparse_coo and a.shape == torch.Size([4, 4])
    assert a.dtype is torch.float32 and a.dim() == 2 and a.numel() == 16
    assert np.shares_memory(a._indices().numpy(), indices.numpy())   # no copy, as in PyTorch


def test_to_dense_sums_repeats():
    a = torch.sparse_coo_tensor(torch.tensor(DUP_INDICES), torch.tensor(DUP_VALUES), (4, 4))
    expected = np.zeros((4, 4), dtype=np.float32)
    np.add.at(expected, tuple(np.array(DUP_INDICES)), np.array(DUP_VALUES, dtype=np.float32))
    assert a.to_dense().tolist() == expected.tolist()


def test_coalesce_sorts_and_sums():
    a = torch.sparse_coo_tensor(torch.tensor(DUP_INDICES), torch.tensor(DUP_VALUES), (4, 4))
    c = a.coalesce()
    assert c._indices().tolist() == [[0, 1, 2, 3], [3, 0, 1, 2]]
    assert c._values().tolist() == [2.0, 3.0, 0.0, 2.0]
    assert c.is_coalesced() and c._nnz() == 4
    assert c.coalesce() is c
    assert c.indices().tolist() == c._indices().tolist() and c.values().tolist() == c._values().tolist()
    assert c.to_dense().tolist() == a.to_dense().tolist()
    assert a._nnz() == 7   # the original is unchanged


def test_indices_and_values_need_a_coalesced_tensor():
    a = torch.sparse_coo_tensor(torch.tensor(INDICES), torch.tensor(VALUES), (4, 4))
    with pytest.raises(RuntimeError, match=r"^Cannot get indices on an uncoalesced tensor, please call "
                                           r"\.coalesce\(\) first$"):
        a.indices()
    with pytest.raises(RuntimeError, match=r"^Cannot get values on an uncoalesced tensor, please call "
                                           r"\.coalesce\(\) first$"):
        a.values()


def test_transpose_swaps_the_index_rows_and_keeps_repeats():
    a = torch.sparse_coo_tensor(torch.tensor(DUP_INDICES), torch.tensor(DUP_VALUES), (4, 5))
    t = a.t()
    assert t._indices().tolist() == [DUP_INDICES[1], DUP_INDICES[0]]
    assert t._values().tolist() == DUP_VALUES and t._nnz() == 7
    assert t.shape == torch.Size([5, 4])
    assert t.to_dense().tolist() == a.to_dense().t().tolist()
    assert not a.coalesce().t().is_coalesced()


def test_matmul_sums_repeats():
    rng = np.random.default_rng(7)
    b_array = rng.standard_normal((4, 3))
    a = torch.sparse_coo_tensor(torch.tensor(DUP_INDICES), torch.tensor(DUP_VALUES, dtype=torch.float64), (4, 4))
    b = torch.tensor(b_array)
    expected = a.to_dense().numpy() @ b_array
    for out in (a @ b, torch.matmul(a, b), a.mm(b), torch.sparse.mm(a, b)):
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose((a @ b[:, 0]).numpy(), expected[:, 0], rtol=1e-12)
    np.testing.assert_allclose((b.t() @ a).numpy(), b_array.T @ a.to_dense().numpy(), rtol=1e-12)


def test_repr_like_pytorch():
    values = torch.tensor(VALUES, requires_grad=True)
    a = torch.sparse_coo_tensor(torch.tensor(INDICES), values, (4, 4))
    assert repr(a) == ("tensor(indices=tensor([[0, 0, 1, 2, 3],\n"
                       "                       [1, 2, 2, 3, 0]]),\n"
                       "       values=tensor([1., 2., 3., 4., 5.]),\n"
                       "       size=(4, 4), nnz=5, layout=torch.sparse_coo,\n"
                       "       grad_fn=<SparseCooTensorWithDimsAndTensorsBackward0>)")
    b = torch.sparse_coo_tensor([[1, 0, 1], [0, 2, 0]], torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64), (2, 3))
    assert repr(b) == ("tensor(indices=tensor([[1, 0, 1],\n"
                       "                       [0, 2, 0]]),\n"
                       "       values=tensor([1., 2., 3.]),\n"
                       "       size=(2, 3), nnz=3, dtype=torch.float64, layout=torch.sparse_coo)")
    assert repr(a.t()).endswith("size=(4, 4), nnz=5, layout=torch.sparse_coo, grad_fn=<TBackward0>)")
    empty = torch.sparse_coo_tensor(torch.zeros(2, 0, dtype=torch.int64), torch.zeros(0), (3, 3))
    assert repr(empty) == ("tensor(indices=tensor([], size=(2, 0)),\n"
                           "       values=tensor([], size=(0,)),\n"
                           "       size=(3, 3), nnz=0, layout=torch.sparse_coo)")
    leaf = torch.sparse_coo_tensor([[0], [1]], [1.0], (2, 2), requires_grad=True)
    assert repr(leaf).endswith("size=(2, 2), nnz=1, layout=torch.sparse_coo, requires_grad=True)")


def test_size_is_inferred_from_the_indices():
    a = torch.sparse_coo_tensor([[0, 1], [1, 3]], [1.0, 2.0])
    assert a.shape == torch.Size([2, 4])


# --------------------------------------------------------------------------- autograd through sparse tensors
def test_sparse_tensor_from_values_that_require_grad():
    values = torch.tensor(VALUES, requires_grad=True)
    a = torch.sparse_coo_tensor(torch.tensor(INDICES), values, (4, 4))
    assert a.requires_grad and not a.is_leaf
    assert a.grad_fn.name() == "SparseCooTensorWithDimsAndTensorsBackward0"
    (edge,) = a.grad_fn.next_functions         # the indices get no edge
    assert edge[0].variable is values
    assert a._values().grad_fn is None and not a._values().requires_grad
    out = a @ torch.tensor(B)
    assert out.grad_fn.name() == "MmBackward0" and out.grad_fn.next_functions[0] == (a.grad_fn, 0)
    with torch.no_grad():
        assert torch.sparse_coo_tensor(torch.tensor(INDICES), values, (4, 4)).grad_fn is None


def test_requires_grad_keyword_makes_a_leaf():
    a = torch.sparse_coo_tensor([[0, 1], [1, 1]], [1.0, 2.0], (4, 4), requires_grad=True)
    assert a.is_leaf and a.requires_grad and a.grad_fn is None
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can require "
                                           "gradients$"):
        torch.sparse_coo_tensor([[0, 1], [1, 1]], [1, 2], (4, 4), requires_grad=True)


def test_gradients_through_t_to_dense_and_coalesce():
    """Observed on PyTorch 2.13 with the same inputs."""
    indices = torch.tensor([[2, 0, 2, 1], [1, 1, 1, 0]])
    values = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    b = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    cases = [
        (lambda a: (a.to_dense() * torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum(), [6.0, 2.0, 6.0, 3.0]),
        (lambda a: (a.t().to_dense() * torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum(), [6.0, 4.0, 6.0, 2.0]),
        (lambda a: (a.coalesce() @ b).sum(), [7.0, 7.0, 7.0, 3.0]),
        (lambda a: (a.t() @ torch.ones(3, 2)).sum(), [2.0, 2.0, 2.0, 2.0]),
        (lambda a: ((a @ b) * torch.tensor([[1.0, 0.0], [0.0, 2.0], [3.0, 1.0]])).sum(), [13.0, 3.0, 13.0, 4.0]),
    ]
    for loss, expected in cases:
        values.grad = None
        loss(torch.sparse_coo_tensor(indices, values, (3, 2))).backward()
        assert values.grad.tolist() == expected


def test_gradient_of_a_sparse_leaf_is_dense_like_pytorch():
    a = torch.sparse_coo_tensor([[2, 0, 2, 1], [1, 1, 1, 0]], [1.0, 2.0, 3.0, 4.0], (3, 2)).requires_grad_()
    (a @ torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    assert not a.grad.is_sparse and a.grad.tolist() == [[3.0, 7.0]] * 3


def test_save_for_backward_accepts_a_sparse_tensor():
    class SaveSparse(torch.autograd.Function):
        @staticmethod
        def forward(ctx, values):
            a = torch.sparse_coo_tensor(torch.tensor(INDICES), values, (4, 4))
            ctx.save_for_backward(a)
            ctx.a = a
            return a.to_dense()

        @staticmethod
        def backward(ctx, grad):
            a, = ctx.saved_tensors
            assert a is ctx.a and isinstance(a, SparseTensor)
            rows, cols = a._indices()
            return grad[rows, cols]

    values = torch.tensor(VALUES, requires_grad=True)
    out = SaveSparse.apply(values)
    (out * torch.arange(16.0).view(4, 4)).sum().backward()
    assert values.grad.tolist() == [1.0, 2.0, 6.0, 11.0, 12.0]
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        out.grad_fn.saved_tensors


def test_a_sparse_gradient_is_added_into_a_dense_grad():
    sparse = torch.sparse_coo_tensor(torch.tensor([[0], [1]]), torch.tensor([5.]), (2, 2))

    class SparseGradient(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            return sparse
    x = torch.ones(2, 2, requires_grad=True)
    x.grad = torch.ones(2, 2)
    SparseGradient.apply(x).sum().backward()
    assert x.grad.tolist() == [[1.0, 6.0], [1.0, 1.0]]   # PyTorch 2.13


def test_a_dense_gradient_accumulated_into_a_sparse_grad_makes_it_dense():
    x = torch.ones(2, 2, requires_grad=True)
    x.grad = torch.sparse_coo_tensor(torch.tensor([[0, 1], [1, 0]]), torch.tensor([1., 2.]), (2, 2))
    (x * 2).sum().backward()
    assert x.grad.layout == torch.strided and x.grad.tolist() == [[2.0, 3.0], [4.0, 2.0]]   # PyTorch 2.13


# --------------------------------------------------------------------------- legacy sparse, spmm
def test_legacy_sparse_constructors_warn_once_and_build_coo_tensors():
    from minigrad.tensor import _warned
    i, v = torch.tensor([[0, 1], [1, 0]]), torch.tensor([1.0, 2.0], requires_grad=True)
    message = ("torch.sparse.SparseTensor(indices, values, shape, *, device=) is deprecated.  Please use "
               "torch.sparse_coo_tensor(indices, values, shape, dtype=, device=).")
    _warned.discard(message)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a = torch.sparse.FloatTensor(i, v, torch.Size([2, 2]))
        torch.sparse.FloatTensor(i, v, (2, 2))
    assert [str(w.message) for w in caught] == [message]   # once per process, as PyTorch's TORCH_WARN_ONCE
    assert a.to_dense().tolist() == [[0.0, 1.0], [2.0, 0.0]] and a.grad_fn.name() == \
        "SparseCooTensorWithDimsAndTensorsBackward0"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert torch.sparse.FloatTensor(i, v.detach().double(), (2, 2)).dtype is torch.float64   # values keep their dtype
        assert torch.sparse.LongTensor(i, torch.tensor([1, 2]), torch.Size([2, 2])).dtype is torch.int64
        empty = torch.sparse.FloatTensor(2, 3)
    assert empty.shape == torch.Size([2, 3]) and empty._nnz() == 0 and empty.dtype is torch.float32
    assert isinstance(a, torch.sparse.FloatTensor) and not isinstance(a, torch.sparse.DoubleTensor)
    assert not isinstance(torch.ones(2), torch.sparse.FloatTensor)
    b = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = torch.spmm(a, b)
    y.sum().backward()
    assert y.grad_fn.name() == "MmBackward0" and y.tolist() == [[3.0, 4.0], [2.0, 4.0]]
    assert v.grad.tolist() == [7.0, 3.0] and b.grad.tolist() == [[2.0, 2.0], [1.0, 1.0]]
    assert torch.spmm(b, b).grad_fn.name() == "MmBackward0"


@pytest.mark.parametrize("transposed", [False, True])
def test_a_sparse_gradient_goes_through_the_backward_of_a_matrix_product(transposed):
    """MmBackward0 multiplies the gradient it receives: a sparse one takes sparse @ dense, as in
    PyTorch (the values below are PyTorch 2.13's)."""
    a = torch.ones(2, 3, requires_grad=True)
    w = torch.ones(2, 3, requires_grad=True) if transposed else torch.ones(3, 2, requires_grad=True)
    grad = torch.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], (2, 2))
    (a @ (w.t() if transposed else w)).backward(grad)
    assert a.grad.tolist() == [[2.0, 2.0, 2.0], [3.0, 3.0, 3.0]]
    assert w.grad.tolist() == ([[3.0, 3.0, 3.0], [2.0, 2.0, 2.0]] if transposed else [[3.0, 2.0]] * 3)
