"""Checkers for ``04_where_ctx_comes_from.ipynb``.

>>> import minigrad as torch
>>> from minigrad.exercises import nb04 as check
>>> def my_apply(cls, *args):
...     ctx = cls._backward_cls()
...     ctx.needs_input_grad = tuple(isinstance(a, torch.Tensor) and a.requires_grad for a in args)
...     with torch.no_grad():
...         return cls.forward(ctx, *args), ctx
>>> result = check.your_turn_2(my_apply)
✓ Your turn 2: your own apply — correct.

A Function in the separate style with keyword arguments and defaults:

>>> class ScaleShift(torch.autograd.Function):
...     @staticmethod
...     def forward(tensor, scale=2.0, shift=0.0):
...         return tensor * scale + shift
...     @staticmethod
...     def setup_context(ctx, inputs, output):
...         tensor, scale, shift = inputs
...         ctx.scale = scale
...     @staticmethod
...     def backward(ctx, grad_output):
...         return grad_output * ctx.scale, None, None
>>> result = check.your_turn_3(ScaleShift)
✓ Your turn 3: keyword arguments and defaults — correct.
"""
from __future__ import annotations

import inspect
from typing import Callable

import numpy as np

import minigrad as torch
from minigrad.autograd import node_info
from minigrad.autograd.function import Function, FunctionCtx

from ._feedback import _, N_, exercise, expect
from ._observe import applying, tensors_kept_on


def _values(t) -> list:
    return np.asarray(t.detach()._data).tolist()


def _forward_parameters(cls) -> list[str]:
    return list(inspect.signature(cls.forward).parameters)


@exercise("Your turn 1: AddConstant in the separate style",
          deeper_hint=N_("forward(tensor, constant) computes; setup_context(ctx, inputs, output) unpacks inputs and "
                         "needs to keep no tensor; backward(ctx, grad_output) returns one value per argument of "
                         "forward, two in all."))
def your_turn_1(AddConstant) -> None:
    """``AddConstant.apply(tensor, constant)`` returns ``tensor + constant`` in the separate style
    (``forward(tensor, constant)`` + ``setup_context``); its node is ``AddConstantBackward``."""
    expect(isinstance(AddConstant, type) and issubclass(AddConstant, Function),
           _("{AddConstant!r} is not a class derived from torch.autograd.Function").format(AddConstant=AddConstant),
           _("class AddConstant(torch.autograd.Function): ..."))
    expect(AddConstant.__name__ == "AddConstant",
           _("the class is called {AddConstant_name}, so its node would be {AddConstant_name}Backward")
           .format(AddConstant_name=AddConstant.__name__),
           _("name the class AddConstant"))
    expect(AddConstant.forward is not Function.forward, _("AddConstant has no forward yet"),
           _("add a @staticmethod forward(tensor, constant)"))
    expect(AddConstant.setup_context is not Function.setup_context,
           _("AddConstant has no setup_context: that is the combined style"),
           _("the separate style splits the work: forward(tensor, constant) computes, setup_context(ctx, inputs, "
             "output) stores on ctx"))
    params = _forward_parameters(AddConstant)
    expect(not params or params[0] != "ctx",
           _("forward takes ({params}): in the separate style forward gets no ctx").format(params=', '.join(params)),
           _("write forward(tensor, constant); only setup_context and backward receive ctx"))
    expect(AddConstant.backward is not Function.backward, _("AddConstant has no backward yet"),
           _("add a @staticmethod backward(ctx, grad_output)"))

    x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
    y = AddConstant.apply(x, 2.5)
    expect(_values(x) == [1.0, -2.0, 0.5],
           _("AddConstant.apply(x, 2.5) changed the caller's x in place: x was [1.0, -2.0, 0.5] and is now "
             "{values_x}")
           .format(values_x=_values(x)), _("forward returns a new tensor and leaves its input as it was: no in-place method such "
                              "as add_"))
    expect(isinstance(y, torch.Tensor), _("apply returned {y_type}, not a tensor").format(y_type=type(y).__name__),
           _("forward should return tensor + constant"))
    expect(_values(y) == [3.5, 0.5, 3.0], _("AddConstant.apply([1, -2, 0.5], 2.5) gave {values_y}")
                                          .format(values_y=_values(y)),
           _("forward returns tensor + constant"))
    expect(y.grad_fn is not None, _("the output has no grad_fn, so no node was recorded"),
           _("return a new tensor computed from the input, e.g. tensor + constant"))
    expect(y.grad_fn.name() == "AddConstantBackward",
           _("the output's node is {y_grad_fn_name}, expected AddConstantBackward")
           .format(y_grad_fn_name=y.grad_fn.name()),
           _("call AddConstant.apply(...), and return the result of forward"))
    upstream = torch.tensor([1.0, 10.0, 100.0])
    try:
        y.backward(upstream)
    except RuntimeError as error:
        expect(False, _("backward failed: {error}").format(error=error),
               _("return one gradient per forward argument: grad_output for tensor, None for constant"))
    expect(x.grad is not None, _("backward left x.grad empty"), _("return the gradient for tensor first"))
    expect(_values(x.grad) == [1.0, 10.0, 100.0],
           _("with an incoming gradient [1, 10, 100], x.grad is {values_x_grad}").format(values_x_grad=_values(x.grad)),
           _("adding a constant changes nothing in the slope: the gradient passes through unchanged"))
    ctx = AddConstant.apply(torch.ones(2, requires_grad=True), 4.0).grad_fn
    grads = AddConstant.backward(ctx, torch.ones(2))
    expect(isinstance(grads, (tuple, list)),
           _("backward returned one {grads_type}, not one gradient per forward argument (2: tensor and constant)")
           .format(grads_type=type(grads).__name__), _("return grad_output, None"))
    expect(len(grads) >= 2 and all(g is None for g in grads[2:]),
           _("backward returned {n_grads} values: one gradient per forward argument is needed (2: tensor and "
             "constant)").format(n_grads=len(grads)), _("return grad_output, None"))
    expect(grads[1] is None, _("backward returns {grads!r} for the constant").format(grads=grads[1]),
           _("the constant is not a tensor: its gradient must be None"))
    _expect_no_tensor_attributes(ctx, "AddConstant", "grad_output")


def _expect_no_tensor_attributes(ctx, name: str, needs: str) -> None:
    """ctx keeps no tensor as a plain attribute, alone or inside a list, tuple or dict: the
    anti-pattern notebook 05 teaches against."""
    stashed = tensors_kept_on(ctx, node_info.ctx_attributes(ctx))
    attribute, where = stashed[0] if stashed else ("", "")
    expect(not stashed,
           _("setup_context keeps a tensor as a plain attribute, {where}: a tensor kept that way is never checked "
             "for in-place changes and lives as long as the graph (notebook 05); {name} does not need it at all")
           .format(where=where, name=name),
           _("delete the line that sets ctx.{attribute}: backward only needs {needs}")
           .format(attribute=attribute, needs=needs))


class Probe(Function):
    """Combined style; records what forward saw on ctx (the checker's own test Function)."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.seen_in_forward = getattr(ctx, "needs_input_grad", None)
        ctx.grad_mode_in_forward = torch.is_grad_enabled()
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, grad_output


def _probe_cases() -> list[tuple[str, tuple]]:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    plain = torch.tensor([3.0, 4.0])
    h = x * 2
    return [(N_("my_apply(cls, x, 3.0), x requiring grad"), (x, 3.0)),
            (N_("my_apply(cls, plain, 3.0), plain not requiring grad"), (plain, 3.0)),
            (N_("my_apply(cls, 2.0, x)"), (2.0, x)),
            (N_("my_apply(cls, x, plain)"), (x, plain)),
            (N_("my_apply(cls, h, 3.0), h = x * 2 (not a leaf)"), (h, 3.0))]


@exercise("Your turn 2: your own apply",
          deeper_hint=N_("Three steps, as in parts 2 and 4: make ctx from the node class the metaclass generated "
                         "for cls (an attribute of cls), fill needs_input_grad with one bool per argument, then run "
                         "forward inside a no_grad block."))
def your_turn_2(my_apply: Callable) -> None:
    """``my_apply(cls, *args)`` returns ``(output, ctx)`` where ctx is a fresh ``cls._backward_cls()``
    whose ``needs_input_grad`` was set before forward ran with grad mode off (compared with the real
    ``apply``)."""
    expect(callable(my_apply), _("you passed {my_apply_type}, not a function")
                               .format(my_apply_type=type(my_apply).__name__),
           _("pass the function itself: check.your_turn_2(my_apply)"))
    enabled = torch.is_grad_enabled()
    for description, args in _probe_cases():
        real_apply_calls = []
        try:
            with applying(lambda cls, _, __: real_apply_calls.append(cls) if cls is Probe else None):
                result = my_apply(Probe, *args)
        except AttributeError as error:
            if "requires_grad" in str(error):
                expect(False, _("for {description}: AttributeError: {error}")
                              .format(description=description, error=error),
                       _("a number has no requires_grad: check isinstance(arg, torch.Tensor) first"))
            raise
        finally:
            left_off = enabled and not torch.is_grad_enabled()
            torch.set_grad_enabled(enabled)   # the learner's next cells run as before the check
        expect(not left_off,
               _("after my_apply returned (for {description}), grad mode is still off: my_apply turned it off and "
                 "never turned it back on, so from then on no operation anywhere records a graph (the next "
                 "exercise's backward would fail)").format(description=description),
               _("use `with torch.no_grad():` around the call of forward, as part 4 does: the block turns grad mode "
                 "back on when it ends, even after an error"))
        expect(not real_apply_calls,
               _("my_apply calls cls.apply, the real apply: the ctx and the output then come from it, and the "
                 "exercise is to do its work yourself"),
               _("make ctx as part 2 of the source does, set its needs_input_grad, and call cls.forward(ctx, *args) "
                 "with grad mode off, as part 4 does; never call cls.apply"))
        expect(result is not None, _("my_apply returned None"), _("end with `return output, ctx`"))
        expect(isinstance(result, (tuple, list)) and len(result) == 2,
               _("my_apply returned {result_type}, not a pair (output, ctx)")
               .format(result_type=type(result).__name__), _("return output, ctx"))
        output, ctx = result
        expect(not (isinstance(ctx, torch.Tensor) and not isinstance(output, torch.Tensor)),
               _("my_apply returned the pair in the wrong order: first a {output_type}, then the output tensor")
               .format(output_type=type(output).__name__), _("return output, ctx: the output first, then ctx"))
        expect(ctx is not None, _("my_apply returned None as ctx"),
               _("create ctx as the real apply does, in part 2 of its source, and return it"))
        expect(ctx is not Ellipsis, _("ctx is still ... (the starter's placeholder)"),
               _("create it as the real apply does, in part 2 of its source"))
        real = Probe.apply(*args)
        real_ctx = real.grad_fn
        real_needs = tuple(isinstance(a, torch.Tensor) and a.requires_grad for a in args)
        expect(type(ctx) is not FunctionCtx,
               _("ctx is a plain FunctionCtx: the real apply makes an instance of the node class"),
               _("ctx = cls._backward_cls()"))
        expect(type(ctx) is Probe._backward_cls or type(ctx).__name__ != Probe._backward_cls.__name__,
               _("ctx is an instance of a class you made yourself, also named {ctx_type}: the real apply uses the "
                 "one node class the metaclass generated when the Function class was defined")
               .format(ctx_type=type(ctx).__name__),
               _("ctx = cls._backward_cls()  (no new class per call)"))
        expect(type(ctx) is Probe._backward_cls,
               _("ctx is a {ctx_type}, the real apply makes a {Probe_backward_cls_name}")
               .format(ctx_type=type(ctx).__name__, Probe_backward_cls_name=Probe._backward_cls.__name__),
               _("ctx = cls._backward_cls()  (the class the metaclass generated for cls)"))
        expect(real_ctx is None or type(ctx) is type(real_ctx), _("ctx's class differs from the real grad_fn's"))
        needs = getattr(ctx, "needs_input_grad", None)
        expect(isinstance(needs, tuple), _("ctx.needs_input_grad is {needs_type}, not a tuple")
                                         .format(needs_type=type(needs).__name__),
               _("tuple(... for arg in args)"))
        leaves_only = tuple(isinstance(a, torch.Tensor) and a.is_leaf and a.requires_grad for a in args)
        expect(needs == real_needs or needs != leaves_only,
               _("for {description}, ctx.needs_input_grad is {needs}, the real apply gives {real_needs}: a tensor "
                 "that is not a leaf needs a gradient too when it requires grad")
               .format(description=description, needs=needs, real_needs=real_needs),
               _("requires_grad is what counts, leaf or not: arg.requires_grad for a tensor, False otherwise"))
        expect(needs == real_needs, _("for {description}, ctx.needs_input_grad is {needs}, the real apply gives "
                                      "{real_needs}")
                                    .format(description=description, needs=needs, real_needs=real_needs), _("one bool per argument: arg.requires_grad for a tensor, False otherwise"))
        seen = getattr(ctx, "seen_in_forward", None)
        expect(seen is not None, _("forward never ran with your ctx"), _("call cls.forward(ctx, *args)"))
        expect(seen == real_needs, _("inside forward, ctx.needs_input_grad was {seen!r}").format(seen=seen),
               _("set ctx.needs_input_grad before calling forward: forward may read it"))
        expect(not (isinstance(output, torch.Tensor) and output.grad_fn is not None),
               _("for {description}, the output has a grad_fn ({output_grad_fn_name}): the operations inside "
                 "forward were recorded")
               .format(description=description, output_grad_fn_name=output.grad_fn.name() if isinstance(output, torch.Tensor) and output.grad_fn is not None else ''),
               _("run forward with grad mode off, as part 4 does: inside `with torch.no_grad():`"))
        expect(getattr(ctx, "grad_mode_in_forward", None) is not True,
               _("for {description}, forward ran with grad mode on: the operations inside it could be recorded "
                 "(detaching the inputs or the output only hides that), while the real apply runs forward with grad "
                 "mode off").format(description=description),
               _("run forward with grad mode off, as part 4 does: inside `with torch.no_grad():`"))
        expect(isinstance(output, torch.Tensor) and _values(output) == _values(real),
               _("for {description}, the output is {output!r}, the real apply gives {values_real}")
               .format(description=description, output=output, values_real=_values(real)),
               _("return what cls.forward(ctx, *args) returned"))
    x = torch.ones(2, requires_grad=True)
    first, second = my_apply(Probe, x, 2.0)[1], my_apply(Probe, x, 2.0)[1]
    expect(first is not second, _("two calls returned the same ctx object"),
           _("create a new ctx inside my_apply on every call, as the real apply does"))


_UPSTREAM = [1.0, 10.0, 100.0]   # not all ones: backward must use grad_output
_SCALE_SHIFT_CALLS = [("ScaleShift.apply(x)", (), {}, 2.0, 0.0),
                      (N_("ScaleShift.apply(x, shift=1.0)"), (), {"shift": 1.0}, 2.0, 1.0),
                      (N_("ScaleShift.apply(x, 3.0, shift=1.0)"), (3.0,), {"shift": 1.0}, 3.0, 1.0)]


@exercise("Your turn 3: keyword arguments and defaults",
          deeper_hint=N_("setup_context always receives three inputs, defaults included: unpack all three and keep "
                         "on ctx only what backward needs; backward returns one value per argument of forward, "
                         "three in all."))
def your_turn_3(ScaleShift) -> None:
    """``ScaleShift.apply(tensor, scale=2.0, shift=0.0)`` returns ``tensor * scale + shift`` in the
    separate style; ``setup_context`` unpacks all three inputs; backward returns three gradients."""
    expect(isinstance(ScaleShift, type) and issubclass(ScaleShift, Function),
           _("{ScaleShift!r} is not a class derived from torch.autograd.Function").format(ScaleShift=ScaleShift),
           _("pass the class itself: check.your_turn_3(ScaleShift)"))
    expect(ScaleShift.setup_context is not Function.setup_context,
           _("ScaleShift has no setup_context: that is the combined style"),
           _("keep forward(tensor, scale=2.0, shift=0.0) and add setup_context(ctx, inputs, output)"))
    for call, args, kwargs, scale, shift in _SCALE_SHIFT_CALLS:
        x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
        try:
            y = ScaleShift.apply(x, *args, **kwargs)
        except ValueError as error:
            expect("unpack" not in str(error),
                   _("{call}: setup_context failed: ValueError: {error}").format(call=call, error=error),
                   _("apply binds the arguments to forward's signature first, defaults filled in: inputs is always "
                     "(tensor, scale, shift), three values, however the caller wrote them"))
            raise
        expect(_values(x) == [1.0, -2.0, 0.5],
               _("{call} changed the caller's x in place: x was [1.0, -2.0, 0.5] and is now {values_x}")
               .format(call=call, values_x=_values(x)),
               _("forward returns a new tensor, tensor * scale + shift, and leaves its input as it was"))
        want = [v * scale + shift for v in (1.0, -2.0, 0.5)]
        expect(isinstance(y, torch.Tensor) and np.allclose(_values(y), want),
               _("{call} gave {y!r}; expected {want}")
               .format(call=call, y=y, want=want), _("forward returns tensor * scale + shift"))
        try:
            y.backward(torch.tensor(_UPSTREAM))
        except RuntimeError as error:
            expect("incorrect number of gradients" not in str(error), _("{call}: backward failed: {error}")
                                                                      .format(call=call, error=error),
                   _("forward has three arguments, defaults included (tensor, scale, shift): backward returns one "
                     "gradient per argument, (grad_output * ctx.scale, None, None)"))
            expect("was not a Variable" not in str(error), _("{call}: backward failed: {error}")
                                                           .format(call=call, error=error),
                   _("scale and shift are numbers, not tensors: their gradients must be None, not 0"))
            raise
        got = None if x.grad is None else _values(x.grad)
        expect(got is not None, _("{call}: backward left x.grad empty")
                                .format(call=call), _("return the gradient for tensor first"))
        expect(not np.allclose(got, [scale] * 3),
               _("{call}: with an incoming gradient {_UPSTREAM}, x.grad is {got}: the gradient for an incoming "
                 "gradient of ones, so backward ignores grad_output").format(call=call, _UPSTREAM=_UPSTREAM, got=got),
               _("multiply grad_output by the scale this call used"))
        expect(np.allclose(got, [g * scale for g in _UPSTREAM]),
               _("{call}: with an incoming gradient {_UPSTREAM}, x.grad is {got}; expected {g_scale_UPSTREAM} "
                 "(scale {scale})")
               .format(call=call, _UPSTREAM=_UPSTREAM, got=got, g_scale_UPSTREAM=[g * scale for g in _UPSTREAM], scale=scale),
               _("store this call's scale on ctx in setup_context, and use it in backward"))
    _expect_no_tensor_attributes(y.grad_fn, "ScaleShift", N_("grad_output and the scale"))
    _expect_each_call_its_own_scale(ScaleShift)
    _expect_scale_on_ctx(ScaleShift)


def _expect_scale_on_ctx(ScaleShift) -> None:
    """The scale of a call is on its own ctx (an attribute, inside a container, or a saved tensor):
    a scale kept outside, in a list found by an index on ctx, makes the list grow with every call."""
    y = ScaleShift.apply(torch.tensor([1.0, -2.0, 0.5], requires_grad=True), 3.75)
    ctx = y.grad_fn
    kept = list(node_info.ctx_attributes(ctx).values()) + list(node_info.saved_tensors(ctx))
    expect(any(_holds(value, 3.75) for value in kept),
           _("after ScaleShift.apply(x, 3.75), its ctx does not hold the scale 3.75 (it holds {kept}): backward "
             "takes it from somewhere outside the record of its call (a list or a dict in your module, with a "
             "number on ctx to find it?), which grows with every call and is never freed")
           .format(kept=", ".join(f"ctx.{name}={value!r}" for name, value in node_info.ctx_attributes(ctx).items())
                   or _("nothing")),
           _("keep the scale of each call on its own ctx, in setup_context: ctx.scale = scale"))


def _holds(value, number: float, depth: int = 3) -> bool:
    """Whether ``value`` (something kept on ctx) is or contains ``number``."""
    if isinstance(value, (int, float, np.generic)) and not isinstance(value, bool):
        return float(value) == number
    if isinstance(value, (torch.Tensor, np.ndarray)):
        return bool(np.any(np.asarray(value.detach()._data if isinstance(value, torch.Tensor) else value) == number))
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)) and depth:
        return any(_holds(item, number, depth - 1) for item in value)
    return False


def _expect_each_call_its_own_scale(ScaleShift) -> None:
    """Three calls before any backward, then their backwards in the order second, third, first: a
    scale kept outside ctx (on the class, on the input tensor, in a list or queue) is another call's."""
    x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
    w = torch.tensor([4.0, 0.0, -1.0], requires_grad=True)
    first = ScaleShift.apply(x, 3.0, shift=1.0)
    second = ScaleShift.apply(x)
    third = ScaleShift.apply(w, 5.0)
    second.backward(torch.tensor([1.0, 1.0, 1.0]))
    third.backward(torch.tensor(_UPSTREAM))
    first.backward(torch.tensor(_UPSTREAM))
    got_x = None if x.grad is None else _values(x.grad)
    got_w = None if w.grad is None else _values(w.grad)
    want_x, want_w = [2.0 + 3.0 * g for g in _UPSTREAM], [5.0 * g for g in _UPSTREAM]
    expect(got_x is not None and got_w is not None and np.allclose(got_x, want_x) and np.allclose(got_w, want_w),
           _("ScaleShift.apply(x, 3.0, shift=1.0), ScaleShift.apply(x), ScaleShift.apply(w, 5.0), then backward "
             "through the second, the third and the first: x.grad is {got_x} (expected {want_x}) and w.grad is "
             "{got_w} (expected {want_w}): backward used the scale of another call")
           .format(got_x=got_x, want_x=want_x, got_w=got_w, want_w=want_w),
           _("keep the scale of each call on its own ctx, in setup_context: not on the class, the input tensor or "
             "anything else that several calls share"))
