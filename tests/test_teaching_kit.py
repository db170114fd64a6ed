"""The teaching kit: the exercise convention in every notebook, the student edition, the slides
and the HTML site (tools/, TEACHING.md). Each notebook in notebooks/ is checked on its own, so a
notebook added later is covered without changing this file.
"""
from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools import notebook_metadata, site, slides, student_edition  # noqa: E402
from tools.course import editions, has_math, notebook_intro, notebook_paths, read_notebook, tags  # noqa: E402

NOTEBOOKS = ROOT / "notebooks"
NOTEBOOK_PATHS = notebook_paths(NOTEBOOKS)
YOUR_TURN = re.compile(r"^###\s+Your turn (\d+)\b", re.MULTILINE)


def by_name(paths):
    return pytest.mark.parametrize("path", paths, ids=[path.stem for path in paths])


def text_of(cell) -> str:
    """Everything a code cell printed (stream output)."""
    return "".join(output.get("text", "") for output in cell.get("outputs", [])
                   if output.get("output_type") == "stream")


def calls_check(cell) -> bool:
    return cell.cell_type == "code" and re.search(r"^\s*check\.\w+\(", cell.source, re.MULTILINE)


def your_turns(nb) -> list[tuple[int, str]]:
    """(cell index, exercise number) of every "### Your turn N" markdown cell."""
    return [(index, match.group(1)) for index, cell in enumerate(nb.cells)
            if cell.cell_type == "markdown" and (match := YOUR_TURN.search(cell.source))]


def test_there_are_notebooks():
    assert NOTEBOOK_PATHS, "no NN_name.ipynb notebooks in notebooks/"


# --- 1. The exercise convention (docs/notebook-conventions.md, point 6) ------------------------

def convention_problems(nb) -> list[str]:
    """What breaks the four-cell "Your turn" shape, cell by cell (empty when all is well)."""
    problems = []
    groups = your_turns(nb)
    if not groups:
        problems.append("no '### Your turn N: ...' exercise")
    grouped = set()
    for index, number in groups:
        where = f"cell {index} (Your turn {number})"
        cells = nb.cells[index + 1:index + 4]
        if len(cells) < 3:
            problems.append(f"{where}: needs an exercise, a check and a solution cell after it")
            continue
        exercise, check, solution = cells
        grouped.update(range(index + 1, index + 4))
        if exercise.cell_type != "code" or "exercise" not in tags(exercise):
            problems.append(f"{where}: cell {index + 1} should be a code cell tagged 'exercise'")
        if not calls_check(check) or set(tags(check)) != {"nbval-ignore-output"}:
            problems.append(f"{where}: cell {index + 2} should be a code cell calling check.…, tagged "
                            "only 'nbval-ignore-output'")
        elif check.outputs:
            problems.append(f"{where}: check cell {index + 2} should be stored without outputs (the hint "
                            f"it prints for the starter would be seen before trying); it shows "
                            f"{text_of(check).strip()[:120]!r}")
        if solution.cell_type != "code" or "solution" not in tags(solution):
            problems.append(f"{where}: cell {index + 3} should be a code cell tagged 'solution'")
        else:
            hidden = solution.metadata.get("jupyter", {})
            if hidden.get("source_hidden") is not True or hidden.get("outputs_hidden") is not True \
                    or solution.metadata.get("collapsed") is not True:
                problems.append(f"{where}: solution cell {index + 3} needs \"jupyter\": "
                                "{\"source_hidden\": true, \"outputs_hidden\": true} and "
                                "\"collapsed\": true metadata (its printed output would give the "
                                "answer away; JupyterLab writes collapsed for hidden outputs)")
            if f"✓ Your turn {number}" not in text_of(solution):
                problems.append(f"{where}: solution cell {index + 3} should end with the check, "
                                f"printing '✓ Your turn {number} … correct.'")
    for index, cell in enumerate(nb.cells):
        stray = {"exercise", "solution"} & set(tags(cell))
        if stray and index not in grouped:
            problems.append(f"cell {index} is tagged {sorted(stray)} but does not follow a "
                            "'### Your turn' heading in the four-cell shape")
    return problems


UNDER_THE_HOOD = "Under the hood (optional, skip on a first reading)"


def under_the_hood_problems(nb) -> list[str]:
    """An optional listing is a code cell tagged ``under-the-hood``, its output folded (JupyterLab's
    ``outputs_hidden`` and ``collapsed``), right after markdown holding the heading UNDER_THE_HOOD;
    any other folded code cell is a worked solution."""
    problems = []
    for index, cell in enumerate(nb.cells):
        folded = cell.metadata.get("jupyter", {}).get("outputs_hidden") is True
        tagged = "under-the-hood" in tags(cell)
        if cell.cell_type != "code" or not (folded or tagged) or "solution" in tags(cell):
            continue
        before = nb.cells[index - 1]
        if not (tagged and folded and cell.metadata.get("collapsed") is True):
            problems.append(f"cell {index}: a folded listing is tagged 'under-the-hood' with "
                            "outputs_hidden and collapsed metadata")
        if before.cell_type != "markdown" or f"# {UNDER_THE_HOOD}" not in before.source:
            problems.append(f"cell {index}: the markdown before it has the heading '{UNDER_THE_HOOD}'")
    return problems


@by_name(NOTEBOOK_PATHS)
def test_under_the_hood_listings_are_folded_and_announced(path):
    problems = under_the_hood_problems(read_notebook(path))
    assert not problems, f"{path.name}:\n  " + "\n  ".join(problems)


def test_under_the_hood_check_names_the_cell():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("Some text."),
        nbformat.v4.new_code_cell("print(1)", metadata={"jupyter": {"outputs_hidden": True}}),
        nbformat.v4.new_markdown_cell(f"### {UNDER_THE_HOOD}"),
        nbformat.v4.new_code_cell("print(2)", metadata={"tags": ["under-the-hood"], "collapsed": True,
                                                        "jupyter": {"outputs_hidden": True}})])
    assert under_the_hood_problems(nb) == [
        "cell 1: a folded listing is tagged 'under-the-hood' with outputs_hidden and collapsed metadata",
        f"cell 1: the markdown before it has the heading '{UNDER_THE_HOOD}'"]


@by_name(NOTEBOOK_PATHS)
def test_every_your_turn_has_exercise_check_and_hidden_solution(path):
    problems = convention_problems(read_notebook(path))
    assert not problems, f"{path.name}:\n  " + "\n  ".join(problems)


def test_convention_check_names_the_broken_cell():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("### Your turn 1: double it"),
        nbformat.v4.new_code_cell("answer = ...", metadata={"tags": ["exercise"]}),
        nbformat.v4.new_code_cell("check.your_turn_1(answer)", metadata={"tags": ["nbval-ignore-output"]},
                                  outputs=[nbformat.v4.new_output("stream", text="  Hint: 2\n")]),
        nbformat.v4.new_code_cell("answer = 2", metadata={"tags": ["solution"]}),
    ])
    problems = convention_problems(nb)
    assert any("cell 0 (Your turn 1)" in p and "source_hidden" in p for p in problems)
    assert any("check cell 2" in p and "without outputs" in p and "Hint: 2" in p for p in problems)
    nb.cells[2].metadata = {}
    assert any("cell 2" in p and "tagged only 'nbval-ignore-output'" in p for p in convention_problems(nb))


# --- 2. The student edition -----------------------------------------------------------------

def execute(nb, folder: Path):
    """Run a notebook in a kernel of this Python (as nbval --nbval-current-env does), errors allowed."""
    import ipykernel.kernelspec
    from jupyter_client import KernelManager
    from jupyter_client.kernelspec import KernelSpecManager
    from nbclient import NotebookClient

    class ThisPython(KernelSpecManager):
        def get_kernel_spec(self, kernel_name):
            return self.kernel_spec_class(resource_dir=ipykernel.kernelspec.RESOURCES,
                                          **ipykernel.kernelspec.get_kernel_dict())

    manager = KernelManager(kernel_name="python3", kernel_spec_manager=ThisPython())
    NotebookClient(nb, km=manager, timeout=120, allow_errors=True,
                   resources={"metadata": {"path": str(folder)}}).execute()
    return nb


def exercise_groups(nb) -> list[tuple[int, int, int, str]]:
    """(exercise, check, solution) cell indices and the exercise number, found by the tags (so
    that a translated notebook, whose headings are not in English, is read the same way)."""
    groups = []
    for index, cell in enumerate(nb.cells):
        if "solution" in tags(cell):
            number = re.search(r"check\.your_turn_(\d+)\(", nb.cells[index - 1].source)
            groups.append((index - 2, index - 1, index, number.group(1) if number else "?"))
    return groups


def errors_in(nb) -> dict[int, object]:
    return {index: output for index, cell in enumerate(nb.cells) if cell.cell_type == "code"
            for output in cell.outputs if output.output_type == "error"}


ALL_EDITIONS = [path for folder in editions(NOTEBOOKS).values() for path in notebook_paths(folder)]
# Run with a kernel: every English notebook, and the first of each translation (the same code cells).
TO_RUN = NOTEBOOK_PATHS + [paths[0] for language, folder in editions(NOTEBOOKS).items()
                           if language != "en" and (paths := notebook_paths(folder))]


def edition_ids(paths):
    return [path.relative_to(NOTEBOOKS).with_suffix("").as_posix() for path in paths]


@pytest.mark.parametrize("path", ALL_EDITIONS, ids=edition_ids(ALL_EDITIONS))
def test_student_edition_folds_hints_and_stores_no_feedback(path):
    original = read_notebook(path)
    student, titles = student_edition.student_notebook(original)
    groups = exercise_groups(original)
    assert groups and len(titles) == len(groups)
    assert len(student.cells) == len(original.cells)
    changed = set()
    for exercise, check, solution, number in groups:
        changed |= {exercise, check, solution}
        assert original.cells[exercise].cell_type == original.cells[check].cell_type == "code", (
            f"the solution of Your turn {number} (cell {solution}) should follow a starter and a check "
            f"code cell (docs/notebook-conventions.md)")
        assert student.cells[exercise].source == original.cells[exercise].source
        assert not student.cells[exercise].outputs and not student.cells[check].outputs, \
            f"Your turn {number}: the student edition stores the starter's feedback"
        hint = student.cells[solution]
        assert hint.cell_type == "markdown" and hint.source.startswith("<details><summary>")
        assert hint.source.rstrip().endswith("</details>") and hint.id == original.cells[solution].id
        assert original.cells[solution].source.strip()[:40] not in hint.source
        deeper = student_edition.deeper_hint(original, original.cells[check])
        assert deeper and student_edition.escape_markdown(deeper) in hint.source, \
            f"Your turn {number}: the fold should hold the checker's deeper hint"
        feedback = text_of(original.cells[check])
        if "Hint: " in feedback:  # a step further than the hint the check printed for the starter
            assert feedback.split("Hint: ", 1)[1].splitlines()[0].strip() != deeper
    for index, (before, after) in enumerate(zip(original.cells, student.cells)):
        if index in changed:
            continue
        if before.cell_type == "markdown":
            assert after.source == student_edition.student_wording(before.source)
        else:
            assert after == before, f"cell {index} changed, but only exercises and their sentences may"
    text = "\n".join(cell.source for cell in student.cells if cell.cell_type == "markdown")
    assert not re.search(r"worked\s+solution", text, re.IGNORECASE), "stale text in the student edition"
    assert "参考答案" not in text, "stale text in the Chinese student edition"
    if "/zh/" in path.as_posix():
        assert all(title.startswith("动手练习") for title in titles), titles
    assert "raise NotImplementedError" not in "\n".join(cell.source for cell in student.cells)


@pytest.mark.parametrize("path", TO_RUN, ids=edition_ids(TO_RUN))
def test_student_edition_runs_top_to_bottom_with_starters_and_with_answers(path, tmp_path):
    """Run All on the student notebook as handed out, then with each worked solution typed into
    its exercise cell (what a student who got everything right has): no cell fails, the checks
    say ✗ (without a traceback) for the starters and ✓ for the answers."""
    original = read_notebook(path)
    groups = exercise_groups(original)
    meant_to_raise = {i for i, cell in enumerate(original.cells) if "raises-exception" in tags(cell)}
    student, _ = student_edition.student_notebook(original, path.parent.name if path.parent != NOTEBOOKS else "en")
    answered = copy.deepcopy(student)
    for exercise, _check, solution, _number in groups:
        answered.cells[exercise].source = original.cells[solution].source

    for name, nb, mark in (("starters", student, "✗"), ("answers", answered, "✓")):
        executed = execute(nb, tmp_path)
        unexpected = sorted(set(errors_in(executed)) - meant_to_raise)
        assert not unexpected, f"Run All on the student edition of {path.name} with the {name} fails in " + \
            "; ".join(f"cell {i}: {errors_in(executed)[i].ename}: {errors_in(executed)[i].evalue[:150]}"
                      for i in unexpected)
        for _exercise, check, _solution, number in groups:
            verdict = text_of(executed.cells[check])
            assert verdict.startswith(mark), f"with the {name}, check {number} printed {verdict[:300]!r}"
            assert "Traceback" not in verdict


def test_checker_says_not_written_yet_for_a_stub_that_raises_not_implemented():
    from minigrad.exercises._feedback import exercise

    @exercise("Your turn 9: a stub")
    def check(function):
        function()

    def stub():
        raise NotImplementedError("write me")

    result = check(stub)
    assert not result
    assert result.lines[0] == "✗ Your turn 9: a stub — not written yet."
    assert "Replace the stub with your answer" in result.lines[-1]
    assert not any("Traceback" in line for line in result.lines)


def fake_translation(folder: Path, names=None) -> list[Path]:
    """notebooks/zh/ as the Chinese edition will have it: copies of English notebooks (same cells,
    same order), with a Chinese sentence in front of the first markdown cell."""
    (folder / "zh").mkdir(parents=True, exist_ok=True)
    written = []
    for path in NOTEBOOK_PATHS:
        if names and path.name not in names:
            continue
        nb = read_notebook(path)
        first = next(cell for cell in nb.cells if cell.cell_type == "markdown")
        first.source = first.source.replace("\n", "\n\n这是中文版：上下文与反向传播。\n", 1)
        nbformat.write(nb, str(folder / "zh" / path.name))
        written.append(folder / "zh" / path.name)
    return written


def test_make_student_writes_every_notebook_of_both_editions(tmp_path):
    source = tmp_path / "notebooks"
    source.mkdir()
    for path in NOTEBOOK_PATHS[:2]:
        (source / path.name).write_bytes(path.read_bytes())
    fake_translation(source, {NOTEBOOK_PATHS[0].name})
    target = tmp_path / "student"
    target.mkdir()
    (target / "99_gone.ipynb").write_text("{}")  # from an older build: removed
    result = subprocess.run([sys.executable, "-m", "tools.student_edition", str(source), str(target)],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert [p.name for p in notebook_paths(target)] == [p.name for p in NOTEBOOK_PATHS[:2]]
    assert [p.name for p in notebook_paths(target / "zh")] == [NOTEBOOK_PATHS[0].name]
    for path in [*notebook_paths(target), *notebook_paths(target / "zh")]:
        nbformat.validate(read_notebook(path))
        assert "source_hidden" not in path.read_text()
    zh = read_notebook(target / "zh" / NOTEBOOK_PATHS[0].name)
    assert any(cell.source.startswith("<details><summary>提示") for cell in zh.cells)


# --- Opening a notebook changes nothing (tools/notebook_metadata.py, jupyter-config/) -----------

@pytest.mark.parametrize("path", ALL_EDITIONS, ids=edition_ids(ALL_EDITIONS))
def test_stored_metadata_is_what_jupyterlab_writes(path):
    raw = path.read_text(encoding="utf-8")
    stored = json.loads(raw)
    assert stored["metadata"]["kernelspec"] == {
        "display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}, \
        f"{path.name}: run `python -m tools.notebook_metadata notebooks` (make execute does)"
    assert stored["metadata"]["language_info"] == notebook_metadata.LANGUAGE_INFO
    assert (stored["nbformat"], stored["nbformat_minor"]) == (4, 5)
    assert all(cell.get("id") for cell in stored["cells"]), "JupyterLab would add cell ids"
    # The JSON layout JupyterLab's server writes (nbformat: indent 1, sorted keys, final newline).
    assert raw == nbformat.writes(nbformat.reads(raw, as_version=4)) + "\n"


def test_the_course_kernel_is_the_stored_kernelspec():
    import ipykernel.kernelspec

    spec = ipykernel.kernelspec.get_kernel_dict()
    assert {key: spec[key] for key in ("display_name", "language")} == {
        key: notebook_metadata.KERNELSPEC[key] for key in ("display_name", "language")}
    assert ipykernel.kernelspec.KERNEL_NAME == notebook_metadata.KERNELSPEC["name"]


def test_course_server_restores_the_metadata_and_has_no_news():
    config = (ROOT / "jupyter-config" / "jupyter_server_config.py").read_text()
    hook = re.search(r'pre_save_hook = "([\w.]+)"', config).group(1)
    module, _, name = hook.rpartition(".")
    assert getattr(__import__(module, fromlist=[name]), name) is notebook_metadata.pre_save_hook
    nb = read_notebook(NOTEBOOK_PATHS[0])
    nb.metadata.language_info.version = "3.99.0"        # what another machine's kernel reports
    nb.metadata.kernelspec.display_name = "Python 3"
    model = {"type": "notebook", "content": nb}
    notebook_metadata.pre_save_hook(model=model, path=NOTEBOOK_PATHS[0].name, contents_manager=None)
    assert nbformat.writes(model["content"]) + "\n" == NOTEBOOK_PATHS[0].read_text(encoding="utf-8")
    page_config = json.loads((ROOT / "jupyter-config" / "labconfig" / "page_config.json").read_text())
    assert page_config["disabledExtensions"] == {"@jupyterlab/apputils-extension:announcements": True,
                                                 "nbdime-jupyterlab": True}


def test_make_lab_runs_tools_lab_with_the_course_config():
    from tools import lab

    makefile = (ROOT / "Makefile").read_text()
    # make lab serves the learner's workspace, make lab-student the student edition's (tools/workspace.py).
    assert re.search(r"^lab: .*\n\t\$\(VENV_BIN\)/python -m tools\.lab --port ", makefile, re.M)
    assert re.search(r"^lab-student: .*\n\t\$\(VENV_BIN\)/python -m tools\.lab --student --port ", makefile, re.M)
    env = lab.lab_environment({"JUPYTER_CONFIG_PATH": "/elsewhere"})
    assert env["JUPYTER_CONFIG_PATH"].split(os.pathsep) == [str(ROOT / "jupyter-config"), "/elsewhere"]
    assert "--allow-root" in lab.lab_command(Path("notebooks"), 8888, [], as_root=True)
    assert "--allow-root" not in lab.lab_command(Path("notebooks"), 8888, [], as_root=False)
    assert "--ServerApp.port_retries=0" in lab.lab_command(Path("notebooks"), 8888, [])


def test_second_make_lab_points_at_the_running_server(monkeypatch, capsys):
    from tools import lab

    server = {"root_dir": str(NOTEBOOKS), "port": 8888, "pid": 42, "token": "secret",
              "url": "http://127.0.0.1:8888/"}
    monkeypatch.setattr(lab, "running_servers", lambda: [server])
    monkeypatch.setattr(lab.os, "execve", lambda *args: pytest.fail("started a second server"))
    assert lab.main([str(NOTEBOOKS), "--port", "8890", "--", "--no-browser"]) == 0
    out = capsys.readouterr().out
    assert "already serving" in out and "http://127.0.0.1:8888/lab?token=secret" in out


# --- 3. Slides (tools/slides.py, tools/slides_config.py, tools/templates/lecture) ----------------

def squashed(text: str) -> str:
    """Text without spaces or markdown emphasis: "## The `x` *graph*" ~ "##Thexgraph"."""
    return re.sub(r"[\s`*_>]+", "", text)


def language_of(path: Path) -> str:
    return path.parent.name if path.parent != NOTEBOOKS else "en"


@pytest.fixture(scope="module")
def plans():
    """Every notebook of both editions cut into slides (no HTML: tools.slides.lecture_deck)."""
    return {path: slides.lecture_deck(read_notebook(path), language_of(path)) for path in ALL_EDITIONS}


def slide_cells(deck) -> list[list]:
    """The deck's cells grouped by slide (each group starts with its 'slide' cell)."""
    groups: list[list] = []
    for cell in deck.cells:
        if cell.metadata.slideshow["slide_type"] == "slide":
            groups.append([])
        groups[-1].append(cell)
    return groups


@pytest.mark.parametrize("path", ALL_EDITIONS, ids=edition_ids(ALL_EDITIONS))
def test_deck_shows_headings_keeps_every_line_and_puts_solutions_in_notes(path, plans):
    deck, _ = plans[path]
    nb = read_notebook(path)
    kinds = [cell.metadata.slideshow["slide_type"] for cell in deck.cells]
    assert kinds[0] == "slide" and set(kinds) <= {"slide", "-", "notes"}, "only slides, no vertical stacks or fragments"
    shown = squashed("".join(cell.source for cell in deck.cells if cell.metadata.slideshow["slide_type"] != "notes"))
    notes = squashed("".join(cell.source for cell in deck.cells if cell.metadata.slideshow["slide_type"] == "notes"))
    starts = [squashed(group[0].source.splitlines()[0]) for group in slide_cells(deck) if group[0].source]
    roles = slides.roles(nb)
    for index, cell in enumerate(nb.cells):
        source = cell.source
        if index + 1 < len(nb.cells) and "under-the-hood" in tags(nb.cells[index + 1]):
            source = slides.without_under_the_hood(source)[0]
        if roles[index] == "note":
            assert squashed(source) in notes and squashed(source)[:60] not in shown, f"solution cell {index}"
        elif "exercise" in tags(cell) or "under-the-hood" in tags(cell):
            assert squashed(source)[:80] not in shown, f"cell {index} ({tags(cell)}) is on a slide"
        elif roles[index] == "show" and cell.cell_type == "markdown":
            for line in re.sub(r"```.*?```", "", source, flags=re.S).splitlines():
                if re.match(r"#{1,3}\s", line):
                    assert squashed(line) in starts, f"heading {line!r} does not start a slide"
                elif not slides.TIME_LINE.match(line + "\n"):      # a cut paragraph: each part of a line
                    for part in slides.SENTENCE_END.split(line):
                        assert squashed(slides.shown_text(part)) in squashed(slides.shown_text(shown + notes)), \
                            f"cell {index}: {part!r} is neither on a slide nor in the notes"


@pytest.mark.parametrize("path", ALL_EDITIONS, ids=edition_ids(ALL_EDITIONS))
def test_every_slide_fits_by_the_estimate_and_shows_at_most_12_code_lines(path, plans):
    """The estimate the browser test confirms (tests/test_browser.py walks every deck)."""
    deck, minutes = plans[path]
    groups = slide_cells(deck)
    for number, group in enumerate(groups, 1):
        code = [cell for cell in group if cell.cell_type == "code" and cell.source
                and cell.metadata.slideshow["slide_type"] != "notes"]
        assert sum(slides.wrapped(cell.source.splitlines(), slides.COLUMNS["code"]) for cell in code) <= slides.CODE_LINES, \
            f"slide {number}: more than {slides.CODE_LINES} code lines"
    assert minutes == 5 * -(-len(groups) * slides.MINUTES_PER_SLIDE // 5)
    assert groups[0][0].source.splitlines()[-1] == slides.WORDS[language_of(path)]["lecture"].format(
        minutes=minutes, slides=len(groups))


def lecture_column(plan: Path, column: str) -> dict[str, int]:
    """Notebook number -> minutes, from the lecture-plan table's ``column`` in ``plan``."""
    lines = plan.read_text(encoding="utf-8").splitlines()
    header = next(i for i, line in enumerate(lines)
                  if column in [cell.strip() for cell in line.strip().strip("|").split("|")])
    cells = [cell.strip() for cell in lines[header].strip("|").split("|")]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[header + 2:]]
    found = {}
    for row in rows:
        if len(row) != len(cells):
            break
        found[row[1][:2]] = int(row[cells.index(column)])
    return found


@pytest.mark.parametrize("plan, column, language", [("TEACHING.md", "lecture", "en"), ("README.zh.md", "讲授", "zh")])
def test_lecture_plan_gives_each_deck_its_stated_length(plan, column, language, plans):
    planned = lecture_column(ROOT / plan, column)
    stated = {path.name[:2]: minutes for path, (_, minutes) in plans.items() if language_of(path) == language}
    assert planned == stated, f"{plan}'s {column!r} column: {planned}; the decks state {stated}"


def test_slide_rules_on_a_small_notebook():
    long_code = "\n".join(f"line_{i} = {i}" for i in range(30))
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# 01 · Title\n\nWhat?\n\n**You will learn**\n- a\n- b\n\n**Time** about 9 minutes."),
        nbformat.v4.new_code_cell("import minigrad as torch"),
        nbformat.v4.new_markdown_cell("## First idea\n\nOne. Two."),
        nbformat.v4.new_code_cell(long_code, outputs=[nbformat.v4.new_output("stream", text="x\n" * 40)]),
        nbformat.v4.new_markdown_cell(f"### {UNDER_THE_HOOD}"),
        nbformat.v4.new_code_cell("print(2)", metadata={"tags": ["under-the-hood"]}),
    ])
    deck, minutes = slides.lecture_deck(nb)
    groups = [[(cell.cell_type, cell.source.splitlines()[:1]) for cell in group] for group in slide_cells(deck)]
    assert [len(group) for group in groups] == [1, 1, 2, 1, 2, 2, 3]   # the last with a note
    assert groups[0] == [("markdown", ["# 01 · Title"])] and "**Time**" not in deck.cells[0].source
    assert groups[1] == [("markdown", ["**You will learn**"])]
    assert groups[2] == [("markdown", ["## First idea"]), ("code", ["line_0 = 0"])]
    assert groups[3] == [("code", ["line_12 = 12"])] and groups[4] == [("code", ["line_24 = 24"]), ("code", [])]
    assert groups[5][0] == groups[6][0] == ("markdown", ["*(continued)*"])
    assert deck.cells[-1].metadata.slideshow["slide_type"] == "notes" and UNDER_THE_HOOD in deck.cells[-1].source
    outputs = [cell for cell in deck.cells if cell.get("outputs")]
    assert sum(cell.outputs[0]["text"].count("\n") for cell in outputs) == 40     # every output line, once
    assert all(cell.metadata["transient"] == {"remove_source": True} for cell in outputs)
    assert minutes == 10 and "about 10 minutes, 7 slides" in deck.cells[0].source


def test_a_long_paragraph_is_cut_at_a_sentence_and_the_rest_goes_to_the_notes():
    sentence = "This sentence is about the graph and it is long enough to fill a line. "
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# 01 · Title"),
                                         nbformat.v4.new_markdown_cell("## Idea\n\n" + sentence * 40)])
    deck, _ = slides.lecture_deck(nb)
    shown, notes = deck.cells[1].source, deck.cells[-1].source
    assert deck.cells[-1].metadata.slideshow["slide_type"] == "notes"
    assert shown.endswith("line.") and notes.startswith("This sentence")
    assert squashed(shown + notes) == squashed("## Idea" + sentence * 40)


def test_live_notebook_marks_the_original_cells_and_changes_nothing_else():
    path = NOTEBOOK_PATHS[0]
    nb = read_notebook(path)
    deck, _ = slides.lecture_deck(nb)
    live = slides.live_notebook(nb, deck)
    assert len(live.cells) == len(nb.cells) and live.metadata["rise"]["scroll"] is True
    kinds = [cell.metadata.slideshow["slide_type"] for cell in live.cells]
    assert kinds[0] == "slide" and kinds.count("slide") >= 8
    for index, (before, after, kind, role) in enumerate(zip(nb.cells, live.cells, kinds, slides.roles(nb))):
        assert after.source == before.source and after.get("outputs") == before.get("outputs")
        assert (kind == "skip") == (role == "skip" and index != 1) and (kind == "notes") <= (role == "note")


@pytest.fixture(scope="module")
def rendered_deck(tmp_path_factory):
    """One notebook with formulas, and its Chinese edition, exported as `make slides` does."""
    from nbconvert import SlidesExporter
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("slides_config.py", path=str(ROOT / "tools")).load_config()
    path = next(path for path in NOTEBOOK_PATHS if has_math(read_notebook(path)))
    pages = {}
    for folder in (NOTEBOOKS, NOTEBOOKS / "zh"):
        resources = {"metadata": {"name": path.stem, "path": str(folder)}}
        pages[folder.name] = SlidesExporter(config=config).from_filename(str(folder / path.name), resources=resources)
    return pages


def test_deck_walks_linearly_numbered_with_notes_and_loads_only_the_local_copy(rendered_deck):
    page, resources = rendered_deck["notebooks"]
    loaded = re.findall(r'<(?:script|link)[^>]*(?:src|href)="([^"]+)"', page)
    assert loaded and all(url.startswith("lib/") for url in loaded), loaded
    assert {"lib/reveal.js/dist/reveal.js", "lib/reveal.js/plugin/notes/notes.js",
            "lib/mathjax/tex-chtml.js", "lib/reveal.js/dist/theme/white.css"} <= set(loaded)
    assert 'navigationMode: "linear"' in page and 'slideNumber: "c/t"' in page
    assert "width: 1280, height: 720" in page and "require(" not in page and "jquery" not in page.lower()
    assert page.count('<aside class="notes">') >= 2
    assert f"about {resources['lecture_minutes']} minutes, {resources['lecture_slides']} slides" in page
    zh_page, zh_resources = rendered_deck["zh"]
    assert f"约 {zh_resources['lecture_minutes']} 分钟，{zh_resources['lecture_slides']} 张幻灯片" in zh_page


def test_make_slides_runs_nbconvert_in_the_course_environment_the_machine_has():
    makefile = (ROOT / "Makefile").read_text()
    recipe = re.search(r"^slides: (.*)\n((?:\t.*\n)+)", makefile, re.M)
    assert "course-env" in recipe.group(1) and "$(REVEAL_STAMP)" in recipe.group(1)
    assert "-m nbconvert --config tools/slides_config.py" in recipe.group(2) and "$(COURSE_PYTHON)" in recipe.group(2)
    chooser = re.search(r"^COURSE_PYTHON = (.*)$", makefile, re.M).group(1)
    assert "$(VENV) $(CLASSROOM_VENV)" in chooser
    assert re.search(r"^course-env: .*\n\t@\[ -x \$\(VENV\)/bin/python \] \|\| \[ -x \$\(CLASSROOM_VENV\)/bin/python \] \|\| ",
                     makefile, re.M)
    package = json.loads((ROOT / "tools" / "reveal" / "package.json").read_text())
    lock = json.loads((ROOT / "tools" / "reveal" / "package-lock.json").read_text())
    assert package["dependencies"] == lock["packages"][""]["dependencies"]
    assert f"reveal.js@{package['dependencies']['reveal.js']}" in makefile
    assert f"mathjax@{package['dependencies']['mathjax']}" in makefile


def test_course_env_reuses_the_classroom_environment(tmp_path):
    """On a hub machine with only .venv-classroom, make slides and make lecture use it."""
    (tmp_path / ".venv-classroom" / "bin").mkdir(parents=True)
    (tmp_path / ".venv-classroom" / "bin" / "python").symlink_to(sys.executable)
    makefile = (ROOT / "Makefile").read_text()
    chooser = re.search(r"^COURSE_PYTHON = (.*)$", makefile, re.M).group(1)
    script = chooser.replace("$(VENV)", ".venv").replace("$(CLASSROOM_VENV)", ".venv-classroom").replace("$$", "$")
    found = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True).stdout.strip()
    assert found == ".venv-classroom/bin/python"
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").symlink_to(sys.executable)
    assert subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True).stdout.strip() \
        == ".venv/bin/python"


# --- 4. The site (tools/site.py: Sphinx with MyST-NB; make browser builds and opens it) -----------

def test_site_sources_fold_solutions_and_listings_and_map_the_course(tmp_path):
    source = tmp_path / "notebooks"
    source.mkdir()
    for path in NOTEBOOK_PATHS[:2]:
        shutil.copy(path, source)
    (source / "ctx_cheatsheet.md").write_text("# ctx on one page\n", encoding="utf-8")
    site.prepare(source, tmp_path / "src", "en")
    for path in NOTEBOOK_PATHS[:2]:
        original, prepared = read_notebook(path), read_notebook(tmp_path / "src" / path.name)
        for before, after in zip(original.cells, prepared.cells):
            folded = bool({"solution", "under-the-hood"} & set(tags(before)))
            assert ("hide-cell" in tags(after)) == folded and after.source == before.source
    index = (tmp_path / "src" / "index.md").read_text(encoding="utf-8")
    for path in NOTEBOOK_PATHS[:2]:
        intro = notebook_intro(read_notebook(path), path.stem)
        assert f"## [{intro.number} · {intro.title}]({path.name})" in index and intro.question in index
        assert all(f"- {item}" in index for item in intro.learn) and intro.time.capitalize() in index
    toctree = index.split("```{toctree}")[1]
    assert [line for line in toctree.splitlines()[3:] if line and line != "```"] == \
        [path.stem for path in NOTEBOOK_PATHS[:2]] + ["ctx_cheatsheet"]
    assert (tmp_path / "src" / "ctx_cheatsheet.md").exists()


def test_the_chinese_course_map_reads_the_chinese_first_cells(tmp_path):
    """The zh course map shows each notebook's goals and time, read from the Chinese headings."""
    for path in notebook_paths(NOTEBOOKS / "zh"):
        english = notebook_intro(read_notebook(NOTEBOOKS / path.name), path.stem)
        intro = notebook_intro(read_notebook(path), path.stem)
        assert intro.question and intro.number == english.number, path.name
        assert len(intro.learn) == len(english.learn), f"{path.name}: the 你将学到 bullets were not found"
        assert re.fullmatch(r"约 \d+ 分钟", intro.time), f"{path.name}: time {intro.time!r}"
    index = site.course_map(NOTEBOOKS / "zh", "zh")
    assert index.startswith(f"# {site.WORDS['zh']['title']}") and "你将学到：" in index


def test_site_configuration_switches_language_and_launches_binder(monkeypatch):
    config = (ROOT / "tools" / "templates" / "site" / "conf.py").read_text(encoding="utf-8")
    assert 'nb_execution_mode = "off"' in config and '"language-switch.html"' in config
    switch = (ROOT / "tools" / "templates" / "site" / "_templates" / "language-switch.html").read_text()
    assert 'href="{{ language_switch_href }}{{ pagename }}.html"' in switch
    calls = []
    monkeypatch.setattr(site, "prepare", lambda *args: None)
    monkeypatch.setattr(site, "sphinx_build", lambda argv: calls.append(json.loads(os.environ["MINIGRAD_SITE_EDITION"])) or 0)
    site.build(NOTEBOOKS, Path("/nonexistent/site"), repository="someone/minigrad")
    english, chinese = calls
    assert english["context"]["language_switch_href"] == "zh/" and chinese["context"]["language_switch_href"] == "../"
    assert english["theme_options"]["launch_buttons"]["binderhub_url"] == "https://mybinder.org"
    assert chinese["theme_options"]["path_to_docs"] == "notebooks/zh" and chinese["language"] == "zh"


def test_binder_link_opens_the_notebook_in_jupyterlab():
    assert site.binder_url("someone/minigrad", "notebooks/zh/00_start_here.ipynb") == \
        "https://mybinder.org/v2/gh/someone/minigrad/HEAD?urlpath=lab/tree/notebooks/zh/00_start_here.ipynb"
