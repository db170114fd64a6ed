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


def test_an_input_returned_and_marked_non_differentiable_gets_no_grad_fn():
    class Halve(Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.mark_non_differentiable(y)
            return x / 2, y

        @staticmethod
        def backward(ctx, grad_x, grad_y):
            return grad_x / 2, None

    x = torch.ones(2, requires_grad=True)
    y = torch.ones(2)
    half, same = Halve.apply(x, y)
    assert same is not y and not same.requires_grad and same.grad_fn is None and half.grad_fn is not None


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


# ---------------------------------------------------------------------------- backward's arguments
def test_fewer_gradients_than_tensors_is_an_error_not_a_dropped_tensor():
    a, b = torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^got 2 tensors and 1 gradients$"):
        torch.autograd.backward([a * 2, b * 3], [torch.ones(2)])
    with pytest.raises(RuntimeError, match=r"^got 2 tensors and 1 gradients$"):
        torch.autograd.backward([a * 2, b * 3], torch.ones(2))
    with pytest.raises(RuntimeError, match=r"^got 2 tensors and 0 gradients$"):
        torch.autograd.backward([a.sum(), b.sum()], [])
    with pytest.raises(RuntimeError, match=r"^got 2 tensors and 1 gradients$"):
        torch.autograd.grad([a.sum(), b.sum()], [a, b], [torch.ones(())])
    assert a.grad is None and b.grad is None


def test_extra_gradients_are_ignored_as_in_pytorch():
    a = torch.ones(2, requires_grad=True)
    torch.autograd.backward([a.sum()], [torch.ones(()), torch.ones(())])
    assert torch.autograd.grad([a.sum()], [a], [torch.ones(()), torch.ones(())])[0].tolist() == [1.0, 1.0]
    assert a.grad.tolist() == [1.0, 1.0]


def test_the_gradient_checks_come_before_the_count_and_the_tensor_checks():
    a, b = torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^Mismatch in shape: grad_output\[0\] has a shape of torch.Size\(\[3\]\)"):
        torch.autograd.backward([a * 2, b * 3], [torch.ones(3)])
    with pytest.raises(TypeError, match="^gradients can be either Tensors or None, but got int$"):
        torch.autograd.backward([a * 2, b * 3], [3])
    with pytest.raises(RuntimeError, match="^got 2 tensors and 1 gradients$"):
        torch.autograd.backward([torch.ones(2), b * 3], [torch.ones(2)])
    with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad and does not have a grad_fn$"):
        torch.autograd.backward([torch.ones(())], inputs=[torch.ones(1)])
    with pytest.raises(AssertionError, match="^Expected output to be a torch.Tensor$"):
        torch.autograd.backward([a.sum(), None])


def test_grad_variables_is_the_deprecated_name_of_grad_tensors():
    a = torch.ones(2, requires_grad=True)
    with pytest.warns(FutureWarning, match="`grad_variables` is deprecated. Use `grad_tensors` instead."):
        torch.autograd.backward(a.sum(), grad_variables=torch.tensor(2.0))
    assert a.grad.tolist() == [2.0, 2.0]
    with pytest.warns(FutureWarning), pytest.raises(RuntimeError, match="arguments both passed to `backward\\(\\)`"):
        torch.autograd.backward(a.sum(), torch.tensor(1.0), grad_variables=torch.tensor(5.0))
    assert a.grad.tolist() == [2.0, 2.0]


def test_inputs_may_be_a_dict_and_must_be_tensors():
    a = torch.ones(2, requires_grad=True)
    torch.autograd.backward((a * 2).sum(), inputs={"a": a})
    assert a.grad.tolist() == [2.0, 2.0]
    assert torch.autograd.grad((a * 3).sum(), {"a": a})["a"].tolist() == [3.0, 3.0]
    for call in (lambda: torch.autograd.grad(a.sum(), [3]), lambda: torch.autograd.backward(a.sum(), inputs=[3])):
        with pytest.raises(RuntimeError, match="^all inputs have to be Tensors or GradientEdges, but got int$"):
            call()


# ---------------------------------------------------------------------------- retain_grad, inputs=, hooks
def test_backward_inputs_on_a_non_leaf_that_retains_its_grad_counts_it_once():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    z = (y * 3).sum()
    y.retain_grad()
    z.backward(inputs=[y, x], retain_graph=True)
    assert y.grad.tolist() == [3.0, 3.0] and x.grad.tolist() == [6.0, 6.0]
    z.backward(inputs=[y, x], retain_graph=True)
    assert y.grad.tolist() == [6.0, 6.0] and x.grad.tolist() == [12.0, 12.0]


def test_a_second_backward_inputs_on_a_non_leaf_counts_it_once():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    z = (y * 3).sum()
    for _ in range(2):
        z.backward(inputs=[x, y, y], retain_graph=True)   # after the first call y retains its grad
    assert y.grad.tolist() == [6.0, 6.0] and x.grad.tolist() == [12.0, 12.0]


def test_backward_inputs_runs_the_input_s_own_node_as_pytorch_does():
    log = []

    class Logs(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            log.append("backward")
            return grad * 2

    x = torch.ones(2, requires_grad=True)
    x.register_hook(lambda grad: log.append("x hook"))
    y = Logs.apply(x)
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: log.append("post hook"))
    (y * 3).sum().backward(inputs=[y])
    assert log == ["backward", "post hook"] and y.grad.tolist() == [3.0, 3.0] and x.grad is None
    x2 = torch.ones(2, requires_grad=True)
    y2 = x2 * x2
    (y2 * 3).sum().backward(inputs=[y2])   # MulBackward0 ran, so its saved tensors are freed
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        (y2 * 3).sum().backward()


def test_autograd_grad_reads_a_running_node_s_gradient_before_its_tensor_hooks():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.register_hook(lambda grad: grad * 10)
    z = (y * 3).sum()
    grad_y, grad_x = torch.autograd.grad(z, [y, x], retain_graph=True)   # y's node runs: x is behind it
    assert grad_y.tolist() == [3.0, 3.0] and grad_x.tolist() == [60.0, 60.0]
    grad_y, = torch.autograd.grad(z, [y])                                 # y's node does not run
    assert grad_y.tolist() == [30.0, 30.0]


def test_autograd_grad_still_fills_the_grad_of_a_tensor_that_retains_it():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.retain_grad()
    torch.autograd.grad((y * 3).sum(), [y])
    assert y.grad.tolist() == [3.0, 3.0] and x.grad is None


def test_retain_grad_makes_a_new_grad_each_backward_as_pytorch_does():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.retain_grad()
    (y * y).sum().backward(retain_graph=True)
    first = y.grad
    (y * y).sum().backward(retain_graph=True)
    assert first is not y.grad and first.tolist() == [4.0, 4.0] and y.grad.tolist() == [8.0, 8.0]
    y.grad = x.grad = None
    (y * y).sum().backward(create_graph=True)
    assert y.grad.grad_fn.name() == "CloneBackward0" and x.grad.grad_fn.name() == "torch::autograd::CopyBackwards"


# ---------------------------------------------------------------------------- what hooks get and return
class NoGradientBack(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, grad):
        return None


def test_hooks_see_none_for_a_gradient_that_did_not_arrive():
    seen = []
    x = torch.ones(2, requires_grad=True)
    x.register_hook(lambda grad: seen.append(("leaf", grad)))
    u = x * 3
    u.register_hook(lambda grad: seen.append(("u", grad)))
    u.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(("post", grad_inputs, grad_outputs)))
    NoGradientBack.apply(u).sum().backward()
    assert seen == [("u", None), ("post", (None, None), (None,)), ("leaf", None)] and x.grad is None
    first, second = torch.ones(2, 3, requires_grad=True).unbind(0)
    second.register_hook(lambda grad: seen.append(("unused output", grad)))
    first.sum().backward()
    assert seen[-1] == ("unused output", None)
    with pytest.raises(RuntimeError, match="^can't replace a None gradient with a non-None value$"):
        second.register_hook(lambda grad: torch.ones(3))
        first.sum().backward()


def _double(grad):
    return grad.double()


@pytest.mark.parametrize("leaf", [False, True], ids=["non-leaf", "leaf"])
def test_what_a_tensor_hook_returns_is_checked(leaf):
    def backward_with(hook):
        x = torch.ones(2, requires_grad=True)
        y = x if leaf else x * 2
        y.register_hook(hook)
        (y * 1).sum().backward()
        return x

    with pytest.raises(TypeError, match="^expected Variable, but hook returned 'int'$"):
        backward_with(lambda grad: 3)
    with pytest.raises(RuntimeError, match="^hook '<lambda>' has changed the size of value$"):
        backward_with(lambda grad: torch.ones(3))
    with pytest.raises(RuntimeError, match=r"^hook '_double' has changed the type of value \(was torch.FloatTensor "
                                           r"got torch.DoubleTensor\)$"):
        backward_with(_double)
    assert backward_with(lambda grad: grad * 10).grad.tolist() == ([10.0, 10.0] if leaf else [20.0, 20.0])


@pytest.mark.parametrize("kind", ["pre", "post"])
def test_what_a_node_hook_returns_is_checked(kind):
    def backward_with(hook):
        x = torch.ones(2, requires_grad=True)
        y = x * 2
        if kind == "pre":
            y.grad_fn.register_prehook(lambda grad_outputs: hook(grad_outputs))
        else:
            y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: hook(grad_inputs))
        y.sum().backward()
        return x.grad

    expected = 1 if kind == "pre" else 2
    with pytest.raises(TypeError, match="^expected tuple, but hook returned 'list'$"):
        backward_with(list)
    with pytest.raises(RuntimeError, match=f"^hook '<lambda>' has returned an incorrect number of values "
                                           f"\\(got {expected + 1}, but expected {expected}\\)$"):
        backward_with(lambda grads: tuple(grads) + (None,))
    with pytest.raises(TypeError, match="^expected Variable, but hook returned 'int'$"):
        backward_with(lambda grads: (3,) * len(grads))
    assert backward_with(lambda grads: (None,) * len(grads)) is None   # None replaces the gradient
