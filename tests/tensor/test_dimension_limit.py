"""minigrad's tensors are numpy arrays, which have at most 64 dimensions; PyTorch's can have more.
Making a bigger one is refused with a NotImplementedError that says so, never numpy's ValueError."""
import pytest

import minigrad as torch
from helpers import message

LIMIT = ("NotImplementedError: minigrad does not implement tensors of more than 64 dimensions (numpy's limit); this one "
         "would have 65")


@pytest.mark.parametrize("call", [
    lambda: torch.ones([1] * 65), lambda: torch.randn([1] * 65), lambda: torch.ones(1).reshape([1] * 65),
    lambda: torch.ones(1).view([1] * 65), lambda: torch.ones([1] * 64).unsqueeze(0),
    lambda: torch.ones(1).expand([1] * 65), lambda: torch.ones(1)[(None,) * 65],
])
def test_more_than_64_dimensions(call):
    assert message(call) == LIMIT


def test_64_dimensions_work():
    assert torch.zeros([1] * 64).ndim == 64 and torch.ones(1).reshape([1] * 64).ndim == 64
