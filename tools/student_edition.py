"""Build the student edition of the course: the notebooks without their worked solutions.

Every cell tagged ``solution`` becomes a short stub that raises ``NotImplementedError`` naming
its exercise (tagged ``raises-exception``, so *Run All* goes on past it), and the outputs of the
``exercise`` (starter) cells and solution cells are cleared. Everything else is kept as it is,
including the stored feedback of each check cell for the starter. The notebooks in
``notebooks/`` are never changed.

Usage, from the repository's root (``make student`` does this)::

    python -m tools.student_edition notebooks build/student

>>> import nbformat
>>> nb = nbformat.v4.new_notebook(cells=[
...     nbformat.v4.new_markdown_cell("### Your turn 1: double it"),
...     nbformat.v4.new_code_cell("def double(x):\\n    ...", metadata={"tags": ["exercise"]}),
...     nbformat.v4.new_code_cell("check.your_turn_1(double)"),
...     nbformat.v4.new_code_cell("def double(x):\\n    return 2 * x",
...                               metadata={"tags": ["solution"], "jupyter": {"source_hidden": True}}),
... ])
>>> student, titles = student_notebook(nb)
>>> titles
['Your turn 1: double it']
>>> print(student.cells[3].source.splitlines()[-1])
raise NotImplementedError("Your turn 1: double it: the worked solution is not in the student edition. Write your answer in the exercise cell above and run its check.")
>>> student.cells[3].metadata
{'tags': ['solution', 'raises-exception']}
"""
from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path

import nbformat

from tools.course import exercise_title_before, notebook_paths, read_notebook, tags

STUB = '''\
# Student edition: the worked solution of "{title}" is not included.
# Write your answer in the exercise cell above, then run the check cell below it.
raise NotImplementedError({message})'''


def stub_message(title: str) -> str:
    """The error a solution stub raises: which exercise, and what to do instead."""
    return (f"{title}: the worked solution is not in the student edition. "
            "Write your answer in the exercise cell above and run its check.")


def student_notebook(nb: nbformat.NotebookNode) -> tuple[nbformat.NotebookNode, list[str]]:
    """A copy of ``nb`` with its solutions replaced by stubs, and the stubs' exercise titles."""
    student = copy.deepcopy(nb)
    titles = []
    for index, cell in enumerate(student.cells):
        cell_tags = tags(cell)
        if cell.cell_type != "code":
            continue
        if "solution" in cell_tags:
            title = exercise_title_before(student, index)
            titles.append(title)
            message = json.dumps(stub_message(title), ensure_ascii=False)  # a valid Python literal
            cell.source = STUB.format(title=title, message=message)
            jupyter = cell.metadata.get("jupyter", {})
            jupyter.pop("source_hidden", None)  # nothing to hide in a stub
            if not jupyter:
                cell.metadata.pop("jupyter", None)
            if "raises-exception" not in cell_tags:
                cell_tags.append("raises-exception")
            cell.metadata["tags"] = cell_tags
        if "solution" in cell_tags or "exercise" in cell_tags:
            cell.outputs = []
            cell.execution_count = None
    return student, titles


def build(source: Path | str, target: Path | str) -> dict[Path, list[str]]:
    """Write the student edition of every notebook in ``source`` to ``target``.

    Returns the notebooks written, each with the exercise titles of its stubs. Notebooks left in
    ``target`` by an earlier build whose source is gone are removed.
    """
    target = Path(target)
    target.mkdir(parents=True, exist_ok=True)
    written = {}
    for path in notebook_paths(source):
        student, titles = student_notebook(read_notebook(path))
        out = target / path.name
        nbformat.write(student, str(out))
        written[out] = titles
    for stale in set(notebook_paths(target)) - set(written):
        stale.unlink()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="folder of course notebooks (notebooks)")
    parser.add_argument("target", type=Path, help="folder for the student edition (build/student)")
    args = parser.parse_args(argv)
    written = build(args.source, args.target)
    for out, titles in written.items():
        print(f"{out}: {len(titles)} solution(s) replaced by stubs" + (f" ({'; '.join(titles)})" if titles else ""))
    print(f"Student edition: {len(written)} notebooks in {args.target}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
