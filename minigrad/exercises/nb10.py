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
import math
import re
import unicodedata
from typing import Any

from ._feedback import _, N_, exercise, expect


_CHAIN = 100   # calls in one chain before any backward: more than any pool of instances would hold


def _close(value: Any, expected: float) -> bool:
    """``value`` is a number (or one-element array) equal to ``expected`` (up to rounding)."""
    try:
        return math.isclose(float(value), expected, rel_tol=1e-9, abs_tol=1e-9)
    except (TypeError, ValueError):
        return False


def _returned(what: str, value: Any, variable_class: type) -> None:
    """``value``, returned by ``what``, is one of the learner's variables."""
    expect(value is not None, _("{what} returned None, not a {variable_class_name}")
                              .format(what=what, variable_class_name=variable_class.__name__),
           _("apply must end with a return statement that hands the output variable back to the caller."))
    a_function = callable(getattr(value, "forward", None)) and callable(getattr(value, "backward", None))
    expect(isinstance(value, variable_class) or not a_function,
           _("{what} returned an object of type {value_type}, the Function instance itself, not the output "
             "{variable_class_name}")
           .format(what=what, value_type=type(value).__name__, variable_class_name=variable_class.__name__),
           _("an instance is not the output: the output is what the instance returns when it is called on the "
             "inputs (its __call__ runs forward and links the output to it)."))
    expect(isinstance(value, variable_class),
           _("{what} returned an object of type {value_type}, not a {variable_class_name}")
           .format(what=what, value_type=type(value).__name__, variable_class_name=variable_class.__name__),
           _("apply must return the output variable that the new instance produces for (x, w)."))


@exercise("Your turn 1: make design A re-entrant",
          deeper_hint=N_("Make apply a classmethod whose first line creates cls() for this call; run that instance "
                         "on (x, w) and return what it returns. Never keep the instance on the class."))
def your_turn_1(function_class: type, variable_class: type) -> None:
    """Check ``function_class.apply(x, w)``: a classmethod making a fresh Function instance per call.

    It multiplies like the notebook's ``MulA``; it is applied twice before any backward, in a
    chain (``out = apply(apply(x, w), w)``, so w is used twice) and on unrelated inputs.
    """
    expect(isinstance(function_class, type) and isinstance(variable_class, type),
           _("check.your_turn_1 received {function_class_type} and {variable_class_type}: it needs two classes, "
             "your Function and the variable class")
           .format(function_class_type=type(function_class).__name__, variable_class_type=type(variable_class).__name__),
           _("pass the classes themselves, your Function first: check.your_turn_1(ReentrantMul, VarA)"))
    expect(isinstance(inspect.getattr_static(function_class, "apply", None), classmethod),
           _("{function_class_name}.apply is not a classmethod").format(function_class_name=function_class.__name__),
           _("put @classmethod above `def apply(cls, x, w):`, so that it is called on the class and receives the "
             "class as cls."))
    x, w = variable_class(2.0), variable_class(3.0)
    h = function_class.apply(x, w)
    _returned("apply(x, w)", h, variable_class)
    expect(_close(h.data, 6.0), _("apply(x, w) computed {h!r} for x=2, w=3; expected 6.0").format(h=h.data),
           _("call the instance: its __call__ runs forward (x * w) and links the output to it."))
    out = function_class.apply(h, w)
    _returned(N_("the second apply"), out, variable_class)
    expect(h.creator is not None and out.creator is not None,
           _("an output's creator is None: it is not linked to a Function instance, so backward has nothing to run"),
           _("call an instance of the Function: its __call__ runs forward and sets output.creator."))
    expect(h.creator is not out.creator,
           _("both outputs point at the same Function instance: the second call overwrote the inputs the first call "
             "stored on it, so backward can only see the last call"),
           _("create the instance inside apply, so that every call makes its own (cls() makes one)."))
    out.backward()
    expect(x.grad is not None,
           _("after out.backward(), x.grad is None: backward never reached the first call"),
           _("each call needs its own instance; out.creator.inputs[0].creator must be the first one."))
    expect(_close(x.grad, 9.0), _("x.grad is {x_grad!r}; expected 9.0 (d(x*w*w)/dx = w*w)").format(x_grad=x.grad),
           _("the first call's instance must still hold the first call's inputs (x, w), and MulA's backward returns "
             "(gy * w, gy * x)."))
    expect(_close(w.grad, 12.0),
           _("w.grad is {w_grad!r}; expected 12.0 (d(x*w*w)/dw = 2*x*w: both uses of w count)").format(w_grad=w.grad),
           _("each call's instance must keep its own inputs, so both uses of w send a gradient."))

    a, b, c, d = (variable_class(v) for v in (4.0, 5.0, 6.0, 7.0))
    first, second = function_class.apply(a, b), function_class.apply(c, d)
    first.backward()
    expect(_close(a.grad, 5.0) and _close(b.grad, 4.0) and c.grad is None and d.grad is None,
           _("apply(a, b), then apply(c, d), then backward of the first output: the gradients went to the wrong "
             "inputs (a.grad={a_grad!r}, b.grad={b_grad!r}, c.grad={c_grad!r}, d.grad={d_grad!r}; expected 5.0, "
             "4.0, None, None)").format(a_grad=a.grad, b_grad=b.grad, c_grad=c.grad, d_grad=d.grad),
           _("the second call must not touch the first call's instance."))
    second.backward()
    expect(_close(c.grad, 7.0) and _close(d.grad, 6.0),
           _("backward of the second output gave c.grad={c_grad!r}, d.grad={d_grad!r}; expected 7.0, 6.0")
           .format(c_grad=c.grad, d_grad=d.grad),
           _("each call's instance must keep its own inputs."))

    # Five calls before any backward, inputs used again: a pool of instances taken in turn, or
    # instances cached by an input or by the pair of inputs, share one instance somewhere here.
    x, w, v = (variable_class(value) for value in (2.0, 3.0, 5.0))
    inner = function_class.apply(x, w)
    middle = function_class.apply(inner, w)
    chain = function_class.apply(middle, w)
    other, again = function_class.apply(x, v), function_class.apply(x, w)
    creators = {id(getattr(output, "creator", None)) for output in (inner, middle, chain, other, again)}
    expect(len(creators) == 5,
           _("apply(apply(apply(x, w), w), w), then apply(x, v) and apply(x, w): two of these five calls share one "
             "Function instance (kept in a pool, or found again by its inputs), so one call overwrote the inputs of "
             "another"),
           _("make a new instance inside apply on every call, and keep no instance between calls."))
    chain.backward()
    expect(_close(x.grad, 27.0) and _close(w.grad, 54.0),
           _("for out = apply(apply(apply(x, w), w), w), then apply(x, v) and apply(x, w), out.backward() gives "
             "x.grad={x_grad!r}, w.grad={w_grad!r}; expected 27.0 (w*w*w) and 54.0 (3*x*w*w)")
           .format(x_grad=x.grad, w_grad=w.grad),
           _("each call's instance must keep its own inputs."))

    # A long chain: a pool of instances taken in turn, however large, is used again somewhere here.
    x, w = variable_class(2.0), variable_class(1.01)
    outputs = [x]
    for step in range(_CHAIN):
        outputs.append(function_class.apply(outputs[-1], w))
    creators = {id(getattr(output, "creator", None)) for output in outputs[1:]}
    expect(len(creators) == _CHAIN,
           _("in a chain of {_CHAIN} calls, apply(apply(... apply(x, w) ..., w), w), {CHAIN_len_creators} calls got "
             "a Function instance that an earlier call of the chain already had (kept in a pool?), so they "
             "overwrote the inputs of the earlier ones")
           .format(_CHAIN=_CHAIN, CHAIN_len_creators=_CHAIN - len(creators)),
           _("make a new instance inside apply on every call, and keep no instance between calls."))
    outputs[-1].backward()
    expect(_close(x.grad, 1.01 ** _CHAIN) and _close(w.grad, _CHAIN * 2.0 * 1.01 ** (_CHAIN - 1)),
           _("in a chain of {_CHAIN} calls, out.backward() gives x.grad={x_grad!r} and w.grad={w_grad!r}; expected "
             "{CHAIN!r} and {CHAIN2!r}")
           .format(_CHAIN=_CHAIN, x_grad=x.grad, w_grad=w.grad, CHAIN=1.01 ** _CHAIN, CHAIN2=_CHAIN * 2.0 * 1.01 ** (_CHAIN - 1)),
           _("each call's instance must keep its own inputs."))


_NOT_A_LETTER_HINT = (N_("ask the output what its ctx is: type(out._ctx), and compare it with the Function class "
                         "TinyMul."))

# Why a wrong letter is wrong, said by what that design would look like: never what the mystery
# engine's ctx is, which is the answer.
_WHY_NOT = {
    "B": (N_("in design B every Function shares one record class (a Context), kept next to last_fn and the inputs "
             "in a History, and the Function itself holds no state of a call"),
          N_("print type(out._ctx): is it such a shared record class?")),
    "C": (N_("static methods, a ctx argument, save_for_backward and a fresh ctx per call look like PyTorch, but "
             "what makes design C is the class of ctx: a separate node class generated for each Function "
             "(MulConstantBackward for MulConstant), so that isinstance(y.grad_fn, MulConstant) is False"),
          N_("print type(out._ctx) and isinstance(out._ctx, TinyMul): which design gives those answers?")),
}


_STANDALONE = re.compile(r"(?<![A-Za-z0-9_])([ABCabc])(?![A-Za-z0-9_])")
_CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def _letter(answer: Any) -> str | None:
    """The design letter an answer names, read as a word, not as the article "a": "A", "design a",
    "'A'", "A (the Function instance)", "it is design A", "答案是 A", "A, not B" give A; "a record
    class ...", "A or B", "AB", "not A" name none (None).

    >>> [_letter(a) for a in ("A", "b", "it is design A", "答案是a", "C, not A", "a guess", "a or c", "not A")]
    ['A', 'B', 'A', 'A', 'C', None, None, None]
    """
    text = unicodedata.normalize("NFKC", str(answer)).strip().strip("'\"“”‘’「」 ")
    chinese = bool(_CJK.search(text))
    named, maybe = set(), set()
    for match in _STANDALONE.finditer(text):
        letter, before, after = match.group(1), text[:match.start()], text[match.end():]
        if re.search(r"(\bnot|n't|不是|不|非)\s*(design\s*|设计\s*)?\Z", before, re.IGNORECASE):
            continue   # "not B": a letter it is not
        if re.search(r"(design|option|设计|答案是|答案|是|选)\s*\Z", before, re.IGNORECASE) or text == letter:
            named.add(letter.upper())
        elif letter in "aA" and re.match(r"\s+[A-Za-z]", after) and not chinese:
            maybe.add("A")            # "a guess", "A or B": the article, or the letter?
        else:
            named.add(letter.upper())
    if len(named) != 1 or maybe - named:
        return None
    return named.pop()


@exercise("Your turn 2: which design is it?",
          deeper_hint=N_("Compare what each design makes for each call: an instance of the Function class itself, "
                         "an instance of one record class shared by every Function, or an instance of a node class "
                         "generated for the Function. Then print type(out._ctx) and type(out._ctx).__mro__ and see "
                         "which one it is."))
def your_turn_2(answer: str) -> None:
    """Check the design letter given for the notebook's mystery engine (it is design A)."""
    letter = _letter(answer)
    expect(letter is not None,
           _("you answered {answer!r}; answer with one letter: 'A', 'B' or 'C'")
           .format(answer=answer), _NOT_A_LETTER_HINT)
    if letter in _WHY_NOT:
        problem, hint = _WHY_NOT[letter]
        expect(False, _("not {letter}: {problem}").format(letter=letter, problem=problem), hint)
