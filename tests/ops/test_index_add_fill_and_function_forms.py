"""torch.index_add (out of place) and index_add_'s checks, torch.fill, div_(rounding_mode=), flip(dims=),
an empty index of any dtype, linspace's tensor bounds, and the torch.<name> functions called without a
tensor: as PyTorch 2.13 behaves (values, nodes, texts); gradients against central differences."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as torch
from minigrad.autograd import gradcheck, gradgradcheck
from helpers import message


def test_index_add_out_of_place():
    x, s = torch.zeros(3, 2, requires_grad=True), torch.ones(2, 2, requires_grad=True)
    y = torch.index_add(x, 0, torch.tensor([2, 2]), s, alpha=3)
    y.sum().backward()
    assert y.tolist() == [[0, 0], [0, 0], [6, 6]] and y.grad_fn.name() == "IndexAddBackward0"
    assert [n.name() for n, _ in y.grad_fn.next_functions] == ["torch::autograd::AccumulateGrad"] * 2
    assert x.grad.tolist() == [[1, 1]] * 3 and s.grad.tolist() == [[3, 3], [3, 3]] and x.tolist() == [[0, 0]] * 3
    assert torch.zeros(3, 2).index_add(1, torch.tensor([1]), torch.ones(3, 1)).tolist() == [[0, 1]] * 3
    assert torch.tensor(1.0).index_add(0, torch.tensor(0), torch.tensor(2.0)).item() == 3.0


@settings(max_examples=8, deadline=None)
@given(hnp.arrays(np.float64, (3, 2), elements=st.floats(-2, 2)), hnp.arrays(np.float64, (4, 2), elements=st.floats(-2, 2)))
def test_index_add_gradients(x, source):
    index = torch.tensor([2, 0, 2, 1])
    inputs = (torch.tensor(x, requires_grad=True), torch.tensor(source, requires_grad=True))
    assert gradcheck(lambda x, s: torch.index_add(x, 0, index, s, alpha=-1.5), inputs)
    assert gradgradcheck(lambda x, s: torch.index_add(x, 0, index, s) ** 2, inputs)


@pytest.mark.parametrize("call, expected", [
    (lambda a: a.index_add(0, torch.tensor([0, 1]), torch.ones(2)), "RuntimeError: source tensor shape must match self "
     "tensor shape, excluding the specified dimension. Got self.shape = [3, 2] source.shape = [2]"),
    (lambda a: a.index_add_(0, torch.tensor([0, 1]), torch.ones(2)), "RuntimeError: source tensor shape must match self "
     "tensor shape, excluding the specified dimension. Got self.shape = [3, 2] source.shape = [2]"),
    (lambda a: a.index_add(0, torch.tensor([[0, 1]]), torch.ones(2, 2)), "IndexError: index_add_(): Index is supposed "
     "to be a vector, but got dim: 2 with type: Long and size: [1, 2]"),
    (lambda a: a.index_add(0, torch.tensor([0.0, 1.0]), torch.ones(2, 2)), "RuntimeError: index_add_(): Expected dtype "
     "int32/int64 for index but got: Float"),
    (lambda a: a.index_add(0, torch.tensor([0, 1]), torch.ones(2, 2, dtype=torch.double)), "RuntimeError: index_add_(): "
     "self (Float) and source (Double) must have the same scalar type"),
    (lambda a: a.index_add(0, torch.tensor([0, 1]), torch.ones(3, 2)), "RuntimeError: index_add_(): Number of indices "
     "(2) should be equal to source.size(dim): (3), for dim: 0"),
    (lambda a: a.index_add(0, torch.tensor([0, 5]), torch.ones(2, 2)), "RuntimeError: index 5 is out of bounds for "
     "dimension 0 with size 3"),
    (lambda a: a.index_add(0, torch.tensor([0, -1]), torch.ones(2, 2)), "RuntimeError: index -1 is out of bounds for "
     "dimension 0 with size 3"),
    (lambda a: a.index_add(2, torch.tensor([0, 1]), torch.ones(2, 2)), "IndexError: Dimension out of range (expected to "
     "be in range of [-2, 1], but got 2)"),
    (lambda a: torch.tensor(1.0).index_add(0, torch.tensor([0]), torch.tensor([2.0])), "RuntimeError: source tensor "
     "shape must match self tensor shape, excluding the specified dimension. Got self.shape = [] source.shape = [1]"),
])
def test_index_add_refusals(call, expected):
    assert message(lambda: call(torch.zeros(3, 2))) == expected


def test_fill():
    x = torch.ones(2, requires_grad=True)
    y = torch.fill(x, 3.0)
    assert y.tolist() == [3.0, 3.0] and y.grad_fn.name() == "FillBackward0" and x.tolist() == [1.0, 1.0]
    v = torch.tensor(3.0, requires_grad=True)
    y = torch.fill(x, v)
    y.sum().backward()
    assert y.grad_fn.name() == "FillBackward1" and len(y.grad_fn.next_functions) == 2
    assert v.grad.item() == 2.0 and x.grad.tolist() == [0.0, 0.0]
    assert message(lambda: torch.fill(x, torch.ones(2))) == (
        "RuntimeError: fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions.")


def test_div_in_place_with_a_rounding_mode_and_flip_with_dims():
    assert torch.ones(3).div_(2, rounding_mode="floor").tolist() == [0.0, 0.0, 0.0]
    assert torch.tensor([5.0, -5.0]).div_(2, rounding_mode="trunc").tolist() == [2.0, -2.0]
    x = torch.tensor([5.0, -5.0], requires_grad=True)
    y = x * 1
    y.div_(2, rounding_mode="floor")
    y.sum().backward()
    assert y.grad_fn.name() == "DivBackward2" and x.grad.tolist() == [0.0, 0.0]
    assert message(lambda: torch.ones(2).div_(2, rounding_mode="round")) == (
        "RuntimeError: div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'")
    assert torch.tensor([1.0, 2.0, 3.0]).flip(dims=[0]).tolist() == [3.0, 2.0, 1.0]


def test_an_empty_index_may_have_any_dtype():
    assert torch.ones(3).gather(0, torch.tensor([], dtype=torch.uint8)).tolist() == []


def test_linspace_bounds_as_tensors():
    assert torch.linspace(torch.tensor(1.0), torch.tensor(2.0), 3).tolist() == [1.0, 1.5, 2.0]
    assert message(lambda: torch.linspace(torch.tensor([1.0]), torch.tensor([2.0]), 3)) == (
        "RuntimeError: linspace only supports 0-dimensional start and end tensors, but got start with 1 dimension(s) "
        "and end with 1 dimension(s).")


@pytest.mark.parametrize("call, expected", [
    (lambda: torch.sin(1), "TypeError: sin(): argument 'input' (position 1) must be Tensor, not int"),
    (lambda: torch.exp(2.0), "TypeError: exp(): argument 'input' (position 1) must be Tensor, not float"),
    (lambda: torch.sum(1), "TypeError: sum(): argument 'input' (position 1) must be Tensor, not int"),
    (lambda: torch.relu("a"), "TypeError: relu(): argument 'input' (position 1) must be Tensor, not str"),
    (lambda: torch.isclose(1, torch.ones(1)), "TypeError: isclose(): argument 'input' (position 1) must be Tensor, not int"),
    (lambda: torch.gather(1, 0, torch.tensor([0])), "TypeError: gather(): argument 'input' (position 1) must be Tensor, "
                                                    "not int"),
])
def test_functions_called_without_a_tensor(call, expected):
    assert message(call) == expected


@pytest.mark.parametrize("call, got", [
    (lambda: torch.pow(1, 2), "pow() received an invalid combination of arguments - got (int, int)"),
    (lambda: torch.remainder(1, 2), "remainder() received an invalid combination of arguments - got (int, int)"),
    (lambda: torch.clamp(1), "clamp() received an invalid combination of arguments - got (int)"),
    (lambda: torch.max(1, torch.ones(1)), "max() received an invalid combination of arguments - got (int, Tensor)"),
    (lambda: torch.min(1, 2), "min() received an invalid combination of arguments - got (int, int)"),
    (lambda: torch.max(torch.ones(1), torch.ones(1), 0), "max() received an invalid combination of arguments - got "
                                                         "(Tensor, Tensor, int)"),
])
def test_overloaded_functions_called_without_a_tensor(call, got):
    assert message(call).startswith(f"TypeError: {got}, but expected one of:")


def test_add_sub_mul_div_take_two_numbers():
    assert torch.add(1, 2).tolist() == 3 and torch.sub(1, 2).tolist() == -1 and torch.mul(1, 2).tolist() == 2
    assert torch.div(1, 2).tolist() == 0.5 and torch.add(1, 2.5).dtype is torch.float32


def test_zero_dim_and_empty_corners():
    x, s = torch.tensor(1.0, requires_grad=True), torch.tensor(2.0, requires_grad=True)
    y = x.index_add(0, torch.tensor([0]), s, alpha=-1)
    y.backward()
    assert y.item() == -1.0 and x.grad.item() == 1.0 and s.grad.item() == -1.0
    a = torch.arange(5.0, requires_grad=True)
    g = torch.gather(a, 0, torch.zeros(2, 0, dtype=torch.uint8))   # an empty index of another shape
    g.sum().backward()
    assert g.shape == (2, 0) and a.grad.tolist() == [0.0] * 5
    z = torch.tensor(3.0, requires_grad=True) * 1
    assert z.transpose_(0, 0).item() == 3.0 and z.grad_fn.name() == "TransposeBackward1"
    assert message(lambda: torch.rsub(1, torch.ones(2))).startswith(
        "TypeError: rsub() received an invalid combination of arguments - got (int, Tensor), but expected one of:")


def test_index_add_with_a_negative_alpha_wraps_around_for_uint8():
    # PyTorch 2.13 (the recorded uint8 OpInfo samples 0 and 3): 5 + (-1) * 1 is 4; alpha -1 is 255
    for shape in [(), (1,)]:
        a, source = torch.tensor(5, dtype=torch.uint8).reshape(shape), torch.tensor(1, dtype=torch.uint8).reshape(shape)
        for out in [a.index_add(0, torch.tensor([0]), source, alpha=-1),
                    a.clone().index_add_(0, torch.tensor([0]), source, alpha=-1)]:
            assert out.dtype is torch.uint8 and out.reshape(-1).tolist() == [4]
    assert message(lambda: torch.tensor([5], dtype=torch.uint8).index_add(
        0, torch.tensor([0]), torch.tensor([1], dtype=torch.uint8), alpha=-256)) == \
        "RuntimeError: value cannot be converted to type uint8_t without overflow"
    # an integer index_add truncates a float alpha, where add refuses it (PyTorch 2.13: [3, 2])
    assert torch.tensor([1, 2]).index_add(0, torch.tensor([0]), torch.tensor([1]), alpha=2.5).tolist() == [3, 2]


@pytest.mark.parametrize("make, expected", [   # PyTorch 2.13: a number converted as any Scalar
    (lambda: torch.fill(torch.tensor([5, 1], dtype=torch.uint8), -1), [255, 255]),
    (lambda: torch.tensor([5, 1], dtype=torch.uint8).fill_(-1), [255, 255]),
    (lambda: torch.tensor([1, 2]).fill_(2.5), [2, 2]),
    (lambda: torch.tensor([5, 1], dtype=torch.uint8).masked_fill(torch.tensor([True, False]), -1), [255, 1]),
    (lambda: torch.tensor([5, 1], dtype=torch.uint8).masked_fill_(torch.tensor([True, False]), -1), [255, 1]),
    (lambda: torch.tensor([1, 2]).masked_fill(torch.tensor([False, True]), 2.5), [1, 2]),
])
def test_fill_and_masked_fill_convert_the_number_to_the_tensors_dtype(make, expected):
    assert make().tolist() == expected


@pytest.mark.parametrize("make", [
    lambda: torch.tensor([1, 2]).fill_(float("nan")),
    lambda: torch.tensor([1, 2]).masked_fill(torch.tensor([False, True]), float("nan")),
])
def test_a_nan_fill_of_an_integer_tensor_is_pytorchs_error(make):
    assert message(make) == "RuntimeError: value cannot be converted to type int64_t without overflow"
