"""Arguments PyTorch refuses and minigrad once took silently: mean's dtype, narrow's start and length."""
import pytest

import minigrad as torch
from helpers import message


@pytest.mark.parametrize("call, expected", [
    (lambda: torch.ones(3).mean(dtype=torch.int64), "Long"),
    (lambda: torch.ones(3).mean(0, dtype=torch.int64), "Long"),
    (lambda: torch.ones(3).mean(dtype=torch.bool), "Bool"),
    (lambda: torch.mean(torch.ones(2, 2), dtype=torch.int32), "Int"),
])
def test_mean_refuses_an_integer_dtype(call, expected):
    assert message(call) == ("RuntimeError: mean(): could not infer output dtype. Optional dtype must be either a "
                             f"floating point or complex dtype. Got: {expected}")


def test_mean_of_integers_needs_a_floating_dtype():
    assert message(lambda: torch.ones(3, dtype=torch.long).mean()) == (
        "RuntimeError: mean(): could not infer output dtype. Input dtype must be either a floating point or complex "
        "dtype. Got: Long")
    assert torch.ones(3, dtype=torch.long).mean(dtype=torch.float64).dtype is torch.float64
    x = torch.ones(3, requires_grad=True)
    y = x.mean(dtype=torch.float64)
    y.backward()
    assert y.dtype is torch.float64 and x.grad.dtype is torch.float32


NARROW_FLOAT_START = """narrow() received an invalid combination of arguments - got (int, float, int), but expected one of:
 * (int dim, Tensor start, int length)
      didn't match because some of the arguments have invalid types: (int, !float!, int)
 * (int dim, int start, int length)
      didn't match because some of the arguments have invalid types: (int, !float!, int)
"""


@pytest.mark.parametrize("call, expected", [
    (lambda x: x.narrow(0, 1.0, 2), "TypeError: " + NARROW_FLOAT_START),
    (lambda x: x.narrow(0, 1, 2.0), "TypeError: " + NARROW_FLOAT_START.replace(
        "(int, float, int)", "(int, int, float)").replace("(int, !float!, int)\n *", "(int, !int!, !float!)\n *").replace(
        "(int, !float!, int)\n", "(int, int, !float!)\n")),
    (lambda x: x.narrow(0.0, 1, 2), "TypeError: " + NARROW_FLOAT_START.replace(
        "(int, float, int)", "(float, int, int)").replace("(int, !float!, int)\n *", "(!float!, !int!, int)\n *").replace(
        "(int, !float!, int)\n", "(!float!, int, int)\n")),
    (lambda x: x.narrow(0, True, 2), "TypeError: " + NARROW_FLOAT_START.replace("float", "bool")),
    (lambda x: torch.narrow(x, 0, 1.5, 2), "TypeError: " + NARROW_FLOAT_START.replace(
        "got (int, float, int)", "got (Tensor, int, float, int)").replace("(int dim", "(Tensor input, int dim").replace(
        "types: (int, !float!, int)", "types: (Tensor, int, !float!, int)")),
    (lambda x: x.narrow(0, torch.tensor([1]), 2), "RuntimeError: start must be an 0-dim integral Tensor."),
    (lambda x: x.narrow(0, torch.tensor([1, 2]), 2), "RuntimeError: start must be an 0-dim integral Tensor."),
    (lambda x: x.narrow(0, torch.tensor(1.0), 2), "RuntimeError: start must be an 0-dim integral Tensor."),
])
def test_narrow_refusals(call, expected):
    assert message(lambda: call(torch.arange(6.0))) == expected


def test_narrow_takes_a_0_dim_integer_tensor():
    x = torch.arange(6.0, requires_grad=True)
    y = x.narrow(0, torch.tensor(1), torch.tensor(2))
    y.sum().backward()
    assert y.tolist() == [1.0, 2.0] and y.grad_fn.name() == "SliceBackward0"
    assert x.grad.tolist() == [0.0, 1.0, 1.0, 0.0, 0.0, 0.0]
