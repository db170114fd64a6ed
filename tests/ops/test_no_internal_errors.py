"""Calls that once let a numpy or Python error out (or a wrong answer through), each with PyTorch 2.13's
answer: its value, or its exception type and text."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as torch
from minigrad import nn
from minigrad.autograd import gradcheck
from helpers import message


# ------------------------------------------------------------------ scatter_add
def test_scatter_add_backward_with_an_index_smaller_than_self_outside_dim():
    index = torch.tensor([[0, 1], [2, 0]])
    s, src = torch.zeros(3, 4, requires_grad=True), torch.ones(2, 2, requires_grad=True)
    y = s.scatter_add(0, index, src)
    y.sum().backward()
    assert y.tolist() == [[1, 1, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0]] and src.grad.tolist() == [[1, 1], [1, 1]]
    src = torch.arange(4.0).view(2, 2).requires_grad_()
    y = torch.zeros(3, 4).scatter_add(1, index, src)
    (y * torch.arange(12.0).view(3, 4)).sum().backward()
    assert y.tolist() == [[0, 1, 0, 0], [3, 0, 2, 0], [0, 0, 0, 0]] and src.grad.tolist() == [[0, 1], [6, 4]]
    # a src larger than index gets a gradient shaped like index, which PyTorch's engine refuses too
    src = torch.arange(12.0).view(3, 4).requires_grad_()
    y = torch.zeros(3, 4).scatter_add(1, index, src)
    assert y.tolist() == [[0, 1, 0, 0], [5, 0, 4, 0], [0, 0, 0, 0]]
    assert message(lambda: y.sum().backward()) == ("RuntimeError: Function ScatterAddBackward0 returned an invalid "
                                                   "gradient at index 1 - got [2, 2] but expected shape compatible with "
                                                   "[3, 4]")


@settings(max_examples=10, deadline=None)
@given(hnp.arrays(np.float64, (3, 4), elements=st.floats(-2, 2)), hnp.arrays(np.float64, (2, 2), elements=st.floats(-2, 2)),
       st.sampled_from([0, 1]))
def test_scatter_add_gradients_against_central_differences(x, y, dim):
    index = torch.tensor([[0, 2], [1, 0]]) if dim == 0 else torch.tensor([[3, 0], [1, 1]])
    assert gradcheck(lambda s, src: s.scatter_add(dim, index, src),
                     (torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True)))


def test_scatter_add_of_0_dim_and_1_dim_mixtures():
    s, src = torch.tensor(1.0, requires_grad=True), torch.tensor(2.0, requires_grad=True)
    y = s.scatter_add(0, torch.tensor(0), src)
    y.backward()
    assert y.item() == 3.0 and y.grad_fn.name() == "ScatterAddBackward0" and s.grad.item() == 1.0 and src.grad.item() == 1.0
    one = torch.tensor(1.0)
    assert one.scatter_add_(0, torch.tensor(0), torch.tensor(2.0)).item() == 3.0
    assert torch.zeros(3).scatter_add(0, torch.tensor(1), torch.ones(2)).tolist() == [0, 1, 0]
    assert torch.zeros(3).scatter_add(0, torch.tensor([1]), torch.tensor(5.0)).tolist() == [0, 5, 0]
    assert torch.tensor(0.0).scatter_add(0, torch.tensor([0]), torch.tensor([5.0])).item() == 5.0


@pytest.mark.parametrize("call, expected", [
    (lambda: torch.tensor(1.0).scatter_add(0, torch.tensor(1), torch.tensor(2.0)),
     "RuntimeError: index 1 is out of bounds for dimension 0 with size 1"),
    (lambda: torch.zeros(3, 4).scatter_add(0, torch.tensor([[0, 1]]), torch.ones(2)),
     "IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda: torch.zeros(3, 4).scatter_add(0, torch.tensor([[0, 1]]), torch.ones(2, 2, 2)),
     "RuntimeError: Index tensor must have the same number of dimensions as src tensor"),
    (lambda: torch.zeros(3).scatter_add(0, torch.tensor([[0, 1]]), torch.ones(2, 2)),
     "RuntimeError: Index tensor must have the same number of dimensions as self tensor"),
    (lambda: torch.zeros(3).scatter_add(0, torch.tensor([1, 2]), torch.tensor(5.0)),
     "RuntimeError: Expected index [2] to be no larger than self [3] apart from dimension 0 and to be no larger size "
     "than src []"),
    (lambda: torch.zeros(3, 4).scatter_add(0, [[0]], torch.ones(2, 2)),
     "TypeError: scatter_add(): argument 'index' (position 2) must be Tensor, not list"),
])
def test_scatter_add_refusals(call, expected):
    assert message(call) == expected


# ------------------------------------------------------------------ prod of a 0-dim tensor
def test_prod_over_dim_0_of_a_0_dim_tensor():
    p = torch.tensor(0.0, requires_grad=True)
    y = p.prod(0, keepdim=True)
    y.backward()
    assert y.shape == () and y.grad_fn.name() == "ProdBackward1" and p.grad.item() == 1.0
    for make in (lambda p: p.prod(-1), lambda p: p.prod()):   # PyTorch passes the gradient on as it is
        p = torch.tensor(2.0, requires_grad=True)
        g, = torch.autograd.grad(make(p), p, create_graph=True)
        assert g.item() == 1.0 and g.grad_fn is None
    assert torch.tensor(3, dtype=torch.int32).prod(0).item() == 3
    assert message(lambda: torch.tensor(2.0).prod(1)) == (
        "IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)")


# ------------------------------------------------------------------ factories
@pytest.mark.parametrize("call, expected", [
    (lambda: torch.zeros(-1), "RuntimeError: zeros: Dimension size must be non-negative."),
    (lambda: torch.zeros(2, -1, -2), "RuntimeError: zeros: Dimension size must be non-negative."),
    (lambda: torch.ones(2, -1), "RuntimeError: Trying to create tensor with negative dimension -1: [2, -1]"),
    (lambda: torch.empty((2, -1)), "RuntimeError: Trying to create tensor with negative dimension -1: [2, -1]"),
    (lambda: torch.randn(-2), "RuntimeError: Trying to create tensor with negative dimension -2: [-2]"),
    (lambda: torch.rand(3, -1), "RuntimeError: Trying to create tensor with negative dimension -1: [3, -1]"),
    (lambda: torch.full((2, -1), 1.0), "RuntimeError: Trying to create tensor with negative dimension -1: [2, -1]"),
    (lambda: torch.ones(2).new_zeros(-1), "RuntimeError: Trying to create tensor with negative dimension -1: [-1]"),
    (lambda: torch.randint(5, (-1,)), "RuntimeError: Trying to create tensor with negative dimension -1: [-1]"),
    (lambda: torch.randperm(-1), "RuntimeError: Trying to create tensor with negative dimension -1: [-1]"),
    (lambda: nn.Embedding(-1, 3), "RuntimeError: Trying to create tensor with negative dimension -1: [-1, 3]"),
    (lambda: nn.Embedding(3, -1), "RuntimeError: Trying to create tensor with negative dimension -1: [3, -1]"),
    (lambda: torch.zeros(2.5), "TypeError: zeros(): argument 'size' (position 1) must be tuple of ints, not float"),
    (lambda: torch.zeros([2.5, 2]), "TypeError: zeros(): argument 'size' (position 1) must be tuple of ints, but "
                                    "found element of type float at pos 0"),
    (lambda: torch.zeros((2, 2.5)), "TypeError: zeros(): argument 'size' failed to unpack the object at pos 2 with "
                                    "error \"type must be tuple of ints,but got float\""),
    (lambda: torch.zeros(2, 3, 4.0), "TypeError: zeros(): argument 'size' failed to unpack the object at pos 3 with "
                                     "error \"type must be tuple of ints,but got float\""),
    (lambda: torch.zeros(2.5, 2), "TypeError: zeros() takes 1 positional argument but 2 were given"),
    (lambda: torch.ones(True), "TypeError: ones(): argument 'size' (position 1) must be tuple of ints, not bool"),
    (lambda: torch.ones(size=2), "TypeError: ones(): argument 'size' must be tuple of ints, not int"),
    (lambda: torch.zeros(torch.tensor([2, 3])), "TypeError: zeros(): argument 'size' (position 1) must be tuple of "
                                                "ints, not Tensor"),
    (lambda: torch.ones(), "TypeError: ones() missing 1 required positional arguments: \"size\""),
    (lambda: torch.ones(2).new_zeros(2.5), "TypeError: new_zeros(): argument 'size' (position 1) must be tuple of "
                                           "ints, not float"),
    (lambda: torch.arange(-1), "RuntimeError: upper bound and lower bound inconsistent with step sign"),
    (lambda: torch.arange(0, 5, -1), "RuntimeError: upper bound and lower bound inconsistent with step sign"),
    (lambda: torch.arange(0, 5, 0.0), "RuntimeError: step must be nonzero"),
    (lambda: torch.arange(float("nan")), "RuntimeError: unsupported range: 0 -> nan"),
    (lambda: torch.arange(float("inf")), "RuntimeError: unsupported range: 0 -> inf"),
    (lambda: torch.arange("a"), "TypeError: arange(): argument 'end' (position 1) must be Number, not str"),
    (lambda: torch.randperm(2.5), "TypeError: randperm(): argument 'n' (position 1) must be int, not float"),
    (lambda: torch.linspace(0, 1, -1), "RuntimeError: number of steps must be non-negative"),
    (lambda: torch.eye(-1), "RuntimeError: n must be greater or equal to 0, got -1"),
    (lambda: torch.eye(2, -1), "RuntimeError: m must be greater or equal to 0, got -1"),
    (lambda: torch.eye(2.5), "TypeError: eye(): argument 'n' (position 1) must be int, not float"),
    (lambda: torch.full(2, 1.0), "TypeError: full(): argument 'size' (position 1) must be tuple of ints, not int"),
    (lambda: torch.full((2,), None), "TypeError: full(): argument 'fill_value' (position 2) must be Number, not NoneType"),
    (lambda: torch.randint(3, (2.5,)), "TypeError: randint(): argument 'size' (position 2) must be tuple of ints, but "
                                       "found element of type float at pos 0"),
    (lambda: torch.tensor([1, "a"]), "TypeError: new(): invalid data type 'str'"),
    (lambda: torch.tensor("a"), "TypeError: new(): invalid data type 'str'"),
    (lambda: torch.tensor(["a"]), "ValueError: too many dimensions 'str'"),
    (lambda: torch.tensor([torch.ones(2), torch.ones(2)]), "ValueError: only one element tensors can be converted to "
                                                           "Python scalars"),
    (lambda: torch.tensor({1: 2}), "RuntimeError: Could not infer dtype of dict"),
    (lambda: torch.tensor({1, 2}), "RuntimeError: Could not infer dtype of set"),
    (lambda: torch.tensor([[1], [2, 3]]), "ValueError: expected sequence of length 1 at dim 1 (got 2)"),
    (lambda: torch.tensor([[1, 2], 3]), "TypeError: not a sequence"),
    (lambda: torch.tensor([1, None]), "RuntimeError: Could not infer dtype of NoneType"),
    (lambda: torch.tensor(None), "RuntimeError: Could not infer dtype of NoneType"),
    (lambda: torch.tensor(2 ** 70), "ValueError: Overflow when unpacking long long"),
    (lambda: torch.tensor([2 ** 63]), "ValueError: Overflow when unpacking long long"),
    (lambda: torch.tensor(x for x in range(3)), "RuntimeError: Could not infer dtype of generator"),
])
def test_factory_refusals(call, expected):
    assert message(call) == expected


def test_factories_that_work():
    assert torch.zeros(2, True).shape == (2, 1) and torch.zeros(2, torch.tensor(3)).shape == (2, 3)
    assert torch.zeros(torch.tensor([2])).shape == (2,) and torch.ones(size=()).shape == ()
    assert torch.arange(1, 1).tolist() == [] and torch.tensor([torch.ones(1), torch.ones(1)]).tolist() == [1.0, 1.0]
    assert torch.tensor([torch.tensor(1), 2.5]).tolist() == [1.0, 2.5] and torch.tensor(range(3)).tolist() == [0, 1, 2]
    assert torch.tensor([True, 2]).tolist() == [1, 2] and torch.tensor([1.5, True]).dtype is torch.float32


# ------------------------------------------------------------------ cat, stack, sum_to_size, shapes
@pytest.mark.parametrize("call, expected", [
    (lambda: torch.cat([]), "ValueError: torch.cat(): expected a non-empty list of Tensors"),
    (lambda: torch.cat([torch.ones(2), None]), "TypeError: expected Tensor as element 1 in argument 0, but got NoneType"),
    (lambda: torch.cat((torch.ones(2), 3)), "TypeError: expected Tensor as element 1 in argument 0, but got int"),
    (lambda: torch.cat(torch.ones(2, 2)), "TypeError: cat(): argument 'tensors' (position 1) must be tuple of "
                                          "Tensors, not Tensor"),
    (lambda: torch.stack([]), "RuntimeError: stack expects a non-empty TensorList"),
    (lambda: torch.stack([torch.ones(2), None]), "TypeError: expected Tensor as element 1 in argument 0, but got "
                                                 "NoneType"),
    (lambda: torch.ones(2, 3).sum_to_size(4, 2, 3), "RuntimeError: size {[4, 2, 3]} is not expandable to size {[2, 3]}."),
    (lambda: torch.ones(2, 3).sum_to_size(-1), "RuntimeError: size {[-1]} is not expandable to size {[2, 3]}."),
    (lambda: torch.ones(10).reshape(5, -1, -1), "RuntimeError: only one dimension can be inferred"),
    (lambda: torch.ones(10).view(-1, -1), "RuntimeError: only one dimension can be inferred"),
    (lambda: torch.ones(10).reshape(-2, 5), "RuntimeError: invalid shape dimension -2 at index 0 of shape [-2, 5]"),
    (lambda: torch.ones(2, 3).expand(-1, -1, 3), "RuntimeError: The expanded size of the tensor (-1) isn't allowed in "
                                                 "a leading, non-existing dimension 0"),
    (lambda: torch.ones(2, 3).flatten(1, 0), "RuntimeError: flatten() has invalid args: start_dim cannot come after "
                                             "end_dim"),
    (lambda: torch.ones(2, 3)[torch.tensor([1.0])], "IndexError: tensors used as indices must be long, int, byte or "
                                                    "bool tensors"),
    (lambda: torch.ones(2, 3)[torch.tensor([True, False, True])], "IndexError: The shape of the mask [3] at index 0 "
                                                                  "does not match the shape of the indexed tensor [2, 3] at index 0"),
    (lambda: torch.ones(2, 3)[:, torch.tensor([True, False])], "IndexError: The shape of the mask [2] at index 0 does "
                                                               "not match the shape of the indexed tensor [2, 3] at index 1"),
    (lambda: torch.ones(2, 3).index_select(0, torch.tensor([5])), "IndexError: index out of range in self"),
    (lambda: torch.ones(2, 3, 4).index_select(2, torch.tensor([5])), "IndexError: index out of range in self"),
    (lambda: torch.ones(2, 3, 4).index_select(1, torch.tensor([5])), "RuntimeError: INDICES element is out of DATA "
                                                                     "bounds, id=5 axis_dim=3"),
])
def test_shape_and_list_refusals(call, expected):
    assert message(call) == expected


def test_a_string_key_is_refused_with_pytorchs_warning():
    with pytest.warns(UserWarning, match="Using a non-tuple sequence for multidimensional indexing is deprecated"):
        assert message(lambda: torch.ones(2, 3)["a"]) == "TypeError: new(): invalid data type 'str'"


def test_sum_to_size_that_works():
    assert torch.ones(2, 3).sum_to_size(1, 3).tolist() == [[2.0, 2.0, 2.0]]
    assert torch.ones(2, 3).sum_to_size(3).tolist() == [2.0, 2.0, 2.0]


# ------------------------------------------------------------------ views made in inference mode
def test_a_view_made_in_inference_mode_is_not_changed_in_place_outside():
    c = torch.ones(3, requires_grad=True)
    with torch.inference_mode():
        d = c.view(3)
    assert message(lambda: d.add_(1)) == (
        "RuntimeError: A view was created in inference mode and is being modified inplace in normal mode. Given that "
        "this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view "
        "and the inplace either both inside the inference_mode block (if you don't want the inplace to be tracked) or "
        "both outside (if you want the inplace to be tracked).")
    with torch.inference_mode():
        c[0].add_(1)   # inside, allowed
