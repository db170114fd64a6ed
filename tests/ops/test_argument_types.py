"""Arguments of the wrong type are refused with PyTorch's exception type, never read as numbers (a bool
as a dimension, an int as keepdim) and never passed on to numpy; and the old rules PyTorch keeps for
empty dimension lists and tuples inside keys. Observed on PyTorch 2.13. A dimension of the wrong type
gets a shorter text than PyTorch's (which names the function and the argument's position): the
check sits in the one helper every op uses to read a dimension."""
import re

import pytest

import minigrad as torch
from helpers import message


def six():
    return torch.arange(6.0).reshape(2, 3)


@pytest.mark.parametrize("call, pytorch", [
    (lambda x: x.sum(True, False), "sum(): argument 'dim' (position 1) must be tuple of ints, not bool"),
    (lambda x: x.unsqueeze(False), "unsqueeze(): argument 'dim' (position 1) must be int, not bool"),
    (lambda x: x.transpose(2.0, 1), "transpose(): argument 'dim0' (position 1) must be int, not float"),
    (lambda x: x.softmax((0,)), "softmax(): argument 'dim' (position 1) must be int, not tuple"),
])
def test_a_dimension_of_the_wrong_type(call, pytorch):
    with pytest.raises(TypeError) as caught:
        call(six())
    ours = re.sub(r"^\w+\(\): ", "", pytorch).replace(" (position 1)", "").replace("'dim0'", "'dim'")
    assert str(caught.value) in (pytorch, ours)


@pytest.mark.parametrize("call, expected", [
    (lambda x: x.sum(0, 1), "TypeError: sum(): argument 'keepdim' (position 2) must be bool, not int"),
    (lambda x: x.mean(-1, None), "TypeError: mean(): argument 'keepdim' (position 2) must be bool, not NoneType"),
    (lambda x: x.max(1, 1.5), "TypeError: max(): argument 'keepdim' (position 2) must be bool, not float"),
    (lambda x: x.prod(1, 2), "TypeError: prod(): argument 'keepdim' (position 2) must be bool, not int"),
    (lambda x: x.topk(True), "TypeError: topk(): argument 'k' (position 1) must be int, not bool"),
    (lambda x: x.chunk(2.0), "TypeError: chunk(): argument 'chunks' (position 1) must be int, not float"),
    (lambda x: x.select(0, (1,)), "TypeError: select(): argument 'index' (position 2) must be int, not tuple"),
    (lambda x: x.view("a", 3), "TypeError: view() received an invalid combination of arguments - got (str, int), but "
                               "expected one of:\n * (torch.dtype dtype)\n * (tuple of ints size)\n"),
    (lambda x: x.view(3, "a"), "TypeError: view(): argument 'size' failed to unpack the object at pos 2 with error "
                               "\"type must be tuple of ints,but got str\""),
    (lambda x: x.expand(None), "TypeError: expand(): argument 'size' (position 1) must be tuple of ints, not NoneType"),
    (lambda x: x.reshape("a", 3), "TypeError: reshape() takes 1 positional argument but 2 were given"),
    (lambda x: x.permute(0, "a"), "TypeError: permute(): argument 'dims' failed to unpack the object at pos 2 with "
                                  "error \"type must be tuple of ints,but got str\""),
    (lambda x: x.repeat(1, "a"), "TypeError: repeat(): argument 'repeats' failed to unpack the object at pos 2 with "
                                 "error \"type must be tuple of ints,but got str\""),
    (lambda x: x.softmax(1, 3), "TypeError: softmax(): argument 'dtype' (position 2) must be torch.dtype, not int"),
])
def test_refused_arguments(call, expected):
    assert message(lambda: call(six())) == expected


def test_clamp_with_a_bound_that_is_no_number():
    assert message(lambda: six().clamp((2, 3), -1)).startswith(
        "TypeError: clamp() received an invalid combination of arguments - got (tuple, int), but expected one of:")


def test_integer_numbers_of_other_kinds_are_dimensions():
    import numpy as np
    x = six()
    assert x.sum(np.int64(1)).tolist() == [3.0, 12.0] and x.sum(torch.tensor(0)).tolist() == [3.0, 5.0, 7.0]


def test_an_empty_dimension_list_reduces_everything_and_keepdim_keeps_them():
    x = six()
    assert x.sum(()).item() == 15.0 and x.mean([]).item() == 2.5 and x.var(()).item() == pytest.approx(3.5)
    assert x.mean(None, True).shape == (1, 1) and x.sum(dim=None, keepdim=True).tolist() == [[15.0]]
    y = torch.ones(2, 3, requires_grad=True)
    z = y.sum(None, True)
    z.backward()
    assert z.grad_fn.name() == "SumBackward1" and y.grad.tolist() == [[1.0] * 3] * 2


def test_a_tuple_inside_a_key_is_a_list_of_indices():
    x = six()
    assert x[(0,), None].shape == (1, 1, 3) and x[(), -1].shape == (0,) and x[(-1,), (2,)].tolist() == [5.0]
    assert x[None, (), (2,)].shape == (1, 0)
