"""No "Your turn" shows its check's verdict before the learner runs it: every exercise cell is
followed by its check call, stored without outputs (the hint a check prints for the starter can
come close to the answer), and tagged so that nbval runs it without comparing."""
from __future__ import annotations

import pytest

from tools.course import editions, notebook_paths, read_notebook
from tools.notebook_metadata import CHECK_CELL
from helpers import ROOT

PATHS = [path for folder in editions(ROOT / "notebooks").values() for path in notebook_paths(folder)]


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.relative_to(ROOT / "notebooks").as_posix())
def test_every_check_cell_is_stored_without_its_verdict(path):
    cells = read_notebook(path).cells
    exercises = [i for i, cell in enumerate(cells) if "exercise" in cell.metadata.get("tags", [])]
    checks = [i for i, cell in enumerate(cells) if cell.cell_type == "code" and CHECK_CELL.match(cell.source.lstrip())]
    assert exercises and [i + 1 for i in exercises] == checks, "each exercise cell is followed by its check"
    for i in checks:
        assert cells[i].outputs == [] and cells[i].execution_count is None, f"cell {i} stores a verdict"
        assert "nbval-ignore-output" in cells[i].metadata.get("tags", []), f"cell {i}"


def test_a_learners_save_keeps_the_verdict_they_ran():
    from tools.notebook_metadata import pre_save_hook

    verdict = {"output_type": "stream", "name": "stdout", "text": "✓ Your turn 1: a Scale module — correct.\n"}
    check = {"cell_type": "code", "id": "c1", "source": "check.your_turn_1(Scale)", "metadata": {},
             "execution_count": 3, "outputs": [verdict]}
    model = {"type": "notebook", "content": {"metadata": {}, "nbformat": 4, "nbformat_minor": 5, "cells": [check]}}
    pre_save_hook(model, path="workspace/notebooks/01_self.ipynb")
    saved = model["content"]["cells"][0]
    assert saved["outputs"] == [verdict] and saved["execution_count"] == 3
