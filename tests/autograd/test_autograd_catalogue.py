"""Behaviours PyTorch's own test suite pins down for custom Functions, written afresh for minigrad.

Each test below checks one fact that PyTorch's ``test/test_autograd.py`` relies on (ctx, hooks,
``once_differentiable``, ``gradcheck``, ``retain_grad``, ``autograd.grad``, ``backward(inputs=...)``,
reentrant backward). Every expectation was first observed with PyTorch 2.13; these tests do not
import torch. Out-of-scope features (forward-mode AD, vmap, CUDA) must fail loudly, which is
checked at the end.
"""
from __future__ import annotations

import gc
import threading
import warnings
import weakref

import pytest

import minigrad as torch
from minigrad.autograd import Function, Variable, gradcheck, gradgradcheck
from minigrad.autograd.function import once_differentiable
from minigrad.autograd.gradcheck import GradcheckError
from helpers import Double, ReturnsItsInput, TwoOutputs


def describe(node) -> str:
    """``'MulBackward0(AccumulateGrad(), None)'``: a node and, recursively, where it sends gradients."""
    if node is None:
        return "None"
    inner = ", ".join(describe(next_node) for next_node, _ in node.next_functions)
    return f"{type(node).__name__}({inner})"


class AddMul(Function):
    """``a + k * b + a * b``: two tensors around a Python number."""

    @staticmethod
    def forward(ctx, a, k, b):
        ctx.k = k
        ctx.save_for_backward(a, b)
        return a + k * b + a * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad + grad * b, None, grad * ctx.k + grad * a


class AddMulOnce(AddMul):
    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        assert not torch.is_grad_enabled()
        a, b = ctx.saved_tensors
        return grad + grad * b, None, grad * ctx.k + grad * a


def backward_with_create_graph(cls):
    a = torch.randn(3, 3, requires_grad=True)
    b = torch.randn(3, 3, requires_grad=True)
    seed = torch.ones((), requires_grad=True)
    cls.apply(a, 2, b).sum().backward(seed, create_graph=True)
    assert torch.allclose(a.grad, b + 1)
    assert torch.allclose(b.grad, a + 2)
    return a, b


# --- .grad after backward(create_graph=True) ------------------------------------------------------

def test_create_graph_stores_a_copy_of_the_gradient_with_its_own_node():
    a, b = backward_with_create_graph(AddMul)
    assert describe(a.grad.grad_fn) == (
        "CopyBackwards(None, AddBackward0(ExpandBackward0(AccumulateGrad()), "
        "MulBackward0(ExpandBackward0(AccumulateGrad()), AccumulateGrad())))")
    assert describe(b.grad.grad_fn) == (
        "CopyBackwards(None, AddBackward0(MulBackward0(ExpandBackward0(AccumulateGrad()), None), "
        "MulBackward0(ExpandBackward0(AccumulateGrad()), AccumulateGrad())))")


def test_once_differentiable_puts_an_error_node_after_the_backward():
    a, b = backward_with_create_graph(AddMulOnce)
    expected = "CopyBackwards(None, Error(AccumulateGrad(), None, AccumulateGrad()))"
    assert describe(a.grad.grad_fn) == expected
    assert describe(b.grad.grad_fn) == expected
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was marked "
                                           "with @once_differentiable"):
        a.grad.sum().backward()


def test_once_differentiable_backward_error_is_raised_as_is():
    class Failing(Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        @once_differentiable
        def backward(ctx, grad):
            raise ValueError("backward failed on purpose")

    t = torch.rand(3, 3, requires_grad=True)
    with pytest.raises(ValueError, match="backward failed on purpose"):
        Failing.apply((t + t) * t).sum().backward()


def test_accumulating_with_create_graph_makes_a_new_grad_tensor():
    x = torch.randn(3, requires_grad=True)
    y = x + 2
    y.backward(torch.ones(3), retain_graph=True)
    first = x.grad
    y.backward(torch.ones(3))
    assert x.grad is first and torch.equal(first, torch.full((3,), 2.0))
    x.grad = None
    y = x + 2
    y.backward(torch.ones(3), retain_graph=True)
    first = x.grad
    y.backward(torch.ones(3), create_graph=True)
    assert x.grad is not first and torch.equal(first, torch.ones(3))


# --- returning inputs, None, and not materialising zeros --------------------------------------------

class Identity(Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class Pair(Function):
    @staticmethod
    def forward(ctx, a, b):
        return a, a + b

    @staticmethod
    def backward(ctx, ga, gb):
        return ga + gb, gb


@pytest.mark.parametrize("shape", [(1,), ()])
def test_a_function_returning_its_input(shape):
    v = torch.ones(shape, requires_grad=True)
    out = Identity.apply(v)
    assert out is not v and out.grad_fn is not None
    out.backward()
    assert torch.equal(v.grad, torch.full(shape, 2.0))
    Identity.apply(v.clone()).backward()
    assert torch.equal(v.grad, torch.full(shape, 4.0))


class ReturnsNone(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return None


def test_a_backward_returning_none_leaves_grad_none():
    x = torch.ones(1, requires_grad=True)
    ReturnsNone.apply(x).backward()
    assert x.grad is None
    ReturnsNone.apply(x ** 2).backward()     # no zeros invented on the way through PowBackward0
    assert x.grad is None
    ReturnsNone.apply(x).sum().backward()
    assert x.grad is None
    assert torch.autograd.grad(ReturnsNone.apply(x), x, allow_unused=True) == (None,)


def test_non_differentiable_output_returning_none_into_a_builtin_node():
    class NonDiff(Function):
        @staticmethod
        def forward(ctx, x):
            out = x.clone()
            ctx.mark_non_differentiable(out)
            return out

        @staticmethod
        def backward(ctx, grad):
            return None

    x = torch.randn(3, requires_grad=True)
    r = NonDiff.apply(x * x)
    assert not r.requires_grad
    (r * x).sum().backward()
    assert torch.equal(x.grad, r)


def test_materialize_non_diff_grads_false_gives_none():
    seen = []

    class Two(Function):
        @staticmethod
        def forward(ctx, x):
            a, b = x.clone(), x.clone()
            ctx.mark_non_differentiable(b)
            ctx._materialize_non_diff_grads = False
            return a, b

        @staticmethod
        def backward(ctx, ga, gb):
            seen.append(gb)
            return ga

    x = torch.tensor(1.0, requires_grad=True)
    Two.apply(x)[0].backward()
    assert seen == [None] and x.grad.item() == 1.0


def test_mark_non_differentiable_mixed_gives_zeros_for_the_unused_output():
    class Two(Function):
        @staticmethod
        def forward(ctx, x):
            a, b = x + 1, x + 2
            ctx.mark_non_differentiable(a)
            return a, b

        @staticmethod
        def backward(ctx, ga, gb):
            assert bool((ga == 0).all()) and bool((gb == 1).all())
            return gb

    x = torch.randn(2, 2, requires_grad=True)
    a, b = Two.apply(x)
    assert not a.requires_grad and b.requires_grad
    b.sum().backward()
    assert torch.equal(x.grad, torch.ones(2, 2))


def test_too_many_trailing_nones_are_fine():
    class Extra(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad, None, None

    x = torch.randn(2, requires_grad=True)
    Extra.apply(x).sum().backward()
    assert torch.equal(x.grad, torch.ones(2))


def test_save_none_for_backward():
    class Square(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(None, x, None)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            n1, x, n2 = ctx.saved_tensors
            assert n1 is None and n2 is None
            return 2 * x * grad

    x = torch.randn(4, requires_grad=True)
    Square.apply(x).sum().backward()
    assert torch.allclose(x.grad, 2 * x)


def test_wrong_shape_gradient_names_the_expected_shape():
    class Bad(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return torch.randn(10)

    x = torch.randn(5, 5, requires_grad=True)
    with pytest.raises(RuntimeError, match="expected shape"):
        Bad.apply(x).sum().backward()


def test_non_tensor_inputs_and_outputs():
    class Mixed(Function):
        @staticmethod
        def forward(ctx, t1, t2, scale, t3):
            ctx.scale = scale
            ctx.save_for_backward(t1, t2, t3)
            return scale, (t1 + t2 * t3) * scale, None, True, (t1 * t2 + t3) * scale, "bar", t1

        @staticmethod
        @once_differentiable
        def backward(ctx, *grads):
            assert len(grads) == 7 and grads[0] is None and grads[2] is None
            assert grads[3] is None and grads[5] is None
            t1, t2, t3 = ctx.saved_tensors
            s = ctx.scale
            return (grads[1] * s + grads[4] * t2 * s + grads[6], grads[1] * t3 * s + grads[4] * t1 * s, None,
                    grads[1] * t2 * s + grads[4] * s)

    t1 = torch.rand(5, dtype=torch.double, requires_grad=True)
    t2 = torch.rand(5, dtype=torch.double, requires_grad=True)
    t3 = torch.rand(5, dtype=torch.double)
    res = Mixed.apply(t1, t2, 3, t3)
    assert res[0] == 3 and res[2] is None and res[3] is True and res[5] == "bar"
    assert torch.allclose(res[6], t1)
    torch.autograd.backward([res[1].sum(), res[4].sum(), res[6].sum()])
    assert t1.grad is not None and t2.grad is not None and t3.grad is None

    def pick(a, b, c):
        out = Mixed.apply(a, b, 3, c)
        return out[1], out[4], out[6]

    assert gradcheck(pick, (t1, t2, t3))


def test_no_tensor_inputs_at_all():
    class NoTensors(Function):
        @staticmethod
        def forward(ctx, a, b, scale):
            return scale, (a + b) * scale, None

        @staticmethod
        def backward(ctx, *grads):
            raise AssertionError("never called")

    assert NoTensors.apply(1.0, 2.0, 3) == (3, 9.0, None)


# --- setup_context ---------------------------------------------------------------------------------

def test_setup_context_with_a_non_tensor_output():
    class Square(Function):
        @staticmethod
        def forward(x):
            return x ** 2, x.item() * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.two_x = output[1]

        @staticmethod
        @once_differentiable
        def backward(ctx, grad, _):
            return grad * ctx.two_x

    x = torch.randn((), requires_grad=True)
    y, _ = Square.apply(x)
    gx, = torch.autograd.grad(y, x)
    assert torch.allclose(gx, 2 * x)


def test_setup_context_with_default_arguments_and_classmethods():
    class Pow(Function):
        @staticmethod
        def forward(x, y=3):
            return torch.pow(x, y)

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, y = inputs
            ctx.save_for_backward(x)
            ctx.y = y

        @staticmethod
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return grad * ctx.y * torch.pow(x, ctx.y - 1), None

    class PowClassmethods(Function):
        @classmethod
        def forward(cls, x, y=3):
            return torch.pow(x, y)

        @classmethod
        def setup_context(cls, ctx, inputs, output):
            x, y = inputs
            ctx.save_for_backward(x)
            ctx.y = y

        @classmethod
        def backward(cls, ctx, grad):
            x, = ctx.saved_tensors
            return grad * ctx.y * torch.pow(x, ctx.y - 1), None

    x = torch.tensor(2.0, requires_grad=True)
    for cls in (Pow, PowClassmethods):
        y = cls.apply(x)
        assert y.item() == 8.0
        assert torch.autograd.grad(y, x)[0].item() == 12.0


# --- hooks -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("mul2", [Double.apply, lambda x: x * 2], ids=["custom", "builtin"])
def test_node_prehooks_and_posthooks(mul2):
    a = torch.tensor([1.0], requires_grad=True)
    b = mul2(a)
    pre, post = [0], [0]

    def posthook(grad_inputs, grad_outputs):
        assert pre[0] == 3
        assert torch.equal(grad_outputs[0], torch.ones(1) * 8)
        assert torch.equal(grad_inputs[0], torch.ones(1) * 16)
        post[0] += 1
        return grad_inputs

    def prehook(grad_outputs):
        pre[0] += 1
        return (grad_outputs[0] * 2,)

    b.grad_fn.register_hook(posthook)
    b.grad_fn.register_hook(posthook)
    b.grad_fn.register_prehook(prehook)
    b.grad_fn.register_prehook(lambda g: None)
    b.grad_fn.register_prehook(prehook)
    b.grad_fn.register_prehook(prehook)
    b.grad_fn.register_prehook(lambda g: g)
    b.sum().backward()
    assert (pre[0], post[0]) == (3, 2)
    assert torch.equal(a.grad, torch.tensor([16.0]))


@pytest.mark.parametrize("mul2", [Double.apply, lambda x: x * 2], ids=["custom", "builtin"])
def test_removing_prehooks_before_and_during_backward(mul2):
    a = torch.rand(3, 3, requires_grad=True)
    b = mul2(a)
    count = [0]

    def prehook(grad_outputs):
        count[0] += 1

    handle = b.grad_fn.register_prehook(prehook)
    b.grad_fn.register_prehook(prehook)
    handle.remove()
    b.sum().backward()
    assert count[0] == 1

    a = torch.rand(3, 3, requires_grad=True)
    b = mul2(a)
    count = [0]

    def remover(grad_outputs):
        handle2.remove()
        handle3.remove()      # removing an already removed hook is fine

    def counter(grad_outputs):
        count[0] += 1

    b.grad_fn.register_prehook(remover)
    handle2 = b.grad_fn.register_prehook(counter)
    handle3 = b.grad_fn.register_prehook(counter)
    handle3.remove()          # removes its own registration, not handle2's
    b.sum().backward()
    assert torch.allclose(a.grad, torch.ones(3, 3) * 2)
    assert count[0] == 1      # removed during this backward: still runs this time


def test_prehook_on_a_node_with_several_outputs():
    class DoubleMul(Function):
        @staticmethod
        def forward(ctx, x, k, y):
            ctx.k = k
            return k * x * 2, k, k * y * 2

        @staticmethod
        def backward(ctx, g1, gk, g2):
            return ctx.k * g1 * 2, None, ctx.k * g2 * 2

    seen = []

    def prehook(grad_outputs):
        g1, gk, g2 = grad_outputs
        seen.append(gk)
        return (g1 * 2, None, g2 * 2)

    a = torch.randn(3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    c, _, d = DoubleMul.apply(a, 3, b)
    c.grad_fn.register_prehook(prehook)
    (c + d).sum().backward()
    assert seen == [None]
    assert torch.equal(a.grad, torch.full((3,), 12.0)) and torch.equal(b.grad, torch.full((3,), 12.0))


def test_tensor_hooks_on_outputs_see_only_their_gradient():
    class NoneForY(Function):
        @staticmethod
        def forward(ctx, x, y):
            assert ctx.needs_input_grad == (True, False)
            return x, y

        @staticmethod
        def backward(ctx, gx, gy):
            return gx, None

    called = []
    x, y = torch.randn(2, 2, requires_grad=True), torch.randn(2, 2)
    rx, ry = NoneForY.apply(x, y)
    rx.register_hook(lambda g: called.append(g))
    ry.register_hook(lambda g: called.append(g))
    assert ry.requires_grad      # every output of a recorded Function is differentiable
    (rx + ry).sum().backward()
    assert len(called) == 2 and all(torch.equal(g, torch.ones(2, 2)) for g in called)
    assert torch.equal(x.grad, torch.ones(2, 2))


def test_hook_sees_gradient_of_returned_leaf_only():
    x, y = torch.randn(2, 2, requires_grad=True), torch.randn(2, 2, requires_grad=True)
    q, p = Pair.apply(x, y)
    seen = []
    q.register_hook(seen.append)
    (q + p + x).sum().backward()
    assert torch.equal(seen[0], torch.ones(2, 2))
    assert torch.equal(x.grad, torch.full((2, 2), 3.0)) and torch.equal(y.grad, torch.ones(2, 2))


def test_which_hooks_run_for_backward_grad_and_inputs():
    a = torch.tensor(1.0, requires_grad=True)
    b = a * 2
    c = b * 2
    counts = {}

    def count(kind):
        return lambda *args: counts.update({kind: counts[kind] + 1})

    a.register_hook(count("tensor"))
    b.register_hook(count("tensor"))
    acc = b.grad_fn.next_functions[0][0]
    for node in (acc, b.grad_fn):
        node.register_hook(count("post"))
        node.register_prehook(count("pre"))
    runs = [lambda: torch.autograd.grad(c, inputs=(b,), retain_graph=True),
            lambda: torch.autograd.grad(c, inputs=(a, b), retain_graph=True),
            lambda: c.backward(retain_graph=True),
            lambda: c.backward(inputs=(a, b), retain_graph=True)]
    seen = []
    for run in runs:
        counts.update(tensor=0, pre=0, post=0)
        run()
        seen.append((counts["tensor"], counts["pre"], counts["post"]))
    assert seen == [(1, 0, 0), (2, 1, 1), (2, 2, 2), (2, 2, 2)]


def test_hook_order_tensor_hooks_then_node_prehooks():
    log = []

    def times3(g):
        log.append(1)
        return g * 3

    def times2(gs):
        log.append(2)
        return tuple(g * 2 for g in gs)

    a = torch.tensor(1.0, requires_grad=True)
    b = a.clone()
    b.grad_fn.register_prehook(times2)
    b.register_hook(times3)
    b.grad_fn.register_prehook(times2)
    acc = b.grad_fn.next_functions[0][0]
    a.register_hook(times3)
    acc.register_prehook(times2)
    a.register_hook(times3)
    b.sum().backward(retain_graph=True)
    assert log == [1, 2, 2, 1, 1, 2] and a.grad.item() == 216.0
    log.clear()
    assert torch.autograd.grad(b.sum(), inputs=(a,), retain_graph=True)[0].item() == 108.0
    assert log == [1, 2, 2, 1, 1]          # grad() runs the leaf's tensor hooks, not its node's
    log.clear()
    b.sum().backward(inputs=(b,))
    assert log == [1, 2, 2] and b.grad.item() == 3.0   # .grad is read before the node's prehooks


def test_retain_grad_sees_the_tensor_hooks_registered_before_and_after():
    a = torch.tensor(1.0, requires_grad=True)
    b = a.clone()
    b.register_hook(lambda g: g * 2)
    b.retain_grad()
    b.register_hook(lambda g: g * 2)
    b.clone().backward()
    assert b.grad.item() == 4.0


def test_accumulate_grad_hooks_see_what_tensor_hooks_made():
    a = torch.tensor(1.0, requires_grad=True)
    seen = []
    b = a.clone()
    acc = b.grad_fn.next_functions[0][0]
    acc.register_hook(lambda grad_inputs, grad_outputs: seen.append(("post", grad_inputs, grad_outputs[0].item())))
    acc.register_prehook(lambda grad_outputs: seen.append(("pre", grad_outputs[0].item())))
    a.register_hook(lambda g: g * 2)
    b.backward()
    assert seen == [("pre", 2.0), ("post", (), 2.0)] and a.grad.item() == 2.0


def test_hooks_of_leaves_left_out_of_inputs_do_not_run():
    def boom(*args):
        raise RuntimeError("must not run")

    a = torch.tensor(1.0, requires_grad=True)
    a.register_hook(boom)
    b = torch.tensor(1.0, requires_grad=True)
    c = a.clone()
    c.grad_fn.next_functions[0][0].register_hook(boom)
    (a + b + c).sum().backward(inputs=[b])
    assert b.grad.item() == 1.0 and a.grad is None


def test_retain_grad_after_an_in_place_change_of_an_output():
    b = torch.rand(3, requires_grad=True)
    u, v = TwoOutputs.apply(b)
    u.retain_grad()
    v.retain_grad()
    u.mul_(2)
    (u + v).sum().backward()
    assert torch.equal(u.grad, torch.ones(3)) and torch.equal(v.grad, torch.ones(3))
    assert torch.equal(b.grad, torch.full((3,), 7.0))


# --- autograd.grad and backward(inputs=...) ----------------------------------------------------------

def test_grad_does_not_run_nodes_off_the_path():
    class MustNotRun(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            raise AssertionError("this node should not be executed")

    x = MustNotRun.apply(torch.randn(1, requires_grad=True) * 2)
    y = torch.randn(1, requires_grad=True)
    assert torch.autograd.grad(x, (y,), allow_unused=True) == (None,)
    z = torch.randn(1, requires_grad=True)
    gy, gz = torch.autograd.grad(MustNotRun.apply(torch.randn(1, requires_grad=True) * 2) + z, (y, z),
                                 allow_unused=True)
    assert gy is None and torch.equal(gz, torch.ones(1))
    torch.autograd.backward(MustNotRun.apply(torch.randn(1, requires_grad=True) * 2), inputs=(y,))
    assert y.grad is None


def test_backward_with_inputs_only_fills_those():
    x = torch.randn(2, 2, dtype=torch.double, requires_grad=True)
    y = torch.randn(2, 2, dtype=torch.double, requires_grad=True)
    torch.autograd.backward(x ** 2 + y * x + y ** 2, torch.ones(2, 2, dtype=torch.double), inputs=[x])
    assert torch.allclose(x.grad, 2 * x + y) and y.grad is None
    (x ** 2).backward(torch.ones(2, 2, dtype=torch.double), inputs=x)
    assert torch.allclose(x.grad, 4 * x + y)
    with pytest.raises(RuntimeError, match="cannot be empty"):
        torch.autograd.backward(x.sum(), inputs=[])


def test_backward_with_a_non_leaf_input():
    x = torch.randn(2, 2, dtype=torch.double, requires_grad=True)
    x_nonleaf = x * 1
    y = torch.randn(2, 2, dtype=torch.double, requires_grad=True)
    z = torch.randn(2, 2, dtype=torch.double, requires_grad=True)
    out = x_nonleaf ** 2 + y * x_nonleaf + y ** 2
    out.backward(torch.ones(2, 2, dtype=torch.double), create_graph=True, inputs=[x, y, x_nonleaf])
    assert torch.allclose(x.grad, 2 * x + y) and torch.allclose(y.grad, x + 2 * y)
    assert torch.allclose(x_nonleaf.grad, 2 * x_nonleaf + y)
    out.backward(torch.ones(2, 2, dtype=torch.double), create_graph=True, inputs=[z])
    assert z.grad is None


def test_grad_mode_inside_a_custom_backward_is_restored():
    class InnerGrad(Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            outer = torch.is_grad_enabled()
            with torch.enable_grad():
                foo = torch.rand(grad.shape, requires_grad=True)
                g, = torch.autograd.grad(foo ** 3, foo, grad_outputs=grad)
            assert torch.is_grad_enabled() == outer
            return g

    x = torch.rand(3, requires_grad=True)
    InnerGrad.apply(x).sum().backward()
    InnerGrad.apply(x).sum().backward(create_graph=True)


# --- saved tensors ---------------------------------------------------------------------------------

def test_saved_variables_is_deprecated():
    class Add(Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a + b

        @staticmethod
        def backward(ctx, grad):
            ctx.saved_variables
            return grad, grad

    a, b = torch.randn(2, requires_grad=True), torch.randn(2, requires_grad=True)
    with pytest.warns(DeprecationWarning, match="'saved_variables' is deprecated"):
        Add.apply(a, b).sum().backward()


def test_saved_tensors_after_backward_freed_them():
    class Keep(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, None)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad

    a = torch.randn(5, requires_grad=True)
    y = Keep.apply(a)
    saved = y.grad_fn.saved_tensors
    assert saved[0] is a and saved[1] is None
    y.sum().backward()
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        y.grad_fn.saved_tensors


def test_a_stashed_ctx_keeps_its_saved_tensors_while_the_graph_is_retained():
    stash = []

    class Keep(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            stash.append(ctx)
            return ctx.saved_tensors

    p = torch.zeros(1, requires_grad=True)
    loss = Keep.apply(p)
    loss.backward(retain_graph=True)
    del loss
    gc.collect()
    assert stash[0].saved_tensors == (p,)


class SavedOnce(Function):
    clear_saved_tensors_on_access = True
    reads = 1

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        for _ in range(SavedOnce.reads):
            x, = ctx.saved_tensors
        ref = weakref.ref(x)
        del x
        assert ref() is None     # the saved tensor was released on access
        return grad


def test_clear_saved_tensors_on_access_releases_them():
    SavedOnce.reads = 1
    SavedOnce.apply(torch.randn(3, requires_grad=True).clone()).sum().backward()


def test_clear_saved_tensors_on_access_allows_one_access():
    SavedOnce.reads = 2
    with pytest.raises(RuntimeError, match="can only be accessed once"):
        SavedOnce.apply(torch.randn(3, requires_grad=True)).sum().backward()


def test_double_backward_through_saved_inputs_and_outputs():
    class Square(Function):
        @staticmethod
        def forward(ctx, x):
            y = x ** 2
            ctx.save_for_backward(x, y)
            return y

        @staticmethod
        def backward(ctx, grad):
            x, _ = ctx.saved_tensors
            return grad * 2 * x

    class SquareFromOutput(Square):
        @staticmethod
        def backward(ctx, grad):
            x, y = ctx.saved_tensors
            return grad * 2 * y / x

    x = torch.tensor(2.0, dtype=torch.double, requires_grad=True)
    for cls in (Square, SquareFromOutput):
        assert gradcheck(cls.apply, x) and gradgradcheck(cls.apply, x)
        y = cls.apply(x)
        torch.autograd.grad(y, x, create_graph=True)
        torch.autograd.grad(y, x)


def test_repeated_grad_of_grad_gives_the_same_answer():
    class SquareSum(Function):
        @staticmethod
        def forward(ctx, x):
            y = (x * x).sum(dim=-1).sum(dim=-1)
            ctx.save_for_backward(x, y)
            return y

        @staticmethod
        def backward(ctx, grad):
            x, y = ctx.saved_tensors
            return grad[:, None, None] * 2 * x + y[:, None, None] * 0

    x = torch.ones(2, 4, 4).requires_grad_()
    y = SquareSum.apply(x)
    gy, = torch.autograd.grad(y[0], x, create_graph=True)
    first, = torch.autograd.grad(gy[0, 0, 0], x, retain_graph=True)
    gy, = torch.autograd.grad(y[0], x, create_graph=True)
    second, = torch.autograd.grad(gy[0, 0, 0], x, retain_graph=True)
    assert first[0, 0, 1].item() == second[0, 0, 1].item()


def test_a_second_backward_through_saved_index_values():
    b = torch.randn(3, requires_grad=True, dtype=torch.double)
    c = torch.zeros(3, dtype=torch.double)
    c[[1, 2]] = b[[1, 1]]
    c.backward(torch.ones(3, dtype=torch.double))
    with pytest.raises(RuntimeError, match="Specify retain_graph=True"):
        c.backward(torch.ones(3, dtype=torch.double))
    c = torch.zeros(3, dtype=torch.double)
    c[[1, 2]] = b[[1, 1]]
    c.backward(torch.ones(3, dtype=torch.double), retain_graph=True)
    c.backward(torch.ones(3, dtype=torch.double))
    c = b + 1
    c.backward(torch.ones(3, dtype=torch.double))
    c.backward(torch.ones(3, dtype=torch.double))


# --- mark_dirty and errors in a Function's definition ---------------------------------------------

def test_mark_dirty_on_a_tensor_that_is_not_an_input_warns():
    class AddInPlaceBad(Function):
        @staticmethod
        def forward(ctx, a, b):
            c = 3 * a
            c.add_(b)
            ctx.mark_dirty(c)
            return c

        @staticmethod
        def backward(ctx, grad):
            return 3 * grad, grad

    a, b = torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = AddInPlaceBad.apply(a.clone(), b)
    assert len(caught) == 1
    assert "mark_dirty" in str(caught[0].message)
    out.sum().backward()
    assert torch.equal(a.grad, torch.full((2,), 3.0))


def test_mark_dirty_input_modified_in_place():
    calls = [0]

    class AddInPlace(Function):
        @staticmethod
        def forward(ctx, a, b):
            a.add_(b)
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def backward(ctx, grad):
            calls[0] += 1
            return grad, grad

    a, b = torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    c = AddInPlace.apply(a.clone(), b)
    c += 2
    c.sum().backward()
    assert calls[0] == 1 and torch.equal(a.grad, torch.ones(2)) and torch.equal(b.grad, torch.ones(2))


def test_mark_dirty_on_an_input_that_does_not_require_grad():
    class AddInPlace(Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.mark_dirty(a)
            return a.add_(b), b + 2

        @staticmethod
        def backward(ctx, ga, gb):
            return ga, ga + gb

    x, y = torch.randn(2, 2), torch.randn(2, 2, requires_grad=True)
    q, p = AddInPlace.apply(x, y)
    assert q is x and type(q.grad_fn) is AddInPlace._backward_cls and q.requires_grad
    q.sum().backward()
    assert torch.equal(y.grad, torch.ones(2, 2))


def test_same_output_returned_twice_and_gradcheck_given_a_list():
    class Twice(Function):
        @staticmethod
        def forward(ctx, x):
            out = x * 2
            return out, out

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 2

    def fn(x):
        a, b = Twice.apply(x)
        assert a is b
        return a + b

    x = torch.randn(3, 3, dtype=torch.double, requires_grad=True)
    assert gradcheck(fn, [x])
    assert gradgradcheck(fn, [x])


def test_dirty_input_returned_twice():
    class TwiceInPlace(Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x, x

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 2

    def fn(x):
        a, b = TwiceInPlace.apply(x.clone())
        assert a is b
        return a + b

    x = torch.randn(3, 3, dtype=torch.double, requires_grad=True)
    assert gradcheck(fn, [x])
    assert gradgradcheck(fn, [x])


def test_definition_errors():
    class NoForward(Function):
        @staticmethod
        def backward(ctx, grad):
            return grad

    class NoBackward(Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

    class BothBackwardAndVjp(Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            return grad

        @staticmethod
        def vjp(ctx, grad):
            return grad

    x = torch.rand(1, requires_grad=True)
    with pytest.raises(NotImplementedError, match="must implement the forward"):
        NoForward.apply(x)
    with pytest.raises(RuntimeError, match="must implement either the backward"):
        NoBackward.apply(x).sum().backward()
    out = BothBackwardAndVjp.apply(x).sum()
    with pytest.raises(RuntimeError, match="Implementing both 'backward' and 'vjp' for a custom Function is "
                                           "not allowed. You should only implement one of them."):
        out.backward()


def test_vjp_alone_is_the_backward():
    class Twice(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def vjp(ctx, grad):
            return grad * 2

    x = torch.ones(2, requires_grad=True)
    Twice.apply(x).sum().backward()
    assert torch.equal(x.grad, torch.full((2,), 2.0))


def test_legacy_instances():
    with pytest.warns(DeprecationWarning, match="should not be instantiated"):
        f = ReturnsItsInput()
    assert isinstance(f, ReturnsItsInput)
    with pytest.raises(RuntimeError, match="non-static forward method is deprecated"):
        f(torch.zeros(1, requires_grad=True))
    assert ReturnsItsInput.apply(torch.zeros(1, requires_grad=True)).grad_fn.name() == "ReturnsItsInputBackward"


def test_no_grad_mode_records_no_graph():
    x = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        y = Identity.apply(x)
        first, second = Pair.apply(x, x)
    assert not y.requires_grad and y.grad_fn is None and x.requires_grad
    assert y is not x and not y._is_view()       # a detached alias of the input
    assert not first.requires_grad and not first._is_view() and first is not x


def test_repr_names_the_custom_node():
    a = torch.ones(1, requires_grad=True)
    assert repr(ReturnsItsInput.apply(a)) == "tensor([1.], grad_fn=<ReturnsItsInputBackward>)"


def test_ctx_is_a_node():
    seen = []

    class Func(Function):
        @staticmethod
        def forward(ctx, x):
            seen.append(isinstance(ctx, torch.autograd.graph.Node))
            return x

        @staticmethod
        def backward(ctx, grad):
            seen.append(isinstance(ctx, torch.autograd.graph.Node))
            return grad

    a = torch.rand(3, requires_grad=True)
    out = Func.apply(a)
    out.sum().backward()
    assert seen == [True, True] and isinstance(out.grad_fn, torch.autograd.graph.Node)
    assert issubclass(torch.autograd.function.BackwardCFunction, torch.autograd.graph.Node)


def test_output_nr_of_custom_outputs():
    class Split(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1, x * 2

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 + 2 * g2

    class CheckSaved(Function):
        @staticmethod
        def forward(ctx, b):
            ctx.save_for_backward(b)
            return b * 2

        @staticmethod
        def backward(ctx, grad):
            b, = ctx.saved_tensors
            assert b.output_nr == 1
            return grad * 2

    a, b = Split.apply(torch.randn(4, requires_grad=True))
    assert (a.output_nr, b.output_nr) == (0, 1)
    CheckSaved.apply(b).sum().backward()


def test_a_non_differentiable_output_fed_to_another_function():
    class WithNoise(Function):
        @staticmethod
        def forward(ctx, x):
            noise = torch.randn(x.shape)
            ctx.mark_non_differentiable(noise)
            return x, noise

        @staticmethod
        def backward(ctx, grad, _):
            return grad

    class First(Function):
        @staticmethod
        def forward(ctx, x, ignored):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad, None

    x = torch.randn(5, requires_grad=True)
    a, b = WithNoise.apply(x)
    b = b + 1
    assert a.requires_grad and not b.requires_grad
    First.apply(a, b).backward(torch.ones(5))
    assert torch.equal(x.grad, torch.ones(5))


def test_gradient_of_a_different_dtype_is_cast_to_the_input_dtype():
    class ToDouble(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad.to(torch.float64)

    d = torch.tensor([1.0, 2.0], requires_grad=True)
    ToDouble.apply(d).sum().backward()
    assert d.grad.dtype == torch.float32 and torch.equal(d.grad, torch.ones(2))


def test_a_deep_chain_of_custom_functions_is_freed_without_recursion():
    class Add(Function):
        @staticmethod
        def forward(ctx, a, b):
            return (a + b) / 2

        @staticmethod
        def backward(ctx, grad):
            return grad / 2, grad / 2

    y = torch.randn(1, requires_grad=True).clone()
    for _ in range(20000):
        y = Add.apply(y, y)
    del y


def test_metadata_referencing_the_output_is_collected():
    class KeepMeta(Function):
        @staticmethod
        def forward(ctx, x, metadata):
            x = x.clone()
            ctx.meta = metadata
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return grad * x, None

    def make(with_backward):
        a = torch.tensor(3.14, requires_grad=True)
        metadata = {}
        out = KeepMeta.apply(a, metadata)
        metadata["foo"] = out
        if with_backward:
            out.sum().backward()
            assert torch.equal(a.grad, a)
        return weakref.ref(out)

    for with_backward in (False, True):
        ref = make(with_backward)
        gc.collect()
        assert ref() is None


# --- reentrant backward ------------------------------------------------------------------------------

def test_simple_reentrant_backward():
    y_data = torch.randn(2, 2)

    class Reenter(Function):
        @staticmethod
        def forward(ctx, x):
            with torch.enable_grad():
                ctx.x = Variable(x, requires_grad=True)
                ctx.y = Variable(y_data, requires_grad=True)
                ctx.output = ctx.x * ctx.y
            return ctx.output.detach()

        @staticmethod
        def backward(ctx, grad):
            with torch.enable_grad():
                ctx.output.sum().backward()
            return ctx.x.grad * grad

    x = torch.randn(2, 2, requires_grad=True)
    Reenter.apply(x).sum().backward()
    assert torch.equal(x.grad, y_data)


def test_variable_makes_a_new_leaf_sharing_the_data():
    x = torch.randn(2)
    v = Variable(x, requires_grad=True)
    assert v is not x and v.requires_grad and v.is_leaf and not x.requires_grad
    assert isinstance(x, Variable) and Variable(x) is not x
    with torch.no_grad():
        v.add_(1)
    assert torch.equal(v, x)


class DeepReentrant(Function):
    @staticmethod
    def forward(ctx, x):
        with torch.enable_grad():
            ctx.x = Variable(x.detach(), requires_grad=True)
            ctx.x = ctx.x - 1
        return ctx.x.detach()

    @staticmethod
    def backward(ctx, grad):
        if ctx.x < 0:
            return grad
        with torch.enable_grad():
            DeepReentrant.apply(ctx.x).sum().backward()
        return grad


def test_reentrant_backward_two_thousand_levels_deep():
    v = torch.tensor(2000.0, requires_grad=True)
    DeepReentrant.apply(v).sum().backward()
    assert v.grad.item() == 1.0
    v2 = torch.tensor(200.0, requires_grad=True)
    DeepReentrant.apply(v2).sum().backward()
    assert v2.grad.item() == 1.0


def test_a_reentrant_backward_runs_to_completion_before_other_nodes():
    order = []

    class Plain(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            order.append("Plain")
            return grad

    class Reentrant(Function):
        @staticmethod
        def forward(ctx, x):
            with torch.enable_grad():
                ctx.x = Variable(x.detach(), requires_grad=True) - 1
            return ctx.x.detach()

        @staticmethod
        def backward(ctx, grad):
            order.append("Reentrant")
            if ctx.x < 0:
                return grad
            with torch.enable_grad():
                Reentrant.apply(ctx.x).backward()
            return grad

    a = Plain.apply(torch.tensor(6.0, requires_grad=True))
    b = Reentrant.apply(torch.tensor(9.0, requires_grad=True))
    (a * b).backward()
    assert order == ["Reentrant"] * 10 + ["Plain"]


def test_an_error_in_a_reentrant_child_reaches_the_parent():
    class Failing(Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        @once_differentiable
        def backward(ctx, grad):
            raise RuntimeError("Simulate error on backward pass")

    b = torch.rand(3, 3, requires_grad=True)
    child_root = Failing.apply(b * b).sum()

    class Parent(Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            child_root.backward()
            return grad

    a = torch.rand(3, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="Simulate error"):
        Parent.apply(a * a).sum().backward()


def test_reentrant_backward_inside_tensor_hooks():
    param = torch.rand(10, requires_grad=True)

    def penalty(grad):
        handle.remove()
        with torch.enable_grad():
            g = grad.detach().requires_grad_()
            ((g * 2) + 5).sum().backward()
        return g.grad + grad

    tmp = param * param
    handle = tmp.register_hook(penalty)
    tmp.sum().backward()
    assert torch.allclose(param.grad, 6 * param)


def test_queued_callbacks_run_once_per_graph_task():
    counter = {"inner": 0, "outer": 0}

    def run(depths):
        counter.update(inner=0, outer=0)

        class Inner(Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            @once_differentiable
            def backward(ctx, grad):
                if 1 in depths:
                    Variable._execution_engine.queue_callback(lambda: counter.update(inner=counter["inner"] + 1))
                return grad

        class Outer(Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            @once_differentiable
            def backward(ctx, grad):
                if 0 in depths:
                    Variable._execution_engine.queue_callback(lambda: counter.update(outer=counter["outer"] + 1))
                inp = grad.detach().requires_grad_()
                with torch.enable_grad():
                    out = Inner.apply(inp).sum()
                out.backward()
                return grad

        torch.autograd.backward([Outer.apply(torch.rand(3, 3, requires_grad=True)).sum()])
        return dict(counter)

    assert run([0]) == {"outer": 1, "inner": 0}
    assert run([1]) == {"outer": 0, "inner": 1}
    assert run([0, 1]) == {"outer": 1, "inner": 1}


def test_a_callback_can_queue_another_callback():
    called = [0]

    def final():
        called[0] += 1

    def adds_another():
        called[0] += 1
        Variable._execution_engine.queue_callback(final)

    class Queue(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        @once_differentiable
        def backward(ctx, grad):
            Variable._execution_engine.queue_callback(adds_another)
            return grad

    Queue.apply(torch.rand(3, requires_grad=True)).sum().backward()
    assert called[0] == 2


def test_callbacks_and_grad_need_a_backward_and_inputs():
    with pytest.raises(RuntimeError, match="Final callbacks can only be installed during backward pass."):
        Variable._execution_engine.queue_callback(lambda: None)
    x = torch.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"`inputs` argument to `grad\(\)` cannot be empty."):
        torch.autograd.grad(2 * x, [], grad_outputs=torch.tensor([1.0]))


# --- gradcheck ---------------------------------------------------------------------------------------

class Jitter(Function):
    """Returns its input; its backward multiplies by ``1 + jitter * rand``: not reproducible."""

    @staticmethod
    def forward(ctx, x, jitter=0.0):
        ctx.jitter = jitter
        return x

    @staticmethod
    def backward(ctx, grad):
        return Jitter.apply(grad, ctx.jitter) * (1 + torch.rand(grad.shape, dtype=grad.dtype) * ctx.jitter), None


@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradcheck_catches_a_nondeterministic_backward(fast_mode):
    x = torch.randn(3, 3, dtype=torch.double, requires_grad=True)
    assert gradcheck(lambda t: Jitter.apply(t, 0.0), x, fast_mode=fast_mode)
    with pytest.raises(RuntimeError, match="Backward is not reentrant"):
        gradcheck(lambda t: Jitter.apply(t, 1e-6), x, fast_mode=fast_mode)
    with pytest.raises(RuntimeError, match="Backward is not reentrant"):
        gradgradcheck(lambda t: Jitter.apply(t, 1e-12), x, fast_mode=fast_mode)
    assert gradcheck(lambda t: Jitter.apply(t, 1e-6), x, nondet_tol=1e-5, fast_mode=fast_mode)
    assert gradgradcheck(lambda t: Jitter.apply(t, 1e-12), x, nondet_tol=1e-5, fast_mode=fast_mode)


def test_gradcheck_message_for_nondeterminism():
    x = torch.randn(2, dtype=torch.double, requires_grad=True)
    with pytest.raises(GradcheckError) as caught:
        gradcheck(lambda t: Jitter.apply(t, 1e-6), x)
    assert str(caught.value) == (
        "Backward is not reentrant, i.e., running backward with same input and grad_output multiple times "
        "gives different values, although analytical gradient matches numerical gradient.The tolerance "
        "for nondeterminism was 0.0.\n\nNOTE: If your op relies on non-deterministic operations i.e., it is "
        "listed here:\nhttps://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html\n"
        "this failure might be expected.\n\nIf you are adding a new operator, please file an issue and then "
        "use one of the\nworkarounds. The workaround depends on how your test invokes "
        "gradcheck/gradgradcheck.\nIf the test\n- manually invokes gradcheck/gradgradcheck, then call "
        "gradcheck/gradgradcheck\n  with `nondet_tol=<tol>` as a keyword argument.\n- is OpInfo-based "
        "(e.g., in test_ops_gradients.py), then modify the OpInfo for the test\n  to have "
        "`gradcheck_nondet_tol=<tol>`.\n- is a Module test (e.g., in common_nn.py), then modify the "
        "corresponding\n  module_test entry to have `gradcheck_nondet_tol=<tol>`\n")


def test_gradcheck_with_an_unrelated_input():
    x = torch.rand(5, dtype=torch.double, requires_grad=True)
    y = torch.rand(5, dtype=torch.double, requires_grad=True)
    assert gradcheck(lambda a, b: a * a, (x, y))
    assert gradgradcheck(lambda a, b: a * a, (x, y))


def test_gradcheck_input_checks():
    x = torch.rand(4)
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        gradcheck(lambda t: t, (x,), raise_exception=False)
    x = torch.ones(1, dtype=torch.float32, requires_grad=True)
    with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double precision"):
        assert gradcheck(lambda t: t, (x,), atol=1e-1)


def test_gradcheck_errors_other_than_mismatches_are_not_swallowed():
    x = torch.ones(2, 2, dtype=torch.double, requires_grad=True)   # double: no float32 warning

    def shifted(t):
        y = t.clone()
        y.register_hook(lambda g: g + 1e-2)
        return y

    with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0"):
        gradcheck(shifted, (x,))
    assert gradcheck(shifted, (x,), raise_exception=False) is False

    def broken(t):
        raise RuntimeError("Not a GradcheckError!")

    with pytest.raises(RuntimeError, match="Not a GradcheckError!"):
        gradcheck(broken, (x,), raise_exception=False)


def test_gradcheck_no_outputs_and_outputs_without_gradient():
    x = torch.ones(1, dtype=torch.double, requires_grad=True)
    assert gradcheck(lambda t: (), (x,))
    with pytest.raises(RuntimeError, match="Numerical gradient for function expected to be zero"):
        gradcheck(lambda t: torch.tensor([t.item()], dtype=torch.double), x)


def test_gradcheck_refuses_outputs_that_change_shape_or_dtype_and_overlapping_inputs():
    a = torch.ones(1, dtype=torch.double, requires_grad=True)

    def grows(x):
        return torch.cat([x, x]) if bool((x >= 1).all()) else x

    def changes_dtype(x):
        return x.to(torch.float32) if bool((x >= 1).all()) else x

    with pytest.raises(AssertionError, match=r"Expected `func` to return outputs with the same shape when inputs "
                                             r"are perturbed on index \(0,\) by 1e-06, but got: shapes "
                                             r"torch.Size\(\[1\]\) and torch.Size\(\[2\]\)."):
        gradcheck(grows, (a,))
    with pytest.raises(AssertionError, match="same dtype when inputs are perturbed on index \\(0,\\) by 1e-06, but "
                                             "got: dtypes torch.float64 and torch.float32."):
        gradcheck(changes_dtype, (a,))
    expanded = torch.ones(1, dtype=torch.double, requires_grad=True).expand(2, 2)
    with pytest.raises(RuntimeError, match="The 0th input has a dimension with stride 0. gradcheck only supports"):
        gradcheck(lambda t: t, (expanded,), raise_exception=False)


# --- anomaly detection ---------------------------------------------------------------------------------

class NanGrad(Function):
    """Sums its first input; its backward puts a nan in the gradient of input 0 or input 1."""

    @staticmethod
    def forward(ctx, a, b, nan_for_a):
        ctx.nan_for_a = nan_for_a
        return a.sum(0, keepdim=True)

    @staticmethod
    def backward(ctx, grad):
        g = grad.expand(4) * torch.tensor([float("nan"), 1.0, 1.0, 1.0])
        return (g, None, None) if ctx.nan_for_a else (None, g, None)


def messages(caught) -> list:
    return [str(w.message) for w in caught if "Anomaly Detection has been enabled" not in str(w.message)]


def test_anomaly_detection_names_the_node_that_returned_nan():
    inp = torch.rand(4, requires_grad=True)
    NanGrad.apply(inp, inp, True).backward()          # without anomaly detection: no error
    out = NanGrad.apply(inp, inp, True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match="Function 'NanGradBackward' returned nan values in its 0th output."):
            with torch.autograd.detect_anomaly():
                out.backward()
    assert any("Anomaly Detection has been enabled" in str(w.message) for w in caught)
    warned, = messages(caught)   # PyTorch appends where in its C++ sources the warning was raised
    assert warned.startswith("Error detected in NanGradBackward. No forward pass information available. "
                             "Enable detect anomaly during forward pass for more information.")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match="Function 'NanGradBackward' returned nan values in its 1th output."):
            with torch.autograd.detect_anomaly():
                out = NanGrad.apply(inp, inp, False)
                out.backward()
    warned, = messages(caught)
    assert warned.startswith("Error detected in NanGradBackward. Traceback of forward call that caused the error:")
    assert "NanGrad.apply(inp, inp, False)" in warned


def test_anomaly_detection_follows_nodes_made_during_a_backward():
    class Outer(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sum(0, keepdim=True)

        @staticmethod
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return NanGrad.apply(grad.expand(4) * x, x, True).expand(4)

    inp = torch.rand(4, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match="'NanGradBackward' returned nan values in its 0th output"):
            with torch.autograd.detect_anomaly():
                out = Outer.apply(inp)
                g, = torch.autograd.grad(out, (inp,), create_graph=True)
                g.sum().backward()
    own, induced = messages(caught)
    assert own.startswith("Error detected in NanGradBackward.") and "NanGrad.apply(" in own
    assert induced.startswith("\n\nPrevious calculation was induced by OuterBackward. Traceback of forward call "
                              "that induced the previous calculation:\n")
    assert "Outer.apply(inp)" in induced


def test_anomaly_detection_without_nan_checks():
    out = NanGrad.apply(torch.rand(4, requires_grad=True), None, True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.detect_anomaly(check_nan=False):
            assert torch.is_anomaly_enabled() and not torch.is_anomaly_check_nan_enabled()
            out.backward(retain_graph=True)
            with torch.autograd.detect_anomaly(check_nan=True):
                with pytest.raises(RuntimeError, match="returned nan values"):
                    out.backward(retain_graph=True)
            out.backward()
    assert not torch.is_anomaly_enabled() and torch.is_anomaly_check_nan_enabled()


def test_anomaly_detection_points_at_a_saved_tensor_changed_in_place():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            with torch.autograd.detect_anomaly():
                a = torch.randn(5, requires_grad=True)
                d1 = a + 1
                d2 = d1 ** 2
                d1 += 1
                torch.autograd.grad(d2.sum(), a)
    warned, = messages(caught)
    assert warned.startswith("Error detected in PowBackward0. Traceback of forward call that caused the error:")


# --- out of scope: a clear NotImplementedError, never a silent difference ---------------------------

class WithJvp(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2

    @staticmethod
    def jvp(ctx, tangent):
        return tangent * 2


def test_vmap_defaults_exist_but_vmap_is_out_of_scope():
    assert WithJvp.generate_vmap_rule is False and hasattr(WithJvp, "vmap")
    with pytest.raises(NotImplementedError, match="vmap"):
        WithJvp.vmap(None, (0,), torch.ones(2))


def test_forward_mode_ad_is_out_of_scope():
    with pytest.raises(NotImplementedError, match="forward-mode AD"):
        with torch.autograd.forward_ad.dual_level():
            pass
    with pytest.raises(NotImplementedError, match="forward-mode AD"):
        torch.autograd.forward_ad.make_dual(torch.ones(2), torch.ones(2))
    x = torch.ones(2, dtype=torch.double, requires_grad=True)
    with pytest.raises(NotImplementedError, match="forward-mode AD"):
        gradcheck(WithJvp.apply, (x,), check_forward_ad=True)
    # The Function itself still works in backward mode
    WithJvp.apply(x).sum().backward()
    assert torch.equal(x.grad, torch.full((2,), 2.0, dtype=torch.double))


def test_torch_func_and_vmap_are_out_of_scope():
    with pytest.raises(NotImplementedError, match="torch.func"):
        torch.func.grad(lambda t: t.sum())
    with pytest.raises(NotImplementedError, match="vmap"):
        torch.vmap(lambda t: t)
    x = torch.ones(2, dtype=torch.double, requires_grad=True)
    with pytest.raises(NotImplementedError, match="vmap"):
        gradcheck(lambda t: t * 2, (x,), check_batched_grad=True)


def test_unknown_gradcheck_options_are_refused():
    x = torch.ones(2, dtype=torch.double, requires_grad=True)
    with pytest.raises(TypeError, match="unexpected keyword argument 'no_such_option'"):
        gradcheck(lambda t: t * 2, (x,), no_such_option=True)


def test_reentrant_backward_from_another_thread_has_its_own_depth():
    results = []

    def work():
        v = torch.tensor(50.0, requires_grad=True)
        DeepReentrant.apply(v).sum().backward()
        results.append(v.grad.item())

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert results == [1.0]
