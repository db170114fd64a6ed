"""Checkers for ``02_static_methods.ipynb``.

>>> from minigrad.exercises import nb02
>>> class Ctx:
...     pass
>>> def gradient_by_hand(function, x, grad_output):
...     ctx = Ctx()
...     function.forward(ctx, x)
...     return function.backward(ctx, grad_output)
>>> result = nb02.your_turn_1(gradient_by_hand)
✓ Your turn 1: autograd by hand — correct.
"""
from __future__ import annotations

import gc
import weakref
from collections import deque
from types import FunctionType, ModuleType
from typing import Any, Callable

import numpy as np

import minigrad as torch
from minigrad.autograd import Function

from minigrad.autograd import node_info

from ._feedback import NotYet, _, N_, exercise, expect
from ._observe import backward_passes

SAME_CTX_HINT = N_("create ONE ctx object, give it to forward, then give the same object to backward")


def _close(a: list[float], b: list[float]) -> bool:
    return len(a) == len(b) and all(abs(p - q) <= 1e-5 * (1 + abs(q)) for p, q in zip(a, b))


class Cube(Function):
    """``x ** 3``, keeping x on ctx as a plain attribute (notebook 05 says why save_for_backward is better)."""

    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        if not hasattr(ctx, "x"):
            raise NotYet(_("backward received a ctx without the attribute x that forward stored on its ctx"),
                         SAME_CTX_HINT)
        return 3 * ctx.x ** 2 * grad_output


class Sine(Function):
    """``sin(x)``, written like Cube: a second Function to check that the answer is general."""

    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return x.sin()

    @staticmethod
    def backward(ctx, grad_output):
        if not hasattr(ctx, "x"):
            raise NotYet(_("backward received a ctx without the attribute x that forward stored on its ctx"),
                         SAME_CTX_HINT)
        return ctx.x.cos() * grad_output


class _Calls:
    """The ctx objects that the learner's code gave to forward and to backward, call by call."""

    def __init__(self) -> None:
        self.forward: list = []
        self.backward: list = []


_calls = _Calls()


def _refuse_apply(cls, *args, **kwargs):
    raise NotYet(_("your code called .apply, which lets the engine do the work"),
                 _("call function.forward(ctx, x) and function.backward(ctx, grad_output) yourself"))


def _record_forward(function: type, ctx, x):
    expect(not isinstance(ctx, type),
           _("you gave forward the class {ctx} as ctx: what forward stores on a class is one slot shared by every "
             "call, the bug of StatefulMul").format(ctx=getattr(ctx, '__name__', ctx)),
           _("create a new object for this one call, ctx = Ctx(), and give that object to forward and backward"))
    expect(not isinstance(ctx, torch.Tensor),
           _("you gave forward a tensor as ctx: forward then writes its record onto that tensor, which is the "
             "caller's data, not a record of this call"),
           _("create a new object for this one call, ctx = Ctx(), and give that object to forward and backward"))
    expect(not isinstance(ctx, Function),
           _('you gave forward an instance of {function_name} as ctx: creating one warns "should not be '
             'instantiated", because a Function holds only code; the record of a call is a separate object')
           .format(function_name=function.__name__),
           _("create a plain record object, ctx = Ctx(), and give it to forward and backward"))
    _calls.forward.append(ctx)
    return function.forward(ctx, x)


def _record_backward(function: type, ctx, grad_output):
    expect(not hasattr(ctx, "x") or not _calls.forward or any(ctx is seen for seen in _calls.forward),
           _("backward received a different ctx object from the one forward filled"), SAME_CTX_HINT)
    _calls.backward.append(ctx)
    return function.backward(ctx, grad_output)


def _by_hand(function: type) -> type:
    """The class the learner's code receives: the same maths, ``.apply`` refused, and every ctx
    given to forward and backward recorded."""
    def forward(ctx, x):
        return _record_forward(function, ctx, x)

    def backward(ctx, grad_output):
        return _record_backward(function, ctx, grad_output)

    return type(function.__name__, (function,), {"apply": classmethod(_refuse_apply),
                                                 "forward": staticmethod(forward),
                                                 "backward": staticmethod(backward)})


# The classes the learner's code receives.
ByHandCube = _by_hand(Cube)
ByHandSine = _by_hand(Sine)


def _engine_gradient(function: type, values: list[float], grad_output: list[float]) -> list[float]:
    """The input gradient the engine computes: ``function.apply`` and ``backward(grad_output)``."""
    x = torch.tensor(values, requires_grad=True)
    function.apply(x).backward(torch.tensor(grad_output))
    return x.grad.tolist()


@exercise("Your turn 1: autograd by hand",
          deeper_hint=N_("Three lines: make one record object for this call (the notebook's Ctx class), give it to "
                         "forward with x, then give that same object and grad_output to backward."))
def your_turn_1(gradient_by_hand: Callable) -> None:
    """Check ``gradient_by_hand(function, x, grad_output)``: forward and backward called by hand.

    It must return the gradient of ``x`` that ``function.backward`` computes, the same numbers as
    ``function.apply(x)`` followed by ``.backward(grad_output)``.
    """
    expect(callable(gradient_by_hand) and not isinstance(gradient_by_hand, type),
           _("you passed {gradient_by_hand!r}, not your function").format(gradient_by_hand=gradient_by_hand),
           _("pass the function itself: check.your_turn_1(gradient_by_hand)"))
    values, upstream = [0.5, -1.0, 2.0], [1.0, 0.5, -2.0]
    _calls.__init__()
    x, grad_output = torch.tensor(values), torch.tensor(upstream)
    with backward_passes() as engine_passes:
        result = gradient_by_hand(ByHandCube, x, grad_output)
    expect(x.tolist() == values and grad_output.tolist() == upstream,
           _("gradient_by_hand changed the caller's tensors in place: x was {values} and is now {x}, grad_output "
             "was {upstream} and is now {grad_output}")
           .format(values=values, x=x.tolist(), upstream=upstream, grad_output=grad_output.tolist()),
           _("compute the gradient without in-place methods such as mul_ on x or grad_output: the caller still "
             "needs them"))
    expect(result is not None,
           _("gradient_by_hand returned None"),
           _("return what function.backward(ctx, grad_output) returns"))
    expect(not isinstance(result, tuple),
           _("you returned a tuple; backward of a one-input Function returns one tensor: return it as it is"),
           _("return function.backward(ctx, grad_output)"))
    expect(isinstance(result, torch.Tensor), _("gradient_by_hand returned a {result_type}, not a tensor")
                                             .format(result_type=type(result).__name__),
           _("return function.backward(ctx, grad_output)"))
    got = result.tolist()
    expect(not _close(got, [v ** 3 for v in values]),
           _("you returned forward's output (x ** 3), not the gradient that backward computes"),
           _("call function.backward(ctx, grad_output) after forward and return its result"))
    expect(bool(_calls.forward),
           _("the forward of the function you were given never ran: your code filled ctx itself, or called another "
             "Function's forward (such as Cube.forward), which works only for the Function you know"),
           _("use the function argument: function.forward(ctx, x), then function.backward(ctx, grad_output)"))
    expect(bool(_calls.backward),
           _("function.backward never ran: the gradient came from somewhere else (the engine, differentiating the "
             "operations of forward?), so the backward of the Function was never tested"),
           _("call function.backward(ctx, grad_output) yourself, with the ctx that forward filled"))
    expect(not engine_passes,
           _("your function started a backward pass of the engine (a .backward() or torch.autograd.grad): the "
             "gradient then comes from the engine differentiating the operations of forward, and what "
             "function.backward computes is never tested"),
           _("return what function.backward(ctx, grad_output) returns, and start no backward pass of the engine"))
    expected = _engine_gradient(Cube, values, upstream)
    if not _close(got, expected):
        expect(not _close(got, _engine_gradient(Cube, values, [1.0, 1.0, 1.0])),
               _("your gradient ignores grad_output (it is the gradient for grad_output = ones)"),
               _("pass the grad_output argument to backward"))
        expect(False, _("for Cube, x = {values}, grad_output = {upstream} you returned {got}; "
                        "Cube.apply(x).backward(grad_output) gives {expected}")
                      .format(values=values, upstream=upstream, got=got, expected=expected),
               _("forward(ctx, x) first, then backward(ctx, grad_output) with the same ctx"))
    cube_records = list(_calls.forward)
    _calls.__init__()
    sine = gradient_by_hand(ByHandSine, torch.tensor(values), torch.tensor(upstream))
    expect(not any(record is other for record in cube_records for other in _calls.forward),
           _("the call with Cube and the call with Sine used the same ctx object: one record for several calls is "
             "the bug of MulRecipe (a second call before backward overwrites what the first stored)"),
           _("create the ctx inside gradient_by_hand, so that every call gets a new one"))
    expect(isinstance(sine, torch.Tensor) and _close(sine.tolist(), _engine_gradient(Sine, values, upstream)),
           _("correct for Cube but not for another Function (Sine): your code does not use its function argument"),
           _("call function.forward and function.backward, not Cube.forward"))


def _fingerprint(value: Any) -> Any:
    """What a class attribute holds, so that a change shows: the objects in a dict, list or set
    (Power.store[id(ctx)] = ... changes the dict without replacing it), the attributes of an object."""
    if isinstance(value, dict):
        return tuple((id(k), id(v)) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset, deque)):
        return tuple(sorted(map(id, value)) if isinstance(value, (set, frozenset)) else map(id, value))
    if hasattr(value, "__dict__") and not isinstance(value, (type, FunctionType, staticmethod, classmethod,
                                                             property, ModuleType)):
        return tuple((name, id(v)) for name, v in vars(value).items())
    return id(value)


def _class_state(cls: type) -> dict:
    """The class attributes of ``cls`` and of the learner's own base classes, fingerprinted."""
    state = {}
    for klass in cls.__mro__:
        if klass is object or klass.__module__.startswith("minigrad."):
            continue
        state.update({(klass.__name__, name): _fingerprint(value) for name, value in vars(klass).items()
                      if not name.startswith("__")})
    return state


def _written_on_class(cls: type, before: dict) -> list[str]:
    """Names of class attributes that were added, replaced or changed since ``before`` was taken."""
    after = _class_state(cls)
    return sorted(f"{klass}.{name}" for (klass, name), value in after.items() if before.get((klass, name)) != value)


@exercise("Your turn 2: why does Power break?",
          deeper_hint=N_("forward receives ctx, an object made fresh for each call: keep the exponent and x on it "
                         "(ctx.exponent, ctx.x) instead of on the class, and let backward read them from its own "
                         "ctx."))
def your_turn_2(power: Any) -> None:
    """Check a Function ``power`` with ``power.apply(x, exponent) == x ** exponent`` that survives two
    calls before backward."""
    expect(isinstance(power, type) and issubclass(power, Function),
           _("{power!r} is not a Function class").format(power=power),
           _("class FixedPower(torch.autograd.Function): with static forward and backward"))
    power.apply(torch.tensor([1.5]), 2)   # a first call: what the engine caches on the class is there now
    before = _class_state(power)
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    own = set(vars(x))
    squared = power.apply(x, 2)
    cubed = power.apply(w, 3)
    expect(x.tolist() == [1.0, 2.0, 3.0] and w.tolist() == [0.5, -1.0, 2.0],
           _("FixedPower.apply changed its input in place: x is now {x} (it was [1.0, 2.0, 3.0])").format(x=x.tolist()),
           _("forward returns a new tensor, x ** exponent, and leaves x as it was"))
    written = _written_on_class(power, before)
    expect(not written,
           _("forward still writes {written} on the class: one place shared by every call, so it grows or is "
             "overwritten with each call").format(written=', '.join(written)),
           _("which object is the record of one single call? Store the exponent and x there"))
    on_input = sorted(name for name in set(vars(x)) - own if not name.startswith("_"))   # _: minigrad's own
    expect(not on_input,
           _("forward writes {name_on_input} on the input tensor: the input is the caller's data, shared by every "
             "call that receives it, so FixedPower.apply(x, 2) followed by FixedPower.apply(x, 3) overwrites what "
             "the first call stored").format(name_on_input=', '.join('x.' + name for name in on_input)),
           _("which object is the record of one single call? Store the exponent and x there"))
    expect(isinstance(squared, torch.Tensor) and _close(squared.tolist(), [1.0, 4.0, 9.0]),
           _("FixedPower.apply(x, 2) is not x ** 2"), _("return x ** exponent from forward"))
    expect(isinstance(cubed, torch.Tensor) and _close(cubed.tolist(), [0.125, -1.0, 8.0]),
           _("FixedPower.apply(w, 3) is not w ** 3"), _("return x ** exponent from forward"))
    upstream_x, upstream_w = [1.0, 10.0, 100.0], [1.0, -2.0, 0.5]   # not all ones: grad_output matters
    try:
        squared.backward(torch.tensor(upstream_x))
        cubed.backward(torch.tensor(upstream_w))
    except RuntimeError as error:
        expect("incorrect number of gradients" not in str(error), _("backward failed: {error}").format(error=error),
               _("backward returns one gradient per forward input: (gradient for x, None) - None for the exponent, "
                 "which is not a tensor"))
        expect("was not a Variable" not in str(error), _("backward failed: {error}").format(error=error),
               _("the exponent is a number, not a tensor: its gradient must be None, not zeros"))
        raise
    got_x = None if x.grad is None else x.grad.tolist()
    expect(got_x is None or not _close(got_x, [2.0, 4.0, 6.0]),
           _("with an incoming gradient {upstream_x}, x.grad is {got_x}: the gradient for an incoming gradient of "
             "ones, so backward ignores grad_output").format(upstream_x=upstream_x, got_x=got_x),
           _("multiply by grad_output (the chain rule): grad_output * n * x ** (n - 1)"))
    expect(got_x is not None and _close(got_x, [2.0, 40.0, 600.0]),
           _("after two calls, backward through the first with an incoming gradient {upstream_x} gives x.grad = "
             "{got_x}; expected 2 * x * grad = [2.0, 40.0, 600.0]").format(upstream_x=upstream_x, got_x=got_x),
           _("backward must read the exponent and the input of ITS call from ctx"))
    expect(w.grad is not None and _close(w.grad.tolist(), [0.75, -6.0, 6.0]),
           _("backward through the second call with an incoming gradient {upstream_w} gives w.grad = {w_grad}; "
             "expected 3 * w ** 2 * grad = [0.75, -6.0, 6.0]")
           .format(upstream_w=upstream_w, w_grad=None if w.grad is None else w.grad.tolist()),
           _("gradient of x ** n is n * x ** (n - 1) times grad_output"))
    _expect_backward_derived(power)
    _expect_backwards_in_any_order(power)
    z = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    first, second = power.apply(z, 2), power.apply(z, 3)
    first.backward(torch.tensor(upstream_x))
    got_z = None if z.grad is None else z.grad.tolist()
    expect(got_z is not None and _close(got_z, [2.0, 40.0, 600.0]),
           _("FixedPower.apply(x, 2), then FixedPower.apply(x, 3) on the same x, then backward through the first "
             "with an incoming gradient {upstream_x} gives x.grad = {got_z}; expected 2 * x * grad = [2.0, 40.0, "
             "600.0]: the second call changed what the first one stored").format(upstream_x=upstream_x, got_z=got_z),
           _("backward must read the exponent and the input of ITS call, from the record of that call: ctx"))
    written = _written_on_class(power, before)
    expect(not written,
           _("forward or backward writes {written} on the class: one place shared by every call")
           .format(written=', '.join(written)),
           _("which object is the record of one single call? Store the exponent and x there"))


def _expect_backward_derived(power: type) -> None:
    """Backward, called as the engine calls it, starts no backward pass of its own: a backward that
    recomputes forward and has torch.autograd.grad differentiate it writes no derivative."""
    y = power.apply(torch.tensor([1.0, 2.0, 3.0], requires_grad=True), 3)
    with backward_passes() as passes, torch.no_grad():
        power.backward(y.grad_fn, torch.tensor([1.0, 10.0, 100.0]))
    expect(not passes,
           _("backward runs a backward pass of its own (torch.autograd.grad or .backward() inside it): it has the "
             "engine differentiate x ** exponent for it, while the exercise is to write that derivative yourself"),
           _("gradient of x ** n is n * x ** (n - 1) times grad_output"))


def _expect_backwards_in_any_order(power: type) -> None:
    """Two calls before any backward, the backward of the second call first: a record kept outside
    ctx (a list or queue in the module, a dict keyed by something else) gives the wrong call's numbers."""
    p = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    q = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    cubed, squared = power.apply(p, 3), power.apply(q, 2)
    ctx = cubed.grad_fn
    kept = node_info.ctx_attributes(ctx) if ctx is not None else {}
    saved = node_info.saved_tensors(ctx) if ctx is not None else ()
    expect(bool(kept) or bool(saved),
           _("after forward, the ctx of FixedPower.apply(x, 3) holds nothing: backward takes the exponent and x "
             "from somewhere outside the record of its call (a list, a queue or a dict kept elsewhere)"),
           _("which object is the record of one single call? Store the exponent and x there"))
    expect(bool(saved) or any(_holds_values(value) for value in kept.values()),
           _("after forward, the ctx of FixedPower.apply(x, 3) holds only {numbers_on_kept}, and no tensor: "
             "backward needs the numbers of x, so it takes them from somewhere outside the record of its call (a "
             "list or a dict kept elsewhere, with a number on ctx to find them), which grows with every call and is "
             "never freed").format(numbers_on_kept=_numbers_on(kept)),
           _("which object is the record of one single call? Store the exponent and x there"))
    upstream_p, upstream_q = [1.0, 10.0, 100.0], [-1.0, 2.0, 0.5]
    squared.backward(torch.tensor(upstream_q))
    cubed.backward(torch.tensor(upstream_p))
    got_q = None if q.grad is None else q.grad.tolist()
    got_p = None if p.grad is None else p.grad.tolist()
    want_q, want_p = [-1.0, -4.0, 2.0], [3.0, 120.0, 2700.0]
    expect(got_q is not None and _close(got_q, want_q) and got_p is not None and _close(got_p, want_p),
           _("FixedPower.apply(x, 3), then FixedPower.apply(w, 2), then backward through the second call first "
             "gives w.grad = {got_q} (expected {want_q}) and x.grad = {got_p} (expected {want_p}): backward read "
             "what another call stored, so the record it reads depends on the order of the calls")
           .format(got_q=got_q, want_q=want_q, got_p=got_p, want_p=want_p),
           _("backward must read the exponent and the input of ITS call, from the record of that call: ctx, not a "
             "list or queue kept outside it"))
    # Once the outputs and the checker's own references are gone, nothing keeps the input alive: a
    # list or dict outside ctx that holds each call's tensors would.
    alive = weakref.ref(p)
    del p, q, cubed, squared, ctx, kept, saved
    gc.collect()
    expect(alive() is None,
           _("after FixedPower.apply(x, 3) and its backward, with the output dropped, x is still alive: something "
             "outside ctx keeps a reference to it (a list or a dict in your module?), so what every call stores "
             "there grows with each call and is never freed"),
           _("keep each call's exponent and x on its own ctx: it goes away with the graph"))


def _holds_values(value: Any) -> bool:
    """Whether ``value`` (something stored on ctx) can hold the numbers of a tensor: a tensor, an
    array, or a container of more than one number or of such values."""
    if isinstance(value, (torch.Tensor, np.ndarray)):
        return True
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple, deque)):
        return len(value) > 1 or any(_holds_values(item) for item in value)
    return False


def _numbers_on(kept: dict) -> str:
    return ", ".join(f"ctx.{name}={value!r}" for name, value in kept.items())

