"""Corners that differed from PyTorch silently (issue 21, part 3), and the methods students reach for
(``minigrad/ops/everyday.py``). Every expected value, node name and message was printed by PyTorch 2.13.
Gradients of the new ops are checked against central differences with hypothesis."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from test_ops_gradients import FAST, check, floats

import minigrad as torch

INF, NAN = float("inf"), float("nan")


def message(call) -> str:
    with pytest.raises(Exception) as caught:
        call()
    return f"{type(caught.value).__name__}: {caught.value}"


def values(t) -> list:
    """``t.tolist()`` with nan written as the string 'nan' (nan != nan)."""
    data = t.detach().numpy()
    return np.where(np.isnan(data), "nan", data.astype(str)).tolist() if t.is_floating_point() else t.tolist()


# ------------------------------------------------------------------ var and std (PyTorch's var_backward)
@pytest.mark.filterwarnings("ignore:var\\(\\)|std\\(\\)")
@pytest.mark.parametrize("make, value, grad", [
    (lambda x: x[:1].var(), "nan", ["nan"]),                                    # one element, correction 1
    (lambda x: x[:2].var(correction=2), "inf", ["inf", "inf"]),                 # N - correction = 0
    (lambda x: x[:2].var(correction=3), "inf", ["inf", "inf"]),                 # < 0: the forward divides by 0 too
    (lambda x: x[:2].var(0, correction=2), "inf", ["-inf", "inf"]),             # along a dim: 2 / 0 * (x - mean)
    (lambda x: x[:2].std(correction=2), "inf", ["nan", "nan"]),
])
def test_var_and_std_with_no_degrees_of_freedom_give_inf_and_nan_as_pytorch(make, value, grad):
    x = torch.tensor([1.0, 2.0, 4.0], requires_grad=True)
    out = make(x)
    out.backward()
    assert values(out) == value and values(x.grad)[:len(grad)] == grad


def test_std_of_equal_values_has_a_zero_gradient_and_says_std():
    x = torch.tensor([2.0, 2.0, 2.0], requires_grad=True)
    x.std().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]   # PyTorch 2.13 (minigrad gave nan)
    x = torch.tensor([[2.0, 2.0], [1.0, 3.0]], requires_grad=True)
    x.std(1).backward(torch.tensor([INF, 1.0]))
    assert x.grad[0].tolist() == [0.0, 0.0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.tensor([1.0]).std()
        torch.tensor([1.0]).var()
    assert [str(w.message)[:6] for w in caught] == ["std():", "var():"]
    assert {w.filename for w in caught} == {__file__}   # the warning names the user's line, as PyTorch's


@given(hnp.arrays(np.float64, st.sampled_from([(4,), (2, 3)]), elements=floats()), st.sampled_from([0, 1]))
@FAST
def test_var_and_std_gradients_match_central_differences(array, correction):
    if np.ptp(array.reshape(-1, array.shape[-1]), axis=1).min() < 0.1:
        return   # std's derivative is singular where a row's values are all equal
    check(lambda x: x.var(correction=correction), lambda x: x.var(ddof=correction), array)
    check(lambda x: x.std(-1, correction=correction), lambda x: x.std(axis=-1, ddof=correction), array)


# ------------------------------------------------------------------ masks meet inf and nan gradients
def test_index_put_and_sgn_zero_what_they_drop_even_for_an_infinite_gradient():
    x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    y = x * 1
    y[x > 0] = 0.0
    y.backward(torch.tensor([INF, NAN, INF]))
    assert x.grad.tolist() == [INF, 0.0, 0.0]   # PyTorch 2.13 (minigrad gave [inf, nan, nan])
    x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    y = x * 1
    y[torch.tensor([0, 2])] = torch.tensor([2.0, 3.0])
    y.backward(torch.tensor([INF, NAN, 1.0]))
    assert values(x.grad) == ["0.0", "nan", "0.0"]
    x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    g, = torch.autograd.grad(x.abs().sum(), x, create_graph=True)
    second, = torch.autograd.grad(g, x, torch.tensor([INF, NAN, 1.0]))
    assert second.tolist() == [0.0, 0.0, 0.0] and not second.requires_grad   # SgnBackward0: zeros


# ------------------------------------------------------------------ remainder, floor division, div modes
def test_remainder_saves_its_operands_and_differentiates_through_a_floor_division():
    a, b = torch.tensor([5.0, 7.0], requires_grad=True), torch.tensor([2.0, 3.0], requires_grad=True)
    bb = b * 1
    y = a % bb
    with torch.no_grad():
        bb.add_(1)
    assert message(lambda: y.sum().backward()).startswith(
        "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation")
    y = a % b
    assert y.grad_fn._saved_self is a and y.grad_fn._saved_other is b
    _, gb = torch.autograd.grad(y.sum(), (a, b), create_graph=True)
    assert gb.tolist() == [-2.0, -2.0] and gb.grad_fn.next_functions[1][0].name() == "DivBackward2"
    assert torch.autograd.grad(gb.sum(), (a, b)) [0].tolist() == [0.0, 0.0]
    a = torch.tensor([5.0, 7.0], requires_grad=True)
    y = a % torch.tensor([2.0, 3.0])
    y.sum().backward()   # b needs no gradient: nothing is saved, nothing checked
    assert a.grad.tolist() == [1.0, 1.0]


def test_floor_divide_records_pytorchs_node_with_edges_only_to_operands_that_require_grad():
    a, b = torch.tensor([5.0, 7.0]), torch.tensor([2.0, 3.0], requires_grad=True)
    for y in (a // b, torch.floor_divide(a, b), a.floor_divide(b), 7 // b):
        assert y.grad_fn.name() == "torch::autograd::NotImplemented"
        assert len(y.grad_fn.next_functions) == 1 and y.grad_fn.next_functions[0][0].variable is b
    assert message(lambda: (a // b).sum().backward()) == "RuntimeError: derivative for aten::floor_divide is not implemented"
    assert repr(b // 2) == "tensor([1., 1.], grad_fn=<NotImplemented>)"


def test_div_with_a_rounding_mode():
    a = torch.tensor([5.0, -7.0], requires_grad=True)
    floor, trunc = a.div(2, rounding_mode="floor"), torch.div(a, 2, rounding_mode="trunc")
    assert floor.tolist() == [2.0, -4.0] and trunc.tolist() == [2.0, -3.0]
    assert floor.grad_fn.name() == "DivBackward2" and floor.grad_fn._saved_rounding_mode == "floor"
    floor.backward(torch.tensor([INF, 1.0]))
    assert a.grad.tolist() == [0.0, 0.0]   # piecewise constant: zeros, even for an infinite gradient
    assert torch.div(7, torch.tensor([2.0, 3.0]), rounding_mode="floor").tolist() == [3.0, 2.0]
    assert torch.tensor([5, -7]).div(2, rounding_mode="trunc").tolist() == [2, -3]
    assert message(lambda: a.div(2, rounding_mode="round")) == (
        "RuntimeError: div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'")


@pytest.mark.parametrize("call, expected", [
    (lambda: torch.tensor([5]) // 0, "RuntimeError: ZeroDivisionError"),
    (lambda: torch.tensor([5]) % torch.tensor([0]), "RuntimeError: ZeroDivisionError"),
    (lambda: torch.tensor([1, 2]) ** -1, "RuntimeError: Integers to negative integer powers are not allowed."),
    (lambda: torch.tensor([True]) ** -1, "RuntimeError: Integers to negative integer powers are not allowed."),
    (lambda: torch.tensor([1, 2], dtype=torch.uint8).pow(-2),
     "RuntimeError: Integers to negative integer powers are not allowed."),
    (lambda: torch.tensor([True]) // torch.tensor([True]), "NotImplementedError: \"div_floor_cpu\" not implemented for 'Bool'"),
    (lambda: torch.tensor([True]) % torch.tensor([True]), "NotImplementedError: \"remainder_cpu\" not implemented for 'Bool'"),
    (lambda: torch.tensor([True]) ** torch.tensor([True]), "NotImplementedError: \"pow\" not implemented for 'Bool'"),
])
def test_integer_and_bool_arithmetic_refused_as_pytorch(call, expected):
    assert message(call) == expected


def test_integer_powers_with_negative_integer_tensor_exponents_follow_c():
    base = torch.tensor([1, -1, 0, 2, -2, 3])
    assert (base ** torch.tensor([-1, -1, -1, -1, -1, -3])).tolist() == [1, -1, 0, 0, 0, 0]   # PyTorch 2.13
    assert (torch.tensor([-1, -1]) ** torch.tensor([-2, -3])).tolist() == [1, -1]
    assert (2 ** torch.tensor([-1, 2])).tolist() == [0, 4] and (0 ** torch.tensor([-1, 0, 1])).tolist() == [0, 1, 0]
    assert (torch.tensor([1, 2]) ** -2.0).tolist() == [1.0, 0.25]


# ------------------------------------------------------------------ saved indices and factors
def test_max_dim_and_sort_refuse_a_second_backward_and_a_changed_index():
    x = torch.tensor([[1.0, 2.0]], requires_grad=True)
    for make in (lambda: x.max(1)[0], lambda: x.sort(1)[0], lambda: x.median(1).values):
        y = make()
        y.sum().backward()
        assert message(lambda: y.sum().backward()).startswith("RuntimeError: Trying to backward through the graph a second")
    values, indices = x.sort(1)
    indices.add_(1)
    assert message(lambda: values.sum().backward()) == (
        "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: "
        "[torch.LongTensor [1, 2]] is at version 1; expected version 0 instead. Hint: enable anomaly detection to find "
        "the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")


def test_a_product_saves_a_factor_only_for_the_others_gradient():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x * 1
    out = y @ torch.tensor([1.0, 1.0])   # MvBackward0 needs the vector only
    with torch.no_grad():
        y.mul_(2)
    out.sum().backward()   # PyTorch 2.13: no error
    assert x.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    v = torch.tensor([1.0, 2.0], requires_grad=True)
    w = v * 1
    out = w @ torch.tensor([3.0, 4.0])
    w.zero_()
    out.backward()
    assert v.grad.tolist() == [3.0, 4.0]


# ------------------------------------------------------------------ the everyday methods
def test_argsort_is_sorts_indices():
    x = torch.tensor([[3.0, 1.0, NAN, 2.0], [1.0, 1.0, 0.0, -1.0]])
    assert x.argsort().tolist() == [[1, 3, 0, 2], [3, 2, 0, 1]]
    assert torch.argsort(x, 1, True).tolist() == [[2, 0, 3, 1], [0, 1, 2, 3]]
    assert x.argsort(dim=0, stable=True).tolist() == [[1, 0, 1, 1], [0, 1, 0, 0]]
    assert message(lambda: torch.tensor([1.0]).argsort(2)) == (
        "IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 2)")


def test_scatter_writes_where_the_index_says_and_its_gradients():
    x = torch.zeros(2, 4, requires_grad=True)
    src = torch.arange(1.0, 5.0).view(2, 2).requires_grad_()
    y = x.scatter(1, torch.tensor([[0, 1], [2, 3]]), src)
    assert y.tolist() == [[1.0, 2.0, 0.0, 0.0], [0.0, 0.0, 3.0, 4.0]] and y.grad_fn.name() == "ScatterBackward0"
    y.backward(torch.tensor([[INF, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, NAN]]))
    assert values(x.grad) == [["0.0", "0.0", "3.0", "4.0"], ["5.0", "6.0", "0.0", "0.0"]]
    assert values(src.grad) == [["inf", "2.0"], ["7.0", "nan"]]
    y = torch.zeros(2, 4).scatter(1, torch.tensor([[0, 1, 2, 3, 0]]), 1.0)   # only the rows the index has
    assert y.tolist() == [[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]]
    z = torch.zeros(3, requires_grad=True) * 1
    z.scatter_(0, torch.tensor([1]), 7.0)
    assert z.grad_fn.name() == "ScatterBackward1" and z.tolist() == [0.0, 7.0, 0.0]


@pytest.mark.parametrize("call, expected", [
    (lambda x: x.scatter(1, torch.tensor([[0, 5]]), 1.0), "RuntimeError: index 5 is out of bounds for dimension 1 with size 4"),
    (lambda x: x.scatter(1, torch.tensor([[0.0]]), 1.0), "RuntimeError: scatter(): Expected dtype int32/int64 for index"),
    (lambda x: x.scatter(1, torch.tensor([0]), 1.0),
     "RuntimeError: Index tensor must have the same number of dimensions as self tensor"),
    (lambda x: x.scatter(1, torch.tensor([[0, 1]]), torch.ones(1, 1)),
     "RuntimeError: Expected index [1, 2] to be no larger than self [2, 4] apart from dimension 1 and to be no larger "
     "size than src [1, 1]"),
    (lambda x: x.scatter(1, torch.tensor([[0, 1]]), torch.ones(1, 2, dtype=torch.float64)),
     "RuntimeError: scatter(): Expected self.dtype to be equal to src.dtype"),
    (lambda x: x.scatter(0, torch.tensor([[0, 1, 2, 3, 0]]), 1.0),
     "RuntimeError: Expected index [1, 5] to be no larger than self [2, 4] apart from dimension 0"),
    (lambda x: x.scatter(1, torch.tensor([[0]]), torch.tensor(2.0)),
     "RuntimeError: Index tensor must have the same number of dimensions as src tensor"),
    (lambda x: x.requires_grad_().scatter_(1, torch.tensor([[0]]), 1.0),
     "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation."),
])
def test_scatter_refuses_as_pytorch(call, expected):
    assert message(lambda: call(torch.zeros(2, 4))) == expected


def test_pow_in_place_is_recorded_as_pow():
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x = a * 1
    x.pow_(2)
    assert x.grad_fn.name() == "PowBackward0" and len(x.grad_fn.next_functions) == 1
    x.sum().backward()
    assert a.grad.tolist() == [2.0, 4.0, 6.0]   # from the values before the write
    e = torch.tensor([2.0, 1.0, 0.5], requires_grad=True)
    x = a * 1
    x.pow_(e)
    assert x.grad_fn.name() == "PowBackward1"
    x = torch.tensor([1, 2])
    assert x.pow_(2).tolist() == [1, 4]
    assert message(lambda: x.pow_(0.5)) == "RuntimeError: result type Float can't be cast to the desired output type Long"
    assert message(lambda: torch.ones(3).pow_(torch.ones(2, 3))) == (
        "RuntimeError: output with shape [3] doesn't match the broadcast shape [2, 3]")


def test_amax_shares_the_gradient_among_ties_by_multiplying_as_pytorch():
    x = torch.tensor([[1.0, 3.0, 3.0], [2.0, 0.0, 2.0]], requires_grad=True)
    y = x.amax(1)
    assert y.grad_fn.name() == "AmaxBackward0"
    y.backward(torch.tensor([INF, 1.0]))
    assert values(x.grad) == [["nan", "inf", "inf"], ["0.5", "0.0", "0.5"]]   # PyTorch 2.13: nan where 0 * inf
    assert torch.amin(x, dim=(0, 1), keepdim=True).grad_fn.name() == "AminBackward0"
    assert message(lambda: torch.zeros(0, 3).amax()) == (
        "RuntimeError: amax(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
        "with the 'dim' argument.")
    assert message(lambda: torch.zeros(0, 3).amin(0)) == "IndexError: amin(): Expected reduction dim 0 to have non-zero size."


def test_median_is_the_lower_middle_value_and_picks_the_first_of_equal_ones():
    x = torch.tensor([[3.0, 1.0, 2.0, 4.0], [1.0, 1.0, 0.0, -1.0]], requires_grad=True)
    y = x.median()
    assert y.item() == 1.0 and y.grad_fn.name() == "MedianBackward0"
    y.backward()
    assert x.grad.view(-1).tolist() == pytest.approx([0, 1 / 3, 0, 0, 1 / 3, 1 / 3, 0, 0])
    result = x.median(1)
    assert result.values.tolist() == [2.0, 0.0] and result.indices.tolist() == [2, 2]
    assert result.values.grad_fn.name() == "MedianBackward1"
    assert torch.median(torch.tensor([2.0, 1.0, 2.0, 2.0]), 0).indices.item() == 0
    assert values(torch.tensor([[3.0, NAN, 2.0]]).median(1).values) == ["nan"]
    assert message(lambda: torch.tensor([True]).median(0)) == "NotImplementedError: \"median_out\" not implemented for 'Bool'"


@given(hnp.arrays(np.float64, st.sampled_from([(5,), (2, 3)]), elements=floats(), unique=True))
@FAST
def test_amax_median_and_scatter_gradients_match_central_differences(array):
    if np.diff(np.sort(array.reshape(-1))).min() < 0.01:
        return   # nearly equal values: a tie within the central differences' step
    check(lambda x: x.amax(-1), lambda x: x.max(axis=-1), array)
    check(lambda x: x.amin(), lambda x: x.min(), array)
    check(lambda x: x.median(), lambda x: np.sort(x.reshape(-1))[(x.size - 1) // 2], array)
    middle = (array.shape[-1] - 1) // 2
    check(lambda x: x.median(-1).values, lambda x: np.sort(x, axis=-1)[..., middle], array)
    index = np.zeros((1,) * array.ndim, dtype=np.int64)

    def scattered(x, src):
        out = x.copy()
        out[(0,) * x.ndim] = src.reshape(-1)[0]   # index 0 along dim 0, at the first place of the other dims
        return out
    check(lambda x, src: x.scatter(0, torch.tensor(index), src), scattered, array, array.reshape(-1)[:1].reshape(index.shape) * 2)
    check(lambda x: (x * 1).pow_(3), lambda x: x ** 3, array)


def test_stride_is_pytorchs():
    x = torch.zeros(2, 3, 4)
    assert x.stride() == (12, 4, 1) and x.stride(0) == 12 and x.stride(-1) == 1
    assert x.transpose(0, 2).stride() == (1, 4, 12) and x[:, ::2].stride() == (12, 8, 1)
    assert torch.zeros(3).expand(2, 3).stride() == (0, 1) and torch.zeros(3, 1).t().stride() == (1, 1)
    assert torch.tensor(1.0).stride() == ()
    assert message(lambda: torch.tensor(1.0).stride(0)) == "IndexError: Dimension specified as 0 but tensor has no dimensions"


def test_inference_mode_runs_as_no_grad():
    x = torch.ones(2, requires_grad=True)
    with torch.inference_mode():
        y = x * 2
        assert torch.is_inference_mode_enabled() and not torch.is_grad_enabled()
    assert not y.requires_grad and not torch.is_inference_mode_enabled()
    with torch.no_grad(), torch.inference_mode(False):
        assert torch.is_grad_enabled()   # PyTorch 2.13: inference_mode(False) turns grad mode on

    @torch.inference_mode
    def bare(a):
        return a * 2

    @torch.inference_mode()
    def called(a):
        return a * 2
    assert not bare(x).requires_grad and not called(x).requires_grad


def test_remainder_method_and_function():
    a = torch.tensor([5.0, 7.0], requires_grad=True)
    assert a.remainder(2).grad_fn.name() == "RemainderBackward0"
    assert a.remainder(torch.tensor([2.0, 3.0])).grad_fn.name() == "RemainderBackward1"
    assert torch.remainder(7, torch.tensor([2.0, 3.0])).tolist() == [1.0, 1.0]
    assert math.isnan(torch.remainder(torch.tensor([5.0]), torch.tensor([0.0])).item())


# ------------------------------------------------------------------ register_buffer
class WithBuffers(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(2, 2)
        self.register_buffer("running", torch.zeros(2))
        self.register_buffer("scratch", torch.ones(1), persistent=False)
        self.w = torch.nn.Parameter(torch.ones(1))


def test_buffers_are_state_but_not_parameters():
    m = WithBuffers()
    assert list(m.state_dict()) == ["w", "running", "lin.weight", "lin.bias"]   # PyTorch 2.13's order
    assert [n for n, _ in m.named_buffers()] == ["running", "scratch"]
    assert [n for n, _ in m.named_parameters()] == ["w", "lin.weight", "lin.bias"]
    m.running = torch.ones(2)
    assert m.state_dict()["running"].tolist() == [1.0, 1.0]
    m.double()
    assert m.running.dtype is torch.float64 and m.scratch.dtype is torch.float64
    m.load_state_dict({**m.state_dict(), "running": torch.full((2,), 3.0)})
    assert m.running.tolist() == [3.0, 3.0]
    del m.running
    assert list(m.state_dict()) == ["w", "lin.weight", "lin.bias"]
    assert sorted(vars(torch.nn.Linear(1, 1))) == ["_modules", "_parameters", "in_features", "out_features", "training"]


@pytest.mark.parametrize("call, expected", [
    (lambda m: m.register_buffer(1, torch.ones(1)), "TypeError: buffer name should be a string. Got int"),
    (lambda m: m.register_buffer("a.b", torch.ones(1)), "KeyError: 'buffer name can\\'t contain \".\"'"),
    (lambda m: m.register_buffer("", torch.ones(1)), "KeyError: 'buffer name can\\'t be empty string \"\"'"),
    (lambda m: m.register_buffer("training", torch.ones(1)), "KeyError: \"attribute 'training' already exists\""),
    (lambda m: m.register_buffer("x", 3),
     "TypeError: cannot assign 'int' object to buffer 'x' (torch Tensor or None required)"),
    (lambda m: (m.register_buffer("x", torch.ones(1)), setattr(m, "x", 3)),
     "TypeError: cannot assign 'int' as buffer 'x' (torch.nn.Buffer, torch.Tensor or None expected)"),
    (lambda m: (m.register_buffer("x", torch.ones(1)), m.register_parameter("x", torch.nn.Parameter(torch.ones(1)))),
     "KeyError: \"attribute 'x' already exists\""),
])
def test_register_buffer_refuses_as_pytorch(call, expected):
    assert message(lambda: call(torch.nn.Module())) == expected


def test_nodes_without_a_derivative_run_as_soon_as_they_are_ready_as_pytorchs():
    x = torch.tensor([-3.0, -3.0], requires_grad=True)
    freed = x * 1
    freed.backward(torch.zeros(2))   # its MulBackward0 is freed: reaching it again raises
    for late in ((x * 1) // 2, 7 % x):   # made after freed, but PyTorch gives these nodes no sequence number
        total = freed * 1 + late * 1
        assert message(lambda: total.sum().backward()).endswith("is not implemented")   # PyTorch 2.13
