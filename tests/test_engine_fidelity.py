"""Corners of backward and Function.apply where minigrad once differed from PyTorch without an error.

Every expected value here was observed on PyTorch 2.13 (CPU) running the same program with
``import torch``. The differential fuzzer (``tests/fidelity/programs.py``) generates these kinds of
programs too: mismatched ``grad_tensors``, custom Functions that save an input they also return,
``backward(inputs=...)`` on non-leaf tensors that retain their gradient or have hooks.
"""
from __future__ import annotations

import pytest

import minigrad as torch
from minigrad.autograd import Function


# ---------------------------------------------------------------------------- a saved input that forward returns
class ReturnsItsInput(Function):
    """Saves its input x and returns it (once, or with a second output)."""

    @staticmethod
    def forward(ctx, x, pair):
        ctx.save_for_backward(x)
        return (x, x * 2) if pair else x

    @staticmethod
    def backward(ctx, grad, grad_twice=None):
        saved, = ctx.saved_tensors
        ctx.seen = saved
        return (grad if grad_twice is None else grad + 2 * grad_twice), None


@pytest.mark.parametrize("pair", [False, True], ids=["one output", "two outputs"])
def test_a_saved_input_that_is_also_returned_is_saved_as_the_input(pair):
    a = torch.ones(2, requires_grad=True)
    x = a * 2
    out = ReturnsItsInput.apply(x, pair)
    first = out[0] if pair else out
    assert first is not x and first.grad_fn is not x.grad_fn   # returned: a new tensor with grad_fn = ctx
    node = first.grad_fn
    (out[0] + out[1] if pair else out).sum().backward()
    assert node.seen is x and node.seen.grad_fn.name() == "MulBackward0"
    assert a.grad.tolist() == ([6.0, 6.0] if pair else [2.0, 2.0])


def test_a_saved_leaf_that_is_also_returned_stays_the_leaf():
    x = torch.ones(2, requires_grad=True)
    out, twice = ReturnsItsInput.apply(x, True)
    node = out.grad_fn
    (out + twice).sum().backward()
    assert node.seen is x and node.seen.is_leaf and node.seen.grad_fn is None


def test_a_saved_output_is_rebuilt_with_the_node_as_grad_fn():
    class SavesItsOutput(Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            ctx.save_for_backward(x, y)
            return x, y

        @staticmethod
        def backward(ctx, grad_x, grad_y):
            saved_x, saved_y = ctx.saved_tensors
            ctx.seen = saved_x, saved_y
            return grad_x + 2 * grad_y

    a = torch.ones(2, requires_grad=True)
    x = a * 1
    out, y = SavesItsOutput.apply(x)
    node = y.grad_fn
    (out + y).sum().backward()
    saved_x, saved_y = node.seen
    assert saved_x is x and saved_x.grad_fn.name() == "MulBackward0"
    assert saved_y is not y and saved_y.grad_fn is node   # an output: rebuilt on unpacking, no cycle


def test_an_output_that_was_output_1_elsewhere_becomes_output_0_of_the_function():
    a = torch.tensor([3.0, 1.0], requires_grad=True)
    second = a.unbind(0)[1]                # output 1 of UnbindBackward0

    class ReturnsAnotherTensor(Function):
        @staticmethod
        def forward(ctx, x):
            return second

        @staticmethod
        def backward(ctx, grad):
            return grad.expand(2)

    out = ReturnsAnotherTensor.apply(torch.ones(2, requires_grad=True))
    assert out is second and out.grad_fn.name() == "ReturnsAnotherTensorBackward" and out.output_nr == 0
    out.backward()   # once failed with an IndexError: the gradient went to slot 1 of a one-slot buffer


def test_needs_input_grad_is_requires_grad_under_no_grad_too():
    class Needs(Function):
        @staticmethod
        def forward(ctx, t, number):
            Needs.seen.append(ctx.needs_input_grad)
            return t * 2

        @staticmethod
        def backward(ctx, grad):
            return grad, None

    Needs.seen = []
    x = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        view = x[:2]                        # a view made under no_grad of a tensor that requires grad
        Needs.apply(view, 3)
        Needs.apply(x, 3)
    out = Needs.apply(view, 3)
    assert view.requires_grad and Needs.seen == [(True, False)] * 3
    assert out.grad_fn.next_functions == ((None, 0),)   # it requires grad, but its gradient goes nowhere


def test_ctx_requires_grad_is_true_on_every_ctx_as_in_pytorch():
    class Reads(Function):
        @staticmethod
        def forward(ctx, t):
            Reads.seen.append(ctx.requires_grad)
            return t + 1

        @staticmethod
        def backward(ctx, grad):
            return grad

    Reads.seen = []
    Reads.apply(torch.ones(1))
    with torch.no_grad():
        Reads.apply(torch.ones(1, requires_grad=True))
    Reads.apply(torch.ones(1, requires_grad=True))
    assert Reads.seen == [True, True, True]
