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
        if not calls_check(check) or {"exercise", "solution"} & set(tags(check)):
            problems.append(f"{where}: cell {index + 2} should be an untagged code cell calling check.…")
        else:
            verdict = text_of(check)
            if f"✗ Your turn {number}" not in verdict or "What is wrong:" not in verdict or "Hint:" not in verdict:
                problems.append(f"{where}: the stored output of check cell {index + 2} should show the "
                                f"starter's feedback ('✗ Your turn {number}', 'What is wrong:', 'Hint:'); "
                                f"it is {verdict.strip()[:120]!r}")
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
        nbformat.v4.new_code_cell("check.your_turn_1(answer)"),
        nbformat.v4.new_code_cell("answer = 2", metadata={"tags": ["solution"]}),
    ])
    problems = convention_problems(nb)
    assert any("cell 0 (Your turn 1)" in p and "source_hidden" in p for p in problems)
    assert any("cell 2" in p and "starter's feedback" in p for p in problems)


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
        feedback = text_of(original.cells[check])
        if "Hint: " in feedback:  # the starter's hint, folded
            first_words = feedback.split("Hint: ", 1)[1].split()[:3]
            assert all(word.replace("*", "\\*").replace("_", "\\_") in hint.source for word in first_words)
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


# --- 3. Slides ------------------------------------------------------------------------------

class SectionCounter(HTMLParser):
    """Counts reveal.js slides (innermost <section>s) and what sits in speaker notes."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[list] = []     # [tag, has_section_child]
        self.slides = 0
        self.notes_depth = 0
        self.notes_text: list[str] = []
        self.shown_text: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "section":
            for entry in self.stack:
                if entry[0] == "section":
                    entry[1] = True
            self.stack.append(["section", False])
        elif tag == "aside" and ("class", "notes") in attrs:
            self.notes_depth += 1

    def handle_endtag(self, tag):
        if tag == "section":
            _, has_child = self.stack.pop()
            self.slides += not has_child
        elif tag == "aside" and self.notes_depth:
            self.notes_depth -= 1

    def handle_data(self, data):
        if self.stack:
            (self.notes_text if self.notes_depth else self.shown_text).append(data)


@pytest.fixture(scope="module")
def decks(tmp_path_factory):
    target = tmp_path_factory.mktemp("slides")
    return slides.build_edition(NOTEBOOKS, target, offline=None)   # English; zh: see below


def test_one_deck_per_notebook(decks):
    english = [path for path in decks if path.parent.name != "zh"]
    assert sorted(path.name for path in english) == [f"{p.stem}.slides.html" for p in NOTEBOOK_PATHS]


@by_name(NOTEBOOK_PATHS)
def test_deck_is_lecture_length_with_solutions_in_speaker_notes(path, decks, tmp_path):
    deck = next(out for out in decks if out.name == f"{path.stem}.slides.html")
    counter = SectionCounter()
    counter.feed(deck.read_text(encoding="utf-8"))
    assert counter.slides == decks[deck], "the tool's count and the page disagree"
    assert 8 <= counter.slides <= slides.MAX_SLIDES, f"{deck.name} has {counter.slides} slides"

    def squashed(text):  # no spaces, no markdown emphasis: "## The `x` *graph*" ~ "Thexgraph"
        return re.sub(r"[\s`*_]+", "", text)

    shown, notes = squashed("".join(counter.shown_text)), squashed("".join(counter.notes_text))
    nb = read_notebook(path)
    for cell in nb.cells:
        source = squashed(cell.source)
        if "solution" in tags(cell):
            assert source[:60] in notes and source[:60] not in shown
        elif "exercise" in tags(cell) and len(source) > 20:
            assert source not in shown, "an exercise starter is on a slide"
        elif cell.cell_type == "markdown" and re.match(r"#{1,2}\s", cell.source):
            heading = squashed(re.sub(r"[`*]", "", cell.source.splitlines()[0].lstrip("# ")))
            assert heading in shown, f"heading {cell.source.splitlines()[0]!r} is not on a slide"


@by_name(NOTEBOOK_PATHS)
def test_every_heading_starts_a_slide(path, decks):
    """A ``#``, ``##`` or ``###`` heading in the middle of a markdown cell starts a slide too."""
    deck = next(out for out in decks if out.name == f"{path.stem}.slides.html").read_text(encoding="utf-8")
    innermost = re.findall(r"<section>((?:(?!<section>).)*?)</section>", deck, re.S)
    headings = 0
    for slide in innermost:
        found = [match.start() for match in re.finditer(r"<h[1-3][ >]", slide)]
        headings += len(found)
        assert len(found) <= 1, f"two headings on one slide: {re.findall(r'<h[1-3][^>]*>([^<]*)', slide)}"
        if found:
            above = re.sub(r"<[^>]+>", "", slide[:found[0]]).strip()
            assert not above, f"a heading below {above[:80]!r} on its slide"
    in_sources = sum(1 for cell in read_notebook(path).cells if cell.cell_type == "markdown"
                     for line in re.sub(r"```.*?```", "", cell.source, flags=re.S).splitlines()
                     if re.match(r"#{1,3}\s", line))
    skipped = sum(1 for slide in innermost if not slide.strip())
    assert headings == in_sources and not skipped, (headings, in_sources)


def test_slide_rule_on_a_small_notebook():
    long_code = "\n".join(f"line_{i} = {i}" for i in range(30))
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# 01 · Title"),
        nbformat.v4.new_code_cell("import minigrad as torch"),
        nbformat.v4.new_markdown_cell("## First idea"),
        nbformat.v4.new_code_cell("print(1)"),
        nbformat.v4.new_markdown_cell("Some prose introducing the long cell."),
        nbformat.v4.new_code_cell(long_code),
        nbformat.v4.new_markdown_cell("### Bug 1"),
    ])
    assert slides.slide_plan(nb, budget=30) == [
        "slide", "skip", "slide", "fragment", "subslide", "-", "subslide"]


def test_author_slide_metadata_is_kept():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# 01 · Title", metadata={"slideshow": {"slide_type": "slide"}}),
        nbformat.v4.new_markdown_cell("## Idea", metadata={"slideshow": {"slide_type": "fragment"}}),
    ])
    deck, count = slides.lecture_notebook(nb)
    assert [c.metadata["slideshow"]["slide_type"] for c in deck.cells] == ["slide", "fragment"]
    assert count == 1


def fake_reveal_copy(folder: Path) -> Path:
    """Stands in for the npm copy of reveal.js, so no download happens."""
    for name in ("dist/reveal.js", "vendor/require.js", "vendor/jquery.min.js", "vendor/mathjax/MathJax.js"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("")
    return folder


def loaded_urls(page: str) -> list[str]:
    """What a deck's script and link tags load."""
    return re.findall(r'<(?:script|link)[^>]*(?:src|href)="([^"]+)"', page)


def test_decks_load_everything_from_the_local_copy_in_both_editions(tmp_path):
    local = fake_reveal_copy(tmp_path / "build" / "reveal.js")
    source = tmp_path / "notebooks"
    source.mkdir()
    with_math = next(path for path in NOTEBOOK_PATHS if has_math(read_notebook(path)))
    (source / with_math.name).write_bytes(with_math.read_bytes())
    fake_translation(source, {with_math.name})
    decks = slides.build(source, tmp_path / "build" / "slides", offline=local)
    by_folder = {deck.parent.name: deck for deck in decks}
    assert set(by_folder) == {"slides", "zh"}
    for folder, prefix in (("slides", "../reveal.js/"), ("zh", "../../reveal.js/")):
        page = by_folder[folder].read_text(encoding="utf-8")
        loaded = loaded_urls(page)
        assert loaded and not [url for url in loaded if re.match(r"https?:|//", url)], loaded
        assert all(url.startswith(prefix) for url in loaded), loaded
        assert f"{prefix}vendor/mathjax/MathJax.js?config=" in page   # formulas typeset offline too
        assert f"{prefix}plugin/notes/notes.js" in page
    assert "这是中文版" in by_folder["zh"].read_text(encoding="utf-8")


def test_make_slides_falls_back_to_a_cdn_without_npm(tmp_path, monkeypatch, capsys):
    (tmp_path / "notebooks").mkdir()
    first = NOTEBOOK_PATHS[0]
    (tmp_path / "notebooks" / first.name).write_bytes(first.read_bytes())
    monkeypatch.setattr(slides.shutil, "which", lambda name: None)
    assert slides.main([str(tmp_path / "notebooks"), str(tmp_path / "slides"),
                        "--reveal-dir", str(tmp_path / "reveal.js")]) == 0
    assert "Could not fetch reveal.js" in capsys.readouterr().err
    page = (tmp_path / "slides" / f"{first.stem}.slides.html").read_text(encoding="utf-8")
    assert any(url.startswith("https://") and "reveal" in url for url in loaded_urls(page))


def test_makefile_builds_offline_slides_by_default():
    makefile = (ROOT / "Makefile").read_text()
    recipe = re.search(r"^slides: .*\n\t(.*)$", makefile, re.M).group(1)
    assert "--reveal-dir $(BUILD)/reveal.js" in recipe and "$(if $(filter 1,$(CDN)),--cdn)" in recipe


# --- 4. The HTML site -----------------------------------------------------------------------

class PageReader(HTMLParser):
    """Scripts, style sheets, pictures and folded solutions of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts, self.stylesheets, self.images, self.links = [], [], [], []
        self.details = 0

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "script":
            self.scripts.append(attributes)
        elif tag == "link" and attributes.get("rel") == "stylesheet":
            self.stylesheets.append(attributes.get("href", ""))
        elif tag == "img":
            self.images.append(attributes)
        elif tag == "a":
            self.links.append(attributes.get("href", ""))
        elif tag == "details":
            self.details += 1


@pytest.fixture(scope="module")
def site_pages(tmp_path_factory):
    target = tmp_path_factory.mktemp("site")
    return site.build(NOTEBOOKS, target, repository="someone/minigrad")


def read_page(path: Path) -> PageReader:
    reader = PageReader()
    reader.feed(path.read_text(encoding="utf-8"))
    return reader


def test_index_is_the_course_map(site_pages):
    index = site_pages[0]
    assert index.name == "index.html"
    page = index.read_text(encoding="utf-8")
    links = read_page(index).links
    for path in NOTEBOOK_PATHS:
        intro = notebook_intro(read_notebook(path), path.stem)
        assert f"{path.stem}.html" in links
        assert intro.question and re.sub(r"`([^`]*)`", r"<code>\1</code>", intro.question)[:40] in page
        assert intro.learn, f"{path.name}: no 'You will learn' bullets in the first cell"
    assert not read_page(index).scripts


@by_name(NOTEBOOK_PATHS)
def test_site_page_embeds_pictures_and_reads_without_network(path, site_pages):
    page = next(out for out in site_pages if out.stem == path.stem)
    reader = read_page(page)
    nb = read_notebook(path)
    stored_pngs = ["".join(output["data"]["image/png"].split()) for cell in nb.cells
                   for output in cell.get("outputs", []) if "image/png" in output.get("data", {})]
    embedded = [image.get("src", "") for image in reader.images]
    assert len(embedded) == len(stored_pngs)
    assert all(f"data:image/png;base64,{png}" in embedded for png in stored_pngs)
    graphs = [image for image in reader.images if image.get("alt", "").startswith("Backward graph")]
    if any(o.get("data", {}).get("text/plain", "").startswith("Backward graph")
           for cell in nb.cells for o in cell.get("outputs", [])):
        assert graphs, "a graph picture lost its description (alt text)"

    external = [s.get("src") for s in reader.scripts if s.get("src")]
    # Only MathJax, loaded without blocking and only where there is math; nothing else.
    assert all("mathjax" in src.lower() and "async" in s for s in reader.scripts
               if (src := s.get("src"))), external
    assert not [href for href in reader.stylesheets if "://" in href]
    assert reader.details == sum(bool({"solution", "under-the-hood"} & set(tags(cell))) for cell in nb.cells)
    assert "index.html" in reader.links


def test_site_has_every_markdown_page_and_a_language_switch_on_every_page(tmp_path):
    source = tmp_path / "notebooks"
    source.mkdir()
    for path in NOTEBOOK_PATHS[:2]:
        (source / path.name).write_bytes(path.read_bytes())
    (source / "ctx_cheatsheet.md").write_text("# ctx on one page\n\n| member | what |\n|---|---|\n"
                                              "| `ctx.saved_tensors` | see [05](05_save_for_backward.ipynb) |\n")
    fake_translation(source, {NOTEBOOK_PATHS[0].name})
    (source / "zh" / "ctx_cheatsheet.md").write_text("# ctx 一页纸\n\n上下文。\n", encoding="utf-8")
    pages = site.build(source, tmp_path / "site")
    names = {page.relative_to(tmp_path / "site").as_posix() for page in pages}
    first, second = NOTEBOOK_PATHS[0].stem, NOTEBOOK_PATHS[1].stem
    assert names == {"index.html", f"{first}.html", f"{second}.html", "ctx_cheatsheet.html",
                     "zh/index.html", f"zh/{first}.html", "zh/ctx_cheatsheet.html"}

    cheatsheet = (tmp_path / "site" / "ctx_cheatsheet.html").read_text(encoding="utf-8")
    assert "<table>" in cheatsheet and 'href="05_save_for_backward.html"' in cheatsheet
    assert 'href="ctx_cheatsheet.html"' in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert 'href="ctx_cheatsheet.html"' in (tmp_path / "site" / "zh" / "index.html").read_text(encoding="utf-8")

    def language_links(name):
        return sorted({href for href, lang in re.findall(r'<a class="language" href="([^"]+)" hreflang="(\w+)"',
                                                  re.sub(r'(<a class="language") (hreflang="\w+") (href="[^"]+")',
                                                         r"\1 \3 \2", (tmp_path / "site" / name).read_text("utf-8")))})

    for name in ("index.html", f"{first}.html", "ctx_cheatsheet.html"):
        assert language_links(name) == [f"zh/{name}"], name
        assert language_links(f"zh/{name}") == [f"../{name}"], name
        assert (tmp_path / "site" / "zh" / name).exists()
    assert language_links(f"{second}.html") == [], "a page without a translation links to none"
    assert '<html lang="zh">' in (tmp_path / "site" / "zh" / f"{first}.html").read_text(encoding="utf-8")


def test_every_markdown_page_of_the_course_is_on_the_site(site_pages):
    index = site_pages[0].read_text(encoding="utf-8")
    for folder in editions(NOTEBOOKS).values():
        for path in folder.glob("*.md"):
            page = site_pages[0].parent / path.relative_to(NOTEBOOKS).with_suffix(".html")
            assert page in site_pages
            course_map = page.parent / "index.html"
            assert f'href="{path.stem}.html"' in course_map.read_text(encoding="utf-8"), path
    assert 'class="binder" href="https://mybinder.org/v2/gh/someone/minigrad/HEAD?urlpath=lab/tree/notebooks/00_' in index
    zh_index = (site_pages[0].parent / "zh" / "index.html").read_text(encoding="utf-8")
    assert 'href="https://mybinder.org/v2/gh/someone/minigrad/HEAD?urlpath=lab/tree/notebooks/zh/00_' in zh_index


def test_site_without_a_github_repository_has_no_dead_binder_link_and_warns(tmp_path, monkeypatch, capsys):
    (tmp_path / "notebooks").mkdir()
    shutil.copy(NOTEBOOK_PATHS[0], tmp_path / "notebooks")
    monkeypatch.setattr(site, "github_repository", lambda: None)
    assert site.main([str(tmp_path / "notebooks"), str(tmp_path / "site")]) == 0
    assert "make site BINDER_REPO=owner/name" in capsys.readouterr().err
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "mybinder.org" not in index and site.BINDER_PLACEHOLDER not in index
    assert "needs the course's GitHub repository" in index
    assert site.main([str(tmp_path / "notebooks"), str(tmp_path / "site"), "--binder-repo", "a/b"]) == 0
    assert "mybinder.org/v2/gh/a/b/HEAD" in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")


def test_markdown_pages_show_heading_anchors_only_on_hover(site_pages):
    cheatsheet = next(page for page in site_pages if page.name == "ctx_cheatsheet.html").read_text(encoding="utf-8")
    assert 'class="anchor-link"' in cheatsheet      # the "¶" links are there, for copying a link
    assert re.search(r"a\.anchor-link \{[^}]*visibility: hidden", cheatsheet), "a '¶' after every heading"
    assert re.search(r"h2:hover > a\.anchor-link[^{]*\{ visibility: visible", cheatsheet)


def test_the_chinese_first_cells_are_read_like_the_english_ones():
    """The zh course map shows each notebook's goals and time, read from the Chinese headings."""
    for path in notebook_paths(NOTEBOOKS / "zh"):
        english = notebook_intro(read_notebook(NOTEBOOKS / path.name), path.stem)
        intro = notebook_intro(read_notebook(path), path.stem)
        assert intro.question and intro.number == english.number, path.name
        assert len(intro.learn) == len(english.learn), f"{path.name}: the 你将学到 bullets were not found"
        assert re.fullmatch(r"约 \d+ 分钟", intro.time), f"{path.name}: time {intro.time!r}"
