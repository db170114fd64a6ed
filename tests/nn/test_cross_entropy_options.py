"""cross_entropy with weight, ignore_index, label_smoothing and class-probability targets, and the
legacy size_average/reduce arguments: PyTorch 2.13's values, graphs and texts; gradients checked."""
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

X = [[1.0, 2.0, 0.5], [0.1, -1.0, 3.0], [2.0, 2.0, 2.0], [0.0, 1.0, -1.0]]
T = [0, 2, 1, 2]
W = [1.0, 2.0, 0.5]
P = [[0.5, 0.5, 0.0], [0.1, 0.2, 0.7], [1.0, 0.0, 0.0], [0.2, 0.2, 0.6]]


def loss_and_grad(**options):
    x = torch.tensor(X, requires_grad=True)
    target = options.pop("target", torch.tensor(T))
    y = F.cross_entropy(x, target, **options)
    y.sum().backward()
    return y, x.grad


@pytest.mark.parametrize("options, value, grad_row0", [
    (dict(weight=torch.tensor(W)), 1.2252, [-0.1922, 0.1571, 0.0351]),
    (dict(ignore_index=2), 1.2815, [-0.3844, 0.3143, 0.0701]),
    (dict(label_smoothing=0.1), 1.2887, [-0.1755, 0.1488, 0.0267]),
    (dict(label_smoothing=0.2, weight=torch.tensor(W)), 1.3434, [-0.1569, 0.1290, 0.0279]),
    (dict(label_smoothing=0.2, weight=torch.tensor(W), ignore_index=1), 1.6797, [-0.3139, 0.2581, 0.0558]),
    (dict(target=torch.tensor(P)), 1.2578, [-0.0672, 0.0321, 0.0351]),
    (dict(target=torch.tensor(P), weight=torch.tensor(W), label_smoothing=0.1), 1.3994, [-0.0361, -0.0112, 0.0473]),
])
def test_values_and_gradients_as_pytorch(options, value, grad_row0):
    y, grad = loss_and_grad(**options)
    assert y.item() == pytest.approx(value, abs=1e-4)
    np.testing.assert_allclose(grad.numpy()[0], grad_row0, atol=1e-4)


def test_graphs_as_pytorch():
    y, _ = loss_and_grad(label_smoothing=0.1)
    assert y.grad_fn.name() == "AddBackward0"
    assert [n.name() for n, _ in y.grad_fn.next_functions] == ["MulBackward1", "MulBackward1"]
    y, _ = loss_and_grad(target=torch.tensor(P))
    assert y.grad_fn.name() == "DivBackward1" and y.grad_fn.next_functions[0][0].name() == "NegBackward0"
    y = F.cross_entropy(torch.tensor(X), torch.tensor(P), reduction="none")
    np.testing.assert_allclose(y.numpy(), [0.9644, 1.1608, 1.0986, 1.8076], atol=1e-4)
    y = F.cross_entropy(torch.tensor(X), torch.tensor(T), label_smoothing=0.2, ignore_index=1, reduction="none")
    np.testing.assert_allclose(y.numpy(), [1.4310, 0.5308, 0.0, 2.2076], atol=1e-4)
    assert F.cross_entropy(torch.tensor(X), torch.tensor(T), label_smoothing=0.3, reduction="sum").item() == \
        pytest.approx(5.3814, abs=1e-4)


def test_other_shapes():
    x = torch.tensor(X)
    assert F.cross_entropy(x[0], torch.tensor(T)[0], label_smoothing=0.1).item() == pytest.approx(1.4477, abs=1e-4)
    assert F.cross_entropy(x[0], torch.tensor(P)[0]).item() == pytest.approx(0.9644, abs=1e-4)
    x3, t3 = x.reshape(2, 3, 2), torch.tensor([[0, 1], [2, 0]])
    assert F.cross_entropy(x3, t3, label_smoothing=0.1).item() == pytest.approx(1.4657, abs=1e-4)
    np.testing.assert_allclose(F.cross_entropy(x3, t3, weight=torch.tensor(W), label_smoothing=0.1,
                                               reduction="none").numpy(), [[0.6309, 6.1227], [0.9551, 0.3560]], atol=1e-4)
    assert np.isnan(F.cross_entropy(torch.zeros(0, 3), torch.zeros(0, dtype=torch.long), label_smoothing=0.1).item())
    assert np.isnan(F.cross_entropy(torch.zeros(0, 3), torch.zeros(0, 3)).item())
    assert F.cross_entropy(x, torch.tensor(P).double()).dtype is torch.float64   # the target's dtype counts


@settings(max_examples=8, deadline=None)
@given(hnp.arrays(np.float64, (4, 3), elements=st.floats(-3, 3)), st.sampled_from(["mean", "sum", "none"]),
       st.sampled_from([0.0, 0.25]), st.booleans())
def test_gradients_against_central_differences(x, reduction, smoothing, probabilities):
    target = torch.tensor(P, dtype=torch.float64) if probabilities else torch.tensor([0, 2, 1, 1])
    weight = torch.tensor(W, dtype=torch.float64)
    ignore = {} if probabilities else {"ignore_index": 1}   # PyTorch ignores no class of probabilities
    f = lambda x: F.cross_entropy(x, target, weight=weight, reduction=reduction, label_smoothing=smoothing,  # noqa: E731
                                  **ignore)
    assert gradcheck(f, (torch.tensor(x, requires_grad=True),))
    assert gradgradcheck(f, (torch.tensor(x, requires_grad=True),))


@pytest.mark.parametrize("call, expected", [
    (lambda x: F.cross_entropy(x, torch.tensor(P)[:3]), "ValueError: Expected input batch_size (4) to match target "
                                                        "batch_size (3)."),
    (lambda x: F.cross_entropy(x, torch.tensor(T).float()), "RuntimeError: expected target dtype to be Long or Byte, but "
                                                             "got Float"),
    (lambda x: F.cross_entropy(x, torch.tensor(T), label_smoothing=1.5), "RuntimeError: label_smoothing must be between "
                                                                        "0.0 and 1.0. Got: 1.5"),
    (lambda x: F.cross_entropy(x, torch.tensor(P), weight=torch.ones(2)), "RuntimeError: cross_entropy: weight tensor "
     "should be defined either for all 3 classes or no classes but got weight tensor of shape: [2]"),
    (lambda x: F.cross_entropy(x, torch.tensor(T), weight=torch.ones(2)), "RuntimeError: weight tensor should be defined "
     "either for all 3 classes or no classes but got weight tensor of shape: [2]"),
    (lambda x: F.cross_entropy(x, torch.tensor(T).int()), "RuntimeError: expected target dtype to be Long or Byte, but "
                                                          "got Int"),
    (lambda x: F.cross_entropy(x, torch.tensor(P), ignore_index=1), "RuntimeError: ignore_index is not supported for "
                                                                    "floating point target"),
])
def test_refusals(call, expected):
    assert message(lambda: call(torch.tensor(X))) == expected


def test_legacy_arguments_and_the_layers():
    x, t = torch.tensor(X), torch.tensor(T)
    with pytest.warns(UserWarning, match="please use reduction='sum' instead"):
        assert F.cross_entropy(x, t, size_average=False).item() == pytest.approx(5.0414, abs=1e-4)
    with pytest.warns(UserWarning, match="please use reduction='none' instead"):
        assert F.cross_entropy(x, t, reduce=False).shape == (4,)
    with pytest.warns(UserWarning, match="please use reduction='sum' instead"):
        assert F.nll_loss(x.log_softmax(1), t, size_average=False).item() == pytest.approx(5.0414, abs=1e-4)
    with pytest.warns(UserWarning, match="please use reduction='none' instead"):
        assert F.mse_loss(x, x + 1, reduce=False).shape == (4, 3)
    loss = nn.CrossEntropyLoss(weight=torch.tensor(W), ignore_index=1, label_smoothing=0.05)
    assert loss(x, t).item() == pytest.approx(1.4338, abs=1e-4) and repr(loss) == "CrossEntropyLoss()"
    assert [n for n, _ in loss.named_buffers()] == ["weight"] and repr(nn.NLLLoss(weight=torch.tensor(W))) == "NLLLoss()"
    with pytest.warns(UserWarning, match="please use reduction='sum' instead"):
        assert nn.MSELoss(size_average=False).reduction == "sum"
