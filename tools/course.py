"""Reading the course notebooks: which notebooks there are, their titles and goals, and
their "Your turn" exercises (see docs/notebook-conventions.md for the shape they follow).
The Chinese edition's headings (``### 动手练习 1：…``, ``**你将学到**``, ``**时间** 约 30 分钟``)
are read the same way.

>>> import nbformat
>>> nb = nbformat.v4.new_notebook(cells=[
...     nbformat.v4.new_markdown_cell("# 07 · Tracing\\n\\nWhat does it do?\\n\\n**Time** about 30 minutes."),
...     nbformat.v4.new_markdown_cell("### Your turn 1: read it\\n\\nThe task."),
...     nbformat.v4.new_code_cell("answer = ...", metadata={"tags": ["exercise"]}),
... ])
>>> intro = notebook_intro(nb, "07_tracing")
>>> intro.number, intro.title, intro.question, intro.time
('07', 'Tracing', 'What does it do?', 'about 30 minutes')
>>> exercise_title_before(nb, 2)
'Your turn 1: read it'
>>> zh = nbformat.v4.new_notebook(cells=[
...     nbformat.v4.new_markdown_cell("# 07 · 追踪\\n\\n它做了什么？\\n\\n**你将学到**\\n- 一件事。\\n\\n**时间** 约 30 分钟。"),
...     nbformat.v4.new_markdown_cell("### 动手练习 1：读一读\\n\\n任务。"),
...     nbformat.v4.new_code_cell("answer = ...", metadata={"tags": ["exercise"]}),
... ])
>>> intro = notebook_intro(zh, "07_tracing")
>>> intro.title, intro.question, intro.learn, intro.time
('追踪', '它做了什么？', ['一件事。'], '约 30 分钟')
>>> exercise_title_before(zh, 2)
'动手练习 1：读一读'
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

# An exercise's heading, in English or in the Chinese edition.
YOUR_TURN = re.compile(r"^###\s+((?:Your turn\b|动手练习).*?)\s*$", re.MULTILINE)
# The first cell's labels, in both editions: the learning goals and the time it takes.
LEARN_LABEL = r"\*\*(?:You will learn|你将学到)\*\*"
TIME = re.compile(r"(about \d+ minutes|约\s*\d+\s*分钟)", re.IGNORECASE)
NOTEBOOK_NAME = re.compile(r"^\d\d_.*\.ipynb$")
# Translated editions: notebooks/<language>/NN_name.ipynb, the same cells in the same order.
TRANSLATIONS = ("zh",)


# The Jinja block the site and slide templates share: MathJax is loaded only by pages that contain
# formulas, and without blocking the page.
MATHJAX_BLOCK = r"""{%- block html_head_js_mathjax -%}
{%- if resources.course_has_math -%}
<script type="text/x-mathjax-config">
MathJax.Hub.Config({tex2jax: {inlineMath: [['$', '$'], ['\\(', '\\)']], processEscapes: true}});
</script>
<script async src="{{ resources.mathjax_url }}"></script>
{%- endif -%}
{%- endblock html_head_js_mathjax -%}
"""


def notebook_paths(folder: Path | str) -> list[Path]:
    """The course notebooks in ``folder`` (files named ``NN_name.ipynb``), in course order."""
    return sorted(path for path in Path(folder).iterdir() if NOTEBOOK_NAME.match(path.name))


def editions(folder: Path | str) -> dict[str, Path]:
    """Each edition's folder of notebooks, by language: English in ``folder`` itself, and every
    translation in ``TRANSLATIONS`` whose subfolder holds notebooks (``notebooks/zh/``).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     (Path(tmp) / "zh").mkdir()
    ...     _ = (Path(tmp) / "zh" / "00_start.ipynb").write_text("{}")
    ...     sorted(editions(tmp))
    ['en', 'zh']
    """
    found = {"en": Path(folder)}
    for language in TRANSLATIONS:
        translated = Path(folder) / language
        if translated.is_dir() and notebook_paths(translated):
            found[language] = translated
    return found


def read_notebook(path: Path | str) -> nbformat.NotebookNode:
    """Read a notebook as nbformat version 4."""
    return nbformat.read(str(path), as_version=4)


def tags(cell: nbformat.NotebookNode) -> list[str]:
    """The cell's tags (an empty list when it has none)."""
    return list(cell.get("metadata", {}).get("tags", []))


def heading_level(cell: nbformat.NotebookNode) -> int:
    """1 for a markdown cell starting with ``# ``, 2 for ``## ``, ...; 0 for anything else."""
    if cell.cell_type != "markdown":
        return 0
    match = re.match(r"(#{1,6})\s", cell.source.lstrip())
    return len(match.group(1)) if match else 0


def has_math(nb: nbformat.NotebookNode) -> bool:
    """Whether a markdown cell contains TeX math between dollars (``$x^2$``)."""
    return any(cell.cell_type == "markdown" and re.search(r"\$[^$\s][^$]*\$", cell.source)
               for cell in nb.cells)


def exercise_title_before(nb: nbformat.NotebookNode, index: int) -> str:
    """The title of the nearest ``### Your turn ...`` heading above cell ``index``."""
    for cell in reversed(nb.cells[:index]):
        match = YOUR_TURN.search(cell.source) if cell.cell_type == "markdown" else None
        if match:
            return match.group(1)
    return "the exercise above"


@dataclass
class NotebookIntro:
    """What a notebook's first markdown cell says about it (the course map shows it)."""

    name: str          # file name without .ipynb, e.g. "03_tensors_and_the_graph"
    number: str        # "03"
    title: str         # "Tensors and the graph" (markdown, e.g. "`self`")
    question: str      # the sentence(s) between the title and "You will learn" ("你将学到")
    learn: list[str]   # the "You will learn" bullets (markdown)
    time: str          # "about 40 minutes" ("约 40 分钟"), or "" when the cell does not say


def notebook_intro(nb: nbformat.NotebookNode, name: str) -> NotebookIntro:
    """Read the title, question, learning goals and time from the first markdown cell."""
    first = next((cell.source for cell in nb.cells if cell.cell_type == "markdown"), "")
    lines = first.splitlines()
    heading = lines[0].lstrip("# ").strip() if lines else name
    number, _, title = heading.partition("·")
    if not title:
        number, title = name[:2], heading
    paragraphs = re.split(r"\n\s*\n", "\n".join(lines[1:]).strip())
    question = paragraphs[0].replace("\n", " ").strip() if paragraphs else ""
    if question.startswith("**"):
        question = ""
    learn_block = re.search(LEARN_LABEL + r"\s*\n((?:[-*] .*\n?(?:  +.*\n?)*)+)", first)
    learn = []
    if learn_block:
        for item in re.split(r"\n[-*] ", "\n" + learn_block.group(1).strip())[1:]:
            learn.append(" ".join(item.split()))
    time = TIME.search(first)
    time_text = time.group(1).lower() if time else ""
    return NotebookIntro(name, number.strip(), title.strip(), question, learn, time_text)
