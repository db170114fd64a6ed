"""The course as a web site, both editions: Sphinx with MyST-NB and the book theme.

``make site`` runs ``python -m tools.site notebooks build/site``. For each edition this copies the
notebooks and markdown pages into ``build/site-src/<language>/``, marks the worked solutions and
the "Under the hood" listings with MyST-NB's ``hide-cell`` tag (folded, one click away, as in
JupyterLab), writes the course map ``index.md`` (each notebook's question, goals and time, read
from its first cell, and the table of contents), and runs Sphinx with the configuration in
``tools/templates/site/``. English goes to ``build/site/``, Chinese to ``build/site/zh/``; every
page has a button to its counterpart in the other edition. Stored outputs are shown as they are
(nothing runs); graphs are PNG pictures. Notebook pages get a Binder launch button when the
course's GitHub repository is known (``--binder-repo owner/name``, or the ``origin`` remote).

Jupyter Book 2 (MyST's own site builder) is not used: its HTML theme is downloaded at build time
from api.mystmd.org and GitHub, which neither PyPI nor npm carries, so it cannot build offline or
in a CI that reaches only package registries.

>>> binder_url("someone/minigrad")
'https://mybinder.org/v2/gh/someone/minigrad/HEAD?urlpath=lab/tree/notebooks/00_start_here.ipynb'
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

from tools.course import editions, notebook_intro, notebook_paths, read_notebook, tags

CONFIG = Path(__file__).resolve().parent / "templates" / "site"
FOLDED = {"solution", "under-the-hood"}
WORDS = {
    "en": {"name": "English", "title": "minigrad: how PyTorch's custom autograd Functions work",
           "intro": "The course's notebooks with their stored outputs. To run the code and do the exercises, "
                    "clone the repository and run `make lab` (see its README), or use the launch button "
                    "(Binder) at the top of a notebook's page. Read the notebooks in order: each builds on "
                    "the ones before.", "learn": "You will learn:", "reference": "Reference",
           "show": "Show code cell {type}", "hide": "Hide code cell {type}"},
    "zh": {"name": "中文", "title": "minigrad：PyTorch 自定义 autograd Function 是怎样工作的",
           "intro": "课程的全部笔记本及其保存的输出。要运行代码、做练习，请克隆仓库并运行 `make lab`"
                    "（见 README.zh.md），或者点笔记本页面顶部的启动按钮（Binder）。请按顺序阅读："
                    "每一本都建立在前面几本之上。", "learn": "你将学到：", "reference": "参考",
           "show": "展开单元格", "hide": "收起单元格"},
}


def binder_url(repository: str, notebook: str = "notebooks/00_start_here.ipynb") -> str:
    """The mybinder.org address that opens ``notebook`` of a GitHub ``repository`` in JupyterLab."""
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


def course_map(folder: Path, language: str) -> str:
    """``index.md``: the title, how to use the site, an entry per notebook, the table of contents."""
    words = WORDS[language]
    paths, pages = notebook_paths(folder), sorted(folder.glob("*.md"))
    lines = [f"# {words['title']}", "", words["intro"], ""]
    for path in paths:
        intro = notebook_intro(read_notebook(path), path.stem)
        lines += [f"## [{intro.number} · {intro.title}]({path.name})", "", intro.question, ""]
        if intro.learn:
            lines += [words["learn"], "", *[f"- {item}" for item in intro.learn], ""]
        lines += [f"*{intro.time.capitalize()}*", ""]
    if pages:
        lines += [f"## {words['reference']}", "", *[f"- [{page.stem}]({page.name})" for page in pages], ""]
    lines += ["```{toctree}", ":hidden:", "", *[path.stem for path in paths + pages], "```", ""]
    return "\n".join(lines)


def prepare(folder: Path, source: Path, language: str) -> None:
    """The edition's notebooks (folded cells tagged ``hide-cell``), pages and course map."""
    if source.exists():
        shutil.rmtree(source)
    source.mkdir(parents=True)
    for path in notebook_paths(folder):
        nb = read_notebook(path)
        for cell in nb.cells:
            if FOLDED & set(tags(cell)):
                cell.metadata["tags"] = [*tags(cell), "hide-cell"]
        nbformat.write(nb, str(source / path.name))
    for page in folder.glob("*.md"):
        shutil.copy(page, source / page.name)
    (source / "index.md").write_text(course_map(folder, language), encoding="utf-8")


def build(notebooks: Path | str, target: Path | str, repository: str | None = None,
          sources: Path | str | None = None) -> list[Path]:
    """Build every edition of ``notebooks`` into ``target`` (translations into ``target/<language>``);
    returns the pages written, the English course map first."""
    target = Path(target)
    sources = Path(sources) if sources else target.parent / f"{target.name}-src"
    found = editions(notebooks)
    pages = []
    for language, folder in found.items():
        source, out = sources / language, target if language == "en" else target / language
        prepare(folder, source, language)
        other = next((lang for lang in found if lang != language), None)
        edition = {"language": language, "show": WORDS[language]["show"], "hide": WORDS[language]["hide"],
                   "context": {"language_switch_href": ("../" if language != "en" else f"{other}/") if other else "",
                               "language_switch_lang": other or "", "language_switch_label": WORDS.get(other, {}).get("name", "")}}
        if repository:
            edition["theme_options"] = {
                "repository_url": f"https://github.com/{repository}", "repository_branch": "HEAD",
                "path_to_docs": "notebooks" if language == "en" else f"notebooks/{language}",
                "launch_buttons": {"binderhub_url": "https://mybinder.org", "notebook_interface": "jupyterlab"}}
        os.environ["MINIGRAD_SITE_EDITION"] = json.dumps(edition)
        status = sphinx_build(["-b", "html", "-q", "-c", str(CONFIG), "-d", str(sources / f".doctrees-{language}"),
                             str(source), str(out)])
        if status:
            raise RuntimeError(f"Sphinx failed on the {language} edition (status {status})")
        pages += [out / "index.html", *sorted(out.glob("[0-9][0-9]_*.html")),
                  *[out / f"{page.stem}.html" for page in sorted(folder.glob('*.md'))]]
    return pages


def sphinx_build(argv: list[str]) -> int:
    """``sphinx-build ARGV`` in this process (Sphinx is installed by ``make site``)."""
    from sphinx.cmd.build import build_main

    return build_main(argv)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="folder of course notebooks (notebooks)")
    parser.add_argument("target", type=Path, help="folder for the site (build/site)")
    parser.add_argument("--binder-repo", metavar="OWNER/NAME", default="",
                        help="the course's repository on GitHub, for the Binder buttons (default: the "
                             "origin remote, when it is on GitHub)")
    args = parser.parse_args(argv)
    repository = args.binder_repo or github_repository()
    pages = build(args.source, args.target, repository)
    if not repository:
        print("Warning: no GitHub repository for the Binder buttons (the origin remote is not on GitHub): "
              "the pages have none. Give it with `make site BINDER_REPO=owner/name`.", file=sys.stderr)
    print(f"Site: {len(pages)} pages; open {args.target / 'index.html'} in a browser, or copy the folder "
          "to any web server.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
