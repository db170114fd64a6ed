"""nbgrader's autograde, with each notebook graded in a fresh process (``tools/sealed_grading.py``).

The course folder's ``nbgrader_config.py`` (written by ``make classroom``) puts
:class:`GradeInFreshProcess` where nbgrader's ``Execute`` was: instead of taking each test cell's
outputs from a kernel that ran the student's whole notebook, it writes there the verdict of the
grading process. nbgrader then scores the cells as usual, so **nbgrader's score is the checker's
verdict**: a ✓ is a plain printed verdict (full points; a warning the answer raised is part of that
printout, never stderr), a ✗ ends with an error (no points). :class:`FlagForReview` runs after
nbgrader saved the scores: each exercise the grading process flagged (tampering) is marked "needs
manual grading" in the gradebook, with the reason as a comment, for the formgrader to list.

Every grading is kept in ``grading/<assignment>/<student>/<notebook>.json`` in the course folder:
the verdicts, the flags and how long it took. The teacher's commands read them::

    python -m tools.nbgrader_grading autograde 06_needs_input_grad_and_friends --jobs 2
    python -m tools.nbgrader_grading flags          # every flagged answer and refused submission

``autograde`` grades every submission of an assignment in parallel (``--jobs`` processes), then
runs ``nbgrader autograde`` once, which finds each grading done and only records it. Plain
``nbgrader autograde`` (and the formgrader's button) grade the same way, one notebook at a time.
"""
from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
from traitlets import Float, Integer

from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor

from tools import sealed_grading

HERE = Path(__file__).resolve()
GRADING = "grading"             # the folder of gradings in the course folder
REFUSED = "refused-submissions.jsonl"


def _grader_version() -> str:
    return hashlib.sha256(Path(sealed_grading.__file__).read_bytes()).hexdigest()[:16]


def grading_key(source_nb, submitted_nb, budget: float) -> str:
    """What a grading depends on: the cells run, the grader's code, the budget."""
    cells = sealed_grading.grading_cells(source_nb, submitted_nb)
    text = json.dumps({"cells": cells, "grader": _grader_version(), "budget": budget}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def grading_path(root: str, assignment: str, student: str, notebook: str) -> Path:
    return Path(root) / GRADING / assignment / student / f"{notebook}.json"


def grade_and_keep(source_path: Path, submitted_path: Path, record: Path, budget: float,
                   memory: int) -> tuple[sealed_grading.Grading, bool]:
    """The grading of one submitted notebook: the one kept in ``record`` when it was made from the
    same cells by the same grader, else a new one (kept). Returns it and whether it is new."""
    source = nbformat.read(str(source_path), as_version=4)
    submitted = nbformat.read(str(submitted_path), as_version=4)
    return grade_nb_and_keep(source, submitted, record, budget, memory)


def grade_nb_and_keep(source, submitted, record: Path, budget: float, memory: int):
    key = grading_key(source, submitted, budget)
    if record.exists():
        try:
            kept = json.loads(record.read_text())
            if kept.get("key") == key:
                return sealed_grading.Grading.from_json(kept["grading"]), False
        except (ValueError, KeyError):
            pass
    grading = sealed_grading.grade_notebook(source, submitted, budget=budget, memory=memory)
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps({"key": key, "graded_at": datetime.datetime.now().isoformat(timespec="seconds"),
                                  "grading": grading.to_json()}, ensure_ascii=False, indent=1))
    return grading, True


def _verdict_outputs(verdict: sealed_grading.Verdict, printed: list[dict]) -> list[dict]:
    """A test cell's outputs: what the check printed (stdout only), then an error for a ✗."""
    text = "".join(o.get("text", "") for o in printed if o.get("output_type") == "stream")
    if verdict.flags or not text.strip():
        text = "\n".join(verdict.lines) + "\n"
    outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
    if not verdict.ok:
        outputs.append(nbformat.v4.new_output("error", ename="Not correct", evalue=verdict.lines[0],
                                              traceback=list(verdict.lines)))
    return outputs


class GradeInFreshProcess(NbGraderPreprocessor):
    """nbgrader's execution step, replaced: the grading process's verdicts become the test cells'
    outputs (module docstring)."""

    budget = Float(sealed_grading.BUDGET, help="Seconds for one notebook, all its cells and checks: an "
                   "infinite loop costs this much once.").tag(config=True)
    memory = Integer(sealed_grading.MEMORY, help="Bytes of data the grading process may allocate.").tag(config=True)

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        coursedir = CourseDirectory(config=self.config)
        source_path = Path(coursedir.format_path(coursedir.source_directory, ".", info["assignment"])) \
            / f"{info['notebook']}.ipynb"
        source = nbformat.read(str(source_path), as_version=4)
        record = grading_path(coursedir.root, info["assignment"], info["student"], info["notebook"])
        grading, new = grade_nb_and_keep(source, nb, record, self.budget, self.memory)
        self.log.info("Graded %s in a fresh process%s: %s", info["notebook"], "" if new else " (kept from before)",
                      ", ".join(f"Your turn {n} {'✓' if grading.verdict(n).ok else '✗'}" for n in grading.exercises))
        for reason in grading.flags:
            self.log.warning("Flagged for review (%s, %s): %s", info["student"], info["notebook"], reason)
        by_id = {cell.get("id"): cell for cell in source.cells}
        answer_outputs = {source.cells[i].metadata.get("nbgrader", {}).get("grade_id"): outputs
                          for i, outputs in grading.outputs.items()}
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            meta = cell.metadata.get("nbgrader", {})
            grade_id = meta.get("grade_id", "")
            if meta.get("grade"):
                number, _ = sealed_grading.check_arguments(by_grade_id(source, grade_id).source)
                cell.outputs = _verdict_outputs(grading.verdict(number), answer_outputs.get(grade_id, []))
            elif meta.get("solution"):
                cell.outputs = [nbformat.from_dict(o) for o in answer_outputs.get(grade_id, [])]
            elif cell.get("id") in by_id:
                cell.outputs = by_id[cell.get("id")].get("outputs", [])   # the course's own outputs
            else:
                cell.outputs = []
            cell.execution_count = None
        resources.setdefault("minigrad", {})["flagged"] = {
            f"your_turn_{n}": grading.verdict(n).flags for n in grading.exercises if grading.verdict(n).flags}
        return nb, resources


def by_grade_id(nb, grade_id: str):
    return next(cell for cell in nb.cells if cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


class FlagForReview(NbGraderPreprocessor):
    """After nbgrader saved the scores: a flagged exercise needs manual grading, with the reason as
    the comment of its answer cell (the formgrader shows both)."""

    def preprocess(self, nb, resources):
        flagged = resources.get("minigrad", {}).get("flagged", {})
        if not flagged:
            return nb, resources
        from nbgrader.api import Gradebook
        info = resources["nbgrader"]
        with Gradebook(info["db_url"]) as gradebook:
            for solution_id, reasons in flagged.items():
                grade = gradebook.find_grade(f"{solution_id}_check", info["notebook"], info["assignment"], info["student"])
                grade.needs_manual_grade = True
                comment = gradebook.find_comment(solution_id, info["notebook"], info["assignment"], info["student"])
                comment.auto_comment = "Flagged by the grader, 0 points until reviewed: " + "; ".join(reasons)
            gradebook.db.commit()
        return nb, resources


# --------------------------------------------------------------------------------- teacher's commands
def submissions(root: Path, assignment: str, students: list[str] | None = None) -> list[tuple[str, Path]]:
    """(student, notebook) for each submitted notebook of ``assignment``."""
    found = []
    for folder in sorted((root / "submitted").glob(f"*/{assignment}")):
        student = folder.parent.name
        if students and student not in students:
            continue
        found += [(student, path) for path in sorted(folder.glob("*.ipynb"))]
    return found


def autograde(root: Path, assignment: str, jobs: int, students: list[str] | None, force: bool,
              budget: float, memory: int) -> int:
    """Grade every submission of ``assignment`` in ``jobs`` processes at once, then record the
    gradings with ``nbgrader autograde``. Prints the throughput."""
    work = submissions(root, assignment, students)
    if not work:
        print(f"No submissions of {assignment} in {root}/submitted/: run nbgrader collect (or zip_collect) first.")
        return 1
    source_dir = root / "source" / assignment
    start = time.monotonic()

    def one(item):
        student, path = item
        return grade_and_keep(source_dir / path.name, path, grading_path(str(root), assignment, student, path.stem),
                              budget, memory)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(one, work))
    graded = time.monotonic() - start
    print(f"Graded {len(work)} notebook(s) of {assignment} in {graded:.0f} s with {jobs} process(es) at once "
          f"({60 * len(work) / max(graded, 1e-9):.1f} per minute; {sum(new for _, new in results)} new).")
    command = [str(Path(sys.executable).parent / "nbgrader"), "autograde", assignment]
    if force:
        command.append("--force")
    for student in students or []:
        command += ["--student", student]
    recorded = subprocess.run(command, cwd=root)
    total = time.monotonic() - start
    print(f"nbgrader recorded them in {total - graded:.0f} s: {len(work)} notebook(s) in {total:.0f} s in all "
          f"({60 * len(work) / max(total, 1e-9):.1f} per minute).")
    flagged = sum(1 for grading, _ in results if grading.flags)
    if flagged:
        print(f"{flagged} notebook(s) flagged for review: python -m tools.nbgrader_grading flags")
    return recorded.returncode


def flags(root: Path) -> list[str]:
    """One line per flagged answer and per refused submission in the course folder."""
    lines = []
    for record in sorted((root / GRADING).glob("*/*/*.json")):
        assignment, student = record.parent.parent.name, record.parent.name
        try:
            grading = sealed_grading.Grading.from_json(json.loads(record.read_text())["grading"])
        except (ValueError, KeyError):
            continue
        for reason in grading.flags:            # the notebook as a whole
            lines.append(f"{assignment}\t{student}\t{record.stem}\t{reason}")
        for number in grading.exercises:
            for reason in grading.verdict(number).flags:
                lines.append(f"{assignment}\t{student}\tYour turn {number}\t{reason}")
        if grading.timed_out:
            lines.append(f"{assignment}\t{student}\t{record.stem}\tran out of its {grading.seconds:.0f} s budget")
    refused = root / GRADING / REFUSED
    if refused.exists():
        for line in refused.read_text().splitlines():
            entry = json.loads(line)
            lines.append(f"{entry['assignment']}\t{entry['claimed']}\tsubmission refused\t{entry['reason']}")
    return lines


def course_settings(root: Path) -> tuple[float, int]:
    """The grading budget and memory the course folder's ``nbgrader_config.py`` sets (or the
    defaults): the gradings made here must be those ``nbgrader autograde`` would make."""
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config() \
        if (root / "nbgrader_config.py").exists() else {}
    section = config.get("GradeInFreshProcess", {}) if config else {}
    return float(section.get("budget", sealed_grading.BUDGET)), int(section.get("memory", sealed_grading.MEMORY))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--course", type=Path, default=Path.cwd(), help="the course folder (default: here)")
    commands = parser.add_subparsers(dest="command", required=True)
    grade = commands.add_parser("autograde", help="grade an assignment's submissions in parallel, then nbgrader autograde")
    grade.add_argument("assignment")
    grade.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="grading processes at once (default: one per core)")
    grade.add_argument("--student", action="append", help="only this student (repeat for more)")
    grade.add_argument("--force", action="store_true", help="record again what nbgrader already autograded")
    grade.add_argument("--budget", type=float, help="seconds per notebook (default: the course's nbgrader_config.py)")
    grade.add_argument("--memory", type=int, help="bytes per grading process (default: the course's nbgrader_config.py)")
    commands.add_parser("flags", help="list every flagged answer and refused submission of the class")
    args = parser.parse_args(argv)
    root = args.course.resolve()
    if args.command == "autograde":
        budget, memory = course_settings(root)
        return autograde(root, args.assignment, args.jobs, args.student, args.force,
                         budget if args.budget is None else args.budget, memory if args.memory is None else args.memory)
    lines = flags(root)
    print("\n".join(lines) if lines else f"Nothing flagged in {root}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
