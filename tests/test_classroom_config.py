"""The classroom's files, checked without starting anything (tests/test_classroom.py runs the
class end to end with `make classroom-test`): the nbgrader assignments made from every notebook,
the hub's and the students' configuration, the proxy's npm files, the Zero to JupyterHub values,
and the nbgitpuller link.
"""
from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml
from traitlets.config import Config

from tools import nbgrader_course, student_edition
from tools.classroom import nbgitpuller_link, publish_student_branch
from tools.course import editions, notebook_paths, read_notebook, tags

ROOT = Path(__file__).resolve().parent.parent
CLASSROOM = ROOT / "classroom"
NOTEBOOKS = ROOT / "notebooks"
ALL = [(language, path) for language, folder in editions(NOTEBOOKS).items() for path in notebook_paths(folder)]


def clear_regions(source: str, begin: str, end: str) -> str:
    """What nbgrader's ClearSolutions (with the course folder's empty stub) and ClearHiddenTests do
    to a cell: the lines from ``begin`` to ``end`` go; a solution region leaves one empty line."""
    lines, inside, kept = source.split("\n"), False, []
    for line in lines:
        if begin in line:
            inside = True
            if "SOLUTION" in begin:
                kept.append("")
        elif end in line:
            inside = False
        elif not inside:
            kept.append(line)
    return "\n".join(kept)


@pytest.mark.parametrize("language, path", ALL, ids=[f"{lang}/{p.stem}" for lang, p in ALL])
def test_each_exercise_becomes_a_solution_region_and_a_graded_check(language, path):
    original = read_notebook(path)
    graded, exercises = nbgrader_course.source_notebook(original, language)
    solutions = [i for i, cell in enumerate(original.cells) if "solution" in tags(cell)]
    assert exercises and len(exercises) == len(solutions)
    assert sorted(e.number for e in exercises) == list(range(1, len(exercises) + 1))
    ids = [cell.metadata["nbgrader"]["grade_id"] for cell in graded.cells if "nbgrader" in cell.metadata]
    assert len(ids) == len(set(ids)) == 2 * len(exercises) + 1
    for solution in solutions:
        starter, check = graded.cells[solution - 2], graded.cells[solution - 1]
        number, call = nbgrader_course.check_call(original.cells[solution - 1].source)
        # The solution cell: the starter, then the worked solution without its check call.
        assert starter.metadata.nbgrader["solution"] and not starter.metadata.nbgrader["grade"]
        region = starter.source.split(nbgrader_course.BEGIN_SOLUTION + "\n", 1)[1]
        assert region.endswith("\n" + nbgrader_course.END_SOLUTION)
        assert call not in region and region.strip()
        kept = [line for line in original.cells[solution].source.split("\n") if line.rstrip(" ;") != call]
        assert region.split("\n")[:-1] == "\n".join(kept).strip("\n").split("\n")
        # The test cell: worth points, locked, and graded by the course's checker, with nothing
        # hidden (what students get is what nbgrader grades: its checksum never changes).
        meta = check.metadata.nbgrader
        assert meta["grade"] and meta["locked"] and meta["points"] == nbgrader_course.POINTS
        assert check.source == f"{call}.for_nbgrader()"
        assert "HIDDEN" not in check.source
        ast.parse(check.source)
        ast.parse(starter.source)
    setup = next(cell for cell in graded.cells if cell.cell_type == "code")
    assert setup.metadata.nbgrader["locked"] and " as check" in setup.source
    assert graded.metadata.kernelspec.language == "python"
    nbformat.validate(graded)


@pytest.mark.parametrize("language, path", ALL, ids=[f"{lang}/{p.stem}" for lang, p in ALL])
def test_the_students_version_is_the_student_edition(language, path):
    """nbgrader's student version (solution regions cleared) has the student edition's cells: the
    starters (which run), the course's checks, each handing its verdict to nbgrader (they never
    raise outside nbgrader: Run All works), the folded hints, and no stored feedback.
    tests/test_classroom.py compares nbgrader's real output for one notebook."""
    original = read_notebook(path)
    graded, _ = nbgrader_course.source_notebook(original, language)
    edition, _ = student_edition.student_notebook(original, language)
    students = []
    for cell in graded.cells:
        source = clear_regions(cell.source, nbgrader_course.BEGIN_SOLUTION, nbgrader_course.END_SOLUTION)
        students.append((cell.cell_type, source.rstrip("\n"), cell.get("outputs")))
    expected = []
    for cell in edition.cells:
        source = cell.source.rstrip("\n")
        if cell.cell_type == "code" and "nbgrader" in graded.cells[len(expected)].metadata \
                and graded.cells[len(expected)].metadata.nbgrader["grade"]:
            source = f"{nbgrader_course.check_call(source)[1]}.for_nbgrader()"
        expected.append((cell.cell_type, source, cell.get("outputs")))
    assert students == expected


@pytest.mark.parametrize("answer, passed", [("answer = 42", True), ("answer = 0", False)])
def test_a_check_cell_fails_only_while_nbgrader_runs_it(tmp_path, answer, passed):
    """The graded check cell in a kernel as nbgrader's Validate runs it (NBGRADER_EXECUTION=validate):
    a wrong answer writes its verdict to stderr (nbgrader fails a cell that does, and shows it), a
    right one writes nothing there; in a student's own run (no NBGRADER_EXECUTION) nothing goes to
    stderr. A real checker of notebook 00 grades. Nothing raises: no traceback shows the checker."""
    original = read_notebook(NOTEBOOKS / "00_start_here.ipynb")
    graded, exercises = nbgrader_course.source_notebook(original)
    check = next(cell for cell in graded.cells if cell.metadata.get("nbgrader", {}).get("grade"))
    setup = next(cell for cell in graded.cells if cell.cell_type == "code")
    starter = next(cell for cell in graded.cells if cell.metadata.get("nbgrader", {}).get("solution"))
    solution = starter.source.split(nbgrader_course.BEGIN_SOLUTION + "\n")[1].split("\n" + nbgrader_course.END_SOLUTION)[0]
    code = "\n".join([setup.source, solution if passed else starter.source.split(nbgrader_course.BEGIN_SOLUTION)[0],
                      check.source])
    script = tmp_path / "graded.py"
    script.write_text(code)
    for grading in ("validate", None):
        env = {k: v for k, v in __import__("os").environ.items() if k != "NBGRADER_EXECUTION"}
        if grading:
            env["NBGRADER_EXECUTION"] = grading
        ran = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
        assert ran.returncode == 0, ran.stderr[-500:]
        assert ("✓" if passed else "✗") in ran.stdout
        failed = grading is not None and not passed
        assert ran.stderr.startswith("✗ Your turn 1") == failed and (ran.stderr == "") == (not failed), ran.stderr


def test_the_course_folder_is_written_once_and_the_teachers_config_kept(tmp_path):
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    (notebooks / "zh").mkdir()
    for name in ("00_start_here.ipynb", "06_needs_input_grad_and_friends.ipynb"):
        (notebooks / name).write_bytes((NOTEBOOKS / name).read_bytes())
    (notebooks / "zh" / "00_start_here.ipynb").write_bytes((NOTEBOOKS / "zh" / "00_start_here.ipynb").read_bytes())
    course = tmp_path / "course"
    (course / "source" / "99_gone").mkdir(parents=True)
    (course / "source" / "99_gone" / "99_gone.ipynb").write_text("{}")
    result = subprocess.run([sys.executable, "-m", "tools.nbgrader_course", str(notebooks), str(course),
                             "--course-id", "autograd101"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in (course / "source").iterdir() if any(p.iterdir())) == \
        ["00_start_here", "06_needs_input_grad_and_friends", "zh_00_start_here"]
    assert "4 graded exercise(s), 4 point(s)" in result.stdout
    config = (course / "nbgrader_config.py").read_text()
    assert "c.CourseDirectory.course_id = 'autograd101'" in config
    namespace = {"get_config": Config}
    exec(compile(config, "nbgrader_config.py", "exec"), namespace)
    c = namespace["c"]
    assert c.ClearSolutions.code_stub == {"python": ""} and c.ClearOutput.enabled is False
    (course / "nbgrader_config.py").write_text(config + "# the teacher's edit\n")
    nbgrader_course.main([str(notebooks), str(course)])
    assert (course / "nbgrader_config.py").read_text().endswith("# the teacher's edit\n")


def run_config(path: Path, environ: dict | None = None, monkeypatch=None) -> Config:
    """Run a JupyterHub or nbgrader config file as they do, and return its config."""
    if environ and monkeypatch:
        for key, value in environ.items():
            monkeypatch.setenv(key, value)
    def load_subconfig(name):   # as JupyterHub does: the file's settings go into the same config
        exec(compile(Path(name).read_text(), name, "exec"), {"get_config": namespace["get_config"]})

    namespace = {"get_config": lambda: namespace.setdefault("_c", Config()), "__file__": str(path),
                 "load_subconfig": load_subconfig}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace["c"]


def test_the_hub_gives_each_student_the_course_environment(tmp_path, monkeypatch):
    state = tmp_path / "state"
    state.mkdir(mode=0o755)
    (state / "students.txt").write_text("alice\nbob   # second row\n\n# carol left\n")
    (state / "teachers.txt").write_text("teacher\n")
    gitconfig = tmp_path / "gitconfig"
    c = run_config(CLASSROOM / "jupyterhub_config.py", {"MINIGRAD_HUB_STATE": str(state),
                   "MINIGRAD_STUDENT_GITCONFIG": str(gitconfig), "MINIGRAD_LOCAL_REPOS": "/srv/git/course.git"}, monkeypatch)
    assert state.stat().st_mode & 0o777 == 0o700           # the database and cookie secret: root's alone
    # Students' git trusts the course's repositories on this machine (nbgitpuller links by path).
    assert c.Spawner.environment["GIT_CONFIG_SYSTEM"] == str(gitconfig)
    assert gitconfig.stat().st_mode & 0o777 == 0o644
    trusted = [line.split("=", 1)[1].strip() for line in gitconfig.read_text().splitlines() if "directory =" in line]
    assert trusted == [str(ROOT), f"{ROOT}/.git", "/srv/git/course.git", "/srv/git/course.git/.git"]
    assert "path = /etc/gitconfig" in gitconfig.read_text()
    assert c.JupyterHub.concurrent_spawn_limit == 20
    assert c.Authenticator.allowed_users == {"alice", "bob", "teacher"}
    assert c.Authenticator.admin_users == {"teacher"}
    assert c.JupyterHub.authenticator_class == "pam" and c.LocalAuthenticator.create_system_users
    assert c.JupyterHub.spawner_class == "tools.hub_spawner.CappedSpawner"      # LocalProcessSpawner, capped
    assert c.Spawner.mem_limit == "1G"
    assert c.Spawner.cmd == [str(ROOT / ".venv-classroom" / "bin" / "jupyterhub-singleuser")]
    assert c.Spawner.default_url == "/lab"
    paths = c.Spawner.environment["JUPYTER_CONFIG_PATH"].split(":")
    assert paths == [str(CLASSROOM / "student-config"), str(ROOT / "jupyter-config")]
    assert all(Path(p).is_dir() for p in paths)
    assert c.Spawner.environment["PATH"].startswith(str(ROOT / ".venv-classroom" / "bin") + ":")
    assert c.JupyterHub.db_url == f"sqlite:///{state / 'jupyterhub.sqlite'}"
    package = json.loads((CLASSROOM / "package.json").read_text())
    assert c.ConfigurableHTTPProxy.command == [str(CLASSROOM / "node_modules" / ".bin" / "configurable-http-proxy")]
    assert "configurable-http-proxy" in package["dependencies"]

    class Spawner:   # what pre_spawn_hook reads
        def __init__(self, admin):
            self.user = type("User", (), {"admin": admin, "name": "no-such-account-minigrad"})()
            self.environment = dict(c.Spawner.environment)

    teacher, student = Spawner(True), Spawner(False)
    c.Spawner.pre_spawn_hook(teacher)
    c.Spawner.pre_spawn_hook(student)
    assert teacher.environment["JUPYTER_CONFIG_PATH"].split(":") == [str(CLASSROOM / "teacher-config"), str(ROOT / "jupyter-config")]
    assert student.environment == c.Spawner.environment


def test_the_teachers_formgrader_finds_the_course_folder_in_their_home(monkeypatch):
    monkeypatch.delenv("MINIGRAD_COURSE_DIR", raising=False)
    monkeypatch.setenv("HOME", "/home/teacher")
    c = run_config(CLASSROOM / "teacher-config" / "nbgrader_config.py")
    assert c.CourseDirectory.root == "/home/teacher/minigrad-course"
    assert c.Exchange.root == nbgrader_course.EXCHANGE


def test_a_local_config_file_is_read_last(tmp_path, monkeypatch):
    """HTTPS and other local settings go in classroom/local_config.py (ignored by git), read last."""
    copy = tmp_path / "classroom"
    shutil.copytree(CLASSROOM / "student-config", copy / "student-config")
    shutil.copy(CLASSROOM / "jupyterhub_config.py", copy / "jupyterhub_config.py")
    (copy / "local_config.py").write_text("c = get_config()\nc.JupyterHub.ssl_cert = '/etc/ssl/hub.pem'\n"
                                          "c.JupyterHub.concurrent_spawn_limit = 5\n")
    c = run_config(copy / "jupyterhub_config.py", {"MINIGRAD_HUB_STATE": str(tmp_path / "state"),
                   "MINIGRAD_STUDENT_GITCONFIG": str(tmp_path / "gitconfig")}, monkeypatch)
    assert c.JupyterHub.ssl_cert == "/etc/ssl/hub.pem" and c.JupyterHub.concurrent_spawn_limit == 5
    names = ["classroom/local_config.py", "classroom/student-config/gitconfig"]
    ignored = subprocess.run(["git", "check-ignore", *names], cwd=ROOT, capture_output=True, text=True)
    assert ignored.stdout.split() == names, ignored


def test_the_course_folder_is_outside_the_checkout_by_default():
    """`make classroom` writes the gradebook's folder in the teacher's home, not in the checkout
    every account on the hub's machine can read."""
    shown = subprocess.run(["make", "-n", "--no-print-directory", "classroom", "HOME=/home/teacher"], cwd=ROOT,
                           capture_output=True, text=True, timeout=60)
    assert "-m tools.nbgrader_course notebooks /home/teacher/minigrad-course" in shown.stdout, shown.stdout[-2000:]


def test_students_and_teacher_share_the_course_id_and_the_exchange(tmp_path, monkeypatch):
    c = run_config(CLASSROOM / "student-config" / "nbgrader_config.py", {"JUPYTERHUB_USER": "alice"}, monkeypatch)
    assert c.CourseDirectory.course_id == nbgrader_course.COURSE_ID
    assert c.Exchange.root == nbgrader_course.EXCHANGE
    assert c.CourseDirectory.student_id == "alice"
    hub = run_config(CLASSROOM / "jupyterhub_config.py", {"MINIGRAD_HUB_STATE": str(tmp_path),
                     "MINIGRAD_STUDENT_GITCONFIG": str(tmp_path / "gitconfig")}, monkeypatch)
    assert hub.Spawner.environment["NBGRADER_EXCHANGE"] == nbgrader_course.EXCHANGE
    disabled = json.loads((CLASSROOM / "student-config" / "jupyter_server_config.d" / "nbgrader-students.json").read_text())
    assert disabled["ServerApp"]["jpserver_extensions"]["nbgrader.server_extensions.formgrader"] is False
    lab = json.loads((CLASSROOM / "student-config" / "labconfig" / "page_config.json").read_text())
    assert lab["disabledExtensions"]["@jupyter/nbgrader:formgrader"] is True


def test_the_proxy_is_pinned_and_locked():
    package = json.loads((CLASSROOM / "package.json").read_text())
    lock = json.loads((CLASSROOM / "package-lock.json").read_text())
    pinned = package["dependencies"]["configurable-http-proxy"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", pinned), "pin an exact version: npm ci installs the lock"
    assert lock["packages"][""]["dependencies"] == package["dependencies"]
    assert lock["packages"]["node_modules/configurable-http-proxy"]["version"] == pinned


def test_the_zero_to_jupyterhub_values_follow_the_charts_schema_and_suit_a_class():
    import jsonschema

    values = yaml.safe_load((CLASSROOM / "z2jh-values.yaml").read_text())
    schema = json.loads((CLASSROOM / "z2jh-values.schema.json").read_text())
    jsonschema.validate(values, schema)
    single = values["singleuser"]
    assert single["image"]["name"] and single["image"]["tag"]
    assert single["memory"]["limit"] and single["cpu"]["limit"] and single["storage"]["capacity"]
    assert single["defaultUrl"] == "/lab" and single["extraEnv"]["NBGITPULLER_APP"] == "lab"
    for folder in single["extraEnv"]["JUPYTER_CONFIG_PATH"].split(":"):   # the repository is in /srv/repo
        assert (ROOT / Path(folder).relative_to("/srv/repo")).is_dir(), folder
    assert single["extraEnv"]["NBGRADER_EXCHANGE"] == nbgrader_course.EXCHANGE
    # Students' work lives in the persistent home: the server starts there, and serves it.
    home = single["storage"]["homeMountPath"]
    assert single["workingDir"] == home == values["hub"]["config"]["KubeSpawner"]["notebook_dir"]
    assert values["cull"]["enabled"] is True and values["cull"]["maxAge"] > values["cull"]["timeout"]
    assert values["proxy"]["https"]["enabled"] is True and values["proxy"]["https"]["hosts"]
    assert "admin_access" not in json.dumps(values)                  # roles and scopes instead
    teacher = values["hub"]["loadRoles"]["teacher"]
    assert "access:servers" in teacher["scopes"] and teacher["users"]
    assert "DummyAuthenticator" not in json.dumps(values["hub"]) and "dummy" not in json.dumps(values["hub"])
    assert values["hub"]["config"]["JupyterHub"]["authenticator_class"] == "github"


@pytest.mark.parametrize("change", ["singleuser.memory.limt", "proxy.https.type", "cull.timeout", "hub.loadRoles.teacher"])
def test_the_values_schema_refuses_a_mistake(change):
    """A misspelt key, a value of the wrong kind or a role without scopes fails the schema."""
    import jsonschema

    values = yaml.safe_load((CLASSROOM / "z2jh-values.yaml").read_text())
    *path, last = change.split(".")
    parent = values
    for key in path:
        parent = parent[key]
    if change.endswith("limt"):
        parent["limt"] = parent.pop("limit")
    elif change == "proxy.https.type":
        parent[last] = "letsencrypt-staging"
    elif change == "cull.timeout":
        parent[last] = "one hour"
    else:
        del parent[last]["scopes"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(values, json.loads((CLASSROOM / "z2jh-values.schema.json").read_text()))


def test_the_passwords_command_gives_each_name_in_the_rosters_a_password(tmp_path):
    (tmp_path / "students.txt").write_text("alice\nbob  # second\n")
    (tmp_path / "teachers.txt").write_text("teacher\n")
    result = subprocess.run([sys.executable, "-m", "tools.classroom", "passwords", str(tmp_path / "students.txt"),
                             str(tmp_path / "teachers.txt")], cwd=ROOT, capture_output=True, text=True, timeout=60)
    lines = result.stdout.split()
    assert [line.split(":")[0] for line in lines] == ["alice", "bob", "teacher"]
    assert len({line.split(":")[1] for line in lines}) == 3


def test_the_student_branch_holds_the_student_edition_only(tmp_path):
    """`make student-branch`: a commit of the student edition on top of the branch's last one;
    the working tree and the current branch stay as they were."""
    repo = tmp_path / "course"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{ROOT}", str(repo)], check=True)
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    first, new = publish_student_branch(repo)
    assert new and publish_student_branch(repo) == (first, False)
    files = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "--name-only", "student"],
                           capture_output=True, text=True, check=True).stdout.split()
    assert "README.md" in files and all(f == "README.md" or f.startswith("notebooks/") for f in files)
    assert "notebooks/ctx_cheatsheet.md" in files and "notebooks/zh/GLOSSARY.md" in files
    assert not any("translations" in f for f in files)
    notebooks = sorted(f for f in files if f.endswith(".ipynb"))
    assert notebooks == sorted(f"notebooks/{p.relative_to(NOTEBOOKS)}" for _, p in ALL)
    shown = subprocess.run(["git", "-C", str(repo), "show", "student:notebooks/06_needs_input_grad_and_friends.ipynb"],
                           capture_output=True, text=True, check=True).stdout
    assert not any("solution" in cell.metadata.get("tags", []) for cell in nbformat.reads(shown, 4).cells)
    assert subprocess.run(["git", "-C", str(repo), "status", "--porcelain"], capture_output=True, text=True).stdout == ""
    assert subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout == head
    # A new commit of the course: a new student commit whose parent is the last one.
    nb = repo / "notebooks" / "00_start_here.ipynb"
    nb.write_text(nb.read_text().replace("Start here", "Start here (new)", 1))
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=T", "-c", "user.email=t@example.edu", "commit", "-qam", "x"], check=True)
    second, new = publish_student_branch(repo)
    parent = subprocess.run(["git", "-C", str(repo), "rev-parse", f"{second}^"], capture_output=True, text=True).stdout.strip()
    assert new and parent == first


def test_the_link_command_prints_the_nbgitpuller_link():
    result = subprocess.run([sys.executable, "-m", "tools.classroom", "link", "--hub", "https://hub.example.edu",
                             "--repo", "https://github.com/x/minigrad", "--language", "zh"],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == nbgitpuller_link("https://hub.example.edu", "https://github.com/x/minigrad",
                                                     language="zh")
    assert result.stdout.strip().endswith("urlpath=lab%2Ftree%2Fminigrad%2Fnotebooks%2Fzh%2F00_start_here.ipynb")


def test_a_local_path_becomes_a_file_url_and_the_command_says_where_the_clone_lands(tmp_path):
    result = subprocess.run([sys.executable, "-m", "tools.classroom", "link", "--hub", "http://hub:8000",
                             "--repo", str(tmp_path / "course"), "--branch", "student"],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == nbgitpuller_link("http://hub:8000", (tmp_path / "course").as_uri(), branch="student")
    assert "in ~/course/" in result.stderr and "branch student" in result.stderr
