"""Function and ctx behave as in PyTorch (pytorch-semantics.md sections 1, 2 and 4).

ctx *is* the backward node: ``Function.apply`` makes a fresh instance of the generated
``<Name>Backward`` class on every call, and that same object becomes the output's ``grad_fn``.
Every expectation below was observed with PyTorch 2.13; these tests do not import torch.
"""
from __future__ import annotations

import re
import warnings

import pytest

import minigrad as torch
from minigrad.autograd import Function
from minigrad.autograd.function import FunctionCtx, once_differentiable
from helpers import AddOneInPlace, Double, ReturnsItsInput, TwoOutputs, message

# Where the generated node classes live: torch.autograd.function in PyTorch, and by design
# minigrad.autograd.function here (printed in reprs such as <...MulConstantBackward object at 0x...>).
NODE_MODULE = f"{torch.__name__}.autograd.function"


class MulConstant(Function):
    """The combined style: forward(ctx, ...) stores what backward needs."""

    seen: list = []

    @staticmethod
    def forward(ctx, tensor, constant):
        MulConstant.seen.append(ctx)
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


class MulConstantSeparate(Function):
    """The separate style: forward(...) computes, setup_context(ctx, inputs, output) stores."""

    calls: list = []

    @staticmethod
    def forward(tensor, constant=2):
        return tensor * constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        MulConstantSeparate.calls.append((ctx, inputs, output, ctx.needs_input_grad))
        _, constant = inputs
        ctx.constant = constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


@pytest.fixture(autouse=True)
def forget_seen_contexts():
    MulConstant.seen.clear()
    MulConstantSeparate.calls.clear()


# --------------------------------------------------------------------------- ctx is the node
def test_ctx_is_the_output_grad_fn_and_an_instance_of_the_generated_class():
    x = torch.ones(3, requires_grad=True)
    y = MulConstant.apply(x, 10)
    ctx, = MulConstant.seen
    assert ctx is y.grad_fn
    assert type(ctx).__name__ == "MulConstantBackward"
    assert type(ctx) is MulConstant._backward_cls
    assert ctx.name() == "MulConstantBackward"
    assert isinstance(ctx, FunctionCtx)
    assert re.fullmatch(rf"<{NODE_MODULE}\.MulConstantBackward object at 0x[0-9a-f]+>", repr(ctx))


def test_attributes_set_in_forward_are_readable_on_the_node_and_survive_backward():
    x = torch.ones(3, requires_grad=True)
    y = MulConstant.apply(x, 10)
    assert y.grad_fn.constant == 10
    y.sum().backward()
    assert y.grad_fn.constant == 10
    assert x.grad.tolist() == [10.0, 10.0, 10.0]


def test_a_fresh_ctx_on_every_call_even_when_nothing_requires_grad():
    x = torch.ones(2, requires_grad=True)
    MulConstant.apply(x, 2)
    MulConstant.apply(x, 3)
    MulConstant.apply(torch.ones(2), 4)           # no input requires grad
    with torch.no_grad():
        MulConstant.apply(x, 5)                   # grad mode off
    first, second, third, fourth = MulConstant.seen
    assert len({id(c) for c in MulConstant.seen}) == 4
    assert all(type(c) is type(first) for c in (second, third, fourth))
    assert (first.constant, second.constant, third.constant, fourth.constant) == (2, 3, 4, 5)


def test_without_a_recorded_graph_the_output_has_no_grad_fn_and_backward_never_runs():
    y = MulConstant.apply(torch.ones(2), 10)
    assert y.grad_fn is None and not y.requires_grad
    with torch.no_grad():
        z = MulConstant.apply(torch.ones(2, requires_grad=True), 10)
    assert z.grad_fn is None and not z.requires_grad


def test_the_node_class_is_generated_once_per_function():
    x = torch.ones(1, requires_grad=True)
    assert type(MulConstant.apply(x, 1).grad_fn) is type(MulConstant.apply(x, 2).grad_fn)
    assert type(MulConstantSeparate.apply(x).grad_fn).__name__ == "MulConstantSeparateBackward"


def test_dir_of_a_ctx_shows_the_node_and_ctx_members():
    x = torch.ones(3, requires_grad=True)
    members = set(dir(MulConstant.apply(x, 10).grad_fn))
    assert {"apply", "dirty_tensors", "non_differentiable", "to_save", "_forward_cls", "materialize_grads",
            "needs_input_grad", "next_functions", "saved_tensors", "saved_variables", "metadata", "name",
            "register_hook", "register_prehook", "save_for_backward", "mark_dirty", "mark_non_differentiable",
            "set_materialize_grads", "constant"} <= members


def test_a_bare_function_ctx_has_only_the_save_mark_and_set_methods():
    public = {name for name in dir(FunctionCtx()) if not name.startswith("_")}
    assert {"save_for_backward", "mark_dirty", "mark_non_differentiable", "set_materialize_grads"} <= public
    assert all(name.split("_")[0] in ("save", "mark", "set") for name in public)


# --------------------------------------------------------------------------- the graph (section 4)
def test_graph_of_mul_constant_followed_by_a_builtin_mul():
    x = torch.ones(3, requires_grad=True)
    y = MulConstant.apply(x, 10)
    z = y * 3
    assert type(z.grad_fn).__name__ == "MulBackward0"
    assert z.grad_fn.next_functions == ((y.grad_fn, 0), (None, 0))
    assert len(y.grad_fn.next_functions) == 1        # the constant 10 has no entry
    acc, input_nr = y.grad_fn.next_functions[0]
    assert input_nr == 0
    assert type(acc).__name__ == "AccumulateGrad"
    assert acc.name() == "torch::autograd::AccumulateGrad"
    assert acc.variable is x
    assert acc.next_functions == ()


def test_next_functions_one_entry_per_tensor_argument_none_for_tensors_without_grad():
    class Three(Function):
        @staticmethod
        def forward(ctx, a, number, b, c):
            return a * b * c * number

        @staticmethod
        def backward(ctx, grad):
            return grad, None, grad, grad

    a = torch.ones(2, requires_grad=True)
    b = torch.ones(2)
    c = a * 2
    y = Three.apply(a, 5, b, c)
    acc = y.grad_fn.next_functions[0][0]
    assert y.grad_fn.next_functions == ((acc, 0), (None, 0), (c.grad_fn, 0))
    assert acc.variable is a
    assert y.grad_fn.needs_input_grad == (True, False, False, True)


def test_the_same_leaf_gives_the_same_accumulate_grad_node():
    x = torch.ones(2, requires_grad=True)
    y = x * x
    (first, _), (second, _) = y.grad_fn.next_functions
    assert first is second and first.variable is x


def test_next_functions_are_filled_inside_forward_when_recording_and_empty_otherwise():
    seen = []

    class Look(Function):
        @staticmethod
        def forward(ctx, t):
            seen.append(ctx.next_functions)
            return t * 1

        @staticmethod
        def backward(ctx, grad):
            return grad

    x = torch.ones(2, requires_grad=True)
    Look.apply(x)
    Look.apply(torch.ones(2))
    with torch.no_grad():
        Look.apply(x)
    recorded, no_input_requires_grad, grad_mode_off = seen
    assert len(recorded) == 1 and recorded[0][0].variable is x
    assert no_input_requires_grad == () and grad_mode_off == ()


def test_output_number_of_each_output_in_next_functions():
    x = torch.ones(2, requires_grad=True)
    a, b = TwoOutputs.apply(x)
    assert a.grad_fn is b.grad_fn
    assert (b + a).grad_fn.next_functions == ((b.grad_fn, 1), (a.grad_fn, 0))
    (a + b).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]


# --------------------------------------------------------------------------- needs_input_grad
def test_needs_input_grad_in_forward_setup_context_and_backward():
    seen = {}

    class Record(Function):
        @staticmethod
        def forward(a, b, n):
            return a * b * n

        @staticmethod
        def setup_context(ctx, inputs, output):
            seen["setup_context"] = ctx.needs_input_grad

        @staticmethod
        def backward(ctx, grad):
            seen["backward"] = ctx.needs_input_grad
            return grad, None, None

    class RecordCombined(Function):
        @staticmethod
        def forward(ctx, a, b, n):
            seen["forward"] = ctx.needs_input_grad
            return a * b * n

        @staticmethod
        def backward(ctx, grad):
            return grad, None, None

    a, b = torch.ones(2, requires_grad=True), torch.ones(2)
    Record.apply(a, b, 3).sum().backward()
    RecordCombined.apply(a, b, 3)
    assert seen == {"setup_context": (True, False, False), "backward": (True, False, False),
                    "forward": (True, False, False)}


def test_tensors_inside_lists_are_not_traversed():
    seen = []

    class TakesAList(Function):
        @staticmethod
        def forward(ctx, tensors, t):
            seen.append(ctx.needs_input_grad)
            return t * 2

        @staticmethod
        def backward(ctx, grad):
            return None, grad * 2

    out = TakesAList.apply([torch.ones(2, requires_grad=True)], torch.ones(2))
    assert seen == [(False, False)]
    assert not out.requires_grad


# --------------------------------------------------------------------------- the two styles
def test_setup_context_style_binds_keywords_and_applies_defaults():
    x = torch.ones(2, requires_grad=True)
    MulConstantSeparate.apply(x)
    MulConstantSeparate.apply(x, constant=5)
    y = MulConstantSeparate.apply(x, 7)
    (ctx1, inputs1, out1, nig1), (_, inputs2, _, nig2), (ctx3, inputs3, out3, _) = MulConstantSeparate.calls
    assert inputs1[0] is x and inputs1[1:] == (2,)
    assert inputs2[0] is x and inputs2[1:] == (5,)
    assert inputs3[0] is x and inputs3[1:] == (7,)
    assert nig1 == nig2 == (True, False)
    assert ctx3 is y.grad_fn
    assert out3.tolist() == [7.0, 7.0]
    y.sum().backward()
    assert x.grad.tolist() == [7.0, 7.0]


def test_combined_style_accepts_keyword_arguments_too():
    class Scale(Function):
        @staticmethod
        def forward(ctx, t, c=2):
            ctx.c = c
            return t * c

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.c, None

    x = torch.ones(2, requires_grad=True)
    assert Scale.apply(x).tolist() == [2.0, 2.0]
    y = Scale.apply(x, c=5)
    assert y.tolist() == [5.0, 5.0] and y.grad_fn.c == 5


def test_forward_runs_with_grad_mode_off_and_backward_with_grad_mode_equal_to_create_graph():
    modes = []

    class Watch(Function):
        @staticmethod
        def forward(ctx, t):
            modes.append(("forward", torch.is_grad_enabled()))
            return t * 2

        @staticmethod
        def backward(ctx, grad):
            modes.append(("backward", torch.is_grad_enabled()))
            return grad * 2

    x = torch.ones(2, requires_grad=True)
    Watch.apply(x).sum().backward()
    torch.autograd.grad(Watch.apply(x).sum(), x, create_graph=True)
    assert modes == [("forward", False), ("backward", False), ("forward", False), ("backward", True)]
    assert torch.is_grad_enabled()


def test_missing_staticmethod_still_works_through_apply():
    class NoDecorators(Function):
        def forward(ctx, t):
            return t * 2

        def backward(ctx, grad):
            return grad * 2

    x = torch.ones(2, requires_grad=True)
    NoDecorators.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


# --------------------------------------------------------------------------- outputs
def test_outputs_single_tuple_and_non_tensor():
    class Mixed(Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2, 5, "label"

        @staticmethod
        def backward(ctx, grad, grad_five, grad_label):
            assert grad_five is None and grad_label is None
            return grad * 2

    x = torch.ones(2, requires_grad=True)
    out = Mixed.apply(x)
    assert type(out) is tuple and out[1:] == (5, "label")
    assert type(out[0].grad_fn).__name__ == "MixedBackward"
    out[0].sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    assert isinstance(MulConstant.apply(x, 1), type(x))   # a single tensor comes back bare


def test_an_input_returned_unchanged_comes_back_as_a_new_object():
    x = torch.ones(2, requires_grad=True)
    y = ReturnsItsInput.apply(x)
    assert y is not x
    assert type(y.grad_fn).__name__ == "ReturnsItsInputBackward"
    assert y._base is x
    with torch.no_grad():
        y.add_(1)       # same memory, same version counter
    assert x.tolist() == [2.0, 2.0] and x._version == y._version == 1


# --------------------------------------------------------------------------- saved tensors
class SaveInputAndOutput(Function):
    @staticmethod
    def forward(ctx, t):
        result = t.exp()
        ctx.save_for_backward(t, result)
        ctx.forward_view = ctx.saved_tensors     # nothing is saved yet inside forward
        ctx.result_object = result
        return result

    @staticmethod
    def backward(ctx, grad):
        t, result = ctx.saved_tensors
        return grad * result


def test_saved_inputs_come_back_as_the_same_object_and_outputs_with_this_node_as_grad_fn():
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    y = SaveInputAndOutput.apply(x)
    ctx = y.grad_fn
    assert ctx.forward_view == ()
    saved_input, saved_output = ctx.saved_tensors
    assert saved_input is x
    assert saved_output is not y and saved_output is not ctx.result_object
    assert saved_output.grad_fn is ctx
    assert saved_output.tolist() == y.tolist()
    second_read = ctx.saved_tensors[1]
    assert second_read is not saved_output and second_read.grad_fn is ctx
    y.sum().backward()
    assert x.grad.tolist() == y.tolist()


def test_a_second_save_for_backward_replaces_the_first():
    class SaveTwice(Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a)
            ctx.save_for_backward(b)
            return a * b

        @staticmethod
        def backward(ctx, grad):
            return grad, grad

    a, b = torch.ones(2, requires_grad=True), torch.ones(2)
    y = SaveTwice.apply(a, b)
    saved = y.grad_fn.saved_tensors
    assert len(saved) == 1 and saved[0] is b


def test_save_for_backward_accepts_none():
    class SaveNone(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(None, a)
            return a * 2

        @staticmethod
        def backward(ctx, grad):
            nothing, a = ctx.saved_tensors
            assert nothing is None
            return grad * 2

    x = torch.ones(2, requires_grad=True)
    y = SaveNone.apply(x)
    assert y.grad_fn.saved_tensors[0] is None and y.grad_fn.saved_tensors[1] is x
    y.sum().backward()


def test_saved_variables_is_deprecated_but_works():
    x = torch.ones(2, requires_grad=True)
    y = SaveInputAndOutput.apply(x)
    with pytest.warns(DeprecationWarning, match=r"^'saved_variables' is deprecated; use 'saved_tensors'$"):
        saved = y.grad_fn.saved_variables
    assert saved[0] is x


def test_builtin_nodes_expose_what_they_saved():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    by_number = (x * 3).grad_fn
    assert by_number._saved_other.tolist() == 3 and by_number._saved_self is None
    w = torch.tensor([4.0, 5.0])
    by_tensor = (x * w).grad_fn
    assert by_tensor._saved_other is w and by_tensor._saved_self is None
    both = (x * x).grad_fn
    assert both._saved_self is x and both._saved_other is x
    e = x.exp()
    result = e.grad_fn._saved_result
    assert result is not e and result.grad_fn is e.grad_fn and result.tolist() == e.tolist()


def test_a_function_that_saved_nothing_can_be_backpropagated_twice():
    x = torch.ones(2, requires_grad=True)
    out = Double.apply(x).sum()
    out.backward()
    out.backward()
    assert x.grad.tolist() == [4.0, 4.0]


def test_a_function_that_saved_tensors_cannot_be_backpropagated_twice():
    x = torch.ones(2, requires_grad=True)
    out = SaveInputAndOutput.apply(x).sum()
    out.backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        out.backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        out.grad_fn.next_functions[0][0].saved_tensors


def test_retain_graph_keeps_saved_tensors_for_a_second_backward():
    x = torch.ones(2, requires_grad=True)
    out = SaveInputAndOutput.apply(x).sum()
    out.backward(retain_graph=True)
    node = out.grad_fn.next_functions[0][0]
    assert node.saved_tensors[0] is x
    out.backward()
    assert x.grad.tolist() == (2 * torch.ones(2).exp()).tolist()


# --------------------------------------------------------------------------- mark_non_differentiable
class SortWithIndices(Function):
    """The 'Extending PyTorch' sort example: indices are an output without a gradient."""

    received: list = []

    @staticmethod
    def forward(ctx, t, materialize=True):
        ctx.set_materialize_grads(materialize)
        values, indices = t.sort()
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        SortWithIndices.received.append(grad_indices)
        indices, = ctx.saved_tensors
        grad_input = torch.zeros_like(grad_values)
        grad_input.index_add_(0, indices, grad_values)
        return grad_input, None


def test_mark_non_differentiable_outputs_have_no_grad_fn_and_backward_still_gets_zeros():
    SortWithIndices.received.clear()
    x = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
    values, indices = SortWithIndices.apply(x)
    assert values.grad_fn is not None and values.requires_grad
    assert indices.grad_fn is None and not indices.requires_grad
    assert indices.tolist() == [1, 2, 0]
    (values * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
    assert x.grad.tolist() == [100.0, 1.0, 10.0]
    zeros, = SortWithIndices.received
    assert zeros.tolist() == [0, 0, 0] and zeros.dtype is torch.int64


def test_with_materialize_grads_off_backward_gets_none_for_the_non_differentiable_output():
    SortWithIndices.received.clear()
    x = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
    values, _ = SortWithIndices.apply(x, False)
    values.sum().backward()
    assert SortWithIndices.received == [None]


def test_set_materialize_grads_for_an_unused_output():
    received = []

    class Two(Function):
        @staticmethod
        def forward(ctx, t, materialize):
            ctx.set_materialize_grads(materialize)
            return t * 2, t * 3

        @staticmethod
        def backward(ctx, g1, g2):
            received.append(g2)
            return g1 * 2 + (0 if g2 is None else g2 * 3), None

    x = torch.ones(2, requires_grad=True)
    Two.apply(x, True)[0].sum().backward()
    Two.apply(x, False)[0].sum().backward()
    materialized, not_materialized = received
    assert materialized.tolist() == [0.0, 0.0] and not_materialized is None
    assert x.grad.tolist() == [4.0, 4.0]


def test_materialize_grads_off_with_mul_constant_from_the_docs():
    class MulConstantLazy(Function):
        @staticmethod
        def forward(ctx, tensor, constant):
            ctx.set_materialize_grads(False)
            ctx.constant = constant
            return tensor * constant

        @staticmethod
        def backward(ctx, grad_output):
            if grad_output is None:
                return None, None
            return grad_output * ctx.constant, None

    x = torch.ones(3, requires_grad=True)
    MulConstantLazy.apply(x, 4).sum().backward()
    assert x.grad.tolist() == [4.0, 4.0, 4.0]


# --------------------------------------------------------------------------- mark_dirty
def test_mark_dirty_returns_the_same_object_with_this_node_as_grad_fn():
    x = torch.ones(2, requires_grad=True)
    y = x * 1
    assert y._version == 0
    out = AddOneInPlace.apply(y)
    assert out is y
    assert type(y.grad_fn).__name__ == "AddOneInPlaceBackward"
    assert y._version == 2   # one for add_ inside forward, one for mark_dirty (as PyTorch counts)
    assert y.grad_fn.next_functions[0][0].name() == "MulBackward0"
    (y * y).sum().backward()
    assert x.grad.tolist() == [4.0, 4.0]


def test_mark_dirty_without_a_graph_still_bumps_the_version():
    t = torch.ones(2)
    out = AddOneInPlace.apply(t)
    assert out is t and t.grad_fn is None and t._version == 2
    assert t.tolist() == [2.0, 2.0]


# --------------------------------------------------------------------------- metadata, name, hooks
def test_metadata_is_a_plain_dict_kept_on_the_node():
    x = torch.ones(2, requires_grad=True)
    y = MulConstant.apply(x, 2)
    assert y.grad_fn.metadata == {}
    y.grad_fn.metadata["note"] = "kept"
    assert y.grad_fn.metadata == {"note": "kept"}
    assert (x * 2).grad_fn.metadata == {}


def test_node_names():
    x = torch.ones(2, requires_grad=True)
    assert MulConstant.apply(x, 2).grad_fn.name() == "MulConstantBackward"
    assert (x * 2).grad_fn.name() == "MulBackward0"
    assert (x * 2).grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"


def test_node_hooks_run_around_the_backward_and_can_replace_gradients():
    calls = []

    def prehook(grad_outputs):
        calls.append(("pre", [g.tolist() for g in grad_outputs]))
        return (grad_outputs[0] + 1,)

    def posthook(grad_inputs, grad_outputs):
        calls.append(("post", [None if g is None else g.tolist() for g in grad_inputs],
                      [g.tolist() for g in grad_outputs]))
        return (grad_inputs[0] * 10,) + tuple(grad_inputs[1:])

    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.grad_fn.register_prehook(prehook)
    handle = y.grad_fn.register_hook(posthook)
    y.sum().backward()
    assert calls == [("pre", [[1.0, 1.0]]), ("post", [[4.0, 4.0], None], [[2.0, 2.0]])]
    assert x.grad.tolist() == [40.0, 40.0]
    handle.remove()
    x.grad = None
    calls.clear()
    y2 = x * 2
    y2.grad_fn.register_hook(lambda gi, go: calls.append("kept"))
    y2.sum().backward()
    assert calls == ["kept"] and x.grad.tolist() == [2.0, 2.0]


def test_hooks_on_a_custom_node():
    seen = []
    x = torch.ones(2, requires_grad=True)
    y = MulConstant.apply(x, 3)
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(len(grad_inputs)))
    y.grad_fn.register_prehook(lambda grad_outputs: seen.append(grad_outputs[0].tolist()))
    y.sum().backward()
    assert seen == [[1.0, 1.0], 1]


# --------------------------------------------------------------------------- what backward may return
def test_extra_trailing_nones_are_trimmed():
    class Trailing(Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2, None, None

    x = torch.ones(2, requires_grad=True)
    Trailing.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_a_gradient_for_an_input_that_does_not_require_grad_is_dropped():
    class BothGrads(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, grad):
            return grad, grad

    a, b = torch.ones(2, requires_grad=True), torch.ones(2)
    BothGrads.apply(a, b).sum().backward()
    assert a.grad.tolist() == [1.0, 1.0] and b.grad is None


def test_a_gradient_of_another_dtype_is_cast():
    class Float32Grad(Function):
        @staticmethod
        def forward(ctx, t):
            return t * 1

        @staticmethod
        def backward(ctx, grad):
            return grad.to(torch.float32)

    x = torch.ones(2, dtype=torch.float64, requires_grad=True)
    Float32Grad.apply(x).sum().backward()
    assert x.grad.dtype is torch.float64


def test_a_broadcast_gradient_is_summed_down():
    class Broadcast(Function):
        @staticmethod
        def forward(ctx, t):
            return t * 1

        @staticmethod
        def backward(ctx, grad):
            return grad.expand(4, 2)

    x = torch.ones(2, requires_grad=True)
    Broadcast.apply(x).sum().backward()
    assert x.grad.tolist() == [4.0, 4.0]


# --------------------------------------------------------------------------- higher order
class MyCube(Function):
    """From 'Extending PyTorch': returns dx too, so that backward is itself differentiable."""

    @staticmethod
    def forward(x):
        result = x ** 3
        dx = 3 * x ** 2
        return result, dx

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        return grad_output * dx + grad_dx * 6 * x


def test_double_backward_through_a_custom_function():
    x = torch.tensor(2.0, requires_grad=True)
    result, _ = MyCube.apply(x)
    grad, = torch.autograd.grad(result, x, create_graph=True)
    assert grad.item() == 12.0 and grad.requires_grad
    grad_of_grad, = torch.autograd.grad(grad, x)
    assert grad_of_grad.item() == 12.0
    x64 = torch.tensor([0.5, -1.5], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: MyCube.apply(t)[0], (x64,))
    assert torch.autograd.gradgradcheck(lambda t: MyCube.apply(t)[0], (x64,))


def test_intermediates_stashed_on_ctx_give_a_silently_wrong_second_derivative():
    class CubeStash(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.dx = 3 * x ** 2      # a plain attribute: no graph links it to x
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.dx

    x = torch.tensor(2.0, requires_grad=True)
    grad, = torch.autograd.grad(CubeStash.apply(x), x, create_graph=True)
    assert grad.item() == 12.0
    assert not grad.requires_grad    # nothing to differentiate: the true answer 12 is lost


class SquareOnce(Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t ** 2

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        t, = ctx.saved_tensors
        assert not torch.is_grad_enabled()
        return 2 * t * grad


def test_once_differentiable_first_derivative_works_second_raises():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    grad, = torch.autograd.grad(SquareOnce.apply(x).sum(), x)
    assert grad.tolist() == [2.0, 4.0]
    grad, = torch.autograd.grad((SquareOnce.apply(x) * x).sum(), x, create_graph=True)
    assert grad.tolist() == [3.0, 12.0] and grad.requires_grad
    with pytest.raises(RuntimeError) as caught:
        grad.sum().backward()
    assert str(caught.value) == "trying to differentiate twice a function that was marked with @once_differentiable"
    assert x.grad is None


def test_once_differentiable_keeps_the_name_of_backward():
    assert SquareOnce.backward.__name__ == "backward"


def test_function_instances_warn_and_cannot_be_called():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        instance = MulConstant()
    assert caught[0].category is DeprecationWarning
    assert str(caught[0].message).startswith(
        f"{MulConstant} should not be instantiated. Methods on autograd functions are all static, so you should "
        "invoke them on the class itself.")
    with pytest.raises(RuntimeError, match=r"^Legacy autograd function with non-static forward method is deprecated\. "
                                           r"Please use new-style autograd function with static forward method\."):
        instance(torch.ones(1), 2)


class ReturnsItsInputAndMore(Function):
    @staticmethod
    def forward(ctx, x):
        return x, x * 2

    @staticmethod
    def backward(ctx, grad, _):
        return grad


@pytest.mark.parametrize("no_grad", [False, True], ids=["grad mode", "no_grad"])
@pytest.mark.parametrize("function", [ReturnsItsInput, ReturnsItsInputAndMore], ids=["one output", "two outputs"])
def test_an_input_that_needs_no_gradient_comes_back_as_a_view_that_refuses_a_recorded_in_place_change(
        function, no_grad):
    # PyTorch 2.13, in all four cases: a view of the input (made as if under no_grad), so that changing it
    # in place in a recorded operation raises, while an unrecorded in-place change goes through.
    x = torch.ones(2)
    with torch.set_grad_enabled(not no_grad):
        out = function.apply(x)
    y = out[0] if isinstance(out, tuple) else out
    assert y is not x and y._base is x and y._is_view() and not y.requires_grad
    y.add_(1)
    assert x.tolist() == [2.0, 2.0] and x._version == 1
    with pytest.raises(RuntimeError, match="^A view was created in no_grad mode and is being modified inplace "
                                           "with grad mode enabled"):
        y.mul_(torch.ones(2, requires_grad=True))


def test_an_input_that_requires_grad_comes_back_detached_under_no_grad():
    x = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        y = ReturnsItsInput.apply(x)
        first, _ = ReturnsItsInputAndMore.apply(x)
    for t in (y, first):
        assert t is not x and not t._is_view() and not t.requires_grad


# ------------------------------------------------------------------ custom Functions and views
NOT_AN_INPUT = ("ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have been mutated "
                "should be passed to ctx.mark_dirty().")


class DirtyIntermediateView(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        v = (x * 2)[:1]
        v.mul_(3)
        ctx.mark_dirty(v)
        return v

    @staticmethod
    def backward(ctx, grad):
        return grad


class DirtyFreshTensor(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x * 2
        ctx.mark_dirty(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        return grad


@pytest.mark.filterwarnings("ignore:ctx.mark_dirty")
def test_mark_dirty_on_a_view_of_an_intermediate_is_refused_as_not_an_input():
    x = torch.ones(2, requires_grad=True)
    assert message(lambda: DirtyIntermediateView.apply(x)) == "RuntimeError: " + NOT_AN_INPUT   # PyTorch 2.13
    assert DirtyIntermediateView.apply(torch.ones(2)).tolist() == [6.0]   # no graph recorded: allowed


def test_mark_dirty_on_a_non_input_warns_only_for_a_fresh_tensor_while_recording():
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError):
            DirtyIntermediateView.apply(torch.ones(2, requires_grad=True))
        DirtyIntermediateView.apply(torch.ones(2))
        DirtyFreshTensor.apply(torch.ones(2, requires_grad=True))
    assert [str(w.message) for w in caught] == [NOT_AN_INPUT]   # PyTorch 2.13: the fresh tensor's warning only


def test_inplace_function_is_a_function_with_an_inplace_flag():
    from minigrad.autograd.function import InplaceFunction

    class Double(InplaceFunction):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2
    x = torch.ones(2, requires_grad=True)
    Double.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    with pytest.warns(DeprecationWarning):   # instantiating any Function warns, as in PyTorch 2.13
        assert Double(inplace=True).inplace is True
