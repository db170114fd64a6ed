"""In-place changes through views, as PyTorch 2.13 makes them (see minigrad/autograd/views.py).

The facts (node names, gradients, error texts) were observed on PyTorch 2.13; the programs in
tests/programs/views_and_in_place.py compare whole printouts, these tests check one behaviour each:
graph shape and object identities, gradients against central differences (gradcheck) and against
the numbers PyTorch printed, second derivatives, and PyTorch's refusals with their exact texts.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad as torch
from minigrad.autograd import Function, gradcheck, gradgradcheck
from minigrad.autograd.views import positions_in_base
from minigrad.viz import draw, trace_backward
import sys
import warnings
from minigrad.autograd import engine

from helpers import ReturnsItsInput, error_text, message as typed_message, node_names

NO_GRAD_ADVICE = (
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
    "moving both the view and the inplace either both inside the no_grad block (if you don't want the inplace "
    "to be tracked) or both outside (if you want the inplace to be tracked).")
CUSTOM_ADVICE = (
    "This view was created inside a custom Function (or because an input was returned as-is) and the autograd "
    "logic to handle view+inplace would override the custom backward associated with the custom Function, "
    "leading to incorrect gradients. This behavior is forbidden. You can fix this by cloning the output of the "
    "custom Function.")


def message(call) -> str:
    """The text of the RuntimeError (exactly) that ``call`` raises."""
    return error_text(RuntimeError, call)


def leaf(rows=((1.0, 2.0), (3.0, 4.0))):
    return torch.tensor(rows, requires_grad=True)


def double(shape, seed=0):
    return torch.tensor(np.random.default_rng(seed).standard_normal(shape), requires_grad=True)


class Id(Function):
    """Returns a view of its input."""

    @staticmethod
    def forward(ctx, t):
        return t.view_as(t)

    @staticmethod
    def backward(ctx, grad):
        return grad


class Dirty(Function):
    """Doubles its input in place and says so with mark_dirty."""

    @staticmethod
    def forward(ctx, t):
        t.mul_(2)
        ctx.mark_dirty(t)
        return t

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class AddInPlace(Function):
    """``x.add_(y)`` written as a custom Function."""

    @staticmethod
    def forward(ctx, x, y):
        ctx.mark_dirty(x)
        x.add_(y)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad, grad


# --------------------------------------------------------------------------- what a view is
def test_views_of_views_point_at_the_root_base_and_share_its_counter():
    x = leaf()
    y = x.clone()
    v = y.view(-1)
    v2 = v[1:]
    assert v._base is y and v2._base is y and y.t().t()._base is y
    assert v._is_view() and v2._is_view() and not y._is_view()
    assert not x.detach()._is_view() and not x.clone()._is_view()
    v2.add_(1)
    assert (y._version, v._version, v2._version) == (1, 1, 1)


def test_selecting_one_element_of_a_vector_is_a_real_view():
    y = torch.tensor([1.0, 2.0, 3.0])
    y[1].mul_(10)        # numpy would give a copy for y._data[1]: the change must reach y
    assert y.tolist() == [1.0, 20.0, 3.0]


def test_positions_in_base_follow_the_memory_layout():
    y = torch.arange(12).view(3, 4).clone()
    for view in (y[1], y[:, 2], y.t()[1:, ::2], y.view(2, 6)[1], y[1:].t().unsqueeze(0), y[0, 1]):
        assert view._base is y
        np.testing.assert_array_equal(y.numpy()[positions_in_base(view)], view.numpy())
    column = torch.tensor(np.asfortranarray(np.arange(6.0).reshape(2, 3)))   # a base laid out column by column
    np.testing.assert_array_equal(column.numpy()[positions_in_base(column[1, 1:])], [4.0, 5.0])


# --------------------------------------------------------------------------- rewriting histories
def test_inplace_on_a_view_gives_the_base_copyslices_and_the_view_as_strided():
    x = leaf()
    y = x.clone()
    clone_node = y.grad_fn
    v = y[0]
    assert (v.grad_fn.name(), y._version) == ("SelectBackward0", 0)
    v.mul_(2)
    copy_slices = y.grad_fn
    assert copy_slices.name() == "torch::autograd::CopySlices"
    assert type(copy_slices).__name__ == "CopySlices" and "grad_fn=<CopySlices>" in repr(y)
    assert copy_slices.next_functions == ((clone_node, 0), (None, 0))   # the 2 is not a tensor
    assert v.grad_fn.name() == "AsStridedBackward0"
    assert v.grad_fn.next_functions == ((copy_slices, 0),)
    assert node_names(v) == ["AsStridedBackward0", "CopySlices", "CloneBackward0", "AccumulateGrad"]
    y.sum().backward()
    assert x.grad.tolist() == [[2.0, 2.0], [1.0, 1.0]]


def test_gradient_through_the_base_a_sibling_view_and_a_view_of_a_view():
    x = leaf()
    y = x.clone()
    y[0:1].mul_(2)
    y.sum().backward()
    assert x.grad.tolist() == [[2, 2], [1, 1]]

    x = leaf()
    y = x.clone()
    first, again = y[0:1], y[0:1]
    first.mul_(2)
    assert node_names(again)[:2] == ["AsStridedBackward0", "CopySlices"]   # the sibling follows the base
    again.sum().backward()
    assert x.grad.tolist() == [[2, 2], [0, 0]]

    x = leaf()
    y = x.clone()
    y[0:1][:, 1:2].mul_(2)
    y.sum().backward()
    assert x.grad.tolist() == [[1, 2], [1, 1]]


def test_a_view_follows_when_its_base_changes_in_place():
    x = leaf()
    y = x.clone()
    v = y[0]
    y.mul_(2)
    assert node_names(v) == ["AsStridedBackward0", "MulBackward0", "CloneBackward0", "AccumulateGrad"]
    (v * 1).sum().backward()
    assert x.grad.tolist() == [[2, 2], [0, 0]]


def test_a_view_made_from_a_non_contiguous_root():
    root = torch.ones(2, 3, 2)[:, :, 1].t().requires_grad_(True)
    y = root.clone()
    y[0:1][:, 1:2].mul_(2)
    y.sum().backward()
    assert root.grad.tolist() == [[1, 2], [1, 1], [1, 1]]


def test_inplace_with_another_tensor_that_needs_grad():
    x = leaf()
    w = torch.tensor([10.0, 20.0], requires_grad=True)
    y = x.clone()
    y[0].add_(w)
    assert y.grad_fn.next_functions[1][0] is w.grad_fn or y.grad_fn.next_functions[1][0].variable is w
    (y * y).sum().backward()
    assert x.grad.tolist() == [[22, 44], [6, 8]] and w.grad.tolist() == [22, 44]


def test_the_base_starts_to_require_grad():
    a = torch.tensor([2.0, 5.0])
    b = torch.tensor([3.0], requires_grad=True)
    res = a[1:].mul_(b)
    assert a.requires_grad and not a.is_leaf and node_names(a) == ["CopySlices", "AccumulateGrad"]
    res.sum().backward()
    assert b.grad.tolist() == [5.0]


def test_an_old_view_of_a_plain_tensor_starts_to_require_grad():
    x = torch.ones(5)
    v = x[1]
    assert not v.requires_grad and v.grad_fn is None
    r = torch.ones(1, requires_grad=True)
    x.add_(r)
    assert v.requires_grad and v.grad_fn.name() == "AsStridedBackward0"


# --------------------------------------------------------------------------- gradients
def test_gradcheck_two_regions_multiplied_in_place():
    def func(root, b):
        x = root.clone()
        x[1:3, 2:4].mul_(b)
        x[1:3, 0:2].mul_(b)
        return x

    inputs = (double((4, 4)), double((2, 2), seed=1))
    assert gradcheck(func, inputs)
    assert gradgradcheck(func, inputs)


def test_gradcheck_when_only_the_inplace_argument_needs_grad():
    def func(b):
        x = torch.tensor(np.arange(16.0).reshape(4, 4))
        assert not x.requires_grad
        x[:, 2:4].mul_(b)
        assert x.requires_grad or not torch.is_grad_enabled()   # gradcheck also runs it under no_grad
        return x

    assert gradcheck(func, (double((4, 2)),))
    assert gradgradcheck(func, (double((4, 2)),))


def test_gradcheck_of_an_old_view_after_its_base_changed():
    def func(r):
        x = torch.ones(5, dtype=torch.float64)
        v = x[1]
        x.add_(r)
        return v * v

    assert gradcheck(func, (double(1),))
    assert gradgradcheck(func, (double(1),))


def test_gradcheck_custom_function_marking_views_dirty():
    def func(root, b):
        x = root.clone()
        AddInPlace.apply(x[1:3, 2:4], b)
        AddInPlace.apply(x[1:3, 0:2], b)
        return x * x

    inputs = (double((4, 4)), double((2, 2), seed=1))
    assert gradcheck(func, inputs)
    assert gradgradcheck(func, inputs)


def test_gradcheck_index_assignment():
    def func(root, w):
        y = root * 1
        y[0] = w
        y[1, 1:] = 2.0
        y[:, 0] *= w[:1]
        y[2, torch.tensor([0, 2])] = w[1:]
        return y * root

    inputs = (double((3, 3)), double(3, seed=2))
    assert gradcheck(func, inputs)
    assert gradgradcheck(func, inputs)


def test_second_derivative_through_copyslices_matches_pytorch():
    x = leaf()
    y = x.clone()
    first = y[0]
    first.mul_(y[1] * 1)
    gx, = torch.autograd.grad((y ** 2).sum(), x, create_graph=True)
    assert gx.tolist() == [[18, 64], [12, 40]]
    gg, = torch.autograd.grad(gx.sum(), x)
    assert gg.tolist() == [[30, 64], [16, 42]]     # PyTorch 2.13's numbers


def test_a_view_multiplied_by_itself():
    x = leaf()
    y = x.clone()
    v = y[:, 0]
    v.mul_(v)          # PyTorch refuses at backward (the saved view changed); minigrad keeps the old values
    (y * y).sum().backward()
    assert x.grad.tolist() == [[4, 4], [108, 8]]


OPS = {
    "add_": (lambda v, w: v.add_(w), lambda v, w: v + w),
    "sub_": (lambda v, w: v.sub_(w, alpha=2), lambda v, w: v - 2 * w),
    "mul_": (lambda v, w: v.mul_(w), lambda v, w: v * w),
    "div_": (lambda v, w: v.div_(w * w + 1), lambda v, w: v / (w * w + 1)),
    "copy_": (lambda v, w: v.copy_(w), lambda v, w: np.broadcast_to(w, v.shape)),
    "zero_": (lambda v, w: v.zero_(), lambda v, w: 0 * v),
}


@settings(max_examples=40, deadline=None)
@given(op=st.sampled_from(sorted(OPS)), rows=st.integers(0, 2), stop=st.integers(1, 3), step=st.integers(1, 2),
       column=st.booleans(), transpose=st.booleans())
def test_random_regions_and_ops_match_numpy_and_central_differences(op, rows, stop, step, column, transpose):
    run, reference = OPS[op]
    key = (slice(rows, rows + stop, step), 1) if column else (slice(rows, rows + stop, step),)

    def region(t):
        return (t.t() if transpose else t)[key]

    def func(x, w):
        y = x * 1
        run(region(y), w)
        return y * x

    x, w = double((3, 3)), double((), seed=3)
    expected = x.detach().numpy().copy()
    target = expected.T if transpose else expected
    target[key] = reference(target[key], w.item())
    np.testing.assert_allclose(func(x, w).detach().numpy(), expected * x.detach().numpy())
    assert gradcheck(func, (x, w))
    assert gradgradcheck(func, (x, w))


# --------------------------------------------------------------------------- index assignment
def test_index_assignment_records_copyslices():
    x = leaf()
    y = x.clone()
    y[0] = 5.0
    assert node_names(y) == ["CopySlices", "CloneBackward0", "AccumulateGrad"] and y._version == 1
    (y * y).sum().backward()
    assert x.grad.tolist() == [[0, 0], [6, 8]]
    w = torch.tensor([10.0, 20.0], requires_grad=True)
    y3 = x.clone()
    y3[0] = w
    assert [n.name() for n, _ in y3.grad_fn.next_functions] == ["CloneBackward0", "torch::autograd::AccumulateGrad"]
    assert repr(y3) == "tensor([[10., 20.],\n        [ 3.,  4.]], grad_fn=<CopySlices>)"


def test_index_assignment_node_names_follow_the_key():
    x = leaf()
    for key, first in [((slice(None), 1), "CopySlices"), ((0, 1), "CopySlices"), (slice(None), "FillBackward3"),
                       (torch.tensor([0]), "IndexPutBackward0"), ((0, torch.tensor([1])), "CopySlices")]:
        y = x.clone()
        y[key] = 5.0
        assert node_names(y)[0] == first, key
    y = x.clone()
    y[0] += torch.ones(2, requires_grad=True)   # y[0].add_(...), then y[0] = that view: two CopySlices
    assert node_names(y)[:2] == ["CopySlices", "CopySlices"]


# --------------------------------------------------------------------------- retain_grad
def test_retain_grad_follows_the_tensor_to_its_new_grad_fn():
    x = leaf()
    y = x.clone()
    y.retain_grad()
    y.mul_(2)
    y.sum().backward()
    assert y.grad.tolist() == [[1, 1], [1, 1]] and x.grad.tolist() == [[2, 2], [2, 2]]

    x = leaf()
    y = x.clone()
    v = y[0]
    v.retain_grad()
    y.mul_(3)
    (v * 1).sum().backward()
    assert v.grad.tolist() == [1, 1] and x.grad.tolist() == [[3, 3], [0, 0]]

    x = leaf()
    y = x.clone()
    v = y[0]
    v.retain_grad()
    v.mul_(3)
    y.sum().backward()              # v's new node is not on the way from y: no gradient for v
    assert v.grad is None and x.grad.tolist() == [[3, 3], [1, 1]]


def test_reading_grad_fn_under_no_grad_then_backward():
    a = torch.ones(3, 1, dtype=torch.float64, requires_grad=True)
    b = a * 2
    c = b.view_as(b)
    c[0][0] = 3
    with torch.no_grad():
        assert c.grad_fn.name() == "AsStridedBackward0"
    c.sum().backward()
    assert a.grad.tolist() == [[0.0], [2.0], [2.0]]


# --------------------------------------------------------------------------- refusals
def test_leaf_and_view_of_leaf():
    x = leaf()
    assert message(lambda: x.mul_(2)) == "a leaf Variable that requires grad is being used in an in-place operation."
    view_text = "a view of a leaf Variable that requires grad is being used in an in-place operation."
    assert message(lambda: x[0].mul_(2)) == view_text
    assert message(lambda: x.__setitem__(0, 1.0)) == view_text
    assert x.tolist() == [[1, 2], [3, 4]] and x._version == 0   # builtin ops refuse before writing
    assert message(lambda: Dirty.apply(x[:1])) == view_text      # a custom forward has written already
    assert x.tolist() == [[2, 4], [3, 4]]


def test_views_made_under_no_grad():
    x = leaf()
    y = x.clone()
    with torch.no_grad():
        view = y[0]
        of_leaf = x[0]
    assert view.requires_grad and view.grad_fn is None and view.is_leaf   # as in PyTorch
    used = view * 2
    assert used.grad_fn.name() == "MulBackward0" and used.grad_fn.next_functions == ((None, 0), (None, 0))
    chained = view[1:]
    assert chained.grad_fn.name() == "SliceBackward0"
    assert message(lambda: chained.mul_(torch.ones(1, requires_grad=True))) == (
        "Output 0 of Slice is a view of a view which was created in no_grad mode and is being modified inplace "
        "with grad mode enabled. " + NO_GRAD_ADVICE)
    direct = "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    assert message(lambda: view.mul_(2)) == direct + NO_GRAD_ADVICE
    assert message(lambda: of_leaf.mul_(2)) == direct + NO_GRAD_ADVICE
    y.mul_(2)
    indirect = ("A view was created in no_grad mode and its base or another view of its base has been modified "
                "inplace with grad mode enabled. ")
    assert message(lambda: view.grad_fn) == indirect + NO_GRAD_ADVICE

    plain = torch.zeros(2, 2)
    with torch.no_grad():
        plain_view = plain[0]
    plain_view.add_(1)             # nothing requires grad: nothing to record, allowed
    assert message(lambda: plain_view.mul_(torch.ones(2, requires_grad=True))) == direct + NO_GRAD_ADVICE
    with torch.no_grad():
        view.mul_(2)               # both in no_grad: allowed, not recorded


def test_views_returned_by_custom_functions():
    x = leaf()
    out = Id.apply(x)
    assert out._is_view() and out._base is x and out.grad_fn.name() == "IdBackward"
    direct = "Output 0 of Id is a view and is being modified inplace. " + CUSTOM_ADVICE
    assert message(lambda: out.mul_(2)) == direct
    same = ReturnsItsInput.apply(x.clone())
    assert same._is_view()
    assert message(lambda: same.mul_(2)) == direct.replace("of Id", "of ReturnsItsInput")
    sliced = Id.apply(x.clone())[1:]
    assert message(lambda: sliced.mul_(2)) == direct.replace("of Id", "of Slice")

    y = x.clone()
    out = Id.apply(y)
    y.mul_(2)
    assert message(lambda: out.grad_fn) == ("Output 0 of Id is a view and its base or another view of its base "
                                            "has been modified inplace. " + CUSTOM_ADVICE)

    with torch.no_grad():
        quiet = Id.apply(x)
    assert quiet._is_view() and quiet.requires_grad and quiet.grad_fn is None
    no_grad_text = "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    assert message(lambda: quiet.mul_(2)) == no_grad_text + CUSTOM_ADVICE
    plain = Id.apply(torch.ones(2))
    assert message(lambda: plain.mul_(torch.ones(2, requires_grad=True))) == no_grad_text + CUSTOM_ADVICE
    assert message(lambda: plain.copy_(torch.ones(1, requires_grad=True))) == no_grad_text + CUSTOM_ADVICE


def test_mark_dirty_on_a_view():
    a = torch.ones(3, requires_grad=True)
    y = a * 1
    v = y[:2]
    out = Dirty.apply(v)
    assert out is v and v.grad_fn.name() == "AsStridedBackward0"
    assert node_names(y) == ["CopySlices", "MulBackward0", "AccumulateGrad"]
    y.sum().backward()
    assert a.grad.tolist() == [2, 2, 1]


def test_mark_dirty_on_a_view_with_two_outputs_or_not_first():
    class Two(Function):
        @staticmethod
        def forward(ctx, t):
            t.mul_(2)
            ctx.mark_dirty(t)
            return t, t * 3

        @staticmethod
        def backward(ctx, grad, other):
            return grad * 2 + other * 6

    class Second(Function):
        @staticmethod
        def forward(ctx, s, t):
            t.mul_(s)
            ctx.mark_dirty(t)
            return t

        @staticmethod
        def backward(ctx, grad):
            return None, grad

    a = torch.ones(3, requires_grad=True)
    assert message(lambda: Two.apply((a * 1)[:2])).startswith(
        "If your Function modifies inplace an input that is a view of another Tensor, your Function cannot return "
        "more than one Tensor.")
    with pytest.raises(NotImplementedError, match="not its first argument"):
        Second.apply(torch.tensor(2.0), (a * 1)[:2])


def test_views_cannot_be_detached_in_place():
    assert message(lambda: torch.zeros(3)[:2].detach_()).startswith(
        "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP)")
    assert not leaf().clone().detach_().requires_grad


def test_expanded_views_cannot_be_written():
    text = ("unsupported operation: more than one element of the written-to tensor refers to a single memory "
            "location. Please clone() the tensor before performing the operation.")
    assert message(lambda: torch.ones(2).expand(3, 2).mul_(2)) == text
    assert message(lambda: leaf().clone()[0].expand(3, 2).add_(1)) == text


def test_an_empty_tensor_with_zero_strides_may_be_written():
    x = torch.ones(1, 2, 2, requires_grad=True)
    empty = torch.cat([x[:0], x[:0]])   # numpy gives it strides (0, 0, 0): still no shared element
    with torch.no_grad():
        assert empty.add_(1.0).shape == (0, 2, 2) and empty._version == 1


def test_fill_and_zero_may_write_into_an_expanded_tensor_as_in_pytorch():
    base = torch.ones(2)
    expanded = base.expand(3, 2)
    assert expanded.zero_().tolist() == [[0.0, 0.0]] * 3 and base.tolist() == [0.0, 0.0]
    assert expanded.fill_(5).tolist() == [[5.0, 5.0]] * 3 and base.tolist() == [5.0, 5.0]
    assert expanded._version == 2 and base._version == 2
    # the gradient of a sum is the incoming gradient expanded (every stride 0): it can be zeroed too
    x = torch.zeros(2, 3, requires_grad=True)
    g, = torch.autograd.grad(x.sum(), [x])
    assert g.zero_().tolist() == [[0.0] * 3] * 2


def test_empty_views_may_be_changed_in_place_as_in_pytorch():
    x = torch.tensor([[-0.5, 2.5, -1.5]], requires_grad=True)
    y = x * 1
    empty = y[1:]
    empty.mul_(2)
    assert empty.grad_fn.name() == "AsStridedBackward0" and y.grad_fn.name() == "torch::autograd::CopySlices"
    y.sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0, 1.0]]
    with torch.no_grad():
        empty *= empty
    assert empty.shape == (0, 3)


def test_vector_times_matrix_is_not_a_view_as_in_pytorch():
    # PyTorch squeezes its temporary product in place: the result is that product, at version 1
    w = torch.tensor([[0.5, 3.0], [-3.0, -1.5], [-2.0, 1.5]], requires_grad=True)
    y = torch.tensor([3.0, 3.0, -1.0]) @ w
    assert y._base is None and y._version == 1 and y.grad_fn.name() == "SqueezeBackward4"
    view = y[...]
    assert view._base is y
    y.div_(2.0)
    assert y.grad_fn.name() == "DivBackward0" and view.grad_fn.name() == "AsStridedBackward0"
    (y.sum() + view.sum()).backward()
    assert w.grad.tolist() == [[3.0, 3.0], [3.0, 3.0], [-1.0, -1.0]]   # PyTorch 2.13's numbers


def test_an_in_place_change_of_a_0_dim_tensor_seen_through_a_view_reaches_it_as_in_pytorch():
    x = torch.tensor(1.0, requires_grad=True)
    expanded = x.expand(2)
    with torch.no_grad():
        x.zero_()
    y = expanded * 2
    assert expanded.grad_fn.name() == "AsStridedBackward0" and expanded.grad_fn.next_functions[0][0].variable is x
    y.sum().backward()
    assert x.grad.item() == 4.0   # PyTorch 2.13: both elements of the view are x's one element


def test_an_in_place_operation_may_not_read_part_of_what_it_writes():
    text = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
            "memory location. Please clone() the tensor before performing the operation.")
    y = torch.arange(4.0).view(2, 2)
    assert message(lambda: y.add_(y.t())) == text          # the same memory, read in another order
    assert message(lambda: y.add_(y[0])) == text           # part of it
    assert message(lambda: y.copy_(y.t())) == text
    # allowed, as in PyTorch 2.13: exactly the memory written, disjoint parts, a value to fill with,
    # and columns (not one block of memory: PyTorch does not judge those)
    y.mul_(y), y.add_(y.view(2, 2)), y[0].add_(y[1]), y.fill_(y[0, 0]), y[:, 0].add_(y[:, 1])
    x = torch.tensor([2.0, 3.0])
    assert message(lambda: x.mul_(x[0])) == text


def test_saved_tensor_changed_through_a_view_and_grad_left_untouched():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    a.grad = torch.tensor([7.0, 7.0])
    y = a.exp()
    y[:1].mul_(2)
    text = message(lambda: y.sum().backward())
    assert text.startswith("one of the variables needed for gradient computation has been modified by an inplace "
                           "operation: [torch.FloatTensor [2]], which is output 0 of Exp, is at version 1; expected "
                           "version 0 instead.")
    assert a.grad.tolist() == [7.0, 7.0]


# --------------------------------------------------------------------------- reshape, contiguous, pictures
def test_reshape_views_when_it_can_and_copies_when_it_cannot():
    x = leaf()
    assert node_names(x.reshape(-1)) == ["ViewBackward0", "AccumulateGrad"] and x.reshape(-1)._is_view()
    copied = x.t().reshape(-1)
    assert node_names(copied) == ["UnsafeViewBackward0", "CloneBackward0", "TBackward0", "AccumulateGrad"]
    assert not copied._is_view() and copied.tolist() == [1, 3, 2, 4]
    assert node_names(x.t().contiguous().view(-1)) == [
        "ViewBackward0", "CloneBackward0", "TBackward0", "AccumulateGrad"]
    assert x.contiguous() is x and not x.t().is_contiguous()
    assert message(lambda: x.t().view(-1)) == (
        "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
        "contiguous subspaces). Use .reshape(...) instead.")


def test_pictures_of_copyslices_graphs():
    x = leaf()
    w = torch.tensor([10.0, 20.0], requires_grad=True)
    y = x.clone()
    v = y[0]
    v.mul_(w)
    text = str(draw(v))
    assert "AsStridedBackward0\n  -> torch::autograd::CopySlices" in text
    assert "CopySlices" in draw(y).source
    steps = str(trace_backward(y.sum()))
    assert "torch::autograd::CopySlices receives [[1., 1.], [1., 1.]], sends [[10., 20.], [1., 1.]]" in steps


ADVICE = (" This view is the output of a function that returns multiple views. Such functions do not allow the "
          "output views to be modified inplace. You should replace the inplace operation by an out-of-place one.")


def recorded():
    return torch.ones(2, 4, requires_grad=True) * 1   # a non-leaf: in-place changes are allowed on it


@pytest.mark.parametrize("make, index, name", [
    (lambda x: x.unbind(0), 1, "Unbind"),
    (lambda x: x.split(2, dim=1), 0, "Split"),
    (lambda x: x.chunk(2, dim=1), 1, "Split"),
    (lambda x: x.split([1, 3], dim=1), 0, "SplitWithSizes"),
    (lambda x: x.split(4, dim=1), 0, "Split"),   # one piece only: still a multi-output node
])
def test_a_piece_of_a_multi_view_node_refuses_an_in_place_change(make, index, name):
    piece = make(recorded())[index]
    with pytest.raises(RuntimeError) as error:
        piece.mul_(2)
    assert str(error.value) == f"Output {index} of {name} is a view and is being modified inplace." + ADVICE


def test_a_view_of_a_piece_is_refused_too_under_its_own_node_name():
    view = recorded().chunk(2, dim=1)[0][0]
    with pytest.raises(RuntimeError, match=r"^Output 0 of Select is a view and is being modified inplace\. This view is the output"):
        view.add_(1)


def test_changing_the_base_makes_the_pieces_unusable():
    x = recorded()
    first, _ = x.split(2, dim=1)
    x.add_(1)
    message = "Output 0 of Split is a view and its base or another view of its base has been modified inplace." + ADVICE
    with pytest.raises(RuntimeError) as error:
        first.grad_fn
    assert str(error.value) == message
    with pytest.raises(RuntimeError) as error:
        (first * 1).sum().backward()
    assert str(error.value) == message


def test_pieces_made_under_no_grad_get_the_no_grad_message():
    x = recorded()
    with torch.no_grad():
        first, _ = x.unbind(0)
    with pytest.raises(RuntimeError, match=r"^A view was created in no_grad mode and is being modified inplace"):
        first.add_(1)


def test_pieces_that_need_no_gradient_and_data_writes_are_allowed():
    first, _ = torch.ones(2, 4).unbind(0)
    first.add_(1)
    assert first.grad_fn is None and first.tolist() == [2.0] * 4
    piece, _ = recorded().unbind(0)
    piece.data.add_(1)   # .data does not bump the version: the node stays
    assert piece.grad_fn.name() == "UnbindBackward0"


CYCLE = ("Using backward() with create_graph=True will create a reference cycle between the parameter and its "
         "gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid "
         "this. If you have to use this function, make sure to reset the .grad fields of your parameters to None "
         "after use to break the cycle and avoid the leak.")


@pytest.mark.parametrize("run, warns", [
    (lambda x: (x * x).sum().backward(create_graph=True), True),
    (lambda x: torch.autograd.backward((x * x).sum(), create_graph=True), True),
    (lambda x: (x * x).sum().backward(create_graph=True, inputs=[x]), True),
    (lambda x: torch.autograd.grad((x * x).sum(), x, create_graph=True), False),
    (lambda x: (x * x).sum().backward(), False),
])
def test_backward_with_create_graph_warns_once_per_process(run, warns, monkeypatch):
    monkeypatch.setattr(sys.modules["minigrad.tensor"], "_warned", set())   # a fresh process, as far as warnings go
    for attempt in range(2):
        x = torch.ones(2, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            run(x)
        messages = [str(w.message) for w in caught if w.category is UserWarning]
        assert messages == ([CYCLE] if warns and attempt == 0 else []), messages
    assert engine.CREATE_GRAPH_CYCLE == CYCLE


# ------------------------------------------------------------------ x[key] = value, value requiring grad
def test_a_value_written_into_one_element_of_a_non_leaf_gets_its_gradient():
    y = torch.ones(5, requires_grad=True) + 2
    v = torch.tensor(7., requires_grad=True)
    y[3] = v
    y.sum().backward()
    assert v.grad.item() == 1.0   # PyTorch 2.13: tensor(1.)  (minigrad gave tensor(0.))


def test_copy_slices_gives_the_op_its_own_copy_of_the_gradient():
    # copy_'s backward returns the gradient it got for its source: if that were a view of the
    # buffer CopySlices overwrites with zeros afterwards, the source would get zeros
    y = torch.zeros(2, 3, requires_grad=True) * 1
    v = torch.tensor(2., requires_grad=True)
    y[1, 2].copy_(v)
    (y * torch.arange(6.).view(2, 3)).sum().backward()
    assert v.grad.item() == 5.0


def test_a_0_dim_tensor_changed_in_place_while_views_of_it_are_in_the_graph():
    # PyTorch 2.13's numbers for each program (minigrad raised NotImplementedError)
    x = torch.tensor(2., requires_grad=True)
    y = x * 1
    v = y.expand(3)
    y.mul_(2)
    assert v.grad_fn.name() == "AsStridedBackward0" and v.tolist() == [4.0, 4.0, 4.0]
    (v * torch.tensor([1., 2., 3.])).sum().backward()
    assert x.grad.item() == 12.0

    x = torch.tensor(2., requires_grad=True)
    y = x * 1
    v = y.expand(3)
    y.view(1).mul_(3)
    assert y.grad_fn.name() == "torch::autograd::CopySlices" and repr(y) == "tensor(6., grad_fn=<CopySlices>)"
    (v * torch.tensor([1., 2., 3.])).sum().backward()
    assert x.grad.item() == 18.0

    x, w = torch.tensor(2., requires_grad=True), torch.tensor(3., requires_grad=True)
    y = x * 1
    y[...].copy_(w)
    y.backward()
    assert (x.grad.item(), w.grad.item()) == (0.0, 1.0)

    x = torch.tensor(2., requires_grad=True)
    y = x * 1
    v = y[None]
    v.mul_(5)
    (y + v.sum()).backward()
    assert x.grad.item() == 10.0 and repr(v) == "tensor([10.], grad_fn=<AsStridedBackward0>)"


# ------------------------------------------------------------------ found by the extended fuzzer
BACKWARD_TWICE = (
    "RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
    "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you "
    "need to access saved tensors after calling backward.")


def test_copy_slices_lets_go_of_its_node_after_backward_as_pytorchs_does():
    x0 = torch.ones(3, 2, requires_grad=True)
    x1 = x0 + 0
    x1[None] = torch.tensor(1.0, requires_grad=True)   # fill_ saves nothing, yet PyTorch refuses a second pass
    (x1 * 2).sum().backward()
    assert typed_message(lambda: x1.sigmoid().sum().backward()) == BACKWARD_TWICE
    y = x0 * 1
    y[0] = 5.0
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    assert x0.grad.tolist() == [[0.0, 0.0], [2.0, 2.0], [2.0, 2.0]]   # PyTorch 2.13


def test_a_view_made_and_changed_in_no_grad_prints_an_invalid_grad_fn():
    a = torch.ones(1, requires_grad=True).clone()
    with torch.no_grad():
        v = a[:]
        v.mul_(2)
    assert repr(v) == str(v) == f"{v}" == "tensor([2.], grad_fn=<Invalid>)"   # PyTorch 2.13 (minigrad raised)
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode"):
        v * 2
    b = torch.ones(1, requires_grad=True).clone()
    with torch.no_grad():
        w = b[:]
    b.mul_(2)
    assert repr(w) == "tensor([2.], grad_fn=<Invalid>)"


DETACHED_IN_PLACE = ("RuntimeError: Trying to use a saved tensor that has been detached in-place, i.e. with "
                     ".detach_().This is not supported, please use out-of-place `.detach()` instead")


def test_detach_in_place_of_a_saved_tensor_is_caught_at_backward():
    x = torch.ones(2, requires_grad=True)
    y = x * 1
    w = y * y   # saves y
    y.detach_()
    assert typed_message(lambda: w.sum().backward()) == DETACHED_IN_PLACE
    y = x.exp()   # saves its result
    z = y.sin()
    y.detach_()
    assert typed_message(lambda: z.sum().backward()) == DETACHED_IN_PLACE


def test_a_leaf_detached_in_place_gets_no_gradient():
    x = torch.ones(2, requires_grad=True)
    w = x * x
    x.detach_()
    w.sum().backward()
    assert x.grad is None   # PyTorch 2.13


@pytest.mark.parametrize("make, name", [(lambda x: x.min(), "Min1"), (lambda x: x.sqrt(), "Sqrt"),
                                        (lambda x: x.max(0)[0], "Max")])
def test_the_modified_by_an_inplace_operation_message_names_the_op_as_pytorch(make, name):
    """PyTorch 2.13 drops "Backward" and only a final 0: MinBackward1 is "Min1", SqrtBackward0 "Sqrt"."""
    x = torch.rand(2, 3, requires_grad=True) if name == "Max" else torch.rand(3, requires_grad=True)
    y = make(x)
    z = y * y if name == "Max" else y
    with torch.no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match=rf"which is output 0 of {name}, is at version 1;"):
        z.sum().backward()


def test_a_saved_output_detached_in_place_is_still_usable():
    x = torch.ones(2, requires_grad=True)
    y = x.exp()    # ExpBackward0 saves its result y
    z = y * 1
    y.detach_()
    z.sum().backward()
    assert x.grad.tolist() == pytest.approx([2.7182817] * 2)   # PyTorch 2.13: no error for a saved output


def test_detach_in_place_is_reported_before_an_in_place_change():
    x = torch.ones(2, requires_grad=True)
    y = x * 1
    w = y * y
    with torch.no_grad():
        y.add_(1)
    y.detach_()
    assert typed_message(lambda: w.sum().backward()) == DETACHED_IN_PLACE   # PyTorch 2.13
