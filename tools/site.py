"""Build the course as a static HTML site that students can read without installing anything.

One page per notebook, exported by nbconvert with its stored outputs (graphs and plots are
embedded in the page as ``data:image/png`` pictures, with the graph's description in words as
their alt text), plus ``index.html``: the course map, with each notebook's title, question,
learning goals and time read from its first markdown cell. Worked solutions (cells tagged
``solution``) and optional "under the hood" listings (tagged ``under-the-hood``) are folded in a
``<details>`` element ("Show the worked solution", "Show the source (optional)"), the way JupyterLab
hides them.

The pages need no script and nothing from the network to show their text and pictures:
nbconvert's require.js and mermaid loaders are left out, and MathJax (which typesets the few
formulas) is loaded without blocking only by pages that contain math; offline, those formulas
show as TeX source.

Every markdown page in the notebooks' folder (``notebooks/*.md``, e.g. the ctx cheat sheet) becomes
a page too, linked from the course map. A translated edition (``notebooks/zh/``) is built into
``zh/`` with its own course map, and every page links to its counterpart in the other language.
The course map also has a "launch on Binder" link to the same edition's first notebook (see
``binder_url``), when the GitHub repository is known: given with ``--binder-repo owner/name``
(``make site BINDER_REPO=owner/name``), or read from the ``origin`` remote when it is on GitHub.
Otherwise the map says that the link needs the repository, and the tool warns.

Usage, from the repository's root (``make site``)::

    python -m tools.site notebooks build/site [--binder-repo owner/name]
"""
from __future__ import annotations

import argparse
import html
import re
import subprocess
import sys
from pathlib import Path

from nbconvert import HTMLExporter
from nbconvert.filters import markdown2html

from tools.course import MATHJAX_BLOCK, NotebookIntro, editions, has_math, notebook_intro, notebook_paths, read_notebook

# Changes to nbconvert's "lab" template: no script loaders, a navigation bar, folded worked
# solutions and "under the hood" listings, and the text description of a picture as its alt text.
TEMPLATE = r"""{%- extends 'index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
""" + MATHJAX_BLOCK + r"""{%- block html_head_css -%}
<style>
nav.course { font-family: var(--jp-ui-font-family); font-size: 15px; padding: 8px 0 16px;
             display: flex; gap: 24px; border-bottom: 1px solid #ddd; margin-bottom: 16px; }
nav.course .language { margin-left: auto; }
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
{%- set fold = resources.course_folds | select('in', cell.metadata.get('tags', [])) | first -%}
{%- if fold -%}
<details class="solution"><summary>{{ resources.course_folds[fold] }}</summary>
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

STYLE = """<style>
body {{ font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans CJK SC", sans-serif;
       max-width: 860px; margin: 2em auto; padding: 0 1em; line-height: 1.5; color: #222; }}
code {{ background: #f2f2f2; padding: 0 3px; border-radius: 3px; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #ddd; padding: 4px 8px; vertical-align: top; }}
nav.course {{ display: flex; gap: 24px; border-bottom: 1px solid #ddd; padding-bottom: 8px; }}
nav.course .language {{ margin-left: auto; }}
.notebook {{ border-top: 1px solid #ddd; padding: 0.6em 0; }}
.notebook h2 {{ margin: 0.3em 0; font-size: 1.3em; }}
.notebook .question {{ font-style: italic; margin: 0.2em 0; }}
.notebook .time {{ color: #666; font-size: 0.9em; }}
.notebook ul {{ margin: 0.3em 0; }}
a.anchor-link {{ visibility: hidden; text-decoration: none; margin-left: 0.3em; color: #888; }}
h1:hover > a.anchor-link, h2:hover > a.anchor-link, h3:hover > a.anchor-link,
h4:hover > a.anchor-link {{ visibility: visible; }}
</style>"""

PAGE = """<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>{title}</title>
""" + STYLE + """
</head>
<body>
{nav}
{body}
</body>
</html>
"""

# The words of the course map and of the navigation, per edition.
WORDS = {
    "en": {"name": "English", "map": "Course map", "title": "minigrad: how PyTorch's custom autograd Functions work",
           "intro": "The course's notebooks with their stored outputs, to read in any browser. To run the code "
                    "and do the exercises, clone the repository and run <code>make lab</code> (see its README), "
                    "or launch it on Binder without installing anything: {binder}. Read the notebooks in order: "
                    "each builds on the ones before.",
           "binder": "Launch on Binder", "learn": "You will learn:", "reference": "Reference pages",
           "folds": {"solution": "Show the worked solution", "under-the-hood": "Show the source (optional)"},
           "no_binder": "Binder (its launch link needs the course's GitHub repository, which this copy of the "
                        "site was built without)"},
    "zh": {"name": "中文", "map": "课程地图", "title": "minigrad：PyTorch 自定义 autograd Function 是怎样工作的",
           "intro": "课程的全部笔记本及其保存的输出，用任何浏览器都能阅读。要运行代码、做练习，请克隆仓库并运行 "
                    "<code>make lab</code>（见 README.zh.md），或者不安装任何东西，直接在 Binder 上打开：{binder}。"
                    "请按顺序阅读：每一本都建立在前面几本之上。",
           "binder": "在 Binder 上运行", "learn": "你将学到：", "reference": "参考页面",
           "folds": {"solution": "展开参考答案", "under-the-hood": "展开源码（选读）"},
           "no_binder": "Binder（启动链接需要课程的 GitHub 仓库，而生成这份网站时没有提供）"},
}
BINDER_PLACEHOLDER = "OWNER/REPO"
FIRST_NOTEBOOK = "00_start_here.ipynb"

ENTRY = """<div class="notebook" id="nb{number}">
<h2><a href="{href}">{number} · {title}</a></h2>
<p class="question">{question}</p>
{learn}
<p class="time">{time}</p>
</div>"""


def binder_url(repository: str | None = None, notebook: str = "notebooks/00_start_here.ipynb") -> str:
    """The mybinder.org address that opens the course in JupyterLab, for a GitHub ``repository``
    ("owner/name"; by default read from ``git remote get-url origin``, else ``OWNER/REPO``, a
    placeholder to replace with the repository's path on GitHub).

    >>> binder_url("someone/minigrad")
    'https://mybinder.org/v2/gh/someone/minigrad/HEAD?urlpath=lab/tree/notebooks/00_start_here.ipynb'
    """
    if repository is None:
        repository = github_repository() or BINDER_PLACEHOLDER
    return f"https://mybinder.org/v2/gh/{repository}/HEAD?urlpath=lab/tree/{notebook}"


def github_repository() -> str | None:
    """"owner/name" of the ``origin`` remote when it is on GitHub, else None."""
    try:
        url = subprocess.run(["git", "remote", "get-url", "origin"], capture_output=True, text=True,
                             timeout=10, cwd=Path(__file__).resolve().parent).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r"github\.com[:/]([^/]+/[^/]+?)(?:\.git)?/?$", url)
    return match.group(1) if match else None


def inline_markdown(text: str) -> str:
    """Markdown of one line or paragraph as HTML, without the surrounding ``<p>``."""
    rendered = markdown2html(text).strip()
    return re.sub(r"^<p>(.*)</p>$", r"\1", rendered, flags=re.DOTALL)


def language_link(language: str, counterparts: dict[str, str]) -> str:
    """Links to this page in the other editions (``counterparts``: language -> relative URL)."""
    return " ".join(f'<a class="language" hreflang="{other}" href="{href}">{WORDS.get(other, WORDS["en"])["name"]}</a>'
                    for other, href in counterparts.items() if other != language)


def navigation(intros: list[NotebookIntro], index: int, language: str = "en",
               counterparts: dict[str, str] | None = None) -> str:
    """The links above and below a page: the course map, the previous and the next notebook, and
    the same page in the other language."""
    links = [f'<a href="index.html">{WORDS.get(language, WORDS["en"])["map"]}</a>']
    if index > 0:
        before = intros[index - 1]
        links.append(f'<a href="{before.name}.html">← {before.number} · {inline_markdown(before.title)}</a>')
    if 0 <= index < len(intros) - 1:
        after = intros[index + 1]
        links.append(f'<a href="{after.name}.html">{after.number} · {inline_markdown(after.title)} →</a>')
    if counterparts:
        links.append(language_link(language, counterparts))
    return '<nav class="course">' + " ".join(links) + "</nav>"


def binder_link(repository: str | None, language: str = "en") -> str:
    """The course map's Binder link, opening the edition's own first notebook; words instead of a
    dead link when the GitHub ``repository`` is unknown.

    >>> binder_link("someone/minigrad", "zh")
    '<a class="binder" href="https://mybinder.org/v2/gh/someone/minigrad/HEAD?urlpath=lab/tree/notebooks/zh/00_start_here.ipynb">在 Binder 上运行</a>'
    >>> binder_link(None)
    "Binder (its launch link needs the course's GitHub repository, which this copy of the site was built without)"
    """
    words = WORDS.get(language, WORDS["en"])
    if not repository:
        return words["no_binder"]
    folder = "notebooks" if language == "en" else f"notebooks/{language}"
    url = binder_url(repository, f"{folder}/{FIRST_NOTEBOOK}")
    return f'<a class="binder" href="{html.escape(url)}">{words["binder"]}</a>'


def index_page(intros: list[NotebookIntro], pages: list[tuple[str, str]] = (), language: str = "en",
               counterparts: dict[str, str] | None = None, repository: str | None = None) -> str:
    """The course map: one entry per notebook, from its first markdown cell, then the reference
    pages (``pages``: (file name, title)) and the Binder link (for the GitHub ``repository``)."""
    words = WORDS.get(language, WORDS["en"])
    entries = []
    for intro in intros:
        learn = "".join(f"<li>{inline_markdown(item)}</li>" for item in intro.learn)
        entries.append(ENTRY.format(
            number=html.escape(intro.number), href=f"{intro.name}.html",
            title=inline_markdown(intro.title), question=inline_markdown(intro.question),
            learn=f"<p>{words['learn']}</p><ul>{learn}</ul>" if learn else "",
            time=html.escape(intro.time.capitalize())))
    binder = binder_link(repository, language)
    body = [f"<h1>{html.escape(words['title'])}</h1>", f"<p>{words['intro'].format(binder=binder)}</p>", *entries]
    if pages:
        body.append(f"<h2>{words['reference']}</h2><ul>" + "".join(
            f'<li><a href="{name}">{inline_markdown(title)}</a></li>' for name, title in pages) + "</ul>")
    nav = '<nav class="course">' + language_link(language, counterparts or {}) + "</nav>" if counterparts else ""
    return PAGE.format(lang=language, title=html.escape(words["title"]), nav=nav, body="\n".join(body))


def markdown_page(path: Path, language: str, counterparts: dict[str, str]) -> tuple[str, str]:
    """A markdown file of the notebooks' folder as a page; returns (title, page)."""
    text = path.read_text(encoding="utf-8")
    heading = re.search(r"^#\s+(.+)$", text, re.MULTILINE)
    title = heading.group(1).strip() if heading else path.stem
    nav = navigation([], -1, language, counterparts)
    page = PAGE.format(lang=language, title=html.escape(re.sub(r"[`*]", "", title)), nav=nav,
                       body=markdown2html(text))
    return title, link_pages(page)


def link_pages(page: str) -> str:
    """Turn links between notebooks (``01_self.ipynb``) and markdown pages (``ctx_cheatsheet.md``)
    into links between pages (``.html``)."""
    return re.sub(r'href="(?!https?:)([^"#]+)\.(?:ipynb|md)(#[^"]*)?"', r'href="\1.html\2"', page)


def counterpart_links(name: str, language: str, found: dict[str, set[str]]) -> dict[str, str]:
    """Relative URLs of page ``name`` in every edition that has it (``found``: language -> names)."""
    links = {}
    for other, names in found.items():
        if name in names:
            if other == language:
                links[other] = name
            elif language == "en":
                links[other] = f"{other}/{name}"
            else:
                links[other] = f"../{name}" if other == "en" else f"../{other}/{name}"
    return links if len(links) > 1 else {}


def build(source: Path | str, target: Path | str, repository: str | None = None) -> list[Path]:
    """Write a page per notebook and per markdown file in ``source`` and ``index.html`` into
    ``target``, and the same for each translated edition (``source/zh`` into ``target/zh``).
    ``repository`` ("owner/name" on GitHub) makes the Binder links. Returns the pages written,
    the English course map first."""
    found = {}
    for language, folder in editions(source).items():
        found[language] = {f"{path.stem}.html" for path in [*notebook_paths(folder), *folder.glob("*.md")]}
        found[language].add("index.html")
    written = []
    for language, folder in editions(source).items():
        written += build_edition(folder, Path(target) if language == "en" else Path(target) / language,
                                 language, found, repository)
    return written


def build_edition(folder: Path, target: Path, language: str, found: dict[str, set[str]],
                  repository: str | None = None) -> list[Path]:
    """The pages of one edition (see ``build``)."""
    target.mkdir(parents=True, exist_ok=True)
    paths = notebook_paths(folder)
    notebooks = [read_notebook(path) for path in paths]
    intros = [notebook_intro(nb, path.stem) for nb, path in zip(notebooks, paths)]
    exporter = HTMLExporter(template_name="lab", raw_template=TEMPLATE)
    written = []
    for index, (nb, intro) in enumerate(zip(notebooks, intros)):
        counterparts = counterpart_links(f"{intro.name}.html", language, found)
        resources = {"metadata": {"name": f"{intro.number} · {intro.title.strip('`')}"},
                     "course_has_math": has_math(nb),
                     "course_nav": navigation(intros, index, language, counterparts),
                     "course_folds": WORDS.get(language, WORDS["en"])["folds"]}
        page, _ = exporter.from_notebook_node(nb, resources=resources)
        if language != "en":
            page = page.replace('<html lang="en">', f'<html lang="{language}">', 1).replace("<html>", f'<html lang="{language}">', 1)
        out = target / f"{intro.name}.html"
        out.write_text(link_pages(page), encoding="utf-8")
        written.append(out)
    pages = []
    for path in sorted(folder.glob("*.md")):
        title, page = markdown_page(path, language, counterpart_links(f"{path.stem}.html", language, found))
        out = target / f"{path.stem}.html"
        out.write_text(page, encoding="utf-8")
        pages.append((out.name, title))
        written.append(out)
    index_file = target / "index.html"
    index_file.write_text(index_page(intros, pages, language, counterpart_links("index.html", language, found),
                                     repository), encoding="utf-8")
    return [index_file, *written]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="folder of course notebooks (notebooks)")
    parser.add_argument("target", type=Path, help="folder for the site (build/site)")
    parser.add_argument("--binder-repo", metavar="OWNER/NAME", default="",
                        help="the course's repository on GitHub, for the Binder links (default: the "
                             "origin remote, when it is on GitHub)")
    args = parser.parse_args(argv)
    repository = args.binder_repo or github_repository()
    written = build(args.source, args.target, repository)
    for out in written:
        print(out)
    if not repository:
        print("Warning: no GitHub repository for the Binder link (the origin remote is not on GitHub): the "
              "course map says so instead of linking. Give it with `make site BINDER_REPO=owner/name`.",
              file=sys.stderr)
    print(f"Site: {len(written)} pages with the course map; open {args.target / 'index.html'} "
          "in a browser (no server needed), or copy the folder to any web server.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
