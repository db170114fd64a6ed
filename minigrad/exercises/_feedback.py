"""Feedback for the "Your turn" exercises: every checker prints a verdict and never raises.

A checker is a function decorated with ``@exercise("Your turn 1: ...")``. Inside, it calls
``expect(condition, what_is_wrong, hint)`` for each property it tests; the first failed
expectation is reported. An exception raised by the learner's code is reported too, with its
type and message, instead of a traceback.

>>> from minigrad.exercises._feedback import exercise, expect
>>> @exercise("Your turn 0: the number two")
... def check_two(value):
...     expect(value == 2, f"you gave {value!r}, expected 2", "1 + 1")
>>> result = check_two(3)
✗ Your turn 0: the number two — not yet.
  What is wrong: you gave 3, expected 2
  Hint: 1 + 1
>>> bool(result), bool(check_two(2))
✓ Your turn 0: the number two — correct.
(False, True)

The verdict is printed once; the returned Result (for tests) does not display itself again in a
notebook.
"""
from __future__ import annotations

import functools
from typing import Callable


class NotYet(Exception):
    """A failed expectation: what is wrong, and a hint."""

    def __init__(self, problem: str, hint: str = "") -> None:
        super().__init__(problem)
        self.problem, self.hint = problem, hint


class Result:
    """The verdict of a checker: ``bool(result)`` is True when the answer is correct."""

    def __init__(self, title: str, ok: bool, lines: list[str]) -> None:
        self.title, self.ok, self.lines = title, ok, lines

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        return "\n".join(self.lines)

    def _ipython_display_(self) -> None:
        """Already printed by the checker: show nothing more in a notebook."""


def expect(condition: bool, problem: str, hint: str = "") -> None:
    """Stop the check with ``problem`` (and ``hint``) unless ``condition`` holds."""
    if not condition:
        raise NotYet(problem, hint)


def exercise(title: str) -> Callable:
    """Turn a function of ``expect`` calls into a checker that prints its verdict."""
    def decorate(check: Callable) -> Callable:
        @functools.wraps(check)
        def run(*args, **kwargs) -> Result:
            try:
                check(*args, **kwargs)
            except NotYet as failure:
                lines = [f"✗ {title} — not yet.", f"  What is wrong: {failure.problem}"]
                if failure.hint:
                    lines.append(f"  Hint: {failure.hint}")
                result = Result(title, False, lines)
            except NotImplementedError as error:
                result = Result(title, False, [f"✗ {title} — not written yet.",
                                               f"  Your code raised NotImplementedError: {error}",
                                               "  Replace the stub with your answer and run this check again."])
            except Exception as error:  # the learner's code failed: say how, without a traceback
                result = Result(title, False, [f"✗ {title} — your code raised an error.",
                                               f"  {type(error).__name__}: {error}"])
            else:
                result = Result(title, True, [f"✓ {title} — correct."])
            print(result)
            return result
        run.title = title
        return run
    return decorate
