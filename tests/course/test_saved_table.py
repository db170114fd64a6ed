"""The table "which built-in nodes save what" (notebook 05, the cheat sheet) is the code's.

tools/saved_table.py makes it from each builtin node class's ``_saved_<name>`` attributes; every copy
of it in the course, in both languages, must be exactly that table, so that a change to
``minigrad/ops`` that makes a node save something else fails here until the table is pasted again.
"""
from __future__ import annotations

import json

import pytest

import minigrad as torch
from minigrad.autograd import node_info
from tools import saved_table
from tools import translate as tr

NOTEBOOK = tr.ENGLISH / "05_save_for_backward.ipynb"
COPIES = {  # file: language; every copy must hold the table
    NOTEBOOK: "en",
    tr.CHINESE / NOTEBOOK.name: "zh",
    tr.ENGLISH / "ctx_cheatsheet.md": "en",
    tr.CHINESE / "ctx_cheatsheet.md": "zh",
}


def text_of(path) -> str:
    if path.suffix != ".ipynb":
        return path.read_text(encoding="utf-8")
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n\n".join(tr.source_of(cell) for cell in cells if cell["cell_type"] == "markdown")


@pytest.mark.parametrize("path", list(COPIES), ids=lambda path: str(path.relative_to(tr.ROOT)))
def test_every_copy_of_the_table_is_the_one_the_code_makes(path):
    found = saved_table.table_in(text_of(path))
    assert found is not None, f"{path.name} has lost the table (python -m tools.saved_table)"
    assert found == saved_table.table(COPIES[path]), (
        f"{path.relative_to(tr.ROOT)}: the table differs from the code's; paste the output of "
        f"python -m tools.saved_table {COPIES[path]}")


def test_each_node_is_in_exactly_one_group_and_the_groups_cover_every_builtin():
    groups = saved_table.groups()
    nodes = [node for members in groups.values() for node in members]
    assert len(nodes) == len(set(nodes)) == len(saved_table.saved_names()) > 100


@pytest.mark.parametrize(("make", "node", "group"), [
    (lambda x: x.exp(), "ExpBackward0", "its output only"),
    (lambda x: x.tanh(), "TanhBackward0", "its output only"),
    (lambda x: x.relu(), "ReluBackward0", "its output only"),
    (lambda x: x ** torch.tensor([2.0, 3.0]), "PowBackward1", "its output and other tensors"),
    (lambda x: x * x, "MulBackward0", "other tensors only"),
    (lambda x: x[torch.tensor([1, 0])], "IndexBackward0", "other tensors only"),
    (lambda x: x + x, "AddBackward0", "nothing"),
    (lambda x: x.sum(), "SumBackward0", "nothing"),
])
def test_the_group_matches_what_a_real_node_saves(make, node, group):
    x = torch.tensor([0.5, 2.0], requires_grad=True)
    y = make(x)
    assert y.grad_fn.name() == node
    assert node in saved_table.groups()[group]
    saved = [t for t in node_info.saved_tensors(y.grad_fn) or () if t is not None]
    outputs = [t for t in saved if t.data_ptr() == y.data_ptr()]
    assert bool(saved) == (group != "nothing")
    assert bool(outputs) == group.startswith("its output")


def test_a_saved_output_changed_in_place_breaks_backward_and_an_unsaved_one_does_not():
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    y = x.exp()
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    z = x * 2
    z.add_(1)
    z.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
