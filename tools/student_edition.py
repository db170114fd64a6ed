"""Build the student edition of the course: the notebooks without their worked solutions.

For every "Your turn" exercise (docs/notebook-conventions.md, point 6):

- the worked solution (the code cell tagged ``solution``) becomes a markdown cell holding a
  hint in a folded ``<details>`` block: one click away, not shown before the student tries. It is
  the checker's deeper hint (``check.your_turn_N.deeper_hint``, in the notebook's language), a
  step further than the hint the check prints for the starter; without one, that printed hint;
- the outputs of the starter (``exercise``) and of the check cell are cleared, so nothing tells
  the student what is wrong before they run the check themselves;
- the task's sentence about the hidden worked solution is reworded for the student edition.

Nothing raises: *Run All* runs the student notebook from top to bottom, with the starters or with
the student's answers. Everything else is kept as it is. The notebooks in ``notebooks/`` are never
changed; a translated edition (``notebooks/zh/``) is written to ``TARGET/zh/``.

Usage, from the repository's root (``make student`` does this)::

    python -m tools.student_edition notebooks build/student

>>> import nbformat
>>> nb = nbformat.v4.new_notebook(cells=[
...     nbformat.v4.new_markdown_cell("### Your turn 1: double it\\n\\nWrite your answer in the next "
...         "cell and run the check below it; a worked solution is hidden below the check (click the "
...         "collapsed cell to reveal it)."),
...     nbformat.v4.new_code_cell("def double(x):\\n    ...", metadata={"tags": ["exercise"]}),
...     nbformat.v4.new_code_cell("check.your_turn_1(double)", outputs=[nbformat.v4.new_output(
...         "stream", text="✗ Your turn 1: double it — not yet.\\n  Hint: return 2 * x\\n")]),
...     nbformat.v4.new_code_cell("def double(x):\\n    return 2 * x",
...                               metadata={"tags": ["solution"], "jupyter": {"source_hidden": True, "outputs_hidden": True}}),
... ])
>>> student, titles = student_notebook(nb)
>>> titles
['Your turn 1: double it']
>>> print(student.cells[0].source.splitlines()[-1])
Write your answer in the next cell and run the check below it; if you are stuck, open the hint below the check.
>>> student_wording("在下一个单元格写出你的答案，然后运行它下面的检查；参考答案藏在检查单元格下面（点开折叠的单元格即可看到）。")
'在下一个单元格写出你的答案，然后运行它下面的检查；如果卡住了，就点开检查单元格下面折叠的提示。'
>>> student.cells[2].outputs
[]
>>> print(student.cells[3].source)
<details><summary>Hint (click to open)</summary>
<BLANKLINE>
return 2 \\* x
<BLANKLINE>
</details>
"""
from __future__ import annotations

import argparse
import copy
import importlib
import re
import sys
from pathlib import Path

import nbformat

from tools.course import editions, exercise_title_before, notebook_paths, read_notebook, tags

# The task's sentence about the folded worked solution, as the notebooks word it, and what the
# student edition says instead. The last rule catches any other wording.
STALE_TEXT = [
    (r"a\s+worked\s+solution\s+is\s+hidden\s+below\s+the\s+check(?:\s*\([^)]*\))?",
     "if you are stuck, open the hint below the check"),
    (r"a\s+worked\s+solution\s+hidden\s+below\s+the\s+check(?:\s*\([^)]*\))?",
     "a hint folded below the check (click it to open it)"),
    (r"a\s+hidden\s+worked\s+solution", "a folded hint"),
    (r"\bworked\s+solution", "hint"),
    # The Chinese edition's wordings (notebooks/zh/).
    (r"参考答案藏在检查下面（点击展开）", "如果卡住了，就打开检查下面的提示"),
    (r"参考答案藏在检查单元格下面（点开折叠的单元格即可看到）", "如果卡住了，就点开检查单元格下面折叠的提示"),
    (r"藏在检查下面的参考答案（点开折叠的单元格即可看到）", "折叠在检查下面的提示（点开即可看到）"),
    (r"隐藏的参考答案", "折叠的提示"),
    (r"参考答案", "提示"),
]
HINT = re.compile(r"^\s*(?:Hint|提示)\s*[:：]\s*(.+)$", re.MULTILINE)
CHECKER_MODULE = re.compile(r"^from minigrad\.exercises import (nb\d\d) as check\b", re.MULTILINE)
CHECK_CALL = re.compile(r"\bcheck\.your_turn_(\d+)\(")
NO_HINT = "Run the check below your answer: it says what is still wrong."
HINT_BLOCK = "<details><summary>Hint (click to open)</summary>\n\n{hint}\n\n</details>"
HINT_BLOCK_ZH = "<details><summary>提示（点击展开）</summary>\n\n{hint}\n\n</details>"


def student_wording(text: str) -> str:
    """A markdown text with its sentences about the hidden worked solution reworded."""
    for pattern, replacement in STALE_TEXT:
        text = re.sub(pattern, replacement, text, flags=re.IGNORECASE)
    return text


def escape_markdown(text: str) -> str:
    """Plain feedback text, safe in markdown: ``*``, ``_`` and ``<`` are shown as they are
    (inside backquotes too, where markdown shows everything literally)."""
    parts = re.split(r"(`[^`]*`)", text)
    return "".join(part if part.startswith("`") else
                   re.sub(r"([*_])", r"\\\1", part).replace("<", "&lt;") for part in parts)


def stored_hint(check: nbformat.NotebookNode) -> str:
    """The hint in a check cell's stored feedback for the starter (``Hint: ...``)."""
    text = "".join(output.get("text", "") for output in check.get("outputs", []))
    match = HINT.search(text)
    return match.group(1).strip() if match else ""


def deeper_hint(nb: nbformat.NotebookNode, check: nbformat.NotebookNode, language: str = "en") -> str:
    """The deeper hint of the checker that ``check`` calls (``check.your_turn_N(...)``), found
    through the set-up cell's ``from minigrad.exercises import nbNN as check``; "" if none.

    >>> nb = nbformat.v4.new_notebook(cells=[
    ...     nbformat.v4.new_code_cell("from minigrad.exercises import nb05 as check")])
    >>> deeper_hint(nb, nbformat.v4.new_code_cell("check.your_turn_3(two_backwards)"))[:35]
    'The backward of y.sum() is followed'
    """
    module = next((found.group(1) for cell in nb.cells if cell.cell_type == "code"
                   for found in [CHECKER_MODULE.search(cell.source)] if found), None)
    call = CHECK_CALL.search(check.source)
    if module is None or call is None:
        return ""
    from minigrad.exercises._feedback import translate
    checker = getattr(importlib.import_module(f"minigrad.exercises.{module}"), f"your_turn_{call.group(1)}", None)
    hint = getattr(checker, "deeper_hint", "")
    return translate(hint, language) if hint else ""


def hint_cell(hint: str, cell_id: str | None, chinese: bool = False) -> nbformat.NotebookNode:
    """A markdown cell with the hint folded in a ``<details>`` block."""
    block = HINT_BLOCK_ZH if chinese else HINT_BLOCK
    cell = nbformat.v4.new_markdown_cell(block.format(hint=escape_markdown(hint or NO_HINT)),
                                         metadata={"tags": ["hint"]})
    if cell_id:
        cell.id = cell_id  # the solution's id: the hint takes its place
    return cell


def student_notebook(nb: nbformat.NotebookNode, language: str = "en") -> tuple[nbformat.NotebookNode, list[str]]:
    """A copy of ``nb`` with its solutions replaced by folded hints, and the exercises' titles."""
    student = copy.deepcopy(nb)
    chinese = language == "zh"
    titles = []
    for index, cell in enumerate(student.cells):
        cell_tags = tags(cell)
        if cell.cell_type == "markdown":
            cell.source = student_wording(cell.source)
        elif "solution" in cell_tags:
            title = exercise_title_before(student, index)
            titles.append(title)
            check = nb.cells[index - 1]   # the original, with the stored feedback
            hint = deeper_hint(nb, check, language) or stored_hint(check)
            student.cells[index] = hint_cell(hint, cell.get("id"), chinese)
        elif "exercise" in cell_tags or (index + 1 < len(student.cells)
                                         and "solution" in tags(student.cells[index + 1])):
            cell.outputs = []            # the starter's and the check's stored feedback
            cell.execution_count = None
    return student, titles


def build_edition(source: Path, target: Path, language: str = "en") -> dict[Path, list[str]]:
    """Write the student edition of the notebooks in ``source`` (one folder) to ``target``."""
    target.mkdir(parents=True, exist_ok=True)
    written = {}
    for path in notebook_paths(source):
        student, titles = student_notebook(read_notebook(path), language)
        out = target / path.name
        nbformat.write(student, str(out))
        written[out] = titles
    for stale in set(notebook_paths(target)) - set(written):
        stale.unlink()
    return written


def build(source: Path | str, target: Path | str) -> dict[Path, list[str]]:
    """Write the student edition of every notebook in ``source`` to ``target``, and of each
    translated edition (``source/zh``) to ``target/zh``.

    Returns the notebooks written, each with the titles of its exercises. Notebooks left in
    ``target`` by an earlier build whose source is gone are removed.
    """
    written = {}
    for language, folder in editions(source).items():
        out = Path(target) if language == "en" else Path(target) / language
        written.update(build_edition(folder, out, language))
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="folder of course notebooks (notebooks)")
    parser.add_argument("target", type=Path, help="folder for the student edition (build/student)")
    args = parser.parse_args(argv)
    written = build(args.source, args.target)
    for out, titles in written.items():
        print(f"{out}: {len(titles)} solution(s) replaced by folded hints"
              + (f" ({'; '.join(titles)})" if titles else ""))
    print(f"Student edition: {len(written)} notebooks in {args.target}/ "
          f"(open it with `make lab-student`)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
