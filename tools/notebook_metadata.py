"""The notebook metadata the course stores, so that opening a notebook changes nothing.

JupyterLab 4 writes two things into a notebook's metadata as soon as its kernel starts: the
kernel's ``kernelspec`` (with the display name of the kernel it runs, "Python 3 (ipykernel)" in
the course's ``.venv``) and the kernel's ``language_info`` (with the exact Python version). When
they differ from what the file stores, the notebook is marked modified and autosave rewrites a
tracked file. So the course stores exactly what the course's kernel reports (``KERNELSPEC``,
``LANGUAGE_INFO``), ``make execute`` restores it after nbconvert, and the course's server
(``make lab``, configured in ``jupyter-config/``) restores it in every notebook it saves, so that
a learner whose Python is another version still gets an unchanged file.

Usage, from the repository's root (``make execute`` runs it)::

    python -m tools.notebook_metadata notebooks            # rewrite what differs
    python -m tools.notebook_metadata --check notebooks    # list what differs, exit 1 if any

>>> nb = {"metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
...                                   "name": "python3"}, "authors": ["kept"]},
...       "nbformat": 4, "nbformat_minor": 4, "cells": []}
>>> normalise(nb)
True
>>> nb["metadata"]["kernelspec"]["display_name"], nb["metadata"]["authors"], nb["nbformat_minor"]
('Python 3 (ipykernel)', ['kept'], 5)
>>> normalise(nb)
False
"""
from __future__ import annotations

import argparse
import copy
import hashlib
import sys
from pathlib import Path

import nbformat

from tools.course import editions, notebook_paths

# What ipykernel's kernel in the course's virtual environment reports (measured with JupyterLab
# 4.6 and ipykernel 7 on Python 3.11.7, the course's reference Python).
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
LANGUAGE_INFO = {
    "codemirror_mode": {"name": "ipython", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "name": "python",
    "nbconvert_exporter": "python",
    "pygments_lexer": "ipython3",
    "version": "3.11.7",
}
NBFORMAT_MINOR = 5   # cells carry ids (nbformat 4.5), as JupyterLab 4 writes them


def normalise(nb: dict, name: str = "") -> bool:
    """Give a notebook (a dict, as read from JSON) the course's metadata; True if it changed.

    Other metadata (of the notebook and of its cells) is kept. A cell without an id gets one
    derived from the notebook's ``name`` and the cell's position, so the result is the same
    on every run.
    """
    before = copy.deepcopy(nb)
    metadata = nb.setdefault("metadata", {})
    metadata["kernelspec"] = copy.deepcopy(KERNELSPEC)
    metadata["language_info"] = copy.deepcopy(LANGUAGE_INFO)
    nb["nbformat"], nb["nbformat_minor"] = 4, NBFORMAT_MINOR
    for index, cell in enumerate(nb.get("cells", [])):
        if not cell.get("id"):
            cell["id"] = hashlib.sha1(f"{name}/{index}".encode()).hexdigest()[:8]
    return nb != before


def normalise_file(path: Path | str, check: bool = False) -> bool:
    """Normalise one notebook file in place (not with ``check``); True if it differed."""
    nb = nbformat.read(str(path), as_version=4)
    changed = normalise(nb, Path(path).stem)
    if changed and not check:
        nbformat.write(nb, str(path))
    return changed


def pre_save_hook(model: dict, **kwargs) -> None:
    """Jupyter server's pre-save hook: every notebook the course's server saves keeps the
    course's metadata (``c.FileContentsManager.pre_save_hook`` in jupyter-config/)."""
    if model.get("type") == "notebook" and isinstance(model.get("content"), dict):
        normalise(model["content"], Path(kwargs.get("path", "")).stem)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="folder of course notebooks (notebooks; notebooks/zh too)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a notebook differs")
    args = parser.parse_args(argv)
    differing = [path for folder in editions(args.folder).values() for path in notebook_paths(folder)
                 if normalise_file(path, check=args.check)]
    for path in differing:
        print(f"{path}: {'differs from' if args.check else 'rewritten with'} the course's notebook metadata")
    return 1 if args.check and differing else 0


if __name__ == "__main__":
    sys.exit(main())
