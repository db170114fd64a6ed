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

A warning that the learner's code raises while the check runs is part of the verdict, on stdout,
placed at the line of the learner's code that was running (a warning written to stderr would make
nbgrader fail a right answer); the checker's own warnings are dropped.

Language: the Chinese notebooks call ``set_language("zh")`` in their set-up cell; every printed
line is then looked up in ``messages_zh.MESSAGES``, keyed by the English text as written in the
checker's source (an f-string's ``{placeholders}`` included). A message without a translation is
printed in English. Convention for checkers: pass ``expect``/``NotYet``/``exercise`` a string
literal or an f-string (or a module constant holding one), so tests/course/test_translations.py can find
every message.

>>> set_language("zh")
>>> result = check_two(3)
✗ 动手练习 0：数字二 — 还不对。
  问题：you gave 3, expected 2
  提示：1 + 1
>>> set_language("en")
"""
from __future__ import annotations

import contextlib
import functools
import linecache
import os
import re
import sys
from typing import Callable

import numpy as np

from ._observe import learners_warnings

LANGUAGES = ("en", "zh")
_language = "en"


def _under_nbgrader() -> bool:
    """Whether nbgrader runs this notebook (its Validate button: it sets NBGRADER_EXECUTION for the
    kernel). Grades never come from here: nbgrader's autograde takes them from a fresh process
    that runs the checker itself (tools/sealed_grading.py), which no notebook code reaches."""
    return bool(os.environ.get("NBGRADER_EXECUTION"))


def set_language(language: str) -> None:
    """Print the checkers' verdicts in ``language``: ``"en"`` (the default) or ``"zh"`` (Chinese).

    >>> set_language("fr")
    Traceback (most recent call last):
    ...
    ValueError: language must be one of ('en', 'zh'), not 'fr'
    """
    global _language
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {LANGUAGES}, not {language!r}")
    _language = language


def get_language() -> str:
    """The language the checkers print in (``"en"`` or ``"zh"``)."""
    return _language


def template_parts(template: str) -> list[tuple[str, str]]:
    """Split a message template into ``("text", ...)`` and ``("field", expression)`` parts.

    A field is ``{...}`` with balanced braces (an f-string's expression, conversion and format
    included); ``{{`` and ``}}`` stand for single braces, as in an f-string.

    >>> template_parts("x.grad[{wrong}] is not {predicted[wrong]!r} {{ok}}")
    [('text', 'x.grad['), ('field', 'wrong'), ('text', '] is not '), ('field', 'predicted[wrong]!r'), ('text', ' {ok}')]
    """
    parts: list[tuple[str, str]] = []
    text, i = "", 0
    while i < len(template):
        char = template[i]
        if template.startswith("{{", i) or template.startswith("}}", i):
            text, i = text + char, i + 2
        elif char == "{":
            depth, j = 1, i + 1
            while j < len(template) and depth:
                depth += {"{": 1, "}": -1}.get(template[j], 0)
                j += 1
            if text:
                parts.append(("text", text))
            parts.append(("field", template[i + 1:j - 1]))
            text, i = "", j
        else:
            text, i = text + char, i + 1
    if text:
        parts.append(("text", text))
    return parts


class _Catalog:
    """English templates compiled to patterns, each with its translation (built on first use)."""

    def __init__(self, messages: dict[str, str]) -> None:
        self.exact: dict[str, str] = {}
        self.patterns: list[tuple[int, re.Pattern, list[str], str]] = []
        for english, translated in messages.items():
            parts = template_parts(english)
            fields = [value for kind, value in parts if kind == "field"]
            if not fields:
                self.exact["".join(value for _, value in parts)] = translated
                continue
            pattern = "".join("(.*?)" if kind == "field" else re.escape(value) for kind, value in parts)
            literal = sum(len(value) for kind, value in parts if kind == "text")
            if not literal:
                continue   # a bare "{error}" says nothing to translate
            self.patterns.append((literal, re.compile(pattern + r"\Z", re.DOTALL), fields, translated))
        self.patterns.sort(key=lambda entry: -entry[0])   # the most specific template wins

    def translate(self, message: str) -> str:
        if message in self.exact:
            return _fill(self.exact[message], {})
        for _, pattern, fields, translated in self.patterns:
            match = pattern.match(message)
            if match:
                values: dict[str, str] = {}
                for field, value in zip(fields, match.groups()):
                    values.setdefault(field, self.exact.get(value, value))   # e.g. a case's description
                return _fill(translated, values)
        return message


def _fill(translated: str, values: dict[str, str]) -> str:
    return "".join(values.get(value, "{" + value + "}") if kind == "field" else value
                   for kind, value in template_parts(translated))


_catalogs: dict[str, _Catalog] = {}


def translate(message: str, language: str | None = None) -> str:
    """``message`` in ``language`` (default: the current one); unchanged when no translation exists.

    >>> translate("you gave 3, expected 2", "zh")
    'you gave 3, expected 2'
    >>> translate("— correct.", "zh")
    '— 正确。'
    """
    language = language or _language
    if language == "en" or not message:
        return message
    if language not in _catalogs:
        from .messages_zh import MESSAGES
        _catalogs[language] = _Catalog(MESSAGES)
    return _catalogs[language].translate(message)


_ = translate   # the gettext convention: _("English text") is the text in the current language


def _label(english: str) -> str:
    """A label such as "Hint:" followed by a space; none after a full-width colon (提示：)."""
    label = translate(english)
    return label if label.endswith("：") else label + " "


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

    def for_nbgrader(self) -> None:
        """Tell nbgrader's Validate button the verdict: it marks a check cell failed when the cell
        writes to stderr, and shows what it wrote.

        While nbgrader runs the notebook (``NBGRADER_EXECUTION`` is set), a verdict other than
        correct is written to stderr, whole: what is wrong and the hint, no traceback. Anywhere
        else (a student's own run) nothing happens: the printed verdict is the feedback, and *Run
        All* goes on. The grade itself never comes from here (``_under_nbgrader``).

        >>> import contextlib, io, os
        >>> wrong = Result("Your turn 0", False, ["✗ Your turn 0 — not yet.", "  What is wrong: 3"])
        >>> wrong.for_nbgrader()                      # a student's run: nothing
        >>> os.environ["NBGRADER_EXECUTION"] = "validate"
        >>> with contextlib.redirect_stderr(io.StringIO()) as err:
        ...     Result("Your turn 0", True, ["✓ Your turn 0 — correct."]).for_nbgrader()
        ...     wrong.for_nbgrader()
        >>> print(err.getvalue(), end="")
        ✗ Your turn 0 — not yet.
          What is wrong: 3
        >>> del os.environ["NBGRADER_EXECUTION"]
        """
        if not self.ok and _under_nbgrader():
            print("\n".join(self.lines), file=sys.stderr)


def plain_number(value):
    """``value`` as a Python int or float when it is one number written any usual way (a float,
    an int, a numpy scalar, a 0-d numpy array, a one-element tensor); else ``value`` unchanged.
    A bool is not a number here, even though Python counts it as one.

    >>> import numpy as np, minigrad as torch
    >>> [plain_number(v) for v in (8.0, np.float32(8.0), np.array(8.0), torch.tensor(60), torch.tensor([2.5]))]
    [8.0, 8.0, 8.0, 60, 2.5]
    >>> plain_number(True), plain_number(np.array([1.0, 2.0])).tolist(), plain_number("8")
    (True, [1.0, 2.0], '8')
    """
    from minigrad.tensor import Tensor
    if isinstance(value, Tensor) and value.numel() == 1:
        return value.item()
    if isinstance(value, (np.generic, np.ndarray)) and value.ndim == 0:
        return value.item()   # a numpy scalar or a 0-d array
    return value


def expect(condition: bool, problem: str, hint: str = "") -> None:
    """Stop the check with ``problem`` (and ``hint``) unless ``condition`` holds."""
    if not condition:
        raise NotYet(problem, hint)


def _warning_lines(warned: list) -> list[str]:
    """The verdict's lines for the warnings of the learner's code: where, the line of code, the warning.

    >>> _warning_lines([("/tmp/ipykernel_7/123.py", 4, "UserWarning: careful")])
    ['  Warning from your code, line 4 of your cell:', '    UserWarning: careful']
    """
    lines = []
    for filename, lineno, warning in warned:
        name = os.path.basename(filename)
        if filename.startswith("<") or "ipykernel_" in filename:   # a notebook cell (or code from a string)
            where = _label(f"Warning from your code, line {lineno} of your cell:")
        else:
            where = _label(f"Warning from your code, line {lineno} of {name}:")
        code = linecache.getline(filename, lineno).strip()
        lines += [f"  {where}`{code}`" if code else f"  {where.rstrip()}", f"    {warning}"]
    return lines


def exercise(title: str) -> Callable:
    """Turn a function of ``expect`` calls into a checker that prints its verdict."""
    def decorate(check: Callable) -> Callable:
        @functools.wraps(check)
        def run(*args, **kwargs) -> Result:
            name = _(title)
            # Under nbgrader, what the learner's code writes to stderr (a warning, say) goes to
            # stdout: nbgrader fails a check cell with any stderr output, even a correct one.
            quiet = contextlib.redirect_stderr(sys.stdout) if _under_nbgrader() else contextlib.nullcontext()
            try:
                with quiet, learners_warnings(sys._getframe()) as warned:
                    check(*args, **kwargs)
            except NotYet as failure:
                lines = [f"✗ {name} {_('— not yet.')}", f"  {_label('What is wrong:')}{_(failure.problem)}"]
                if failure.hint:
                    lines.append(f"  {_label('Hint:')}{_(failure.hint)}")
                result = Result(title, False, lines)
            except NotImplementedError as error:
                result = Result(title, False, [f"✗ {name} {_('— not written yet.')}",
                                               f"  {_label('Your code raised NotImplementedError:')}{error}",
                                               "  " + _("Replace the stub with your answer and run this check again.")])
            except Exception as error:  # the learner's code failed: say how, without a traceback
                result = Result(title, False, [f"✗ {name} {_('— your code raised an error.')}",
                                               f"  {type(error).__name__}: {error}"])
            else:
                result = Result(title, True, [f"✓ {name} {_('— correct.')}"])
            result.lines += _warning_lines(warned)
            print(result)
            return result
        run.title = title
        return run
    return decorate
