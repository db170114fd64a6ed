"""minigrad.doctor: the set-up check that notebook 00 and `make` run."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from minigrad.doctor import DOT_INSTALL_STEPS, DotNotFoundError, before_setup, doctor, require_dot

ROOT = Path(__file__).resolve().parent.parent

EXPECTED_OUTPUT = """\
minigrad doctor
  OK       Python >= 3.10
  OK       numpy
  OK       graphviz (the Python package)
  OK       dot (the Graphviz program)
  OK       matplotlib
  OK       jupyterlab (optional: `make lab` uses it)
  OK       nbval (optional: `make test` uses it)
All required checks passed.
"""


def run_doctor(**kwargs):
    out = io.StringIO()
    report = doctor(file=out, **kwargs)
    return report, out.getvalue()


@pytest.fixture
def no_dot_on_path(tmp_path, monkeypatch):
    """PATH is an empty folder: no `dot` to be found."""
    monkeypatch.setenv("PATH", str(tmp_path))
    return str(tmp_path)


def test_doctor_passes_here_and_prints_the_same_text_on_every_machine():
    report, output = run_doctor()
    assert output == EXPECTED_OUTPUT
    assert report.ok
    assert report.problems == []
    assert repr(report) == "DoctorReport(ok=True, problems=[])"


def test_verbose_adds_versions():
    import numpy

    _, output = run_doctor(verbose=True)
    assert f"  OK       numpy  {numpy.__version__}\n" in output


def test_doctor_prints_to_stdout_by_default(capsys):
    doctor(dot_only=True)
    assert capsys.readouterr().out == "minigrad doctor\n  OK       dot (the Graphviz program)\nAll required checks passed.\n"


def test_require_dot_is_silent_when_dot_is_installed():
    assert require_dot() is None


def test_require_dot_says_how_to_install_dot_everywhere(no_dot_on_path):
    with pytest.raises(DotNotFoundError) as caught:
        require_dot()
    message = str(caught.value)
    for needle in ["apt-get install graphviz", "brew install graphviz", "winget install graphviz",
                   "choco install graphviz", "conda install -c conda-forge graphviz"]:
        assert needle in message
    assert isinstance(caught.value, RuntimeError)


def test_doctor_reports_a_missing_dot_with_install_steps(no_dot_on_path):
    report, output = run_doctor(dot_only=True)
    assert not report.ok
    assert report.problems == ["dot (the Graphviz program)"]
    assert "  PROBLEM  dot (the Graphviz program)\n" in output
    assert "brew install graphviz" in output
    assert output.endswith("Something required is missing: see the PROBLEM lines above.\n")


def test_a_missing_required_package_fails_with_a_pip_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib` fail
    report, output = run_doctor()
    assert not report.ok
    assert report.problems == ["matplotlib"]
    assert ("  PROBLEM  matplotlib\n           Fix: in the course folder, `make venv` (or `make lab`) installs it"
            " into .venv;\n                in an environment of your own: python -m pip install matplotlib\n") in output


def test_a_missing_optional_package_is_reported_but_not_fatal(monkeypatch):
    monkeypatch.setitem(sys.modules, "nbval", None)
    report, output = run_doctor()
    assert report.ok
    assert report.problems == ["nbval (optional: `make test` uses it)"]
    assert "python -m pip install nbval" in output


def test_install_steps_cover_every_platform():
    for platform in ["Debian/Ubuntu", "macOS", "Windows", "conda"]:
        assert platform in DOT_INSTALL_STEPS


def cli(*args: str, path: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if path is not None:
        env["PATH"] = path
    # sys.executable is absolute, so python itself need not be on PATH.
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_cli_dot_only_exit_codes(tmp_path):
    here = cli("-m", "minigrad", "doctor", "--dot-only")
    assert here.returncode == 0, here.stdout + here.stderr
    missing = cli("-m", "minigrad", "doctor", "--dot-only", path=str(tmp_path))
    assert missing.returncode == 1
    assert "PROBLEM" in missing.stdout and "apt-get install graphviz" in missing.stdout


def test_cli_full_check_passes_here():
    run = cli("-m", "minigrad", "doctor")
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout == EXPECTED_OUTPUT


def test_cli_help_and_unknown_command():
    assert "doctor" in cli("-m", "minigrad", "--help").stdout
    assert "--dot-only" in cli("-m", "minigrad", "doctor", "--help").stdout
    assert cli("-m", "minigrad", "nonsense").returncode == 2


def test_doctor_runs_before_anything_is_installed(tmp_path):
    # The Makefile runs doctor.py by path with the bare interpreter, before .venv exists.
    # -S hides site-packages: doctor.py must import only the standard library at module level.
    code = 'import runpy, sys; sys.exit(runpy.run_path("minigrad/doctor.py")["main"](sys.argv[1:]))'
    assert cli("-S", "-c", code, "--dot-only").returncode == 0
    missing = cli("-S", "-c", code, "--dot-only", path=str(tmp_path))
    assert missing.returncode == 1
    assert "brew install graphviz" in missing.stdout



# --- before set-up: what `make lab` will do ------------------------------------------------------

def test_before_setup_a_missing_dot_is_for_make_lab_to_install_as_root_with_apt(no_dot_on_path):
    out = io.StringIO()
    report = before_setup(".venv", "python3", can_apt=True, file=out)
    text = out.getvalue()
    assert report.ok and "PROBLEM" not in text
    assert "  LATER    dot (the Graphviz program): `make lab` installs Graphviz with apt-get\n" in text
    assert "  3. install Graphviz's dot program with apt-get\n" in text


def test_before_setup_a_dot_make_lab_cannot_install_is_the_one_problem(no_dot_on_path):
    out = io.StringIO()
    report = before_setup(".venv", "python3", can_apt=False, file=out)
    text = out.getvalue()
    assert not report.ok and report.problems == ["dot (the Graphviz program)"]
    assert text.count("\n  PROBLEM  ") == 1 and "brew install graphviz" in text
    assert text.endswith("`make lab` cannot install what the PROBLEM lines above name: install it first.\n")
    assert "numpy, graphviz, matplotlib, JupyterLab, nbdime, pytest, nbval: `make lab` installs them into .venv" in text
