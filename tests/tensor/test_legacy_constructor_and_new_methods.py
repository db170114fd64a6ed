"""torch.Tensor(...) as a constructor, and the tensor methods real programs reach for: repeat,
repeat_interleave, select, transpose_, softmax(dtype=), as PyTorch 2.13 behaves."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as torch
from minigrad.autograd import gradcheck, gradgradcheck
from helpers import message


def chain(t) -> list:
    names, node = [], t.grad_fn
    while node is not None:
        names.append(node.name())
        node = node.next_functions[0][0] if node.next_functions else None
    return names


# ------------------------------------------------------------------ torch.Tensor(...)
def test_the_legacy_constructor():
    assert torch.Tensor(2, 3).shape == (2, 3) and torch.Tensor(2, 3).dtype is torch.float32
    assert torch.Tensor([1, 2]).tolist() == [1.0, 2.0] and torch.Tensor([[1, 2], [3, 4]]).dtype is torch.float32
    assert torch.Tensor().shape == (0,) and torch.Tensor((2, 3)).tolist() == [2.0, 3.0]
    assert torch.Tensor(torch.Size([2])).shape == (2,) and torch.Tensor([1.5, True]).tolist() == [1.5, 1.0]
    source = torch.tensor([1, 2])
    assert torch.Tensor(source).dtype is torch.int64 and not torch.Tensor([1, 2]).requires_grad
    assert torch.FloatTensor(2, 3).shape == (2, 3) and torch.LongTensor([1, 2]).tolist() == [1, 2]
    assert isinstance(torch.Tensor(3).fill_(1.0), torch.Tensor) and torch.Tensor(2, 3).uniform_(-1, 1).shape == (2, 3)
    assert isinstance(torch.ones(2), torch.FloatTensor) and not isinstance(torch.ones(2, dtype=torch.long), torch.FloatTensor)


@pytest.mark.parametrize("call, expected", [
    (lambda: torch.Tensor(2.5), "TypeError: new(): data must be a sequence (got float)"),
    (lambda: torch.Tensor(-1), "RuntimeError: Trying to create tensor with negative dimension -1: [-1]"),
    (lambda: torch.Tensor("a"), "TypeError: new(): invalid data type 'str'"),
])
def test_the_legacy_constructor_refuses(call, expected):
    assert message(call) == expected
    assert message(lambda: torch.Tensor(2, requires_grad=True)).startswith(
        "TypeError: new() received an invalid combination of arguments - got (int, requires_grad=bool)")


# ------------------------------------------------------------------ repeat, repeat_interleave
def test_repeat():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x.repeat(2, 3)
    y.sum().backward()
    assert y.shape == (4, 6) and y.grad_fn.name() == "RepeatBackward0" and x.grad.tolist() == [[6.0, 6.0], [6.0, 6.0]]
    assert x.repeat(2, 1, 1).shape == (2, 2, 2) and x.repeat((2, 1)).shape == (4, 2) and x.repeat(0, 1).shape == (0, 2)
    assert message(lambda: x.repeat(2)) == ("RuntimeError: Number of dimensions of repeat dims can not be smaller than "
                                            "number of dimensions of tensor")
    assert message(lambda: x.repeat()) == 'TypeError: repeat() missing 1 required positional arguments: "repeats"'
    assert message(lambda: x.repeat(-1, 1)) == "RuntimeError: Trying to create tensor with negative dimension -2: [-2, 2]"


@settings(max_examples=6, deadline=None)
@given(hnp.arrays(np.float64, (2, 3), elements=st.floats(-2, 2)), st.sampled_from([(2, 1), (1, 1, 3), (3, 2, 2)]))
def test_repeat_gradients(values, repeats):
    assert gradgradcheck(lambda x: x.repeat(*repeats) ** 2, (torch.tensor(values, requires_grad=True),))


def test_repeat_interleave_builds_pytorchs_graph():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x.repeat_interleave(2, dim=0)
    y.sum().backward()
    assert y.tolist() == [[1, 2], [1, 2], [3, 4], [3, 4]] and x.grad.tolist() == [[2, 2], [2, 2]]
    assert chain(y) == ["ViewBackward0", "CloneBackward0", "ExpandBackward0", "UnsqueezeBackward0",
                        "torch::autograd::AccumulateGrad"]
    assert chain(x.repeat_interleave(2))[:5] == ["ViewBackward0", "CloneBackward0", "ExpandBackward0",
                                                 "UnsqueezeBackward0", "ViewBackward0"]
    y = x.repeat_interleave(torch.tensor([1, 2]), dim=1)
    assert y.tolist() == [[1, 2, 2], [3, 4, 4]] and y.grad_fn.name() == "IndexSelectBackward0"
    assert x.repeat_interleave(torch.tensor([2]), dim=1).shape == (2, 4)
    assert torch.repeat_interleave(x, 3, dim=1).shape == (2, 6)
    assert torch.repeat_interleave(torch.tensor([2, 1])).tolist() == [0, 0, 1]
    assert gradcheck(lambda x: x.repeat_interleave(torch.tensor([0, 3]), dim=0), (torch.ones(2, 2, dtype=torch.float64,
                                                                                             requires_grad=True),))


@pytest.mark.parametrize("call, expected", [
    (lambda x: x.repeat_interleave(-1), "RuntimeError: Repeats must be non-negative"),
    (lambda x: x.repeat_interleave(torch.tensor([1, 2, 3]), dim=0), "RuntimeError: repeats must have the same size as "
     "input along dim, but got repeats.size(0) = 3 and input.size(0) = 2"),
    (lambda x: x.repeat_interleave(torch.tensor([1, 2])), "RuntimeError: repeats must have the same size as input along "
     "dim, but got repeats.size(0) = 2 and input.size(0) = 4"),
    (lambda x: x.repeat_interleave(torch.tensor([[1, 2]]), dim=0), "RuntimeError: repeats must be 0-dim or 1-dim tensor"),
    (lambda x: x.repeat_interleave(torch.tensor([1.0, 2.0]), dim=0),
     "NotImplementedError: \"repeat_interleave_cpu\" not implemented for 'Float'"),
    (lambda x: torch.repeat_interleave(torch.tensor([[1, 2]])), "RuntimeError: repeat_interleave only accept 1D vector "
                                                                "as repeat"),
    (lambda x: torch.repeat_interleave(torch.tensor([-1, 2])), "RuntimeError: repeats can not be negative"),
    (lambda x: x.repeat_interleave(2, dim=2), "IndexError: Dimension out of range (expected to be in range of [-2, 1], "
                                              "but got 2)"),
])
def test_repeat_interleave_refusals(call, expected):
    assert message(lambda: call(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))) == expected


# ------------------------------------------------------------------ select, transpose_, softmax(dtype=)
def test_select():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x.select(1, 0)
    assert y.tolist() == [1.0, 3.0] and y.grad_fn.name() == "SelectBackward0" and y._base is x
    assert torch.select(x, 0, -1).tolist() == [3.0, 4.0]
    assert message(lambda: x.select(2, 0)) == ("IndexError: Dimension out of range (expected to be in range of [-2, 1], "
                                               "but got 2)")
    assert message(lambda: x.select(0, 5)) == ("IndexError: select(): index 5 out of range for tensor of size [2, 2] at "
                                               "dimension 0")


def test_transpose_in_place():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x * 1
    version = y._version
    z = y.transpose_(0, 1)
    assert z is y and y.tolist() == [[1.0, 3.0], [2.0, 4.0]] and y._version == version + 1 and y.stride() == (1, 2)
    assert y.grad_fn.name() == "TransposeBackward1" and y.grad_fn.next_functions[0][0].name() == "MulBackward0"
    (y * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    assert x.grad.tolist() == [[1.0, 3.0], [2.0, 4.0]]
    assert message(lambda: x.transpose_(0, 1)) == (
        "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.")
    w = torch.ones(2, 3)
    w.transpose_(0, 1)
    assert w.shape == (3, 2) and w._version == 1


def test_softmax_with_a_dtype_converts_first():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    for y in (x.softmax(1, dtype=torch.float64), torch.nn.functional.softmax(x, 1, dtype=torch.float64),
              torch.log_softmax(x, 1, torch.float64)):
        assert y.dtype is torch.float64 and y.grad_fn.next_functions[0][0].name() == "ToCopyBackward0"
    assert message(lambda: x.softmax(dim=1, dtype=torch.int64)) == (
        "NotImplementedError: \"softmax_lastdim_kernel_impl\" not implemented for 'Long'")
