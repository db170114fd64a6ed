"""The learner's workspace: their own copy of the course, which course updates reach without
losing their work.

``make lab`` serves ``workspace/notebooks/`` and ``make lab-student`` ``workspace/student/``
(``workspace/`` is git-ignored), never the course's own ``notebooks/``. Running a notebook,
JupyterLab's autosave and the learner's edits change only their copy: ``git status`` stays clean,
nbval keeps checking the course's stored outputs, and ``git pull`` never meets a learner's edit.

Each workspace keeps, in ``workspace/.course/<name>/``, the course's version of every file as it
was last brought in (the *base*). Bringing the course in (at every ``make lab``, and by
``make update`` after ``git pull``) compares three versions of each file, the base, the
learner's and the course's:

- a file the workspace lacks is copied in (a new notebook, or one the learner deleted to start
  it over);
- a file the course did not change is left as the learner has it;
- a file the course changed replaces the learner's copy when the learner did not change it;
- a notebook both changed is merged cell by cell with nbdime: the learner's cells and the
  course's changes are both kept; where both changed the same cell, its source holds both
  versions between ``<<<<<<< your version`` and ``>>>>>>> the course's new version`` lines.
  The learner's notebook as it was is first saved in ``workspace/.backup/``;
- any other file both changed (the cheat sheet) keeps the learner's version, and the course's
  is written beside it as ``NAME (course update).md``.

The Chinese edition is in ``zh/``, with its own file names (``00_start_here.zh.ipynb``), so that
JupyterLab's tabs tell the two editions apart (a tab shows the file's name).

Usage, from the repository's root (``make lab``, ``make lab-student`` and ``make update`` run it)::

    python -m tools.workspace sync [course|student|all]   # bring the course in
    python -m tools.workspace pull                         # `git pull` the course, safely

>>> workspace_name("zh/00_start_here.ipynb")
'zh/00_start_here.zh.ipynb'
>>> workspace_name("00_start_here.ipynb"), workspace_name("zh/GLOSSARY.md")
('00_start_here.ipynb', 'zh/GLOSSARY.md')
>>> relabel_conflicts("<<<<<<< local\\nmine\\n=======\\ntheirs\\n>>>>>>> remote").split("\\n")
['<<<<<<< your version', 'mine', '=======', 'theirs', ">>>>>>> the course's new version"]
"""
from __future__ import annotations

import argparse
import copy
import datetime
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COURSE = ROOT / "notebooks"
WORKSPACE = ROOT / "workspace"
# What each workspace is made from: the course's notebooks, or the student edition built from them.
EDITIONS = {"course": "notebooks", "student": "student"}
CONFLICT_LABELS = {
    "en": ("your version", "the course's new version"),
    "zh": ("你的版本", "课程的新版本"),
}


def workspace_name(relative: str) -> str:
    """A course file's name in the workspace: a translated notebook gets its language in its name."""
    path = Path(relative)
    if len(path.parts) > 1 and path.suffix == ".ipynb":
        return str(path.with_suffix(f".{path.parts[0]}.ipynb"))
    return relative


def relabel_conflicts(source: str, language: str = "en") -> str:
    """nbdime's conflict lines (``<<<<<<< local``, ``>>>>>>> remote``), said for a learner."""
    mine, theirs = CONFLICT_LABELS[language]
    lines = source.split("\n")
    lines = [f"<<<<<<< {mine}" if line == "<<<<<<< local" else
             f">>>>>>> {theirs}" if line == ">>>>>>> remote" else line for line in lines]
    return "\n".join(lines)


def has_conflict(source: str) -> bool:
    return any(line.startswith("<<<<<<< ") for line in source.split("\n"))


# --- what the course has -----------------------------------------------------------------------

def git(*args: str, cwd: Path = ROOT, check: bool = False) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=check)


def in_git(root: Path = ROOT) -> bool:
    return shutil.which("git") is not None and git("rev-parse", "--is-inside-work-tree", cwd=root).returncode == 0


def changed_course_files(folder: Path, root: Path = ROOT) -> set[Path]:
    """Tracked files in ``folder`` that differ from the last commit (a learner's edits from before
    the workspace existed, or a maintainer's work)."""
    if not in_git(root):
        return set()
    listed = git("diff", "--name-only", "HEAD", "--", str(folder), cwd=root).stdout.split("\n")
    return {(root / name).resolve() for name in listed if name}


def committed_version(path: Path, root: Path = ROOT) -> bytes:
    """A tracked file as the last commit has it."""
    relative = path.resolve().relative_to(root.resolve()).as_posix()
    return subprocess.run(["git", "show", f"HEAD:{relative}"], cwd=root, capture_output=True, check=True).stdout


def course_files(source: Path, documents: Path = COURSE) -> dict[str, Path]:
    """Each file the workspace is made of (its name there -> the course's file): the notebooks of
    every edition in ``source``, and the markdown pages (cheat sheet, glossary) of ``documents``."""
    from tools.course import editions, notebook_paths

    files = {}
    for language, folder in editions(source).items():
        prefix = "" if language == "en" else f"{language}/"
        for path in notebook_paths(folder):
            files[workspace_name(prefix + path.name)] = path
    for language, folder in editions(documents).items():
        prefix = "" if language == "en" else f"{language}/"
        for path in sorted(folder.glob("*.md")):
            files[prefix + path.name] = path
    return files


# --- merging -----------------------------------------------------------------------------------

def merge_notebook(base: bytes, mine: bytes, course: bytes, language: str = "en") -> tuple[bytes, int]:
    """Merge the course's changes (``base`` -> ``course``) into the learner's notebook ``mine``
    with nbdime, cell by cell; returns the merged notebook and its number of conflicting cells.

    Sources: nbdime's ``inline`` strategy (a cell both changed holds both versions). Outputs follow
    their source: a cell whose new source came from the course gets the course's outputs, any other
    keeps the learner's (nbdime's ``use-local`` for outputs).
    """
    import nbdime
    import nbformat
    from nbdime.args import add_diff_args, add_generic_args, add_merge_args, process_diff_flags

    options = argparse.ArgumentParser()
    for add in (add_generic_args, add_diff_args, add_merge_args):
        add(options)
    args = options.parse_args(["--merge-strategy", "inline", "--output-strategy", "use-local"])
    process_diff_flags(args)
    base_nb, mine_nb, course_nb = (nbformat.reads(data.decode("utf-8"), as_version=4) for data in (base, mine, course))
    merged, _decisions = nbdime.merge_notebooks(base_nb, mine_nb, course_nb, args)
    theirs = {cell.get("id"): cell for cell in course_nb.cells}
    ours = {cell.get("id"): cell for cell in mine_nb.cells}
    conflicts = 0
    for cell in merged.cells:
        if has_conflict(cell.source):
            conflicts += 1
            cell.source = relabel_conflicts(cell.source, language)
            continue
        course_cell, own_cell = theirs.get(cell.get("id")), ours.get(cell.get("id"))
        if (cell.cell_type == "code" and course_cell is not None and own_cell is not None
                and cell.source == course_cell.source != own_cell.source):
            cell.outputs = copy.deepcopy(course_cell.get("outputs", []))
            cell.execution_count = course_cell.get("execution_count")
    return (nbformat.writes(merged) + "\n").encode("utf-8"), conflicts


# --- bringing the course in --------------------------------------------------------------------

@dataclass
class Report:
    """What a sync did, file by file (names as in the workspace)."""

    folder: Path
    created: bool = False
    copied: list[str] = field(default_factory=list)        # new to the workspace, or restored
    updated: list[str] = field(default_factory=list)       # course changes, learner had not changed it
    merged: list[str] = field(default_factory=list)        # both changed, merged without conflict
    conflicts: dict[str, int] = field(default_factory=dict)  # both changed the same cells: how many
    beside: list[str] = field(default_factory=list)        # course version written beside the learner's
    from_course_folder: list[str] = field(default_factory=list)  # seeded from edits in notebooks/
    backup: Path | None = None

    def lines(self) -> list[str]:
        where = display(self.folder)
        if self.created:
            said = [f"Created your workspace {where}/ from the course ({len(self.copied)} files): "
                    "JupyterLab opens it, and your changes stay there."]
        else:
            said = [f"Your workspace {where}/: " + (
                "the course has nothing new." if not (self.copied or self.updated or self.merged
                                                      or self.conflicts or self.beside)
                else "brought the course's changes in.")]
            said += [f"  new        {name}" for name in self.copied]
        said += [f"  updated    {name}" for name in self.updated]
        said += [f"  merged     {name} (your changes and the course's)" for name in self.merged]
        said += [f"  CONFLICT   {name}: {count} cell(s) you changed were changed by the course too; each "
                 "holds both versions between <<<<<<< and >>>>>>> lines: keep what you want, delete the rest"
                 for name, count in self.conflicts.items()]
        said += [f"  beside     {name}: you changed it, so the course's new version is beside it" for name in self.beside]
        said += [f"  yours      {name}: started from your changes to the course's own copy in notebooks/"
                 for name in self.from_course_folder]
        if self.backup:
            said.append(f"  Your notebooks as they were before merging are in {display(self.backup)}/.")
        return said


def display(path: Path) -> str:
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def beside_name(name: str) -> str:
    path = Path(name)
    return str(path.with_name(f"{path.stem} (course update){path.suffix}"))


def sync(files: dict[str, Path], folder: Path, state: Path, backups: Path, edited: set[Path] = frozenset(),
         root: Path = ROOT) -> Report:
    """Bring the course's ``files`` (workspace name -> course file) into the workspace ``folder``,
    keeping the learner's work; ``state`` holds the bases, ``backups`` the learner's notebooks
    as they were before a merge. ``edited`` course files (changed in place in the git clone
    ``root``) bring their committed version, and seed a workspace that lacks them."""
    report = Report(folder, created=not folder.exists())
    stamp = datetime.datetime.now().strftime("%Y-%m-%d_%H%M%S")
    for name, source in sorted(files.items()):
        target, base_path = folder / name, state / name
        if source.resolve() in edited:      # the course's version is the committed one
            course = committed_version(source, root)
            if not target.exists():
                write_atomically(target, source.read_bytes())
                write_atomically(base_path, course)
                report.from_course_folder.append(name)
                continue
        else:
            course = source.read_bytes()
        if not target.exists():
            write_atomically(target, course)
            write_atomically(base_path, course)
            report.copied.append(name)
            continue
        mine = target.read_bytes()
        if not base_path.exists():          # made by hand, or the state was deleted
            if mine != course:
                write_atomically(folder / beside_name(name), course)
                report.beside.append(name)
            write_atomically(base_path, course)
            continue
        base = base_path.read_bytes()
        if course == base:
            continue
        if mine == base:
            write_atomically(target, course)
            report.updated.append(name)
        elif mine != course and name.endswith(".ipynb"):
            report.backup = backups / stamp
            (report.backup / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(target, report.backup / name)
            merged, conflicts = merge_notebook(base, mine, course, "zh" if name.startswith("zh/") else "en")
            write_atomically(target, merged)
            if conflicts:
                report.conflicts[name] = conflicts
            else:
                report.merged.append(name)
        elif mine != course:
            write_atomically(folder / beside_name(name), course)
            report.beside.append(name)
        write_atomically(base_path, course)
    return report


def sync_edition(edition: str, workspace: Path = WORKSPACE, root: Path = ROOT) -> Report:
    """Bring the course (``course``: notebooks/; ``student``: the student edition, built first into
    build/student/) into its workspace folder."""
    if edition == "student":
        from tools import student_edition

        student_edition.build(root / "notebooks", root / "build" / "student")
        source, edited = root / "build" / "student", set()
    else:
        source = root / "notebooks"
        edited = changed_course_files(source, root)
    folder = workspace / EDITIONS[edition]
    return sync(course_files(source, root / "notebooks"), folder, workspace / ".course" / EDITIONS[edition],
                workspace / ".backup", edited, root)


# --- git pull ----------------------------------------------------------------------------------

def serving_workspace(workspace: Path = WORKSPACE) -> list[dict]:
    """The JupyterLab servers of this clone that serve a workspace folder."""
    from tools.lab import running_servers

    inside = workspace.resolve()
    return [server for server in running_servers()
            if inside in (Path(server.get("root_dir", "/")).expanduser().resolve(), *Path(
                server.get("root_dir", "/")).expanduser().resolve().parents)]


def pull(workspace: Path = WORKSPACE, root: Path = ROOT) -> int:
    """``git pull`` the course. Course notebooks changed in place (before the workspace existed)
    are first saved in the workspace's backups and given back their committed version."""
    running = serving_workspace(workspace)
    if running:
        ports = ", ".join(str(server.get("port")) for server in running)
        print(f"JupyterLab is serving your workspace (port {ports}). Save your notebooks and stop it "
              "(Ctrl-C in its terminal), then run `make update` again: notebooks it holds open would "
              "otherwise be saved over the update.", file=sys.stderr)
        return 1
    if not in_git(root):
        print("This course folder is not a git clone: there is nothing to pull. Download the new "
              "version of the course, and copy your workspace/ folder into it.", file=sys.stderr)
        return 1
    edited = sorted(changed_course_files(root / "notebooks", root))
    if edited:
        keep = workspace / ".backup" / datetime.datetime.now().strftime("%Y-%m-%d_%H%M%S") / "course-notebooks"
        for path in edited:
            relative = path.relative_to((root / "notebooks").resolve())
            (keep / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, keep / relative)
        git("checkout", "HEAD", "--", *map(str, edited), cwd=root, check=True)
        print(f"These course files had changes of yours: they are saved in {display(keep)}/ and the "
              f"course's own version is back in notebooks/:\n  " + "\n  ".join(
                  str(path.relative_to(root.resolve())) for path in edited))
    upstream = git("rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}", cwd=root)
    if upstream.returncode != 0:
        print("This clone's branch follows no remote branch, so there is no update to pull "
              "(git says: " + upstream.stderr.strip().split("\n")[0] + ").", file=sys.stderr)
        return 1
    print(f"Updating the course: git pull --ff-only ({upstream.stdout.strip()})", flush=True)
    run = subprocess.run(["git", "pull", "--ff-only", "--quiet"], cwd=root)
    if run.returncode != 0:
        print("git pull failed (above). Your workspace is untouched. If git names files you changed "
              "outside workspace/, `git stash` keeps them aside; then run `make update` again.", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    sync_parser = commands.add_parser("sync", help="bring the course into the workspace")
    sync_parser.add_argument("edition", nargs="?", default="course", choices=["course", "student", "all"],
                             help="all: the course's workspace, and the student edition's if it exists")
    commands.add_parser("pull", help="git pull the course (make update)")
    args = parser.parse_args(argv)
    if args.command == "pull":
        return pull()
    chosen = [args.edition] if args.edition != "all" else [
        "course", *(["student"] if (WORKSPACE / EDITIONS["student"]).exists() else [])]
    for edition in chosen:
        print("\n".join(sync_edition(edition).lines()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
