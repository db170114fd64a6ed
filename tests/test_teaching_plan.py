"""The lecture plans (TEACHING.md, and its Chinese summary in README.zh.md) agree with the notebooks:
the time each notebook states (``**Time** about N minutes``) and the exercises they name.

When a notebook's stated time changes, these tests name the table row to update.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools.course import YOUR_TURN, notebook_intro, notebook_paths, read_notebook  # noqa: E402

PLANS = {  # file, the notebooks it describes, the header of the column with each notebook's own time
    "TEACHING.md": (ROOT / "notebooks", "alone"),
    "README.zh.md": (ROOT / "notebooks" / "zh", "自学"),
}


def plan_rows(path: Path, time_column: str) -> list[dict[str, str]]:
    """The rows of the lecture-plan table (the one with a ``notebook`` column and ``time_column``)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and time_column in cells and any(c in ("notebook", "笔记本") for c in cells):
            rows = []
            for row in lines[index + 2:]:
                if not row.startswith("|"):
                    break
                rows.append(dict(zip(cells, (cell.strip() for cell in row.strip().strip("|").split("|")))))
            return rows
    raise AssertionError(f"{path.name} has no lecture-plan table with a {time_column!r} column")


def plain(text: str) -> str:
    return re.sub(r"[`*]", "", text).strip().lower()


@pytest.mark.parametrize("plan", PLANS)
def test_lecture_plan_times_are_the_notebooks_stated_times(plan):
    folder, time_column = PLANS[plan]
    rows = plan_rows(ROOT / plan, time_column)
    notebooks = {path.name[:2]: path for path in notebook_paths(folder)}
    planned = {row[next(key for key in row if key in ("notebook", "笔记本"))][:2]: row for row in rows}
    assert sorted(planned) == sorted(notebooks), f"{plan}: the plan's notebooks are not the course's"
    for number, path in notebooks.items():
        stated = re.search(r"\d+", notebook_intro(read_notebook(path), path.stem).time)
        assert stated, f"{path.name} states no time"
        assert planned[number][time_column] == stated.group(), (
            f"{plan}: notebook {number} takes {planned[number][time_column]} minutes in the plan, "
            f"{stated.group()} in its first cell")


@pytest.mark.parametrize("plan", PLANS)
def test_lecture_plan_names_each_exercise_by_its_number_and_title(plan):
    folder, time_column = PLANS[plan]
    exercise = re.compile(r"(Your turn|动手练习) (\d+)[:：]\s*(.+?)(?=\s*[（(]\d|\s+and\s+|和动手练习|$)")
    named = 0
    for row in plan_rows(ROOT / plan, time_column):
        number = row[next(key for key in row if key in ("notebook", "笔记本"))][:2]
        path = next(path for path in notebook_paths(folder) if path.name.startswith(number))
        titles = {int(match.group(2)): plain(match.group(3))
                  for cell in read_notebook(path).cells if cell.cell_type == "markdown"
                  for heading in YOUR_TURN.findall(cell.source)
                  for match in [re.match(r"(Your turn|动手练习) (\d+)[:：]\s*(.+)", heading)] if match}
        for text in list(row.values())[3:]:
            for match in exercise.finditer(text):
                named += 1
                which = int(match.group(2))
                assert which in titles, f"{plan}: notebook {number} has no {match.group(1)} {which}"
                assert plain(match.group(3)) in titles[which], (
                    f"{plan}: notebook {number}'s {match.group(1)} {which} is {titles[which]!r}, "
                    f"not {plain(match.group(3))!r}")
            unnumbered = re.sub(r"(Your turn|动手练习) \d+[:：][^（(]*", "", text)
            assert not re.search(r"CustomFunction|矩阵乘法", unnumbered), f"{plan}: an exercise without its number: {text}"
    assert named >= 20, f"{plan}: only {named} exercises found in the plan"
