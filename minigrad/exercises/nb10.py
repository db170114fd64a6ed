"""Checkers for ``10_three_designs_of_ctx.ipynb``.

The notebook builds three tiny engines. Design A (DeZero, early tinygrad) keeps a call's state
on the Function instance: ``y = Mul()(x, w)`` sets ``y.creator`` to that instance, which keeps
``inputs`` and ``outputs``. Its variables have ``.data``, ``.grad``, ``.creator`` and
``.backward()``. The checkers run the learner's code on such variables; they never import the
notebook, so the variable class is passed in.

>>> from minigrad.exercises import nb10
>>> result = nb10.your_turn_2("?")
✗ Your turn 2: which design is it? — not yet.
  What is wrong: you answered '?'; answer with one letter: 'A', 'B' or 'C'
  Hint: ask the output what its ctx is: type(out._ctx), and compare it with the Function class TinyMul.
"""
from __future__ import annotations

import inspect
from typing import Any

from ._feedback import exercise, expect


def _close(value: Any, expected: float) -> bool:
    """``value`` is a number (or one-element array) equal to ``expected``."""
    try:
        return abs(float(value) - expected) < 1e-9
    except (TypeError, ValueError):
        return False


def _describe(value: Any) -> str:
    if value is None:
        return "None"
    return f"a {type(value).__name__}"


@exercise("Your turn 1: make design A re-entrant")
def your_turn_1(function_class: type, variable_class: type) -> None:
    """Check ``function_class.apply(x, w)``: a classmethod making a fresh Function instance per call.

    It multiplies like the notebook's ``MulA``; it is applied twice before any backward, in a
    chain (``out = apply(apply(x, w), w)``, so w is used twice) and on unrelated inputs.
    """
    expect(isinstance(inspect.getattr_static(function_class, "apply", None), classmethod),
           f"{function_class.__name__}.apply is not a classmethod",
           "put @classmethod above `def apply(cls, x, w):`, so that it is called on the class "
           "and receives the class as cls.")
    x, w = variable_class(2.0), variable_class(3.0)
    h = function_class.apply(x, w)
    expect(isinstance(h, variable_class),
           f"apply(x, w) returned {_describe(h)}, not a {variable_class.__name__}",
           "return what the fresh instance returns when you call it: `return cls()(x, w)`.")
    expect(_close(h.data, 6.0), f"apply(x, w) computed {h.data!r} for x=2, w=3; expected 6.0",
           "call the instance: its __call__ runs forward (x * w) and links the output to it.")
    out = function_class.apply(h, w)
    expect(isinstance(out, variable_class), f"the second apply returned {_describe(out)}",
           "return what the fresh instance returns when you call it.")
    expect(h.creator is not None and out.creator is not None,
           "an output's creator is None: it is not linked to a Function instance, so backward "
           "has nothing to run",
           "call an instance of the Function: its __call__ runs forward and sets output.creator.")
    expect(h.creator is not out.creator,
           "both outputs point at the same Function instance: the second call overwrote the "
           "inputs the first call stored on it, so backward can only see the last call",
           "create the instance inside apply, so that every call makes its own (cls() makes one).")
    out.backward()
    expect(x.grad is not None,
           "after out.backward(), x.grad is None: backward never reached the first call",
           "each call needs its own instance; out.creator.inputs[0].creator must be the first one.")
    expect(_close(x.grad, 9.0), f"x.grad is {x.grad!r}; expected 9.0 (d(x*w*w)/dx = w*w)",
           "the first call's instance must still hold the first call's inputs (x, w), and MulA's "
           "backward returns (gy * w, gy * x).")
    expect(_close(w.grad, 12.0),
           f"w.grad is {w.grad!r}; expected 12.0 (d(x*w*w)/dw = 2*x*w: both uses of w count)",
           "each call's instance must keep its own inputs, so both uses of w send a gradient.")

    a, b, c, d = (variable_class(v) for v in (4.0, 5.0, 6.0, 7.0))
    first, second = function_class.apply(a, b), function_class.apply(c, d)
    first.backward()
    expect(_close(a.grad, 5.0) and _close(b.grad, 4.0) and c.grad is None and d.grad is None,
           "apply(a, b), then apply(c, d), then backward of the first output: the gradients went "
           f"to the wrong inputs (a.grad={a.grad!r}, b.grad={b.grad!r}, c.grad={c.grad!r}, "
           f"d.grad={d.grad!r}; expected 5.0, 4.0, None, None)",
           "the second call must not touch the first call's instance.")
    second.backward()
    expect(_close(c.grad, 7.0) and _close(d.grad, 6.0),
           f"backward of the second output gave c.grad={c.grad!r}, d.grad={d.grad!r}; expected 7.0, 6.0",
           "each call's instance must keep its own inputs.")


_NOT_A_LETTER_HINT = ("ask the output what its ctx is: type(out._ctx), and compare it with the "
                      "Function class TinyMul.")

_WHY_NOT = {
    "B": ("there is no separate record class here: the object stored on out._ctx is made by "
          "cls(*tensors), so it is an instance of the Function class itself (type(out._ctx) is "
          "TinyMul). Design B keeps ctx in one Context record type shared by every Function, "
          "next to last_fn and inputs in a History",
          "a TinyFunction instance keeps the parents and the saved values: which class is that object?"),
    "C": ("it looks like PyTorch (static methods, a ctx argument, save_for_backward, a fresh ctx "
          "per call, ctx stored on the output), but ctx is made by cls(*tensors): an instance of "
          "the Function class itself (isinstance(out._ctx, TinyMul) is True). In design C, ctx "
          "belongs to a separate node class generated per Function (MulConstantBackward), and "
          "isinstance(y.grad_fn, MulConstant) is False",
          "a fresh instance per call is exactly your fix from Your turn 1: it makes design A "
          "re-entrant without changing what ctx is."),
}


@exercise("Your turn 2: which design is it?")
def your_turn_2(answer: str) -> None:
    """Check the design letter given for the notebook's mystery engine (it is design A)."""
    letter = str(answer).strip().upper().removeprefix("DESIGN").removeprefix("设计").strip(" .!。'\"")
    expect(letter in ("A", "B", "C"),
           f"you answered {answer!r}; answer with one letter: 'A', 'B' or 'C'", _NOT_A_LETTER_HINT)
    if letter in _WHY_NOT:
        problem, hint = _WHY_NOT[letter]
        expect(False, f"not {letter}: {problem}", hint)
