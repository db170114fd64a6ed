"""Checkers for ``00_start_here.ipynb``.

>>> from minigrad.exercises import nb00
>>> result = nb00.your_turn_1([0.0, 0.0, 0.0])             # doctest: +ELLIPSIS
✗ Your turn 1: predict x.grad — not yet.
  What is wrong: [0.0, 0.0, 0.0] is not the gradient that backward puts in x.grad
  Hint: ...
>>> bool(result), bool(nb00.your_turn_1([2.0, 4.0, 6.0]))
✓ Your turn 1: predict x.grad — correct.
(False, True)
"""
from __future__ import annotations

from typing import Any

import numpy as np

import minigrad as torch

from ._feedback import _, N_, exercise, expect

X_VALUES = [1.0, 2.0, 3.0]


def _numbers(prediction: Any) -> list[float] | None:
    """The prediction as a list of floats, or None if it is not a sequence of real numbers (a
    string such as "2" or a bool is not a number, even though float() would convert it)."""
    if isinstance(prediction, (torch.Tensor, np.ndarray)):
        prediction = prediction.tolist()
    if not isinstance(prediction, (list, tuple)):
        return None
    if not all(isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
               for value in prediction):
        return None
    return [float(value) for value in prediction]


def _close(a: list[float], b: list[float]) -> bool:
    return len(a) == len(b) and all(abs(p - q) <= 1e-6 * (1 + abs(q)) for p, q in zip(a, b))


def _gradient_of_square_sum() -> list[float]:
    """What backward really computes for ``y = (x * x).sum()``: ask minigrad, not a formula."""
    x = torch.tensor(X_VALUES, requires_grad=True)
    (x * x).sum().backward()
    return x.grad.tolist()


@exercise("Your turn 1: predict x.grad",
          deeper_hint=N_("Here both factors of the product are x, so the two arrows out of MulBackward0 carry the "
                         "same tensor. Write out what one arrow carries for x = [1, 2, 3], then add what arrives at "
                         "AccumulateGrad(x)."))
def your_turn_1(prediction: Any) -> None:
    """Check a prediction of ``x.grad`` after ``(x * x).sum().backward()`` with ``x = [1., 2., 3.]``.

    ``prediction`` is a list (or tuple, tensor or numpy array) of three numbers.
    """
    expect(prediction is not Ellipsis,
           _("you have not written a prediction yet"),
           _("replace ... with a list of three numbers, such as [0.0, 0.0, 0.0]"))
    expect(prediction is not None,
           _("you gave None, not a list of numbers: x.grad is None until a backward pass has filled it, so passing "
             "x.grad before y.backward() ran gives None"),
           _("write your own prediction as a list of three numbers, such as [0.0, 0.0, 0.0], before running backward"))
    expect(not isinstance(prediction, str),
           _("you gave a string, {prediction!r}, not a list of numbers").format(prediction=prediction),
           _("write the list itself, without quotes around it or around the numbers: [0.0, 0.0, 0.0]"))
    predicted = _numbers(prediction)
    expect(not (isinstance(prediction, (list, tuple)) and any(isinstance(v, str) for v in prediction)),
           _("{prediction!r} holds strings, not numbers").format(prediction=prediction),
           _("write the numbers without quotes: [0.0, 0.0, 0.0]"))
    expect(predicted is not None,
           _("{prediction!r} is not a list of numbers").format(prediction=prediction),
           _("write a list of three numbers, such as [0.0, 0.0, 0.0]"))
    expect(len(predicted) == 3,
           _("you gave {n_predicted} numbers; x has 3 elements, so x.grad has 3 numbers too")
           .format(n_predicted=len(predicted)),
           _("x.grad always has the shape of x"))
    actual = _gradient_of_square_sum()
    if _close(predicted, actual):
        return
    expect(not _close(predicted, X_VALUES),
           _("[1.0, 2.0, 3.0] is what ONE arrow out of MulBackward0 carries (the other factor, x); the picture "
             "shows two arrows into AccumulateGrad(x)"),
           _("AccumulateGrad adds up every gradient that arrives at the leaf"))
    expect(not _close(predicted, [3.0, 3.0, 3.0]),
           _("[3.0, 3.0, 3.0] was x.grad for y = (x * 3).sum(); here x is multiplied by itself"),
           _("each arrow out of MulBackward0 carries the incoming gradient times the OTHER factor"))
    expect(not _close(predicted, [v * v for v in X_VALUES]),
           _("[1.0, 4.0, 9.0] are the terms x * x that y adds up (forward values), not gradients"),
           _("the gradient says how fast y changes when one x[i] moves a little"))
    expect(False,   # which numbers are right is not said: that would give the others away
           _("{predicted} is not the gradient that backward puts in x.grad").format(predicted=predicted),
           _("MulBackward0 sends 'incoming gradient times the other factor' along each of its two arrows, and "
             "AccumulateGrad(x) adds up what arrives"))
