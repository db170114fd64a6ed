"""The learner's workspace in a real browser (headless Chromium driving the course's JupyterLab).

1. A learner edits a cell of a workspace notebook, runs it all and lets JupyterLab autosave it:
   the course's clone stays clean (``git status``). The course then gets a new commit to that
   notebook; the update (``make update``: ``tools.workspace pull``, then ``sync all``) brings the
   course's change in and keeps the learner's edit and outputs.
2. Three notebooks open start three kernels; a kernel a tab still shows is kept however idle; once
   the browser is closed, every kernel is shut down within the idle time (shortened here).
3. The server's console has none of the lines a learner cannot act on.

``make browser`` runs these with tests/test_browser.py (whose Chromium helpers they use).
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
for folder in (ROOT, ROOT / "tests"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from course_server import api, course_lab  # noqa: E402
from test_browser import chromium, course_copy, devtools_page, progress  # noqa: E402,F401 (fixtures)

EXPOSE = ("--LabApp.expose_app_in_browser=True",)
AUTOSAVE_SECONDS = 5
NOTEBOOK = "01_self.ipynb"
EDIT = "learner_note = 'my own edit'"
COURSE_CHANGE = "A sentence the course added in an update."

# In JupyterLab's page: open a notebook, add a line to its second code cell, Run All, wait until
# every code cell has run, then until autosave has written it. Returns what it saw.
EDIT_RUN_AND_AUTOSAVE = r"""(async ([path, edit]) => {
  const app = window.jupyterapp;
  await app.restored;
  const widget = await app.commands.execute('docmanager:open', {path, factory: 'Notebook'});
  await widget.context.ready;
  await widget.sessionContext.ready;
  const cells = widget.content.model.cells;
  const code = [...Array(cells.length).keys()].filter(i => cells.get(i).type === 'code');
  const edited = cells.get(code[1]);
  edited.sharedModel.setSource(edited.sharedModel.getSource() + '\n' + edit);
  app.shell.activateById(widget.id);
  await app.commands.execute('notebook:run-all-cells');
  const ran = () => code.every(i => cells.get(i).executionCount !== null);
  for (let waited = 0; !(ran() && widget.sessionContext.session.kernel.status === 'idle'); waited += 500) {
    if (waited > 240000) return JSON.stringify({error: 'Run All did not finish in 240 s'});
    await new Promise(resolve => setTimeout(resolve, 500));
  }
  const runAt = Date.now();
  while (widget.context.model.dirty) {
    if (Date.now() - runAt > 60000) return JSON.stringify({error: 'not autosaved within 60 s'});
    await new Promise(resolve => setTimeout(resolve, 250));
  }
  return JSON.stringify({cells: code.length, savedAfter: (Date.now() - runAt) / 1000,
                         counts: code.map(i => cells.get(i).executionCount)});
})(%s)"""

# Open notebooks and wait until each one's kernel is idle; they stay open.
OPEN_AND_KEEP = r"""(async (paths) => {
  const app = window.jupyterapp;
  await app.restored;
  for (const path of paths) {
    const widget = await app.commands.execute('docmanager:open', {path, factory: 'Notebook'});
    await widget.context.ready;
    await widget.sessionContext.ready;
    await widget.sessionContext.session.kernel.info;
  }
  return paths.length;
})(%s)"""


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def workspace_tool(clone: Path, *args: str) -> str:
    """Run the clone's tools.workspace as make does; returns what it printed."""
    run = subprocess.run([sys.executable, "-m", "tools.workspace", *args], cwd=clone, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, f"tools.workspace {' '.join(args)} failed:\n{run.stdout}\n{run.stderr}"
    return run.stdout


def commit_course_change(course: Path) -> None:
    """A new commit of the course: a sentence added to the first markdown cell of NOTEBOOK."""
    path = course / "notebooks" / NOTEBOOK
    nb = nbformat.read(str(path), as_version=4)
    nb.cells[0].source += f"\n\n{COURSE_CHANGE}"
    path.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")
    git("-c", "user.name=course", "-c", "user.email=course@example.org", "commit", "-qam", "Course update", cwd=course)


def test_running_a_workspace_notebook_leaves_the_course_clean_and_an_update_keeps_the_edit(
        chromium, tmp_path, progress):
    course = course_copy(tmp_path / "course")
    clone = tmp_path / "clone"
    git("clone", "-q", str(course), str(clone), cwd=tmp_path)
    said = workspace_tool(clone, "sync")
    assert "Created your workspace" in said
    notebook = clone / "workspace" / "notebooks" / NOTEBOOK
    settings = {"@jupyterlab/docmanager-extension:plugin": {"autosaveInterval": AUTOSAVE_SECONDS}}
    with course_lab(tmp_path / "home", clone / "workspace" / "notebooks", clone, settings, EXPOSE) as (base_url, _log), \
            devtools_page(chromium, tmp_path / "profile") as page:
        page.call("Page.navigate", url=f"{base_url}/lab")
        assert page.wait_for("window.jupyterapp !== undefined", 120), "JupyterLab did not start in the page"
        progress(f"editing a cell of workspace/notebooks/{NOTEBOOK}, Run All, waiting for autosave")
        seen = json.loads(page.evaluate(EDIT_RUN_AND_AUTOSAVE % json.dumps([NOTEBOOK, EDIT]), await_promise=True))
        assert "error" not in seen, seen["error"]
        progress(f"ran {seen['cells']} code cells; autosaved {seen['savedAfter']:.0f} s after the run")
    saved = nbformat.read(str(notebook), as_version=4)
    code = [cell for cell in saved.cells if cell.cell_type == "code"]
    assert code[1].source.endswith(EDIT) and all(cell.execution_count for cell in code), "not autosaved"
    assert git("status", "--porcelain", "--ignored=no", cwd=clone) == "", "running a notebook changed the course"
    assert (clone / "notebooks" / NOTEBOOK).read_bytes() == (course / "notebooks" / NOTEBOOK).read_bytes()

    before = notebook.read_bytes()
    commit_course_change(course)
    progress("the course has a new commit: running the update (tools.workspace pull, then sync all)")
    pulled = workspace_tool(clone, "pull")
    assert "Updating the course" in pulled
    assert git("rev-parse", "HEAD", cwd=clone) == git("rev-parse", "HEAD", cwd=course)
    synced = workspace_tool(clone, "sync", "all")
    assert f"merged     {NOTEBOOK}" in synced, synced
    merged = nbformat.read(str(notebook), as_version=4)
    assert merged.cells[0].source.endswith(COURSE_CHANGE), "the course's change did not arrive"
    merged_code = [cell for cell in merged.cells if cell.cell_type == "code"]
    assert merged_code[1].source.endswith(EDIT), "the learner's edit was lost"
    assert [cell.execution_count for cell in merged_code] == [cell.execution_count for cell in code], \
        "the learner's outputs were lost"
    assert git("status", "--porcelain", "--ignored=no", cwd=clone) == ""
    backups = list((clone / "workspace" / ".backup").rglob(NOTEBOOK))
    assert [backup.read_bytes() for backup in backups] == [before], "no copy of the notebook as it was"


def kernels(base_url: str) -> list[dict]:
    return api(base_url, "kernels")


def test_kernels_one_per_notebook_kept_while_shown_and_shut_down_once_the_browser_closes(
        chromium, tmp_path, progress):
    """The course's server shuts down a kernel no tab shows after cull_idle_timeout (600 s in
    jupyter-config/, 10 s here) at its next look (every cull_interval: 60 s there, 2 s here)."""
    idle, interval = 10, 2
    folder = tmp_path / "notebooks"
    folder.mkdir()
    paths = ["00_start_here.ipynb", "01_self.ipynb", "02_static_methods.ipynb"]
    for name in paths:
        (folder / name).write_bytes((ROOT / "notebooks" / name).read_bytes())
    culling = (f"--MappingKernelManager.cull_idle_timeout={idle}", f"--MappingKernelManager.cull_interval={interval}")
    with course_lab(tmp_path / "home", folder, extra=EXPOSE + culling) as (base_url, log_path):
        with devtools_page(chromium, tmp_path / "profile") as page:
            page.call("Page.navigate", url=f"{base_url}/lab")
            assert page.wait_for("window.jupyterapp !== undefined", 120), "JupyterLab did not start in the page"
            assert page.evaluate(OPEN_AND_KEEP % json.dumps(paths), await_promise=True) == 3
            assert len(kernels(base_url)) == 3, kernels(base_url)
            time.sleep(idle + 3 * interval)
            shown = kernels(base_url)
            progress(f"3 notebooks open: {len(shown)} kernels, still {len(shown)} after {idle + 3 * interval} s idle")
            assert len(shown) == 3, "a kernel that a tab shows was shut down"
        closed = time.monotonic()
        while kernels(base_url) and time.monotonic() - closed < idle + 30:
            time.sleep(0.5)
        left, after = kernels(base_url), time.monotonic() - closed
        progress(f"browser closed: {len(left)} kernels {after:.0f} s later")
        assert not left, f"{len(left)} kernels still run {after:.0f} s after the browser closed"
        assert after <= idle + 2 * interval + 10
        log = log_path.read_text(encoding="utf-8")
    for noise in ("is not trusted", "Skipped non-installed server", "WebSocket ping timeout", "nbdime"):
        assert noise not in log, f"the server's console says {noise!r}:\n{log[-3000:]}"
