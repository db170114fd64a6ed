"""The class's JupyterHub: print the nbgitpuller link that gives each student the course.

A student who opens the link logs in to the hub; nbgitpuller then clones the repository into
their home folder (or, the next time, pulls the teacher's changes while keeping the student's
own edits) and opens the course's first notebook in JupyterLab.

Usage, from the repository's root::

    python -m tools.classroom link --hub https://hub.example.edu --repo https://github.com/x/minigrad

>>> print(nbgitpuller_link("https://hub.example.edu/", "https://github.com/x/minigrad.git"))
https://hub.example.edu/hub/user-redirect/git-pull?repo=https%3A%2F%2Fgithub.com%2Fx%2Fminigrad.git&targetpath=minigrad&urlpath=lab%2Ftree%2Fminigrad%2Fnotebooks%2F00_start_here.ipynb
>>> print(nbgitpuller_link("http://127.0.0.1:8000", "/srv/course", branch="main", language="zh"))
http://127.0.0.1:8000/hub/user-redirect/git-pull?repo=%2Fsrv%2Fcourse&targetpath=course&urlpath=lab%2Ftree%2Fcourse%2Fnotebooks%2Fzh%2F00_start_here.ipynb&branch=main
"""
from __future__ import annotations

import argparse
import sys
from urllib.parse import urlencode

FIRST_NOTEBOOK = "00_start_here.ipynb"


def folder_name(repo: str) -> str:
    """The folder a clone of ``repo`` gets in the student's home: its last path part, without
    ``.git`` (nbgitpuller would keep the ``.git``; the link names the folder itself).

    >>> folder_name("https://github.com/x/minigrad.git/"), folder_name("file:///srv/git/course")
    ('minigrad', 'course')
    """
    name = repo.rstrip("/").rsplit("/", 1)[-1]
    return name[:-len(".git")] if name.endswith(".git") else name


def nbgitpuller_link(hub: str, repo: str, branch: str | None = None, language: str = "en",
                     notebook: str = FIRST_NOTEBOOK, folder: str | None = None) -> str:
    """The link that clones (or updates) ``repo`` for the user who opens it and opens ``notebook``
    of the course (``notebooks/NOTEBOOK``, or ``notebooks/zh/NOTEBOOK``) in JupyterLab."""
    folder = folder or folder_name(repo)
    notebooks = "notebooks" if language == "en" else f"notebooks/{language}"
    query = {"repo": repo, "targetpath": folder, "urlpath": f"lab/tree/{folder}/{notebooks}/{notebook}"}
    if branch:
        query["branch"] = branch      # without it, nbgitpuller follows the repository's default branch
    return f"{hub.rstrip('/')}/hub/user-redirect/git-pull?{urlencode(query)}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    link = commands.add_parser("link", help="print the nbgitpuller link for a hub and a repository")
    link.add_argument("--hub", required=True, help="the hub's address, e.g. https://hub.example.edu")
    link.add_argument("--repo", required=True, help="the course's git repository (URL or path on the hub's machine)")
    link.add_argument("--branch", help="the branch to pull (default: the repository's default branch)")
    link.add_argument("--language", choices=["en", "zh"], default="en", help="open the English or Chinese edition")
    link.add_argument("--notebook", default=FIRST_NOTEBOOK, help=f"the notebook to open ({FIRST_NOTEBOOK})")
    args = parser.parse_args(argv)
    print(nbgitpuller_link(args.hub, args.repo, args.branch, args.language, args.notebook))
    return 0


if __name__ == "__main__":
    sys.exit(main())
