"""The shortcuts taken for speed give exactly what the general code gives (and what PyTorch gives).

Expected values were recorded with PyTorch 2.13: the same programs, run on both libraries.
Covered: ``apply`` in no-grad mode, the dtype shortcuts of binary operations, ``mean`` without
numpy's Python layer, relu's backward as one ``ThresholdBackwardBackward0`` node, and the sparse
kernels against a dense product.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as torch
from minigrad.ops._util import result_dtype
from minigrad.sparse import kernels


class Peek(torch.autograd.Function):
    seen: list = []

    @staticmethod
    def forward(ctx, x, y, k):
        Peek.seen.append(ctx.needs_input_grad)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad, None, None


def test_apply_under_no_grad_sees_needs_input_grad_and_records_nothing():
    a, b = torch.ones(2, requires_grad=True), torch.ones(2)
    Peek.seen.clear()
    with torch.no_grad():
        out = Peek.apply(a, b, 3)
    assert Peek.seen == [(True, False, False)]   # as in PyTorch: needs_input_grad is still filled in
    assert out is not a and out.grad_fn is None and not out.requires_grad   # as in PyTorch
    assert out._version_counter is a._version_counter   # a detached alias: same data, same counter
    assert a._version == 0


def test_in_place_update_under_no_grad_bumps_the_version_once():
    p = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        p -= 0.5 * torch.ones(2)
    assert p._version == 1 and p.is_leaf and p.requires_grad
    assert p.tolist() == [0.5, 0.5]


def _tensors():
    return {"f32": torch.ones(2), "f64": torch.ones(2, dtype=torch.float64),
            "i64": torch.ones(2, dtype=torch.int64), "bool": torch.ones(2, dtype=torch.bool),
            "z64": torch.tensor(1.5, dtype=torch.float64), "zi": torch.tensor(2)}


# (program, dtype PyTorch 2.13 gives)
DTYPE_CASES = [
    ("f32 * 2.5", torch.float32), ("f64 * 2", torch.float64), ("i64 * 2.5", torch.float32),
    ("f32 * i64", torch.float32), ("i64 * f32", torch.float32), ("f32 * bool", torch.float32),
    ("bool * f64", torch.float64), ("z64 * f32", torch.float32), ("f32 * z64", torch.float32),
    ("zi * f32", torch.float32), ("2.5 * i64", torch.float32), ("f64 - 0.5", torch.float64),
    ("i64 + True", torch.int64), ("bool + 1.5", torch.float32), ("i64 / 2", torch.float32),
]


@pytest.mark.parametrize("program, expected", DTYPE_CASES)
def test_binary_dtype_shortcuts_agree_with_pytorch(program, expected):
    result = eval(program, {}, _tensors())
    assert result.dtype is expected
    assert result.numpy().dtype == expected.numpy


@pytest.mark.parametrize("left, right", [("f32", "i64"), ("i64", "f32"), ("z64", "f32"), ("f32", "bool")])
def test_binary_dtype_shortcuts_agree_with_result_dtype(left, right):
    tensors = _tensors()
    a, b = tensors[left], tensors[right]
    assert (a * b).dtype is result_dtype(a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1,), (64, 10), (1000, 7)])
def test_mean_is_numpys_mean_exactly(dtype, shape):
    data = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    value = torch.from_numpy(data).mean()
    assert value.numpy().dtype == dtype
    assert value.item() == data.mean()


def test_mean_of_an_empty_tensor_is_nan():
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # silently, as in PyTorch (no numpy "Mean of empty slice")
        assert np.isnan(torch.zeros(0).mean().item())


def test_relu_backward_is_one_threshold_backward_node_as_in_pytorch():
    x = torch.tensor([-1.0, 2.0, 0.0], requires_grad=True)
    y = x.relu()
    grad_y = torch.ones(3, requires_grad=True)
    g, = torch.autograd.grad(y, x, grad_y, create_graph=True)
    assert g.grad_fn.name() == "ThresholdBackwardBackward0"
    assert [n.name() for n, _ in g.grad_fn.next_functions] == ["torch::autograd::AccumulateGrad", "ReluBackward0"]
    assert g.tolist() == [0.0, 1.0, 0.0]
    # PyTorch: d(sum g)/d grad_y = the mask, d(sum g)/d y = zeros
    wrt_grad, wrt_y = torch.autograd.grad(g.sum(), (grad_y, y))
    assert wrt_grad.tolist() == [0.0, 1.0, 0.0] and wrt_y.tolist() == [0.0, 0.0, 0.0]


def test_relu_second_derivative_through_threshold_backward():
    x = torch.tensor([-1.0, 2.0, 3.0], requires_grad=True)
    y = (x.relu() ** 2).sum()
    g, = torch.autograd.grad(y, x, create_graph=True)   # 2 relu(x) where x > 0
    assert g.tolist() == [0.0, 4.0, 6.0]
    g.sum().backward()
    assert x.grad.tolist() == [0.0, 2.0, 2.0]


def _dense(rows, cols, values, n_rows, n_cols):
    dense = np.zeros((n_rows, n_cols), dtype=np.float64)
    np.add.at(dense, (rows, cols), values)
    return dense


@pytest.mark.parametrize("d", [0, 1, 2, 5, 8])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scatter_add_and_sampled_dot_match_dense_products(d, dtype):
    rng = np.random.default_rng(d)
    n_rows, n_cols, nnz = 7, 5, 30   # repeated coordinates on purpose
    rows, cols = rng.integers(0, n_rows, nnz), rng.integers(0, n_cols, nnz)
    values = rng.standard_normal(nnz).astype(dtype)
    b = rng.standard_normal((n_cols, d)).astype(dtype)
    g = rng.standard_normal((n_rows, d)).astype(dtype)
    product = kernels.scatter_add(rows, cols, values, b, n_out=n_rows)
    assert product.dtype == dtype and product.shape == (n_rows, d)
    np.testing.assert_allclose(product, _dense(rows, cols, values, n_rows, n_cols) @ b, rtol=1e-5, atol=1e-5)
    sampled = kernels.sampled_dot(rows, cols, g, b)
    assert sampled.dtype == dtype and sampled.shape == (nnz,)
    np.testing.assert_allclose(sampled, (g @ b.T)[rows, cols], rtol=1e-5, atol=1e-5)


def test_sampled_dot_reads_a_broadcast_gradient():
    rows, cols = np.array([0, 1, 1]), np.array([1, 0, 1])
    ones = np.broadcast_to(np.float32(1), (2, 3))   # what out.sum() sends back
    b = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert kernels.sampled_dot(rows, cols, ones, b).tolist() == [12.0, 3.0, 12.0]
