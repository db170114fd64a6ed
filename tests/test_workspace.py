"""tools/workspace.py: the learner's copy of the course, and course updates that keep their work.

Each case is one file in three versions (the course's as last brought in, the learner's, the
course's new one); the browser test (tests/test_workspace_browser.py) does the same through
JupyterLab and git.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools import lab, workspace  # noqa: E402


def notebook(*sources: str, outputs: dict[int, str] | None = None) -> nbformat.NotebookNode:
    """A notebook of a markdown cell and code cells with fixed ids (outputs: cell index -> text)."""
    cells = [nbformat.v4.new_markdown_cell(sources[0], id="title")]
    for index, source in enumerate(sources[1:], 1):
        cell = nbformat.v4.new_code_cell(source, id=f"code{index}")
        if outputs and index in outputs:
            cell.outputs = [nbformat.v4.new_output("stream", text=outputs[index])]
            cell.execution_count = index
        cells.append(cell)
    return nbformat.v4.new_notebook(cells=cells)


def write(path: Path, nb: nbformat.NotebookNode) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")


def read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(str(path), as_version=4)


@pytest.fixture
def place(tmp_path):
    """A course folder with one notebook and one page, and a sync of it into a workspace."""
    course = tmp_path / "course"
    write(course / "01_self.ipynb", notebook("# Title", "x = 1", "y = 2", outputs={1: "course 1\n"}))
    (course / "zh").mkdir()
    write(course / "zh" / "01_self.ipynb", notebook("# 标题", "x = 1"))
    (course / "cheatsheet.md").write_text("course text\n")
    files = {"01_self.ipynb": course / "01_self.ipynb", "zh/01_self.zh.ipynb": course / "zh" / "01_self.ipynb",
             "cheatsheet.md": course / "cheatsheet.md"}

    def sync() -> workspace.Report:
        return workspace.sync(files, tmp_path / "ws", tmp_path / "state", tmp_path / "backup")

    return course, tmp_path / "ws", sync


def test_the_first_sync_copies_the_course_and_the_next_finds_nothing_new(place):
    course, ws, sync = place
    report = sync()
    assert report.created and report.copied == ["01_self.ipynb", "cheatsheet.md", "zh/01_self.zh.ipynb"]
    assert (ws / "01_self.ipynb").read_bytes() == (course / "01_self.ipynb").read_bytes()
    again = sync()
    assert not again.created and again.lines() == [f"Your workspace {ws}/: the course has nothing new."]


def test_a_course_change_replaces_a_file_the_learner_left_alone(place):
    course, ws, sync = place
    sync()
    write(course / "01_self.ipynb", notebook("# Title, updated", "x = 1", "y = 2"))
    report = sync()
    assert report.updated == ["01_self.ipynb"] and read(ws / "01_self.ipynb").cells[0].source == "# Title, updated"


def test_the_learners_edit_stays_and_the_course_change_arrives(place):
    course, ws, sync = place
    sync()
    write(ws / "01_self.ipynb", notebook("# Title", "x = 1  # mine", "y = 2", outputs={1: "my run\n", 2: "mine 2\n"}))
    write(course / "01_self.ipynb", notebook("# Title, updated", "x = 1", "y = 3", outputs={1: "course 1\n", 2: "course 2\n"}))
    report = sync()
    assert report.merged == ["01_self.ipynb"] and not report.conflicts
    merged = read(ws / "01_self.ipynb")
    assert [cell.source for cell in merged.cells] == ["# Title, updated", "x = 1  # mine", "y = 3"]
    # Outputs follow their source: the learner's cell keeps the learner's run, the course's new
    # cell brings the course's output.
    assert [cell.outputs[0].text for cell in merged.cells[1:]] == ["my run\n", "course 2\n"]
    [backup] = report.backup.rglob("01_self.ipynb")
    assert read(backup).cells[1].source == "x = 1  # mine"
    assert "  merged     01_self.ipynb (your changes and the course's)" in report.lines()


@pytest.mark.parametrize("name, mine, theirs", [
    ("01_self.ipynb", "your version", "the course's new version"),
    ("zh/01_self.zh.ipynb", "你的版本", "课程的新版本"),
])
def test_a_cell_both_changed_holds_both_versions_said_for_a_learner(place, name, mine, theirs):
    course, ws, sync = place
    sync()
    source = course / ("zh/01_self.ipynb" if name.startswith("zh/") else "01_self.ipynb")
    start = read(ws / name)
    start.cells[1].source = "x = 'learner'"
    write(ws / name, start)
    changed = read(source)
    changed.cells[1].source = "x = 'course'"
    write(source, changed)
    report = sync()
    assert report.conflicts == {name: 1}
    cell = read(ws / name).cells[1].source
    assert cell == f"<<<<<<< {mine}\nx = 'learner'\n=======\nx = 'course'\n>>>>>>> {theirs}", cell
    assert any(line.startswith(f"  CONFLICT   {name}: 1 cell(s)") for line in report.lines())


def test_a_deleted_notebook_comes_back_and_a_changed_page_gets_the_course_version_beside_it(place):
    course, ws, sync = place
    sync()
    (ws / "01_self.ipynb").unlink()
    (ws / "cheatsheet.md").write_text("my notes\n")
    (course / "cheatsheet.md").write_text("course text, updated\n")
    report = sync()
    assert report.copied == ["01_self.ipynb"] and report.beside == ["cheatsheet.md"]
    assert (ws / "cheatsheet.md").read_text() == "my notes\n"
    assert (ws / "cheatsheet (course update).md").read_text() == "course text, updated\n"


def test_the_chinese_edition_gets_its_own_file_names():
    files = workspace.course_files(ROOT / "notebooks")
    assert "00_start_here.ipynb" in files and "zh/00_start_here.zh.ipynb" in files
    tabs = [Path(name).name for name in files if name.endswith(".ipynb")]
    assert len(tabs) == len(set(tabs)) == 22, "two notebooks would have the same tab title"
    assert {"ctx_cheatsheet.md", "zh/ctx_cheatsheet.md", "zh/GLOSSARY.md"} <= set(files)


# --- a git clone of the course -----------------------------------------------------------------

def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=cwd,
                          capture_output=True, text=True, check=True).stdout


@pytest.fixture
def clones(tmp_path):
    """A course repository with notebooks/ and a learner's clone of it."""
    course = tmp_path / "course"
    write(course / "notebooks" / "01_self.ipynb", notebook("# Title", "x = 1"))
    (course / ".gitignore").write_text("/workspace/\n")
    git("init", "-q", cwd=course)
    git("add", "-A", cwd=course)
    git("commit", "-qm", "course", cwd=course)
    git("clone", "-q", str(course), str(tmp_path / "clone"), cwd=tmp_path)
    return course, tmp_path / "clone"


def test_edits_made_in_the_course_folder_before_the_workspace_existed_are_kept(clones):
    _, clone = clones
    edited = read(clone / "notebooks" / "01_self.ipynb")
    edited.cells[1].source = "x = 'edited in place'"
    write(clone / "notebooks" / "01_self.ipynb", edited)
    report = workspace.sync_edition("course", clone / "workspace", clone)
    assert report.from_course_folder == ["01_self.ipynb"]
    assert read(clone / "workspace" / "notebooks" / "01_self.ipynb").cells[1].source == "x = 'edited in place'"
    base = read(clone / "workspace" / ".course" / "notebooks" / "01_self.ipynb")
    assert base.cells[1].source == "x = 1", "the base is the course's committed version"


def test_pull_gives_the_course_back_its_files_and_fast_forwards(clones):
    course, clone = clones
    edited = read(clone / "notebooks" / "01_self.ipynb")
    edited.cells[1].source = "x = 'edited in place'"
    write(clone / "notebooks" / "01_self.ipynb", edited)
    changed = read(course / "notebooks" / "01_self.ipynb")
    changed.cells[0].source = "# Title, updated"
    write(course / "notebooks" / "01_self.ipynb", changed)
    git("commit", "-qam", "update", cwd=course)
    assert workspace.pull(clone / "workspace", clone) == 0
    assert git("status", "--porcelain", cwd=clone) == ""
    assert read(clone / "notebooks" / "01_self.ipynb").cells[0].source == "# Title, updated"
    [kept] = (clone / "workspace" / ".backup").rglob("01_self.ipynb")
    assert read(kept).cells[1].source == "x = 'edited in place'"


def test_pull_says_why_when_there_is_nothing_to_pull_from(tmp_path, capsys):
    lone = tmp_path / "lone"
    lone.mkdir()
    git("init", "-q", cwd=lone)
    git("commit", "-q", "--allow-empty", "-m", "start", cwd=lone)
    assert workspace.pull(lone / "workspace", lone) == 1
    assert "follows no remote branch" in capsys.readouterr().err


# --- per-folder JupyterLab state ---------------------------------------------------------------

def test_each_served_folder_has_its_own_tabs_and_each_clone_its_own_runtime_folder(tmp_path):
    def workspaces_dir(folder: Path) -> str:
        [option] = [arg for arg in lab.lab_command(folder, 8888, []) if arg.startswith("--LabApp.workspaces_dir=")]
        return option.partition("=")[2]

    mine = {workspaces_dir(ROOT / "workspace" / name) for name in ("notebooks", "student")}
    mine.add(workspaces_dir(ROOT / "notebooks"))
    mine.add(workspaces_dir(tmp_path / "another-clone" / "workspace" / "notebooks"))
    assert len(mine) == 4 and all(path.startswith(str(ROOT / "workspace" / ".jupyter")) for path in mine)
    env = lab.lab_environment({})
    assert env["JUPYTER_RUNTIME_DIR"] == str(ROOT / "workspace" / ".jupyter" / "runtime")
    assert lab.lab_environment({"JUPYTER_RUNTIME_DIR": "/elsewhere"})["JUPYTER_RUNTIME_DIR"] == "/elsewhere"
