"""The backward engine: order, accumulation, failures, retain_graph, hooks, autograd.grad, grad mode.

Expectations were checked against PyTorch 2.13, except where a test says minigrad differs on
purpose (a failed backward leaves every ``.grad`` untouched; PyTorch may have written some).
"""
from __future__ import annotations

import sys
import warnings

import pytest

import minigrad as torch
from minigrad.autograd import Function, node_info
from helpers import Double, WrongShape, message

IS_MINIGRAD = torch.__name__ == "minigrad"


# --------------------------------------------------------------------------- graph traversal
def test_a_chain_of_ten_thousand_operations_needs_no_recursion():
    assert sys.getrecursionlimit() < 10_000 * 2   # a recursive topological sort would overflow
    x = torch.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(10_000):
        y = y * 1.0001
    y.sum().backward()
    assert x.grad.item() == pytest.approx(1.0001 ** 10_000, rel=1e-3)


def test_a_long_chain_of_custom_functions_too():
    x = torch.tensor([1.0], dtype=torch.float64, requires_grad=True)
    y = x
    for _ in range(3_000):
        y = Double.apply(y) * 0.5
    y.backward()
    assert x.grad.item() == 1.0


def test_a_reused_non_leaf_receives_the_sum_of_its_gradients_before_its_backward_runs():
    calls = []

    class Square(Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t * t

        @staticmethod
        def backward(ctx, grad):
            calls.append(grad.tolist())
            t, = ctx.saved_tensors
            return 2 * t * grad

    x = torch.tensor([3.0], requires_grad=True)
    y = Square.apply(x)
    z = y * 2 + y * 5 + y       # y is used three times
    z.backward()
    assert calls == [[8.0]]     # once, with 2 + 5 + 1
    assert x.grad.tolist() == [48.0]


def test_diamond_graph():
    x = torch.tensor([2.0], requires_grad=True)
    a = x * 3
    b = a.exp()
    c = a.sin()
    (b * c).backward()
    a_ = 6.0
    import math
    expected = 3 * (math.exp(a_) * math.sin(a_) + math.exp(a_) * math.cos(a_))
    assert x.grad.item() == pytest.approx(expected, rel=1e-5)


def test_several_roots_at_once():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    torch.autograd.backward([(x * 2).sum(), (x * x).sum()])
    assert x.grad.tolist() == [4.0, 6.0]
    torch.autograd.backward(x * 3, torch.tensor([1.0, 10.0]))
    assert x.grad.tolist() == [7.0, 36.0]


def test_backward_from_a_leaf_itself():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    x.backward(torch.tensor([3.0, 4.0]))
    assert x.grad.tolist() == [3.0, 4.0]


# --------------------------------------------------------------------------- failures leave .grad alone
class Boom(Function):
    @staticmethod
    def forward(ctx, t):
        return t * 2

    @staticmethod
    def backward(ctx, grad):
        raise ValueError("boom")


@pytest.mark.skipif(not IS_MINIGRAD, reason="PyTorch writes .grad as soon as each AccumulateGrad runs")
def test_a_failing_backward_leaves_every_grad_untouched():
    w = torch.ones(2, requires_grad=True)
    x = torch.ones(2, requires_grad=True)
    x.grad = torch.tensor([5.0, 5.0])
    b = Boom.apply(w)       # created first, so it runs last: x's AccumulateGrad has run before it raises
    a = x * 2
    with pytest.raises(ValueError, match="boom"):
        (b.sum() + a.sum()).backward()
    assert x.grad.tolist() == [5.0, 5.0] and w.grad is None


@pytest.mark.skipif(not IS_MINIGRAD, reason="PyTorch writes .grad as soon as each AccumulateGrad runs")
def test_a_wrong_shape_gradient_leaves_every_grad_untouched():
    w = torch.ones(3, requires_grad=True)
    x = torch.ones(3, requires_grad=True)
    x.grad = torch.full((3,), 5.0)
    y = x * 1
    y.retain_grad()
    with pytest.raises(RuntimeError, match="returned an invalid gradient"):
        (WrongShape.apply(w).sum() + (y * 2).sum()).backward()
    assert x.grad.tolist() == [5.0, 5.0, 5.0] and w.grad is None and y.grad is None


def test_a_failing_backward_can_be_retried_once_fixed_with_retain_graph():
    x = torch.ones(2, requires_grad=True)
    fail = [True]

    class Flaky(Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, grad):
            if fail[0]:
                raise ValueError("not yet")
            return grad * 2

    y = Flaky.apply(x).sum()
    with pytest.raises(ValueError):
        y.backward(retain_graph=True)
    fail[0] = False
    y.backward()
    assert x.grad.tolist() == [2.0, 2.0]


# --------------------------------------------------------------------------- retain_graph, accumulation
def test_gradients_accumulate_across_backward_calls():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).sum().backward()
    (x * x).sum().backward()
    assert x.grad.tolist() == [5.0, 7.0]
    first = x.grad
    (x * 1).sum().backward()
    assert x.grad is first            # accumulated in place
    x.grad = None
    (x * 1).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_the_first_gradient_is_not_the_tensor_that_flowed_in():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    seed = torch.tensor([1.0, 1.0])
    x.backward(seed)
    x.grad.add_(1)
    assert seed.tolist() == [1.0, 1.0]


def test_retain_graph_allows_a_second_backward():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0]
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        y.backward()


def test_a_graph_with_nothing_saved_can_be_walked_twice_without_retain_graph():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x + x + 1).sum()       # additions save nothing (x * 2 would save the 2)
    y.backward()
    y.backward()
    assert x.grad.tolist() == [4.0, 4.0]


def test_create_graph_implies_retain_graph():
    x = torch.tensor([2.0], requires_grad=True)
    y = x ** 3
    y.backward(create_graph=True)
    assert x.grad.requires_grad and x.grad.item() == 12.0
    y.backward(create_graph=True)
    assert x.grad.item() == 24.0


# --------------------------------------------------------------------------- hooks and retain_grad
def test_tensor_hooks_see_and_replace_gradients_in_order():
    calls = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: calls.append(("y first", g.tolist())) or g * 10)
    y.register_hook(lambda g: calls.append(("y second", g.tolist())))
    x.register_hook(lambda g: calls.append(("x", g.tolist())))
    y.retain_grad()
    (y * y).sum().backward()
    assert calls == [("y first", [4.0, 8.0]), ("y second", [40.0, 80.0]), ("x", [80.0, 160.0])]
    assert x.grad.tolist() == [80.0, 160.0]
    assert y.grad.tolist() == [40.0, 80.0]


def test_hooks_on_a_leaf_change_what_accumulates_and_can_be_removed():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    handle = x.register_hook(lambda g: g + 100)
    (x * 3).sum().backward()
    assert x.grad.tolist() == [103.0, 103.0]
    handle.remove()
    (x * 3).sum().backward()
    assert x.grad.tolist() == [106.0, 106.0]


@pytest.mark.parametrize("retain_first", [True, False])
def test_retain_grad_stores_the_gradient_after_the_hooks(retain_first):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    if retain_first:
        y.retain_grad()
    y.register_hook(lambda g: g * 10)
    if not retain_first:
        y.retain_grad()
    y.sum().backward()
    assert y.grad.tolist() == [10.0, 10.0] and x.grad.tolist() == [20.0, 20.0]
    assert y.retains_grad and y.is_leaf is False


def test_retain_grad_accumulates_too():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    (y * 3).sum().backward(retain_graph=True)
    (y * 3).sum().backward()
    assert y.grad.tolist() == [6.0, 6.0]


# --------------------------------------------------------------------------- autograd.grad
def test_autograd_grad_returns_gradients_and_leaves_grad_alone():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    g, = torch.autograd.grad((x * x).sum(), x)
    assert g.tolist() == [2.0, 4.0] and x.grad is None
    g, = torch.autograd.grad(x * x, x, grad_outputs=torch.tensor([1.0, 10.0]))
    assert g.tolist() == [2.0, 40.0]
    y = x * 3
    gy, gx = torch.autograd.grad((y * y).sum(), [y, x])
    assert gy.tolist() == [6.0, 12.0] and gx.tolist() == [18.0, 36.0]


def test_autograd_grad_with_allow_unused_and_materialize_grads():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    unused = torch.ones(2, requires_grad=True)
    gx, gu = torch.autograd.grad((x * 2).sum(), [x, unused], allow_unused=True)
    assert gx.tolist() == [2.0, 2.0] and gu is None
    gx, gu = torch.autograd.grad((x * 2).sum(), [x, unused], materialize_grads=True)
    assert gu.tolist() == [0.0, 0.0]


def test_autograd_grad_with_create_graph_gives_differentiable_gradients():
    x = torch.tensor([2.0], requires_grad=True)
    g, = torch.autograd.grad(x ** 3, x, create_graph=True)
    assert g.requires_grad and g.item() == 12.0
    gg, = torch.autograd.grad(g, x, create_graph=True)
    assert gg.item() == 12.0
    ggg, = torch.autograd.grad(gg, x)
    assert ggg.item() == 6.0
    g, = torch.autograd.grad(x ** 3, x)
    assert not g.requires_grad


def test_autograd_grad_only_runs_what_is_needed():
    ran = []

    class Spy(Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, grad):
            ran.append(True)
            return grad * 2

    x = torch.tensor([1.0], requires_grad=True)
    w = torch.tensor([1.0], requires_grad=True)
    y = x * 3
    loss = (Spy.apply(w) + y).sum()
    g, = torch.autograd.grad(loss, y)
    assert g.tolist() == [1.0] and ran == []


# --------------------------------------------------------------------------- grad mode
def test_no_grad_and_enable_grad_as_context_managers():
    x = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        assert not torch.is_grad_enabled()
        y = x * 2
        with torch.enable_grad():
            assert torch.is_grad_enabled()
            z = x * 2
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None
    assert z.requires_grad and z.grad_fn is not None


def test_no_grad_and_enable_grad_as_decorators():
    x = torch.ones(2, requires_grad=True)

    @torch.no_grad()
    def without(t):
        return t * 2

    @torch.enable_grad()
    def with_(t):
        return t * 2

    assert not without(x).requires_grad
    with torch.no_grad():
        assert with_(x).requires_grad
    assert without.__name__ == "without"


def test_grad_mode_is_restored_after_an_exception():
    with pytest.raises(ValueError):
        with torch.no_grad():
            raise ValueError
    assert torch.is_grad_enabled()


def test_set_grad_enabled_as_a_function_and_a_context_manager():
    x = torch.ones(2, requires_grad=True)
    with torch.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    try:
        assert not torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(True)
    with torch.no_grad():
        with torch.set_grad_enabled(True):
            assert (x * 2).requires_grad


def test_set_grad_enabled_as_a_decorator():
    x = torch.ones(2, requires_grad=True)
    try:
        @torch.set_grad_enabled(False)
        def without(t):
            return t * 2

        assert torch.is_grad_enabled()     # decorating does not change the mode
        assert not without(x).requires_grad
        assert torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(True)       # whatever happened, the next tests need grad mode on


def test_in_place_update_of_a_leaf_inside_no_grad():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    (a * a).sum().backward()
    with torch.no_grad():
        a -= 0.1 * a.grad
    assert a.is_leaf and a.requires_grad and a.grad_fn is None
    assert a._version == 1
    assert a.tolist() == pytest.approx([0.8, 1.6])
    a.grad = None
    (a * a).sum().backward()
    assert a.grad.tolist() == pytest.approx([1.6, 3.2])


# --------------------------------------------------------------------------- detach and .data
def test_detach_shares_data_and_version_counter():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    d = x.detach()
    assert not d.requires_grad and d.grad_fn is None and d.is_leaf
    with torch.no_grad():
        x.add_(1)
    assert d.tolist() == [2.0, 3.0]
    assert d._version == x._version == 1
    d.add_(1)
    assert x.tolist() == [3.0, 4.0] and x._version == 2


def test_data_shares_memory_but_not_the_version_counter():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * x            # saves x
    data = x.data
    assert not data.requires_grad and data._version == 0
    data.add_(1)         # invisible to the version check: the gradient silently uses the new values
    assert data._version == 1 and x._version == 0
    assert x.tolist() == [2.0, 3.0]
    y.sum().backward()
    assert x.grad.tolist() == [4.0, 6.0]


def test_detach_then_in_place_is_caught_by_the_version_check():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    x.detach().add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


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


def test_each_gradient_is_checked_against_its_own_argument_around_a_number():
    """A number between two tensors has no edge: the gradient after it goes to the second edge, summed
    to that argument's shape and cast to its dtype (the node keeps one (shape, dtype) per argument)."""
    class Around(Function):
        @staticmethod
        def forward(ctx, a, n, b):
            return a * n + b

        @staticmethod
        def backward(ctx, grad):
            return grad * 2, None, grad   # b's gradient has a's shape and dtype

    a = torch.ones(2, 3, requires_grad=True)
    b = torch.ones(3, dtype=torch.float64, requires_grad=True)
    Around.apply(a, 2, b).sum().backward()
    assert a.grad.tolist() == [[2.0] * 3] * 2 and a.grad.dtype == torch.float32
    assert b.grad.tolist() == [2.0, 2.0, 2.0] and b.grad.dtype == torch.float64
    node = Around.apply(a, 2, b).grad_fn
    assert len(node.next_functions) == 2 and node_info.argument_positions(node) == (0, 2)
    assert node_info.input_metadata(node) == ((torch.Size([2, 3]), torch.float32), (torch.Size([3]), torch.float64))


def test_the_gradient_backward_starts_with_takes_the_outputs_dtype():
    """As PyTorch's engine does at the root (validate_outputs): a hook on the output, the first node
    and a leaf's own backward see the output's dtype (tests/programs/root_gradient_dtype compares
    more with PyTorch)."""
    x, w = torch.ones(2, 2, requires_grad=True), torch.ones(2, 2, requires_grad=True)
    y = x @ w
    seen = []
    y.register_hook(lambda g: seen.append(g.dtype))
    y.backward(torch.ones(2, 2, dtype=torch.float64))   # mm would refuse a float64 gradient
    assert seen == [torch.float32] and x.grad.dtype == torch.float32
    x.grad = None
    x.backward(torch.ones(2, 2, dtype=torch.int64))
    assert x.grad.dtype == torch.float32 and x.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_the_cast_at_the_root_is_silent_as_every_cast_inside_the_pass():
    x = torch.ones(1, dtype=torch.float16, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # numpy's "overflow encountered in cast" would raise here
        (x * 1).backward(torch.tensor([1e10], dtype=torch.float64))
    assert x.grad.dtype == torch.float16 and x.grad.tolist() == [float("inf")]   # as in PyTorch


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


def test_nodes_without_a_derivative_run_as_soon_as_they_are_ready_as_pytorchs():
    x = torch.tensor([-3.0, -3.0], requires_grad=True)
    freed = x * 1
    freed.backward(torch.zeros(2))   # its MulBackward0 is freed: reaching it again raises
    for late in ((x * 1) // 2, 7 % x):   # made after freed, but PyTorch gives these nodes no sequence number
        total = freed * 1 + late * 1
        assert message(lambda: total.sum().backward()).endswith("is not implemented")   # PyTorch 2.13


# ------------------------------------------------------------------ gradients and the engine
def test_materialized_zero_gradients_require_grad_under_create_graph():
    x, unused = torch.ones(2, requires_grad=True), torch.ones(3, requires_grad=True)
    gx, gu = torch.autograd.grad((x * x).sum(), [x, unused], create_graph=True, materialize_grads=True)
    assert gu.tolist() == [0.0] * 3 and gu.requires_grad and gu.is_leaf
    assert torch.autograd.grad(gu.sum(), unused, allow_unused=True) == (None,)   # a further grad() works
    gx, gu = torch.autograd.grad((x * x).sum(), [x, unused], materialize_grads=True)
    assert not gu.requires_grad


def test_anomaly_mode_with_warnings_as_errors_raises_the_original_error(capsys):
    import warnings

    class Fails(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            raise RuntimeError("boom in backward")
    x = torch.ones(2, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with torch.autograd.set_detect_anomaly(True):
            y = Fails.apply(x)
            with pytest.raises(RuntimeError, match="^boom in backward$"):
                y.sum().backward()
            z = torch.sqrt(torch.tensor([0.0], requires_grad=True)) * 0
            with pytest.raises(RuntimeError, match="^Function 'SqrtBackward0' returned nan values in its 0th output.$"):
                z.backward()
    printed = capsys.readouterr().err   # PyTorch prints the warning it could not raise
    assert printed.startswith("UserWarning: Error detected in FailsBackward. Traceback of forward call that caused "
                              "the error:\n") and "UserWarning: Error detected in SqrtBackward0." in printed


def test_a_leaf_that_stopped_requiring_grad_still_runs_its_hooks_but_gets_no_gradient():
    seen = []
    x = torch.ones(2, requires_grad=True)
    x.register_hook(lambda g: seen.append("tensor hook"))
    w = x * x
    accumulate = w.grad_fn.next_functions[0][0]
    accumulate.register_prehook(lambda g: seen.append("pre-hook"))
    accumulate.register_hook(lambda grad_inputs, grad_outputs: seen.append("post-hook"))
    x.requires_grad_(False)
    w.sum().backward()
    assert x.grad is None and seen == ["tensor hook", "pre-hook", "post-hook"]   # PyTorch 2.13
