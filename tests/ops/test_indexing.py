"""Indexing by keys and masks (``minigrad/ops/indexing.py``) against PyTorch 2.13: ``x[key] = value`` with
values that need gradients, expanded and broadcast values, dtype checks, 0-dim targets.
"""
import pytest
from hypothesis import given, settings, strategies as st

import minigrad as torch
from minigrad.autograd import gradcheck

from helpers import INF, NAN, message, values


# ------------------------------------------------------------------ masks meet inf and nan gradients
def test_index_put_and_sgn_zero_what_they_drop_even_for_an_infinite_gradient():
    x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    y = x * 1
    y[x > 0] = 0.0
    y.backward(torch.tensor([INF, NAN, INF]))
    assert x.grad.tolist() == [INF, 0.0, 0.0]   # PyTorch 2.13 (minigrad gave [inf, nan, nan])
    x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    y = x * 1
    y[torch.tensor([0, 2])] = torch.tensor([2.0, 3.0])
    y.backward(torch.tensor([INF, NAN, 1.0]))
    assert values(x.grad) == ["0.0", "nan", "0.0"]
    x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    g, = torch.autograd.grad(x.abs().sum(), x, create_graph=True)
    second, = torch.autograd.grad(g, x, torch.tensor([INF, NAN, 1.0]))
    assert second.tolist() == [0.0, 0.0, 0.0] and not second.requires_grad   # SgnBackward0: zeros


KEYS = {   # for a base of shape (2, 3): (key, shape of what it selects)
    "int": (0, (3,)), "two ints": ((1, 2), ()), "column": ((slice(None), 1), (2,)), "slice": (slice(0, 1), (1, 3)),
    "ellipsis int": ((Ellipsis, 0), (2,)), "None int": ((None, 0), (1, 3)), "everything": (slice(None), (2, 3)),
    "int array": (torch.tensor([1, 0]), (2, 3)), "mask": (torch.tensor([[True, False, True], [False, True, False]]), (3,)),
    "int and array": ((0, torch.tensor([2, 0])), (2,)), "negative int": ((-1, -1), ()),
}


@settings(max_examples=60, deadline=None)
@given(key_name=st.sampled_from(sorted(KEYS)), value_form=st.sampled_from(["same", "0-dim", "last dim", "leading ones"]),
       base_form=st.sampled_from(["mul", "clone", "view of clone"]))
def test_writing_a_value_that_requires_grad_gives_both_tensors_their_gradients(key_name, value_form, base_form):
    """Checked against central differences: d/d(source) and d/d(value) of a weighted sum after the write."""
    key, selected = KEYS[key_name]
    shape = {"same": selected, "0-dim": (), "last dim": selected[-1:], "leading ones": (1, 1) + selected}[value_form]
    source = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
    value = torch.randn(shape, dtype=torch.float64, requires_grad=True)   # randn() with no size is refused
    weights = torch.randn(2, 3, dtype=torch.float64)

    def f(source, value):
        if base_form == "view of clone":
            y = source.clone().view(2, 3)
        else:
            y = source * 1.0 if base_form == "mul" else source.clone()
        y[key] = value
        return (y * weights).sum()
    assert gradcheck(f, (source, value))


def test_the_value_is_viewed_and_expanded_as_in_pytorch():
    src = torch.zeros(2, 3, requires_grad=True)

    def graph(key, shape):
        y = src * 1
        y[key] = torch.ones(shape, requires_grad=True)
        return [(n.name(), [m.name() if m else None for m, _ in n.next_functions])
                for n, _ in y.grad_fn.next_functions if n is not None]
    mul = ("MulBackward0", ["torch::autograd::AccumulateGrad", None])
    acc = "torch::autograd::AccumulateGrad"
    # PyTorch 2.13's graphs: leading ones are viewed away, a smaller value is expanded, a 0-dim one fills
    assert graph(0, (1, 1, 3)) == [mul, ("ViewBackward0", [acc])]
    assert graph(slice(None), (3,)) == [mul, ("ExpandBackward0", ["ViewBackward0"])]
    assert graph((0, 1), ()) == [mul, (acc, [])]   # no Expand node
    assert graph(torch.tensor([1, 0]), (1, 3)) == [mul, ("ViewBackward0", [acc])]


def test_a_value_of_the_wrong_shape_gets_pytorchs_errors_not_numpys():
    y = torch.zeros(2, 3) * 1
    assert message(lambda: y.__setitem__(0, torch.ones(4))) == (
        "RuntimeError: The expanded size of the tensor (3) must match the existing size (4) at non-singleton "
        "dimension 0.  Target sizes: [3].  Tensor sizes: [4]")
    assert message(lambda: y.__setitem__(torch.tensor([0, 1]), torch.ones(4))) == (
        "RuntimeError: shape mismatch: value tensor of shape [4] cannot be broadcast to indexing result of shape [2, 3]")
    assert message(lambda: y.__setitem__(slice(None), torch.ones(2, 1, 3))) == (
        "RuntimeError: expand(torch.FloatTensor{[2, 1, 3]}, size=[2, 3]): the number of sizes provided (2) must be "
        "greater or equal to the number of dimensions in the tensor (3)")
    y[0] = torch.ones(1, 1, 3)   # leading ones are allowed
    assert y[0].tolist() == [1.0, 1.0, 1.0]


def test_writing_a_tensor_of_another_dtype_through_an_index_tensor_is_refused_as_in_pytorch():
    y = torch.zeros(2)
    assert message(lambda: y.__setitem__(torch.tensor([0, 1]), torch.tensor(1., dtype=torch.float64))) == (
        "RuntimeError: Index put requires the source and destination dtypes match, got Float for the destination and "
        "Double for the source.")
    assert message(lambda: y.__setitem__(torch.tensor([True, False]), torch.tensor([1, 2]))) == (
        "RuntimeError: shape mismatch: value tensor of shape [2] cannot be broadcast to indexing result of shape [1]")
    y[torch.tensor([True, False])] = torch.tensor(3, dtype=torch.int64)   # one value through one mask: cast
    y[0] = torch.tensor(4., dtype=torch.float64)                          # a view: copy_ casts
    assert y.tolist() == [4.0, 0.0]


def test_a_slice_that_covers_a_dimension_writes_into_the_tensor_itself():
    x = torch.zeros(2, 3, requires_grad=True)
    names = {}
    for key in ["0:", "0:2, :", "0:5", "::1, ...", "-2:", ":, 0:3", "1:", "..., 0:3"]:
        y = x * 1
        exec(f"y[{key}] = 1.5")
        names[key] = y.grad_fn.name()
    assert names == {"0:": "FillBackward3", "0:2, :": "FillBackward3", "0:5": "FillBackward3",   # PyTorch 2.13
                     "::1, ...": "FillBackward3", "-2:": "torch::autograd::CopySlices", ":, 0:3": "FillBackward3",
                     "1:": "torch::autograd::CopySlices", "..., 0:3": "FillBackward3"}


def test_writing_into_a_view_of_an_expanded_tensor_writes_its_shared_memory_as_pytorch_does():
    g = torch.ones(1).expand(10)
    g[0] = 0   # PyTorch 2.13 writes (every element is the same memory cell); minigrad raised numpy's ValueError
    assert g.tolist() == [0.0] * 10
    g[0].add_(2)
    assert g.tolist() == [2.0] * 10
    assert message(lambda: g.add_(1)) == (
        "RuntimeError: unsupported operation: more than one element of the written-to tensor refers to a single "
        "memory location. Please clone() the tensor before performing the operation.")
    x0 = torch.tensor([5.0], requires_grad=True)
    x1, = torch.autograd.grad(x0.sum(), [x0])   # an expanded gradient of one element
    with torch.no_grad():
        x1.add_(1.0)
    assert x1.tolist() == [2.0]
    g = torch.ones(1).expand(10)
    with pytest.warns(UserWarning) as caught:
        g[torch.tensor([0, 1])] = 2.0
        g[g > 0] = 3.0
    assert [str(w.message) for w in caught] == [
        "Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before performing this "
        "operation. This also applies to advanced indexing e.g. tensor[indices] = tensor",
        "Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before performing this "
        "operation. This also applies to advanced indexing e.g. tensor[mask] = scalar"]
    assert g.tolist() == [3.0] * 10
    y = torch.ones(3, 1).expand(3, 4).clone()
    y[:, 0] = torch.tensor([[1.0], [2.0], [3.0]]).view(3)
    assert y[:, 0].tolist() == [1.0, 2.0, 3.0]


def test_a_value_with_leading_ones_is_checked_for_its_dtype_after_they_are_viewed_away():
    x3 = torch.tensor([[[3.0, 1.5], [0.0, -1.5]]], requires_grad=True).clone()
    x4 = torch.tensor([[[-3.0, 1.0]]], dtype=torch.float64, requires_grad=True)
    assert message(lambda: x3.__setitem__(x3 > 0, x4)) == (   # PyTorch 2.13
        "RuntimeError: Index put requires the source and destination dtypes match, got Float for the destination and "
        "Double for the source.")


@pytest.mark.parametrize("key, message", [
    (0, "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a "
        "0-dim tensor to a number"),
    (1, "index 1 is out of bounds for dimension 0 with size 0"),
    (slice(0, None), "slice() cannot be applied to a 0-dim tensor."),
])
def test_assigning_into_a_0_dim_tensor_by_int_or_slice_is_refused_as_in_pytorch(key, message):
    x = torch.tensor(2.0)
    with pytest.raises(IndexError) as caught:
        x[key] = 1.0
    assert str(caught.value) == message and x.item() == 2.0
    x[...] = 1.0   # what works in PyTorch works here
    assert x.item() == 1.0
