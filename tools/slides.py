"""Build a reveal.js slide deck per notebook, for lecturing from the course.

The notebooks carry no slide metadata, so this tool chooses, on a copy, which cells a lecture
shows and where slides break (TEACHING.md explains the rule to teachers):

1. The title cell and every ``#``/``##`` heading start a new slide (left-right in reveal.js).
   A markdown cell with a heading in its middle is first split there (``split_at_headings``).
2. A ``###`` heading starts a subslide (up-down): a "Your turn" task gets its own subslide.
3. Skipped: the set-up cell (the first code cell), each exercise's starter and check cells.
   A worked solution becomes a speaker note (press ``s`` in the deck to see it).
4. Other cells follow on the current subslide, each code cell as a fragment (it appears on the
   next key press, so the room can predict its output first), until the subslide would hold more
   than a *budget* of lines (source + output; a picture counts its height). The cell that
   does not fit starts a new subslide, and the prose cell just before it comes along.
5. The budget is the smallest of 30, 40, 50, 60, 80, 120 lines that keeps the deck to at most
   30 slides and subslides: a lecture of 20-45 minutes.

A notebook whose cells already carry ``slideshow`` metadata is exported as it is.

Usage, from the repository's root (``make slides``; ``make slides CDN=1``)::

    python -m tools.slides notebooks build/slides [--reveal-dir build/reveal.js | --cdn]

The decks work without a network: reveal.js 4, require.js, jQuery and MathJax 2 are fetched once
with ``npm pack`` into ``build/reveal.js/`` (``--reveal-dir``), and the decks load them from
there, with reveal.js's "white" theme, whose font is in that copy (nbconvert's default theme,
"simple", loads its fonts from Google). Only when npm is missing or cannot reach its registry do
the decks load them from a CDN instead (as with ``--cdn``), and the tool says so. Long code lines
wrap instead of running off the slide's right edge. A translated edition (``notebooks/zh/``) gets
its decks in ``build/slides/zh/``.

>>> import nbformat
>>> nb = nbformat.v4.new_notebook(cells=[
...     nbformat.v4.new_markdown_cell("# 01 · Title"),
...     nbformat.v4.new_code_cell("import minigrad as torch"),
...     nbformat.v4.new_markdown_cell("## An idea"),
...     nbformat.v4.new_code_cell("print(1)"),
...     nbformat.v4.new_markdown_cell("### Your turn 1: try"),
...     nbformat.v4.new_code_cell("answer = ...", metadata={"tags": ["exercise"]}),
...     nbformat.v4.new_code_cell("check.your_turn_1(answer)"),
...     nbformat.v4.new_code_cell("answer = 1", metadata={"tags": ["solution"]}),
... ])
>>> slide_plan(nb, budget=30)
['slide', 'skip', 'slide', 'fragment', 'subslide', 'skip', 'skip', 'notes']
>>> count_slides(slide_plan(nb, budget=30))
3
"""
from __future__ import annotations

import argparse
import base64
import copy
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import nbformat
from nbconvert import SlidesExporter

from tools.course import MATHJAX_BLOCK, editions, has_math, heading_level, notebook_paths, read_notebook, tags

MAX_SLIDES = 30
BUDGETS = (30, 40, 50, 60, 80, 120)
LINE_PIXELS = 30         # one line of 20px text in the deck, with its spacing
CONTENT_WIDTH = 800      # pixels available to a picture in a 960px-wide slide
PICTURE_HEIGHT = 540     # pictures are shrunk to at most this height, so one fits on a slide
OFFLINE_PACKAGES = ("reveal.js@4", "requirejs@2", "jquery@3", "mathjax@2")
THEME = "white"          # its font (Source Sans Pro) ships with reveal.js; see the docstring
HEADING = re.compile(r"#{1,3}\s")
# nbconvert's deck script re-typesets formulas on every slide change, assuming MathJax is loaded;
# decks without formulas do not load it (and one with formulas loads it without blocking).
MATHJAX_CALL = "if(MathJax.Hub.getAllJax(Reveal.getCurrentSlide())){"
GUARDED_MATHJAX_CALL = "if(window.MathJax && MathJax.Hub && MathJax.Hub.getAllJax(Reveal.getCurrentSlide())){"
MATHJAX_CONFIG = "TeX-AMS_CHTML-full,Safe"   # nbconvert's choice, from the local copy

# Blocks of nbconvert's reveal template that need a network: mermaid (unused by the course)
# is dropped; MathJax is loaded only by decks that contain math, without blocking the page.
TEMPLATE = r"""{%- extends 'index.html.j2' -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
""" + MATHJAX_BLOCK + r"""{%- block html_head_css -%}
<style>.reveal .jp-RenderedImage img { max-height: {{ resources.course_picture_height }}px; width: auto; }
:root { --r-heading-text-transform: none; }
.reveal pre, .reveal .jp-OutputArea-output pre, .reveal .highlight pre { white-space: pre-wrap; overflow-wrap: anywhere;
  box-sizing: border-box; max-width: 100%; }
.reveal a.anchor-link { display: none; }</style>
{%- endblock html_head_css -%}
"""


def has_slide_metadata(nb: nbformat.NotebookNode) -> bool:
    """Whether the author already chose slide types (then they are used as they are)."""
    return any(cell.metadata.get("slideshow", {}).get("slide_type") for cell in nb.cells)


def png_lines(data: str) -> int:
    """How many lines of text a stored PNG (base64) takes on a slide, from its header."""
    header = base64.b64decode("".join(data[:64].split())[:32])
    width, height = struct.unpack(">II", header[16:24])
    shown = min(height * min(1.0, CONTENT_WIDTH / max(width, 1)), PICTURE_HEIGHT)
    return math.ceil(shown / LINE_PIXELS)


def cell_lines(cell: nbformat.NotebookNode) -> int:
    """The height of a cell on a slide, in lines: its source plus its outputs."""
    lines = len(cell.source.splitlines())
    for output in cell.get("outputs", []):
        data = output.get("data", {})
        if "image/png" in data:
            lines += png_lines(data["image/png"])
        elif "text" in output:
            lines += len(output["text"].splitlines())
        elif "text/plain" in data:
            lines += len(data["text/plain"].splitlines())
        elif output.get("output_type") == "error":
            lines += 2
    return lines


def cell_role(nb: nbformat.NotebookNode, index: int) -> str:
    """What a cell is for a lecture: title, heading, subheading, setup, exercise, check,
    solution, code or prose."""
    cell = nb.cells[index]
    cell_tags = tags(cell)
    if cell.cell_type == "markdown":
        level = heading_level(cell)
        if index == 0 or level in (1, 2):
            return "title" if index == 0 else "heading"
        return "subheading" if level == 3 else "prose"
    if cell.cell_type != "code":
        return "prose"
    if "solution" in cell_tags:
        return "solution"
    if "exercise" in cell_tags:
        return "exercise"
    if re.search(r"^\s*check\.\w+\(", cell.source, re.MULTILINE):
        return "check"
    first_code = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
    return "setup" if index == first_code else "code"


def slide_plan(nb: nbformat.NotebookNode, budget: int) -> list[str]:
    """The reveal.js slide type of every cell under the rule in this module's docstring."""
    plan: list[str] = []
    used = 0          # lines on the current subslide
    first_of_subslide = 0
    for index, cell in enumerate(nb.cells):
        role, lines = cell_role(nb, index), cell_lines(cell)
        if role in ("title", "heading", "subheading"):
            plan.append("subslide" if role == "subheading" else "slide")
            used, first_of_subslide = lines, index
        elif role in ("setup", "exercise", "check"):
            plan.append("skip")
        elif role == "solution":
            plan.append("notes")
        elif used and used + lines > budget:
            previous = index - 1
            if previous > first_of_subslide and plan[previous] == "-" \
                    and cell_role(nb, previous) == "prose":
                plan[previous] = "subslide"   # the prose that introduces this cell comes along
                plan.append("-")
                used, first_of_subslide = cell_lines(nb.cells[previous]) + lines, previous
            else:
                plan.append("subslide")
                used, first_of_subslide = lines, index
        else:
            plan.append("fragment" if role == "code" and used else "-")
            used += lines
    return plan


def count_slides(plan: list[str]) -> int:
    """How many slides and subslides a plan makes (what the audience pages through)."""
    shown = [slide_type for slide_type in plan if slide_type not in ("skip", "notes")]
    starts = sum(slide_type in ("slide", "subslide") for slide_type in shown)
    return starts + (1 if shown and shown[0] not in ("slide", "subslide") else 0)


def split_at_headings(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The notebook with each markdown cell cut before every ``#``, ``##`` or ``###`` heading that
    is not its first line (outside code blocks), so that each heading starts a cell.

    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(
    ...     "Some prose.\\n\\n```\\n# a comment\\n```\\n\\n## A heading\\n\\nMore.", id="abc")])
    >>> [(cell.id, cell.source) for cell in split_at_headings(nb).cells]
    [('abc', 'Some prose.\\n\\n```\\n# a comment\\n```'), ('abc-1', '## A heading\\n\\nMore.')]
    """
    cells = []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            cells.append(cell)
            continue
        parts: list[list[str]] = [[]]
        in_code = False
        for line in cell.source.split("\n"):
            if line.lstrip().startswith(("```", "~~~")):
                in_code = not in_code
            elif not in_code and HEADING.match(line) and any(text.strip() for text in parts[-1]):
                parts.append([])
            parts[-1].append(line)
        for number, lines in enumerate(parts):
            part = copy.deepcopy(cell)
            part.source = "\n".join(lines).strip("\n")
            if number:
                part.id = f"{cell.get('id', 'cell')}-{number}"
            cells.append(part)
    split = copy.copy(nb)
    split.cells = cells
    return split


def lecture_notebook(nb: nbformat.NotebookNode) -> tuple[nbformat.NotebookNode, int]:
    """A copy of ``nb`` with slide metadata (unless it has its own) and its number of slides."""
    deck = copy.deepcopy(nb)
    if has_slide_metadata(deck):
        plan = [cell.metadata.get("slideshow", {}).get("slide_type", "-") for cell in deck.cells]
        return deck, count_slides(plan)
    deck = split_at_headings(deck)
    for budget in BUDGETS:
        plan = slide_plan(deck, budget)
        if count_slides(plan) <= MAX_SLIDES:
            break
    for cell, slide_type in zip(deck.cells, plan):
        cell.metadata["slideshow"] = {"slide_type": slide_type}
    return deck, count_slides(plan)


def has_offline_copy(target: Path) -> bool:
    return all((target / name).exists() for name in
               ("dist/reveal.js", "vendor/require.js", "vendor/jquery.min.js", "vendor/mathjax/MathJax.js"))


class NoOfflineCopy(Exception):
    """reveal.js could not be fetched with npm (why, in words)."""


def fetch_offline_copy(target: Path) -> None:
    """Put reveal.js 4 in ``target``, and require.js, jQuery and MathJax 2 in ``target/vendor``
    (with ``npm pack``, once). Raises NoOfflineCopy when npm is missing or fails."""
    if has_offline_copy(target):
        return
    npm = shutil.which("npm")
    if npm is None:
        raise NoOfflineCopy("no npm program (Node.js; on Debian/Ubuntu: apt-get install npm)")
    print(f"Fetching reveal.js 4, require.js, jQuery and MathJax 2 with `npm pack` into {target}/ "
          "(once: about 24 MB to download, 53 MB on disk; 20 s or so)...", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            packed = subprocess.run([npm, "pack", "--silent", "--pack-destination", tmp, *OFFLINE_PACKAGES],
                                    check=True, capture_output=True, text=True, timeout=300)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
            detail = (getattr(error, "stderr", "") or "").strip().splitlines()[-1:] or [str(error)]
            raise NoOfflineCopy(f"`npm pack` failed: {detail[0]}") from error
        tarballs = [Path(tmp) / name for name in packed.stdout.split()]
        unpacked = Path(tmp) / "unpacked"
        for tarball in tarballs:
            with tarfile.open(tarball) as archive:
                extract_into = unpacked / tarball.name
                if hasattr(tarfile, "data_filter"):
                    archive.extractall(extract_into, filter="data")
                else:  # Python < 3.11.4
                    archive.extractall(extract_into)
        by_name = {tarball.name.split("-")[0]: unpacked / tarball.name / "package" for tarball in tarballs}
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(by_name["reveal.js"], target)
        (target / "vendor").mkdir()
        shutil.copy(by_name["requirejs"] / "require.js", target / "vendor" / "require.js")
        shutil.copy(by_name["jquery"] / "dist" / "jquery.min.js", target / "vendor" / "jquery.min.js")
        shutil.copytree(by_name["mathjax"], target / "vendor" / "mathjax",
                        ignore=shutil.ignore_patterns("unpacked", "*.md"))


def exporter(offline: Path | None, out_dir: Path) -> SlidesExporter:
    """nbconvert's slides exporter, set up for the course (scrolling slides, numbers)."""
    slides = SlidesExporter(raw_template=TEMPLATE, reveal_scroll=True, reveal_number="c/t", reveal_theme=THEME)
    if offline is not None:
        prefix = Path(os.path.relpath(offline, out_dir)).as_posix()
        slides.reveal_url_prefix = prefix
        slides.require_js_url = f"{prefix}/vendor/require.js"
        slides.jquery_url = f"{prefix}/vendor/jquery.min.js"
        slides.mathjax_url = f"{prefix}/vendor/mathjax/MathJax.js?config={MATHJAX_CONFIG}"
    return slides


def build_edition(source: Path, target: Path, offline: Path | None) -> dict[Path, int]:
    """Write ``NN_name.slides.html`` for every notebook in ``source`` (one folder) into ``target``."""
    target.mkdir(parents=True, exist_ok=True)
    slides = exporter(offline, target)
    written = {}
    for path in notebook_paths(source):
        deck, count = lecture_notebook(read_notebook(path))
        resources = {"metadata": {"name": path.stem}, "course_has_math": has_math(deck),
                     "course_picture_height": PICTURE_HEIGHT}
        html, _ = slides.from_notebook_node(deck, resources=resources)
        if MATHJAX_CALL not in html:
            raise RuntimeError("nbconvert's reveal template changed: update MATHJAX_CALL in tools/slides.py")
        html = html.replace(MATHJAX_CALL, GUARDED_MATHJAX_CALL)
        out = target / f"{path.stem}.slides.html"
        out.write_text(html, encoding="utf-8")
        written[out] = count
    return written


def build(source: Path | str, target: Path | str, offline: Path | str | None = None) -> dict[Path, int]:
    """Write a deck for every notebook in ``source`` into ``target`` (``source/zh`` into
    ``target/zh``).

    Returns each deck written with its number of slides. With ``offline``, the decks load
    reveal.js from that folder (fetched with npm if it is not there yet; NoOfflineCopy if that
    fails); without, from a CDN.
    """
    offline = Path(offline) if offline is not None else None
    if offline is not None:
        fetch_offline_copy(offline)
    written = {}
    for language, folder in editions(source).items():
        out = Path(target) if language == "en" else Path(target) / language
        written.update(build_edition(folder, out, offline))
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="folder of course notebooks (notebooks)")
    parser.add_argument("target", type=Path, help="folder for the decks (build/slides)")
    parser.add_argument("--reveal-dir", type=Path, metavar="DIR",
                        help="the local copy of reveal.js the decks load (default: build/reveal.js "
                             "next to TARGET), fetched with npm pack the first time")
    parser.add_argument("--cdn", action="store_true", help="load reveal.js from a CDN instead")
    args = parser.parse_args(argv)
    offline = None if args.cdn else (args.reveal_dir or args.target.parent / "reveal.js")
    if offline is not None:
        try:
            fetch_offline_copy(offline)
        except NoOfflineCopy as reason:
            print(f"Could not fetch reveal.js into {offline}/ ({reason}): the decks load it from a CDN "
                  "and need the internet. Run `make slides` again where npm reaches its registry "
                  "to make decks that work offline.", file=sys.stderr)
            offline = None
    written = build(args.source, args.target, offline)
    for out, count in written.items():
        print(f"{out}: {count} slides")
    where = f"they load reveal.js from {offline}/ and work offline" if offline else \
        "they load reveal.js from a CDN (internet needed)"
    print(f"Slides: {len(written)} decks in {args.target}/; {where}. Open one in a browser; "
          "press s for speaker notes (the solutions), Esc for an overview.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
