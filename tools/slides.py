"""Slides for a lecture hall: nbconvert's reveal.js exporter, with this preprocessor cutting each
notebook into slides by rules (the notebooks carry no slide metadata).

``make slides`` runs ``python -m nbconvert --to slides --config tools/slides_config.py`` on each
edition; ``make lecture`` writes the same cut as slide metadata into copies of the notebooks for
live slides in JupyterLab (RISE), where cells are never split. The rules (TEACHING.md explains them):

1. Left out: the set-up cell (the first code cell), each exercise's starter and check cells, and
   each "Under the hood" section. A worked solution goes to the speaker notes.
2. The title slide shows the title, the question and the deck's length; the "You will learn"
   list starts the next slide. Every ``#``, ``##`` or ``###`` heading starts a slide.
3. The rest follows on the current slide while it fits a 1280x720 slide at the sizes of
   ``templates/lecture/static/lecture.css`` (heights in ``HEIGHT``, estimated per line):
   - a code cell shows at most ``CODE_LINES`` lines a slide: a longer one is cut at a blank line,
     its output after the last piece; an output that does not fit continues on the next slides;
   - a picture is scaled to at most ``PICTURE`` pixels high;
   - a markdown cell that does not fit starts a new slide, keeping room for the code cell it
     introduces; lists, tables and code blocks continue on the next slide; a paragraph that
     does not fit is cut after its last sentence that does, and the rest of its cell goes to
     the speaker notes.
4. A deck lasts ``MINUTES_PER_SLIDE`` a slide, rounded up to 5 minutes; its title slide says so.

>>> import nbformat
>>> v4 = nbformat.v4
>>> nb = v4.new_notebook(cells=[
...     v4.new_markdown_cell("# 01 · Title\\n\\nA question?\\n\\n**Time** about 30 minutes."),
...     v4.new_code_cell("import minigrad as torch"),
...     v4.new_markdown_cell("## An idea\\n\\nSome prose."),
...     v4.new_code_cell("\\n".join(f"x{i} = {i}" for i in range(20))),
...     v4.new_markdown_cell("### Your turn 1: try"),
...     v4.new_code_cell("answer = ...", metadata={"tags": ["exercise"]}),
...     v4.new_code_cell("check.your_turn_1(answer)"),
...     v4.new_code_cell("answer = 1", metadata={"tags": ["solution"]}),
... ])
>>> deck, minutes = lecture_deck(nb)
>>> [(cell.metadata.slideshow["slide_type"], cell.source.splitlines()[0]) for cell in deck.cells]
[('slide', '# 01 · Title'), ('slide', '## An idea'), ('-', 'x0 = 0'), ('slide', 'x12 = 12'), ('slide', '### Your turn 1: try'), ('notes', 'answer = 1')]
>>> deck.cells[0].source.splitlines()[-1], minutes
('**Lecture** about 5 minutes, 4 slides', 5)
"""
from __future__ import annotations

import base64
import copy
import math
import re
import struct
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from tools.course import TRANSLATIONS, has_math, tags

SLIDE_WIDTH, SLIDE_HEIGHT = 1280, 720
ROOM = SLIDE_HEIGHT - 80  # pixels of a slide's height that content may fill (the rest: margins, number)
CODE_LINES = 12         # at most this many code lines on a slide
PICTURE = 420           # pictures are scaled to at most this height (lecture.css says the same)
MINUTES_PER_SLIDE = 1
# Estimated heights in pixels (lecture.css: text 26px, code 20px) and characters per line (a
# Chinese character counts as two).
HEIGHT = {"text": 36, "code": 26, "gap": 14, "block": 24, "h1": 66, "h2": 60, "h3": 52, "row": 44, "row_line": 32}
COLUMNS = {"text": 84, "code": 96, "table": 96}
WORDS = {"en": {"lecture": "**Lecture** about {minutes} minutes, {slides} slides",
                "more": "*(continued)*", "skipped": "Left out here (in the notebook): {title}"},
         "zh": {"lecture": "**讲授** 约 {minutes} 分钟，{slides} 张幻灯片",
                "more": "*（续）*", "skipped": "幻灯片略过（见笔记本）：{title}"}}
HEADING = re.compile(r"(#{1,3})\s+(.*)")
TIME_LINE = re.compile(r"^\*\*(?:Time|时间)\*\*.*$\n?", re.M)
LEARN = re.compile(r"^\*\*(?:You will learn|你将学到)\*\*", re.M)
LIST_ITEM = re.compile(r"(\s*)([-*+]|\d+[.)])\s")
SENTENCE_END = re.compile(r"(?<=[.!?:;])\s+(?=[A-Z`*(\"])|(?<=[。！？；：])")


def columns(text: str) -> int:
    """Width of ``text`` in half-width columns: East Asian wide characters count two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def wrapped(lines: list[str], width: int) -> int:
    """Screen lines that ``lines`` take when wrapped at ``width`` columns."""
    return sum(max(1, math.ceil(columns(line) / width)) for line in lines)


def shown_text(markdown: str) -> str:
    """Markdown as the reader sees it: no link targets, emphasis or code marks."""
    return re.sub(r"[`*_]|\]\([^)]*\)|\[", "", markdown)


# --- markdown: blocks, and their heights ------------------------------------------------------

@dataclass
class Block:
    kind: str            # heading, paragraph, list, table, fence
    lines: list[str]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def parts(self) -> list[list[str]]:
        """The pieces a block may be cut into across slides: list items, table rows (after the
        header, which each piece repeats), lines of a code block."""
        if self.kind in ("list", "quote"):
            items: list[list[str]] = []
            for line in self.lines:
                item = LIST_ITEM.match(unquoted(line))
                if not items or (item and not item.group(1)) or unquoted(line) == "":
                    items.append([])
                items[-1].append(line)
            return items
        if self.kind in ("table", "fence"):
            return [[line] for line in self.lines]
        return [self.lines]


def unquoted(line: str) -> str:
    """A line of a block quote without its ``>``."""
    return re.sub(r"^>\s?", "", line)


def markdown_blocks(source: str) -> list[Block]:
    """A markdown cell as headings, paragraphs, lists, tables and fenced code blocks.

    >>> [(b.kind, len(b.lines)) for b in markdown_blocks("## H\\nText\\nmore.\\n- a\\n  b\\n- c\\n\\n```\\nx\\n```")]
    [('heading', 1), ('paragraph', 2), ('list', 3), ('fence', 3)]
    """
    blocks: list[Block] = []
    fence = False
    for line in source.splitlines():
        if fence:
            blocks[-1].lines.append(line)
            fence = not line.lstrip().startswith(("```", "~~~"))
            continue
        if not line.strip():
            blocks.append(Block("gap", []))
            continue
        kind = ("fence" if line.lstrip().startswith(("```", "~~~")) else "heading" if HEADING.match(line)
                else "table" if line.lstrip().startswith("|") else "quote" if line.startswith(">")
                else "list" if LIST_ITEM.match(line) else "paragraph")
        last = blocks[-1] if blocks else None
        continues = last is not None and kind != "heading" and last.kind not in ("gap", "heading", "fence") and (
            kind == last.kind or (last.kind == "list" and kind == "paragraph"))
        if continues:
            last.lines.append(line)
        else:
            blocks.append(Block(kind, [line]))
        fence = kind == "fence" and not (len(line.strip()) > 3 and line.strip().endswith(("```", "~~~")))
    return [block for block in blocks if block.kind != "gap"]


def block_height(kind: str, lines: list[str]) -> int:
    if kind == "heading":
        return HEIGHT[f"h{min(len(HEADING.match(lines[0]).group(1)), 3)}"]
    if kind == "fence":
        return wrapped(lines[1:-1] if len(lines) > 1 else lines, COLUMNS["code"]) * HEIGHT["code"] + HEIGHT["block"]
    if kind == "table":
        rows = [[shown_text(cell).strip() for cell in line.strip().strip("|").split("|")]
                for line in lines if not re.fullmatch(r"[\s|:-]+", line)]
        widest = [max((columns(row[j]) for row in rows if j < len(row)), default=1) or 1 for j in range(len(rows[0]))]
        shares = [COLUMNS["table"] * width / sum(widest) for width in widest]
        return sum(HEIGHT["row"] + HEIGHT["row_line"] * (max(
            math.ceil(columns(cell) / max(shares[j], 6)) if j < len(shares) else 1 for j, cell in enumerate(row)) - 1)
            for row in rows) + HEIGHT["gap"]
    if kind == "quote":
        lines = [unquoted(line) for line in lines]
    return wrapped([shown_text(line.strip()) for line in joined(lines)], COLUMNS["text"]) * HEIGHT["text"] + HEIGHT["gap"]


def joined(lines: list[str]) -> list[str]:
    """Markdown lines joined into the paragraphs or list items a browser wraps."""
    out: list[str] = []
    for line in lines:
        if out and line.strip() and out[-1].strip() and not LIST_ITEM.match(line):
            out[-1] += " " + line.strip()
        else:
            out.append(line)
    return out


# --- code cells: pieces and heights -----------------------------------------------------------

def output_lines(output) -> list[str]:
    text = output.get("text") or output.get("data", {}).get("text/plain", "")
    return ("".join(text) if isinstance(text, list) else text).rstrip("\n").split("\n")


def picture_height(output) -> int | None:
    """The height a stored PNG takes on a slide (scaled to the slide's width and to PICTURE)."""
    data = output.get("data", {}).get("image/png")
    if not data:
        return None
    header = base64.b64decode("".join(data[:64].split())[:32])
    width, height = struct.unpack(">II", header[16:24])
    return math.ceil(min(height * min(1.0, (SLIDE_WIDTH - 80) / max(width, 1)), PICTURE)) + HEIGHT["gap"]


def source_pieces(source: str) -> list[list[str]]:
    """A code cell's lines in pieces of at most CODE_LINES screen lines, cut after a blank line
    where there is one in the second half of a piece."""
    lines = source.rstrip().split("\n")
    pieces = []
    while lines:
        end = 0
        while end < len(lines) and wrapped(lines[:end + 1], COLUMNS["code"]) <= CODE_LINES:
            end += 1
        end = max(end, 1)
        if end < len(lines):
            blanks = [i for i in range(end // 2, end) if not lines[i].strip()]
            end = blanks[-1] + 1 if blanks else end
        pieces.append(lines[:end])
        lines = lines[end:]
        while lines and not lines[0].strip():
            lines.pop(0)
    return [piece for piece in pieces if any(line.strip() for line in piece)]


def code_height(lines: list[str]) -> int:
    """The height of code or output lines in their box."""
    return wrapped(lines, COLUMNS["code"]) * HEIGHT["code"] + HEIGHT["block"]


def outputs_height(outputs) -> int:
    return sum(picture_height(o) or code_height(output_lines(o)) for o in outputs)


# --- filling slides ---------------------------------------------------------------------------

@dataclass
class Slide:
    cells: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    used: int = 0
    code_lines: int = 0
    content: bool = False      # something besides a heading is on it


class Deck:
    """Slides filled in order by rule 3; every cell put on a slide remembers the notebook cell it
    comes from (``origin``)."""

    def __init__(self, language: str) -> None:
        self.slides: list[Slide] = [Slide()]
        self.words = WORDS.get(language, WORDS["en"])

    @property
    def current(self) -> Slide:
        return self.slides[-1]

    def room(self) -> int:
        return ROOM - self.current.used

    def new_slide(self) -> None:
        if self.current.cells or self.current.used:
            self.slides.append(Slide())

    def put(self, cell, height: int, origin: int, content: bool = True) -> None:
        cell.metadata["origin"] = origin
        self.current.cells.append(cell)
        self.current.used += height
        self.current.content |= content

    def note(self, cell, origin: int) -> None:
        cell.metadata["origin"] = origin
        self.current.notes.append(cell)

    def text(self, source: str, origin: int, height: int, content: bool = True) -> None:
        last = self.current.cells[-1] if self.current.cells else None
        if last is not None and last.cell_type == "markdown" and last.metadata["origin"] == origin:
            last.source += "\n\n" + source
            self.current.used += height
            self.current.content |= content
        else:
            self.put(nbformat.v4.new_markdown_cell(source), height, origin, content)

    def markdown(self, source: str, origin: int, reserve: int = 0) -> None:
        """A markdown cell, leaving ``reserve`` pixels below it for the code cell it introduces."""
        blocks = markdown_blocks(source)
        total = sum(block_height(block.kind, block.lines) for block in blocks)
        if blocks and blocks[0].kind != "heading" and self.current.content and total + reserve > self.room():
            self.new_slide()
        notes: list[str] = []
        for index, block in enumerate(blocks):
            want = reserve if index == len(blocks) - 1 else 0
            height = block_height(block.kind, block.lines)
            if notes:
                notes.append(block.text)
            elif block.kind == "heading":
                self.new_slide()
                self.text(block.text, origin, height, content=False)
            elif height + want <= self.room():
                self.text(block.text, origin, height)
            elif block.kind == "paragraph":
                kept, rest = self.cut(block.text, want)
                if kept:
                    self.text(kept, origin, block_height("paragraph", [kept]))
                notes.append(rest)
            else:
                self.continued(block, origin, want)
        if notes:
            self.note(nbformat.v4.new_markdown_cell("\n\n".join(notes)), origin)

    def cut(self, paragraph: str, reserve: int) -> tuple[str, str]:
        """The sentences of ``paragraph`` that fit on the slide, and the rest."""
        sentences = SENTENCE_END.split(paragraph.replace("\n", " "))
        keep = 0
        while keep < len(sentences) and block_height(
                "paragraph", [" ".join(sentences[:keep + 1])]) + reserve <= self.room():
            keep += 1
        return " ".join(sentences[:keep]), " ".join(sentences[keep:])

    def continued(self, block: Block, origin: int, reserve: int) -> None:
        """A list, table or code block, continued on the next slides where it does not fit."""
        head = block.lines[:2] if block.kind == "table" else block.lines[:1] if block.kind == "fence" else []
        tail = block.lines[-1:] if block.kind == "fence" else []
        parts = block.parts()[len(head):len(block.parts()) - len(tail)]
        piece: list[str] = []
        for part in parts:
            if piece and block_height(block.kind, head + piece + part + tail) + reserve > self.room():
                self.text("\n".join(head + piece + tail), origin, block_height(block.kind, head + piece + tail))
                self.new_slide()
                self.text(self.words["more"], origin, HEIGHT["text"], content=False)
                piece = []
            piece += part
        self.text("\n".join(head + piece + tail), origin, block_height(block.kind, head + piece + tail))

    def code(self, cell, origin: int) -> None:
        """A code cell: its source in pieces of at most CODE_LINES lines, each piece after the
        first on a new slide; then its outputs."""
        pieces = source_pieces(cell.source)
        for number, piece in enumerate(pieces):
            height = code_height(piece)
            together = height + (outputs_height(cell.outputs) if number == len(pieces) - 1 else 0)
            lines = wrapped(piece, COLUMNS["code"])
            if number or height > self.room() or self.room() < together <= ROOM - HEIGHT["h2"] \
                    or self.current.code_lines + lines > CODE_LINES:
                self.new_slide()
            part = copy.deepcopy(cell)
            part.source, part.outputs = "\n".join(piece), []
            self.put(part, height, origin)
            self.current.code_lines += lines
        for output in cell.outputs:
            self.output(output, origin)

    def output(self, output, origin: int) -> None:
        """An output below its code; text that does not fit continues on the next slides."""
        picture = picture_height(output)
        if picture is not None:
            if picture > self.room():
                self.new_slide()
            return self.put(output_cell([output]), picture, origin)
        lines = output_lines(output)
        while lines:
            fit = 0
            while fit < len(lines) and code_height(lines[:fit + 1]) <= self.room():
                fit += 1
            if fit < min(len(lines), 4):
                self.new_slide()
                self.text(self.words["more"], origin, HEIGHT["text"], content=False)
                continue
            piece = copy.deepcopy(output)
            text = "\n".join(lines[:fit])
            if "text" in piece:
                piece["text"] = text + "\n"
            else:
                piece["data"] = {"text/plain": text}
            self.put(output_cell([piece]), code_height(lines[:fit]), origin)
            lines = lines[fit:]


def output_cell(outputs):
    """A code cell that shows only ``outputs`` (nbconvert does not render its source)."""
    cell = nbformat.v4.new_code_cell("")
    cell.outputs = outputs
    cell.metadata["transient"] = {"remove_source": True}
    return cell


# --- a notebook as a deck ---------------------------------------------------------------------

def roles(nb) -> list[str]:
    """What rule 1 does with each cell: show, skip or note."""
    first_code = next((i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"), -1)
    found = []
    for index, cell in enumerate(nb.cells):
        cell_tags = tags(cell)
        if "solution" in cell_tags:
            found.append("note")
        elif index == first_code or {"exercise", "under-the-hood"} & set(cell_tags) or (
                cell.cell_type == "code" and re.search(r"^\s*check\.\w+\(", cell.source, re.M)):
            found.append("skip")
        else:
            found.append("show")
    return found


def without_under_the_hood(source: str) -> tuple[str, str]:
    """A markdown cell announcing an "Under the hood" listing, without its last heading and what
    follows it; and that heading's title."""
    headings = [m for m in re.finditer(r"^#{1,6}\s+(.*)$", source, re.M)]
    if not headings:
        return "", ""
    return source[:headings[-1].start()].rstrip(), headings[-1].group(1)


def lecture_deck(nb, language: str = "en") -> tuple[nbformat.NotebookNode, int]:
    """A copy of ``nb`` cut into slides by the module's rules, and its length in minutes."""
    deck = Deck(language)
    cell_roles = roles(nb)
    shown = [i for i, role in enumerate(cell_roles) if role == "show"]
    first_markdown = next((i for i in shown if nb.cells[i].cell_type == "markdown"), None)
    for index, cell in enumerate(nb.cells):
        role = cell_roles[index]
        if role == "note":
            deck.note(copy.deepcopy(cell), index)
            continue
        if role == "skip":
            continue
        if cell.cell_type == "code":
            deck.code(cell, index)
            continue
        source = cell.source
        if index + 1 < len(nb.cells) and "under-the-hood" in tags(nb.cells[index + 1]):
            source, title = without_under_the_hood(source)
            deck.note(nbformat.v4.new_markdown_cell(deck.words["skipped"].format(title=title)), index)
        reserve = 0
        after = index + 1
        if after < len(nb.cells) and nb.cells[after].cell_type == "code" and cell_roles[after] == "show":
            code = nb.cells[after]
            reserve = code_height(source_pieces(code.source)[0]) + min(outputs_height(code.outputs), 4 * HEIGHT["code"])
        if index == first_markdown:
            source = TIME_LINE.sub("", source)
            learn = LEARN.search(source)
            title, rest = (source[:learn.start()], source[learn.start():]) if learn else (source, "")
            deck.markdown(title.rstrip(), index, reserve=HEIGHT["text"] + HEIGHT["gap"])
            deck.current.used += HEIGHT["text"] + HEIGHT["gap"]      # the deck's length, added below
            deck.new_slide()
            source = rest
        if source.strip():
            deck.markdown(source, index, reserve)
    slides: list[Slide] = []
    for slide in deck.slides:
        if slide.cells or not slides:
            slides.append(slide)
        else:
            slides[-1].notes += slide.notes
    minutes = 5 * math.ceil(len(slides) * MINUTES_PER_SLIDE / 5)
    if first_markdown is not None:
        first = slides[0].cells[0]
        first.source += "\n\n" + deck.words["lecture"].format(minutes=minutes, slides=len(slides))
    out = copy.deepcopy(nb)
    out.cells = []
    for slide in slides:
        for number, cell in enumerate(slide.cells + slide.notes):
            kind = "slide" if number == 0 else "notes" if number >= len(slide.cells) else "-"
            cell.metadata["slideshow"] = {"slide_type": kind}
            out.cells.append(cell)
    for number, cell in enumerate(out.cells):
        cell.id = f"slide-{number}"
    return out, minutes


def live_notebook(nb, deck) -> nbformat.NotebookNode:
    """A copy of ``nb`` whose cells carry the deck's cut as slide metadata, for RISE: a cell
    starts a slide when its first piece does in ``deck``; a cell is never split; the set-up
    cell gets a slide of its own, to be run first."""
    kinds: dict[int, str] = {}
    for cell in deck.cells:
        kinds.setdefault(cell.metadata["origin"], cell.metadata["slideshow"]["slide_type"])
    live = copy.deepcopy(nb)
    setup = next((i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"), None)
    kinds[setup] = "slide"                # the lecturer runs it first, on the slide after the title
    for index, cell in enumerate(live.cells):
        cell.metadata["slideshow"] = {"slide_type": kinds.get(index, "skip")}
    live.metadata["rise"] = {"scroll": True, "center": False, "slideNumber": "c/t", "transition": "none",
                             "theme": "white", "start_slideshow_at": "beginning"}
    return live


class LectureSlides(Preprocessor):
    """nbconvert preprocessor: the notebook cut into slides by this module's rules (static decks),
    or, with ``live``, the notebook with that cut as slide metadata (RISE in JupyterLab)."""

    live = Bool(False, help="keep the notebook's cells whole and mark where slides start (RISE)").tag(config=True)

    def preprocess(self, nb, resources):
        folder = Path(resources.get("metadata", {}).get("path") or ".")
        language = folder.name if folder.name in TRANSLATIONS else "en"
        deck, minutes = lecture_deck(nb, language)
        slides = sum(cell.metadata["slideshow"]["slide_type"] == "slide" for cell in deck.cells)
        resources.update(lecture_minutes=minutes, lecture_slides=slides, lecture_has_math=has_math(nb))
        self.log.info("%s: %d slides, about %d minutes", resources.get("metadata", {}).get("name"), slides, minutes)
        return (live_notebook(nb, deck) if self.live else deck), resources
