"""Reductions and statistics (``minigrad/ops/reduction.py``, ``statistics.py``) against PyTorch 2.13: var and
std without degrees of freedom, prod's saved factors, amax's ties, var_mean's running mean.
"""
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as torch

from helpers import FAST, INF, check, floats, message, values


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


def test_var_mean_warns_about_degrees_of_freedom_like_pytorch():
    with pytest.warns(UserWarning, match=r"^var_mean\(\): degrees of freedom is <= 0\. Correction should be strictly "
                                         r"less than the reduction factor \(input numel divided by output numel\)\.$"):
        torch.var_mean(torch.ones(1), 0)


@pytest.mark.parametrize("function, data, dim, expected", [
    # PyTorch 2.13: (var or std).sum() + 0.5 * mean.sum(), backpropagated
    ("var_mean", [1.0], None, [float("nan")]),
    ("var_mean", [[1.0, 2.0, 3.0]], 0, [[float("nan")] * 3]),
    ("std_mean", [2.0, 2.0, 2.0], None, [0.1666666716337204] * 3),
    ("std_mean", [[2.0, 2.0], [3.0, 5.0]], 1, [[0.25, 0.25], [-0.4571067690849304, 0.9571067690849304]]),
    ("var_mean", [[2.0, 2.0], [3.0, 5.0]], 1, [[0.25, 0.25], [-1.75, 2.25]]),
])
def test_var_mean_and_std_mean_follow_pytorchs_var_and_std_backward_at_the_edges(function, data, dim, expected):
    """No ZeroDivisionError for N - correction <= 0, and std of equal values has the mean's gradient only."""
    x = torch.tensor(data, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # "degrees of freedom is <= 0", as PyTorch warns
        spread, mean = getattr(torch, function)(x) if dim is None else getattr(torch, function)(x, dim)
    (spread.sum() + mean.sum() * 0.5).backward()
    np.testing.assert_allclose(x.grad.tolist(), expected, rtol=1e-6)


@pytest.mark.parametrize("values, mean", [
    ([1.0, -math.inf], -math.inf), ([-math.inf, 1.0], math.nan), ([-math.inf, -math.inf], math.nan),
    ([1.0, 2.0, math.inf], math.inf), ([math.inf, 1.0, 2.0], math.nan), ([1.0, 2.0, 3.0], 2.0),
])
def test_var_mean_with_an_infinity_gives_pytorchs_running_mean(values, mean):
    """Found by the fuzzer (seed 1000): PyTorch's var_mean updates its mean element by element, so an
    infinity followed by a finite value gives nan (x.mean() gives the infinity). Values from PyTorch 2.13."""
    var, got = torch.var_mean(torch.tensor(values))
    assert (math.isnan(got.item()) and math.isnan(mean)) or got.item() == mean
    _, by_rows = torch.var_mean(torch.tensor([values, values[::-1]]), dim=1)
    assert by_rows.shape == (2,)


# ------------------------------------------------------------------ the dtype of sums and products
# PyTorch 2.13 (the OpInfo samples recorded in tests/opinfo/data): an integer or bool sum, cumulative sum
# or product is int64, whatever the input's integer dtype, unless a dtype is given; then it is that dtype.
@pytest.mark.parametrize("dtype", [torch.uint8, torch.int32, torch.bool])
@pytest.mark.parametrize("reduce", [
    lambda x: x.sum(), lambda x: x.sum(0), lambda x: x.sum(0, keepdim=True), lambda x: torch.sum(x, dim=()),
    lambda x: x.prod(), lambda x: x.prod(0), lambda x: x.cumsum(0), lambda x: x.sum_to_size(1),
])
def test_an_integer_or_bool_sum_or_product_is_int64(dtype, reduce):
    out = reduce(torch.tensor([1, 1], dtype=dtype))
    assert out.dtype is torch.int64 and out.reshape(-1).tolist() in ([2], [1], [1, 2])


def test_a_uint8_sum_and_product_count_in_int64_without_wrapping_around():
    x = torch.tensor([200, 100], dtype=torch.uint8)
    assert [x.sum().item(), x.cumsum(0).tolist(), x.prod().item(), x.sum_to_size(1).tolist()] == \
        [300, [200, 300], 20000, [300]]


def test_sum_to_size_of_the_empty_shape_sums_even_a_0_dim_integer_tensor():
    for dtype, value in [(torch.uint8, 5), (torch.int32, -8), (torch.bool, True)]:   # recorded samples
        out = torch.tensor(value, dtype=dtype).sum_to_size(())
        assert out.dtype is torch.int64 and out.item() == int(value)


@pytest.mark.parametrize("reduce, dtype", [
    (lambda x, d: x.prod(1, dtype=d), torch.bool), (lambda x, d: x.prod(dtype=d), torch.bool),
    (lambda x, d: x.cumsum(1, dtype=d), torch.int32), (lambda x, d: x.sum(dtype=d), torch.int32),
    (lambda x, d: x.sum(1, dtype=d), torch.uint8),
])
def test_a_sum_or_product_with_a_dtype_is_computed_and_returned_in_that_dtype(reduce, dtype):
    x = torch.tensor([[1, 1], [0, 1]], dtype=dtype)
    out = reduce(x, dtype)
    assert out.dtype is dtype
    np.testing.assert_array_equal(out.numpy(), reduce(x.to(torch.int64), None).numpy().astype(dtype.numpy))


# ------------------------------------------------------------------ all and any
@pytest.mark.parametrize("reduce", [lambda x: x.all(), lambda x: torch.any(x), lambda x: x.all(0, keepdim=True),
                                    lambda x: torch.any(x, -1)])
def test_all_and_any_of_uint8_stay_uint8_and_of_other_dtypes_are_bool(reduce):
    # PyTorch 2.13 (the recorded OpInfo samples: all and any of uint8 [5, 1] give tensor(1, dtype=torch.uint8))
    out = reduce(torch.tensor([5, 1], dtype=torch.uint8))
    assert out.dtype is torch.uint8 and out.reshape(-1).tolist() == [1]
    for dtype in [torch.int32, torch.int64, torch.float32, torch.bool]:
        out = reduce(torch.tensor([5, 1]).to(dtype))
        assert out.dtype is torch.bool and out.reshape(-1).tolist() == [True]
    assert torch.tensor([5, 0], dtype=torch.uint8).all().tolist() == 0


def test_a_float16_sum_is_accumulated_in_float32_and_rounded_once():
    # PyTorch 2.13 (the recorded float16 OpInfo sample 9 of sum, dim=0, two of its columns): adding in
    # float16 would round after each step and give 0.2383 and 0.05078
    x = torch.tensor([[-8.4765625, -4.32421875], [3.611328125, -0.57373046875], [5.10546875, 4.94921875]],
                     dtype=torch.float16)
    for out in [x.sum(0), x.sum(0, keepdim=True)[0], x.sum_to_size(1, 2)[0], x.cumsum(0)[-1]]:
        assert out.dtype is torch.float16 and out.tolist() == [0.240234375, 0.05126953125]
