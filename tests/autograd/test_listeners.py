"""minigrad.autograd.listeners: what each event reports, when, and that listening changes nothing."""
from __future__ import annotations

import sys

import pytest

import minigrad as torch
from minigrad.autograd import function, listeners, node_info
from minigrad.autograd.graph import RemovableHandle
from minigrad.autograd.engine import _discover


class Scale(torch.autograd.Function):
    """A custom Function whose forward runs a builtin (nested applies) and takes a keyword argument."""

    @staticmethod
    def forward(ctx, x, factor=2.0):
        ctx.factor = factor
        return x * factor

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.factor, None


class Reentrant(torch.autograd.Function):
    """Its backward runs a backward pass of its own: the gradient of (x * x).sum(), 2x, times grad."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 1

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        with torch.enable_grad():
            inner = x.detach().requires_grad_()
            (inner * inner).sum().backward()
        return grad * inner.grad


def names(events):
    return [event[0] for event in events]


# ---------------------------------------------------------------------------- nodes
def test_node_events_follow_the_engine_with_the_gradients_each_node_received_and_sent():
    x = torch.tensor([1., 2.], requires_grad=True)
    w = torch.tensor([3., 4.], requires_grad=True)
    loss = (x * w).sum()
    events = []
    with listeners.on_node(lambda node, outs, ins: events.append((node.name(), node, outs, ins))):
        loss.backward()
    assert names(events) == ["SumBackward0", "MulBackward0", "torch::autograd::AccumulateGrad",
                             "torch::autograd::AccumulateGrad"]
    _, node, outs, ins = events[1]
    assert node is loss.grad_fn.next_functions[0][0]
    assert [g.tolist() for g in outs] == [[1., 1.]] and [g.tolist() for g in ins] == [[3., 4.], [1., 2.]]
    leaves = [event[1].variable for event in events[2:]]
    assert leaves == [x, w] or leaves == [w, x]
    assert all(event[3] == () for event in events[2:])   # a leaf sends nothing on
    assert x.grad.tolist() == [3., 4.] and w.grad.tolist() == [1., 2.]


def test_node_events_report_none_along_an_edge_that_needs_no_gradient():
    x = torch.tensor([1., 2.], requires_grad=True)
    c = torch.tensor([5., 6.])
    events = []
    with listeners.on_node(lambda node, outs, ins: events.append((node.name(), ins))):
        (x * c).sum().backward()
    grads = dict(events)["MulBackward0"]
    assert grads[0].tolist() == [5., 6.] and grads[1] is None


def test_autograd_grad_reports_only_the_nodes_that_run():
    x = torch.tensor([1., 2.], requires_grad=True)
    w = torch.tensor([3., 4.], requires_grad=True)
    y = (x * 2).sum() + (w * 3).sum()
    events = []
    with listeners.on_node(lambda node, outs, ins: events.append(node.name())):
        grad, = torch.autograd.grad(y, x)
    assert grad.tolist() == [2., 2.]
    # w's branch leads to no input, and autograd.grad reads x's gradient without running its AccumulateGrad
    assert events == ["AddBackward0", "SumBackward0", "MulBackward0"]


def test_node_events_see_the_gradients_after_the_hooks_changed_them():
    x = torch.tensor([1., 2.], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g * 10)
    seen = {}
    with listeners.on_node(lambda node, outs, ins: seen.setdefault(node.name(), (outs, ins))):
        y.sum().backward()
    outs, ins = seen["MulBackward0"]
    assert outs[0].tolist() == [10., 10.] and ins[0].tolist() == [20., 20.]
    assert seen["torch::autograd::AccumulateGrad"][0][0].tolist() == [20., 20.]


# ---------------------------------------------------------------------------- Functions applied
def test_apply_events_bracket_forward_with_arguments_by_position_and_ctx_as_the_node():
    x = torch.tensor([1., 2.], requires_grad=True)
    events = []
    start = listeners.on_apply_start(lambda function, args: events.append(("start", function, args)))
    end = listeners.on_apply_end(lambda function, ctx, args, outputs: events.append(("end", function, args, ctx,
                                                                                    outputs)))
    with start, end:
        y = Scale.apply(x, factor=3.0)
    assert [(e[0], e[1].__name__) for e in events] == [("start", "Scale"), ("start", "Mul"), ("end", "Mul"),
                                                       ("end", "Scale")]
    assert events[0][2] == (x, 3.0) and events[0][2] is events[-1][2]   # the same tuple, keyword placed
    _, _, _, ctx, outputs = events[-1]
    assert outputs is y and ctx is y.grad_fn and ctx.factor == 3.0
    assert events[2][3].needs_input_grad == (False, False)   # forward's own operation: nothing recorded


def test_apply_end_under_no_grad_gives_a_ctx_that_is_no_node():
    x = torch.tensor([1., 2.], requires_grad=True)
    seen = []
    with torch.no_grad(), listeners.on_apply_end(lambda f, ctx, args, out: seen.append((ctx, out))):
        y = Scale.apply(x)
    ctx, out = seen[-1]
    assert out is y and y.grad_fn is None and ctx.needs_input_grad == (True,)


@pytest.mark.parametrize("register", ["start", "end"])
def test_builtin_operations_under_no_grad_are_heard_by_either_listener_alone(register):
    """Under no_grad a builtin takes apply's shortcut (ctx and forward only) only when nobody listens: a
    listener of either event alone still hears it (the exercises' work counters listen to the end)."""
    heard = []
    listen = (listeners.on_apply_start(lambda f, args: heard.append(f.__name__)) if register == "start" else
              listeners.on_apply_end(lambda f, ctx, args, out: heard.append(f.__name__)))
    with torch.no_grad(), listen:
        torch.ones(2) * 3
    assert heard == ["Mul"]


def test_apply_end_is_not_told_of_a_forward_that_raised():
    class Fails(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            raise ValueError("no")

        @staticmethod
        def backward(ctx, grad):
            return grad

    started, ended = [], []
    with listeners.on_apply_start(lambda f, args: started.append(f)), \
            listeners.on_apply_end(lambda f, ctx, args, out: ended.append(f)):
        with pytest.raises(ValueError):
            Fails.apply(torch.ones(1))
    assert started == [Fails] and ended == []


# ---------------------------------------------------------------------------- backward passes
def test_backward_events_describe_each_pass():
    x = torch.tensor([1., 2.], requires_grad=True)
    seen = []
    with listeners.on_backward_start(lambda task: seen.append(
            ("start", task.retain_graph, task.create_graph, task.inputs, task.accumulate))), \
            listeners.on_backward_end(lambda task, error: seen.append(("end", error))):
        (x * 2).sum().backward(retain_graph=True)
        torch.autograd.grad((x * 3).sum(), x, create_graph=True)
        (x * 4).sum().backward(inputs=[x])
    assert seen[0] == ("start", True, False, None, False) and seen[1] == ("end", None)
    assert seen[2][:3] == ("start", True, True) and seen[2][3] == (x,) and seen[2][4] is False
    assert seen[4][3] == (x,) and seen[4][4] is True


def test_backward_end_hears_of_a_failed_pass_before_the_caller_and_grad_is_untouched():
    x = torch.tensor([1., 2.], requires_grad=True)
    y = (x * 2).sum()
    y.backward(retain_graph=False)
    grad_before = x.grad.tolist()
    order = []
    with listeners.on_backward_end(lambda task, error: order.append(type(error).__name__)):
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            try:
                y.backward()
            finally:
                order.append("caller")
    assert order == ["RuntimeError", "caller"] and x.grad.tolist() == grad_before


def test_a_backward_inside_a_backward_is_a_pass_of_its_own():
    x = torch.tensor([1., 2.], requires_grad=True)
    events = []
    with listeners.on_backward_start(lambda task: events.append("start")), \
            listeners.on_backward_end(lambda task, error: events.append("end")), \
            listeners.on_node(lambda node, outs, ins: events.append(node.name())):
        Reentrant.apply(x).sum().backward()
    assert events[:3] == ["start", "SumBackward0", "start"]
    assert events[-3:] == ["ReentrantBackward", "torch::autograd::AccumulateGrad", "end"]
    assert events.count("start") == events.count("end") == 2 and x.grad.tolist() == [2., 4.]


def test_trace_backward_records_its_own_pass_only():
    from minigrad.viz import trace_backward

    x = torch.ones(2, requires_grad=True)
    trace = trace_backward(Reentrant.apply(x).sum(), names={"x": x})
    assert [step.name for step in trace.steps] == ["SumBackward0", "ReentrantBackward", "AccumulateGrad"]
    assert x.grad.tolist() == [2., 2.]


# ---------------------------------------------------------------------------- handles
def test_handles_remove_their_own_registration_and_work_as_context_managers():
    x = torch.ones(2, requires_grad=True)
    calls = []

    def listener(node, outs, ins):
        calls.append(node.name())

    first, second = listeners.on_node(listener), listeners.on_node(listener)
    (x * 2).sum().backward()
    assert len(calls) == 6   # two registrations of one function: each is called
    first.remove()
    first.remove()   # a second remove does nothing
    calls.clear()
    (x * 2).sum().backward()
    assert len(calls) == 3
    with second:
        pass
    calls.clear()
    (x * 2).sum().backward()
    assert calls == []


@pytest.mark.parametrize("register", ["start", "end"])
def test_removing_the_last_apply_listener_gives_builtins_their_shortcut_back(register):
    """Both kinds of apply listener are also kept in one dict, which apply's no-grad shortcut tests:
    while one is registered a builtin under no_grad goes through the whole of apply, and once it is
    removed the shortcut is taken again."""
    def connects() -> int:   # how often the whole of apply ran (its _connect_to_inputs) for one builtin
        calls = []

        def profile(frame, event, arg):
            if event == "call" and frame.f_code is function._connect_to_inputs.__code__:
                calls.append(frame)

        sys.setprofile(profile)
        try:
            with torch.no_grad():
                torch.ones(2) * 3
        finally:
            sys.setprofile(None)
        return len(calls)

    assert connects() == 0
    handle = (listeners.on_apply_start(lambda f, args: None) if register == "start" else
              listeners.on_apply_end(lambda f, ctx, args, out: None))
    assert connects() == 1
    handle.remove()
    assert connects() == 0


def test_a_handle_with_an_extra_dict_is_entered_in_and_removed_from_both():
    hooks, extra = {}, {}
    handle = RemovableHandle(hooks, print, extra_dict=extra)
    assert list(hooks.values()) == [print] and list(extra.values()) == [print]
    handle.remove()
    assert hooks == {} and extra == {}


def test_a_listener_removed_during_an_event_still_hears_that_event():
    x = torch.ones(2, requires_grad=True)
    heard = []
    handles = []

    def remove_the_other(node, outs, ins):
        heard.append("first")
        handles[1].remove()

    handles.append(listeners.on_node(remove_the_other))
    handles.append(listeners.on_node(lambda node, outs, ins: heard.append("second")))
    try:
        (x * 2).sum().backward()
    finally:
        handles[0].remove()
    assert heard[:2] == ["first", "second"] and heard[2:] == ["first", "first"]


def test_tensor_hook_handles_are_context_managers_too():
    x = torch.ones(2, requires_grad=True)
    with x.register_hook(lambda g: g * 5):
        (x * 1).sum().backward()
    (x * 1).sum().backward()
    assert x.grad.tolist() == [6., 6.]


def test_with_no_listener_no_listener_code_runs():
    x = torch.ones(2, requires_grad=True)
    ran = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename == listeners.__file__:
            ran.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        Scale.apply(x * 2).sum().backward()
    finally:
        sys.setprofile(None)
    assert ran == []


# ---------------------------------------------------------------------------- graph walks
def test_the_graph_walks_are_marked():
    walks = listeners.graph_walks()
    assert node_info.reachable_nodes.__code__ in walks and _discover.__code__ in walks
    assert all(callable(function) for function in walks.values())
