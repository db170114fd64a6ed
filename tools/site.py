"""Build the course as a static HTML site that students can read without installing anything.

One page per notebook, exported by nbconvert with its stored outputs (graphs and plots are
embedded in the page as ``data:image/png`` pictures, with the graph's description in words as
their alt text), plus ``index.html``: the course map, with each notebook's title, question,
learning goals and time read from its first markdown cell. Worked solutions are folded in a
``<details>`` element ("Show the worked solution"), the way JupyterLab hides them.

The pages need no script and nothing from the network to show their text and pictures:
nbconvert's require.js and mermaid loaders are left out, and MathJax (which typesets the few
formulas) is loaded without blocking only by pages that contain math; offline, those formulas
show as TeX source.

Usage, from the repository's root (``make site``)::

    python -m tools.site notebooks build/site
"""
from __future__ import annotations

import argparse
import html
import re
import sys
from pathlib import Path

from nbconvert import HTMLExporter
from nbconvert.filters import markdown2html

from tools.course import MATHJAX_BLOCK, NotebookIntro, has_math, notebook_intro, notebook_paths, read_notebook

# Changes to nbconvert's "lab" template: no script loaders, a navigation bar, folded
# solutions, and the text description of a picture as its alt text.
TEMPLATE = r"""{%- extends 'index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
""" + MATHJAX_BLOCK + r"""{%- block html_head_css -%}
<style>
nav.course { font-family: var(--jp-ui-font-family); font-size: 15px; padding: 8px 0 16px;
             display: flex; gap: 24px; border-bottom: 1px solid #ddd; margin-bottom: 16px; }
details.solution { margin: 8px 0 8px var(--jp-cell-prompt-width, 64px); }
details.solution > summary { cursor: pointer; font-family: var(--jp-ui-font-family);
                             color: #0b5394; padding: 4px 0; }
</style>
{%- endblock html_head_css -%}
{%- block body_header -%}
{{ super() }}
{{ resources.course_nav }}
{%- endblock body_header -%}
{%- block body_footer -%}
{{ resources.course_nav }}
{{ super() }}
{%- endblock body_footer -%}
{% block codecell %}
{%- if 'solution' in cell.metadata.get('tags', []) -%}
<details class="solution"><summary>Show the worked solution</summary>
{{ super() }}
</details>
{%- else -%}
{{ super() }}
{%- endif -%}
{% endblock codecell %}
{% block data_png scoped %}
<div class="jp-RenderedImage jp-OutputArea-output">
<img src="data:image/png;base64,{{ output.data['image/png'] | escape_html }}" alt="{{ output.data.get('text/plain', 'picture') | escape_html }}">
</div>
{%- endblock data_png %}
"""

INDEX = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>minigrad: the course map</title>
<style>
body {{ font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; max-width: 860px;
       margin: 2em auto; padding: 0 1em; line-height: 1.5; color: #222; }}
code {{ background: #f2f2f2; padding: 0 3px; border-radius: 3px; }}
.notebook {{ border-top: 1px solid #ddd; padding: 0.6em 0; }}
.notebook h2 {{ margin: 0.3em 0; font-size: 1.3em; }}
.notebook .question {{ font-style: italic; margin: 0.2em 0; }}
.notebook .time {{ color: #666; font-size: 0.9em; }}
.notebook ul {{ margin: 0.3em 0; }}
</style>
</head>
<body>
<h1>minigrad: how PyTorch's custom autograd Functions work</h1>
<p>The course's notebooks with their stored outputs, to read in any browser. To run the code
and do the exercises, clone the repository and run <code>make lab</code> (see its README).
Read the notebooks in order: each builds on the ones before.</p>
{entries}
</body>
</html>
"""

ENTRY = """<div class="notebook" id="nb{number}">
<h2><a href="{href}">{number} · {title}</a></h2>
<p class="question">{question}</p>
{learn}
<p class="time">{time}</p>
</div>"""


def inline_markdown(text: str) -> str:
    """Markdown of one line or paragraph as HTML, without the surrounding ``<p>``."""
    rendered = markdown2html(text).strip()
    return re.sub(r"^<p>(.*)</p>$", r"\1", rendered, flags=re.DOTALL)


def navigation(intros: list[NotebookIntro], index: int) -> str:
    """The links above and below a page: the course map, the previous and the next notebook."""
    links = ['<a href="index.html">Course map</a>']
    if index > 0:
        before = intros[index - 1]
        links.append(f'<a href="{before.name}.html">← {before.number} · {inline_markdown(before.title)}</a>')
    if index + 1 < len(intros):
        after = intros[index + 1]
        links.append(f'<a href="{after.name}.html">{after.number} · {inline_markdown(after.title)} →</a>')
    return '<nav class="course">' + " ".join(links) + "</nav>"


def index_page(intros: list[NotebookIntro]) -> str:
    """The course map: one entry per notebook, from its first markdown cell."""
    entries = []
    for intro in intros:
        learn = "".join(f"<li>{inline_markdown(item)}</li>" for item in intro.learn)
        entries.append(ENTRY.format(
            number=html.escape(intro.number), href=f"{intro.name}.html",
            title=inline_markdown(intro.title), question=inline_markdown(intro.question),
            learn=f"<p>You will learn:</p><ul>{learn}</ul>" if learn else "",
            time=html.escape(intro.time.capitalize())))
    return INDEX.format(entries="\n".join(entries))


def link_pages(page: str) -> str:
    """Turn links between notebooks (``01_self.ipynb``) into links between pages (``.html``)."""
    return re.sub(r'href="(?!https?:)([^"#]+)\.ipynb(#[^"]*)?"', r'href="\1.html\2"', page)


def build(source: Path | str, target: Path | str) -> list[Path]:
    """Write a page per notebook in ``source`` and ``index.html`` into ``target``; return them."""
    target = Path(target)
    target.mkdir(parents=True, exist_ok=True)
    paths = notebook_paths(source)
    notebooks = [read_notebook(path) for path in paths]
    intros = [notebook_intro(nb, path.stem) for nb, path in zip(notebooks, paths)]
    exporter = HTMLExporter(template_name="lab", raw_template=TEMPLATE)
    written = []
    for index, (nb, intro) in enumerate(zip(notebooks, intros)):
        resources = {"metadata": {"name": f"{intro.number} · {intro.title.strip('`')}"},
                     "course_has_math": has_math(nb), "course_nav": navigation(intros, index)}
        page, _ = exporter.from_notebook_node(nb, resources=resources)
        out = target / f"{intro.name}.html"
        out.write_text(link_pages(page), encoding="utf-8")
        written.append(out)
    index_file = target / "index.html"
    index_file.write_text(index_page(intros), encoding="utf-8")
    return [index_file, *written]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="folder of course notebooks (notebooks)")
    parser.add_argument("target", type=Path, help="folder for the site (build/site)")
    args = parser.parse_args(argv)
    written = build(args.source, args.target)
    for out in written:
        print(out)
    print(f"Site: {len(written) - 1} pages and the course map; open {args.target / 'index.html'} "
          "in a browser (no server needed), or copy the folder to any web server.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
