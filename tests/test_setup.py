"""The set-up tells the truth: what `make` does, and the course's JupyterLab however it is started.

- ``make venv`` with a Python that is not there says so (not "too old"); one that does not run
  (a pyenv shim for a version pyenv has not activated) gets what is wrong and a command that works;
  ``PYTHON=`` naming another interpreter than ``.venv``'s makes ``.venv`` again with it;
- ``make doctor`` before set-up says "not set up yet" and what ``make lab`` will do, with no
  PROBLEM for what ``make lab`` installs;
- ``make test`` is the learner's check (unit tests and nbval), ``make browser`` the browser tests,
  and CI runs both;
- ``make fidelity`` installs PyTorch's CPU build;
- the conda path (``python -m tools.lab notebooks`` in an environment of one's own) gets the
  course's JupyterLab settings: no "Jupyter news", notebooks served with the kernel's own
  metadata (so JupyterLab does not mark them modified) and saved unchanged;
- ``make lab`` on a busy port takes the next free one and says why.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from course_server import api, course_lab  # noqa: E402
from tools import lab, notebook_metadata  # noqa: E402

MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")
FIRST_NOTEBOOK = ROOT / "notebooks" / "00_start_here.ipynb"


def make(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "--no-print-directory", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, **kwargs)


def recipe(target: str) -> str:
    """The prerequisites line and recipe of a Makefile target."""
    match = re.search(rf"^{re.escape(target)}:(.*?)(?=^\S|\Z)", MAKEFILE, re.M | re.S)
    assert match, f"the Makefile has no {target} target"
    return match.group(1)


# --- make --------------------------------------------------------------------------------------

@pytest.mark.skipif(shutil.which("make") is None, reason="no make program")
def test_a_missing_interpreter_is_reported_as_missing(tmp_path):
    run = make("venv", "PYTHON=python3.99", f"VENV={tmp_path / 'venv'}")
    assert run.returncode != 0
    assert "There is no python3.99 program on this machine" in run.stderr
    assert "too old" not in run.stderr + run.stdout
    assert not (tmp_path / "venv").exists()


@pytest.mark.skipif(shutil.which("make") is None, reason="no make program")
def test_make_doctor_before_set_up_says_what_make_lab_will_do(tmp_path):
    run = make("doctor", f"VENV={tmp_path / 'none'}", f"PYTHON={sys.executable}")
    assert run.returncode == 0 and run.stderr == "", run.stdout + run.stderr
    assert run.stdout.startswith(f"minigrad doctor: not set up yet ({tmp_path / 'none'} does not exist yet)\n")
    assert "PROBLEM" not in run.stdout and "Traceback" not in run.stdout
    assert f"`make lab` installs them into {tmp_path / 'none'}" in run.stdout
    assert "`make lab` will:\n  1. create " in run.stdout and run.stdout.endswith("Nothing it needs is missing.\n")
    here = make("doctor", f"VENV={Path(sys.prefix)}")
    assert here.returncode == 0 and here.stdout.endswith("All required checks passed.\n"), here.stdout
    (tmp_path / "unfinished").mkdir()    # an install that was interrupted: no .installed stamp
    unfinished = make("doctor", f"VENV={tmp_path / 'unfinished'}", f"PYTHON={sys.executable}")
    assert unfinished.returncode == 0 and "is not finished: an install was interrupted?" in unfinished.stdout


def test_make_test_is_the_learners_check_and_ci_runs_it_then_the_classroom():
    from tools import check

    test = recipe("test")
    assert test.split("##")[0].split() == ["venv", "dot"], "make test needs no Chromium"
    assert "-m tools.check" in test
    unit, notebooks = (command for _, _, command in check.PHASES)
    assert "--ignore-glob=tests/test_*browser*.py" in unit and "--nbval" in notebooks
    assert "-rs" in unit and "-rs" in notebooks, "every skip is listed with its reason"
    browser = recipe("browser")
    assert browser.split("##")[0].split() == ["venv", "chromium"]
    assert "tests/test_browser.py" in browser and "tests/test_workspace_browser.py" in browser
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    steps = re.findall(r"^phase \"[^\"]+\" make --no-print-directory (\w[\w-]*)", ci, re.M)
    assert steps[-2:] == ["test", "classroom-test"], steps
    assert "browser" not in steps, "with the browser tests CI passes its 30-minute budget on 2 cores"


# --- choosing the Python of .venv --------------------------------------------------------------

def venv_sh(*args: str, cwd: Path = ROOT, **env: str) -> subprocess.CompletedProcess:
    import os

    return subprocess.run(["bash", str(ROOT / "tools" / "venv.sh"), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=600, env={**os.environ, **env})


def other_pythons() -> list[str]:
    """Interpreters >= 3.10 on this machine other than this one's, that run."""
    mine = Path(sys.executable).resolve()
    found = sorted(Path("/root/.pyenv/versions").glob("3.1[0-9]*/bin/python3.1[0-9]")) + [
        Path(p) for p in map(shutil.which, ("python3.10", "python3.11", "python3.12", "python3.13")) if p]
    good = []
    for path in found:
        run = subprocess.run([str(path), "-c", "import os, sys; print(os.path.realpath(sys.executable))"],
                             capture_output=True, text=True)
        if run.returncode == 0 and Path(run.stdout.strip()) != mine and run.stdout.strip() not in good:
            good.append(run.stdout.strip())
    return good


def test_python_naming_another_interpreter_makes_the_venv_again(tmp_path):
    others = other_pythons()
    if not others:
        pytest.skip("needs a second Python >= 3.10 on this machine (pyenv's, or python3.1x on PATH)")
    project = tmp_path / "project"       # a course without dependencies: installing it takes seconds
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "tiny"\nversion = "0"\n'
                                            '[project.optional-dependencies]\ncourse = []\ntest = []\n')
    (project / "tiny.py").write_text("")
    venv = project / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (venv / ".installed").touch()
    kept = venv_sh("check", cwd=project, PYTHON=others[0], VENV=str(venv))
    assert kept.returncode == 0 and kept.stdout == "ready\n", "without PYTHON given, .venv is kept"
    built = venv_sh("ensure", cwd=project, PYTHON=others[0], PYTHON_GIVEN="1", VENV=str(venv), GOAL="lab")
    assert built.returncode == 0, built.stdout + built.stderr
    made = subprocess.run([str(venv / "bin" / "python"), "-c", "import os, sys, tiny; print(os.path.realpath(sys._base_executable))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    assert made == others[0]
    first = built.stdout.splitlines()[0]
    assert first.startswith(f"{venv} was made with Python 3.") and f"PYTHON={others[0]} is Python 3." in first
    assert first.endswith(f": making {venv} again with {others[0]} (your workspace/ is kept).")
    assert venv_sh("check", cwd=project, PYTHON=others[0], PYTHON_GIVEN="1", VENV=str(venv)).stdout == "ready\n"


PYENV_SHIM = Path("/root/.pyenv/shims/python3.12")


@pytest.mark.skipif(shutil.which("make") is None, reason="no make program")
def test_a_pyenv_shim_that_fails_gets_the_real_problem_and_a_command_that_works(tmp_path):
    if not PYENV_SHIM.exists() or subprocess.run([str(PYENV_SHIM), "-c", ""], capture_output=True).returncode == 0:
        pytest.skip("needs pyenv with a python3.12 shim that pyenv's active version does not provide")
    run = make("venv", f"PYTHON={PYENV_SHIM}", f"VENV={tmp_path / 'venv'}")
    assert run.returncode != 0 and not (tmp_path / "venv").exists()
    assert "needs Python >= 3.10" not in run.stderr, "a Python that does not run is not an old Python"
    assert f"{PYENV_SHIM} is pyenv's shim" in run.stderr and "no Python version pyenv has active provides" in run.stderr
    command = re.search(r"^    make venv PYTHON=(\S+)$", run.stderr, re.M)
    assert command, run.stderr
    assert subprocess.run([command.group(1), "-c", "import sys; assert sys.version_info[:2] == (3, 12)"]).returncode == 0


def test_make_fidelity_installs_pytorchs_cpu_build():
    assert re.search(r"^TORCH_INDEX \?= https://download\.pytorch\.org/whl/cpu$", MAKEFILE, re.M)
    install = recipe("$(FIDELITY_STAMP)")
    assert "--index-url $$index" in install and "torch==$(TORCH_VERSION)" in install
    assert "'^nvidia-'" in install, "a CUDA build that slipped through is refused"


# --- the conda path: python -m tools.lab in an environment of one's own ---------------------------

def kernel_language_info() -> dict:
    """The language_info the course's kernel (``python3``) reports in its kernel_info reply,
    which JupyterLab writes into an opened notebook."""
    from jupyter_client import KernelManager

    manager = KernelManager(kernel_name=notebook_metadata.KERNELSPEC["name"])
    manager.start_kernel()
    try:
        client = manager.client()
        client.start_channels()
        try:
            reply = client.kernel_info(reply=True, timeout=120)
        finally:
            client.stop_channels()
    finally:
        manager.shutdown_kernel(now=True)
    return reply["content"]["language_info"]


def test_conda_path_serves_notebooks_as_the_kernel_reports_them_and_saves_them_unchanged(tmp_path):
    pytest.importorskip("jupyterlab")
    root_dir = tmp_path / "notebooks"
    root_dir.mkdir()
    shutil.copy(FIRST_NOTEBOOK, root_dir)
    before = (root_dir / FIRST_NOTEBOOK.name).read_bytes()
    reported = kernel_language_info()
    stored = json.loads(before)["metadata"]
    # What JupyterLab compares (deeply) with the loaded metadata: a plain server would serve the
    # stored metadata, which names no Python version, and the notebook would be marked modified.
    assert stored["language_info"] != reported and "version" not in stored["language_info"]

    with course_lab(tmp_path / "home", root_dir, extra=("--ServerApp.disable_check_xsrf=True",)) as (base_url, _log):
        with urllib.request.urlopen(f"{base_url}/lab", timeout=60) as page:
            assert "@jupyterlab/apputils-extension:announcements" in page.read().decode(), "Jupyter news"
        model = api(base_url, f"contents/{FIRST_NOTEBOOK.name}?type=notebook&content=1")
        served = model["content"]["metadata"]
        assert served["language_info"] == reported
        assert served["kernelspec"]["display_name"] == notebook_metadata.KERNELSPEC["display_name"]
        # JupyterLab saves the model it holds: the file must stay byte for byte as it was.
        api(base_url, f"contents/{FIRST_NOTEBOOK.name}", "PUT",
            {"type": "notebook", "format": "json", "content": model["content"]})
    assert (root_dir / FIRST_NOTEBOOK.name).read_bytes() == before
    # (As root, the server started because tools.lab adds --allow-root, which `jupyter lab` needs.)


def test_readme_gives_conda_users_the_course_server():
    for readme in ("README.md", "README.zh.md"):
        text = (ROOT / readme).read_text(encoding="utf-8")
        assert re.search(r"^python -m tools\.lab +#", text, re.M), f"{readme}: conda users' workspace"
        assert not re.search(r"(then|然后)[,，]?\s*`jupyter lab notebooks`", text), \
            f"{readme} still suggests a server without the course's settings"


def test_binder_and_conda_start_the_same_configuration():
    start = (ROOT / "binder" / "start").read_text(encoding="utf-8")
    assert "jupyter-config" in start
    config = (ROOT / "jupyter-config" / "jupyter_server_config.py").read_text(encoding="utf-8")
    assert "contents_manager_class = CourseContentsManager" in config and "pre_save_hook" in config


# --- make lab on a busy port ------------------------------------------------------------------

def test_make_lab_on_a_busy_port_takes_the_next_free_one(monkeypatch, capsys):
    other = {"root_dir": "/elsewhere/build/student", "port": 8888, "pid": 7, "url": "http://127.0.0.1:8888/"}
    monkeypatch.setattr(lab, "running_servers", lambda: [other])
    monkeypatch.setattr(lab, "port_is_free", lambda port, host="127.0.0.1": port not in (8888, 8889))
    started = []
    monkeypatch.setattr(lab.os, "execve", lambda program, command, env: started.append(command))
    assert lab.main(["notebooks", "--port", "8888", "--", "--no-browser"]) == 0
    assert "--port=8890" in started[0] and "--ServerApp.port_retries=0" in started[0]
    out = capsys.readouterr().out
    assert "Port 8888 is used by a JupyterLab serving /elsewhere/build/student: this JupyterLab takes port 8890." in out


def test_make_lab_says_when_no_port_is_free(monkeypatch, capsys):
    monkeypatch.setattr(lab, "running_servers", lambda: [])
    monkeypatch.setattr(lab, "port_is_free", lambda port, host="127.0.0.1": False)
    monkeypatch.setattr(lab.os, "execve", lambda *args: pytest.fail("started a server"))
    assert lab.main(["notebooks", "--port", "8888"]) == 1
    assert "add e.g. PORT=9999 to the make command" in capsys.readouterr().err


def test_the_commit_msg_hook_refuses_a_subject_over_72_characters(tmp_path):
    hook = ROOT / "tools" / "git-hooks" / "commit-msg"
    message = tmp_path / "COMMIT_EDITMSG"
    for subject, refused in (("x" * 72, False), ("x" * 73, True)):
        message.write_text(f"# a comment line\n{subject}\n\nThe why.\n")
        run = subprocess.run(["bash", str(hook), str(message)], capture_output=True, text=True)
        assert (run.returncode == 1) == refused, run.stderr
        assert ("subject is 73 characters (at most 72)" in run.stderr) == refused
