"""Arithmetic and comparisons (``minigrad/ops/arithmetic.py``) against PyTorch 2.13: node names, saved
operands, integer and bool rules, rounding modes, remainder.
"""
import math

import pytest

import minigrad as torch

from helpers import INF, message


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


def test_remainder_method_and_function():
    a = torch.tensor([5.0, 7.0], requires_grad=True)
    assert a.remainder(2).grad_fn.name() == "RemainderBackward0"
    assert a.remainder(torch.tensor([2.0, 3.0])).grad_fn.name() == "RemainderBackward1"
    assert torch.remainder(7, torch.tensor([2.0, 3.0])).tolist() == [1.0, 1.0]
    assert math.isnan(torch.remainder(torch.tensor([5.0]), torch.tensor([0.0])).item())


def test_remainder_records_pytorchs_nodes():
    a = torch.tensor([1., 2.], requires_grad=True)
    assert [(r.grad_fn.name(), len(r.grad_fn.next_functions)) for r in (a % 1.5, a % torch.tensor(1.5), 3 % a)] == [
        ("RemainderBackward0", 1), ("RemainderBackward1", 2), ("torch::autograd::NotImplemented", 1)]
    assert message(lambda: (3 % a).sum().backward()) == "RuntimeError: derivative for aten::remainder is not implemented"


def test_tensor_power_gradients_are_zero_where_pytorch_masks_them():
    a = torch.tensor([0.0, 2.0], requires_grad=True)
    b = torch.tensor([0.0, 1.0], requires_grad=True)
    (a ** b).sum().backward()
    # PyTorch 2.13: d/da is 0 where b == 0 (not 0 * 0 ** -1 = nan); d/db is 0 where a == 0 (not 1 * log 0)
    assert a.grad.tolist() == [0.0, 1.0]
    assert b.grad.tolist()[0] == 0.0 and abs(b.grad.tolist()[1] - 1.3862943649291992) < 1e-6


def test_comparing_a_tensor_with_none_gives_false_or_true_as_in_pytorch():
    t = torch.ones(2)
    assert (t == None) is False and (t != None) is True   # noqa: E711 - the comparison is the point
    assert (None == t) is False and (None != t) is True   # noqa: E711


# ------------------------------------------------------------------ alpha converted to the result's dtype
# PyTorch 2.13 (the uint8 OpInfo samples recorded in tests/opinfo/data, first rows): a negative alpha
# wraps around for uint8 (-3 is 253), as PyTorch converts any number to an unsigned dtype.
@pytest.mark.parametrize("op, expected", [
    (torch.add, [255, 254, 235, 255, 0]), (torch.sub, [11, 4, 33, 11, 12]), (torch.rsub, [17, 4, 27, 17, 20]),
    (lambda a, b, alpha: a.clone().add_(b, alpha=alpha), [255, 254, 235, 255, 0]),
    (lambda a, b, alpha: a.clone().sub_(b, alpha=alpha), [11, 4, 33, 11, 12]),
])
def test_a_negative_alpha_wraps_around_for_uint8_as_pytorch(op, expected):
    a = torch.tensor([5, 1, 6, 5, 6], dtype=torch.uint8)
    b = torch.tensor([2, 1, 9, 2, 2], dtype=torch.uint8)
    out = op(a, b, alpha=-3)
    assert out.dtype is torch.uint8 and out.tolist() == expected


@pytest.mark.parametrize("make, text", [   # PyTorch 2.13's texts
    (lambda: torch.add(torch.tensor([5], dtype=torch.uint8), torch.tensor([1], dtype=torch.uint8), alpha=-256),
     "value cannot be converted to type uint8_t without overflow"),
    (lambda: torch.sub(torch.tensor([5], dtype=torch.uint8), torch.tensor([1], dtype=torch.uint8), alpha=256),
     "value cannot be converted to type uint8_t without overflow"),
    (lambda: torch.add(torch.tensor([1]), torch.tensor([1]), alpha=2.5),
     "For integral input tensors, argument alpha must not be a floating point number."),
    (lambda: torch.tensor([1]).add_(torch.tensor([1]), alpha=1.0),
     "For integral input tensors, argument alpha must not be a floating point number."),
    (lambda: torch.rsub(torch.tensor([1]), 3, alpha=2.5),
     "For integral input tensors, argument alpha must not be a floating point number."),
    (lambda: torch.add(torch.tensor([1.0]), torch.tensor([1.0]), alpha=True),
     "Boolean alpha only supported for Boolean results."),
])
def test_an_alpha_the_result_dtype_cannot_hold_is_pytorchs_error(make, text):
    with pytest.raises(RuntimeError) as caught:
        make()
    assert str(caught.value) == text


def test_a_float_alpha_is_fine_when_the_result_is_floating_point():
    out = torch.add(torch.tensor([1, 2]), torch.tensor([1.0, 2.0]), alpha=2.5)   # PyTorch 2.13: [3.5, 7.0]
    assert out.dtype is torch.float32 and out.tolist() == [3.5, 7.0]


def test_a_subclass_of_float_or_int_is_a_number_operand():
    """PyTorch reads any float or int (PyFloat_Check, subclasses included) as a wrapped number."""
    class Scale(float):
        pass

    class Count(int):
        pass

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * Scale(2.5) + Count(3)
    assert y.tolist() == [5.5, 8.0] and y.dtype == torch.float32
    y.sum().backward()
    assert x.grad.tolist() == [2.5, 2.5]
    assert (torch.tensor([1, 2]) * Count(3)).dtype == torch.int64
