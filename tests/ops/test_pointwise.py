"""Pointwise functions and activations (``minigrad/ops/pointwise.py``, ``activation.py``) against PyTorch 2.13:
values and gradients at the edges of their domains, signed zeros, clamp with tensor bounds, where.
"""
import pytest

import minigrad as torch

from helpers import INF, NAN, close, same


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


def test_a_scalar_base_pow_at_zero_is_pytorchs():
    b = torch.tensor([1., 2., 3.], requires_grad=True)
    assert same(torch.autograd.grad((0 ** b).sum(), b)[0], [0., 0., 0.])   # minigrad gave nan


def test_negative_zero_keeps_its_sign_through_relu_clamp_elu_and_remainder():
    x = torch.tensor([-0.0, 0.0])
    for y in (x.relu(), x.clamp(max=0.0), x.clamp(min=0.0), torch.nn.functional.elu(x), x % 1.5):
        assert repr(y) == "tensor([-0., 0.])"   # PyTorch 2.13 prints the same for each
    assert repr(torch.tensor([-0.0, 3.0, -3.0]) % -1.5) == "tensor([-0., 0., -0.])"


def test_softmax_of_infinities_is_nan_without_a_numpy_warning():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = torch.tensor([float("inf"), float("inf"), 0.0])
        assert torch.isnan(x.softmax(0)).tolist() == [True, True, True]
        assert torch.isnan(x.log_softmax(0)).tolist() == [True, True, True]


def test_a_second_backward_through_where_is_refused_because_where_saved_its_condition():
    x = torch.tensor([2.5, -1.0], requires_grad=True)
    y = torch.where(x > 0, x, torch.tensor(1.0))
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        (y * y).sum().backward()


@pytest.mark.parametrize("bounds, edges, grads", [
    ({"min": "lo"}, ["AccumulateGrad", "AccumulateGrad", None], ([0.0, 10.0, 100.0], [1.0, 0.0, 0.0], None)),
    ({"min": "lo", "max": "hi"}, ["AccumulateGrad"] * 3, ([0.0, 10.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 100.0])),
    ({"max": "hi"}, ["AccumulateGrad", None, "AccumulateGrad"], ([1.0, 10.0, 0.0], None, [0.0, 0.0, 100.0])),
])
def test_clamp_with_tensor_bounds_sends_each_gradient_where_its_value_came_from(bounds, edges, grads):
    """PyTorch's clamp.Tensor overload (values, node and edges from PyTorch 2.13): a bound that requires
    grad gets the gradient of the elements it clamped; a missing bound still has its (None, 0) edge."""
    x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    lo, hi = torch.zeros(3, requires_grad=True), torch.ones(3, requires_grad=True)
    y = torch.clamp(x, **{k: {"lo": lo, "hi": hi}[v] for k, v in bounds.items()})
    assert y.grad_fn.name() == "ClampBackward0"
    assert [n if n is None else n.name().split("::")[-1] for n, _ in y.grad_fn.next_functions] == edges
    y.backward(torch.tensor([1.0, 10.0, 100.0]))
    assert [None if t.grad is None else t.grad.tolist() for t in (x, lo, hi)] == list(grads)


def test_clamp_refuses_a_tensor_bound_with_a_number_bound():
    with pytest.raises(TypeError, match=r"^clamp\(\) received an invalid combination of arguments"):
        torch.clamp(torch.ones(3), min=torch.zeros(3), max=1.0)


def test_clamp_in_place_with_a_tensor_bound_is_the_same_node():
    """x.clamp_(min=lo) on PyTorch 2.13: ClampBackward0, and lo gets the gradient of what it clamped."""
    x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    lo = torch.zeros(3, requires_grad=True)
    y = x * 1
    assert y.clamp_(min=lo) is y and y.grad_fn.name() == "ClampBackward0" and y._version == 1
    y.backward(torch.tensor([1.0, 10.0, 100.0]))
    assert x.grad.tolist() == [0.0, 10.0, 100.0] and lo.grad.tolist() == [1.0, 0.0, 0.0]
