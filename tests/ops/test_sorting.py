"""Sorting and selection (``minigrad/ops/sorting.py``) against PyTorch 2.13: max and min with ties and nan,
sort and argsort, median.
"""
import pytest

import minigrad as torch

from helpers import INF, NAN, close, message, same, values


# ------------------------------------------------------------------ saved indices and factors
def test_max_dim_and_sort_refuse_a_second_backward_and_a_changed_index():
    x = torch.tensor([[1.0, 2.0]], requires_grad=True)
    for make in (lambda: x.max(1)[0], lambda: x.sort(1)[0], lambda: x.median(1).values):
        y = make()
        y.sum().backward()
        assert message(lambda: y.sum().backward()).startswith("RuntimeError: Trying to backward through the graph a second")
    values, indices = x.sort(1)
    indices.add_(1)
    assert message(lambda: values.sum().backward()) == (
        "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: "
        "[torch.LongTensor [1, 2]] is at version 1; expected version 0 instead. Hint: enable anomaly detection to find "
        "the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")


# ------------------------------------------------------------------ the everyday methods
def test_argsort_is_sorts_indices():
    x = torch.tensor([[3.0, 1.0, NAN, 2.0], [1.0, 1.0, 0.0, -1.0]])
    assert x.argsort().tolist() == [[1, 3, 0, 2], [3, 2, 0, 1]]
    assert torch.argsort(x, 1, True).tolist() == [[2, 0, 3, 1], [0, 1, 2, 3]]
    assert x.argsort(dim=0, stable=True).tolist() == [[1, 0, 1, 1], [0, 1, 0, 0]]
    assert message(lambda: torch.tensor([1.0]).argsort(2)) == (
        "IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 2)")


def test_median_is_the_lower_middle_value_and_picks_the_first_of_equal_ones():
    x = torch.tensor([[3.0, 1.0, 2.0, 4.0], [1.0, 1.0, 0.0, -1.0]], requires_grad=True)
    y = x.median()
    assert y.item() == 1.0 and y.grad_fn.name() == "MedianBackward0"
    y.backward()
    assert x.grad.view(-1).tolist() == pytest.approx([0, 1 / 3, 0, 0, 1 / 3, 1 / 3, 0, 0])
    result = x.median(1)
    assert result.values.tolist() == [2.0, 0.0] and result.indices.tolist() == [2, 2]
    assert result.values.grad_fn.name() == "MedianBackward1"
    assert torch.median(torch.tensor([2.0, 1.0, 2.0, 2.0]), 0).indices.item() == 0
    assert values(torch.tensor([[3.0, NAN, 2.0]]).median(1).values) == ["nan"]
    assert message(lambda: torch.tensor([True]).median(0)) == "NotImplementedError: \"median_out\" not implemented for 'Bool'"


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


def test_sorting_bool_and_uint8_tensors_in_descending_order():
    # found by the fuzzer: numpy cannot negate bools (TypeError) and wraps uint8 around (a wrong order)
    values, indices = torch.sort(torch.tensor([True, False, True]), 0, descending=True)
    assert values.tolist() == [True, True, False] and indices.tolist() == [0, 2, 1]   # PyTorch 2.13
    values, indices = torch.tensor([0, 1, 2], dtype=torch.uint8).sort(descending=True)
    assert values.tolist() == [2, 1, 0] and indices.tolist() == [2, 1, 0]


def test_max_of_all_elements_saves_its_input_so_an_in_place_change_is_caught():
    x = torch.tensor([1.5, 0.5], requires_grad=True)
    y = x * 1
    m = y.max()
    with torch.no_grad():
        y.mul_(2)
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation has been modified"):
        m.backward()
