"""A class, end to end (`make classroom-test`): a JupyterHub with the course's configuration,
students who get the course with an nbgitpuller link, and an nbgrader assignment graded by the
course's checkers.

Everything is started here and stopped at the end, on 127.0.0.1 only: the hub (classroom/
jupyterhub_config.py, with a test-only DummyAuthenticator and SimpleLocalProcessSpawner, which
makes no system accounts), its proxy (classroom/node_modules), one JupyterLab and kernel per
student, and nbgrader's commands as the teacher runs them. It needs `.venv-classroom` (the
`classroom` extra) and the proxy: `make classroom-test` installs both, then runs this file. In
`make test` (no JupyterHub installed) the hub tests are skipped; with MINIGRAD_REQUIRE_CLASSROOM=1
(set by `make classroom-test`) a missing piece fails them instead.

The tests run in file order and share one hub: each step builds on the one before, as in a class.
"""
from __future__ import annotations

import asyncio
import csv
import datetime
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

import minigrad as torch
from minigrad.exercises import nb06
from tools import nbgrader_course, student_edition
from tools.classroom import nbgitpuller_link
from tools.course import read_notebook

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
PROXY = ROOT / "classroom" / "node_modules" / ".bin" / "configurable-http-proxy"
STUDENTS = ("alice", "bob", "carol")
PASSWORD = "minigrad-class"
ASSIGNMENT = "06_needs_input_grad_and_friends"
NOTEBOOK_06 = ROOT / "notebooks" / f"{ASSIGNMENT}.ipynb"

# ---------------------------------------------------------------- what the three students submit
# bob's answers are typical wrong answers that tests/test_exercises_nb06_08.py shows the checkers
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
# carol submits the starters untouched.
EXPECTED_SCORES = {"alice": 4.0, "bob": 1.0, "carol": 0.0}


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
    return {"alice": worked_solutions(), "bob": BOB, "carol": {}}[student]


@pytest.mark.parametrize("student", STUDENTS)
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


TEST_CONFIG = '''# Test-only: the class's hub (classroom/jupyterhub_config.py) with an authenticator that
# takes one shared password and a spawner that makes no system accounts. Never use these outside a test.
import os
load_subconfig({production!r})
c = get_config()
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{hub_port}"
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_port}"
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {password!r}
c.Authenticator.allowed_users = {students!r}
c.Authenticator.admin_users = set()
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {homes!r} + "/{{username}}"
c.Spawner.environment = dict(c.Spawner.environment, MINIGRAD_CLASSROOM_TEST={marker!r})
c.JupyterHub.tornado_settings = {{"slow_spawn_timeout": 0}}   # a start request returns at once; the test waits
if os.geteuid() == 0:
    c.Spawner.args = ["--allow-root"]
c.JupyterHub.services = [dict(c.JupyterHub.services[0], name="idle-culler")]
c.JupyterHub.services.append({{"name": "test", "api_token": {token!r}}})
c.JupyterHub.load_roles.append({{"name": "test", "scopes": ["admin:users", "admin:servers"], "services": ["test"]}})
'''


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


def default_signals() -> None:
    """SIGINT as in a teacher's terminal. A shell's background job (as CI may run this test)
    ignores it, and so would the hub's services: the idle culler would then stop only when the hub
    gives up on SIGINT, 10 to 30 s later."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Classroom:
    """The hub, its users and the teacher's course folder, all under one temporary folder."""

    def __init__(self, tmp: Path) -> None:
        import requests

        self.requests = requests
        self.tmp = tmp
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.marker = f"minigrad-classroom-test-{uuid.uuid4().hex}"
        self.token = uuid.uuid4().hex
        self.homes = tmp / "home"
        self.exchange = tmp / "exchange"
        self.course = tmp / "course"
        self.upstream = tmp / "upstream" / "minigrad"
        self.sessions: dict[str, object] = {}
        self.tokens: dict[str, str] = {}
        self.hub: subprocess.Popen | None = None
        self.log_path = tmp / "jupyterhub.log"
        self.stopped = False

    # -- set-up and tear-down
    def env(self) -> dict[str, str]:
        env = dict(os.environ, MINIGRAD_CLASSROOM_TEST=self.marker, NBGRADER_EXCHANGE=str(self.exchange),
                   MINIGRAD_HUB_STATE=str(self.tmp / "state"), MINIGRAD_CLASSROOM_VENV=str(VENV_BIN.parent))
        env["PATH"] = os.pathsep.join([str(VENV_BIN), env.get("PATH", "")])
        return env

    def start(self) -> None:
        self.homes.mkdir()
        self.exchange.mkdir()
        self.upstream.parent.mkdir()
        subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{ROOT}", str(self.upstream)], check=True)
        git_identity = ["-c", "user.name=Teacher", "-c", "user.email=teacher@example.edu"]
        self.git = lambda *args: subprocess.run(["git", *git_identity, *args], cwd=self.upstream, check=True,
                                                capture_output=True, text=True)
        config = self.tmp / "jupyterhub_config.py"
        config.write_text(TEST_CONFIG.format(
            production=str(ROOT / "classroom" / "jupyterhub_config.py"), port=self.port, hub_port=free_port(),
            proxy_port=free_port(), password=PASSWORD, students=set(STUDENTS), homes=str(self.homes),
            marker=self.marker, token=self.token))
        log = open(self.log_path, "w")
        self.hub = subprocess.Popen([str(VENV_BIN / "jupyterhub"), "-f", str(config)], cwd=self.tmp, env=self.env(),
                                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                                    preexec_fn=default_signals)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            assert self.hub.poll() is None, f"the hub stopped at start:\n{self.log()}"
            try:
                if self.requests.get(f"{self.url}/hub/api", timeout=5).status_code == 200:
                    return
            except self.requests.ConnectionError:
                pass
            time.sleep(0.5)
        raise AssertionError(f"the hub did not answer within 120 s:\n{self.log()}")

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
    def login(self, name: str, password: str = PASSWORD):
        session = self.requests.Session()
        session.get(f"{self.url}/hub/login", timeout=30)
        response = session.post(f"{self.url}/hub/login", timeout=60, allow_redirects=False,
                                data={"username": name, "password": password, "_xsrf": session.cookies["_xsrf"]})
        return session, response

    def api(self, name: str, method: str, path: str, **kwargs):
        """A call to ``name``'s own JupyterLab server, with their token."""
        response = self.requests.request(method, f"{self.url}/user/{name}/{path}", timeout=300,
                                         headers={"Authorization": f"token {self.tokens[name]}"}, **kwargs)
        assert response.status_code < 400, f"{method} {path}: {response.status_code} {response.text[:500]}"
        return response

    def pull(self, name: str, link: str) -> list[dict]:
        """Open the nbgitpuller link in ``name``'s browser, then run the sync its page starts."""
        session = self.sessions[name]
        page = session.get(link, timeout=120)
        assert page.status_code == 200 and "nbgitpuller" in page.text.lower(), (page.url, page.text[:300])
        assert page.url.startswith(f"{self.url}/user/{name}/git-pull?"), page.url
        query = {key: values[0] for key, values in parse_qs(urlparse(link).query).items()}
        events = []
        with self.requests.get(f"{self.url}/user/{name}/git-pull/api", timeout=300, stream=True,
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


@pytest.fixture(scope="module")
def classroom(tmp_path_factory):
    missing = [what for what, there in (("JupyterHub", shutil.which("jupyterhub", path=str(VENV_BIN))),
                                         ("nbgrader", shutil.which("nbgrader", path=str(VENV_BIN))),
                                         ("configurable-http-proxy", PROXY.exists()),
                                         ("git", shutil.which("git"))) if not there]
    if missing:
        message = f"the classroom test needs {', '.join(missing)}: run `make classroom-test`"
        if os.environ.get("MINIGRAD_REQUIRE_CLASSROOM"):
            pytest.fail(message)
        pytest.skip(message)
    room = Classroom(tmp_path_factory.mktemp("classroom"))
    try:
        room.start()
        yield room
    finally:
        room.stop()


def test_students_log_in(classroom):
    _, refused = classroom.login("alice", "wrong password")
    assert refused.status_code == 403, refused.status_code
    for name in STUDENTS:
        session, response = classroom.login(name)
        assert response.status_code == 302, (response.status_code, response.text[:300])
        classroom.sessions[name] = session
        # The student's own token, asked for with their login cookie (as the hub's token page does).
        made = session.post(f"{classroom.url}/hub/api/users/{name}/tokens", timeout=30,
                            headers={"X-XSRFToken": session.cookies.get("_xsrf", path="/hub/")},
                            json={"note": "classroom test", "expires_in": 3600})
        assert made.status_code == 201, made.text
        classroom.tokens[name] = made.json()["token"]
        started = classroom.requests.post(f"{classroom.url}/hub/api/users/{name}/server", timeout=60,
                                          headers={"Authorization": f"token {classroom.tokens[name]}"})
        assert started.status_code in (201, 202), started.text
    admin = {"Authorization": f"token {classroom.token}"}
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        users = classroom.requests.get(f"{classroom.url}/hub/api/users", headers=admin, timeout=30).json()
        ready = {user["name"] for user in users if user.get("servers", {}).get("", {}).get("ready")}
        if ready >= set(STUDENTS):
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


def test_the_nbgitpuller_link_gives_each_student_a_copy(classroom):
    link = nbgitpuller_link(classroom.url, f"file://{classroom.upstream}")
    for name in STUDENTS:
        classroom.pull(name, link)
        copy = classroom.homes / name / "minigrad"
        assert (copy / "notebooks" / "00_start_here.ipynb").exists()
        assert (copy / ".git").is_dir()
        # The page JupyterLab opens after the pull.
        opened = classroom.sessions[name].get(f"{classroom.url}/user/{name}/lab/tree/minigrad/notebooks/"
                                              "00_start_here.ipynb", timeout=60)
        assert opened.status_code == 200 and "JupyterLab" in opened.text
    assert (classroom.homes / "alice" / "minigrad").stat().st_ino != (classroom.homes / "bob" / "minigrad").stat().st_ino


async def run_notebook(classroom: Classroom, name: str, path: str) -> list[dict]:
    """Run every code cell of the notebook at ``path`` (in ``name``'s home) in a kernel that
    ``name``'s server starts, over the Jupyter websocket protocol, as JupyterLab does."""
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    session = classroom.api(name, "POST", "api/sessions", json={
        "path": path, "type": "notebook", "name": "", "kernel": {"name": "python3"}}).json()
    kernel = session["kernel"]["id"]
    url = f"ws://127.0.0.1:{classroom.port}/user/{name}/api/kernels/{kernel}/channels?session_id={uuid.uuid4().hex}"
    connection = await websocket_connect(HTTPRequest(url, headers={"Authorization": f"token {classroom.tokens[name]}"}))
    nb = json.loads((classroom.homes / name / path).read_text())
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
    assert Path(where[0]).parent == VENV_BIN and where[1] == str(classroom.homes / name / "minigrad" / "notebooks"), where


async def run_code(classroom: Classroom, name: str) -> list[str]:
    """The kernel's interpreter and working folder, for a notebook in ``name``'s copy."""
    path = "minigrad/notebooks/where.ipynb"
    classroom.api(name, "PUT", f"api/contents/{path}", json={"type": "notebook", "format": "json", "content": {
        "cells": [{"cell_type": "code", "source": "import os, sys\nprint(sys.executable)\nprint(os.getcwd())",
                   "metadata": {}, "outputs": [], "execution_count": None, "id": "where"}],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5}})
    try:
        results = await run_notebook(classroom, name, path)
    finally:
        classroom.api(name, "DELETE", f"api/contents/{path}")
    return results[0]["text"].split()


def test_a_second_pull_keeps_the_students_edits(classroom):
    path = "minigrad/notebooks/00_start_here.ipynb"
    model = classroom.api("alice", "GET", f"api/contents/{path}").json()
    cells = model["content"]["cells"]
    exercise = next(i for i, cell in enumerate(cells) if "exercise" in cell["metadata"].get("tags", []))
    cells[exercise]["source"] = "prediction = [2.0, 4.0, 6.0]   # alice's answer"
    classroom.api("alice", "PUT", f"api/contents/{path}", json={"type": "notebook", "format": "json",
                                                                "content": model["content"]})
    # Meanwhile the teacher fixes the notebook's first cell upstream and adds a file.
    upstream_nb = classroom.upstream / "notebooks" / "00_start_here.ipynb"
    nb = json.loads(upstream_nb.read_text())
    nb["cells"][0]["source"] = ["# 00 · Start here (updated by the teacher)\n"] + nb["cells"][0]["source"][1:]
    upstream_nb.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    (classroom.upstream / "ANNOUNCEMENT.md").write_text("Homework: notebook 06.\n")
    classroom.git("add", "-A")
    classroom.git("commit", "-q", "-m", "Teacher: a fix and an announcement")

    classroom.pull("alice", nbgitpuller_link(classroom.url, f"file://{classroom.upstream}"))
    copy = classroom.homes / "alice" / "minigrad"
    merged = json.loads((copy / "notebooks" / "00_start_here.ipynb").read_text())
    assert "".join(merged["cells"][exercise]["source"]) == "prediction = [2.0, 4.0, 6.0]   # alice's answer"
    assert "".join(merged["cells"][0]["source"]).startswith("# 00 · Start here (updated by the teacher)")
    assert (copy / "ANNOUNCEMENT.md").read_text() == "Homework: notebook 06.\n"
    # bob did not pull again: his copy is as it was.
    assert not (classroom.homes / "bob" / "minigrad" / "ANNOUNCEMENT.md").exists()


def nbgrader(classroom: Classroom, *args: str) -> str:
    result = subprocess.run([str(VENV_BIN / "nbgrader"), *args], cwd=classroom.course, env=classroom.env(),
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout + result.stderr


def test_an_assignment_is_released_submitted_autograded_and_exported(classroom):
    nbgrader_course.build(ROOT / "notebooks", classroom.course, exchange=str(classroom.exchange))
    nbgrader(classroom, "generate_assignment", ASSIGNMENT)
    nbgrader(classroom, "release_assignment", ASSIGNMENT)

    # nbgrader's student version is the student edition, cell for cell, plus grading metadata.
    released = read_notebook(classroom.course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    edition, _ = student_edition.student_notebook(read_notebook(NOTEBOOK_06))
    assert [(c.cell_type, c.source.rstrip("\n"), c.get("outputs")) for c in released.cells] == \
           [(c.cell_type, c.source.rstrip("\n"), c.get("outputs")) for c in edition.cells]

    notebook = f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
    for name in STUDENTS:
        listed = classroom.api(name, "GET", "assignments", params={"course_id": "minigrad"}).json()
        assert listed["success"] and [a["assignment_id"] for a in listed["value"]] == [ASSIGNMENT], listed
        classroom.api(name, "POST", "assignments/fetch", data={"course_id": "minigrad", "assignment_id": ASSIGNMENT})
        model = classroom.api(name, "GET", f"api/contents/{notebook}").json()
        for cell in model["content"]["cells"]:
            grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id", "")
            number = int(grade_id.split("_")[-1]) if grade_id.startswith("your_turn_") and grade_id[-1].isdigit() else None
            if number in submission(name):
                cell["source"] = submission(name)[number]
        classroom.api(name, "PUT", f"api/contents/{notebook}",
                      json={"type": "notebook", "format": "json", "content": model["content"]})
        submitted = classroom.api(name, "POST", "assignments/submit",
                                  data={"course_id": "minigrad", "assignment_id": ASSIGNMENT}).json()
        assert submitted["success"], submitted

    nbgrader(classroom, "collect", ASSIGNMENT)
    assert sorted(p.name for p in (classroom.course / "submitted").iterdir()) == sorted(STUDENTS)
    nbgrader(classroom, "autograde", ASSIGNMENT)
    nbgrader(classroom, "generate_feedback", ASSIGNMENT)
    nbgrader(classroom, "release_feedback", ASSIGNMENT)
    nbgrader(classroom, "export", "--to", "grades.csv")

    with open(classroom.course / "grades.csv", newline="") as table:
        rows = list(csv.DictReader(table))
    scores = {row["student_id"]: (row["assignment"], float(row["score"]), float(row["max_score"])) for row in rows}
    assert scores == {name: (ASSIGNMENT, score, 4.0) for name, score in EXPECTED_SCORES.items()}, rows

    # bob fetches his feedback: the checker's own words for each wrong answer.
    classroom.api("bob", "POST", "assignments/fetch_feedback", data={"course_id": "minigrad", "assignment_id": ASSIGNMENT})
    feedback = list((classroom.homes / "bob" / ASSIGNMENT / "feedback").glob(f"*/{ASSIGNMENT}.html"))
    assert len(feedback) == 1, feedback
    html = feedback[0].read_text()
    assert "✗ Your turn 1: skip the gradients nobody needs — not yet." in html
    assert "✓ Your turn 4" in html


def test_students_do_not_get_the_grading_tools(classroom):
    response = classroom.requests.get(f"{classroom.url}/user/alice/formgrader", timeout=60,
                                      headers={"Authorization": f"token {classroom.tokens['alice']}"})
    assert response.status_code == 404, response.status_code
    classroom.api("alice", "GET", "assignments", params={"course_id": "minigrad"})


def test_stopping_the_hub_leaves_no_process_behind(classroom):
    running = descendants(classroom.hub.pid)
    assert len(running) >= len(STUDENTS) + 1, running   # the proxy and a server per student at least
    left = classroom.stop()
    assert not left, f"still running after the hub stopped: {sorted(left)}"
    assert not processes_with(classroom.marker)
