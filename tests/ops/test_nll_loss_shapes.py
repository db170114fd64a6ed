"""nll_loss over every shape PyTorch takes ([C], [N, C], [N, C, d1, d2...]) with its checks, in its
order, and PyTorch 2.13's texts; gradients against central differences."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as torch
import minigrad.nn.functional as F
from minigrad.autograd import gradcheck, gradgradcheck
from helpers import message


X = [[[0.5, -1.0, 2.0], [0.25, 1.5, -0.5]], [[1.0, 2.0, 3.0], [-1.0, -2.0, 0.5]]]   # [N=2, C=2, d=3]
T = [[0, 1, -100], [1, 0, 1]]


def test_three_dims_go_through_a_view_as_pytorch():
    x, t = torch.tensor(X, requires_grad=True), torch.tensor(T)
    y = F.nll_loss(x, t)
    assert y.grad_fn.name() == "NllLoss2DBackward0"
    assert [n.name() for n, _ in y.grad_fn.next_functions] == ["ViewBackward0"]
    assert y.item() == pytest.approx((-0.5 - 1.5 + 1.0 - 2.0 - 0.5) / 5)
    none = F.nll_loss(x, t, reduction="none")
    assert none.grad_fn.name() == "ViewBackward0" and none.grad_fn.next_functions[0][0].name() == "NllLoss2DBackward0"
    assert none.tolist() == [[-0.5, -1.5, 0.0], [1.0, -2.0, -0.5]]
    assert not np.signbit(none.detach().numpy()[0, 2])   # an ignored position is 0, never -0


def test_weights_and_ignore_index_along_the_extra_dims():
    x, t = torch.tensor(X, requires_grad=True), torch.tensor(T)
    F.nll_loss(x, t, reduction="sum", weight=torch.tensor([2.0, 0.5])).backward()
    assert x.grad.tolist() == [[[-2.0, 0.0, 0.0], [0.0, -0.5, 0.0]], [[0.0, -2.0, 0.0], [-0.5, 0.0, -0.5]]]
    x.grad = None
    y = F.nll_loss(x, torch.tensor([[0, 1, 0], [1, 0, 1]]), ignore_index=1, reduction="sum")
    y.backward()
    assert y.item() == -4.5 and x.grad.tolist() == [[[-1.0, 0.0, -1.0], [0.0] * 3], [[0.0, -1.0, 0.0], [0.0] * 3]]


def test_four_dims_make_one_node_and_its_backward_is_differentiable():
    x = torch.tensor(X, requires_grad=True).reshape(2, 2, 3, 1)
    t = torch.tensor(T).view(2, 3, 1)
    y = F.nll_loss(x, t)
    assert y.grad_fn.name() == "NllLoss2DBackward0" and y.grad_fn.next_functions[0][0].name() == "ReshapeAliasBackward0" \
        or y.grad_fn.next_functions[0][0].name() == "ViewBackward0"
    assert F.nll_loss(x, t, reduction="none").shape == (2, 3, 1)
    g, = torch.autograd.grad(F.nll_loss(x, t), x, create_graph=True)
    assert g.grad_fn.name() == "NllLoss2DBackwardBackward0"
    assert F.nll_loss(x.transpose(2, 3), t.transpose(1, 2)).grad_fn.next_functions[0][0].name() == "TransposeBackward0"


@settings(max_examples=8, deadline=None)
@given(hnp.arrays(np.float64, (2, 3, 2, 2), elements=st.floats(-2, 2)), st.sampled_from(["mean", "sum", "none"]))
def test_gradients_against_central_differences(values, reduction):
    x = torch.tensor(values, requires_grad=True)
    t = torch.tensor([[[0, 1], [2, 1]], [[2, 2], [0, -100]]])
    w = torch.tensor([1.0, 0.5, 2.0], dtype=torch.float64)
    assert gradcheck(lambda x: F.nll_loss(x, t, weight=w, reduction=reduction), (x,))
    assert gradcheck(lambda x: F.nll_loss(x.reshape(2, 3, 4), t.reshape(2, 4), reduction=reduction), (x,))
    assert gradgradcheck(lambda x: F.nll_loss(x, t, reduction=reduction), (x,))


def test_empty_inputs():
    assert np.isnan(F.nll_loss(torch.randn(2, 3, 0), torch.zeros(2, 0, dtype=torch.long)).item())
    assert F.nll_loss(torch.randn(2, 3, 0), torch.zeros(2, 0, dtype=torch.long), reduction="none").shape == (2, 0)
    assert np.isnan(F.nll_loss(torch.randn(0, 2, 4), torch.zeros(0, 4, dtype=torch.long)).item())
    assert F.nll_loss(torch.randn(0, 2), torch.zeros(0, dtype=torch.long), reduction="sum").item() == 0.0


def test_one_sample_of_classes():
    x = torch.tensor([0.5, -1.0, 2.0])
    assert F.nll_loss(x, torch.tensor(2)).item() == -2.0 and F.nll_loss(x, torch.tensor([1])).item() == 1.0


X2, X3, X4 = torch.zeros(3, 2), torch.zeros(2, 3, 4), torch.zeros(2, 3, 2, 2)
T4 = torch.zeros(2, 2, 2, dtype=torch.long)


@pytest.mark.parametrize("call, expected", [
    (lambda: F.nll_loss(X2, torch.tensor([[0], [1], [1]])),
     "RuntimeError: 0D or 1D target tensor expected, multi-target not supported"),
    (lambda: F.nll_loss(torch.zeros(3), torch.tensor([0, 1])),
     "ValueError: For 1D input, 1D target must have size 1, but got target size: 2"),
    (lambda: F.nll_loss(torch.zeros(3), torch.tensor([[0]])),
     "RuntimeError: 0D or 1D target tensor expected, multi-target not supported"),
    (lambda: F.nll_loss(X2, torch.tensor(0)), "ValueError: Expected input batch_size (3) to match target batch_size (0)."),
    (lambda: F.nll_loss(X2, torch.tensor([[0, 1, 1]])),
     "ValueError: Expected input batch_size (3) to match target batch_size (1)."),
    (lambda: F.nll_loss(torch.tensor(1.0), torch.tensor(0)), "ValueError: Expected 1 or more dimensions (got 0)"),
    (lambda: F.nll_loss(X2, torch.tensor([0, 1, 1]), weight=torch.ones(3, dtype=torch.float64)),
     "RuntimeError: weight tensor should be defined either for all 2 classes or no classes but got weight tensor of "
     "shape: [3]"),
    (lambda: F.nll_loss(X2, torch.tensor([0, 1, 1]), weight=torch.ones(1, 2)),
     "RuntimeError: weight tensor should be defined either for all 2 classes or no classes but got weight tensor of "
     "shape: [1, 2]"),
    (lambda: F.nll_loss(X2, torch.tensor([0, 1, 1]), weight=torch.tensor(1.0)),
     "RuntimeError: weight tensor should be defined either for all 2 classes or no classes but got weight tensor of "
     "shape: []"),
    (lambda: F.nll_loss(X2, torch.tensor([0, 1, 1]), weight=torch.ones(2, dtype=torch.float64)),
     "RuntimeError: expected scalar type Float but found Double"),
    (lambda: F.nll_loss(X2.double(), torch.tensor([0, 1, 1]), weight=torch.ones(2)),
     "RuntimeError: expected scalar type Double but found Float"),
    (lambda: F.nll_loss(X2, torch.tensor([0, 1, 1]), weight=torch.ones(2, dtype=torch.int32)),
     "RuntimeError: expected scalar type Float but found Int"),
    (lambda: F.nll_loss(X2, torch.tensor([0, 1, 9]), weight=torch.ones(2, dtype=torch.float64)),
     "RuntimeError: expected scalar type Float but found Double"),
    (lambda: F.nll_loss(X2.long(), torch.tensor([0, 1, 9])),
     "NotImplementedError: \"nll_loss_out_frame\" not implemented for 'Long'"),
    (lambda: F.nll_loss(X2.long(), torch.tensor([0, 1, 1]), weight=torch.ones(3)),
     "RuntimeError: weight tensor should be defined either for all 2 classes or no classes but got weight tensor of "
     "shape: [3]"),
    (lambda: F.nll_loss(X2, torch.tensor([0, 1, 1]).float(), weight=torch.ones(3)),
     "RuntimeError: expected target dtype to be Long or Byte, but got Float"),
    (lambda: F.nll_loss(X2.bool(), torch.tensor([0, 1, 1])),
     "NotImplementedError: \"nll_loss_out_frame\" not implemented for 'Bool'"),
    (lambda: F.nll_loss(X4, torch.zeros(2, 4, dtype=torch.long)),
     "RuntimeError: only batches of spatial targets supported (3D tensors) but got targets of dimension: 2"),
    (lambda: F.nll_loss(X4, T4[:, :1]), "RuntimeError: size mismatch (got input: [2, 3, 2, 2] , target: [2, 1, 2]"),
    (lambda: F.nll_loss(X4, T4[:1]), "ValueError: Expected input batch_size (2) to match target batch_size (1)."),
    (lambda: F.nll_loss(torch.zeros(2, 3, 2, 2, 2), T4), "RuntimeError: Expected target size [2, 2, 2, 2], got [2, 2, 2]"),
    (lambda: F.nll_loss(X3, torch.tensor([0, 1])), "RuntimeError: Expected target size [2, 4], got [2]"),
    (lambda: F.nll_loss(X3, torch.zeros(2, 4, dtype=torch.long), weight=torch.ones(2)),
     "RuntimeError: weight tensor should be defined either for all or no classes"),
    (lambda: F.nll_loss(X3, torch.zeros(2, 4, dtype=torch.long), weight=torch.ones(3, dtype=torch.float64)),
     "RuntimeError: expected scalar type Float but found Double"),
    (lambda: F.nll_loss(X3.long(), torch.zeros(2, 4, dtype=torch.long)),
     "NotImplementedError: \"nll_loss2d_forward_out_frame\" not implemented for 'Long'"),
    (lambda: F.nll_loss(X3, torch.zeros(2, 4, dtype=torch.int32)),
     "RuntimeError: expected target dtype to be Long or Byte, but got Int"),
    (lambda: F.nll_loss(X3, torch.tensor([[0, 1, 2, 5], [2, 2, 0, 0]])), "IndexError: Target 5 is out of bounds."),
    (lambda: F.nll_loss(X3, torch.zeros(2, 4, dtype=torch.long), weight=torch.ones(3, requires_grad=True)),
     "RuntimeError: The function 'nll_loss2d_forward' is not differentiable with respect to argument 'weight'. This "
     "input cannot have requires_grad True."),
])
def test_refusals_as_pytorch(call, expected):
    assert message(call) == expected


def test_ignore_index_may_lie_outside_the_classes():
    x = torch.tensor(X)
    assert F.nll_loss(x, torch.tensor([[0, 1, 7], [1, 0, 7]]), ignore_index=7).item() == -0.75
