"""Reflected operators, bitwise and logical operations, and operands that are no tensor or number,
each as PyTorch 2.13 behaves (values, nodes, edges, error texts observed on it)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as torch
from minigrad.autograd import gradcheck
from helpers import message

FEW = settings(max_examples=10, deadline=None)


def leaves():
    return (torch.tensor([1.0, 2.0], requires_grad=True), torch.tensor([3.0, 4.0], requires_grad=True))


# ----------------------------------------------------------------------------------- rsub
def test_rsub_called_with_a_tensor_gives_both_gradients():
    a, b = leaves()
    y = a.__rsub__(b)                        # b - a
    y.sum().backward()
    assert y.tolist() == [2.0, 2.0] and y.grad_fn.name() == "RsubBackward0"
    assert [node.variable for node, _ in y.grad_fn.next_functions] == [a, b]
    assert a.grad.tolist() == [-1.0, -1.0] and b.grad.tolist() == [1.0, 1.0]


def test_rsub_of_a_number_has_one_edge():
    a, _ = leaves()
    y = 2.0 - a
    assert y.grad_fn.name() == "RsubBackward1" and len(y.grad_fn.next_functions) == 1
    assert a.__rsub__(torch.tensor(2.0)).grad_fn.name() == "RsubBackward0"


def test_torch_rsub_with_alpha():
    a, b = leaves()
    y = torch.rsub(a, b, alpha=2)            # b - 2 a
    y.sum().backward()
    assert y.tolist() == [1.0, 0.0] and y.grad_fn.name() == "RsubBackward0"
    assert a.grad.tolist() == [-2.0, -2.0] and b.grad.tolist() == [1.0, 1.0]
    a.grad = None
    y = torch.rsub(a, 2, alpha=3)            # 2 - 3 a
    y.sum().backward()
    assert y.tolist() == [-1.0, -4.0] and y.grad_fn.name() == "RsubBackward1" and a.grad.tolist() == [-3.0, -3.0]
    assert not hasattr(a, "rsub")   # PyTorch has no such method


@FEW
@given(hnp.arrays(np.float64, (2, 3), elements=st.floats(-3, 3)), hnp.arrays(np.float64, (3,), elements=st.floats(-3, 3)),
       st.sampled_from([1, 2, -0.5]))
def test_rsub_gradients_against_central_differences(x, y, alpha):
    a, b = torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True)
    assert gradcheck(lambda a, b: torch.rsub(a, b, alpha=alpha), (a, b))
    assert gradcheck(lambda a, b: a.__rsub__(b), (a, b))


def test_rsub_refuses_bool_as_pytorch():
    assert message(lambda: torch.tensor([1, 2]).__rsub__(torch.tensor([True, False]))) == (
        "RuntimeError: Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
        "invert a mask, use the `~` or `logical_not()` operator instead.")


@pytest.mark.parametrize("name", ["__radd__", "__rmul__", "__rtruediv__", "__rpow__", "__rmod__", "__rmatmul__"])
def test_every_reflected_operator_called_with_a_tensor_reaches_both_inputs(name):
    a, b = leaves()
    getattr(a, name)(b).sum().backward()
    assert a.grad is not None and b.grad is not None


# ----------------------------------------------------------------------------------- operands
@pytest.mark.parametrize("expression, expected", [
    (lambda t: t + "x", "unsupported operand type(s) for +: 'Tensor' and 'str'"),
    (lambda t: t * None, "unsupported operand type(s) for *: 'Tensor' and 'NoneType'"),
    (lambda t: [1] - t, "unsupported operand type(s) for -: 'list' and 'Tensor'"),
    (lambda t: None - t, "unsupported operand type(s) for -: 'NoneType' and 'Tensor'"),
    (lambda t: t @ 3, "unsupported operand type(s) for @: 'Tensor' and 'int'"),
    (lambda t: 3 @ t, "unsupported operand type(s) for @: 'int' and 'Tensor'"),
    (lambda t: t ** "x", "unsupported operand type(s) for ** or pow(): 'Tensor' and 'str'"),
    (lambda t: "x" ** t, "unsupported operand type(s) for ** or pow(): 'str' and 'Tensor'"),
    (lambda t: t // "x", "unsupported operand type(s) for //: 'Tensor' and 'str'"),
    (lambda t: t % None, "unsupported operand type(s) for %: 'Tensor' and 'NoneType'"),
    (lambda t: t & [1], "unsupported operand type(s) for &: 'Tensor' and 'list'"),
    (lambda t: t < "x", "'<' not supported between instances of 'Tensor' and 'str'"),
    (lambda t: t >= None, "'>=' not supported between instances of 'Tensor' and 'NoneType'"),
])
def test_an_operand_that_is_no_tensor_or_number_gets_pythons_type_error(expression, expected):
    assert message(lambda: expression(torch.tensor([1, 2]))) == f"TypeError: {expected}"


def test_equality_with_something_else_is_false_and_a_reflected_method_gets_its_turn():
    t = torch.tensor([1, 2])
    assert (t == "x") is False and (t != None) is True   # noqa: E711

    class Other:
        def __radd__(self, tensor):
            return "Other.__radd__"

    assert t + Other() == "Other.__radd__"
    t = torch.tensor([1.0])
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+=: 'Tensor' and 'str'"):
        t += "x"


# ----------------------------------------------------------------------------------- bitwise
def test_and_or_xor_of_integers_are_bitwise():
    i, j = torch.tensor([3, 5, -2]), torch.tensor([5, 1, 7])
    assert (i & j).tolist() == [1, 1, 6] and (i | j).tolist() == [7, 5, -1] and (i ^ j).tolist() == [6, 4, -7]
    assert (3 & i).tolist() == [3, 1, 2] and (3 | i).tolist() == [3, 7, -1] and (3 ^ i).tolist() == [0, 6, -3]
    assert (i.to(torch.int32) & 3).dtype is torch.int32 and (i.to(torch.int32) & j).dtype is torch.int64
    assert (~i.to(torch.int32)).tolist() == [-4, -6, 1]


def test_bool_operands():
    b = torch.tensor([True, False, True])
    assert (b & True).tolist() == [True, False, True] and (True & b).tolist() == [True, False, True]
    assert (b ^ b).tolist() == [False, False, False] and (b ^ True).tolist() == [False, True, False]
    assert (b ^ 1).tolist() == [0, 1, 0] and (b | 2).tolist() == [3, 2, 3] and (b & torch.tensor([3, 5, 7])).tolist() == [1, 0, 1]
    assert (~b).tolist() == [False, True, False] and (b << 1).tolist() == [2, 0, 2]


def test_shifts_as_pytorchs_kernels():
    i = torch.tensor([3, 5, -2])
    assert (i << 1).tolist() == [6, 10, -4] and (i >> 1).tolist() == [1, 2, -1]
    assert (1 << i.abs()).tolist() == [8, 32, 4] and (i << torch.tensor([1, 2, 3], dtype=torch.int32)).tolist() == [6, 20, -16]
    # shifts by a negative amount or by the width of the type or more
    assert (i << 64).tolist() == [0, 0, 0] and (i << -1).tolist() == [0, 0, 0]
    assert (i >> 70).tolist() == [0, 0, -1] and (i >> -1).tolist() == [0, 0, -1]
    assert (i << 63).tolist() == [-2 ** 63, -2 ** 63, 0]
    assert (torch.tensor([200], dtype=torch.uint8) >> 9).tolist() == [0]
    assert (torch.tensor([-3], dtype=torch.int32) >> 40).tolist() == [-1]
    assert (torch.tensor([3], dtype=torch.int32) << 33).tolist() == [0]
    assert torch.bitwise_right_shift(8, i).tolist() == [1, 0, 0] and i.bitwise_left_shift(1).tolist() == [6, 10, -4]


@pytest.mark.parametrize("call, expected", [
    (lambda f, i: f & f, "NotImplementedError: \"bitwise_and_cpu\" not implemented for 'Float'"),
    (lambda f, i: f | 1, "NotImplementedError: \"bitwise_or_cpu\" not implemented for 'Float'"),
    (lambda f, i: f ^ f, "NotImplementedError: \"bitwise_xor_cpu\" not implemented for 'Float'"),
    (lambda f, i: i & 3.0, "NotImplementedError: \"bitwise_and_cpu\" not implemented for 'Float'"),
    (lambda f, i: f << 1, "NotImplementedError: \"lshift_cpu\" not implemented for 'Float'"),
    (lambda f, i: i >> f, "NotImplementedError: \"rshift_cpu\" not implemented for 'Float'"),
    (lambda f, i: (i > 0) << (i > 0), "NotImplementedError: \"lshift_cpu\" not implemented for 'Bool'"),
    (lambda f, i: ~f, "TypeError: ~ (operator.invert) is only implemented on integer and Boolean-type tensors"),
    (lambda f, i: torch.bitwise_not(f), "NotImplementedError: \"bitwise_not_cpu\" not implemented for 'Float'"),
    (lambda f, i: torch.bitwise_and(i, torch.tensor([1, 1, 1, 1])),
     "RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0"),
    (lambda f, i: torch.logical_and(f, 2), "TypeError: logical_and(): argument 'other' (position 2) must be Tensor, not int"),
    (lambda f, i: f.logical_or(2), "TypeError: logical_or(): argument 'other' (position 1) must be Tensor, not int"),
    (lambda f, i: torch.logical_xor(2, i), "TypeError: logical_xor(): argument 'input' (position 1) must be Tensor, not int"),
])
def test_refusals(call, expected):
    f, i = torch.tensor([1.0, 0.0, 2.0], requires_grad=True), torch.tensor([3, 5, -2])
    assert message(lambda: call(f, i)) == expected


def test_in_place_forms_keep_the_dtype_and_move_the_version():
    i = torch.tensor([3, 5, -2])
    j = i
    i &= torch.tensor([True, False, True])
    assert i is j and i.tolist() == [1, 0, 0] and i.dtype is torch.int64 and i._version == 1
    i |= 6
    i ^= 1
    i <<= 1
    i >>= 2
    assert i.tolist() == [3, 3, 3] and i._version == 5
    assert i.bitwise_xor_(torch.tensor(1)).tolist() == [2, 2, 2]
    b = torch.tensor([True, False])
    assert message(lambda: b.__iand__(torch.tensor([1, 0]))) == (
        "RuntimeError: result type Long can't be cast to the desired output type Bool")
    assert message(lambda: torch.tensor([1.0]).__iand__(torch.tensor([1.0]))) == (
        "NotImplementedError: \"bitwise_and_cpu\" not implemented for 'Float'")
    assert message(lambda: torch.tensor([1, 2]).__ior__(torch.tensor([[1], [2]]))) == (
        "RuntimeError: output with shape [2] doesn't match the broadcast shape [2, 2]")


def test_logical_functions():
    i, f, b = torch.tensor([1, 0]), torch.tensor([1.0, 1.0]), torch.tensor([True, False])
    assert torch.logical_xor(i, f).tolist() == [False, True] and torch.logical_or(i, torch.tensor(1)).tolist() == [True, True]
    assert torch.logical_not(torch.tensor(2.5)).tolist() is False and i.logical_not().tolist() == [False, True]
    assert torch.logical_and(f, b).tolist() == [True, False] and f.logical_and(torch.tensor(0.0)).tolist() == [False, False]
    assert torch.bitwise_and(i, 1).tolist() == [1, 0] and torch.bitwise_xor(3, i).tolist() == [2, 3]
    assert torch.bitwise_not(b).tolist() == [False, True]


def test_bitwise_functions_want_a_tensor():
    assert message(lambda: torch.bitwise_and(3, 5)).startswith(
        "TypeError: bitwise_and() received an invalid combination of arguments - got (int, int), but expected one of:")


def test_a_float_tensor_requiring_grad_is_refused_not_combined():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    assert message(lambda: x & x) == "NotImplementedError: \"bitwise_and_cpu\" not implemented for 'Float'"
    assert ((x > 1) & (x < 3)).tolist() == [False, True]
