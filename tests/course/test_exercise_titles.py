"""The exercises as the notebooks show them. Every checker prints the title of its exercise as the
notebook's heading gives it, in English and in the Chinese edition: ``### Your turn 2: why does
Power break?`` is checked by a checker whose verdict starts "✓ Your turn 2: why does Power break?"
(markdown's backquotes left out). A worked solution prints nothing but that verdict."""
from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from tools.checker_messages import messages
from tools.course import notebook_paths, read_notebook
from helpers import ROOT

NOTEBOOKS = ROOT / "notebooks"
HEADING = {"en": re.compile(r"^###\s+(Your turn (\d+)\s*:.*?)\s*$", re.MULTILINE),
           "zh": re.compile(r"^###\s+(动手练习 (\d+)\s*：.*?)\s*$", re.MULTILINE)}


def headings(path: Path, language: str) -> dict[int, str]:
    """Exercise number -> heading text, markdown backquotes removed."""
    found = {}
    for cell in read_notebook(path).cells:
        if cell.cell_type == "markdown":
            for match in HEADING[language].finditer(cell.source):
                found[int(match.group(2))] = match.group(1).replace("`", "")
    return found


def checkers(path: Path) -> dict[int, object]:
    module = importlib.import_module(f"minigrad.exercises.nb{path.name[:2]}")
    return {int(name.rsplit("_", 1)[1]): getattr(module, name) for name in dir(module)
            if re.fullmatch(r"your_turn_\d+", name)}


PATHS = notebook_paths(NOTEBOOKS)


@pytest.mark.parametrize("path", PATHS, ids=[path.stem for path in PATHS])
def test_every_checker_title_is_its_heading_in_both_languages(path):
    english, chinese, checks = headings(path, "en"), headings(path, "zh"), checkers(path)
    assert english and set(english) == set(checks), f"{path.name}: headings {sorted(english)}, checkers {sorted(checks)}"
    chinese_path = NOTEBOOKS / "zh" / path.name
    if chinese_path.exists():
        chinese = headings(chinese_path, "zh")
        assert set(chinese) == set(english), f"{chinese_path.name}: headings {sorted(chinese)}"
    for number, check in checks.items():
        assert check.title == english[number], f"{path.name}: checker {check.title!r}, heading {english[number]!r}"
        if chinese_path.exists():
            assert messages('zh').get(check.title) == chinese[number], \
                f"zh/{path.name}: checker {messages('zh').get(check.title)!r}, heading {chinese[number]!r}"


ALL_EDITIONS = PATHS + notebook_paths(NOTEBOOKS / "zh")
VERDICT = re.compile(r"(✓ (Your turn|动手练习) \d+\s*[:：].* — (correct|正确)。?\.?\n)+")


@pytest.mark.parametrize("path", ALL_EDITIONS, ids=[path.relative_to(NOTEBOOKS).as_posix() for path in ALL_EDITIONS])
def test_a_worked_solution_prints_only_its_verdict(path):
    """JupyterLab shows a cell's hidden output again when the cell runs (CodeCell.execute sets
    outputHidden to false), so after "Restart Kernel and Run All" every solution's output is in
    view, right under the exercise: it must give nothing away, only the check's ✓ line."""
    for index, cell in enumerate(read_notebook(path).cells):
        if "solution" in cell.metadata.get("tags", []):
            kinds = [output.output_type for output in cell.outputs]
            text = "".join(output.get("text", "") for output in cell.outputs)
            assert kinds == ["stream"] and VERDICT.fullmatch(text), \
                f"{path.name} cell {index}: a solution prints {text!r} ({kinds}); print only the check's verdict"
