"""JupyterHub for a minigrad class on one machine: `make hub` starts it (README.md, "Teaching a class").

- Students log in with an account on this machine (PAM) and each gets their own JupyterLab,
  running as that account in its home folder (LocalProcessSpawner). One account per student is
  what keeps grading honest: students cannot read or change each other's files (the hub keeps
  each home private, mode 0700), and nbgrader's exchange knows who submitted by the file's
  owner. The hub creates a missing account for each name in the roster; `chpasswd` sets the
  passwords (`python3 -m tools.classroom passwords` makes them).
- Every student's server runs the course's environment: `.venv-classroom` (minigrad, JupyterLab,
  nbgitpuller, nbgrader's assignment list), its python3 kernel, the course's JupyterLab settings
  (`jupyter-config/`: opening a notebook changes nothing, no news pop-up) and
  `classroom/student-config/` (the nbgrader exchange; no grading tools for students), and trusts
  this checkout's git repository (and those in MINIGRAD_LOCAL_REPOS), so that an nbgitpuller link
  to a path on this machine works.
- Teachers (admins) get nbgrader's formgrader as well, on the course folder
  `~/minigrad-course` of their own account (`classroom/teacher-config/`).
- Each student's server and kernels are held to 1 GB together (tools/hub_spawner.py; README.md,
  "A memory cap per student"). Servers idle for an hour are stopped (jupyterhub-idle-culler):
  their memory comes back.

Files: MINIGRAD_HUB_STATE (default classroom/state/, made private: mode 0700) holds the roster
(`students.txt`, `teachers.txt`: one user name a line, `#` starts a comment), the hub's database
and cookie secret. MINIGRAD_HUB_BIND_URL (default http://:8000) is the address; put HTTPS in
front of it (a reverse proxy, or JupyterHub's ssl_cert/ssl_key) before students type passwords
into it. Your own settings (HTTPS, limits, another port) go in `classroom/local_config.py`, which
git ignores: it is read last, when it exists.
"""
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
VENV = Path(os.environ.get("MINIGRAD_CLASSROOM_VENV", ROOT / ".venv-classroom"))
STATE = Path(os.environ.get("MINIGRAD_HUB_STATE", HERE / "state"))
EXCHANGE = os.environ.get("NBGRADER_EXCHANGE", "/srv/nbgrader/exchange")
# Git repositories on this machine that students may pull from with an nbgitpuller link.
LOCAL_REPOS = [ROOT] + [Path(p) for p in os.environ.get("MINIGRAD_LOCAL_REPOS", "").split(os.pathsep) if p]
# Written at each start and given to students' git (GIT_CONFIG_SYSTEM): readable by everyone.
STUDENT_GITCONFIG = Path(os.environ.get("MINIGRAD_STUDENT_GITCONFIG", HERE / "student-config" / "gitconfig"))

c = get_config()  # noqa: F821 (JupyterHub provides it)


def roster(name):
    """The user names in STATE/name: one a line, blank lines and `#` comments ignored."""
    path = STATE / name
    if not path.exists():
        return set()
    return {line.split("#")[0].strip() for line in path.read_text().splitlines()} - {""}


def course_environment(student=True):
    """The environment of a user's JupyterLab: the course's venv first on PATH, its settings."""
    config = [HERE / ("student-config" if student else "teacher-config")]
    return {
        "PATH": os.pathsep.join([str(VENV / "bin"), "/usr/local/bin", "/usr/bin", "/bin"]),
        "JUPYTER_CONFIG_PATH": os.pathsep.join(map(str, config + [ROOT / "jupyter-config"])),
        "NBGRADER_EXCHANGE": EXCHANGE,
        "NBGITPULLER_APP": "lab",          # a pulled link opens in JupyterLab
        "GIT_CONFIG_SYSTEM": str(STUDENT_GITCONFIG),
    }


def students_git_config(repos):
    """Git's system settings for users' servers: the machine's own (/etc/gitconfig), and trust in
    the course's local repositories. Without it, git refuses to clone a repository another
    account owns ("detected dubious ownership"); git reads safe.directory only from its system or
    global settings, never from a repository or the environment's one-off settings."""
    lines = ["# Written by classroom/jupyterhub_config.py at each start of the hub: do not edit.",
             "[include]", "\tpath = /etc/gitconfig", "[safe]"]
    for repo in repos:
        lines += [f"\tdirectory = {repo}", f"\tdirectory = {repo}/.git"]
    return "\n".join(lines) + "\n"


def private_home(spawner):
    """Keep a user's home folder theirs alone (mode 0700): some systems make homes readable by all."""
    import pwd

    if os.geteuid() != 0:
        return
    try:
        home = Path(pwd.getpwnam(spawner.user.name).pw_dir)
    except KeyError:      # no system account (the tests' spawner)
        return
    if home.is_dir() and home.stat().st_uid != 0 and home.stat().st_mode & 0o077:
        home.chmod(0o700)


STATE.mkdir(parents=True, exist_ok=True)
STATE.chmod(0o700)          # the database and cookie secret: the hub's (root's) alone
STUDENT_GITCONFIG.write_text(students_git_config(LOCAL_REPOS))
STUDENT_GITCONFIG.chmod(0o644)
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

sys.path.insert(0, str(ROOT))          # tools/: the spawner and its memory cap


def after_stop(spawner):
    from tools import classroom as classroom_tools
    classroom_tools.release_memory_cap(spawner.user.name)


c.JupyterHub.spawner_class = "tools.hub_spawner.CappedSpawner"
# Per student, server and kernels together. Measured (README.md, "Sizing"): 200-270 MB with one
# notebook open, about 450-500 MB with three; a cell that asks for more than this stops its own kernel.
c.Spawner.mem_limit = os.environ.get("MINIGRAD_STUDENT_MEMORY", "1G")
c.Spawner.post_stop_hook = after_stop
c.Spawner.cmd = [str(VENV / "bin" / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.environment = course_environment()
c.Spawner.http_timeout = 60                            # a busy machine starts a server slowly
# At most this many servers starting at once (JupyterHub's default is 100): a class logging in
# together waits a little (a "try again in 30 s" page) instead of timing out on a busy machine.
c.JupyterHub.concurrent_spawn_limit = 20


def before_spawn(spawner):
    """Keep the user's home private; teachers get the grading tools."""
    private_home(spawner)
    if spawner.user.admin:
        spawner.environment = dict(spawner.environment, **course_environment(student=False))


c.Spawner.pre_spawn_hook = before_spawn

c.JupyterHub.load_roles = [{
    "name": "idle-culler",
    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    "services": ["idle-culler"],
}]
# The culler stops at the hub's SIGINT even when it was started with SIGINT ignored (a hub started
# in the background, by nohup or a script): it would otherwise hold the hub's shutdown for 30 s.
CULLER = ("import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
          "runpy.run_module('jupyterhub_idle_culler', run_name='__main__')")
c.JupyterHub.services = [{
    "name": "idle-culler",
    "command": [sys.executable, "-c", CULLER, "--timeout=3600"],
}]

# The teacher's own settings, kept out of git (README.md, "The hub on one machine").
if (HERE / "local_config.py").exists():
    load_subconfig(str(HERE / "local_config.py"))  # noqa: F821 (JupyterHub provides it)
