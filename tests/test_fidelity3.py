"""Fidelity 3 (issue 21): gradients that were silently wrong, and behaviours PyTorch has that minigrad
lacked. Every number, node name, exception type and text below was observed on PyTorch 2.13 (CPU).

Each section names the class of bug it covers, not only the line that revealed it:

- a gradient handed to an in-place op's backward inside ``CopySlices`` was a view of the buffer
  ``CopySlices`` then overwrites (``y[3] = v`` on a non-leaf gave ``v.grad == 0``);
- backward formulas at the edges of their domain (``0 ** b``, ``x ** 0.5`` at ``-0.0``, relu and elu
  at nan, masks written as a multiplication that turn an infinite gradient into nan).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad as torch
from minigrad.autograd import gradcheck

INF, NAN = math.inf, math.nan


def message(call) -> str:
    with pytest.raises(Exception) as caught:
        call()
    return f"{type(caught.value).__name__}: {caught.value}"


def same(t, expected) -> bool:
    """Values equal to PyTorch's, nan where it has nan, and the same sign of every zero."""
    a, b = np.asarray(t.detach().numpy(), np.float64), np.asarray(expected, np.float64)
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=True) and \
        np.array_equal(np.signbit(a), np.signbit(b))


# ------------------------------------------------------------------ x[key] = value, value requiring grad
def test_a_value_written_into_one_element_of_a_non_leaf_gets_its_gradient():
    y = torch.ones(5, requires_grad=True) + 2
    v = torch.tensor(7., requires_grad=True)
    y[3] = v
    y.sum().backward()
    assert v.grad.item() == 1.0   # PyTorch 2.13: tensor(1.)  (minigrad gave tensor(0.))


def test_copy_slices_gives_the_op_its_own_copy_of_the_gradient():
    # copy_'s backward returns the gradient it got for its source: if that were a view of the
    # buffer CopySlices overwrites with zeros afterwards, the source would get zeros
    y = torch.zeros(2, 3, requires_grad=True) * 1
    v = torch.tensor(2., requires_grad=True)
    y[1, 2].copy_(v)
    (y * torch.arange(6.).view(2, 3)).sum().backward()
    assert v.grad.item() == 5.0


KEYS = {   # for a base of shape (2, 3): (key, shape of what it selects)
    "int": (0, (3,)), "two ints": ((1, 2), ()), "column": ((slice(None), 1), (2,)), "slice": (slice(0, 1), (1, 3)),
    "ellipsis int": ((Ellipsis, 0), (2,)), "None int": ((None, 0), (1, 3)), "everything": (slice(None), (2, 3)),
    "int array": (torch.tensor([1, 0]), (2, 3)), "mask": (torch.tensor([[True, False, True], [False, True, False]]), (3,)),
    "int and array": ((0, torch.tensor([2, 0])), (2,)), "negative int": ((-1, -1), ()),
}


@settings(max_examples=60, deadline=None)
@given(key_name=st.sampled_from(sorted(KEYS)), value_form=st.sampled_from(["same", "0-dim", "last dim", "leading ones"]),
       base_form=st.sampled_from(["mul", "clone", "view of clone"]))
def test_writing_a_value_that_requires_grad_gives_both_tensors_their_gradients(key_name, value_form, base_form):
    """Checked against central differences: d/d(source) and d/d(value) of a weighted sum after the write."""
    key, selected = KEYS[key_name]
    shape = {"same": selected, "0-dim": (), "last dim": selected[-1:], "leading ones": (1, 1) + selected}[value_form]
    source = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
    value = torch.randn(*shape, dtype=torch.float64, requires_grad=True)
    weights = torch.randn(2, 3, dtype=torch.float64)

    def f(source, value):
        if base_form == "view of clone":
            y = source.clone().view(2, 3)
        else:
            y = source * 1.0 if base_form == "mul" else source.clone()
        y[key] = value
        return (y * weights).sum()
    assert gradcheck(f, (source, value))


def test_the_value_is_viewed_and_expanded_as_in_pytorch():
    src = torch.zeros(2, 3, requires_grad=True)

    def graph(key, shape):
        y = src * 1
        y[key] = torch.ones(shape, requires_grad=True)
        return [(n.name(), [m.name() if m else None for m, _ in n.next_functions])
                for n, _ in y.grad_fn.next_functions if n is not None]
    mul = ("MulBackward0", ["torch::autograd::AccumulateGrad", None])
    acc = "torch::autograd::AccumulateGrad"
    # PyTorch 2.13's graphs: leading ones are viewed away, a smaller value is expanded, a 0-dim one fills
    assert graph(0, (1, 1, 3)) == [mul, ("ViewBackward0", [acc])]
    assert graph(slice(None), (3,)) == [mul, ("ExpandBackward0", ["ViewBackward0"])]
    assert graph((0, 1), ()) == [mul, (acc, [])]   # no Expand node
    assert graph(torch.tensor([1, 0]), (1, 3)) == [mul, ("ViewBackward0", [acc])]


def test_a_value_of_the_wrong_shape_gets_pytorchs_errors_not_numpys():
    y = torch.zeros(2, 3) * 1
    assert message(lambda: y.__setitem__(0, torch.ones(4))) == (
        "RuntimeError: The expanded size of the tensor (3) must match the existing size (4) at non-singleton "
        "dimension 0.  Target sizes: [3].  Tensor sizes: [4]")
    assert message(lambda: y.__setitem__(torch.tensor([0, 1]), torch.ones(4))) == (
        "RuntimeError: shape mismatch: value tensor of shape [4] cannot be broadcast to indexing result of shape [2, 3]")
    assert message(lambda: y.__setitem__(slice(None), torch.ones(2, 1, 3))) == (
        "RuntimeError: expand(torch.FloatTensor{[2, 1, 3]}, size=[2, 3]): the number of sizes provided (2) must be "
        "greater or equal to the number of dimensions in the tensor (3)")
    y[0] = torch.ones(1, 1, 3)   # leading ones are allowed
    assert y[0].tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("op", ["add_", "sub_", "mul_", "div_", "copy_"])
def test_an_in_place_operand_that_does_not_fit_gets_pytorchs_errors(op):
    assert message(lambda: getattr(torch.zeros(3), op)(torch.ones(2, 3))) == (
        "RuntimeError: output with shape [3] doesn't match the broadcast shape [2, 3]")
    assert message(lambda: getattr(torch.zeros(3), op)(torch.ones(4))) == (
        "RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0")
    assert message(lambda: getattr(torch.zeros(2, 3), op)(torch.ones(1, 2, 3))) == (
        "RuntimeError: output with shape [2, 3] doesn't match the broadcast shape [1, 2, 3]")


def test_a_0_dim_tensor_changed_in_place_while_views_of_it_are_in_the_graph():
    # PyTorch 2.13's numbers for each program (minigrad raised NotImplementedError)
    x = torch.tensor(2., requires_grad=True)
    y = x * 1
    v = y.expand(3)
    y.mul_(2)
    assert v.grad_fn.name() == "AsStridedBackward0" and v.tolist() == [4.0, 4.0, 4.0]
    (v * torch.tensor([1., 2., 3.])).sum().backward()
    assert x.grad.item() == 12.0

    x = torch.tensor(2., requires_grad=True)
    y = x * 1
    v = y.expand(3)
    y.view(1).mul_(3)
    assert y.grad_fn.name() == "torch::autograd::CopySlices" and repr(y) == "tensor(6., grad_fn=<CopySlices>)"
    (v * torch.tensor([1., 2., 3.])).sum().backward()
    assert x.grad.item() == 18.0

    x, w = torch.tensor(2., requires_grad=True), torch.tensor(3., requires_grad=True)
    y = x * 1
    y[...].copy_(w)
    y.backward()
    assert (x.grad.item(), w.grad.item()) == (0.0, 1.0)

    x = torch.tensor(2., requires_grad=True)
    y = x * 1
    v = y[None]
    v.mul_(5)
    (y + v.sum()).backward()
    assert x.grad.item() == 10.0 and repr(v) == "tensor([10.], grad_fn=<AsStridedBackward0>)"
