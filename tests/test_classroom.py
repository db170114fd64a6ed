"""A class, end to end (`make classroom-test`): a JupyterHub with the course's configuration,
students who get the student edition with an nbgitpuller link, and an nbgrader assignment graded
by the course's checkers, through the exchange and through zip_collect, with a resubmission.

Everything is started here and stopped at the end, on 127.0.0.1 only: the hub (classroom/
jupyterhub_config.py), its proxy (classroom/node_modules), one JupyterLab and kernel per student,
and nbgrader's commands as the teacher runs them. It needs `.venv-classroom` (the `classroom`
extra) and the proxy: `make classroom-test` installs both, then runs this file. In `make test`
(no JupyterHub installed) the hub tests are skipped; with MINIGRAD_REQUIRE_CLASSROOM=1 (set by
`make classroom-test`) a missing piece fails them instead.

Run as root (as CI runs it), the class is the production one: the hub's own PAM login and
LocalProcessSpawner, with throwaway system accounts that the hub creates from its roster (the
passwords from `tools.classroom passwords`), so each student's server runs as their own account.
The test then checks as a student's account what students must not read (the course folder, the
hub's state, each other's homes and submissions) and that they can run the course's Python, and
it removes the accounts, their homes and every file at the end. Not as root (or when other
accounts cannot read this checkout), the hub runs with a test-only DummyAuthenticator and
SimpleLocalProcessSpawner (one account for all), and the account checks are skipped, saying why.

The tests run in file order and share one hub: each step builds on the one before, as in a class.
"""
from __future__ import annotations

import asyncio
import csv
import datetime
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

import minigrad as torch
from minigrad.exercises import nb06
from tools import classroom as classroom_tools, nbgrader_course, student_edition
from tools.classroom import nbgitpuller_link, publish_student_branch, repo_url
from tools.course import read_notebook

from test_classroom_grading import ATTACKS, HIDDEN

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
PROXY = ROOT / "classroom" / "node_modules" / ".bin" / "configurable-http-proxy"
STUDENTS = ("alice", "bob", "carol")
PASSWORD = "minigrad-class"
ASSIGNMENT = "06_needs_input_grad_and_friends"
NOTEBOOK_06 = ROOT / "notebooks" / f"{ASSIGNMENT}.ipynb"

# ---------------------------------------------------------------- what the three students submit
# bob's answers are typical wrong answers that tests/exercises/test_nb06.py shows the checkers
# reject (the class named in each comment), except Your turn 4, which he gets right.
BOB = {
    1: '''class MyLinear(torch.autograd.Function):          # SwappedGuards: the guards swapped
    @staticmethod
    def forward(ctx, input, weight):
        ctx.save_for_backward(input, weight)
        return input.mm(weight.t())

    @staticmethod
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        grad_input = grad_output.mm(weight) if ctx.needs_input_grad[1] else None
        grad_weight = grad_output.t().mm(input) if ctx.needs_input_grad[0] else None
        return grad_input, grad_weight
''',
    2: '''class MySort(torch.autograd.Function):            # GatherInsteadOfScatter
    @staticmethod
    def forward(ctx, x):
        values, indices = x.sort()
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        indices, = ctx.saved_tensors
        return grad_values[indices]
''',
    3: '''class AddOne_(torch.autograd.Function):           # add_one(use_grad=False): ignores grad_output
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        return torch.ones(3)
''',
    4: '''class TwoScales(torch.autograd.Function):         # right: two_scales()
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, grad_double, grad_triple):
        terms = [g * k for g, k in ((grad_double, 2), (grad_triple, 3)) if g is not None]
        return sum(terms[1:], terms[0])
''',
}
ANSWER_NAMES = {1: "MyLinear", 2: "MySort", 3: "AddOne_", 4: "TwoScales"}
# The exact scores nbgrader must export: alice answers with the worked solutions, bob as above,
# carol submits the starters untouched, and dana_smith (no hub account: her notebook comes by
# e-mail, named <student id>_<notebook>.ipynb, and goes through zip_collect) the worked solutions.
ZIP_STUDENT = "dana_smith"
EXPECTED_SCORES = {"alice": 4.0, "bob": 1.0, "carol": 0.0, ZIP_STUDENT: 4.0}


def worked_solutions(path: Path = NOTEBOOK_06) -> dict[int, str]:
    """Each exercise's worked solution (without its check call), from the course notebook."""
    nb = read_notebook(path)
    solutions = {}
    for index, cell in enumerate(nb.cells):
        if "solution" in cell.metadata.get("tags", []):
            number, call = nbgrader_course.check_call(nb.cells[index - 1].source)
            solutions[number] = nbgrader_course.worked_solution(cell.source, call)
    return solutions


def submission(student: str) -> dict[int, str]:
    return {"alice": worked_solutions(), "bob": BOB, "carol": {}, ZIP_STUDENT: worked_solutions()}[student]


def answered(nb: dict, answers: dict[int, str]) -> dict:
    """A released notebook (JSON) with ``answers`` written into its solution cells."""
    for cell in nb["cells"]:
        grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id", "")
        number = int(grade_id.split("_")[-1]) if grade_id.startswith("your_turn_") and grade_id[-1].isdigit() else None
        if number in answers:
            cell["source"] = answers[number]
    return nb


@pytest.mark.parametrize("student", [*STUDENTS, ZIP_STUDENT])
def test_the_expected_scores_are_the_checkers_verdicts(student, capsys):
    """Without a hub: run each submitted answer through the checker. The expected scores of the
    end-to-end test below are these verdicts (a starter is wrong: carol gets 0)."""
    answers = submission(student)
    passed = 0
    for number, name in ANSWER_NAMES.items():
        if number not in answers:
            continue
        namespace = {"torch": torch}
        exec(answers[number], namespace)
        passed += bool(getattr(nb06, f"your_turn_{number}")(namespace[name]))
    capsys.readouterr()
    assert passed == EXPECTED_SCORES[student]


# ------------------------------------------------------------------------------- the running class
def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


TEST_CONFIG = '''# Test-only: the class's hub (classroom/jupyterhub_config.py) on 127.0.0.1 ports of its own.
import os
load_subconfig({production!r})
c = get_config()
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{hub_port}"
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_port}"
c.Authenticator.allowed_users = {accounts!r}
c.Authenticator.admin_users = {admins!r}
c.Spawner.environment = dict(c.Spawner.environment, MINIGRAD_CLASSROOM_TEST={marker!r})
c.JupyterHub.tornado_settings = {{"slow_spawn_timeout": 0}}   # a start request returns at once; the test waits
c.JupyterHub.services = [dict(c.JupyterHub.services[0], name="idle-culler")]
c.JupyterHub.services.append({{"name": "test", "api_token": {token!r}}})
c.JupyterHub.load_roles.append({{"name": "test", "scopes": ["admin:users", "admin:servers"], "services": ["test"]}})
'''
# Without system accounts: an authenticator that takes one shared password and a spawner that runs
# everyone as this account. Never use these outside a test.
SHARED_ACCOUNT_CONFIG = '''c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {password!r}
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {homes!r} + "/{{username}}"
if os.geteuid() == 0:
    c.Spawner.args = ["--allow-root"]
'''


def real_accounts_problem() -> str | None:
    """Why the class cannot run with real system accounts here, or None when it can."""
    if os.geteuid() != 0:
        return "not root: the hub cannot start servers as students' own accounts (run `make classroom-test` as root)"
    missing = [tool for tool in ("adduser", "userdel", "chpasswd", "runuser") if not shutil.which(tool)]
    if missing:
        return f"no {', '.join(missing)} on this machine"
    return classroom_tools.student_access_problem(VENV_BIN.parent)


def processes_with(marker: str) -> set[int]:
    """The running processes whose environment holds ``marker``."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "environ").read_bytes():
                    found.add(int(entry.name))
            except OSError:
                pass
    return found


def descendants(pid: int) -> set[int]:
    """``pid``'s children, their children, ... (read from /proc)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def ignore_sigint() -> None:
    """Start the hub as a shell's background job is started (nohup, a script's `&`): with SIGINT
    ignored, which its services inherit. The hub's idle culler must stop at the hub's SIGINT all
    the same, or it holds the hub's shutdown for 30 s (JupyterHub's interrupt_timeout)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class Classroom:
    """The hub, its users and the teacher's course folder, all under one temporary folder."""

    def __init__(self, tmp: Path, real: bool) -> None:
        import requests

        self.requests = requests
        self.tmp = tmp
        self.real = real
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.marker = f"minigrad-classroom-test-{uuid.uuid4().hex}"
        self.token = uuid.uuid4().hex
        # Real accounts get names no one has (they are removed at the end).
        suffix = uuid.uuid4().hex[:6] if real else ""
        self.accounts = {name: f"{name}{suffix}" for name in STUDENTS}
        if real:          # a teacher (an admin), with the formgrader in their JupyterLab
            self.accounts["teacher"] = f"teacher{suffix}"
        self.passwords = {name: PASSWORD for name in self.accounts}
        self.created: list[str] = []
        self.homes = tmp / "home"
        self.exchange = tmp / "exchange"
        self.course = tmp / "course"
        self.state = tmp / "state"
        self.upstream = tmp / "upstream" / "minigrad"
        self.sessions: dict[str, object] = {}
        self.tokens: dict[str, str] = {}
        self.hub: subprocess.Popen | None = None
        self.log_path = tmp / "jupyterhub.log"
        self.stopped = False

    # -- set-up and tear-down
    def env(self) -> dict[str, str]:
        env = dict(os.environ, MINIGRAD_CLASSROOM_TEST=self.marker, NBGRADER_EXCHANGE=str(self.exchange),
                   MINIGRAD_HUB_STATE=str(self.state), MINIGRAD_CLASSROOM_VENV=str(VENV_BIN.parent),
                   MINIGRAD_LOCAL_REPOS=str(self.upstream), MINIGRAD_STUDENT_GITCONFIG=str(self.tmp / "gitconfig"))
        env["PATH"] = os.pathsep.join([str(VENV_BIN), env.get("PATH", "")])
        return env

    def home(self, name: str) -> Path:
        account = self.accounts[name]
        return Path(pwd.getpwnam(account).pw_dir) if self.real else self.homes / account

    def user_url(self, name: str) -> str:
        return f"{self.url}/user/{self.accounts[name]}"

    def as_account(self, name: str, *command: str) -> subprocess.CompletedProcess:
        """Run ``command`` as ``name``'s system account."""
        return subprocess.run(["runuser", "-u", self.accounts[name], "--", *command], cwd="/",
                              capture_output=True, text=True, timeout=120)

    def start(self) -> None:
        self.tmp.chmod(0o755)            # students' servers reach the exchange and the upstream repository
        self.homes.mkdir()
        self.exchange.mkdir()
        self.exchange.chmod(0o1777)      # as the README says to make /srv/nbgrader/exchange
        self.upstream.parent.mkdir()
        if self.real:
            taken = [account for account in self.accounts.values() if account_exists(account)]
            assert not taken, f"accounts {taken} exist already"
        subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{ROOT}", str(self.upstream)], check=True)
        git_identity = ["-c", "user.name=Teacher", "-c", "user.email=teacher@example.edu"]
        self.git = lambda *args: subprocess.run(["git", *git_identity, *args], cwd=self.upstream, check=True,
                                                capture_output=True, text=True)
        publish_student_branch(self.upstream)          # `make student-branch`, in the teacher's repository
        config = self.tmp / "jupyterhub_config.py"
        text = TEST_CONFIG.format(
            production=str(ROOT / "classroom" / "jupyterhub_config.py"), port=self.port, hub_port=free_port(),
            proxy_port=free_port(), accounts=set(self.accounts.values()), marker=self.marker, token=self.token,
            admins={account for name, account in self.accounts.items() if name == "teacher"})
        if not self.real:
            text += SHARED_ACCOUNT_CONFIG.format(password=PASSWORD, homes=str(self.homes))
        config.write_text(text)
        log = open(self.log_path, "w")
        self.created = list(self.accounts.values()) if self.real else []   # the hub creates them from its roster
        self.hub = subprocess.Popen([str(VENV_BIN / "jupyterhub"), "-f", str(config)], cwd=self.tmp, env=self.env(),
                                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                                    preexec_fn=ignore_sigint)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            assert self.hub.poll() is None, f"the hub stopped at start:\n{self.log()}"
            try:
                if self.requests.get(f"{self.url}/hub/api", timeout=5).status_code == 200:
                    break
            except self.requests.ConnectionError:
                pass
            time.sleep(0.5)
        else:
            raise AssertionError(f"the hub did not answer within 120 s:\n{self.log()}")
        if self.real:
            # The hub made an account for each name in its roster; the teacher sets the passwords.
            assert all(account_exists(account) for account in self.accounts.values()), self.log()
            lines = classroom_tools.passwords(list(self.accounts.values()))
            subprocess.run(["chpasswd"], input="\n".join(lines) + "\n", text=True, check=True)
            by_account = dict(line.split(":", 1) for line in lines)
            self.passwords = {name: by_account[account] for name, account in self.accounts.items()}

    def remove_accounts(self) -> list[str]:
        """Delete the accounts the hub created for the test, with their homes; return any left."""
        for account in self.created:
            if account_exists(account):
                subprocess.run(["userdel", "--remove", account], capture_output=True)
        return [account for account in self.created if account_exists(account)]

    def log(self, lines: int = 60) -> str:
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> set[int]:
        """Stop the hub (it stops the students' servers and the proxy); return what is left."""
        if self.hub is None:
            return set()
        ours = descendants(self.hub.pid) | processes_with(self.marker) | {self.hub.pid}
        if self.hub.poll() is None:
            self.hub.send_signal(signal.SIGTERM)
            try:
                self.hub.wait(timeout=60)
            except subprocess.TimeoutExpired:
                pass
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and any(alive(pid) for pid in ours | processes_with(self.marker)):
            time.sleep(0.5)
        left = {pid for pid in ours | processes_with(self.marker) if alive(pid)}
        for pid in left:   # never leave them running, even when the test fails
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if self.hub.poll() is None:
            self.hub.kill()
            self.hub.wait()
        self.stopped = True
        return left

    # -- a student's browser and API calls
    def login(self, name: str, password: str | None = None):
        session = self.requests.Session()
        session.get(f"{self.url}/hub/login", timeout=30)
        response = session.post(f"{self.url}/hub/login", timeout=60, allow_redirects=False,
                                data={"username": self.accounts[name], "password": password or self.passwords[name],
                                      "_xsrf": session.cookies["_xsrf"]})
        return session, response

    def api(self, name: str, method: str, path: str, **kwargs):
        """A call to ``name``'s own JupyterLab server, with their token."""
        response = self.requests.request(method, f"{self.user_url(name)}/{path}", timeout=300,
                                         headers={"Authorization": f"token {self.tokens[name]}"}, **kwargs)
        assert response.status_code < 400, f"{method} {path}: {response.status_code} {response.text[:500]}"
        return response

    def pull(self, name: str, link: str) -> list[dict]:
        """Open the nbgitpuller link in ``name``'s browser, then run the sync its page starts."""
        session = self.sessions[name]
        page = session.get(link, timeout=120)
        assert page.status_code == 200 and "nbgitpuller" in page.text.lower(), (page.url, page.text[:300])
        assert page.url.startswith(f"{self.user_url(name)}/git-pull?"), page.url
        query = {key: values[0] for key, values in parse_qs(urlparse(link).query).items()}
        events = []
        with self.requests.get(f"{self.user_url(name)}/git-pull/api", timeout=300, stream=True,
                               headers={"Authorization": f"token {self.tokens[name]}"},
                               params={key: query[key] for key in ("repo", "targetpath", "branch")
                                       if key in query}) as stream:
            for line in stream.iter_lines(decode_unicode=True):
                if line and line.startswith("data: "):
                    events.append(json.loads(line[len("data: "):]))
                    if events[-1].get("phase") in ("finished", "error"):
                        break
        assert events and events[-1]["phase"] == "finished", events[-3:]
        return events


def account_exists(account: str) -> bool:
    try:
        pwd.getpwnam(account)
    except KeyError:
        return False
    return True


WHY_NOT_REAL: str | None = None


@pytest.fixture(scope="module")
def classroom():
    global WHY_NOT_REAL
    missing = [what for what, there in (("JupyterHub", shutil.which("jupyterhub", path=str(VENV_BIN))),
                                         ("nbgrader", shutil.which("nbgrader", path=str(VENV_BIN))),
                                         ("configurable-http-proxy", PROXY.exists()),
                                         ("git", shutil.which("git"))) if not there]
    if missing:
        message = f"the classroom test needs {', '.join(missing)}: run `make classroom-test`"
        if os.environ.get("MINIGRAD_REQUIRE_CLASSROOM"):
            pytest.fail(message)
        pytest.skip(message)
    WHY_NOT_REAL = real_accounts_problem()
    if WHY_NOT_REAL:
        print(f"\nThe class runs without system accounts (DummyAuthenticator, SimpleLocalProcessSpawner): {WHY_NOT_REAL}")
    room = Classroom(Path(tempfile.mkdtemp(prefix="minigrad-classroom-")), real=WHY_NOT_REAL is None)
    try:
        room.start()
        yield room
    finally:
        room.stop()
        for account in room.created:
            classroom_tools.release_memory_cap(account)
        left = room.remove_accounts()
        shutil.rmtree(room.tmp, ignore_errors=True)
        assert not left, f"accounts left behind: {left}"


def needs_real_accounts(classroom: Classroom) -> None:
    if not classroom.real:
        pytest.skip(f"checks students' own accounts, which this run has none of: {WHY_NOT_REAL}")


def test_students_log_in(classroom):
    _, refused = classroom.login("alice", "wrong password")
    assert refused.status_code == 403, refused.status_code
    for name in STUDENTS:
        session, response = classroom.login(name)
        assert response.status_code == 302, (response.status_code, response.text[:300])
        classroom.sessions[name] = session
        # The student's own token, asked for with their login cookie (as the hub's token page does).
        made = session.post(f"{classroom.url}/hub/api/users/{classroom.accounts[name]}/tokens", timeout=30,
                            headers={"X-XSRFToken": session.cookies.get("_xsrf", path="/hub/")},
                            json={"note": "classroom test", "expires_in": 3600})
        assert made.status_code == 201, made.text
        classroom.tokens[name] = made.json()["token"]
        started = classroom.requests.post(f"{classroom.url}/hub/api/users/{classroom.accounts[name]}/server", timeout=60,
                                          headers={"Authorization": f"token {classroom.tokens[name]}"})
        assert started.status_code in (201, 202), started.text
    admin = {"Authorization": f"token {classroom.token}"}
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        users = classroom.requests.get(f"{classroom.url}/hub/api/users", headers=admin, timeout=30).json()
        ready = {user["name"] for user in users if user.get("servers", {}).get("", {}).get("ready")}
        if ready >= {classroom.accounts[name] for name in STUDENTS}:
            break
        time.sleep(1)
    else:
        raise AssertionError(f"servers not ready after 180 s: {ready}\n{classroom.log()}")
    # Each student's JupyterLab runs the course's environment, in their own home.
    for name in STUDENTS:
        status = classroom.api(name, "GET", "api/status").json()
        assert status["kernels"] == 0
        spec = classroom.api(name, "GET", "api/kernelspecs").json()
        assert spec["default"] == "python3"


def student_link(classroom: Classroom) -> str:
    """The link the README recommends for a repository on the hub's machine: its student branch,
    by path (`python -m tools.classroom link --repo PATH --branch student`)."""
    return nbgitpuller_link(classroom.url, repo_url(str(classroom.upstream)), branch="student")


def test_the_nbgitpuller_link_gives_each_student_a_copy_of_the_student_edition(classroom):
    link = student_link(classroom)
    assert "repo=file%3A%2F%2F%2F" in link        # a local path becomes a file:// URL
    for name in STUDENTS:
        classroom.pull(name, link)
        copy = classroom.home(name) / "minigrad"
        assert (copy / "notebooks" / "00_start_here.ipynb").exists()
        assert (copy / "notebooks" / "zh" / "00_start_here.ipynb").exists()
        if classroom.real:       # the copy is the student's, not root's
            assert copy.stat().st_uid == pwd.getpwnam(classroom.accounts[name]).pw_uid
        # The page JupyterLab opens after the pull.
        opened = classroom.sessions[name].get(f"{classroom.user_url(name)}/lab/tree/minigrad/notebooks/"
                                              "00_start_here.ipynb", timeout=60)
        assert opened.status_code == 200 and "JupyterLab" in opened.text
    assert (classroom.home("alice") / "minigrad").stat().st_ino != (classroom.home("bob") / "minigrad").stat().st_ino
    # What students get: the student edition (folded hints, no worked solution) and no other
    # branch or history: the clone holds the student branch's last commit only.
    copy = classroom.home("bob") / "minigrad"
    for path in sorted(copy.glob("notebooks/**/*.ipynb")):
        assert not any("solution" in cell.metadata.get("tags", []) for cell in read_notebook(path).cells), path
    git = ["git", "-c", "safe.directory=*", "-C", str(copy)]
    refs = subprocess.run([*git, "for-each-ref", "--format=%(refname)"], capture_output=True, text=True, check=True)
    assert refs.stdout.split() == ["refs/heads/student", "refs/remotes/origin/student"], refs.stdout
    commits = subprocess.run([*git, "rev-list", "--all"], capture_output=True, text=True, check=True)
    assert len(commits.stdout.split()) == 1
    assert not (copy / "minigrad").exists() and not (copy / "tests").exists()


async def run_notebook(classroom: Classroom, name: str, path: str) -> list[dict]:
    """Run every code cell of the notebook at ``path`` (in ``name``'s home) in a kernel that
    ``name``'s server starts, over the Jupyter websocket protocol, as JupyterLab does."""
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    session = classroom.api(name, "POST", "api/sessions", json={
        "path": path, "type": "notebook", "name": "", "kernel": {"name": "python3"}}).json()
    kernel = session["kernel"]["id"]
    url = f"ws://127.0.0.1:{classroom.port}/user/{classroom.accounts[name]}/api/kernels/{kernel}/channels?session_id={uuid.uuid4().hex}"
    connection = await websocket_connect(HTTPRequest(url, headers={"Authorization": f"token {classroom.tokens[name]}"}))
    nb = json.loads((classroom.home(name) / path).read_text())
    results = []
    try:
        for cell in nb["cells"]:
            if cell["cell_type"] != "code":
                continue
            msg_id = uuid.uuid4().hex
            connection.write_message(json.dumps({
                "header": {"msg_id": msg_id, "username": name, "session": uuid.uuid4().hex, "version": "5.3",
                           "msg_type": "execute_request", "date": datetime.datetime.now(datetime.timezone.utc).isoformat()},
                "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
                "content": {"code": "".join(cell["source"]), "silent": False, "store_history": True,
                            "user_expressions": {}, "allow_stdin": False, "stop_on_error": False}}))
            result = {"tags": cell["metadata"].get("tags", []), "text": "", "errors": [], "data": set()}
            idle = replied = False
            while not (idle and replied):
                raw = await asyncio.wait_for(connection.read_message(), timeout=300)
                assert raw is not None, "the kernel's websocket closed"
                message = json.loads(raw)
                if message.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                kind, content = message["header"]["msg_type"], message["content"]
                if kind == "stream":
                    result["text"] += content["text"]
                elif kind in ("execute_result", "display_data"):
                    result["data"] |= set(content["data"])
                    result["text"] += content["data"].get("text/plain", "") + "\n"
                elif kind == "error":
                    result["errors"].append(f"{content['ename']}: {content['evalue']}")
                elif kind == "status" and content["execution_state"] == "idle":
                    idle = True
                elif kind == "execute_reply":
                    replied = True
            results.append(result)
    finally:
        connection.close()
        classroom.api(name, "DELETE", f"api/sessions/{session['id']}")
    return results


@pytest.mark.parametrize("name", STUDENTS[:2])
def test_notebook_00_runs_in_each_students_kernel(classroom, name):
    results = asyncio.run(run_notebook(classroom, name, "minigrad/notebooks/00_start_here.ipynb"))
    unexpected = [(i, r["errors"]) for i, r in enumerate(results) if r["errors"] and "raises-exception" not in r["tags"]]
    assert not unexpected, unexpected
    doctor = results[1]["text"]   # torch.doctor(): the environment check, in the student's kernel
    assert "All required checks passed." in doctor and doctor.split()[-1] == "True", doctor
    assert any("image/png" in r["data"] for r in results), "no graph was drawn"
    check = next(r for r in results if r["text"].startswith(("✓", "✗")))
    assert check["text"].startswith("✗ Your turn 1"), check   # the starter, as handed out
    where = asyncio.run(run_code(classroom, name))
    # The course's interpreter, in the student's own copy.
    assert Path(where[0]).parent == VENV_BIN and where[1] == str(classroom.home(name) / "minigrad" / "notebooks"), where
    if classroom.real:
        assert where[2] == classroom.accounts[name], where        # the kernel runs as the student's account


async def run_code(classroom: Classroom, name: str) -> list[str]:
    """The kernel's interpreter and working folder, for a notebook in ``name``'s copy."""
    path = "minigrad/notebooks/where.ipynb"
    classroom.api(name, "PUT", f"api/contents/{path}", json={"type": "notebook", "format": "json", "content": {
        "cells": [{"cell_type": "code", "source": "import getpass, os, sys\nprint(sys.executable)\nprint(os.getcwd())\n"
                                                  "print(getpass.getuser())",
                   "metadata": {}, "outputs": [], "execution_count": None, "id": "where"}],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5}})
    try:
        results = await run_notebook(classroom, name, path)
    finally:
        classroom.api(name, "DELETE", f"api/contents/{path}")
    return results[0]["text"].split()


def oom_kills(folder: Path) -> int:
    """How many processes the kernel's OOM killer stopped in a cgroup (v1 or v2)."""
    for name in ("memory.events", "memory.oom_control"):
        for line in (folder / name).read_text().splitlines() if (folder / name).exists() else []:
            if line.startswith("oom_kill "):
                return int(line.split()[1])
    return 0


async def start_code(classroom: Classroom, name: str, path: str, code: str) -> dict:
    """Start ``code`` in a new kernel of ``name``'s server, without waiting for it to end."""
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    classroom.api(name, "PUT", f"api/contents/{path}", json={"type": "notebook", "format": "json", "content": {
        "cells": [], "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5}})
    session = classroom.api(name, "POST", "api/sessions", json={
        "path": path, "type": "notebook", "name": "", "kernel": {"name": "python3"}}).json()
    url = (f"ws://127.0.0.1:{classroom.port}/user/{classroom.accounts[name]}/api/kernels/{session['kernel']['id']}"
           f"/channels?session_id={uuid.uuid4().hex}")
    connection = await websocket_connect(HTTPRequest(url, headers={"Authorization": f"token {classroom.tokens[name]}"}))
    connection.write_message(json.dumps({
        "header": {"msg_id": uuid.uuid4().hex, "username": name, "session": uuid.uuid4().hex, "version": "5.3",
                   "msg_type": "execute_request", "date": datetime.datetime.now(datetime.timezone.utc).isoformat()},
        "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
        "content": {"code": code, "silent": False, "store_history": False, "user_expressions": {},
                    "allow_stdin": False, "stop_on_error": True}}))
    await asyncio.sleep(1)
    connection.close()
    return session


def test_one_students_runaway_cell_stops_only_their_own_kernel(classroom):
    """carol runs a cell that takes memory without end: the cap the hub puts on each student
    (server and kernels together) stops her kernel; her server, alice's and the hub go on."""
    needs_real_accounts(classroom)
    method = classroom_tools.memory_cap_method()
    if not method.startswith("cgroup"):
        pytest.skip(f"no cgroup root can write here ({method}): each process has its own limit only")
    folder = classroom_tools.student_cgroup(classroom.accounts["carol"])
    assert folder.is_dir(), folder                  # made when the hub started carol's server
    alices = classroom_tools.student_cgroup(classroom.accounts["alice"])
    used = [int((alices / name).read_text()) for name in ("memory.max_usage_in_bytes", "memory.peak")
            if (alices / name).exists()]
    print(f"\nalice's server and kernels, after notebook 00 ({method}): at most {used[0] / 2**20:.0f} MB" if used else "")
    before = oom_kills(folder)
    code = "hog = []\nwhile True:\n    hog.append(b'x' * (32 << 20))"
    session = asyncio.run(start_code(classroom, "carol", "runaway.ipynb", code))
    deadline = time.monotonic() + 120
    while oom_kills(folder) == before:
        assert time.monotonic() < deadline, f"no OOM kill in {folder} after 120 s"
        time.sleep(1)
    for name in ("carol", "alice"):
        assert classroom.api(name, "GET", "api/status").status_code == 200
    assert classroom.requests.get(f"{classroom.url}/hub/api", timeout=30).status_code == 200
    classroom.api("carol", "DELETE", f"api/sessions/{session['id']}")
    classroom.api("carol", "DELETE", "api/contents/runaway.ipynb")


def test_a_second_pull_keeps_the_students_edits(classroom):
    path = "minigrad/notebooks/00_start_here.ipynb"
    model = classroom.api("alice", "GET", f"api/contents/{path}").json()
    cells = model["content"]["cells"]
    exercise = next(i for i, cell in enumerate(cells) if "exercise" in cell["metadata"].get("tags", []))
    cells[exercise]["source"] = "prediction = [2.0, 4.0, 6.0]   # alice's answer"
    classroom.api("alice", "PUT", f"api/contents/{path}", json={"type": "notebook", "format": "json",
                                                                "content": model["content"]})
    # Meanwhile the teacher fixes the notebook's first cell, commits, and publishes the student
    # edition again (`make student-branch`).
    upstream_nb = classroom.upstream / "notebooks" / "00_start_here.ipynb"
    nb = json.loads(upstream_nb.read_text())
    nb["cells"][0]["source"] = ["# 00 · Start here (updated by the teacher)\n"] + nb["cells"][0]["source"][1:]
    upstream_nb.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    classroom.git("commit", "-q", "-am", "Teacher: a fix")
    commit, new = publish_student_branch(classroom.upstream)
    assert new and publish_student_branch(classroom.upstream) == (commit, False)

    classroom.pull("alice", student_link(classroom))
    copy = classroom.home("alice") / "minigrad"
    merged = json.loads((copy / "notebooks" / "00_start_here.ipynb").read_text())
    assert "".join(merged["cells"][exercise]["source"]) == "prediction = [2.0, 4.0, 6.0]   # alice's answer"
    assert "".join(merged["cells"][0]["source"]).startswith("# 00 · Start here (updated by the teacher)")
    # bob did not pull again: his copy is as it was.
    bobs = json.loads((classroom.home("bob") / "minigrad" / "notebooks" / "00_start_here.ipynb").read_text())
    assert "updated by the teacher" not in "".join(bobs["cells"][0]["source"])


def nbgrader(classroom: Classroom, *args: str) -> str:
    result = subprocess.run([str(VENV_BIN / "nbgrader"), *args], cwd=classroom.course, env=classroom.env(),
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout + result.stderr


def exported_scores(classroom: Classroom) -> dict[str, tuple[str, float, float]]:
    nbgrader(classroom, "export", "--to", "grades.csv")
    with open(classroom.course / "grades.csv", newline="") as table:
        rows = list(csv.DictReader(table))
    return {row["student_id"]: (row["assignment"], float(row["score"]), float(row["max_score"])) for row in rows}


def submit(classroom: Classroom, name: str, answers: dict[int, str]) -> None:
    """``name`` writes ``answers`` into their fetched notebook and submits it, through their JupyterLab."""
    notebook = f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
    model = classroom.api(name, "GET", f"api/contents/{notebook}").json()
    classroom.api(name, "PUT", f"api/contents/{notebook}",
                  json={"type": "notebook", "format": "json", "content": answered(model["content"], answers)})
    submitted = classroom.api(name, "POST", "assignments/submit",
                              data={"course_id": "minigrad", "assignment_id": ASSIGNMENT}).json()
    assert submitted["success"], submitted


def impersonate(classroom: Classroom) -> list[str]:
    """bob tries to submit as alice, in every way we know, as his own account. Returns what each
    try printed. Only the plain route is refused at once: the others reach the exchange, and
    collect must refuse them."""
    bob, alice = classroom.accounts["bob"], classroom.accounts["alice"]
    home = classroom.home("bob")
    env = {"HOME": str(home), "PATH": f"{VENV_BIN}:/usr/bin:/bin", "NBGRADER_EXCHANGE": str(classroom.exchange),
           "JUPYTER_CONFIG_PATH": str(ROOT / "classroom" / "student-config"), "JUPYTERHUB_USER": bob}
    nbgrader_ = str(VENV_BIN / "nbgrader")
    inbound = classroom.exchange / "minigrad" / "inbound"
    stamp = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=1)).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    tries = {
        "--student": [nbgrader_, "submit", ASSIGNMENT, "--student", alice],
        "--CourseDirectory.student_id": [nbgrader_, "submit", ASSIGNMENT, f"--CourseDirectory.student_id={alice}"],
        "nbgrader's own exchange": [nbgrader_, "submit", ASSIGNMENT, "--student", alice,
                                    "--ExchangeFactory.submit=nbgrader.exchange.default.submit.ExchangeSubmit"],
        "JUPYTERHUB_USER": ["env", f"JUPYTERHUB_USER={alice}", nbgrader_, "submit", ASSIGNMENT],
        "a folder made by hand": ["bash", "-c", f"d='{inbound}/{alice}+{ASSIGNMENT}+{stamp}+byhand' && mkdir \"$d\" && "
                                  f"cp {ASSIGNMENT}/*.ipynb \"$d\"/ && echo '{stamp}' > \"$d\"/timestamp.txt"],
        "a symbolic link": ["bash", "-c", f"d=$(mktemp -d) && chmod 755 \"$d\" && cp {ASSIGNMENT}/*.ipynb \"$d\"/ && "
                            f"ln -s \"$d\" '{inbound}/{alice}+{ASSIGNMENT}+{stamp}+link'"],
    }
    printed = {}
    for name, command in tries.items():
        ran = subprocess.run(["runuser", "-u", bob, "--", "env", *(f"{k}={v}" for k, v in env.items()), *command],
                             cwd=home, capture_output=True, text=True, timeout=300)
        printed[name] = (ran.returncode, ran.stdout + ran.stderr)
    return printed


RED_TEAM = "mallory"


# The attacks graded here through nbgrader, one notebook each (tests/test_classroom_grading.py grades
# the whole family, without nbgrader).
THROUGH_NBGRADER = ["the one-line forgery", "monkeypatching the checker", "a stub check",
                    "a forged verdict, then exit", "printing a tick and exiting"]


def red_team_notebooks(classroom: Classroom) -> dict[str, dict]:
    """Attacks on the grade, each a notebook by its own student (mallory1, ...), after the starter:
    some of tests/test_classroom_grading.py's, numpy patched through an alias, a deleted check cell,
    an edited set-up cell, a stub check in an added cell, an infinite loop."""
    released = json.loads((classroom.course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text())
    notebooks = {}
    attacks = [ATTACKS[name][0] for name in THROUGH_NBGRADER] + [HIDDEN["numpy through an alias"]]
    for k, attack in enumerate(attacks, 1):
        nb = json.loads(json.dumps(released))
        for cell in nb["cells"]:
            if cell["metadata"].get("nbgrader", {}).get("grade_id") == "your_turn_1":
                cell["source"] = "".join(cell["source"]) + "\n" + attack
        notebooks[f"{RED_TEAM}{k}"] = nb
    ids = {"deleted": "your_turn_1_check", "setup": "setup"}
    nb = json.loads(json.dumps(released))
    nb["cells"] = [c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") != ids["deleted"]]
    notebooks[f"{RED_TEAM}{len(notebooks) + 1}"] = nb
    nb = json.loads(json.dumps(released))
    for cell in nb["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == ids["setup"]:
            cell["source"] = "import minigrad as torch\nclass check:\n    def __getattr__(self, n): ..."
    notebooks[f"{RED_TEAM}{len(notebooks) + 1}"] = nb
    nb = json.loads(json.dumps(released))
    nb["cells"].insert(3, {"cell_type": "code", "id": "added-stub", "metadata": {}, "outputs": [], "execution_count": None,
                           "source": "import minigrad.exercises.nb06 as c\nc.your_turn_1 = c.your_turn_4"})
    notebooks[f"{RED_TEAM}{len(notebooks) + 1}"] = nb
    nb = answered(json.loads(json.dumps(released)), {1: "while True:\n    pass"})
    notebooks[f"{RED_TEAM}{len(notebooks) + 1}"] = nb
    return notebooks


ROSTER = {"alice": ("Alice", "Ng"), "bob": ("Bob", "Ortiz"), "carol": ("Carol", "Diaz"),
          ZIP_STUDENT: ("Dana", "Smith"), "erin": ("Erin", "Cho")}   # erin submits nothing


def test_an_assignment_is_released_submitted_autograded_and_exported(classroom):
    nbgrader_course.build(ROOT / "notebooks", classroom.course, exchange=str(classroom.exchange))
    assert classroom.course.stat().st_mode & 0o777 == 0o700      # the gradebook's folder: the teacher's alone
    with open(classroom.course / "nbgrader_config.py", "a") as config:
        config.write("\nc.GradeInFreshProcess.budget = 30   # the test's infinite loop costs this\n")
        if not classroom.real:    # one account for all: owners say nothing
            config.write('c.ExchangeFactory.collect = "nbgrader.exchange.default.collect.ExchangeCollect"\n')
    nbgrader(classroom, "generate_assignment", ASSIGNMENT)
    nbgrader(classroom, "release_assignment", ASSIGNMENT)
    # The class's roster, with names: students who submit nothing are in the export too.
    roster = classroom.tmp / "roster.csv"
    roster.write_text("id,first_name,last_name\n" + "".join(
        f"{classroom.accounts.get(name, name)},{first},{last}\n" for name, (first, last) in ROSTER.items()))
    nbgrader(classroom, "db", "student", "import", str(roster))

    # nbgrader's student version is the student edition, cell for cell, plus grading metadata;
    # each check cell hands its verdict to nbgrader.
    released = read_notebook(classroom.course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    edition, _ = student_edition.student_notebook(read_notebook(NOTEBOOK_06))
    expected = []
    for cell in edition.cells:
        source = cell.source.rstrip("\n")
        if cell.cell_type == "code" and source.startswith("check.your_turn_"):
            source = nbgrader_course.GRADED.format(call=nbgrader_course.check_call(source)[1])
        expected.append((cell.cell_type, source, cell.get("outputs")))
    assert [(c.cell_type, c.source.rstrip("\n"), c.get("outputs")) for c in released.cells] == expected

    for name in STUDENTS:
        listed = classroom.api(name, "GET", "assignments", params={"course_id": "minigrad"}).json()
        assert listed["success"] and [a["assignment_id"] for a in listed["value"]] == [ASSIGNMENT], listed
        classroom.api(name, "POST", "assignments/fetch", data={"course_id": "minigrad", "assignment_id": ASSIGNMENT})
        submit(classroom, name, submission(name))
    if classroom.real:
        # bob tries to submit his (wrong) answers as alice, later than her: refused at once in the
        # plain ways, and at collect whatever program made the submission.
        tries = impersonate(classroom)
        for name in ("--student", "--CourseDirectory.student_id", "JUPYTERHUB_USER"):
            assert tries[name][0] != 0 and "Refused: you are signed in as" in tries[name][1], (name, tries[name])
        assert tries["nbgrader's own exchange"][0] == 0, tries
    collected = nbgrader(classroom, "collect", ASSIGNMENT)
    assert sorted(p.name for p in (classroom.course / "submitted").iterdir()) == sorted(classroom.accounts[n] for n in STUDENTS)
    if classroom.real:
        refused = [json.loads(line) for line in (classroom.course / "grading" / "refused-submissions.jsonl").read_text().splitlines()]
        assert len(refused) == 3 and {r["claimed"] for r in refused} == {classroom.accounts["alice"]}, refused
        assert collected.count("REFUSED submission") == 3, collected[-3000:]
        assert "made by the account " + classroom.accounts["bob"] in collected and "symbolic link" in collected
        # alice's own work was collected, untouched: her worked solutions, not bob's answers.
        alices = (classroom.course / "submitted" / classroom.accounts["alice"] / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text()
        assert BOB[1].splitlines()[0] not in alices and worked_solutions()[1].splitlines()[0] in alices

    # dana_smith e-mailed her notebook: the zip route, with a student id holding an underscore;
    # the red team's notebooks come the same way.
    archive = classroom.course / "downloaded" / ASSIGNMENT / "archive"
    archive.mkdir(parents=True)
    nb = json.loads((classroom.course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text())
    (archive / f"{ZIP_STUDENT}_{ASSIGNMENT}.ipynb").write_text(json.dumps(answered(nb, submission(ZIP_STUDENT))))
    attackers = red_team_notebooks(classroom)
    for student, notebook in attackers.items():
        (archive / f"{student}_{ASSIGNMENT}.ipynb").write_text(json.dumps(notebook))
    nbgrader(classroom, "zip_collect", ASSIGNMENT)
    assert (classroom.course / "submitted" / ZIP_STUDENT / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").exists()

    # Autograde: every notebook graded in a fresh process, two at once.
    graded = subprocess.run([sys.executable, "-m", "tools.nbgrader_grading", "--course", str(classroom.course),
                             "autograde", ASSIGNMENT, "--jobs", "2"], cwd=ROOT, env=classroom.env(),
                            capture_output=True, text=True, timeout=1800)
    output = graded.stdout + graded.stderr
    assert graded.returncode == 0, output[-3000:]
    # nbgrader's own warning for a changed read-only cell: only the attacker who edited the set-up cell.
    changed = [line for line in output.splitlines() if "has changed" in line]
    assert len(changed) == 1 and "for cell setup" in changed[0], changed
    print("\n" + "\n".join(line for line in graded.stdout.splitlines() if "per minute" in line))
    nbgrader(classroom, "generate_feedback", ASSIGNMENT)
    # The exchange's feedback, for those who submitted through it (zip_collect's have none to match).
    zip_students = ",".join([ZIP_STUDENT, *attackers])
    nbgrader(classroom, "release_feedback", ASSIGNMENT, f"--CourseDirectory.student_id_exclude={zip_students}")
    assert (classroom.course / "feedback" / ZIP_STUDENT / ASSIGNMENT / f"{ASSIGNMENT}.html").exists()

    scores = exported_scores(classroom)
    expected = {classroom.accounts.get(name, name): (ASSIGNMENT, score, 4.0) for name, score in EXPECTED_SCORES.items()}
    assert {k: scores[k] for k in expected} == expected, scores
    # No attack earns a point: the starter earns 0.
    assert {student: scores[student] for student in attackers} == {s: (ASSIGNMENT, 0.0, 4.0) for s in attackers}, scores
    with open(classroom.course / "grades.csv", newline="") as table:
        erin = next(row for row in csv.DictReader(table) if row["student_id"] == "erin")
    assert (erin["first_name"], erin["last_name"], float(erin["score"])) == ("Erin", "Cho", 0.0), erin
    # The teacher's one command lists every attacker (the flagged ones and the endless loop).
    flagged = subprocess.run([sys.executable, "-m", "tools.nbgrader_grading", "--course", str(classroom.course), "flags"],
                             cwd=ROOT, env=classroom.env(), capture_output=True, text=True, timeout=300).stdout
    quiet = {s for s in attackers if f"\t{s}\t" not in flagged}
    assert quiet <= {f"{RED_TEAM}{k}" for k in (ATTACK_PRINTS_A_TICK,)}, (quiet, flagged)

    # bob fetches his feedback: the checker's own words for each wrong answer, and no internal name.
    classroom.api("bob", "POST", "assignments/fetch_feedback", data={"course_id": "minigrad", "assignment_id": ASSIGNMENT})
    feedback = list((classroom.home("bob") / ASSIGNMENT / "feedback").glob(f"*/{ASSIGNMENT}.html"))
    assert len(feedback) == 1, feedback
    html = feedback[0].read_text()
    assert "✗ Your turn 1: skip the gradients nobody needs — not yet." in html
    assert "✓ Your turn 4" in html
    # (The course's own text may quote one, as a listing of a doctest does: only what grading adds counts.)
    released = (classroom.course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text()
    for internal in ("_nbgrader_execution", "_under_nbgrader", "_feedback", "Traceback (most recent call last)"):
        assert html.count(internal) <= released.count(internal), internal


# The attack that only prints a tick and stops: a wrong answer, not flagged (its index in the family).
ATTACK_PRINTS_A_TICK = 1 + THROUGH_NBGRADER.index("printing a tick and exiting")


def test_validate_shows_the_verdict_without_internal_names(classroom):
    """nbgrader's Validate (the Assignment List's button) on bob's wrong answers: the failing checks,
    with the checker's words and nothing of its internals."""
    notebook = classroom.course / "submitted" / classroom.accounts["bob"] / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    copy = classroom.tmp / "validate" / notebook.name
    copy.parent.mkdir()
    shutil.copy(notebook, copy)
    ran = subprocess.run([str(VENV_BIN / "nbgrader"), "validate", str(copy)], cwd=copy.parent, env=classroom.env(),
                         capture_output=True, text=True, timeout=600)
    shown = ran.stdout + ran.stderr
    assert "✗ Your turn 3" in shown, shown[-3000:]
    assert "Traceback" not in shown and "What is wrong" in shown, shown[-3000:]
    for internal in ("_nbgrader_execution", "_feedback", "_under_nbgrader", "exercises/"):
        assert internal not in shown, (internal, shown[-3000:])


def test_a_resubmission_is_collected_and_graded_again(classroom):
    """bob corrects Your turn 1 and submits again: the README's commands for a resubmission."""
    bob = classroom.accounts["bob"]
    submit(classroom, "bob", {1: worked_solutions()[1]})
    nbgrader(classroom, "collect", "--update", ASSIGNMENT)
    nbgrader(classroom, "autograde", "--force", "--student", bob, ASSIGNMENT)   # plain nbgrader: the same grading
    nbgrader(classroom, "generate_feedback", "--force", "--student", bob, ASSIGNMENT)
    nbgrader(classroom, "release_feedback", "--student", bob, ASSIGNMENT)
    scores = exported_scores(classroom)
    assert scores[bob] == (ASSIGNMENT, EXPECTED_SCORES["bob"] + 1, 4.0), scores
    assert scores[classroom.accounts["alice"]] == (ASSIGNMENT, EXPECTED_SCORES["alice"], 4.0)


def test_students_do_not_get_the_grading_tools(classroom):
    response = classroom.requests.get(f"{classroom.user_url('alice')}/formgrader", timeout=60,
                                      headers={"Authorization": f"token {classroom.tokens['alice']}"})
    assert response.status_code == 404, response.status_code
    classroom.api("alice", "GET", "assignments", params={"course_id": "minigrad"})


def test_the_teachers_formgrader_finds_the_course_folder_made_in_their_home(classroom):
    """The README's browser route: `make classroom` run as the teacher's account makes
    ~/minigrad-course, and the formgrader in the teacher's JupyterLab on the hub lists its assignments."""
    needs_real_accounts(classroom)
    home = classroom.home("teacher")
    made = classroom.as_account("teacher", "env", f"HOME={home}", "make", "-C", str(ROOT), "--no-print-directory",
                                "classroom")
    assert made.returncode == 0, made.stdout[-2000:] + made.stderr[-2000:]
    course = home / "minigrad-course"
    assert course.stat().st_mode & 0o777 == 0o700 and course.stat().st_uid == pwd.getpwnam(classroom.accounts["teacher"]).pw_uid
    session, response = classroom.login("teacher")
    assert response.status_code == 302, response.status_code
    account = classroom.accounts["teacher"]
    made = session.post(f"{classroom.url}/hub/api/users/{account}/tokens", timeout=30,
                        headers={"X-XSRFToken": session.cookies.get("_xsrf", path="/hub/")}, json={"expires_in": 3600})
    classroom.tokens["teacher"] = made.json()["token"]
    headers = {"Authorization": f"token {classroom.tokens['teacher']}"}
    classroom.requests.post(f"{classroom.url}/hub/api/users/{account}/server", headers=headers, timeout=60)
    deadline = time.monotonic() + 180
    while not classroom.requests.get(f"{classroom.url}/hub/api/users/{account}", headers=headers,
                                     timeout=30).json().get("servers", {}).get("", {}).get("ready"):
        assert time.monotonic() < deadline, classroom.log()
        time.sleep(1)
    listed = classroom.api("teacher", "GET", "formgrader/api/assignments").json()
    names = sorted(assignment["name"] for assignment in listed)
    assert len(names) == 22 and ASSIGNMENT in names and f"zh_{ASSIGNMENT}" in names, names


def test_a_students_account_runs_the_course_but_reads_nothing_private(classroom):
    """As bob's own account: the course's Python runs; the course folder (gradebook, submissions,
    grades), the hub's state (database, cookie secret), alice's home and the exchange's inbox
    do not open."""
    needs_real_accounts(classroom)
    assert classroom_tools.student_access_problem(VENV_BIN.parent, account=classroom.accounts["bob"]) is None
    assert classroom.state.stat().st_mode & 0o777 == 0o700
    private = [classroom.course, classroom.course / "gradebook.db", classroom.course / "grades.csv",
               classroom.course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb",
               classroom.course / "submitted" / classroom.accounts["alice"] / ASSIGNMENT / f"{ASSIGNMENT}.ipynb",
               classroom.state, classroom.state / "jupyterhub.sqlite", classroom.state / "jupyterhub_cookie_secret",
               classroom.home("alice"), classroom.home("alice") / "minigrad" / "notebooks" / "00_start_here.ipynb",
               classroom.exchange / "minigrad" / "inbound"]
    for path in private:
        assert path.exists(), path
        command = ["ls", str(path)] if path.is_dir() else ["cat", str(path)]
        denied = classroom.as_account("bob", *command)
        assert denied.returncode != 0 and "Permission denied" in denied.stderr, (path, denied.stdout[:200])
    assert classroom.home("alice").stat().st_mode & 0o777 == 0o700
    # What students need does open: the exchange's released assignment, the hub's git settings.
    for path in [classroom.exchange / "minigrad" / "outbound" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", classroom.tmp / "gitconfig"]:
        assert classroom.as_account("bob", "cat", str(path)).returncode == 0, path


def test_stopping_the_hub_leaves_no_process_behind(classroom):
    running = descendants(classroom.hub.pid)
    assert len(running) >= len(STUDENTS) + 1, running   # the proxy and a server per student at least
    start = time.monotonic()
    left = classroom.stop()
    took = time.monotonic() - start
    assert not left, f"still running after the hub stopped: {sorted(left)}"
    # Not a timing benchmark: a service that ignored SIGINT would take 30 s or more.
    assert took < 25, f"the hub took {took:.0f} s to stop:\n{classroom.log(15)}"
    assert not processes_with(classroom.marker)
