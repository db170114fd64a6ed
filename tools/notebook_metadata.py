"""The notebook metadata the course stores, so that opening a notebook changes nothing.

JupyterLab 4 writes two things into a notebook's metadata as soon as its kernel starts: the
kernel's ``kernelspec`` (with the display name of the kernel's spec, "Python 3 (ipykernel)" in
the course's ``.venv``) and the ``language_info`` of the kernel's info reply (with the exact
Python version). It compares each with what it loaded (a deep comparison) and marks the
notebook modified when they differ, so closing it asks "save?" and autosave rewrites a tracked
file. The course therefore:

- stores ``KERNELSPEC`` and ``LANGUAGE_INFO``, which names no Python version (nbformat requires
  only the language's name); ``make execute`` restores them after nbconvert;
- serves each notebook from the course's server (``make lab``, Binder, configured in
  ``jupyter-config/``) with the ``language_info`` and ``kernelspec`` the kernel will report
  (``as_served``), so JupyterLab's comparison finds nothing to change, whatever Python runs;
- restores the stored metadata in every notebook that server saves (``pre_save_hook``), so
  even a notebook saved on purpose keeps naming no Python version.

Usage, from the repository's root (``make execute`` runs it)::

    python -m tools.notebook_metadata notebooks            # rewrite what differs
    python -m tools.notebook_metadata --check notebooks    # list what differs, exit 1 if any
    python -m tools.notebook_metadata --keep-outputs-from build/before-execute notebooks

The last form also keeps each output that re-executing changed only where nbval does not look
(memory addresses and the other rules of ``tests/nbval_sanitize.cfg``, cells tagged
``nbval-ignore-output``): ``make execute`` then leaves no diff unless something really changed.

>>> nb = {"metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
...                                   "name": "python3"}, "authors": ["kept"]},
...       "nbformat": 4, "nbformat_minor": 4, "cells": []}
>>> normalise(nb)
True
>>> nb["metadata"]["kernelspec"]["display_name"], nb["metadata"]["authors"], nb["nbformat_minor"]
('Python 3 (ipykernel)', ['kept'], 5)
>>> normalise(nb)
False
>>> as_served(nb, "3.13.1", "Python 3 (ipykernel)")
>>> nb["metadata"]["language_info"]["version"]
'3.13.1'
>>> normalise(nb), "version" in nb["metadata"]["language_info"]
(True, False)
"""
from __future__ import annotations

import argparse
import ast
import copy
import functools
import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

from tools.course import editions, notebook_paths

ROOT = Path(__file__).resolve().parent.parent
# What ipykernel's kernel in the course's virtual environment reports (measured with JupyterLab
# 4.6 and ipykernel 7), without the Python version, which differs between machines.
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
LANGUAGE_INFO = {
    "codemirror_mode": {"name": "ipython", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "name": "python",
    "nbconvert_exporter": "python",
    "pygments_lexer": "ipython3",
}
# The rules nbval compares outputs with (``make test``), also used by --keep-outputs-from.
SANITIZE = ROOT / "tests" / "nbval_sanitize.cfg"
IGNORED_OUTPUT = ("nbval-ignore-output", "nbval-skip")          # cell tags
IGNORED_OUTPUT_COMMENT = re.compile(r"^\s*#\s*NBVAL_(IGNORE_OUTPUT|SKIP)\b", re.MULTILINE)
NBFORMAT_MINOR = 5   # cells carry ids (nbformat 4.5), as JupyterLab 4 writes them
CHECK_CELL = re.compile(r"^check\.your_turn_\d+\(")    # a "Your turn" exercise's check call


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
        if cell.get("outputs"):
            cell["outputs"] = merge_streams(cell["outputs"])
    return nb != before


def hide_check_outputs(nb: dict) -> bool:
    """Store each "Your turn" check cell without outputs; True if one changed.

    Run on the starter, a check prints its hint, which can come close to the answer: a learner
    must see it only after running the check on their own attempt. The cell is tagged
    ``nbval-ignore-output``, so nbval still runs it (an exception fails) without comparing. Only
    the course's files get this (``normalise_file``, run by ``make execute``): the pre-save hook
    leaves a learner's own verdicts in the notebooks they save.

    >>> nb = {"cells": [{"cell_type": "code", "source": "check.your_turn_1(Scale)", "metadata": {},
    ...                  "execution_count": 7, "outputs": [{"output_type": "stream", "text": "Hint: ..."}]}]}
    >>> hide_check_outputs(nb), nb["cells"][0]["outputs"], nb["cells"][0]["metadata"]["tags"]
    (True, [], ['nbval-ignore-output'])
    >>> hide_check_outputs(nb)
    False
    """
    changed = False
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code" or not CHECK_CELL.match("".join(cell.get("source", "")).lstrip()):
            continue
        tags = cell.setdefault("metadata", {}).setdefault("tags", [])
        if "nbval-ignore-output" not in tags or cell.get("outputs") or cell.get("execution_count") is not None:
            changed = True
            if "nbval-ignore-output" not in tags:
                tags.append("nbval-ignore-output")
            cell["outputs"], cell["execution_count"] = [], None
    return changed


def merge_streams(outputs: list) -> list:
    """Join consecutive outputs of the same stream into one, as a single ``print`` wrote them.

    ipykernel sends what a cell prints in batches, on a timer; on a busy machine a batch can end
    in the middle of one ``print`` (between its text and its newline), and the stored notebook
    would then split one printed line over two outputs.

    >>> merge_streams([{"output_type": "stream", "name": "stdout", "text": "a"},
    ...                {"output_type": "stream", "name": "stdout", "text": "b\\n"}])
    [{'output_type': 'stream', 'name': 'stdout', 'text': 'ab\\n'}]
    """
    merged: list = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (previous is not None and output.get("output_type") == "stream" == previous.get("output_type")
                and output.get("name") == previous.get("name")):
            text = "".join(previous["text"]) + "".join(output["text"])
            merged[-1] = type(previous)({**previous, "text": text})
        else:
            merged.append(output)
    return merged


def sanitize_rules(path: Path = SANITIZE) -> list[tuple[re.Pattern, str]]:
    """The ``regex:``/``replace:`` pairs of nbval's sanitize file."""
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [(re.compile(line[len("regex: "):]), following[len("replace: "):])
            for line, following in zip(lines, lines[1:])
            if line.startswith("regex: ") and following.startswith("replace: ")]


def output_key(output: dict, rules: list[tuple[re.Pattern, str]]) -> str:
    """An output as nbval compares it: its text with the sanitize rules applied, pictures left out
    (nbval does not compare them), execution counts and metadata ignored.

    >>> rules = [(re.compile("0x[0-9a-f]+"), "0xADDRESS")]
    >>> output_key({"output_type": "stream", "name": "stdout", "text": "<Node at 0x7f3a>"}, rules)
    'stream stdout <Node at 0xADDRESS>'
    """
    parts = [output.get("output_type", ""), output.get("name", "")]
    if "text" in output:
        parts.append("".join(output["text"]))
    for mime, value in sorted(output.get("data", {}).items()):
        if not mime.startswith("image/"):
            parts.append(f"{mime}:{''.join(value) if isinstance(value, list) else value}")
    if output.get("output_type") == "error":
        parts += [output.get("ename", ""), output.get("evalue", "")]
    text = " ".join(parts)
    for pattern, replacement in rules:
        text = pattern.sub(replacement, text)
    return text


def output_is_ignored(cell: dict) -> bool:
    """Whether nbval ignores the cell's output (a tag or an ``# NBVAL_IGNORE_OUTPUT`` comment)."""
    source = "".join(cell.get("source", ""))
    return bool(set(cell.get("metadata", {}).get("tags", [])) & set(IGNORED_OUTPUT)
                or IGNORED_OUTPUT_COMMENT.search(source))


def names(source: str, context: type) -> set[str]:
    """The names a cell's code stores (``ast.Store``) or reads (``ast.Load``); none if it is not
    plain Python.

    >>> sorted(names("measured = [f(n) for n in SIZES]", ast.Store)), sorted(names("plot(measured)", ast.Load))
    (['measured', 'n'], ['measured', 'plot'])
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, context)}


def keep_outputs(nb: dict, before: dict, rules: list[tuple[re.Pattern, str]]) -> int:
    """Give back each code cell of ``nb`` the outputs it had in ``before`` (the same notebook
    before re-executing) when its source is unchanged and its new outputs differ only where nbval
    does not look: its output is ignored (``nbval-ignore-output``), or its text is the same under
    nbval's sanitize ``rules`` and so are its pictures, unless it reads values that a kept cell
    computed (a plot of kept timings stays the plot of those timings). Returns how many cells got
    their outputs back.

    >>> old = {"cells": [{"cell_type": "code", "id": "a", "source": "print(f)", "metadata": {},
    ...                   "outputs": [{"output_type": "stream", "name": "stdout", "text": "at 0x7f01\\n"}]}]}
    >>> new = copy.deepcopy(old); new["cells"][0]["outputs"][0]["text"] = "at 0x7fee\\n"
    >>> keep_outputs(new, old, [(re.compile("0x[0-9a-f]+"), "0xADDRESS")]), new["cells"][0]["outputs"][0]["text"]
    (1, 'at 0x7f01\\n')
    """
    previous = {cell.get("id"): cell for cell in before.get("cells", []) if cell.get("cell_type") == "code"}
    kept, kept_values = 0, set()       # names bound by the cells whose old outputs were kept
    for cell in nb.get("cells", []):
        old = previous.get(cell.get("id"))
        source = "".join(cell.get("source", ""))
        if cell.get("cell_type") != "code" or old is None or "".join(old.get("source", "")) != source:
            continue
        new_outputs, old_outputs = cell.get("outputs", []), old.get("outputs", [])
        pictures = [{k: v for k, v in output.get("data", {}).items() if k.startswith("image/")}
                    for output in (*new_outputs, *old_outputs)]
        same_text = len(new_outputs) == len(old_outputs) and all(
            output_key(a, rules) == output_key(b, rules) for a, b in zip(new_outputs, old_outputs))
        same_pictures = pictures[:len(new_outputs)] == pictures[len(new_outputs):]
        if output_is_ignored(cell) or (same_text and (same_pictures or names(source, ast.Load) & kept_values)):
            if new_outputs != old_outputs:
                cell["outputs"] = copy.deepcopy(old_outputs)
                kept += 1
            if output_is_ignored(cell) or not same_pictures:
                kept_values |= names(source, ast.Store)
    return kept


def normalise_file(path: Path | str, check: bool = False, before: Path | None = None) -> bool:
    """Normalise one notebook file in place (not with ``check``); True if it differed. With
    ``before`` (the file as it was before re-executing), keep outputs as ``keep_outputs`` says."""
    nb = nbformat.read(str(path), as_version=4)
    changed = normalise(nb, Path(path).stem)
    if before is not None and before.exists():
        changed = keep_outputs(nb, nbformat.read(str(before), as_version=4), sanitize_rules()) > 0 or changed
    changed = hide_check_outputs(nb) or changed    # the course's files only: never in a learner's save
    if changed and not check:
        nbformat.write(nb, str(path))
    return changed


def pre_save_hook(model: dict, **kwargs) -> None:
    """Jupyter server's pre-save hook: every notebook the course's server saves keeps the
    course's metadata (``c.FileContentsManager.pre_save_hook`` in jupyter-config/)."""
    if model.get("type") == "notebook" and isinstance(model.get("content"), dict):
        normalise(model["content"], Path(kwargs.get("path", "")).stem)


def as_served(nb: dict, python_version: str, display_name: str = KERNELSPEC["display_name"]) -> None:
    """Give a notebook of the course (a dict, as read from JSON) the metadata its kernel will
    report to JupyterLab: ``language_info`` with ``python_version`` (what ipykernel puts there,
    ``sys.version.split()[0]``), and the kernel spec's ``display_name``. Other notebooks (another
    kernel, another language) are left as they are."""
    metadata = nb.setdefault("metadata", {})
    if metadata.get("kernelspec", {}).get("name") != KERNELSPEC["name"] or \
            metadata.get("language_info", {}).get("name") != LANGUAGE_INFO["name"]:
        return
    metadata["language_info"] = {**LANGUAGE_INFO, "version": python_version}
    metadata["kernelspec"] = {**KERNELSPEC, "display_name": display_name}


@functools.lru_cache(maxsize=None)
def kernel_python(argv0: str) -> str:
    """The Python version (``sys.version.split()[0]``) of the kernel started with ``argv0``:
    jupyter_client runs ``python``/``python3``/``python3.X`` as the server's own Python."""
    names = {"python", f"python{sys.version_info[0]}", "python{}.{}".format(*sys.version_info[:2])}
    program = sys.executable if argv0 in names else (shutil.which(argv0) or argv0)
    if os.path.realpath(program) == os.path.realpath(sys.executable):
        return sys.version.split()[0]
    try:
        answer = subprocess.run([program, "-c", "import sys; print(sys.version.split()[0])"],
                                capture_output=True, text=True, timeout=60)
        return answer.stdout.strip() or sys.version.split()[0]
    except (OSError, subprocess.SubprocessError):
        return sys.version.split()[0]


def served_kernel(kernel_spec_manager=None) -> tuple[str, str]:
    """(Python version, display name) of the kernel the course's notebooks ask for (``python3``),
    as the server that serves them will start it."""
    try:
        if kernel_spec_manager is None:
            from jupyter_client.kernelspec import KernelSpecManager

            kernel_spec_manager = KernelSpecManager()
        spec = kernel_spec_manager.get_kernel_spec(KERNELSPEC["name"])
        return kernel_python(spec.argv[0]), spec.display_name
    except Exception:  # no such kernel: JupyterLab will ask for one, and the notebook is changed anyway
        return sys.version.split()[0], KERNELSPEC["display_name"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="folder of course notebooks (notebooks; notebooks/zh too)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a notebook differs")
    parser.add_argument("--keep-outputs-from", type=Path, metavar="DIR",
                        help="a copy of FOLDER from before re-executing: keep its outputs where only "
                             "what nbval ignores changed")
    args = parser.parse_args(argv)

    def before(path: Path) -> Path | None:
        return args.keep_outputs_from / path.relative_to(args.folder) if args.keep_outputs_from else None

    differing = [path for folder in editions(args.folder).values() for path in notebook_paths(folder)
                 if normalise_file(path, check=args.check, before=before(path))]
    for path in differing:
        print(f"{path}: {'differs from' if args.check else 'rewritten with'} the course's notebook metadata")
    return 1 if args.check and differing else 0


if __name__ == "__main__":
    sys.exit(main())
