"""The set-up tells the truth: what `make` does, and the course's JupyterLab however it is started.

- ``make venv`` with a Python that is not there says so (not "too old");
- ``make doctor`` works before ``.venv`` exists;
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
def test_make_doctor_works_without_the_virtual_environment(tmp_path):
    run = make("doctor", f"VENV={tmp_path / 'none'}", f"PYTHON={sys.executable}")
    assert f"No {tmp_path / 'none'} yet" in run.stdout
    assert "minigrad doctor\n  OK       Python >= 3.10\n" in run.stdout
    assert "Traceback" not in run.stdout + run.stderr
    here = make("doctor", f"VENV={Path(sys.prefix)}")
    assert here.returncode == 0 and here.stdout.endswith("All required checks passed.\n"), here.stdout


def test_make_test_is_the_learners_check_and_ci_also_runs_the_browser_tests():
    test = recipe("test")
    assert test.split("##")[0].split() == ["venv", "dot"], "make test needs no Chromium"
    assert "--ignore=tests/test_browser.py" in test and "--nbval" in test
    browser = recipe("browser")
    assert browser.split("##")[0].split() == ["venv", "chromium"] and "tests/test_browser.py" in browser
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    steps = re.findall(r"^phase \"[^\"]+\" make --no-print-directory (\w[\w-]*)", ci, re.M)
    assert steps.index("test") < steps.index("browser"), steps


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
        assert "python -m tools.lab notebooks" in text, readme
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
