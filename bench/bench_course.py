"""How long the whole course takes under nbval, against starting one bare kernel per notebook.

The course's target: executing notebooks 00-10 under nbval costs at most 3x what nbval spends on
the same number of notebooks that hold a single trivial cell (kernel start-up dominates those).
Each edition (English ``notebooks/``, Chinese ``notebooks/zh/``) is timed against its own floor.

    python bench/bench_course.py
"""
from __future__ import annotations

import pathlib
import subprocess
import sys
import tempfile
import time

import nbformat

ROOT = pathlib.Path(__file__).resolve().parent.parent
SANITIZE = ROOT / "tests" / "nbval_sanitize.cfg"


def nbval_seconds(paths: list[pathlib.Path]) -> float:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
               "--nbval-current-env", "--nbval-sanitize-with", str(SANITIZE), *map(str, paths)]
    start = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        print(result.stdout[-2000:])
        raise SystemExit("nbval failed: fix the notebooks before timing them")
    return elapsed


def bare_notebooks(folder: pathlib.Path, count: int) -> list[pathlib.Path]:
    paths = []
    for i in range(count):
        cell = nbformat.v4.new_code_cell("1 + 1", execution_count=1,
                                         outputs=[nbformat.v4.new_output("execute_result", {"text/plain": "2"},
                                                                          execution_count=1)])
        notebook = nbformat.v4.new_notebook(cells=[cell])
        path = folder / f"bare_{i:02d}.ipynb"
        nbformat.write(notebook, path)
        paths.append(path)
    return paths


def main() -> None:
    editions = {"English": ROOT / "notebooks", "Chinese": ROOT / "notebooks" / "zh"}
    for name, folder in editions.items():
        course = sorted(folder.glob("[0-9][0-9]_*.ipynb"))
        if not course:
            continue
        with tempfile.TemporaryDirectory() as scratch:
            bare = nbval_seconds(bare_notebooks(pathlib.Path(scratch), len(course)))
        full = nbval_seconds(course)
        ratio = full / bare
        print(f"{name} edition: {len(course)} bare notebooks under nbval {bare:6.1f} s, "
              f"the course {full:6.1f} s, ratio {ratio:.2f} (target <= 3.0): "
              f"{'OK' if ratio <= 3.0 else 'over target'}")


if __name__ == "__main__":
    main()
