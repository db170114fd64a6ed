"""JupyterHub for a minigrad class on one machine: `make hub` starts it (README.md, "Teaching a class").

- Students log in with an account on this machine (PAM) and each gets their own JupyterLab,
  running as that account in its home folder (LocalProcessSpawner). One account per student is
  what keeps grading honest: students cannot read or change each other's files, and nbgrader's
  exchange knows who submitted by the file's owner. The hub creates a missing account for each
  name in the roster; `chpasswd` sets the passwords.
- Every student's server runs the course's environment: `.venv-classroom` (minigrad, JupyterLab,
  nbgitpuller, nbgrader's assignment list), its python3 kernel, the course's JupyterLab settings
  (`jupyter-config/`: opening a notebook changes nothing, no news pop-up) and
  `classroom/student-config/` (the nbgrader exchange; no grading tools for students).
- Teachers (admins) get nbgrader's formgrader as well.
- Servers idle for an hour are stopped (jupyterhub-idle-culler): their memory comes back.

Files: MINIGRAD_HUB_STATE (default classroom/state/) holds the roster (`students.txt`,
`teachers.txt`: one user name a line, `#` starts a comment), the hub's database and cookie secret.
MINIGRAD_HUB_BIND_URL (default http://:8000) is the address; put HTTPS in front of it
(a reverse proxy, or JupyterHub's ssl_cert/ssl_key) before students type passwords into it.
"""
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
VENV = Path(os.environ.get("MINIGRAD_CLASSROOM_VENV", ROOT / ".venv-classroom"))
STATE = Path(os.environ.get("MINIGRAD_HUB_STATE", HERE / "state"))
EXCHANGE = os.environ.get("NBGRADER_EXCHANGE", "/srv/nbgrader/exchange")

c = get_config()  # noqa: F821 (JupyterHub provides it)


def roster(name):
    """The user names in STATE/name: one a line, blank lines and `#` comments ignored."""
    path = STATE / name
    if not path.exists():
        return set()
    return {line.split("#")[0].strip() for line in path.read_text().splitlines()} - {""}


def course_environment(student=True):
    """The environment of a user's JupyterLab: the course's venv first on PATH, its settings."""
    config = [HERE / "student-config"] if student else []
    return {
        "PATH": os.pathsep.join([str(VENV / "bin"), "/usr/local/bin", "/usr/bin", "/bin"]),
        "JUPYTER_CONFIG_PATH": os.pathsep.join(map(str, config + [ROOT / "jupyter-config"])),
        "NBGRADER_EXCHANGE": EXCHANGE,
        "NBGITPULLER_APP": "lab",          # a pulled link opens in JupyterLab
    }


STATE.mkdir(parents=True, exist_ok=True)
c.JupyterHub.bind_url = os.environ.get("MINIGRAD_HUB_BIND_URL", "http://:8000")
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.ConfigurableHTTPProxy.command = [str(HERE / "node_modules" / ".bin" / "configurable-http-proxy")]
c.ConfigurableHTTPProxy.pid_file = str(STATE / "jupyterhub-proxy.pid")

c.JupyterHub.authenticator_class = "pam"
teachers = roster("teachers.txt")
c.Authenticator.allowed_users = roster("students.txt") | teachers
c.Authenticator.admin_users = teachers
c.LocalAuthenticator.create_system_users = True       # `adduser` for a roster name with no account

c.JupyterHub.spawner_class = "jupyterhub.spawner.LocalProcessSpawner"
c.Spawner.cmd = [str(VENV / "bin" / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.environment = course_environment()
c.Spawner.http_timeout = 60                            # a busy machine starts a server slowly


def teachers_get_the_grading_tools(spawner):
    if spawner.user.admin:
        spawner.environment = course_environment(student=False)


c.Spawner.pre_spawn_hook = teachers_get_the_grading_tools

c.JupyterHub.load_roles = [{
    "name": "idle-culler",
    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    "services": ["idle-culler"],
}]
c.JupyterHub.services = [{
    "name": "idle-culler",
    "command": [sys.executable, "-m", "jupyterhub_idle_culler", "--timeout=3600"],
}]
