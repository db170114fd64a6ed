"""In-place operations (``minigrad/ops/inplace.py``) against PyTorch 2.13: the out-of-place node they keep,
their gradients, what an overwritten value receives, the errors of operands that do not fit.
"""
import warnings

import numpy as np
import pytest
from hypothesis import given

import minigrad as torch
import minigrad.nn as nn
import minigrad.nn.functional as F

from helpers import INF, NAN, TEN_EXAMPLES, check_float64, distinct_away_from_zero, message, same, sample_leaf


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


@pytest.mark.parametrize("op", ["add_", "sub_", "mul_", "div_", "copy_"])
def test_an_in_place_operand_that_does_not_fit_gets_pytorchs_errors(op):
    assert message(lambda: getattr(torch.zeros(3), op)(torch.ones(2, 3))) == (
        "RuntimeError: output with shape [3] doesn't match the broadcast shape [2, 3]")
    assert message(lambda: getattr(torch.zeros(3), op)(torch.ones(4))) == (
        "RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0")
    assert message(lambda: getattr(torch.zeros(2, 3), op)(torch.ones(1, 2, 3))) == (
        "RuntimeError: output with shape [2, 3] doesn't match the broadcast shape [1, 2, 3]")


def test_what_a_fill_or_copy_overwrote_gets_zeros_even_for_an_infinite_gradient():
    x0 = torch.tensor([1.0, 2.0], requires_grad=True)
    for write in (lambda y: y.__setitem__(-1, torch.tensor(0.5, dtype=torch.float64)), lambda y: y.fill_(2.0),
                  lambda y: y.copy_(torch.ones(2)), lambda y: y.zero_()):
        y = x0 + 0
        write(y)
        x0.grad = None
        y.backward(torch.tensor([NAN, INF]))
        assert same(x0.grad, [NAN, 0.0] if y.grad_fn.name() == "torch::autograd::CopySlices" else [0.0, 0.0])


def test_in_place_unary_ops_keep_the_out_of_place_node_and_the_right_gradient():
    expected = {   # name: (node, values after, x.grad), from PyTorch 2.13 with x = [0.5, 1.5, -0.3]
        "exp_": ("ExpBackward0", [1.6487, 4.4817, 0.7408], [1.6487, 4.4817, 0.7408]),
        "log_": ("LogBackward0", [-0.6931, 0.4055, float("nan")], [2.0, 0.6667, -3.3333]),
        "sin_": ("SinBackward0", [0.4794, 0.9975, -0.2955], [0.8776, 0.0707, 0.9553]),
        "cos_": ("CosBackward0", [0.8776, 0.0707, 0.9553], [-0.4794, -0.9975, 0.2955]),
        "tanh_": ("TanhBackward0", [0.4621, 0.9051, -0.2913], [0.7864, 0.1807, 0.9151]),
        "sigmoid_": ("SigmoidBackward0", [0.6225, 0.8176, 0.4256], [0.2350, 0.1491, 0.2445]),
        "relu_": ("ReluBackward0", [0.5, 1.5, 0.0], [1.0, 1.0, 0.0]),
        "abs_": ("AbsBackward0", [0.5, 1.5, 0.3], [1.0, 1.0, -1.0]),
        "neg_": ("NegBackward0", [-0.5, -1.5, 0.3], [-1.0, -1.0, -1.0]),
        "sign_": ("SignBackward0", [1.0, 1.0, -1.0], [0.0, 0.0, 0.0]),
    }
    for name, (node, values, grad) in expected.items():
        x = sample_leaf([0.5, 1.5, -0.3])
        y = x * 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert getattr(y, name)() is y
        assert y.grad_fn.name() == node and y._version == 1
        assert np.allclose(y.tolist(), values, atol=1e-4, equal_nan=True), name
        y.sum().backward()
        assert np.allclose(x.grad.tolist(), grad, atol=1e-4), name
    x = sample_leaf([0.5, 1.5, 4.0])
    y = x * 1
    y.sqrt_()
    y.add_(1)   # sqrt_ saved its output, which was changed again: PyTorch refuses at backward
    with pytest.raises(RuntimeError, match="output 0 of Sqrt, is at version 2; expected version 1"):
        y.sum().backward()
    y = x * 1
    y.log_()
    y.add_(1)   # log_ saved a copy of its input: the later change does not matter
    y.sum().backward()
    assert np.allclose(x.grad.tolist(), [2.0, 0.6667, 0.25], atol=1e-4)


def test_in_place_unary_ops_through_a_view_rewrite_the_base_and_keep_pytorchs_errors():
    x = sample_leaf([0.5, 1.5, 4.0])
    y = x * 1
    z = y[1:]
    z.exp_()
    assert y.grad_fn.name() == "torch::autograd::CopySlices" and z.grad_fn.name() == "AsStridedBackward0"
    y.sum().backward()
    assert np.allclose(x.grad.tolist(), [1.0, 4.4817, 54.5981], atol=1e-4)
    errors = [
        (lambda: x.exp_(), RuntimeError, "a leaf Variable that requires grad is being used in an in-place operation."),
        (lambda: torch.ones(1).expand(3).exp_(), RuntimeError,
         "unsupported operation: more than one element of the written-to tensor refers to a single memory location. "
         "Please clone() the tensor before performing the operation."),
        (lambda: torch.tensor([1, 2]).exp_(), RuntimeError, "result type Float can't be cast to the desired output type Long"),
        (lambda: torch.tensor([True]).sqrt_(), RuntimeError, "result type Float can't be cast to the desired output type Bool"),
        (lambda: torch.tensor([True]).neg_(), RuntimeError,
         "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the "
         "`~` or `logical_not()` operator instead."),
        (lambda: torch.tensor([True]).abs_(), NotImplementedError, "\"abs_cpu\" not implemented for 'Bool'"),
        (lambda: torch.tensor([1, 2]).clamp_(0.5, 1.5), RuntimeError,
         "result type Float can't be cast to the desired output type long int"),
        (lambda: torch.ones(2).clamp_(), RuntimeError, "torch.clamp: At least one of 'min' or 'max' must not be None"),
    ]
    for call, error, text in errors:
        with pytest.raises(error) as info:
            call()
        assert str(info.value) == text
    assert torch.tensor([1, -2]).abs_().tolist() == [1, 2] and torch.tensor([1, -2]).sign_().tolist() == [1, -1]
    with torch.no_grad():
        w = torch.ones(2, requires_grad=True)
        assert w.exp_() is w and w._version == 1 and w.requires_grad
    assert torch.exp_(torch.zeros(2)).tolist() == [1.0, 1.0]


def test_relu_inplace_forms_and_hardtanh_match_pytorch():
    x = sample_leaf([-2.0, -1.0, 0.0, 1.0, 2.0])
    for make in (lambda t: F.relu(t, inplace=True), F.relu_, torch.relu_, nn.ReLU(inplace=True)):
        y = x * 1
        assert make(y) is y and y.grad_fn.name() == "ReluBackward0"
    assert repr(nn.ReLU(inplace=True)) == "ReLU(inplace=True)" and repr(nn.ReLU()) == "ReLU()"
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        F.relu(x, inplace=True)
    y = F.hardtanh(x)
    y.sum().backward()
    assert y.tolist() == [-1.0, -1.0, 0.0, 1.0, 1.0] and x.grad.tolist() == [0.0, 0.0, 1.0, 0.0, 0.0]
    assert F.hardtanh(x * 1, inplace=True).grad_fn.name() == "HardtanhBackward0"
    assert repr(nn.Hardtanh()) == "Hardtanh(min_val=-1.0, max_val=1.0)"
    assert repr(nn.Hardtanh(-2, 2, inplace=True)) == "Hardtanh(min_val=-2, max_val=2, inplace=True)"
    assert F.hardtanh(torch.tensor([1, 5]), 0, 2).tolist() == [1, 2]
    with pytest.raises(ValueError, match="^min_val cannot be greater than max_val$"):
        F.hardtanh(x, 2, 1)
    with pytest.raises(RuntimeError, match="^Bool inputs not supported for hardtanh$"):
        F.hardtanh(torch.tensor([True]))


@TEN_EXAMPLES
@given(distinct_away_from_zero((5,)))
def test_in_place_unary_gradients_match_central_differences(array):
    positive = np.abs(array) + 0.5
    for name in ["exp_", "sin_", "cos_", "tanh_", "sigmoid_", "neg_"]:
        check_float64(lambda t: getattr(t * 1, name)(), array)
    for name in ["log_", "sqrt_"]:
        check_float64(lambda t: getattr(t * 1, name)(), positive)
    check_float64(lambda t: (t * 1).abs_(), array)
    check_float64(lambda t: (t * 1).clamp_(-2.5, 2.5), array)   # (distinct_away_from_zero() never comes near +-2.5: no kink)
    check_float64(lambda t: (t * 1).masked_fill_(t > 0, 0.5), array)
    check_float64(lambda t: F.hardtanh(t * 1, -2.5, 2.5, inplace=True), array)


def test_uniform_and_normal_fill_in_place_and_record_a_zero_gradient_node():
    torch.manual_seed(0)
    w = torch.zeros(1000)
    assert w.uniform_(-0.5, 0.5) is w and w._version == 1
    assert -0.5 <= w.min().item() and w.max().item() < 0.5 and abs(w.mean().item()) < 0.05
    assert abs(torch.zeros(1000).normal_(2.0, 0.5).mean().item() - 2.0) < 0.1
    x = torch.ones(3, requires_grad=True)
    y = (x * 2).uniform_()
    assert y.grad_fn.name() == "UniformBackward0" and (x * 1).normal_().grad_fn.name() == "NormalBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("op, alpha, name, other_grad", [
    ("add_", 1, "AddBackward0", 1.0), ("add_", 3, "AddBackward0", 3.0), ("add_", 1.0, "AddBackward0", 1.0),
    ("sub_", 1, "SubBackward0", -1.0), ("sub_", 2, "SubBackward0", -2.0)])
def test_add_and_sub_in_place_keep_pytorchs_node_and_return_one_gradient_per_argument(op, alpha, name, other_grad):
    """``a.add_(b)`` and ``a += b`` give backward two arguments; ``a.add_(b, alpha=k)`` three, k being one."""
    x, w = torch.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    y = x * 1
    getattr(y, op)(w, alpha=alpha)
    node = y.grad_fn
    returned = node.apply(torch.ones(3))   # what backward returned, before the engine's checks
    assert node.name() == name and len(returned) == (2 if type(alpha) is int and alpha == 1 else 3)
    y.sum().backward()
    assert x.grad.tolist() == [1.0] * 3 and w.grad.tolist() == [other_grad] * 3
