"""Prepare an nbgrader course folder from the course notebooks (``make classroom``).

Every notebook becomes one nbgrader assignment, in both languages: ``source/06_needs_input_grad_and_friends/``
and ``source/zh_06_needs_input_grad_and_friends/`` (the Chinese edition, ``notebooks/zh/``). Each
notebook is the student edition (``tools/student_edition.py``: folded hints, reworded tasks, no
stored feedback) with nbgrader's cells added, so that nbgrader's student version *is* the student
edition plus grading metadata:

- the set-up cell (the first code cell: it imports the checker as ``check``) is a read-only cell,
  restored by ``nbgrader autograde``: a student's edit cannot swap the checker;
- each "Your turn" starter becomes a solution cell: the starter, then the worked solution between
  ``### BEGIN SOLUTION`` and ``### END SOLUTION``. ``nbgrader generate_assignment`` deletes the
  region (the course folder's ``nbgrader_config.py`` sets an empty stub), so students get the
  starter, which runs;
- each check becomes an autograded test cell worth ``POINTS`` points, locked:
  ``check.your_turn_1(prediction).for_nbgrader()``. Students see the course's check: it prints ✓,
  or ✗ with what is wrong and a hint, and never raises, so *Run All* runs; under nbgrader's
  Validate a ✗ also goes to stderr, so that Validate lists it. The grade does not come from that cell's run:
  the course folder's ``nbgrader_config.py`` has ``nbgrader autograde`` grade each notebook in a
  fresh process that runs the checker itself (``tools/sealed_grading.py``,
  ``tools/nbgrader_grading.py``), and a submission is filed only under the account that made it
  (``tools/nbgrader_exchange.py``). There is no hidden-tests region: the cell students get is the
  cell nbgrader grades, so nbgrader's checksum of a locked cell never changes (hidden tests
  make ``autograde`` warn "Attribute 'checksum' for cell ... has changed!" for every
  submission, jupyter/nbgrader#1961).

Teachers then use nbgrader's own commands from the course folder: ``nbgrader generate_assignment``,
``release_assignment``, ``collect`` (or ``zip_collect``), ``autograde``, ``generate_feedback``,
``export`` (README.md, "Teaching a class"). Running this again rewrites ``source/`` only; the
gradebook, submissions and an edited ``nbgrader_config.py`` are left as they are.

Usage, from the repository's root (``make classroom`` does this)::

    python -m tools.nbgrader_course notebooks classroom/course [--course-id minigrad]

>>> import nbformat
>>> nb = nbformat.v4.new_notebook(cells=[
...     nbformat.v4.new_code_cell("from minigrad.exercises import nb00 as check"),
...     nbformat.v4.new_markdown_cell("### Your turn 1: double it\\n\\nWrite your answer in the next "
...         "cell and run the check; a worked solution is hidden below the check (click to reveal)."),
...     nbformat.v4.new_code_cell("answer = 0   # edit", metadata={"tags": ["exercise"]}),
...     nbformat.v4.new_code_cell("check.your_turn_1(answer);", outputs=[nbformat.v4.new_output(
...         "stream", text="✗ Your turn 1: double it — not yet.\\n  Hint: 2 * 21\\n")]),
...     nbformat.v4.new_code_cell("answer = 42\\ncheck.your_turn_1(answer);",
...                               metadata={"tags": ["solution"], "jupyter": {"source_hidden": True}}),
... ], metadata={"kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}})
>>> graded, exercises = source_notebook(nb)
>>> [(e.number, e.title, e.points) for e in exercises]
[(1, 'Your turn 1: double it', 1)]
>>> print(graded.cells[2].source)
answer = 0   # edit
### BEGIN SOLUTION
answer = 42
### END SOLUTION
>>> print(graded.cells[3].source)
check.your_turn_1(answer).for_nbgrader()
>>> graded.cells[3].metadata.nbgrader["points"], graded.cells[0].metadata.nbgrader["locked"]
(1, True)
>>> graded.cells[4].cell_type
'markdown'
"""
from __future__ import annotations

import argparse
import ast
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

from tools.course import editions, exercise_title_before, notebook_paths, read_notebook, tags
from tools.student_edition import student_notebook

POINTS = 1                      # each "Your turn" is worth this many points
COURSE_ID = "minigrad"
EXCHANGE = "/srv/nbgrader/exchange"
SCHEMA_VERSION = 3              # nbgrader's cell metadata format (nbgrader 0.6 and later)
BEGIN_SOLUTION, END_SOLUTION = "### BEGIN SOLUTION", "### END SOLUTION"
CHECK_CALL = re.compile(r"^check\.your_turn_(\d+)\(.*\)$", re.DOTALL)
GRADED = "{call}.for_nbgrader()"   # the test cell: the check, whose verdict nbgrader grades

GRADER_MARK = "tools.nbgrader_grading.GradeInFreshProcess"
CONFIG = '''"""nbgrader's configuration for the minigrad course (written by `make classroom`).

Run nbgrader's commands in this folder (README.md, "Teaching a class"). `make classroom` writes
this file only when it is missing: your edits stay.
"""
import os
import sys

c = get_config()  # noqa: F821 (nbgrader provides it)
{grading}
c.CourseDirectory.course_id = {course_id!r}
# The exchange: a folder every student and the teacher can write (mode 777 with the sticky bit);
# NBGRADER_EXCHANGE overrides it. Students' servers read the same folder
# (classroom/student-config/nbgrader_config.py).
c.Exchange.root = os.environ.get("NBGRADER_EXCHANGE", {exchange!r})

# Solution regions follow the starter, which students keep: delete the region, add no stub.
c.ClearSolutions.code_stub = {{"python": ""}}
# Keep the course's stored outputs (its graphs and plots) in the students' version, as the
# student edition does; the starters' and checks' outputs are already cleared in source/.
c.ClearOutput.enabled = False
# Validate (students' Assignment List) runs the notebook in a kernel: a cell that never ends stops after this.
c.Execute.timeout = 300
# `nbgrader zip_collect`: submissions gathered without the exchange (e-mail, a learning platform),
# put in downloaded/<assignment>/archive/ as <student id>_<notebook file name>, or zip files of
# them. The student id is everything before "_<notebook file name>": it may hold underscores
# (john_smith_06_needs_input_grad_and_friends.ipynb is john_smith's). A file that does not match
# is skipped with only a warning: count the folders in submitted/ after zip_collect.
c.FileNameCollectorPlugin.named_regexp = r".*/(?P<student_id>[^/]+)_(?P<file_id>\\d\\d_[a-z0-9_]+\\.ipynb)$"
'''


GRADING = '''
# The grade comes from a fresh process per notebook, where only the student's cells are student
# code, and a submission is filed only under the account that made it (tools/sealed_grading.py,
# tools/nbgrader_exchange.py in the course's checkout, README.md "How an exercise is graded").
sys.path.insert(0, {checkout!r})
c.Autograde.autograde_preprocessors = [
    "tools.nbgrader_grading.GradeInFreshProcess",     # in place of nbgrader's Execute
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "tools.nbgrader_grading.FlagForReview",           # tampering: 0 points and "needs manual grading"
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]
# Seconds for one notebook, every cell and check: a cell that never ends costs this once.
c.GradeInFreshProcess.budget = 120
c.ExchangeFactory.collect = "tools.nbgrader_exchange.OwnerCheckedCollect"
c.ExchangeFactory.submit = "tools.nbgrader_exchange.OwnerCheckedSubmit"
'''
CHECKOUT = Path(__file__).resolve().parent.parent


@dataclass
class Exercise:
    """One "Your turn" of a notebook, as graded."""

    number: int          # N in check.your_turn_N
    title: str           # "Your turn 1: predict x.grad" (or the Chinese heading)
    solution_id: str     # nbgrader's grade_id of the solution cell
    test_id: str         # and of the autograded test cell
    points: int


def check_call(source: str) -> tuple[int, str]:
    """The exercise number and the call in a check cell (``check.your_turn_2(MySort);``).

    >>> check_call("check.your_turn_2(MySort);")
    (2, 'check.your_turn_2(MySort)')
    >>> check_call("print(1)")
    Traceback (most recent call last):
    ...
    ValueError: a check cell holds one call check.your_turn_N(...), not 'print(1)'
    """
    text = source.strip().rstrip(";").strip()
    try:
        tree = ast.parse(text)
    except SyntaxError:
        tree = None
    match = CHECK_CALL.match(text)
    if not match or tree is None or len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        raise ValueError(f"a check cell holds one call check.your_turn_N(...), not {source!r}")
    return int(match.group(1)), text


def worked_solution(solution: str, call: str) -> str:
    """The solution cell's code without its check call (the test cell makes that call)."""
    kept = [line for line in solution.splitlines() if line.strip().rstrip(";").strip() != call]
    if len(kept) == len(solution.splitlines()):
        raise ValueError(f"the worked solution does not run its check {call!r}:\n{solution}")
    return "\n".join(kept).strip("\n")


def nbgrader_metadata(grade_id: str, *, solution: bool = False, grade: bool = False,
                      locked: bool = False, points: int | None = None) -> dict:
    metadata = {"grade": grade, "grade_id": grade_id, "locked": locked,
                "schema_version": SCHEMA_VERSION, "solution": solution, "task": False}
    if points is not None:
        metadata["points"] = points
    return metadata


def source_notebook(nb: nbformat.NotebookNode, language: str = "en",
                    points: int = POINTS) -> tuple[nbformat.NotebookNode, list[Exercise]]:
    """The nbgrader source version of a course notebook, and its graded exercises."""
    graded, _ = student_notebook(nb, language)
    exercises = []
    setup = next((i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"), None)
    for index, cell in enumerate(nb.cells):
        if "solution" not in tags(cell):
            continue
        starter, check = index - 2, index - 1
        if starter < 0 or "exercise" not in tags(nb.cells[starter]):
            raise ValueError(f"cell {index}: a solution must follow a starter tagged 'exercise' and its "
                             "check (docs/notebook-conventions.md, point 6)")
        number, call = check_call(nb.cells[check].source)
        title = exercise_title_before(nb, starter)
        exercise = Exercise(number, title, f"your_turn_{number}", f"your_turn_{number}_check", points)
        solution_cell = graded.cells[starter]
        solution_cell.source = "\n".join([nb.cells[starter].source.rstrip("\n"), BEGIN_SOLUTION,
                                          worked_solution(cell.source, call), END_SOLUTION])
        solution_cell.metadata["nbgrader"] = nbgrader_metadata(exercise.solution_id, solution=True)
        test_cell = graded.cells[check]
        test_cell.source = GRADED.format(call=call)
        test_cell.metadata["nbgrader"] = nbgrader_metadata(exercise.test_id, grade=True, locked=True,
                                                           points=points)
        exercises.append(exercise)
    if exercises and setup is not None:
        graded.cells[setup].metadata["nbgrader"] = nbgrader_metadata("setup", locked=True)
    return graded, exercises


def assignment_name(path: Path, language: str) -> str:
    """nbgrader's assignment id for a notebook: its name, with the language in front for a
    translation (``zh_00_start_here``)."""
    return path.stem if language == "en" else f"{language}_{path.stem}"


def build(notebooks: Path | str, target: Path | str, course_id: str = COURSE_ID,
          exchange: str = EXCHANGE, languages: tuple[str, ...] | None = None,
          points: int = POINTS) -> dict[str, list[Exercise]]:
    """Write ``target/source/<assignment>/<notebook>.ipynb`` for every course notebook (both
    editions unless ``languages`` says which), and ``target/nbgrader_config.py`` when missing.

    Returns each assignment's exercises. Assignments left in ``source/`` whose notebook is gone
    are removed; nothing outside ``source/`` is touched. A new ``target`` is made readable by its
    owner only (mode 0700): it will hold the gradebook, every submission and the grades.
    """
    target = Path(target)
    if not target.exists():
        target.mkdir(parents=True)
        target.chmod(0o700)
    source = target / "source"
    written: dict[str, list[Exercise]] = {}
    for language, folder in editions(notebooks).items():
        if languages and language not in languages:
            continue
        for path in notebook_paths(folder):
            graded, exercises = source_notebook(read_notebook(path), language, points)
            name = assignment_name(path, language)
            (source / name).mkdir(parents=True, exist_ok=True)
            nbformat.write(graded, str(source / name / path.name))
            written[name] = exercises
    if source.is_dir():
        for stale in sorted(p for p in source.iterdir() if p.is_dir() and p.name not in written
                            and any(notebook_paths(p))):
            for path in notebook_paths(stale):
                path.unlink()
    config = target / "nbgrader_config.py"
    if not config.exists():
        config.write_text(CONFIG.format(course_id=course_id, exchange=exchange,
                                        grading=GRADING.format(checkout=str(CHECKOUT))), encoding="utf-8")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", type=Path, help="folder of course notebooks (notebooks)")
    parser.add_argument("target", type=Path, help="the nbgrader course folder (classroom/course)")
    parser.add_argument("--course-id", default=COURSE_ID, help=f"nbgrader's course id ({COURSE_ID})")
    parser.add_argument("--exchange", default=EXCHANGE, help=f"the exchange folder ({EXCHANGE})")
    parser.add_argument("--language", action="append", choices=["en", "zh"],
                        help="only this edition (repeat for both; default: every edition)")
    parser.add_argument("--points", type=int, default=POINTS, help=f"points per exercise ({POINTS})")
    args = parser.parse_args(argv)
    config_existed = (args.target / "nbgrader_config.py").exists()
    written = build(args.notebooks, args.target, args.course_id, args.exchange,
                    tuple(args.language) if args.language else None, args.points)
    for name, exercises in written.items():
        print(f"{args.target}/source/{name}: {len(exercises)} graded exercise(s), "
              f"{sum(e.points for e in exercises)} point(s)")
    print(f"nbgrader course folder: {args.target}/ ({len(written)} assignments)"
          + ("; nbgrader_config.py kept as it was" if config_existed else "; wrote nbgrader_config.py"))
    print(f"Next, in {args.target}/: nbgrader generate_assignment 00_start_here  (README.md, 'Teaching a class')")
    if config_existed and GRADER_MARK not in (args.target / "nbgrader_config.py").read_text():
        print(f"Warning: {args.target}/nbgrader_config.py predates the course's grading in a fresh process: "
              "nbgrader would grade in the student's kernel, which the notebook's code can fool. Add these "
              "lines to it (or move it away and run this again):" + GRADING.format(checkout=str(CHECKOUT)),
              file=sys.stderr)
    if shared_with_others(args.target):
        print(f"Warning: {args.target}/ is readable by other accounts (mode {args.target.stat().st_mode & 0o777:o}), "
              f"and it will hold every submission and the grades: chmod 700 {args.target}", file=sys.stderr)
    return 0


def shared_with_others(folder: Path) -> bool:
    """Whether any account can reach into ``folder``: it and each folder above it let "others"
    in (mode o+x). A student could then read the submissions and the gradebook kept there.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     Path(tmp).chmod(0o755)
    ...     private = Path(tmp, "course"); private.mkdir(); private.chmod(0o700)
    ...     shared = Path(tmp, "shared"); shared.mkdir(); shared.chmod(0o755)
    ...     shared_with_others(private), shared_with_others(shared), shared_with_others(private / "..")
    (False, True, True)
    """
    folder = Path(folder).resolve()
    return all(path.stat().st_mode & 0o001 for path in (folder, *folder.parents))


if __name__ == "__main__":
    sys.exit(main())
