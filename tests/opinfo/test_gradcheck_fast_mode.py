"""gradcheck(fast_mode=True): PyTorch's random projection of the Jacobian (``v . J u``).

Each check is run against central differences (slow mode, whole Jacobians) and with wrong backwards:
one off by a factor, one that sends each element's gradient to another element (right in every
sum, so that a projection on all-ones vectors would miss it), one that is right element by element
within the tolerance but whose errors add up in the projection (PyTorch's "might've passed in
slow_mode" note).
"""
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad as torch
from minigrad.autograd import gradcheck, gradgradcheck
from minigrad.autograd.gradcheck import GradcheckError

FUNCTIONS = {
    "tanh of a product": lambda a, b: (a @ b).tanh(),
    "softmax": lambda a, b: (a @ b).softmax(-1),
    "two outputs": lambda a, b: ((a @ b).exp(), (a * a).sum(0)),
    "broadcast and reduce": lambda a, b: (a.unsqueeze(-1) * b.sum(1)).sum(1),
}


def _times_w(backward_rule):
    """y = x * w (w a constant), with the backward ``backward_rule(grad, w)``."""
    class TimesW(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(w)
            return x * w

        @staticmethod
        def backward(ctx, grad):
            return backward_rule(grad, ctx.saved_tensors[0]), None
    return TimesW.apply


def _scaled(factor, permute=False):
    """A backward off by ``factor``, or one that sends each gradient to the mirrored element."""
    return _times_w(lambda grad, w: (grad * w * factor).flip(0) if permute else grad * w * factor)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(sorted(FUNCTIONS)), st.integers(1, 4), st.integers(1, 4), st.integers(1, 3),
       st.integers(0, 2**31 - 1))
def test_fast_mode_agrees_with_slow_mode_on_correct_functions(name, n, k, m, seed):
    rng = np.random.default_rng(seed)
    a = torch.tensor(rng.standard_normal((n, k)), requires_grad=True)
    b = torch.tensor(rng.standard_normal((k, m)), requires_grad=True)
    assert gradcheck(FUNCTIONS[name], (a, b), fast_mode=True)
    assert gradcheck(FUNCTIONS[name], (a, b), fast_mode=False)
    assert gradgradcheck(FUNCTIONS[name], (a, b), fast_mode=True)


def test_a_wrong_factor_is_reported_with_the_projections_and_the_slow_mode_jacobians():
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
    with pytest.raises(GradcheckError) as caught:
        gradcheck(_scaled(1.01), (x, w), fast_mode=True)
    text = str(caught.value)
    assert re.match(r"Jacobian mismatch for output 0 with respect to input 0,\nnumerical:-?\d\.\d+\n"
                    r"analytical:-?\d\.\d+\n\nThe above quantities", text)   # Python floats, as PyTorch prints them
    assert ("computed \nin fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
            "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\nNumerical:\n "
            "tensor([[ 0.5000,  0.0000,  0.0000],") in text
    assert "The max per-element difference (slow mode) is: 0.019999999720444084.\n" in text
    assert "might've passed in slow_mode" not in text   # slow mode fails too
    assert gradcheck(_scaled(1.01), (x, w), fast_mode=True, raise_exception=False) is False
    assert x.grad is None


def test_gradients_sent_to_the_wrong_elements_are_caught_though_every_sum_is_right():
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([1.0, 2.0, 2.0, 1.0], dtype=torch.float64)   # flip(w) == w: the all-ones projection agrees
    wrong = _scaled(1.0, permute=True)
    ones = torch.ones(4, dtype=torch.float64)
    assert torch.equal(torch.autograd.grad(wrong(x, w), x, ones)[0], torch.autograd.grad(x * w, x, ones)[0])
    with pytest.raises(GradcheckError, match="^Jacobian mismatch for output 0 with respect to input 0"):
        gradcheck(wrong, (x, w), fast_mode=True)
    with pytest.raises(GradcheckError, match="^Jacobian mismatch for output 0 with respect to input 0"):
        gradcheck(wrong, (x, w), fast_mode=False)


# w of alternating signs, and a backward off by 5e-4 |w| per element: inside rtol=1e-3 element by
# element, but the errors add up where the projection of the Jacobian cancels.
SIGNED_WITH_BIAS = _times_w(lambda grad, w: grad * w + 5e-4 * grad)


def test_errors_within_the_elementwise_tolerance_that_add_up_get_pytorchs_note():
    x = torch.tensor(np.linspace(1, 2, 100), requires_grad=True)
    w = torch.tensor(np.tile([1.0, -1.0], 50))
    with pytest.raises(GradcheckError) as caught:
        gradcheck(SIGNED_WITH_BIAS, (x, w), fast_mode=True, atol=0.0)
    text = str(caught.value)
    assert "The max per-element difference (slow mode) is: 0.0005000000822665829.\n" in text
    assert "\nFast gradcheck failed but element-wise differences are small. This means that the\ntest might've " \
           "passed in slow_mode!\n\nIf you are adding a new operator" in text
    assert text.endswith("module_test entry to have `gradcheck_fast_mode=False`")
    assert gradcheck(SIGNED_WITH_BIAS, (x, w), fast_mode=False, atol=0.0)


def test_mismatches_count_only_the_inputs_that_require_grad():
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([3.0, 4.0], dtype=torch.float64)
    for fast in (False, True):
        with pytest.raises(GradcheckError, match="^Jacobian mismatch for output 0 with respect to input 0,"):
            gradcheck(lambda a, b: _scaled(1.1)(b, a), (w, x), fast_mode=fast)   # x is argument 1, input 0


def test_a_function_whose_outputs_do_not_require_grad_must_not_depend_on_its_inputs():
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda a: torch.zeros(2, dtype=torch.float64), (x,), fast_mode=True)
    with pytest.raises(GradcheckError, match="^Numerical gradient for function expected to be zero$"):
        gradcheck(lambda a: a.detach() * 2, (x,), fast_mode=True)


def test_an_output_whose_shape_jumps_is_refused_without_an_index():
    x = torch.tensor([0.0, 1.0], dtype=torch.float64, requires_grad=True)
    with pytest.raises(AssertionError, match=r"^Expected `func` to return outputs with the same shape when inputs are "
                       r"perturbed by 1e-06, but got: shapes torch.Size\(\[0\]\) and torch.Size\(\[1\]\).$"):
        gradcheck(lambda a: a[a > 1.0], (x,), fast_mode=True)


@pytest.mark.parametrize("fast_mode", [False, True])
def test_zero_element_inputs_are_checked(fast_mode):
    e = torch.zeros(1, 0, 3, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda a: a * 2, (e,), fast_mode=fast_mode)
    assert gradgradcheck(lambda a: (a * a).sum(1), (e,), fast_mode=fast_mode)


@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradgradcheck_gives_grad_outputs_only_to_outputs_that_carry_gradients(fast_mode):
    x = torch.tensor([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]], dtype=torch.float64, requires_grad=True)
    assert gradgradcheck(lambda a: a.sort(1), (x,), fast_mode=fast_mode)           # values and int64 indices
    assert gradgradcheck(lambda a: a.max(1), (x,), fast_mode=fast_mode)
    assert gradgradcheck(lambda a: a.topk(2, 1), (x,), fast_mode=fast_mode)


def test_fast_mode_leaves_the_users_random_numbers_alone():
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    torch.manual_seed(0)
    expected = torch.rand(3)
    torch.manual_seed(0)
    gradcheck(lambda a: a.exp(), (x,), fast_mode=True)
    assert torch.equal(torch.rand(3), expected)
