"""Strides as PyTorch reports them, also for tensors with no element (numpy says all zeros there)."""
import pytest

import minigrad as torch


@pytest.mark.parametrize("make, expected", [
    (lambda: torch.zeros(1, 0, 3), (3, 3, 1)),
    (lambda: torch.zeros(0), (1,)),
    (lambda: torch.zeros(2, 0), (1, 1)),
    (lambda: torch.zeros(4, 0, 3)[1:], (3, 3, 1)),
    (lambda: torch.zeros(0, 2, 0), (2, 1, 1)),
    (lambda: torch.zeros(2, 3), (3, 1)),
    (lambda: torch.zeros(2, 3).t(), (1, 3)),
    (lambda: torch.zeros(3).expand(2, 3), (0, 1)),
])
def test_strides(make, expected):
    t = make()
    assert t.stride() == expected and t.stride(-1) == expected[-1]


def test_an_empty_tensor_is_contiguous():
    assert torch.zeros(0, 3).is_contiguous() and torch.zeros(1, 0, 3).contiguous().stride() == (3, 3, 1)
