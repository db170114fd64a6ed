"""F.softplus, F.binary_cross_entropy and F.binary_cross_entropy_with_logits (and their layers), with
PyTorch 2.13's values, nodes and error texts; gradients (and second ones) against central differences."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as torch
import minigrad.nn.functional as F
from minigrad import nn
from minigrad.autograd import gradcheck, gradgradcheck
from helpers import message

FEW = settings(max_examples=8, deadline=None)


# ------------------------------------------------------------------ softplus
def test_softplus_values_and_nodes():
    x = torch.tensor([-30.0, -1.0, 0.0, 0.5, 25.0], requires_grad=True)
    y = F.softplus(x)
    y.sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), [9.3576e-14, 3.1326e-01, 6.9315e-01, 9.7408e-01, 25.0], rtol=1e-4)
    np.testing.assert_allclose(x.grad.numpy(), [9.3576e-14, 2.6894e-01, 0.5, 6.2246e-01, 1.0], rtol=1e-4)
    assert y.grad_fn.name() == "SoftplusBackward0" and y.grad_fn._saved_beta == 1.0
    x.grad = None
    y = F.softplus(x, beta=2, threshold=1)
    y.sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), [4.3783e-27, 6.3464e-02, 3.4657e-01, 6.5663e-01, 25.0], rtol=1e-4)
    np.testing.assert_allclose(x.grad.numpy(), [8.7565e-27, 1.1920e-01, 0.5, 7.3106e-01, 1.0], rtol=1e-4)
    g, = torch.autograd.grad(F.softplus(x).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "SoftplusBackwardBackward0"
    assert [n is None or n.name() for n, _ in g.grad_fn.next_functions] == [True, "torch::autograd::AccumulateGrad"]
    assert repr(nn.Softplus(beta=2)) == "Softplus(beta=2, threshold=20.0)"
    assert message(lambda: F.softplus(torch.tensor([1, 2]))) == (
        "NotImplementedError: \"softplus_cpu\" not implemented for 'Long'")


@FEW
@given(hnp.arrays(np.float64, (2, 3), elements=st.floats(-4, 4)), st.sampled_from([(1.0, 20.0), (2.0, 1.0), (-1.0, 20.0)]))
def test_softplus_gradients(values, setting):
    beta, threshold = setting
    if np.min(np.abs(values * beta - threshold)) < 1e-3:   # the switch to x is not smooth
        return
    x = torch.tensor(values, requires_grad=True)
    assert gradcheck(lambda x: F.softplus(x, beta, threshold), (x,))
    assert gradgradcheck(lambda x: F.softplus(x, beta, threshold), (x,))


# ------------------------------------------------------------------ binary cross-entropy
P = [0.1, 0.9, 0.5, 1.0, 0.0]
T = [0.0, 1.0, 1.0, 1.0, 0.0]


def test_binary_cross_entropy_values_clamps_and_gradients():
    p, t = torch.tensor(P, requires_grad=True), torch.tensor(T)
    y = F.binary_cross_entropy(p, t)
    y.backward()
    assert y.item() == pytest.approx(0.1808, abs=1e-4) and y.grad_fn.name() == "BinaryCrossEntropyBackward0"
    np.testing.assert_allclose(p.grad.numpy(), [0.2222, -0.2222, -0.4, 0.0, 0.0], atol=1e-4)
    none = F.binary_cross_entropy(p, t, reduction="none").detach().numpy()
    np.testing.assert_allclose(none, [0.1054, 0.1054, 0.6931, 0.0, 0.0], atol=1e-4)
    assert list(np.signbit(none[3:])) == [True, False]   # -0 and 0, as PyTorch's
    wrong = F.binary_cross_entropy(p, 1 - t, reduction="none").detach().numpy()
    np.testing.assert_allclose(wrong, [2.3026, 2.3026, 0.6931, 100.0, 100.0], atol=1e-4)   # logs floored at -100
    p.grad = None
    F.binary_cross_entropy(p, 1 - t, reduction="sum").backward()
    np.testing.assert_allclose(p.grad.numpy(), [-10.0, 10.0, 2.0, 1e12, -1e12], rtol=1e-4)
    assert F.binary_cross_entropy(p, t, weight=torch.tensor([1.0, 2, 3, 4, 5])).item() == pytest.approx(0.4791, abs=1e-4)
    g, = torch.autograd.grad(F.binary_cross_entropy(p, t), p, create_graph=True)
    assert g.grad_fn.name() == "BinaryCrossEntropyBackwardBackward0" and len(g.grad_fn.next_functions) == 3


def test_legacy_reduction_arguments_warn_as_pytorch():
    p, t = torch.tensor(P), torch.tensor(T)
    with pytest.warns(UserWarning, match=r"size_average and reduce args will be deprecated, please use reduction='sum' "
                                         r"instead\."):
        assert F.binary_cross_entropy(p, t, size_average=False).item() == pytest.approx(0.9039, abs=1e-4)
    with pytest.warns(UserWarning, match="reduction='none'"):
        assert F.binary_cross_entropy(p, t, reduce=False).shape == (5,)


@FEW
@given(hnp.arrays(np.float64, (2, 3), elements=st.floats(0.05, 0.95)),   # targets inside [0, 1] when perturbed
       hnp.arrays(np.float64, (2, 3), elements=st.floats(0.05, 0.95)), st.sampled_from(["mean", "sum", "none"]))
def test_binary_cross_entropy_gradients(p, t, reduction):
    w = torch.tensor([[1.0, 2.0, 0.5]], dtype=torch.float64)
    inputs = (torch.tensor(p, requires_grad=True), torch.tensor(t, requires_grad=True))
    assert gradcheck(lambda p, t: F.binary_cross_entropy(p, t, weight=w, reduction=reduction), inputs)
    assert gradgradcheck(lambda p, t: F.binary_cross_entropy(p, t, reduction=reduction), inputs)


@pytest.mark.parametrize("call, expected", [
    (lambda p, t: F.binary_cross_entropy(p, t[:3]), "ValueError: Using a target size (torch.Size([3])) that is "
     "different to the input size (torch.Size([5])) is deprecated. Please ensure they have the same size."),
    (lambda p, t: F.binary_cross_entropy(torch.tensor([1.5]), torch.tensor([1.0])),
     "RuntimeError: all elements of input should be between 0 and 1"),
    (lambda p, t: F.binary_cross_entropy(torch.tensor([0.5]), torch.tensor([1.5])),
     "RuntimeError: all elements of target should be between 0 and 1"),
    (lambda p, t: F.binary_cross_entropy(p, t.double()), "RuntimeError: Found dtype Double but expected Float"),
    (lambda p, t: F.binary_cross_entropy(p, t.long()), "RuntimeError: Found dtype Long but expected Float"),
    (lambda p, t: F.binary_cross_entropy_with_logits(p, t[:3]),
     "ValueError: Target size (torch.Size([3])) must be the same as input size (torch.Size([5]))"),
    (lambda p, t: F.binary_cross_entropy_with_logits(p, t.long()),
     "RuntimeError: result type Float can't be cast to the desired output type Long"),
])
def test_refusals(call, expected):
    assert message(lambda: call(torch.tensor(P), torch.tensor(T))) == expected


# ------------------------------------------------------------------ with logits
Z = [-2.0, 0.0, 3.0, 50.0, -50.0]


def test_with_logits_values_and_the_graph_of_its_gradient():
    z, t = torch.tensor(Z, requires_grad=True), torch.tensor(T)
    y = F.binary_cross_entropy_with_logits(z, t)
    y.backward()
    assert y.item() == pytest.approx(0.1737, abs=1e-4) and y.grad_fn.name() == "BinaryCrossEntropyWithLogitsBackward0"
    np.testing.assert_allclose(z.grad.numpy(), [2.3841e-02, -0.1, -9.4852e-03, 0.0, 3.8575e-23], rtol=1e-4, atol=1e-30)
    z.grad = None
    y = F.binary_cross_entropy_with_logits(z, t, pos_weight=torch.tensor(3.0), reduction="none")
    y.sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), [1.2693e-01, 2.0794, 1.4576e-01, 5.7862e-22, 0.0], rtol=1e-4)
    np.testing.assert_allclose(z.grad.numpy(), [0.1192, -1.5, -0.14228, 0.0, 1.9287e-22], rtol=1e-4)
    z.grad = None
    y = F.binary_cross_entropy_with_logits(z, t, weight=torch.tensor([1.0, 2, 3, 4, 5]), reduction="sum")
    y.backward()
    assert y.item() == pytest.approx(1.6590, abs=1e-4)
    g, = torch.autograd.grad(F.binary_cross_entropy_with_logits(z, t), z, create_graph=True)
    assert g.grad_fn.name() == "DivBackward1" and g.grad_fn.next_functions[0][0].name() == "MulBackward0"
    target = torch.tensor(T, requires_grad=True)
    F.binary_cross_entropy_with_logits(z, target).backward()
    np.testing.assert_allclose(target.grad.numpy(), [0.4, 0.0, -0.6, -10.0, 10.0], rtol=1e-6)


@FEW
@given(hnp.arrays(np.float64, (2, 3), elements=st.floats(-5, 5)), hnp.arrays(np.float64, (2, 3), elements=st.floats(0, 1)),
       st.sampled_from(["mean", "sum", "none"]), st.booleans())
def test_with_logits_gradients(z, t, reduction, weighted):
    pos_weight = torch.tensor([0.5, 2.0, 1.0], dtype=torch.float64) if weighted else None
    inputs = (torch.tensor(z, requires_grad=True), torch.tensor(t, requires_grad=True))
    assert gradcheck(lambda z, t: F.binary_cross_entropy_with_logits(z, t, reduction=reduction, pos_weight=pos_weight),
                     inputs)
    assert gradgradcheck(lambda z, t: F.binary_cross_entropy_with_logits(z, t, reduction=reduction,
                                                                          pos_weight=pos_weight), inputs)


def test_the_layers():
    p, t, z = torch.tensor(P), torch.tensor(T), torch.tensor(Z)
    assert nn.BCELoss()(p, t).item() == F.binary_cross_entropy(p, t).item()
    assert nn.BCELoss(weight=torch.ones(5), reduction="sum")(p, t).item() == pytest.approx(0.9039, abs=1e-4)
    loss = nn.BCEWithLogitsLoss(pos_weight=torch.ones(5))
    assert loss(z, t).item() == pytest.approx(0.1737, abs=1e-4) and [n for n, _ in loss.named_buffers()] == ["pos_weight"]
    assert repr(nn.BCEWithLogitsLoss()) == "BCEWithLogitsLoss()" and repr(nn.BCELoss()) == "BCELoss()"
