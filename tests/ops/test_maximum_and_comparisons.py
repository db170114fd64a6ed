"""torch.max/min(a, b) and maximum/minimum (element-wise, MaximumBackward0), and the function forms of
the comparisons, as PyTorch 2.13 behaves; gradients against central differences."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as torch
from minigrad.autograd import gradcheck, gradgradcheck
from helpers import message


def test_maximum_shares_the_gradient_at_ties():
    a = torch.tensor([1.0, 5.0, 3.0], requires_grad=True)
    b = torch.tensor([2.0, 4.0, 3.0], requires_grad=True)
    y = torch.max(a, b)
    y.sum().backward()
    assert y.tolist() == [2.0, 5.0, 3.0] and y.grad_fn.name() == "MaximumBackward0"
    assert a.grad.tolist() == [0.0, 1.0, 0.5] and b.grad.tolist() == [1.0, 0.0, 0.5]
    a.grad = b.grad = None
    y = torch.min(a, b)
    y.sum().backward()
    assert y.tolist() == [1.0, 4.0, 3.0] and y.grad_fn.name() == "MinimumBackward0"
    assert a.grad.tolist() == [1.0, 0.0, 0.5] and b.grad.tolist() == [0.0, 1.0, 0.5]
    assert a.max(b).grad_fn.name() == "MaximumBackward0" and torch.minimum(a, b).tolist() == [1.0, 4.0, 3.0]
    assert a.maximum(b).tolist() == [2.0, 5.0, 3.0]


def test_maximum_promotes_broadcasts_and_keeps_nan():
    assert torch.max(torch.tensor([1, 5]), torch.tensor([2.0, 3.0])).tolist() == [2.0, 5.0]
    assert torch.max(torch.ones(2, 3), torch.ones(3)).shape == (2, 3)
    y = torch.maximum(torch.tensor([float("nan"), 1.0]), torch.tensor([0.0, float("nan")]))
    assert np.isnan(y.numpy()).all()
    assert torch.maximum(torch.tensor([True, False]), torch.tensor([False, False])).tolist() == [True, False]
    assert torch.max(torch.tensor([1.0, 5.0, 3.0]), torch.tensor([True, False, True])).tolist() == [1.0, 5.0, 3.0]


@pytest.mark.parametrize("call, expected", [
    (lambda a: torch.max(a, 2.0), "TypeError: max() received an invalid combination of arguments - got (Tensor, float), "
     "but expected one of:\n * (Tensor input, *, Tensor out = None)\n * (Tensor input, Tensor other, *, Tensor out = "
     "None)\n * (Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)\n"),
    (lambda a: a.min(2.0), "TypeError: min() received an invalid combination of arguments - got (float), but "
     "expected one of:\n * ()\n      didn't match because some of the arguments have invalid types: (!float!)\n * "
     "(Tensor other)\n      didn't match because some of the arguments have invalid types: (!float!)\n * (int dim, "
     "bool keepdim = False)\n"),
    (lambda a: torch.maximum(a, 2.0), "TypeError: maximum(): argument 'other' (position 2) must be Tensor, not float"),
    (lambda a: torch.max(torch.ones(2, 3), torch.ones(2)), "RuntimeError: The size of tensor a (3) must match the size "
     "of tensor b (2) at non-singleton dimension 1"),
])
def test_refusals(call, expected):
    assert message(lambda: call(torch.tensor([1.0, 5.0, 3.0]))) == expected


@settings(max_examples=10, deadline=None)
@given(hnp.arrays(np.float64, (2, 3), elements=st.floats(-3, 3)), hnp.arrays(np.float64, (3,), elements=st.floats(-3, 3)))
def test_gradients_against_central_differences(x, y):
    if np.min(np.abs(x - y)) < 1e-3:   # away from ties, where the function has no derivative
        return
    a, b = torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True)
    assert gradcheck(torch.maximum, (a, b)) and gradcheck(torch.minimum, (a, b))
    assert gradgradcheck(lambda a, b: torch.max(a, b) * a, (a, b))


@pytest.mark.parametrize("name, expected", [("gt", [False, True]), ("ge", [False, True]), ("lt", [True, False]),
                                            ("le", [True, False]), ("eq", [False, False]), ("ne", [True, True]),
                                            ("greater", [False, True]), ("greater_equal", [False, True]),
                                            ("less", [True, False]), ("less_equal", [True, False]),
                                            ("not_equal", [True, True])])
def test_comparison_functions(name, expected):
    x = torch.tensor([1.0, 2.0])
    assert getattr(torch, name)(x, 1.5).tolist() == expected
    assert getattr(torch, name)(x, torch.tensor([1.5, 1.5])).tolist() == expected
    assert getattr(x, name)(1.5).tolist() == expected


def test_comparison_functions_want_a_tensor_first():
    assert message(lambda: torch.gt(1, torch.tensor([1, 2]))) == (
        "TypeError: gt() received an invalid combination of arguments - got (int, Tensor), but expected one of:\n"
        " * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n")
    assert message(lambda: torch.eq(torch.tensor([1, 2]), None)).startswith(
        "TypeError: eq() received an invalid combination of arguments - got (Tensor, NoneType)")
