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

from typing import Any, Callable

import minigrad as torch
from minigrad.autograd import Function

from ._feedback import NotYet, exercise, expect

SAME_CTX_HINT = "create ONE ctx object, give it to forward, then give the same object to backward"


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
            raise NotYet("backward received a ctx without the attribute x that forward stored on its ctx",
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
            raise NotYet("backward received a ctx without the attribute x that forward stored on its ctx",
                         SAME_CTX_HINT)
        return ctx.x.cos() * grad_output


def _refuse_apply(cls, *args, **kwargs):
    raise NotYet("your code called .apply, which lets the engine do the work",
                 "call function.forward(ctx, x) and function.backward(ctx, grad_output) yourself")


# The classes the learner's code receives: the same maths, but .apply is refused.
ByHandCube = type("Cube", (Cube,), {"apply": classmethod(_refuse_apply)})
ByHandSine = type("Sine", (Sine,), {"apply": classmethod(_refuse_apply)})


def _engine_gradient(function: type, values: list[float], grad_output: list[float]) -> list[float]:
    """The input gradient the engine computes: ``function.apply`` and ``backward(grad_output)``."""
    x = torch.tensor(values, requires_grad=True)
    function.apply(x).backward(torch.tensor(grad_output))
    return x.grad.tolist()


@exercise("Your turn 1: autograd by hand")
def your_turn_1(gradient_by_hand: Callable) -> None:
    """Check ``gradient_by_hand(function, x, grad_output)``: forward and backward called by hand.

    It must return the gradient of ``x`` that ``function.backward`` computes, the same numbers as
    ``function.apply(x)`` followed by ``.backward(grad_output)``.
    """
    values, upstream = [0.5, -1.0, 2.0], [1.0, 0.5, -2.0]
    result = gradient_by_hand(ByHandCube, torch.tensor(values), torch.tensor(upstream))
    expect(result is not None,
           "gradient_by_hand returned None",
           "return what function.backward(ctx, grad_output) returns")
    expect(not isinstance(result, tuple),
           "you returned a tuple; backward of a one-input Function returns one tensor: return it as it is",
           "return function.backward(ctx, grad_output)")
    expect(isinstance(result, torch.Tensor), f"gradient_by_hand returned a {type(result).__name__}, not a tensor",
           "return function.backward(ctx, grad_output)")
    got = result.tolist()
    expected = _engine_gradient(Cube, values, upstream)
    if not _close(got, expected):
        expect(not _close(got, [v ** 3 for v in values]),
               "you returned forward's output (x ** 3), not the gradient that backward computes",
               "call function.backward(ctx, grad_output) after forward and return its result")
        expect(not _close(got, _engine_gradient(Cube, values, [1.0, 1.0, 1.0])),
               "your gradient ignores grad_output (it is the gradient for grad_output = ones)",
               "pass the grad_output argument to backward")
        expect(False, f"for Cube, x = {values}, grad_output = {upstream} you returned {got}; "
               f"Cube.apply(x).backward(grad_output) gives {expected}",
               "forward(ctx, x) first, then backward(ctx, grad_output) with the same ctx")
    sine = gradient_by_hand(ByHandSine, torch.tensor(values), torch.tensor(upstream))
    expect(isinstance(sine, torch.Tensor) and _close(sine.tolist(), _engine_gradient(Sine, values, upstream)),
           "correct for Cube but not for another Function (Sine): your code does not use its "
           "function argument",
           "call function.forward and function.backward, not Cube.forward")


def _written_on_class(cls: type, before: dict) -> list[str]:
    """Names of class attributes that were added or replaced since ``before`` was taken."""
    return sorted(name for name, value in vars(cls).items()
                  if not name.startswith("__") and (name not in before or before[name] is not value))


@exercise("Your turn 2: a Power that keeps its record on ctx")
def your_turn_2(power: Any) -> None:
    """Check a Function ``power`` with ``power.apply(x, exponent) == x ** exponent`` that survives two
    calls before backward."""
    expect(isinstance(power, type) and issubclass(power, Function),
           f"{power!r} is not a Function class",
           "class FixedPower(torch.autograd.Function): with static forward and backward")
    before = dict(vars(power))
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    squared = power.apply(x, 2)
    cubed = power.apply(w, 3)
    written = _written_on_class(power, before)
    expect(not written,
           f"forward still writes {', '.join(power.__name__ + '.' + n for n in written)} on the class: "
           "one slot shared by every call, so the second call overwrites the first call's values",
           "store them on ctx, the record of this one call: ctx.exponent = exponent")
    expect(isinstance(squared, torch.Tensor) and _close(squared.tolist(), [1.0, 4.0, 9.0]),
           "FixedPower.apply(x, 2) is not x ** 2", "return x ** exponent from forward")
    expect(isinstance(cubed, torch.Tensor) and _close(cubed.tolist(), [0.125, -1.0, 8.0]),
           "FixedPower.apply(w, 3) is not w ** 3", "return x ** exponent from forward")
    upstream_x, upstream_w = [1.0, 10.0, 100.0], [1.0, -2.0, 0.5]   # not all ones: grad_output matters
    try:
        squared.backward(torch.tensor(upstream_x))
        cubed.backward(torch.tensor(upstream_w))
    except RuntimeError as error:
        expect("incorrect number of gradients" not in str(error), str(error),
               "backward returns one gradient per forward input: (gradient for x, None) "
               "- None for the exponent, which is not a tensor")
        raise
    got_x = None if x.grad is None else x.grad.tolist()
    expect(got_x is None or not _close(got_x, [2.0, 4.0, 6.0]),
           f"with an incoming gradient {upstream_x}, x.grad is {got_x}: the gradient for an incoming "
           "gradient of ones, so backward ignores grad_output",
           "multiply by grad_output (the chain rule): grad_output * n * x ** (n - 1)")
    expect(got_x is not None and _close(got_x, [2.0, 40.0, 600.0]),
           f"after two calls, backward through the first with an incoming gradient {upstream_x} gives "
           f"x.grad = {got_x}; expected 2 * x * grad = [2.0, 40.0, 600.0]",
           "backward must read the exponent and the input of ITS call from ctx")
    expect(w.grad is not None and _close(w.grad.tolist(), [0.75, -6.0, 6.0]),
           f"backward through the second call with an incoming gradient {upstream_w} gives w.grad = "
           f"{None if w.grad is None else w.grad.tolist()}; expected 3 * w ** 2 * grad = [0.75, -6.0, 6.0]",
           "gradient of x ** n is n * x ** (n - 1) times grad_output")
