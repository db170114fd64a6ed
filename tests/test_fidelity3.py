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
        np.array_equal(np.signbit(a) & ~np.isnan(a), np.signbit(b) & ~np.isnan(b))   # a nan's sign never shows


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


# ------------------------------------------------------------------ formulas at the edges of their domain
EDGE_INPUTS = [0.0, -0.0, 1.0, -1.0, 0.5, INF, -INF, NAN]
EDGE_GRADIENTS = [INF, -INF, NAN, -2.0, 1.0, 1.0, INF, 3.0]
# PyTorch 2.13 (float32): (program, values, gradient for ones, second derivative, gradient for EDGE_GRADIENTS)
EDGES = [
    ("0 ** x", [1.0, 1.0, 0.0, INF, 0.0, 0.0, INF, NAN], [0.0, 0.0, 0.0, -INF, 0.0, 0.0, -INF, NAN],
     [NAN, NAN, NAN, INF, NAN, NAN, INF, NAN], [NAN, NAN, NAN, INF, 0.0, 0.0, -INF, NAN]),
    ("0.0 ** x", [1.0, 1.0, 0.0, INF, 0.0, 0.0, INF, NAN], [0.0, 0.0, 0.0, -INF, 0.0, 0.0, -INF, NAN],
     [NAN, NAN, NAN, INF, NAN, NAN, INF, NAN], [NAN, NAN, NAN, INF, 0.0, 0.0, -INF, NAN]),
    ("(-2.0) ** x", [1.0, 1.0, -2.0, -0.5, NAN, INF, 0.0, NAN], [NAN] * 8, [NAN] * 8, [NAN] * 8),
    ("1 ** x", [1.0] * 8, [0.0] * 8, [0.0] * 8, [NAN, NAN, NAN, -0.0, 0.0, 0.0, NAN, 0.0]),
    ("torch.tensor(0.) ** x", [1.0, 1.0, 0.0, INF, 0.0, 0.0, INF, NAN], [0.0, 0.0, 0.0, -INF, 0.0, 0.0, -INF, NAN],
     [NAN, NAN, NAN, INF, NAN, NAN, INF, NAN], [NAN, NAN, NAN, INF, 0.0, 0.0, -INF, NAN]),
    ("x ** torch.tensor(0.)", [1.0] * 8, [0.0] * 8, [NAN, NAN, -0.0, -0.0, -0.0, -0.0, -0.0, NAN], [0.0] * 8),
    ("x ** 0", [1.0] * 8, [0.0] * 8, None, [0.0] * 8),
    ("x ** 0.5", [0.0, -0.0, 1.0, NAN, 0.7071067690849304, INF, NAN, NAN],
     [INF, -INF, 0.5, NAN, 0.7071067690849304, 0.0, NAN, NAN],
     [-INF, -INF, -0.25, NAN, -0.7071067690849304, -0.0, -0.0, NAN], [INF, INF, NAN, NAN, 0.7071067690849304, 0.0, NAN, NAN]),
    ("x ** -0.5", [INF, -INF, 1.0, NAN, 1.4142135381698608, 0.0, NAN, NAN],
     [-INF, -INF, -0.5, NAN, -1.4142135381698608, -0.0, -0.0, NAN], [INF, INF, 0.75, NAN, 4.242640495300293, 0.0, 0.0, NAN],
     [-INF, INF, NAN, NAN, -1.4142135381698608, -0.0, NAN, NAN]),
    ("x ** 2", [0.0, 0.0, 1.0, 1.0, 0.25, INF, INF, NAN], [0.0, -0.0, 2.0, -2.0, 1.0, INF, -INF, NAN], [2.0] * 8,
     [NAN, NAN, NAN, 4.0, 1.0, INF, -INF, NAN]),
    ("x.relu()", [0.0, -0.0, 1.0, 0.0, 0.5, INF, 0.0, NAN], [0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0], [0.0] * 8,
     [0.0, 0.0, NAN, 0.0, 1.0, 1.0, 0.0, 3.0]),
    ("torch.nn.functional.elu(x)", [0.0, -0.0, 1.0, -0.6321205496788025, 0.5, INF, -1.0, NAN],
     [1.0, 1.0, 1.0, 0.3678794503211975, 1.0, 1.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.3678794503211975, 0.0, 0.0, 0.0, 0.0],
     [INF, -INF, NAN, -0.735758900642395, 1.0, 1.0, NAN, 3.0]),
    ("x.clamp(-0.5, 0.5)", [0.0, -0.0, 0.5, -0.5, 0.5, 0.5, -0.5, NAN], [1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0], None,
     [INF, -INF, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]),
    ("torch.where(x > 0.5, x, -x)", [-0.0, 0.0, 1.0, 1.0, -0.5, INF, INF, NAN], [-1.0, -1.0, 1.0, -1.0, -1.0, 1.0, -1.0, -1.0],
     None, [-INF, INF, NAN, 2.0, -1.0, 1.0, -INF, -3.0]),
    ("x % 1.5", [0.0, -0.0, 1.0, 0.5, 0.5, NAN, NAN, NAN], [1.0] * 8, None, [INF, -INF, NAN, -2.0, 1.0, 1.0, INF, 3.0]),
]


def close(t, expected) -> bool:
    """PyTorch's values: nan, infinities and signs of zero exactly, the rest within float32 rounding."""
    a, b = np.asarray(t.detach().numpy(), np.float64), np.asarray(expected, np.float64)
    exact = ~np.isfinite(b) | (b == 0)
    return a.shape == b.shape and same(torch.tensor(a[exact]), b[exact]) and np.allclose(a[~exact], b[~exact], rtol=1e-6)


@pytest.mark.filterwarnings("ignore:invalid value encountered in reduce:RuntimeWarning")   # g.sum() of inf and -inf
@pytest.mark.parametrize("program, values, gradient, second, gradient_of_edges", EDGES, ids=[e[0] for e in EDGES])
def test_values_and_gradients_at_the_edges_of_the_domain_are_pytorchs(program, values, gradient, second,
                                                                     gradient_of_edges):
    x = torch.tensor(EDGE_INPUTS, requires_grad=True)
    y = eval(program)
    assert close(y, values)
    g, = torch.autograd.grad(y, x, torch.ones_like(y), create_graph=True)
    assert close(g, gradient)
    if second is None:   # PyTorch's first derivative does not depend on x here
        assert not g.requires_grad
    else:
        assert close(torch.autograd.grad(g.sum(), x)[0], second)
    y = eval(program)
    assert close(torch.autograd.grad(y, x, torch.tensor(EDGE_GRADIENTS))[0], gradient_of_edges)


def test_the_issues_scalar_base_pow_at_zero():
    b = torch.tensor([1., 2., 3.], requires_grad=True)
    assert same(torch.autograd.grad((0 ** b).sum(), b)[0], [0., 0., 0.])   # minigrad gave nan


@pytest.mark.parametrize("values, max_gradient, min_gradient", [
    ([1., 3., 3.], [0.0, 0.5, 0.5], [1.0, 0.0, 0.0]),
    ([NAN, NAN, NAN], [1 / 3] * 3, [1 / 3] * 3),
    ([1., NAN, NAN], [0.0, 0.5, 0.5], [0.0, 0.5, 0.5]),
    ([-INF, -INF], [0.5, 0.5], [0.5, 0.5]),
])
def test_max_and_min_share_the_gradient_between_equal_or_nan_winners(values, max_gradient, min_gradient):
    for op, expected in (("max", max_gradient), ("min", min_gradient)):
        x = torch.tensor(values, requires_grad=True)
        assert close(torch.autograd.grad(getattr(x, op)(), x)[0], expected)
        x = torch.tensor(values, requires_grad=True)   # an infinite gradient reaches only the winners
        winners = [INF if e else 0.0 for e in expected]
        assert same(torch.autograd.grad(getattr(x, op)(), x, torch.tensor(INF))[0], winners)
    x = torch.tensor([2., 2.], requires_grad=True)
    assert torch.autograd.grad(x.max(), x, torch.tensor(-1.))[0].tolist() == [-0.5, -0.5]


def test_negative_zero_keeps_its_sign_through_relu_clamp_elu_and_remainder():
    x = torch.tensor([-0.0, 0.0])
    for y in (x.relu(), x.clamp(max=0.0), x.clamp(min=0.0), torch.nn.functional.elu(x), x % 1.5):
        assert repr(y) == "tensor([-0., 0.])"   # PyTorch 2.13 prints the same for each
    assert repr(torch.tensor([-0.0, 3.0, -3.0]) % -1.5) == "tensor([-0., 0., -0.])"


# ------------------------------------------------------------------ grad mode as decorators
def grad_enabled() -> bool:
    return torch.is_grad_enabled()


def test_no_grad_and_enable_grad_decorate_without_parentheses():
    assert torch.no_grad(grad_enabled)() is False and torch.no_grad(grad_enabled).__name__ == "grad_enabled"

    @torch.enable_grad
    def recording():
        return torch.is_grad_enabled()
    with torch.no_grad():
        assert recording() is True and torch.enable_grad(grad_enabled)() is True
        assert torch.is_grad_enabled() is False
    assert type(torch.enable_grad(None)).__name__ == "enable_grad"   # None: the context manager itself


def test_a_decorated_generator_runs_each_step_in_the_mode_and_the_caller_keeps_its_own():
    @torch.no_grad()
    def steps():
        yield torch.is_grad_enabled()
        try:
            yield torch.is_grad_enabled()
        except ValueError:
            yield ("thrown", torch.is_grad_enabled())

    generator = steps()
    assert (next(generator), torch.is_grad_enabled(), next(generator)) == (False, True, False)
    assert generator.throw(ValueError()) == ("thrown", False)   # PyTorch 2.13: (1, False) for the same program
    assert list(torch.set_grad_enabled(False)(steps.__wrapped__)()) == [False, False]
    assert torch.is_grad_enabled()


def test_a_decorated_coroutine_runs_in_the_callers_mode_as_in_pytorch():
    import asyncio
    import inspect

    @torch.no_grad()
    async def body():
        await asyncio.sleep(0)
        return torch.is_grad_enabled()
    assert asyncio.run(body()) is True and not inspect.iscoroutinefunction(body)   # PyTorch 2.13: True, False


def test_decorating_a_class_warns_as_pytorch_does():
    class Made:
        def __init__(self):
            self.recording = torch.is_grad_enabled()
    with pytest.warns(FutureWarning) as caught:
        made = torch.no_grad()(Made)
    assert str(caught[0].message) == (
        "Decorating classes is deprecated and will be disabled in future versions. You should only decorate "
        "functions or methods. To preserve the current behavior of class decoration, you can directly decorate the "
        "`__init__` method and nothing else.")
    assert made().recording is False and type(made).__name__ == "function"
    with pytest.warns(FutureWarning):
        assert torch.no_grad(Made)().recording is False


def test_set_grad_enabled_as_a_decorator_leaves_the_mode_alone_until_called():
    decorated = torch.set_grad_enabled(False)(grad_enabled)
    assert torch.is_grad_enabled() and decorated() is False and torch.is_grad_enabled()
    assert type(torch.set_grad_enabled(False).clone()).__name__ == "set_grad_enabled"
    torch.set_grad_enabled(True)


# ------------------------------------------------------------------ found by the extended fuzzer
BACKWARD_TWICE = (
    "RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
    "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you "
    "need to access saved tensors after calling backward.")


def test_copy_slices_lets_go_of_its_node_after_backward_as_pytorchs_does():
    x0 = torch.ones(3, 2, requires_grad=True)
    x1 = x0 + 0
    x1[None] = torch.tensor(1.0, requires_grad=True)   # fill_ saves nothing, yet PyTorch refuses a second pass
    (x1 * 2).sum().backward()
    assert message(lambda: x1.sigmoid().sum().backward()) == BACKWARD_TWICE
    y = x0 * 1
    y[0] = 5.0
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    assert x0.grad.tolist() == [[0.0, 0.0], [2.0, 2.0], [2.0, 2.0]]   # PyTorch 2.13


def test_what_a_fill_or_copy_overwrote_gets_zeros_even_for_an_infinite_gradient():
    x0 = torch.tensor([1.0, 2.0], requires_grad=True)
    for write in (lambda y: y.__setitem__(-1, torch.tensor(0.5, dtype=torch.float64)), lambda y: y.fill_(2.0),
                  lambda y: y.copy_(torch.ones(2)), lambda y: y.zero_()):
        y = x0 + 0
        write(y)
        x0.grad = None
        y.backward(torch.tensor([NAN, INF]))
        assert same(x0.grad, [NAN, 0.0] if y.grad_fn.name() == "torch::autograd::CopySlices" else [0.0, 0.0])


def test_remainder_records_pytorchs_nodes():
    a = torch.tensor([1., 2.], requires_grad=True)
    assert [(r.grad_fn.name(), len(r.grad_fn.next_functions)) for r in (a % 1.5, a % torch.tensor(1.5), 3 % a)] == [
        ("RemainderBackward0", 1), ("RemainderBackward1", 2), ("torch::autograd::NotImplemented", 1)]
    assert message(lambda: (3 % a).sum().backward()) == "RuntimeError: derivative for aten::remainder is not implemented"


def test_softmax_of_infinities_is_nan_without_a_numpy_warning():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = torch.tensor([float("inf"), float("inf"), 0.0])
        assert torch.isnan(x.softmax(0)).tolist() == [True, True, True]
        assert torch.isnan(x.log_softmax(0)).tolist() == [True, True, True]


def test_writing_a_tensor_of_another_dtype_through_an_index_tensor_is_refused_as_in_pytorch():
    y = torch.zeros(2)
    assert message(lambda: y.__setitem__(torch.tensor([0, 1]), torch.tensor(1., dtype=torch.float64))) == (
        "RuntimeError: Index put requires the source and destination dtypes match, got Float for the destination and "
        "Double for the source.")
    assert message(lambda: y.__setitem__(torch.tensor([True, False]), torch.tensor([1, 2]))) == (
        "RuntimeError: shape mismatch: value tensor of shape [2] cannot be broadcast to indexing result of shape [1]")
    y[torch.tensor([True, False])] = torch.tensor(3, dtype=torch.int64)   # one value through one mask: cast
    y[0] = torch.tensor(4., dtype=torch.float64)                          # a view: copy_ casts
    assert y.tolist() == [4.0, 0.0]


def test_a_slice_that_covers_a_dimension_writes_into_the_tensor_itself():
    x = torch.zeros(2, 3, requires_grad=True)
    names = {}
    for key in ["0:", "0:2, :", "0:5", "::1, ...", "-2:", ":, 0:3", "1:", "..., 0:3"]:
        y = x * 1
        exec(f"y[{key}] = 1.5")
        names[key] = y.grad_fn.name()
    assert names == {"0:": "FillBackward3", "0:2, :": "FillBackward3", "0:5": "FillBackward3",   # PyTorch 2.13
                     "::1, ...": "FillBackward3", "-2:": "torch::autograd::CopySlices", ":, 0:3": "FillBackward3",
                     "1:": "torch::autograd::CopySlices", "..., 0:3": "FillBackward3"}


def test_writing_into_a_view_of_an_expanded_tensor_writes_its_shared_memory_as_pytorch_does():
    g = torch.ones(1).expand(10)
    g[0] = 0   # PyTorch 2.13 writes (every element is the same memory cell); minigrad raised numpy's ValueError
    assert g.tolist() == [0.0] * 10
    g[0].add_(2)
    assert g.tolist() == [2.0] * 10
    assert message(lambda: g.add_(1)) == (
        "RuntimeError: unsupported operation: more than one element of the written-to tensor refers to a single "
        "memory location. Please clone() the tensor before performing the operation.")
    x0 = torch.tensor([5.0], requires_grad=True)
    x1, = torch.autograd.grad(x0.sum(), [x0])   # an expanded gradient of one element
    with torch.no_grad():
        x1.add_(1.0)
    assert x1.tolist() == [2.0]
    g = torch.ones(1).expand(10)
    with pytest.warns(UserWarning) as caught:
        g[torch.tensor([0, 1])] = 2.0
        g[g > 0] = 3.0
    assert [str(w.message) for w in caught] == [
        "Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before performing this "
        "operation. This also applies to advanced indexing e.g. tensor[indices] = tensor",
        "Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before performing this "
        "operation. This also applies to advanced indexing e.g. tensor[mask] = scalar"]
    assert g.tolist() == [3.0] * 10
    y = torch.ones(3, 1).expand(3, 4).clone()
    y[:, 0] = torch.tensor([[1.0], [2.0], [3.0]]).view(3)
    assert y[:, 0].tolist() == [1.0, 2.0, 3.0]


def test_a_value_with_leading_ones_is_checked_for_its_dtype_after_they_are_viewed_away():
    x3 = torch.tensor([[[3.0, 1.5], [0.0, -1.5]]], requires_grad=True).clone()
    x4 = torch.tensor([[[-3.0, 1.0]]], dtype=torch.float64, requires_grad=True)
    assert message(lambda: x3.__setitem__(x3 > 0, x4)) == (   # PyTorch 2.13
        "RuntimeError: Index put requires the source and destination dtypes match, got Float for the destination and "
        "Double for the source.")


# ------------------------------------------------------------------ misuse PyTorch refuses (its types and texts)
GRAD_DTYPE_TAIL = (
    "The gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's "
    "grad_dtype attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the "
    "dtypes of a tensor and its gradient may break downstream systems that assume they match.")


def test_assigning_data_checks_what_pytorch_checks():
    x = torch.ones(2, requires_grad=True)
    x.data = torch.ones(3, dtype=torch.float64)   # another float dtype and shape: allowed, as in PyTorch 2.13
    assert x.dtype == torch.float64 and x.shape == (3,) and x.requires_grad
    assert message(lambda: setattr(x, "data", torch.ones(2, dtype=torch.int64))) == (
        "RuntimeError: data set to a tensor that requires gradients must be floating point or complex dtype")
    y = torch.ones(2)
    y.data = torch.ones(3, dtype=torch.int64)   # no gradient required: any dtype
    assert y.tolist() == [1, 1, 1]
    assert message(lambda: setattr(y, "data", [1.0, 2.0])) == "TypeError: Variable data has to be a tensor, but got list"
    sparse = torch.sparse_coo_tensor(torch.tensor([[0, 1], [1, 0]]), torch.tensor([1., 2.]), (2, 2))
    incompatible = ("RuntimeError: Attempted to call `variable.set_data(tensor)`, but `variable` and `tensor` have "
                    "incompatible tensor type.")
    assert message(lambda: setattr(torch.ones(2, 2, requires_grad=True), "data", sparse)) == incompatible
    assert message(lambda: setattr(sparse, "data", torch.ones(2, 2))) == incompatible


def test_assigning_grad_checks_what_pytorch_checks():
    x = torch.ones(2, requires_grad=True)
    assert message(lambda: setattr(x, "grad", x)) == "RuntimeError: can't assign Variable as its own grad"
    assert message(lambda: setattr(x, "grad", 0)) == (
        "TypeError: assigned grad expected to be a Tensor or None but got grad of type int")
    assert message(lambda: setattr(x, "grad", [1.0, 2.0])) == (
        "TypeError: assigned grad expected to be a Tensor or None but got grad of type list")
    assert message(lambda: setattr(x, "grad", torch.ones(3, dtype=torch.float64))) == (   # dtype is checked first
        "RuntimeError: attempting to assign a gradient with dtype 'double' to a tensor with grad_dtype 'Float'. "
        + GRAD_DTYPE_TAIL)
    assert message(lambda: setattr(torch.ones(2, dtype=torch.int64), "grad", torch.ones(2))) == (
        "RuntimeError: attempting to assign a gradient with dtype 'float' to a tensor with grad_dtype 'Long'. "
        + GRAD_DTYPE_TAIL)
    assert message(lambda: setattr(x, "grad", torch.ones(3))) == (
        "RuntimeError: attempting to assign a gradient of size '[3]' to a tensor of size '[2]'. Please ensure that the "
        "gradient and the tensor are the same size")
    x.grad = x.detach()
    assert x.grad is not x and x.grad.tolist() == [1.0, 1.0]
    y = x * 2
    y.grad = torch.ones(2)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # PyTorch warns about a non-leaf's .grad only while it is None
        assert y.grad.tolist() == [1.0, 1.0]


def test_deleting_attributes_answers_as_pytorch():
    x = torch.ones(2, requires_grad=True)
    x.grad = torch.ones(2)
    del x.grad
    assert x.grad is None
    assert message(lambda: delattr(x, "data")) == "RuntimeError: Deleting tensor data is not allowed. Delete tensor instead!"
    assert message(lambda: delattr(x, "requires_grad")) == "RuntimeError: requires_grad must be a bool"
    for name in ("grad_fn", "shape", "is_leaf", "_version"):
        assert message(lambda: delattr(x, name)) == (
            f"AttributeError: attribute '{name}' of 'torch._C.TensorBase' objects is not writable")
    x.note = 1
    del x.note
    assert not hasattr(x, "note")


def test_requires_grad_on_a_non_leaf():
    y = torch.ones(2, requires_grad=True) * 2
    assert y.requires_grad_() is y and y.requires_grad   # PyTorch returns the tensor
    assert message(lambda: y.requires_grad_(False)) == (
        "RuntimeError: you can only change requires_grad flags of leaf variables. If you want to use a computed "
        "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
    assert message(lambda: setattr(y, "requires_grad", True)) == (
        "RuntimeError: you can only change requires_grad flags of leaf variables.")


def test_module_train_mode_must_be_a_bool():
    layer = torch.nn.Linear(2, 2)
    for mode in ("invalid", 0):
        assert message(lambda: layer.train(mode)) == "ValueError: training mode is expected to be boolean"
    assert layer.training is True


def test_a_module_or_parameter_met_twice_is_listed_once_unless_asked():
    layer = torch.nn.Linear(2, 2)
    twice = torch.nn.Sequential(layer, layer)
    assert [n for n, _ in twice.named_parameters()] == ["0.weight", "0.bias"]
    assert [n for n, _ in twice.named_parameters(remove_duplicate=False)] == ["0.weight", "0.bias", "1.weight", "1.bias"]
    assert len(list(twice.children())) == 1 and len(list(twice.named_children())) == 1
    assert [n for n, _ in twice.named_modules()] == ["", "0"] and len(list(twice.modules())) == 2
    assert [n for n, _ in twice.named_modules(remove_duplicate=False)] == ["", "0", "1"]
    a, b = torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)
    b.weight = a.weight   # tied weights
    tied = torch.nn.Sequential(a, b)
    assert len(list(tied.parameters())) == 3
    assert [n for n, _ in tied.named_parameters(remove_duplicate=False)] == ["0.weight", "0.bias", "1.weight", "1.bias"]


def test_randint_has_both_of_pytorchs_forms():
    torch.manual_seed(0)
    for made in (torch.randint(5, (3,)), torch.randint(2, 5, (3,)), torch.randint(high=5, size=(3,)),
                 torch.randint(low=2, high=5, size=[3]), torch.randint(5, size=(3,))):
        assert made.shape == (3,) and made.dtype == torch.int64 and 0 <= made.min().item() and made.max().item() < 5
    assert torch.randint(5, ()).shape == () and torch.randint(5, (3,), dtype=torch.float32).dtype == torch.float32
    assert torch.randint(5, (2,), dtype=torch.float32, requires_grad=True).requires_grad
    assert message(lambda: torch.randint(5, 2)) == (
        "TypeError: randint(): argument 'size' (position 2) must be tuple of ints, not int")
    assert message(lambda: torch.randint(5, 2, (3,))) == (
        "RuntimeError: random_ expects 'from' to be less than 'to', but got from=5 >= to=2")
    assert message(lambda: torch.randint(2.5, (3,))) == (
        "TypeError: randint(): argument 'high' (position 1) must be int, not float")
    assert message(lambda: torch.randint(5, (3,), requires_grad=True)) == (
        "RuntimeError: Only Tensors of floating point and complex dtype can require gradients")
    assert message(lambda: torch.randint(5)).startswith(
        "TypeError: randint() received an invalid combination of arguments - got (int), but expected one of:\n"
        " * (int high, tuple of ints size, *, torch.Generator generator, Tensor out = None, torch.dtype dtype = None, "
        "torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n")


# ------------------------------------------------------------------ custom Functions and views
NOT_AN_INPUT = ("ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have been mutated "
                "should be passed to ctx.mark_dirty().")


class DirtyIntermediateView(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        v = (x * 2)[:1]
        v.mul_(3)
        ctx.mark_dirty(v)
        return v

    @staticmethod
    def backward(ctx, grad):
        return grad


class DirtyFreshTensor(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x * 2
        ctx.mark_dirty(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        return grad


@pytest.mark.filterwarnings("ignore:ctx.mark_dirty")
def test_mark_dirty_on_a_view_of_an_intermediate_is_refused_as_not_an_input():
    x = torch.ones(2, requires_grad=True)
    assert message(lambda: DirtyIntermediateView.apply(x)) == "RuntimeError: " + NOT_AN_INPUT   # PyTorch 2.13
    assert DirtyIntermediateView.apply(torch.ones(2)).tolist() == [6.0]   # no graph recorded: allowed


def test_mark_dirty_on_a_non_input_warns_only_for_a_fresh_tensor_while_recording():
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError):
            DirtyIntermediateView.apply(torch.ones(2, requires_grad=True))
        DirtyIntermediateView.apply(torch.ones(2))
        DirtyFreshTensor.apply(torch.ones(2, requires_grad=True))
    assert [str(w.message) for w in caught] == [NOT_AN_INPUT]   # PyTorch 2.13: the fresh tensor's warning only


def test_a_view_made_and_changed_in_no_grad_prints_an_invalid_grad_fn():
    a = torch.ones(1, requires_grad=True).clone()
    with torch.no_grad():
        v = a[:]
        v.mul_(2)
    assert repr(v) == str(v) == f"{v}" == "tensor([2.], grad_fn=<Invalid>)"   # PyTorch 2.13 (minigrad raised)
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode"):
        v * 2
    b = torch.ones(1, requires_grad=True).clone()
    with torch.no_grad():
        w = b[:]
    b.mul_(2)
    assert repr(w) == "tensor([2.], grad_fn=<Invalid>)"


def test_inplace_function_is_a_function_with_an_inplace_flag():
    from minigrad.autograd.function import InplaceFunction

    class Double(InplaceFunction):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2
    x = torch.ones(2, requires_grad=True)
    Double.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    with pytest.warns(DeprecationWarning):   # instantiating any Function warns, as in PyTorch 2.13
        assert Double(inplace=True).inplace is True


DETACHED_IN_PLACE = ("RuntimeError: Trying to use a saved tensor that has been detached in-place, i.e. with "
                     ".detach_().This is not supported, please use out-of-place `.detach()` instead")


def test_detach_in_place_of_a_saved_tensor_is_caught_at_backward():
    x = torch.ones(2, requires_grad=True)
    y = x * 1
    w = y * y   # saves y
    y.detach_()
    assert message(lambda: w.sum().backward()) == DETACHED_IN_PLACE
    y = x.exp()   # saves its result
    z = y.sin()
    y.detach_()
    assert message(lambda: z.sum().backward()) == DETACHED_IN_PLACE


def test_a_leaf_detached_in_place_gets_no_gradient():
    x = torch.ones(2, requires_grad=True)
    w = x * x
    x.detach_()
    w.sum().backward()
    assert x.grad is None   # PyTorch 2.13


# ------------------------------------------------------------------ gradients and the engine
def test_materialized_zero_gradients_require_grad_under_create_graph():
    x, unused = torch.ones(2, requires_grad=True), torch.ones(3, requires_grad=True)
    gx, gu = torch.autograd.grad((x * x).sum(), [x, unused], create_graph=True, materialize_grads=True)
    assert gu.tolist() == [0.0] * 3 and gu.requires_grad and gu.is_leaf
    assert torch.autograd.grad(gu.sum(), unused, allow_unused=True) == (None,)   # a further grad() works
    gx, gu = torch.autograd.grad((x * x).sum(), [x, unused], materialize_grads=True)
    assert not gu.requires_grad


def test_a_sparse_gradient_is_added_into_a_dense_grad():
    sparse = torch.sparse_coo_tensor(torch.tensor([[0], [1]]), torch.tensor([5.]), (2, 2))

    class SparseGradient(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            return sparse
    x = torch.ones(2, 2, requires_grad=True)
    x.grad = torch.ones(2, 2)
    SparseGradient.apply(x).sum().backward()
    assert x.grad.tolist() == [[1.0, 6.0], [1.0, 1.0]]   # PyTorch 2.13


def test_a_dense_gradient_accumulated_into_a_sparse_grad_makes_it_dense():
    x = torch.ones(2, 2, requires_grad=True)
    x.grad = torch.sparse_coo_tensor(torch.tensor([[0, 1], [1, 0]]), torch.tensor([1., 2.]), (2, 2))
    (x * 2).sum().backward()
    assert x.grad.layout == torch.strided and x.grad.tolist() == [[2.0, 3.0], [4.0, 2.0]]   # PyTorch 2.13


class NoneRefused(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        if grad is None:
            raise RuntimeError("no gradient")
        return grad * 2


class OnesForZeros(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2 if bool((grad != 0).any()) else torch.ones_like(grad)


UNDEFINED_COMPATIBILITY = (
    "Backwards compatibility: New undefined gradient support checking feature is enabled by default, but it may break "
    "existing callers of this function. If this is true for you, you can call this function with "
    "\"check_undefined_grad=False\" to disable the feature")


def test_gradcheck_checks_undefined_output_gradients_as_pytorch_does():
    x = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)
    with pytest.warns(UserWarning) as caught:
        with pytest.raises(torch.autograd.GradcheckError) as error:
            torch.autograd.gradcheck(NoneRefused.apply, (x,))
    assert str(error.value) == ('Expected backward function to handle undefined output grads. Please look at "Notes '
                                'about undefined output gradients" in "tools/autograd/derivatives.yaml"')
    assert str(error.value.__cause__) == "no gradient" and str(caught[0].message) == UNDEFINED_COMPATIBILITY
    with pytest.warns(UserWarning):
        assert torch.autograd.gradcheck(NoneRefused.apply, (x,), raise_exception=False) is False
    assert torch.autograd.gradcheck(NoneRefused.apply, (x,), check_undefined_grad=False) is True   # minigrad said True


def test_gradcheck_checks_that_backward_is_multiplied_by_the_gradient():
    x = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)
    for options in ({}, {"check_undefined_grad": False}):
        with pytest.raises(torch.autograd.GradcheckError, match="^backward not multiplied by grad_output$"):
            torch.autograd.gradcheck(OnesForZeros.apply, (x,), **options)
    assert torch.autograd.gradcheck(OnesForZeros.apply, (x,), raise_exception=False) is False


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


def test_sorting_bool_and_uint8_tensors_in_descending_order():
    # found by the fuzzer: numpy cannot negate bools (TypeError) and wraps uint8 around (a wrong order)
    values, indices = torch.sort(torch.tensor([True, False, True]), 0, descending=True)
    assert values.tolist() == [True, True, False] and indices.tolist() == [0, 2, 1]   # PyTorch 2.13
    values, indices = torch.tensor([0, 1, 2], dtype=torch.uint8).sort(descending=True)
    assert values.tolist() == [2, 1, 0] and indices.tolist() == [2, 1, 0]


@pytest.mark.parametrize("make, name", [(lambda x: x.min(), "Min1"), (lambda x: x.sqrt(), "Sqrt"),
                                        (lambda x: x.max(0)[0], "Max")])
def test_the_modified_by_an_inplace_operation_message_names_the_op_as_pytorch(make, name):
    """PyTorch 2.13 drops "Backward" and only a final 0: MinBackward1 is "Min1", SqrtBackward0 "Sqrt"."""
    x = torch.rand(2, 3, requires_grad=True) if name == "Max" else torch.rand(3, requires_grad=True)
    y = make(x)
    z = y * y if name == "Max" else y
    with torch.no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match=rf"which is output 0 of {name}, is at version 1;"):
        z.sum().backward()


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


def test_a_saved_output_detached_in_place_is_still_usable():
    x = torch.ones(2, requires_grad=True)
    y = x.exp()    # ExpBackward0 saves its result y
    z = y * 1
    y.detach_()
    z.sum().backward()
    assert x.grad.tolist() == pytest.approx([2.7182817] * 2)   # PyTorch 2.13: no error for a saved output


def test_detach_in_place_is_reported_before_an_in_place_change():
    x = torch.ones(2, requires_grad=True)
    y = x * 1
    w = y * y
    with torch.no_grad():
        y.add_(1)
    y.detach_()
    assert message(lambda: w.sum().backward()) == DETACHED_IN_PLACE   # PyTorch 2.13
