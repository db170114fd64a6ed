"""Start the course's JupyterLab (``make lab``, ``make lab-student``), or point at the one running.

``make lab`` serves the learner's workspace (``workspace/notebooks/``, tools/workspace.py), never the
course's own ``notebooks/``: it first brings the course into the workspace, keeping the learner's
work; ``make lab-student`` does the same with the student edition (``workspace/student/``).

The server is JupyterLab with the course's configuration (``jupyter-config/``, added to
``JUPYTER_CONFIG_PATH`` for this server only): no "Jupyter news" pop-up, notebooks saved with
the course's stored metadata, so that opening one changes nothing, and idle kernels shut down
once no browser shows them. Each served folder has its own JupyterLab workspace (open tabs and
layout, in ``workspace/.jupyter/``) and each clone its own runtime folder (servers, kernels), so
``make lab``, ``make lab-student`` and other clones of the course share no tabs. A second ``make lab`` does not
start a second server: when a Jupyter server already serves the same folder, it prints that
server's address and stops. When another program (another JupyterLab, say ``make lab`` while
``make lab-student`` runs) holds the port, it says which, and takes the next free port, as
JupyterLab itself does.

Usage, from the repository's root::

    python -m tools.lab [--student] [--port 8888] [-- more jupyter lab arguments]   # a workspace
    python -m tools.lab notebooks [--port 8888]        # a folder as it is (make lab-course)

>>> command = lab_command(Path("notebooks"), 8888, ["--no-browser"], as_root=True)
>>> command[1:3], command[-2:]
(['-m', 'jupyterlab'], ['--allow-root', '--no-browser'])
>>> state_name(ROOT / "workspace" / "notebooks")
'workspace-notebooks'

>>> address({"url": "http://127.0.0.1:8888/", "token": "abc"})
'http://127.0.0.1:8888/lab?token=abc'
"""
from __future__ import annotations

import argparse
import hashlib
import os
import socket
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "jupyter-config"
# JupyterLab's own state for this clone: a workspace (tabs, layout) per served folder, and the
# runtime folder (the running servers and their kernels' connection files).
STATE = ROOT / "workspace" / ".jupyter"


def address(server: dict) -> str:
    """The URL to open for a running server (with its token, if it has one)."""
    url = server["url"].rstrip("/") + "/lab"
    return f"{url}?token={server['token']}" if server.get("token") else url


def running_servers() -> list[dict]:
    """The Jupyter servers this user runs from this clone (from Jupyter's runtime files)."""
    from jupyter_server.serverapp import list_running_servers

    return list(list_running_servers(lab_environment()["JUPYTER_RUNTIME_DIR"]))


def serving(servers: list[dict], root_dir: Path) -> dict | None:
    """The server among ``servers`` that serves ``root_dir``, if any.

    >>> serving([{"root_dir": "/tmp", "port": 8888}], Path("/tmp"))["port"]
    8888
    """
    wanted = root_dir.resolve()
    return next((server for server in servers
                 if Path(server.get("root_dir", "")).expanduser().resolve() == wanted), None)


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as probe:
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def next_free_port(port: int, tries: int = 50) -> int | None:
    """The first free port from ``port`` on (JupyterLab's own ``port_retries`` also tries 50)."""
    return next((candidate for candidate in range(port, port + tries + 1) if port_is_free(candidate)), None)


def state_name(root_dir: Path) -> str:
    """The name of a served folder's JupyterLab workspace: its path in the clone, or a hash."""
    path = root_dir.resolve()
    try:
        return path.relative_to(ROOT).as_posix().replace("/", "-") or "root"
    except ValueError:
        return "outside-" + hashlib.sha1(str(path).encode()).hexdigest()[:12]


def lab_environment(environ: dict | None = None, config: Path = CONFIG) -> dict:
    """The environment of the course's server: ``jupyter-config/`` first on JUPYTER_CONFIG_PATH,
    and this clone's runtime folder (unless one is chosen already)."""
    env = dict(os.environ if environ is None else environ)
    env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(filter(None, [str(config), env.get("JUPYTER_CONFIG_PATH")]))
    env.setdefault("JUPYTER_RUNTIME_DIR", str(STATE / "runtime"))
    return env


def lab_command(root_dir: Path, port: int, extra: list[str], as_root: bool | None = None) -> list[str]:
    """The ``jupyter lab`` command line for serving ``root_dir`` on ``port``."""
    if as_root is None:
        as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    command = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={root_dir}", f"--port={port}",
               "--ServerApp.port_retries=0",     # a busy port is an error, not a silent second port
               f"--LabApp.workspaces_dir={STATE / 'lab-workspaces' / state_name(root_dir)}"]
    if as_root:
        command.append("--allow-root")     # jupyter refuses to run as root without it
    return command + extra


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root_dir", type=Path, nargs="?",
                        help="a folder to serve as it is; without it, the learner's workspace")
    parser.add_argument("--student", action="store_true", help="the student edition's workspace")
    parser.add_argument("--port", type=int, default=8888)
    argv = sys.argv[1:] if argv is None else argv
    extra = argv[argv.index("--") + 1:] if "--" in argv else []   # for jupyter lab itself
    args = parser.parse_args(argv[:len(argv) - len(extra)][:-1] if extra or "--" in argv else argv)
    edition = None if args.root_dir else "student" if args.student else "course"
    if edition:
        from tools import workspace

        args.root_dir = Path(os.path.relpath(workspace.WORKSPACE / workspace.EDITIONS[edition]))

    servers = running_servers()
    running = serving(servers, args.root_dir)
    if running:
        print(f"JupyterLab is already serving {args.root_dir}/ (process {running.get('pid')}): open\n\n"
              f"    {address(running)}\n\nin your browser; no second server started. Stop it with Ctrl-C in "
              f"the terminal where it runs, or `kill {running.get('pid')}`.")
        return 0
    if edition:
        print("\n".join(workspace.sync_edition(edition).lines()), flush=True)
    port = next_free_port(args.port)
    if port != args.port:
        other = next((server for server in servers if server.get("port") == args.port), None)
        holder = f"a JupyterLab serving {other.get('root_dir')}" if other else "another program"
        if port is None:
            print(f"Port {args.port} and the 50 after it are in use ({args.port} by {holder}): stop some "
                  "of them, or choose another port: add e.g. PORT=9999 to the make command.", file=sys.stderr)
            return 1
        print(f"Port {args.port} is used by {holder}: this JupyterLab takes port {port}.")
    print(f"\n>>> Starting JupyterLab on {args.root_dir}/. It keeps this terminal busy while it runs:\n"
          ">>> open the http://127.0.0.1:...?token=... address it prints below in your browser;\n"
          ">>> press Ctrl-C here (twice, or once and answer y) to stop it.\n", flush=True)
    command = lab_command(args.root_dir, port, extra)
    os.execve(command[0], command, lab_environment())
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
