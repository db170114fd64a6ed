"""The course's JupyterLab, started by a test exactly as a learner starts it, and stopped again.

``course_lab`` runs ``python -m tools.lab FOLDER`` (what ``make lab`` runs, and what the README
gives conda users) from a checkout's root, on 127.0.0.1 without a token, with its own Jupyter
folders under a temporary home. Used by tests/test_setup.py and tests/test_browser.py.
"""
from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def processes_mentioning(text: str) -> list[int]:
    """Process ids whose command line contains ``text`` (kernels started by our server)."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if text.encode() in (proc / "cmdline").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def stop_group(process: subprocess.Popen) -> None:
    """Stop a process started in its own session, and its children (SIGTERM, then SIGKILL)."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def stop(server: subprocess.Popen, runtime_dir: Path) -> None:
    """Stop JupyterLab (it shuts its kernels down), then anything of ours that is left."""
    stop_group(server)
    for pid in processes_mentioning(str(runtime_dir)):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@contextlib.contextmanager
def course_lab(home: Path, root_dir: Path, checkout: Path = ROOT, settings: dict | None = None,
               extra: tuple[str, ...] = (), environ: dict | None = None):
    """The course's JupyterLab serving ``root_dir``, started with ``python -m tools.lab`` from
    ``checkout`` (so with that checkout's ``jupyter-config/``). ``settings`` are user settings
    (plugin id -> values); ``extra`` more ``jupyter lab`` arguments. Yields (base URL, log path)."""
    settings_dir = home / "settings"
    for plugin, values in (settings or {}).items():
        package, _, name = plugin.partition(":")
        (settings_dir / package).mkdir(parents=True, exist_ok=True)
        (settings_dir / package / f"{name}.jupyterlab-settings").write_text(json.dumps(values))
    runtime_dir = home / "runtime"
    env = dict(os.environ if environ is None else environ, JUPYTER_CONFIG_DIR=str(home / "config"),
               JUPYTER_RUNTIME_DIR=str(runtime_dir), JUPYTERLAB_SETTINGS_DIR=str(settings_dir),
               JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"))
    port = free_port()
    command = [sys.executable, "-m", "tools.lab", str(root_dir), "--port", str(port), "--",
               "--no-browser", "--ip=127.0.0.1", "--IdentityProvider.token=", *extra]
    log_path = home / "jupyterlab.log"
    home.mkdir(parents=True, exist_ok=True)
    log = open(log_path, "w")
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True,
                              cwd=checkout)   # from the checkout's root, as `make lab` runs
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            assert server.poll() is None, f"JupyterLab stopped:\n{log_path.read_text()[-3000:]}"
            try:
                with urllib.request.urlopen(f"{base_url}/api/status", timeout=2):
                    break
            except OSError:
                assert time.monotonic() < deadline, "JupyterLab did not answer within 90 s"
                time.sleep(0.3)
        yield base_url, log_path
    finally:
        stop(server, runtime_dir)
        log.close()
    assert not processes_mentioning(str(runtime_dir)), "a kernel of the test JupyterLab is still running"


def api(base_url: str, path: str, method: str = "GET", body: dict | None = None) -> dict:
    """Call the Jupyter server's REST API (no token) and return the JSON answer."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"{base_url}/api/{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.load(answer)
