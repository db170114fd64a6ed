"""Feedback for the "Your turn" exercises: every checker prints a verdict and never raises.

A checker is a function decorated with ``@exercise("Your turn 1: ...")``. Inside, it calls
``expect(condition, what_is_wrong, hint)`` for each property it tests; the first failed
expectation is reported. An exception raised by the learner's code is reported too, with its
type and message, instead of a traceback.

>>> from minigrad.exercises._feedback import _, exercise, expect
>>> @exercise("Your turn 0: the number two")
... def check_two(value):
...     expect(value == 2, _("you gave {value!r}, expected 2").format(value=value), "1 + 1")
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

Language: the Chinese notebooks call ``set_language("zh")`` in their set-up cell; every message
is then looked up in the language's gettext catalog, ``locale/zh/LC_MESSAGES/checkers.po``. A
checker writes each message as one constant in English: ``_("...")``, with named placeholders
filled by ``.format`` (``_("x.grad is {got}").format(got=got)``), or ``N_("...")`` where the text
is kept for later; ``python -m tools.checker_messages`` extracts them (Babel) into the catalogs,
and tests/course/test_translations.py fails on a message without a translation. A message
without a translation is printed in English.

>>> set_language("zh")
>>> result = check_two(3)
✗ Your turn 0: the number two — 还不对。
  问题：you gave 3, expected 2
  提示：1 + 1
>>> set_language("en")
"""
from __future__ import annotations

import contextlib
import functools
import gc
import gettext
import io
import linecache
import os
import sys
import weakref
from pathlib import Path
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


CATALOGS = Path(__file__).with_name("locale")
"""The translations, one gettext catalog per language: ``locale/<language>/LC_MESSAGES/checkers.po``."""


def catalog_path(language: str) -> Path:
    return CATALOGS / language / "LC_MESSAGES" / "checkers.po"


_catalogs: dict[str, gettext.NullTranslations] = {}


def _translations(language: str) -> gettext.NullTranslations:
    """The language's catalog, read from its ``.po`` file on first use: Babel parses it and writes
    the compiled ``.mo`` in memory, and Python's gettext looks messages up in it. No compiled file
    is kept in the repository or built at install: the ``.po`` a translator edits is what runs."""
    if language not in _catalogs:
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po
        with open(catalog_path(language), "rb") as po:
            catalog = read_po(po, locale=language)
        compiled = io.BytesIO()
        write_mo(compiled, catalog)
        compiled.seek(0)
        _catalogs[language] = gettext.GNUTranslations(compiled)
    return _catalogs[language]


def translate(message: str, language: str | None = None) -> str:
    """``message`` in ``language`` (default: the current one); unchanged when the catalog has no
    translation for it.

    >>> translate("you gave 3, expected 2", "zh")
    'you gave 3, expected 2'
    >>> translate("— correct.", "zh")
    '— 正确。'
    """
    language = language or _language
    if language == "en" or not message:
        return message
    return _translations(language).gettext(message)


class Message(str):
    """A message in the current language, from :func:`_`. Its ``format`` translates each value that
    is itself a message of the catalog (a case's description, say), so that one template and its
    values read in one language.

    >>> set_language("zh")
    >>> _("Warning from your code, line {lineno} of {name}:").format(lineno=3, name="test.py")
    '你的代码在 test.py 第 3 行发出警告：'
    >>> set_language("en")
    """

    __slots__ = ()

    def format(self, *args, **values) -> str:
        return str.format(self, *args, **{name: translate(value) if isinstance(value, str) else value
                                          for name, value in values.items()})


def _(message: str) -> Message:
    """The gettext convention: ``_("English text")`` is the text in the current language. A message
    with values is one constant, its placeholders named: ``_("x is {x}").format(x=x)``."""
    return Message(translate(message))


def N_(message: str) -> str:
    """Mark ``message`` for the catalog without translating it yet (gettext's ``N_``): for texts
    kept in constants and translated where they are printed."""
    return message


def _label(label: str) -> str:
    """A label such as "Hint:" followed by a space; none after a full-width colon (提示：)."""
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
            where = _label(_("Warning from your code, line {lineno} of your cell:").format(lineno=lineno))
        else:
            where = _label(_("Warning from your code, line {lineno} of {name}:").format(lineno=lineno, name=name))
        code = linecache.getline(filename, lineno).strip()
        lines += [f"  {where}`{code}`" if code else f"  {where.rstrip()}", f"    {warning}"]
    return lines


GRAD_MODE_LEFT_OFF = (N_("after your code ran, grad mode is off, and it was on before the check: your code turned it "
                         "off (torch.set_grad_enabled(False)?) and never turned it back on, so from then on no "
                         "operation anywhere records a graph. The check turned it back on"),
                      N_("put the lines that must not be recorded inside `with torch.no_grad():`: the block turns "
                         "grad mode back on when it ends, even after an error"))


@contextlib.contextmanager
def grad_mode_kept():
    """Run the learner's code (through the check) and refuse it when it leaves grad mode off; grad
    mode is restored in any case, so the learner's next cells run as before the check. A failure
    this causes inside the check (a graph that is not recorded) is reported as its cause.

    >>> import minigrad as torch
    >>> with grad_mode_kept():
    ...     torch.set_grad_enabled(False)
    Traceback (most recent call last):
    ...
    minigrad.exercises._feedback.NotYet: after your code ran, grad mode is off, ...
    >>> torch.is_grad_enabled()
    True
    """
    import minigrad
    enabled = minigrad.is_grad_enabled()
    try:
        yield
    finally:
        left_off = enabled and not minigrad.is_grad_enabled()
        minigrad.set_grad_enabled(enabled)
        if left_off:
            raise NotYet(*GRAD_MODE_LEFT_OFF)


def expect_freed_with_the_graph(run: Callable[[], list], call: str, what: str) -> None:
    """Stop the check unless what ``run`` watched is freed once the graph is gone. ``run()`` makes
    fresh objects (tensors, or numbers of a type that takes weak references), passes them through
    the learner's Function, forward and backward, and returns them; once it has returned, only a
    reference kept outside ctx (a list or dict in the learner's module, indexed by a number on
    ctx) keeps any of them alive: ctx goes away with the graph.

    >>> kept = []
    >>> def run():
    ...     x = np.ones(3).view(np.ndarray)
    ...     kept.append(x)
    ...     return [x]
    >>> expect_freed_with_the_graph(run, "f(x)", "x")
    Traceback (most recent call last):
    ...
    minigrad.exercises._feedback.NotYet: after f(x) and its backward, with the output dropped, x is still alive: ...
    """
    alive = [weakref.ref(watched) for watched in run()]
    gc.collect()
    expect(all(ref() is None for ref in alive),
           _("after {call} and its backward, with the output dropped, {what} is still alive: something outside ctx "
             "keeps a reference to it (a list or a dict in your module, with a number on ctx to find it?), so what "
             "every call stores there grows with each call and is never freed").format(call=call, what=what),
           _("keep what backward needs on ctx itself (ctx.save_for_backward for tensors, an attribute for the "
             "rest): it goes away with the graph"))


def exercise(title: str, deeper_hint: str = "") -> Callable:
    """Turn a function of ``expect`` calls into a checker that prints its verdict.

    ``deeper_hint`` (marked ``N_("...")``) goes a step further towards the answer than the hint
    the check prints for the starter, without giving it: the student edition folds it below the
    check (tools/student_edition.py), in place of the worked solution."""
    def decorate(check: Callable) -> Callable:
        @functools.wraps(check)
        def run(*args, **kwargs) -> Result:
            name = _(title)
            # Under nbgrader, what the learner's code writes to stderr (a warning, say) goes to
            # stdout: nbgrader fails a check cell with any stderr output, even a correct one.
            quiet = contextlib.redirect_stderr(sys.stdout) if _under_nbgrader() else contextlib.nullcontext()
            try:
                with quiet, learners_warnings(sys._getframe()) as warned, grad_mode_kept():
                    check(*args, **kwargs)
            except NotYet as failure:
                lines = ["✗ " + name + " " + _("— not yet."), "  " + _label(_("What is wrong:")) + _(failure.problem)]
                if failure.hint:
                    lines.append("  " + _label(_("Hint:")) + _(failure.hint))
                result = Result(title, False, lines)
            except NotImplementedError as error:
                result = Result(title, False, ["✗ " + name + " " + _("— not written yet."),
                                               "  " + _label(_("Your code raised NotImplementedError:")) + str(error),
                                               "  " + _("Replace the stub with your answer and run this check again.")])
            except Exception as error:  # the learner's code failed: say how, without a traceback
                result = Result(title, False, ["✗ " + name + " " + _("— your code raised an error."),
                                               f"  {type(error).__name__}: {error}"])
            else:
                result = Result(title, True, ["✓ " + name + " " + _("— correct.")])
            result.lines += _warning_lines(warned)
            print(result)
            return result
        run.title, run.deeper_hint = title, deeper_hint
        return run
    return decorate
