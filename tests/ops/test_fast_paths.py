"""The shortcuts taken for speed give exactly what the general code gives (and what PyTorch gives).

Expected values were recorded with PyTorch 2.13: the same programs, run on both libraries.
Covered: ``apply`` in no-grad mode, the dtype shortcuts of binary operations, ``mean`` without
numpy's Python layer, relu's backward as one ``ThresholdBackwardBackward0`` node (and its branch-free
kernel), the backwards of log_softmax, softmax and nll_loss as one node each (with their double
backward), nll_loss's vectorized label check and lean common case, and the sparse kernels against a
dense product.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as torch
import minigrad.nn.functional as F
from minigrad.autograd import engine, gradcheck, gradgradcheck
from minigrad.ops._util import result_dtype
from minigrad.ops.pointwise import _keep_where
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


@pytest.mark.apply_shortcut
def test_apply_under_no_grad_sees_needs_input_grad_and_records_nothing():
    a, b = torch.ones(2, requires_grad=True), torch.ones(2)
    Peek.seen.clear()
    with torch.no_grad():
        out = Peek.apply(a, b, 3)
    assert Peek.seen == [(True, False, False)]   # as in PyTorch: needs_input_grad is still filled in
    assert out is not a and out.grad_fn is None and not out.requires_grad   # as in PyTorch
    assert out._version_counter is a._version_counter   # a detached alias: same data, same counter
    assert a._version == 0


@pytest.mark.apply_shortcut
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


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_backward_kernel_is_np_where_bit_for_bit(dtype):
    rng = np.random.default_rng(1)
    grad = rng.standard_normal((7, 9)).astype(dtype)
    grad[0, :4] = [np.nan, np.inf, -np.inf, -0.0]
    result = np.maximum(rng.standard_normal((7, 9)), 0).astype(dtype)
    result[0, :4] = [1.0, 0.0, 2.0, 3.0]
    result[1, 0] = np.nan
    bits = f"i{np.dtype(dtype).itemsize}"
    for g, r in [(grad, result), (grad.T, result.T), (np.broadcast_to(dtype(-2), (7, 9)), result)]:
        expected = np.where(r > 0, g, dtype(0))
        got = _keep_where(r > 0, g)
        assert got.dtype == dtype
        assert got.view(bits).tolist() == expected.view(bits).tolist()   # -0.0, NaN and inf kept exactly


def test_relu_backward_keeps_nan_and_infinite_gradients_where_relu_passes():
    x = torch.tensor([1.0, -1.0, 2.0, 3.0, -2.0], requires_grad=True)
    x.relu().backward(torch.tensor([float("nan"), float("nan"), float("inf"), -0.0, -1.0]))
    assert str(x.grad) == "tensor([nan, 0., inf, -0., 0.])"   # what PyTorch 2.13 prints


# --------------------------------------------------------------------------- log_softmax, softmax, nll_loss
def _tree(node) -> list:
    """A node's name and, recursively, its next functions (None for an edge to nowhere)."""
    if node is None:
        return None
    return [node.name(), [_tree(n) for n, _ in node.next_functions]]


ACC = ["torch::autograd::AccumulateGrad", []]
LABELS = torch.tensor([1, 0, 3, 4])


def _x():
    return torch.tensor(np.random.default_rng(0).standard_normal((4, 5)), requires_grad=True)


def test_log_softmax_and_softmax_backwards_are_one_node_each_as_in_pytorch():
    for name, op in [("LogSoftmax", lambda t: t.log_softmax(1)), ("Softmax", lambda t: t.softmax(1))]:
        x = _x()
        y = op(x)
        grad_y = torch.ones(4, 5, dtype=torch.float64, requires_grad=True)
        g, = torch.autograd.grad(y, x, grad_y, create_graph=True)
        # The trees PyTorch 2.13 gives
        assert _tree(g.grad_fn) == [f"{name}BackwardDataBackward0", [ACC, [f"{name}Backward0", [ACC]]]]
        assert g.grad_fn._saved_grad_output is grad_y
        # as in PyTorch: a saved output comes back as a new tensor object with the same values
        assert g.grad_fn._saved_output is not y and g.grad_fn._saved_output.tolist() == y.tolist()


def test_nll_loss_backward_is_one_node_as_in_pytorch():
    x = _x()
    g, = torch.autograd.grad(F.cross_entropy(x, LABELS), x, create_graph=True)
    log_softmax = ["LogSoftmaxBackward0", [ACC]]
    assert _tree(g.grad_fn) == ["LogSoftmaxBackwardDataBackward0",
                                [["NllLossBackwardBackward0", [None, log_softmax]], log_softmax]]
    loss = F.nll_loss(x, LABELS)
    assert loss.grad_fn._saved_self is x
    g, = torch.autograd.grad(loss, x, create_graph=True)
    assert _tree(g.grad_fn) == ["NllLossBackwardBackward0", [None, ACC]]
    assert g.requires_grad   # as in PyTorch, although nll_loss's gradient does not depend on x
    grad_loss = torch.ones(4, dtype=torch.float64, requires_grad=True)
    g, = torch.autograd.grad(F.nll_loss(x, LABELS, reduction="none"), x, grad_loss, create_graph=True)
    assert _tree(g.grad_fn) == ["NllLossBackwardBackward0", [ACC, ACC]]


def test_mse_loss_backward_is_one_node_per_input_as_in_pytorch():
    x, target = _x(), torch.zeros(4, 5, dtype=torch.float64, requires_grad=True)
    for reduction in ("mean", "sum", "none"):
        loss = F.mse_loss(x, target, reduction=reduction)
        grad_loss = torch.ones_like(loss) if reduction == "none" else None
        g_x, g_target = torch.autograd.grad(loss, (x, target), grad_loss, create_graph=True)
        # PyTorch 2.13: the target's gradient is the same operation with input and target swapped
        assert _tree(g_x.grad_fn) == ["MseLossBackwardBackward0", [None, ACC, ACC]]
        assert _tree(g_target.grad_fn) == ["MseLossBackwardBackward0", [None, ACC, ACC]]
        assert g_x.grad_fn.next_functions[1][0].variable is x
        assert g_target.grad_fn.next_functions[1][0].variable is target
        assert g_x.grad_fn._saved_self is x and g_target.grad_fn._saved_self is target
        assert np.allclose(g_x.detach().numpy(), -g_target.detach().numpy())


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_double_backward_matches_finite_differences(reduction):
    rng = np.random.default_rng(1)
    x = torch.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    row = torch.tensor(rng.standard_normal(2), requires_grad=True)   # broadcast against x's rows
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # PyTorch warns when mse_loss broadcasts
        for a, b in [(x, row), (row, x)]:
            assert gradcheck(lambda p, q: F.mse_loss(p, q, reduction=reduction), (a, b))
            assert gradgradcheck(lambda p, q: F.mse_loss(p, q, reduction=reduction), (a, b))


def test_the_divisor_gradient_is_pytorchs_formula_so_double_backward_has_its_graph():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    g, = torch.autograd.grad((a / b).sum(), b, create_graph=True)
    # PyTorch 2.13: -grad * ((a / b) / b), the negated grad needing no gradient
    assert _tree(g.grad_fn) == ["MulBackward0", [None, ["DivBackward0", [["DivBackward0", [ACC, ACC]], ACC]]]]
    assert g.tolist() == pytest.approx([-1 / 9, -2 / 16])
    g, = torch.autograd.grad((a * 1).div_(b).sum(), b, create_graph=True)   # the in-place form: same formula
    assert g.grad_fn.name() == "MulBackward0" and g.tolist() == pytest.approx([-1 / 9, -2 / 16])


def test_nll_loss_saves_its_input_so_changing_it_in_place_is_caught():
    x = _x()
    log_probs = x * 1
    loss = F.nll_loss(log_probs, LABELS)
    log_probs.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()
    assert x.grad is None


NLL_CASES = [dict(), dict(reduction="sum"), dict(reduction="none"), dict(weight=True), dict(weight=True, reduction="sum"),
             dict(weight=True, reduction="none"), dict(ignore=True), dict(ignore=True, reduction="none"),
             dict(weight=True, ignore=True), dict(one_row=True), dict(one_row=True, reduction="none")]


def _nll_case(case: dict, x: np.ndarray, labels: np.ndarray, weight: np.ndarray):
    """The minigrad function of one nll_loss case, and the same loss written in numpy."""
    ignore_index = 2 if case.get("ignore") else -100
    reduction = case.get("reduction", "mean")
    w = weight if case.get("weight") else np.ones_like(weight)
    kwargs = dict(reduction=reduction, ignore_index=ignore_index,
                  weight=torch.tensor(weight) if case.get("weight") else None)
    if case.get("one_row"):
        labels = labels[:1].reshape(())

    def op(t):
        log_probs = t[0].log_softmax(0) if case.get("one_row") else t.log_softmax(1)
        return F.nll_loss(log_probs, torch.tensor(labels), **kwargs)

    def reference(z):
        z = z[:1] if case.get("one_row") else z
        log_p = z - z.max(1, keepdims=True)
        log_p = log_p - np.log(np.exp(log_p).sum(1, keepdims=True))
        rows, flat = np.arange(len(z)), labels.reshape(-1)
        row_weight = w[flat] * (flat != ignore_index)
        losses = -log_p[rows, flat] * row_weight
        if reduction == "none":
            return losses.reshape(labels.shape)
        return losses.sum() / row_weight.sum() if reduction == "mean" else losses.sum()

    return op, reference


def _central_differences(reference, x: np.ndarray, upstream: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[index] += eps
        down[index] -= eps
        grad[index] = np.sum((reference(up) - reference(down)) * upstream) / (2 * eps)
    return grad


@settings(max_examples=8, deadline=None)
@given(st.sampled_from(NLL_CASES), st.integers(1, 5), st.integers(3, 5), st.data())
def test_nll_loss_and_log_softmax_gradients_match_central_differences(case, batch, classes, data):
    x = data.draw(hnp.arrays(np.float64, (batch, classes), elements=st.floats(-3, 3)))
    labels = np.array(data.draw(st.lists(st.integers(0, classes - 1), min_size=batch, max_size=batch)))
    weight = data.draw(hnp.arrays(np.float64, classes, elements=st.floats(0.1, 2)))
    if case.get("ignore") and labels[0] == 2:
        labels[0] = 0   # keep one counted row (the first, for one_row): a mean over none is nan
    op, reference = _nll_case(case, x, labels, weight)
    t = torch.tensor(x, requires_grad=True)
    out = op(t)
    np.testing.assert_allclose(out.detach().numpy(), reference(x), rtol=1e-12, atol=1e-12)
    upstream = np.random.default_rng(batch).standard_normal(out.shape)
    g, = torch.autograd.grad(out, t, torch.tensor(upstream))
    np.testing.assert_allclose(g.numpy(), _central_differences(reference, x, upstream), atol=1e-6, rtol=1e-5)
    # second derivatives: the create_graph backward against central differences of the first
    assert gradgradcheck(op, (t,))


@settings(max_examples=8, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4),
                  elements=st.floats(-3, 3)), st.data())
def test_softmax_and_log_softmax_second_derivatives_match_central_differences(x, data):
    dim = data.draw(st.integers(-max(x.ndim, 1), max(x.ndim, 1) - 1))
    t = torch.tensor(x, requires_grad=True)
    for op in (lambda a: a.log_softmax(dim), lambda a: a.softmax(dim),
               lambda a: F.cross_entropy(a.reshape(1, -1), torch.tensor([0]))):
        assert gradcheck(op, (t,)) and gradgradcheck(op, (t,))
    # third order: the double backward of the BackwardData nodes is itself differentiable
    grad_y = torch.tensor(np.random.default_rng(0).standard_normal(x.shape), requires_grad=True)
    for op in (lambda a: a.log_softmax(dim), lambda a: a.softmax(dim)):
        assert gradgradcheck(lambda a, g: torch.autograd.grad(op(a), a, g, create_graph=True)[0], (t, grad_y))


def test_nll_loss_common_case_is_bit_for_bit_the_general_code():
    rng = np.random.default_rng(3)
    x = torch.tensor(rng.standard_normal((64, 10)).astype(np.float32), requires_grad=True)
    labels = torch.tensor(rng.integers(0, 10, 64))
    lean = F.cross_entropy(x, labels)                                  # no weight, nothing ignored, mean
    general = F.nll_loss(x.log_softmax(1), labels, weight=torch.ones(10))   # the general code, same values
    assert lean.item() == general.item() and lean.dtype is torch.float32
    lean_grad, = torch.autograd.grad(lean, x)
    general_grad, = torch.autograd.grad(general, x)
    assert lean_grad.numpy().tobytes() == general_grad.numpy().tobytes()


def test_log_softmax_and_softmax_forward_values_are_unchanged():
    x = np.random.default_rng(4).standard_normal((6, 7)).astype(np.float32)
    shifted = x - x.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    assert torch.tensor(x).log_softmax(1).numpy().tobytes() == (shifted - np.log(e.sum(1, keepdims=True))).tobytes()
    assert torch.tensor(x).softmax(1).numpy().tobytes() == (e / e.sum(1, keepdims=True)).tobytes()


def test_cross_entropy_matches_pytorch_to_float32_rounding():
    x = torch.tensor([[0.3, -1.2, 2.5, 0.1], [1.0, 1.0, -3.0, 0.5], [-0.7, 0.2, 0.0, 4.0]], requires_grad=True)
    loss = F.cross_entropy(x, torch.tensor([2, 0, 3]))
    loss.backward()
    # PyTorch 2.13 gave these (its exp and its order of summation differ from numpy's by an ulp)
    assert loss.item() == pytest.approx(0.40585359930992126, rel=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), [
        [0.030119916424155235, 0.006720661651343107, -0.0615006685256958, 0.024660101160407066],
        [-0.20634177327156067, 0.12699156999588013, 0.0023259322624653578, 0.07702428102493286],
        [0.0028879910241812468, 0.0071033090353012085, 0.005815698765218258, -0.01580699346959591]], rtol=1e-5, atol=1e-8)


def test_cross_entropy_of_one_sample_takes_log_softmax_over_dim_0():
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    loss = F.cross_entropy(x, torch.tensor(2))
    loss.backward()
    assert loss.grad_fn.name() == "NllLossBackward0" and loss.shape == ()
    assert loss.grad_fn.next_functions[0][0].name() == "LogSoftmaxBackward0"
    # PyTorch 2.13: tensor(0.2413) and tensor([ 0.1753,  0.0391, -0.2144])
    assert str(loss.detach()) == "tensor(0.2413)" and str(x.grad) == "tensor([ 0.1753,  0.0391, -0.2144])"


def test_nll_loss_over_only_ignored_rows_is_nan_with_zero_gradients_and_no_warning():
    x = torch.zeros(3, 4, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # PyTorch warns about nothing here
        loss = F.nll_loss(x, torch.tensor([-100, -100, -100]))
        loss.backward()
    assert np.isnan(loss.item()) and x.grad.tolist() == [[0.0] * 4] * 3   # PyTorch 2.13: nan, zeros


@pytest.mark.parametrize("labels, kwargs, text", [
    # PyTorch 2.13 names the first bad label in order (on one thread), negatives included
    ([0, 5, -1], {}, "Target 5 is out of bounds."),
    ([0, -1, 5], {}, "Target -1 is out of bounds."),
    ([0, 5, -1], dict(reduction="none"), "Target 5 is out of bounds."),
    ([0, 4, 2], dict(reduction="sum"), "Target 4 is out of bounds."),
    ([-100, -5, 2], {}, "Target -5 is out of bounds."),     # -100 is ignored, -5 is not
    ([7, 1, 9], dict(ignore_index=7), "Target 9 is out of bounds."),
    ([1, 9, 1], dict(ignore_index=1), "Target 9 is out of bounds."),
])
def test_nll_loss_out_of_bounds_error_names_the_first_bad_label(labels, kwargs, text):
    x = torch.zeros(3, 4, requires_grad=True)
    with pytest.raises(IndexError) as info:
        F.nll_loss(x, torch.tensor(labels), **kwargs)
    assert str(info.value) == text
    with pytest.raises(IndexError) as info:
        F.cross_entropy(x, torch.tensor(labels), **kwargs) if not kwargs.get("ignore_index") else \
            F.nll_loss(x.log_softmax(1), torch.tensor(labels), **kwargs)
    assert str(info.value) == text


def test_nll_loss_accepts_labels_equal_to_ignore_index_whatever_their_value():
    x = torch.zeros(3, 4)
    assert F.nll_loss(x, torch.tensor([-100, 2, 1])).item() == 0.0
    assert F.nll_loss(x - 1, torch.tensor([7, 1, 7]), ignore_index=7).item() == 1.0
    for label, text in [(4, "Target 4 is out of bounds."), (-1, "Target -1 is out of bounds.")]:
        with pytest.raises(IndexError) as info:
            F.nll_loss(torch.zeros(4), torch.tensor(label))
        assert str(info.value) == text
    assert np.isnan(F.nll_loss(torch.zeros(4), torch.tensor(-100)).item())


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


# ----------------------------------------------------------------- AccumulateGrad keeps a gradient nobody holds
class PassThrough(torch.autograd.Function):
    """Hands the incoming gradient on unchanged (the same tensor object)."""

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        return grad


class KeepsItsGradient(torch.autograd.Function):
    """Returns, as the gradient, a tensor sharing memory with one it keeps on ctx."""

    @staticmethod
    def forward(ctx, x):
        ctx.kept = torch.zeros(3)
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        return ctx.kept.detach()


@pytest.mark.skipif(not engine._COUNTS_KNOWN, reason="reference counts are only trusted on CPython <= 3.13")
def test_a_gradient_nobody_else_holds_becomes_grad_without_a_copy():
    a = torch.ones(3, requires_grad=True)
    seen = {}

    def note_id(grad):   # keeps the gradient's id, not the tensor
        seen["id"] = id(grad)

    a.register_hook(note_id)
    (a * 2).sum().backward()
    assert id(a.grad) == seen["id"] and a.grad.tolist() == [2.0, 2.0, 2.0]


def test_one_gradient_sent_to_two_leaves_gives_each_its_own_copy():
    a, b = torch.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    ((a + b) * 2).sum().backward()   # AddBackward0 sends the same tensor to both leaves
    assert a.grad is not b.grad
    a.grad.add_(1)
    assert b.grad.tolist() == [2.0, 2.0, 2.0]


def test_a_gradient_a_hook_keeps_is_copied_and_never_changed_later():
    c = torch.ones(3, requires_grad=True)
    kept = []
    c.register_hook(kept.append)
    (c * 2).sum().backward()
    (c * 2).sum().backward()   # adds into c.grad in place
    assert kept[0] is not c.grad and kept[0].tolist() == [2.0, 2.0, 2.0] and c.grad.tolist() == [4.0, 4.0, 4.0]


def test_the_callers_gradient_handed_straight_to_a_leaf_is_copied():
    x = torch.ones(3, requires_grad=True)
    gradient = torch.full((3,), 5.0)
    PassThrough.apply(x).backward(gradient)
    x.grad.add_(1)
    assert gradient.tolist() == [5.0, 5.0, 5.0] and x.grad.tolist() == [6.0, 6.0, 6.0]


def test_a_gradient_sharing_memory_with_a_kept_tensor_is_copied():
    x = torch.ones(3, requires_grad=True)
    y = KeepsItsGradient.apply(x)
    y.sum().backward()
    x.grad.add_(1)
    assert y.grad_fn.kept.tolist() == [0.0, 0.0, 0.0] and x.grad.tolist() == [1.0, 1.0, 1.0]


class KeepsATransposedGradient(torch.autograd.Function):
    """Returns, as the gradient, a transposed view of a tensor it keeps on ctx."""

    @staticmethod
    def forward(ctx, x):
        ctx.kept = torch.zeros(3, 2)
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        return ctx.kept.t()


def test_a_view_of_a_kept_tensor_is_copied():
    x = torch.ones(2, 3, requires_grad=True)
    y = KeepsATransposedGradient.apply(x)
    y.sum().backward()
    x.grad.add_(1)
    assert y.grad_fn.kept.tolist() == [[0.0, 0.0]] * 3 and x.grad.tolist() == [[1.0] * 3] * 2


def test_a_transposed_weight_gradient_is_kept_as_a_plain_tensor_with_the_right_values():
    weight = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)   # (out, in), as nn.Linear
    x = torch.tensor([[1.0, 0.0, 2.0]])
    (x @ weight.t()).sum().backward()
    assert weight.grad._base is None and weight.grad.tolist() == [[1.0, 0.0, 2.0], [1.0, 0.0, 2.0]]
    (x @ weight.t()).sum().backward()   # the second gradient is added in place
    assert weight.grad.tolist() == [[2.0, 0.0, 4.0], [2.0, 0.0, 4.0]]


def test_a_read_only_broadcast_gradient_is_copied_so_later_backwards_can_add_into_it():
    # Found by the differential fuzzer: the gradient of a 0-dim sum is a read-only broadcast view.
    x0 = torch.tensor(-3.0, requires_grad=True)
    x4 = torch.sum(x0)
    (x4 * x4).mean().backward(retain_graph=True)
    x0.sum().backward(retain_graph=True)
    assert x0.grad.item() == -5.0
    v = torch.ones(3, requires_grad=True)
    v.sum().backward()
    v.sum().backward()   # the first gradient was an expanded (stride 0) view of one number
    assert v.grad.tolist() == [2.0, 2.0, 2.0]
