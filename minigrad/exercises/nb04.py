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

from ._feedback import exercise, expect
from ._observe import applying, tensors_kept_on


def _values(t) -> list:
    return np.asarray(t.detach()._data).tolist()


def _forward_parameters(cls) -> list[str]:
    return list(inspect.signature(cls.forward).parameters)


@exercise("Your turn 1: AddConstant in the separate style")
def your_turn_1(AddConstant) -> None:
    """``AddConstant.apply(tensor, constant)`` returns ``tensor + constant`` in the separate style
    (``forward(tensor, constant)`` + ``setup_context``); its node is ``AddConstantBackward``."""
    expect(isinstance(AddConstant, type) and issubclass(AddConstant, Function),
           f"{AddConstant!r} is not a class derived from torch.autograd.Function",
           "class AddConstant(torch.autograd.Function): ...")
    expect(AddConstant.__name__ == "AddConstant",
           f"the class is called {AddConstant.__name__}, so its node would be {AddConstant.__name__}Backward",
           "name the class AddConstant")
    expect(AddConstant.forward is not Function.forward, "AddConstant has no forward yet",
           "add a @staticmethod forward(tensor, constant)")
    expect(AddConstant.setup_context is not Function.setup_context,
           "AddConstant has no setup_context: that is the combined style",
           "the separate style splits the work: forward(tensor, constant) computes, "
           "setup_context(ctx, inputs, output) stores on ctx")
    params = _forward_parameters(AddConstant)
    expect(not params or params[0] != "ctx",
           f"forward takes ({', '.join(params)}): in the separate style forward gets no ctx",
           "write forward(tensor, constant); only setup_context and backward receive ctx")
    expect(AddConstant.backward is not Function.backward, "AddConstant has no backward yet",
           "add a @staticmethod backward(ctx, grad_output)")

    x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
    y = AddConstant.apply(x, 2.5)
    expect(_values(x) == [1.0, -2.0, 0.5],
           f"AddConstant.apply(x, 2.5) changed the caller's x in place: x was [1.0, -2.0, 0.5] and is now "
           f"{_values(x)}", "forward returns a new tensor and leaves its input as it was: no in-place method "
           "such as add_")
    expect(isinstance(y, torch.Tensor), f"apply returned {type(y).__name__}, not a tensor",
           "forward should return tensor + constant")
    expect(_values(y) == [3.5, 0.5, 3.0], f"AddConstant.apply([1, -2, 0.5], 2.5) gave {_values(y)}",
           "forward returns tensor + constant")
    expect(y.grad_fn is not None, "the output has no grad_fn, so no node was recorded",
           "return a new tensor computed from the input, e.g. tensor + constant")
    expect(y.grad_fn.name() == "AddConstantBackward",
           f"the output's node is {y.grad_fn.name()}, expected AddConstantBackward",
           "call AddConstant.apply(...), and return the result of forward")
    upstream = torch.tensor([1.0, 10.0, 100.0])
    try:
        y.backward(upstream)
    except RuntimeError as error:
        expect(False, f"backward failed: {error}",
               "return one gradient per forward argument: grad_output for tensor, None for constant")
    expect(x.grad is not None, "backward left x.grad empty", "return the gradient for tensor first")
    expect(_values(x.grad) == [1.0, 10.0, 100.0],
           f"with an incoming gradient [1, 10, 100], x.grad is {_values(x.grad)}",
           "adding a constant changes nothing in the slope: the gradient passes through unchanged")
    ctx = AddConstant.apply(torch.ones(2, requires_grad=True), 4.0).grad_fn
    grads = AddConstant.backward(ctx, torch.ones(2))
    expect(isinstance(grads, (tuple, list)),
           f"backward returned one {type(grads).__name__}, not one gradient per forward argument "
           "(2: tensor and constant)", "return grad_output, None")
    expect(len(grads) >= 2 and all(g is None for g in grads[2:]),
           f"backward returned {len(grads)} values: one gradient per forward argument is needed "
           "(2: tensor and constant)", "return grad_output, None")
    expect(grads[1] is None, f"backward returns {grads[1]!r} for the constant",
           "the constant is not a tensor: its gradient must be None")
    _expect_no_tensor_attributes(ctx, "AddConstant", "grad_output")


def _expect_no_tensor_attributes(ctx, name: str, needs: str) -> None:
    """ctx keeps no tensor as a plain attribute, alone or inside a list, tuple or dict: the
    anti-pattern notebook 05 teaches against."""
    stashed = tensors_kept_on(ctx, node_info.ctx_attributes(ctx))
    attribute, where = stashed[0] if stashed else ("", "")
    expect(not stashed,
           f"setup_context keeps a tensor as a plain attribute, {where}: a tensor kept "
           "that way is never checked for in-place changes and lives as long as the graph (notebook 05); "
           f"{name} does not need it at all",
           f"delete the line that sets ctx.{attribute}: backward only needs {needs}")


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
    return [("my_apply(cls, x, 3.0), x requiring grad", (x, 3.0)),
            ("my_apply(cls, plain, 3.0), plain not requiring grad", (plain, 3.0)),
            ("my_apply(cls, 2.0, x)", (2.0, x)),
            ("my_apply(cls, x, plain)", (x, plain)),
            ("my_apply(cls, h, 3.0), h = x * 2 (not a leaf)", (h, 3.0))]


@exercise("Your turn 2: your own apply")
def your_turn_2(my_apply: Callable) -> None:
    """``my_apply(cls, *args)`` returns ``(output, ctx)`` where ctx is a fresh ``cls._backward_cls()``
    whose ``needs_input_grad`` was set before forward ran with grad mode off (compared with the real
    ``apply``)."""
    expect(callable(my_apply), f"you passed {type(my_apply).__name__}, not a function",
           "pass the function itself: check.your_turn_2(my_apply)")
    enabled = torch.is_grad_enabled()
    for description, args in _probe_cases():
        real_apply_calls = []
        try:
            with applying(lambda cls, _, __: real_apply_calls.append(cls) if cls is Probe else None):
                result = my_apply(Probe, *args)
        except AttributeError as error:
            if "requires_grad" in str(error):
                expect(False, f"for {description}: AttributeError: {error}",
                       "a number has no requires_grad: check isinstance(arg, torch.Tensor) first")
            raise
        finally:
            left_off = enabled and not torch.is_grad_enabled()
            torch.set_grad_enabled(enabled)   # the learner's next cells run as before the check
        expect(not left_off,
               f"after my_apply returned (for {description}), grad mode is still off: my_apply turned it off "
               "and never turned it back on, so from then on no operation anywhere records a graph (the "
               "next exercise's backward would fail)",
               "use `with torch.no_grad():` around the call of forward, as part 4 does: the block turns grad "
               "mode back on when it ends, even after an error")
        expect(not real_apply_calls,
               "my_apply calls cls.apply, the real apply: the ctx and the output then come from it, and the "
               "exercise is to do its work yourself",
               "make ctx as part 2 of the source does, set its needs_input_grad, and call cls.forward(ctx, *args) "
               "with grad mode off, as part 4 does; never call cls.apply")
        expect(result is not None, "my_apply returned None", "end with `return output, ctx`")
        expect(isinstance(result, (tuple, list)) and len(result) == 2,
               f"my_apply returned {type(result).__name__}, not a pair (output, ctx)", "return output, ctx")
        output, ctx = result
        expect(not (isinstance(ctx, torch.Tensor) and not isinstance(output, torch.Tensor)),
               f"my_apply returned the pair in the wrong order: first a {type(output).__name__}, then the "
               "output tensor", "return output, ctx: the output first, then ctx")
        expect(ctx is not None, "my_apply returned None as ctx",
               "create ctx as the real apply does, in part 2 of its source, and return it")
        expect(ctx is not Ellipsis, "ctx is still ... (the starter's placeholder)",
               "create it as the real apply does, in part 2 of its source")
        real = Probe.apply(*args)
        real_ctx = real.grad_fn
        real_needs = tuple(isinstance(a, torch.Tensor) and a.requires_grad for a in args)
        expect(type(ctx) is not FunctionCtx,
               "ctx is a plain FunctionCtx: the real apply makes an instance of the node class",
               "ctx = cls._backward_cls()")
        expect(type(ctx) is Probe._backward_cls or type(ctx).__name__ != Probe._backward_cls.__name__,
               f"ctx is an instance of a class you made yourself, also named {type(ctx).__name__}: the real "
               "apply uses the one node class the metaclass generated when the Function class was defined",
               "ctx = cls._backward_cls()  (no new class per call)")
        expect(type(ctx) is Probe._backward_cls,
               f"ctx is a {type(ctx).__name__}, the real apply makes a {Probe._backward_cls.__name__}",
               "ctx = cls._backward_cls()  (the class the metaclass generated for cls)")
        expect(real_ctx is None or type(ctx) is type(real_ctx), "ctx's class differs from the real grad_fn's")
        needs = getattr(ctx, "needs_input_grad", None)
        expect(isinstance(needs, tuple), f"ctx.needs_input_grad is {type(needs).__name__}, not a tuple",
               "tuple(... for arg in args)")
        leaves_only = tuple(isinstance(a, torch.Tensor) and a.is_leaf and a.requires_grad for a in args)
        expect(needs == real_needs or needs != leaves_only,
               f"for {description}, ctx.needs_input_grad is {needs}, the real apply gives {real_needs}: a tensor "
               "that is not a leaf needs a gradient too when it requires grad",
               "requires_grad is what counts, leaf or not: arg.requires_grad for a tensor, False otherwise")
        expect(needs == real_needs, f"for {description}, ctx.needs_input_grad is {needs}, the real apply "
               f"gives {real_needs}", "one bool per argument: arg.requires_grad for a tensor, False otherwise")
        seen = getattr(ctx, "seen_in_forward", None)
        expect(seen is not None, "forward never ran with your ctx", "call cls.forward(ctx, *args)")
        expect(seen == real_needs, f"inside forward, ctx.needs_input_grad was {seen!r}",
               "set ctx.needs_input_grad before calling forward: forward may read it")
        expect(not (isinstance(output, torch.Tensor) and output.grad_fn is not None),
               f"for {description}, the output has a grad_fn ({output.grad_fn.name() if isinstance(output, torch.Tensor) and output.grad_fn is not None else ''}): "
               "the operations inside forward were recorded",
               "run forward with grad mode off, as part 4 does: inside `with torch.no_grad():`")
        expect(getattr(ctx, "grad_mode_in_forward", None) is not True,
               f"for {description}, forward ran with grad mode on: the operations inside it could be recorded "
               "(detaching the inputs or the output only hides that), while the real apply runs forward with "
               "grad mode off",
               "run forward with grad mode off, as part 4 does: inside `with torch.no_grad():`")
        expect(isinstance(output, torch.Tensor) and _values(output) == _values(real),
               f"for {description}, the output is {output!r}, the real apply gives {_values(real)}",
               "return what cls.forward(ctx, *args) returned")
    x = torch.ones(2, requires_grad=True)
    first, second = my_apply(Probe, x, 2.0)[1], my_apply(Probe, x, 2.0)[1]
    expect(first is not second, "two calls returned the same ctx object",
           "create a new ctx inside my_apply on every call, as the real apply does")


_UPSTREAM = [1.0, 10.0, 100.0]   # not all ones: backward must use grad_output
_SCALE_SHIFT_CALLS = [("ScaleShift.apply(x)", (), {}, 2.0, 0.0),
                      ("ScaleShift.apply(x, shift=1.0)", (), {"shift": 1.0}, 2.0, 1.0),
                      ("ScaleShift.apply(x, 3.0, shift=1.0)", (3.0,), {"shift": 1.0}, 3.0, 1.0)]


@exercise("Your turn 3: keyword arguments and defaults")
def your_turn_3(ScaleShift) -> None:
    """``ScaleShift.apply(tensor, scale=2.0, shift=0.0)`` returns ``tensor * scale + shift`` in the
    separate style; ``setup_context`` unpacks all three inputs; backward returns three gradients."""
    expect(isinstance(ScaleShift, type) and issubclass(ScaleShift, Function),
           f"{ScaleShift!r} is not a class derived from torch.autograd.Function",
           "pass the class itself: check.your_turn_3(ScaleShift)")
    expect(ScaleShift.setup_context is not Function.setup_context,
           "ScaleShift has no setup_context: that is the combined style",
           "keep forward(tensor, scale=2.0, shift=0.0) and add setup_context(ctx, inputs, output)")
    for call, args, kwargs, scale, shift in _SCALE_SHIFT_CALLS:
        x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
        try:
            y = ScaleShift.apply(x, *args, **kwargs)
        except ValueError as error:
            expect("unpack" not in str(error),
                   f"{call}: setup_context failed: ValueError: {error}",
                   "apply binds the arguments to forward's signature first, defaults filled in: inputs is "
                   "always (tensor, scale, shift), three values, however the caller wrote them")
            raise
        expect(_values(x) == [1.0, -2.0, 0.5],
               f"{call} changed the caller's x in place: x was [1.0, -2.0, 0.5] and is now {_values(x)}",
               "forward returns a new tensor, tensor * scale + shift, and leaves its input as it was")
        want = [v * scale + shift for v in (1.0, -2.0, 0.5)]
        expect(isinstance(y, torch.Tensor) and np.allclose(_values(y), want),
               f"{call} gave {y!r}; expected {want}", "forward returns tensor * scale + shift")
        try:
            y.backward(torch.tensor(_UPSTREAM))
        except RuntimeError as error:
            expect("incorrect number of gradients" not in str(error), f"{call}: backward failed: {error}",
                   "forward has three arguments, defaults included (tensor, scale, shift): backward returns "
                   "one gradient per argument, (grad_output * ctx.scale, None, None)")
            expect("was not a Variable" not in str(error), f"{call}: backward failed: {error}",
                   "scale and shift are numbers, not tensors: their gradients must be None, not 0")
            raise
        got = None if x.grad is None else _values(x.grad)
        expect(got is not None, f"{call}: backward left x.grad empty", "return the gradient for tensor first")
        expect(not np.allclose(got, [scale] * 3),
               f"{call}: with an incoming gradient {_UPSTREAM}, x.grad is {got}: the gradient for an "
               "incoming gradient of ones, so backward ignores grad_output",
               "multiply grad_output by the scale this call used")
        expect(np.allclose(got, [g * scale for g in _UPSTREAM]),
               f"{call}: with an incoming gradient {_UPSTREAM}, x.grad is {got}; expected "
               f"{[g * scale for g in _UPSTREAM]} (scale {scale})",
               "store this call's scale on ctx in setup_context, and use it in backward")
    _expect_no_tensor_attributes(y.grad_fn, "ScaleShift", "grad_output and the scale")
    _expect_each_call_its_own_scale(ScaleShift)


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
           "ScaleShift.apply(x, 3.0, shift=1.0), ScaleShift.apply(x), ScaleShift.apply(w, 5.0), then backward "
           f"through the second, the third and the first: x.grad is {got_x} (expected {want_x}) and w.grad is "
           f"{got_w} (expected {want_w}): backward used the scale of another call",
           "keep the scale of each call on its own ctx, in setup_context: not on the class, the input tensor "
           "or anything else that several calls share")
