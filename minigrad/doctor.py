"""Check that this machine has everything the minigrad course needs.

Run it from a notebook or from a terminal::

    >>> from minigrad.doctor import doctor
    >>> report = doctor()                      # doctest: +ELLIPSIS
    minigrad doctor
      OK       Python >= 3.10
      OK       numpy
    ...
    >>> report.ok
    True

    $ make doctor                                  # in the course folder, before or after `make lab`
    $ .venv/bin/python -m minigrad doctor          # the same, in the course's virtual environment
    $ .venv/bin/python -m minigrad doctor --dot-only   # only the Graphviz `dot` program

Both exit with code 1 when something required is missing. ``python -m minigrad`` needs a Python
that has numpy (``import minigrad`` imports it). Before ``make lab`` has set up ``.venv``, ``make
doctor`` runs this file by path with the bare interpreter and ``--before-setup``: it says that the
course is not set up yet and what ``make lab`` will do, and checks only what ``make lab`` cannot
install itself (:func:`before_setup`).

The default output names no versions and no paths, so it is the same on every
machine that passes (notebook 00 prints it and nbval compares it);
``doctor(verbose=True)`` adds versions.

This module imports nothing but the standard library at module level: the
Makefile runs it (with ``runpy``) before numpy or anything else is installed.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import importlib.util
import io
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Sequence, TextIO

__all__ = ["DOT_INSTALL_STEPS", "DotNotFoundError", "require_dot", "doctor", "before_setup", "Check",
           "DoctorReport"]

MIN_PYTHON = (3, 10)

DOT_INSTALL_STEPS = """\
minigrad draws its graph pictures with Graphviz's `dot` program, which is not installed
(or not on PATH). Install it, then restart Jupyter (or your terminal):
  Debian/Ubuntu:  sudo apt-get install graphviz
  macOS:          brew install graphviz
  Windows:        winget install graphviz     (or: choco install graphviz)
                  then add C:\\Program Files\\Graphviz\\bin to PATH and open a new terminal
  conda:          conda install -c conda-forge graphviz python-graphviz
Check it with `dot -V`, then `make doctor` in the course folder."""

_PIP_FIX = (
    "Fix: in the course folder, `make venv` (or `make lab`) installs it into .venv;\n"
    "     in an environment of your own: python -m pip install {package}"
)


class DotNotFoundError(RuntimeError):
    """Raised by :func:`require_dot` when Graphviz's ``dot`` program is missing.

    The message says how to install it on Debian/Ubuntu, macOS, Windows and conda.

    >>> "brew install graphviz" in str(DotNotFoundError())
    True
    """

    def __init__(self, message: str = DOT_INSTALL_STEPS) -> None:
        super().__init__(message)


def require_dot() -> None:
    """Raise :class:`DotNotFoundError` unless the ``dot`` program is on PATH.

    Call it before rendering a graph, so a missing ``dot`` fails at once with
    install steps instead of deep inside the graphviz package.

    >>> require_dot()    # silent when dot is installed
    """
    if shutil.which("dot") is None:
        raise DotNotFoundError()


@dataclass(frozen=True)
class Check:
    """The outcome of one check: its name, whether it passed, and what to do if not."""

    name: str
    ok: bool
    required: bool = True
    # Versions and fixes differ between machines: keep them out of the repr.
    version: str = field(default="", repr=False, compare=False)
    fix: str = field(default="", repr=False, compare=False)


@dataclass(frozen=True)
class DoctorReport:
    """Every :class:`Check` that :func:`doctor` ran; ``ok`` is True when all required ones passed.

    >>> report = DoctorReport((Check("numpy", True), Check("nbval", False, required=False)))
    >>> report
    DoctorReport(ok=True, problems=['nbval'])
    >>> report.ok, report.problems
    (True, ['nbval'])
    """

    checks: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.checks if check.required)

    @property
    def problems(self) -> list[str]:
        return [check.name for check in self.checks if not check.ok]

    def __repr__(self) -> str:
        return f"DoctorReport(ok={self.ok}, problems={self.problems})"


def _check_python() -> Check:
    wanted = ".".join(map(str, MIN_PYTHON))
    version = ".".join(map(str, sys.version_info[:3]))
    return Check(
        f"Python >= {wanted}",
        sys.version_info >= MIN_PYTHON,
        version=version,
        fix=f"Fix: install Python {wanted} or newer (python.org, or your package manager), "
        f"then make a new virtual environment with it.",
    )


def _check_package(module: str, label: str, required: bool = True, why: str = "") -> Check:
    """Is ``module`` installed? A required one is imported (lazily: only when the check
    runs), since the notebooks import it; an optional tool is only looked up, which is faster."""
    name = f"{label} ({why})" if why else label
    fix = _PIP_FIX.format(package=module)
    try:
        if required:
            importlib.import_module(module)
        elif importlib.util.find_spec(module) is None:
            raise ModuleNotFoundError(module)
    except ModuleNotFoundError:
        return Check(name, False, required, fix=fix)
    except Exception as exc:  # a broken install can raise anything
        return Check(name, False, required, fix=f"It fails to import ({type(exc).__name__}: {exc}).\n{fix}")
    try:
        version = importlib.metadata.version(module)
    except importlib.metadata.PackageNotFoundError:
        version = ""
    return Check(name, True, required, version=version)


def _check_dot() -> Check:
    name = "dot (the Graphviz program)"
    if shutil.which("dot") is None:
        return Check(name, False, fix=DOT_INSTALL_STEPS)
    try:
        # `dot -V` prints e.g. "dot - graphviz version 2.43.0 (0)" on stderr.
        run = subprocess.run(["dot", "-V"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        return Check(name, False, fix=f"`dot -V` failed ({exc}).\n{DOT_INSTALL_STEPS}")
    if run.returncode != 0:
        return Check(name, False, fix=f"`dot -V` exited with {run.returncode}.\n{DOT_INSTALL_STEPS}")
    words = (run.stderr or run.stdout).split()
    version = words[words.index("version") + 1] if "version" in words[:-1] else ""
    return Check(name, True, version=version)


def doctor(verbose: bool = False, *, dot_only: bool = False, file: TextIO | None = None) -> DoctorReport:
    """Check this machine for the course, print one line per check and return a report.

    Checks what the notebooks need: Python >= 3.10, numpy, the graphviz Python
    package, the ``dot`` program and matplotlib; and, as optional tools,
    jupyterlab and nbval (the notebooks also run in other front ends). Each
    PROBLEM line is followed by how to fix it.

    Args:
        verbose: also print each version (differs between machines).
        dot_only: check only the ``dot`` program.
        file: where to print (default: ``sys.stdout``).

    >>> report = doctor(dot_only=True)
    minigrad doctor
      OK       dot (the Graphviz program)
    All required checks passed.
    >>> report
    DoctorReport(ok=True, problems=[])
    """
    out = sys.stdout if file is None else file
    if dot_only:
        checks = [_check_dot()]
    else:
        checks = [
            _check_python(),
            _check_package("numpy", "numpy"),
            _check_package("graphviz", "graphviz", why="the Python package"),
            _check_dot(),
            _check_package("matplotlib", "matplotlib"),
            _check_package("jupyterlab", "jupyterlab", required=False, why="optional: `make lab` uses it"),
            _check_package("nbval", "nbval", required=False, why="optional: `make test` uses it"),
        ]
    report = DoctorReport(tuple(checks))

    print("minigrad doctor", file=out)
    for check in report.checks:
        status = "OK" if check.ok else "PROBLEM"
        version = f"  {check.version}" if verbose and check.version else ""
        print(f"  {status:<8} {check.name}{version}", file=out)
        if not check.ok:
            for line in check.fix.splitlines():
                print(f"           {line}", file=out)
    if report.ok:
        print("All required checks passed." if not report.problems else
              "All required checks passed (the optional PROBLEM above can wait).", file=out)
    else:
        print("Something required is missing: see the PROBLEM lines above.", file=out)
    return report


# What `make lab` installs into .venv (pyproject.toml's dependencies and its course and test extras).
SET_UP_BY_MAKE_LAB = "numpy, graphviz, matplotlib, JupyterLab, nbdime, pytest, nbval"


def before_setup(venv: str = ".venv", python: str = "python3", can_apt: bool = False,
                 file: TextIO | None = None) -> DoctorReport:
    """What ``make doctor`` says before ``make lab`` has set the course up (no finished ``venv``).

    Checks only what ``make lab`` cannot install itself: this Python (the one ``make lab`` will
    use) and Graphviz's ``dot`` program, which ``make lab`` installs with apt-get only as root on
    Debian or Ubuntu (``can_apt``). The Python packages are not PROBLEMs: ``make lab`` installs
    them. Returns a report whose ``ok`` says whether ``make lab`` can go ahead.

    >>> report = before_setup(".venv-none", "python3", file=io.StringIO())
    >>> report.ok, [check.name for check in report.checks]
    (True, ['Python >= 3.10', 'dot (the Graphviz program)'])
    """
    out = sys.stdout if file is None else file
    python_check, dot = _check_python(), _check_dot()
    apt_installs_dot = not dot.ok and can_apt
    report = DoctorReport((python_check, dot if not apt_installs_dot else Check(dot.name, True)))
    unfinished = os.path.isdir(venv)
    state = "is not finished: an install was interrupted?" if unfinished else "does not exist yet"
    print(f"minigrad doctor: not set up yet ({venv} {state})", file=out)
    version = ".".join(map(str, sys.version_info[:3]))
    lines = [(python_check, f"{python_check.name}  ({python} is Python {version})")]
    lines.append((dot, f"{dot.name}: `make lab` installs Graphviz with apt-get" if apt_installs_dot else dot.name))
    for check, text in lines:
        status = "LATER" if check is dot and apt_installs_dot else "OK" if check.ok else "PROBLEM"
        print(f"  {status:<8} {text}", file=out)
        for line in ([] if check.ok or status == "LATER" else check.fix.splitlines()):
            print(f"           {line}", file=out)
    print(f"  {'LATER':<8} {SET_UP_BY_MAKE_LAB}: `make lab` installs them into {venv}", file=out)
    steps = [f"{'finish' if unfinished else 'create'} {venv} with {python} (Python {version})",
             "install minigrad and its course tools into it, at the versions of constraints.txt "
             "(about 110 packages, 420 MB, about 5 minutes)"]
    if apt_installs_dot:
        steps.append("install Graphviz's dot program with apt-get")
    steps.append("copy the course's notebooks into your workspace/notebooks/ and open it in JupyterLab")
    print("`make lab` will:", file=out)
    for number, step in enumerate(steps, 1):
        print(f"  {number}. {step}", file=out)
    print("Nothing it needs is missing." if report.ok else
          "`make lab` cannot install what the PROBLEM lines above name: install it first.", file=out)
    return report


def main(argv: Sequence[str] | None = None) -> int:
    """Command line for ``python -m minigrad doctor``; returns the exit code (0 ok, 1 not).

    >>> main(["--dot-only"])
    minigrad doctor
      OK       dot (the Graphviz program)
    All required checks passed.
    0
    """
    parser = argparse.ArgumentParser(
        prog="python -m minigrad doctor",
        description="Check that this machine has everything the minigrad course needs.",
    )
    parser.add_argument("--dot-only", action="store_true", help="check only Graphviz's dot program")
    parser.add_argument("-v", "--verbose", action="store_true", help="also print versions")
    parser.add_argument("--before-setup", action="store_true",
                        help="say what `make lab` will do, checking only what it cannot install (make doctor before .venv exists)")
    parser.add_argument("--venv", default=".venv", help="with --before-setup: the virtual environment make creates")
    parser.add_argument("--python", default="python3", help="with --before-setup: the Python make was given")
    parser.add_argument("--can-apt", action="store_true", help="with --before-setup: make installs dot with apt-get")
    args = parser.parse_args(argv)
    if args.before_setup:
        return 0 if before_setup(args.venv, args.python, args.can_apt).ok else 1
    return 0 if doctor(verbose=args.verbose, dot_only=args.dot_only).ok else 1
