"""The class's JupyterHub: the student edition as a git branch, the nbgitpuller link that gives
each student a copy of it, passwords for a roster, and a check that students can run the course.

A student who opens the link logs in to the hub; nbgitpuller then clones the repository's branch
into their home folder (or, the next time, pulls the teacher's changes while keeping the student's
own edits) and opens the course's first notebook in JupyterLab.

Usage, from the repository's root (README.md, "Teaching a class"; every command but
``student-branch`` needs only the standard library)::

    python -m tools.classroom student-branch            # commit the student edition to branch `student`
    python -m tools.classroom link --hub https://hub.example.edu --repo /opt/minigrad --branch student
    python -m tools.classroom passwords students.txt teachers.txt   # name:password lines, for chpasswd
    python -m tools.classroom check-access              # as root: can a student's account run the course?
    python -m tools.classroom memory                    # one student's memory per notebook (.venv-classroom)

It also holds each student's memory cap on the hub (``cap_memory``, used by tools/hub_spawner.py).

>>> print(nbgitpuller_link("https://hub.example.edu/", "https://github.com/x/minigrad.git"))
https://hub.example.edu/hub/user-redirect/git-pull?repo=https%3A%2F%2Fgithub.com%2Fx%2Fminigrad.git&targetpath=minigrad&urlpath=lab%2Ftree%2Fminigrad%2Fnotebooks%2F00_start_here.ipynb
>>> print(nbgitpuller_link("http://127.0.0.1:8000", "file:///srv/course", branch="student", language="zh"))
http://127.0.0.1:8000/hub/user-redirect/git-pull?repo=file%3A%2F%2F%2Fsrv%2Fcourse&targetpath=course&urlpath=lab%2Ftree%2Fcourse%2Fnotebooks%2Fzh%2F00_start_here.ipynb&branch=student
"""
from __future__ import annotations

import argparse
import io
import os
import re
import secrets
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
FIRST_NOTEBOOK = "00_start_here.ipynb"
STUDENT_BRANCH = "student"
STUDENT_README = """# minigrad: the course, student edition

The notebooks of the minigrad course without their worked solutions: after each "Your turn"
check, a folded hint takes the solution's place. Start with `notebooks/00_start_here.ipynb`
(the Chinese edition: `notebooks/zh/00_start_here.ipynb`).

This copy is yours. Opening your teacher's link again brings their new changes and keeps your
edits; a file you deleted comes back.
"""


def folder_name(repo: str) -> str:
    """The folder a clone of ``repo`` gets in the student's home: its last path part, without
    ``.git`` (nbgitpuller would keep the ``.git``; the link names the folder itself).

    >>> folder_name("https://github.com/x/minigrad.git/"), folder_name("file:///srv/git/course")
    ('minigrad', 'course')
    """
    name = repo.rstrip("/").rsplit("/", 1)[-1]
    return name[:-len(".git")] if name.endswith(".git") else name


def repo_url(repo: str) -> str:
    """The repository as nbgitpuller should be given it: a URL stays; a path on the hub's machine
    becomes a ``file://`` URL, through which git fetches only the branch's last commit (a plain
    path makes a local clone: a copy of every branch's history).

    >>> repo_url("https://github.com/x/minigrad"), repo_url("git@github.com:x/minigrad.git")
    ('https://github.com/x/minigrad', 'git@github.com:x/minigrad.git')
    >>> repo_url("/opt/minigrad/")
    'file:///opt/minigrad'
    """
    if "://" in repo or re.match(r"^[\w.-]+@[\w.-]+:", repo):
        return repo
    return Path(repo).resolve().as_uri()


def nbgitpuller_link(hub: str, repo: str, branch: str | None = None, language: str = "en",
                     notebook: str = FIRST_NOTEBOOK, folder: str | None = None) -> str:
    """The link that clones (or updates) ``repo`` for the user who opens it into ``~/folder``
    (default: the repository's name) and opens ``notebook`` of the course
    (``notebooks/NOTEBOOK``, or ``notebooks/zh/NOTEBOOK``) in JupyterLab."""
    folder = folder or folder_name(repo)
    notebooks = "notebooks" if language == "en" else f"notebooks/{language}"
    query = {"repo": repo, "targetpath": folder, "urlpath": f"lab/tree/{folder}/{notebooks}/{notebook}"}
    if branch:
        query["branch"] = branch      # without it, nbgitpuller follows the repository's default branch
    return f"{hub.rstrip('/')}/hub/user-redirect/git-pull?{urlencode(query)}"


# ------------------------------------------------------------------ the student edition, as a branch
def git(repo: Path, *args: str, env: dict | None = None, text_input: bytes | None = None) -> str:
    result = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, input=text_input,
                            env=dict(os.environ, **(env or {})))
    if result.returncode:
        raise RuntimeError(f"git {' '.join(args)} failed: {result.stderr.decode(errors='replace').strip()}")
    return result.stdout.decode().strip()


def student_tree(repo: Path, commit: str, target: Path) -> None:
    """Write into ``target`` what students get: ``notebooks/`` (and ``notebooks/zh/``) of
    ``commit`` as the student edition, their other files (the cheat sheet, the glossary), a README."""
    from tools import student_edition   # nbformat: run this command with .venv or .venv-classroom

    archive = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", commit, "notebooks"],
                             capture_output=True, check=True).stdout
    course = target.parent / "course"
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(course, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    student_edition.build(course / "notebooks", target / "notebooks")
    for folder in (course / "notebooks", course / "notebooks" / "zh"):
        for path in folder.glob("*.md"):
            shutil.copy(path, target / path.relative_to(course))
    (target / "README.md").write_text(STUDENT_README, encoding="utf-8")


def publish_student_branch(repo: Path | str = ROOT, branch: str = STUDENT_BRANCH,
                           source: str = "HEAD") -> tuple[str, bool]:
    """Commit the student edition of ``source``'s notebooks to ``branch`` of ``repo``, on top of
    the branch's last commit, so that students' pulls merge; the working tree, the index and the
    current branch are not touched. Returns the branch's commit and whether it is new (False
    when the student edition has not changed)."""
    repo = Path(repo)
    commit = git(repo, "rev-parse", "--verify", f"{source}^{{commit}}")
    parent = subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify", "-q", f"refs/heads/{branch}"],
                            capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        tree_dir = Path(tmp) / "student"
        student_tree(repo, commit, tree_dir)
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index"), "GIT_WORK_TREE": str(tree_dir)}
        git(repo, "--work-tree", str(tree_dir), "add", "-A", "--", ".", env=env)
        tree = git(repo, "write-tree", env=env)
    if parent and git(repo, "rev-parse", f"{parent}^{{tree}}") == tree:
        return parent, False
    identity = {}
    if not subprocess.run(["git", "-C", str(repo), "config", "user.email"], capture_output=True).stdout.strip():
        identity = {"GIT_AUTHOR_NAME": "minigrad classroom", "GIT_AUTHOR_EMAIL": "classroom@localhost",
                    "GIT_COMMITTER_NAME": "minigrad classroom", "GIT_COMMITTER_EMAIL": "classroom@localhost"}
    message = f"Student edition of {commit[:12]}: notebooks without worked solutions (tools/classroom.py)"
    new = git(repo, "commit-tree", tree, *(["-p", parent] if parent else []), "-m", message, env=identity)
    git(repo, "update-ref", "-m", "student edition", f"refs/heads/{branch}", new, parent or "0" * 40)
    return new, True


# ----------------------------------------------------------------------------- accounts and access
def roster(path: Path | str) -> list[str]:
    """The account names in a roster file: one a line; blank lines and ``#`` comments ignored
    (the format of the hub's students.txt).

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
    ...     _ = f.write("alice\\nbob   # second row\\n\\n# carol left\\n")
    >>> roster(f.name)
    ['alice', 'bob']
    """
    names = [line.split("#")[0].strip() for line in Path(path).read_text().splitlines()]
    return [name for name in names if name]


def passwords(names: list[str], length: int = 12) -> list[str]:
    """``name:password`` lines, a fresh random password each, as ``chpasswd`` reads them.

    >>> lines = passwords(["alice", "bob"])
    >>> [line.split(":")[0] for line in lines], len(lines[0].split(":")[1]), lines[0] != lines[1]
    (['alice', 'bob'], 12, True)
    """
    alphabet = "abcdefghijkmnpqrstuvwxyz23456789"     # no 0/o, 1/l: read aloud or on paper
    return [f"{name}:{''.join(secrets.choice(alphabet) for _ in range(length))}" for name in names]


def student_access_problem(venv: Path | str = ROOT / ".venv-classroom", account: str = "nobody") -> str | None:
    """As root: run the course's Python as ``account``, as a student's server will. None when it
    works (or when not root: there is nothing to check), else what is wrong and how to fix it."""
    venv = Path(venv).absolute()
    if os.geteuid() != 0 or not shutil.which("runuser"):
        return None

    def as_account(*command: str) -> subprocess.CompletedProcess:
        return subprocess.run(["runuser", "-u", account, "--", *command], cwd="/", capture_output=True, text=True)

    ran = as_account(str(venv / "bin" / "python"), "-c", "import minigrad, jupyterhub, nbgrader")
    if ran.returncode == 0:
        return None
    checkout = venv.parent
    if as_account("test", "-r", str(checkout / "pyproject.toml")).returncode:
        return (f"Students' servers cannot read the checkout {checkout} (account {account} cannot; a folder "
                f"above it is private, such as /root). Students' servers run {venv}: put the checkout "
                "where every account can read it, e.g. `git clone ... /opt/minigrad` (README.md, 'The hub on one machine').")
    config = venv / "pyvenv.cfg"
    home = next((line.split("=", 1)[1].strip() for line in config.read_text().splitlines()
                 if line.startswith("home")), "?") if config.exists() else "?"
    return (f"Students' servers cannot run {venv}/bin/python: account {account} got\n  "
            f"{(ran.stderr or ran.stdout).strip().splitlines()[-1] if (ran.stderr or ran.stdout).strip() else ran.returncode}\n"
            f"Its Python comes from {home}, which other accounts may not be able to run (pyenv's under /root, "
            f"for example). Rebuild it from a Python every account can run: rm -rf {venv.name} && make "
            "classroom-venv PYTHON=/usr/bin/python3")


# ------------------------------------------------------------------------ one student's memory
CGROUP_ROOT = Path("/sys/fs/cgroup")
CGROUP_GROUP = "minigrad-students"


def _own_cgroup(controller: str) -> Path | None:
    """This process's cgroup folder for ``controller`` ("memory" in cgroups v1, "" for v2)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        number, controllers, path = line.split(":", 2)
        if (controller and controller in controllers.split(",")) or (not controller and number == "0"):
            base = CGROUP_ROOT / controller if controller else CGROUP_ROOT
            return base / path.lstrip("/")
    return None


def memory_cap_method() -> str:
    """How this machine can cap one student's memory, every process of theirs together:

    - ``"cgroup v2"``: a cgroup of cgroups v2 with the memory controller, writable by root (a
      delegated cgroup, such as a systemd service's with ``Delegate=yes``);
    - ``"cgroup v1"``: cgroups v1's memory controller, writable by root (this project's machine);
    - ``"rlimit"``: otherwise, a limit per process (RLIMIT_DATA) on the server and each kernel.
    """
    if os.geteuid() == 0:
        own = _own_cgroup("")
        if own and "memory" in _read(own / "cgroup.subtree_control").split() and os.access(own, os.W_OK):
            return "cgroup v2"
        own = _own_cgroup("memory")
        if own and (own / "memory.limit_in_bytes").exists() and os.access(own, os.W_OK):
            return "cgroup v1"
    return "rlimit"


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def student_cgroup(name: str, method: str | None = None) -> Path | None:
    """The folder of ``name``'s cgroup (made by :func:`cap_memory`), or None without cgroups."""
    method = method or memory_cap_method()
    own = _own_cgroup("" if method == "cgroup v2" else "memory") if method.startswith("cgroup") else None
    return own / CGROUP_GROUP / name if own else None


def cap_memory(name: str, limit: int, method: str | None = None) -> str:
    """Put this process (and so everything it starts: a student's server and its kernels) under
    ``limit`` bytes of memory in all. Called as root in the server's process just before it
    becomes the student's; returns the method used. Over the limit the kernel's OOM killer stops
    one of the student's processes (the biggest: the kernel that ran the cell), nobody else's."""
    method = method or memory_cap_method()
    folder = student_cgroup(name, method)
    if folder is not None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if method == "cgroup v2":
                (folder.parent / "cgroup.subtree_control").write_text("+memory")
                (folder / "memory.max").write_text(str(limit))
                (folder / "memory.swap.max").write_text("0") if (folder / "memory.swap.max").exists() else None
            else:
                (folder / "memory.limit_in_bytes").write_text(str(limit))
            (folder / "cgroup.procs").write_text(str(os.getpid()))
            return method
        except OSError:
            pass
    import resource
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    return "rlimit"


def release_memory_cap(name: str) -> None:
    """Remove ``name``'s cgroup once their server stopped (an empty cgroup is removed; a busy one stays)."""
    folder = student_cgroup(name)
    for path in (folder, folder.parent) if folder is not None else ():
        try:
            path.rmdir()              # the group's folder too, once no student is left in it
        except OSError:
            pass


def memory_of(pids, field: str = "Rss") -> int:
    """Bytes of memory the processes ``pids`` use: their resident set (``Rss``, every page they
    touch, shared libraries included), or ``Pss`` (a page shared by n processes counts 1/n)."""
    total = 0
    for pid in pids:
        try:
            text = Path(f"/proc/{pid}/smaps_rollup").read_text()
        except OSError:
            continue
        total += next(int(line.split()[1]) for line in text.splitlines() if line.startswith(f"{field}:")) * 1024
    return total


def measure_memory(notebooks: Path, names: list[str] | None = None) -> list[tuple[str, int, int]]:
    """One student's memory per notebook, as on the hub: a JupyterLab server, then each notebook
    run in a kernel of its own. Returns (notebook, the kernel's bytes, the server's bytes), resident
    sets (Rss) once the notebook ran."""
    import socket
    import time
    import nbformat
    from nbclient import NotebookClient

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory() as home:
        server = subprocess.Popen([str(Path(sys.executable).parent / "jupyter-lab"), "--no-browser", f"--port={port}",
                                   "--ip=127.0.0.1", "--IdentityProvider.token=x", f"--ServerApp.root_dir={home}",
                                   *(["--allow-root"] if os.geteuid() == 0 else [])],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                                  env=dict(os.environ, HOME=home))
        try:
            deadline = time.monotonic() + 180
            while server.poll() is None and time.monotonic() < deadline:
                with socket.socket() as probe:
                    if probe.connect_ex(("127.0.0.1", port)) == 0:
                        break
                time.sleep(1)
            results = []
            for path in sorted(notebooks.glob("*.ipynb")):
                if names and path.stem not in names:
                    continue
                nb = nbformat.read(str(path), as_version=4)
                client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(notebooks)}})
                with client.setup_kernel():
                    for index, cell in enumerate(nb.cells):
                        client.execute_cell(cell, index)
                    kernel = client.km.provisioner.process.pid
                    assert server.poll() is None, f"the JupyterLab server stopped ({server.returncode})"
                    results.append((path.stem, memory_of([kernel]), memory_of([server.pid])))
            return results
        finally:
            server.terminate()
            server.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    link = commands.add_parser("link", help="print the nbgitpuller link for a hub and a repository")
    link.add_argument("--hub", required=True, help="the hub's address, e.g. https://hub.example.edu")
    link.add_argument("--repo", required=True, help="the course's git repository: a URL, or a path on the hub's "
                      "machine (the hub must trust it: README.md, 'nbgitpuller links')")
    link.add_argument("--branch", help=f"the branch to pull ({STUDENT_BRANCH} for the student edition; "
                      "default: the repository's default branch)")
    link.add_argument("--language", choices=["en", "zh"], default="en", help="open the English or Chinese edition")
    link.add_argument("--notebook", default=FIRST_NOTEBOOK, help=f"the notebook to open ({FIRST_NOTEBOOK})")
    link.add_argument("--folder", help="the folder in the student's home (default: the repository's name)")
    branch = commands.add_parser("student-branch", help=f"commit the student edition to a branch ({STUDENT_BRANCH})")
    branch.add_argument("--repo", type=Path, default=ROOT, help="the repository (default: this checkout)")
    branch.add_argument("--branch", default=STUDENT_BRANCH, help=f"the branch to commit to ({STUDENT_BRANCH})")
    branch.add_argument("--source", default="HEAD", help="the commit whose notebooks to publish (HEAD)")
    words = commands.add_parser("passwords", help="print name:password lines (random passwords) for chpasswd")
    words.add_argument("roster", type=Path, nargs="+", help="files of one account name a line (the hub's students.txt, teachers.txt)")
    access = commands.add_parser("check-access", help="as root: check that students' accounts can run .venv-classroom")
    access.add_argument("--venv", type=Path, default=ROOT / ".venv-classroom")
    memory = commands.add_parser("memory", help="measure one student's memory per notebook (a JupyterLab server and a kernel)")
    memory.add_argument("notebooks", type=Path, nargs="?", default=ROOT / "notebooks")
    memory.add_argument("--only", action="append", help="only this notebook (its name without .ipynb)")
    args = parser.parse_args(argv)
    if args.command == "memory":
        rows = measure_memory(args.notebooks, args.only)
        print("notebook                                  kernel   server   one student (MB)")
        for name, kernel, server in rows:
            print(f"{name:40s} {kernel / 2**20:7.0f}  {server / 2**20:7.0f}  {(kernel + server) / 2**20:7.0f}")
        return 0
    if args.command == "link":
        repo = repo_url(args.repo)
        print(nbgitpuller_link(args.hub, repo, args.branch, args.language, args.notebook, args.folder))
        print(f"Students get {repo}{f' (branch {args.branch})' if args.branch else ''} in "
              f"~/{args.folder or folder_name(repo)}/ and land on its notebook "
              f"{'notebooks' if args.language == 'en' else 'notebooks/' + args.language}/{args.notebook}.",
              file=sys.stderr)
    elif args.command == "student-branch":
        commit, new = publish_student_branch(args.repo, args.branch, args.source)
        print(f"Branch {args.branch} of {args.repo}: {commit[:12]}, "
              + ("a new commit with the student edition of " if new else "unchanged: already the student edition of ")
              + f"{args.source}'s notebooks (uncommitted changes are not in it)")
    elif args.command == "passwords":
        print("\n".join(passwords([name for path in args.roster for name in roster(path)])))
    elif args.command == "check-access":
        problem = student_access_problem(args.venv)
        if problem:
            print(problem, file=sys.stderr)
            return 1
        print(f"Other accounts can run {args.venv}/bin/python and import the course"
              if os.geteuid() == 0 else "Not root: nothing to check (students' servers need the hub to run as root)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
