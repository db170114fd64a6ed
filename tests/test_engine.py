"""The backward engine: order, accumulation, failures, retain_graph, hooks, autograd.grad, grad mode.

Expectations were checked against PyTorch 2.13, except where a test says minigrad differs on
purpose (a failed backward leaves every ``.grad`` untouched; PyTorch may have written some).
"""
from __future__ import annotations

import sys

import pytest

import minigrad as torch
from minigrad.autograd import Function

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
    class Double(Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

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
    class WrongShape(Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, grad):
            return torch.ones(7)

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
