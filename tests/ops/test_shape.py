"""Shape and joining operations (``minigrad/ops/shape.py``, ``joining.py``) against PyTorch 2.13.
"""
import re

import pytest

import minigrad as torch

from helpers import message


def test_stride_is_pytorchs():
    x = torch.zeros(2, 3, 4)
    assert x.stride() == (12, 4, 1) and x.stride(0) == 12 and x.stride(-1) == 1
    assert x.transpose(0, 2).stride() == (1, 4, 12) and x[:, ::2].stride() == (12, 8, 1)
    assert torch.zeros(3).expand(2, 3).stride() == (0, 1) and torch.zeros(3, 1).t().stride() == (1, 1)
    assert torch.tensor(1.0).stride() == ()
    assert message(lambda: torch.tensor(1.0).stride(0)) == "IndexError: Dimension specified as 0 but tensor has no dimensions"


def test_flatten_of_a_vector_is_the_vector_itself():
    v = torch.ones(3, requires_grad=True)
    assert v.flatten() is v


def test_cat_skips_one_dimensional_empty_tensors_as_in_pytorch():
    empty = torch.zeros(0, requires_grad=True)
    matrix = torch.ones(2, 3, requires_grad=True)
    joined = torch.cat([empty, matrix], dim=1)
    assert joined.shape == (2, 3)
    joined.sum().backward()
    assert empty.grad.shape == (0,) and matrix.grad.tolist() == [[1.0] * 3] * 2
    assert torch.cat([empty, empty]).shape == (0,) and torch.cat([matrix, empty, matrix]).shape == (4, 3)
    assert torch.cat([empty.double(), matrix]).dtype is torch.float64   # the skipped tensor still counts here
    with pytest.raises(RuntimeError, match="^Sizes of tensors must match except in dimension 1. Expected size 2 "
                                           "but got size 3 for tensor number 2 in the list.$"):
        torch.cat([empty, matrix, torch.ones(3, 2)], dim=1)


@pytest.mark.parametrize("shape", [(0, -1), (-1, 0), (2, 0, -1)])
def test_reshaping_zero_elements_with_minus_one_next_to_a_zero_is_ambiguous(shape):
    """Found by the fuzzer (seed 1000); PyTorch 2.13's text."""
    dims = ", ".join(str(s) for s in shape)
    with pytest.raises(RuntimeError, match=re.escape(f"cannot reshape tensor of 0 elements into shape [{dims}] because "
                                                     "the unspecified dimension size -1 can be any value and is ambiguous")):
        torch.ones(0).reshape(*shape)
    assert torch.ones(0, 3).view(-1, 3).shape == (0, 3)
