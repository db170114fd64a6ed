"""``make test``: the learner's check of their set-up and of the course, in two phases.

1. unit tests and doctests (``tests/``, ``minigrad/``, ``tools/``): the engine's gradients against
   central differences, PyTorch's behaviours and error texts, the exercise checkers against wrong
   answers, the course's tools;
2. every notebook, English and Chinese, re-run with nbval, each cell's output compared with the
   stored one.

Each phase says what it checks and how long it took; each skipped test is listed with its reason
(pytest's ``-rs``); the last line says plainly whether everything passed, with the counts.
The browser tests (``make browser``) and the classroom test (``make classroom-test``) are not part
of it.

>>> counts("== 3117 passed, 18 skipped, 2 warnings in 139.2s ==")
{'passed': 3117, 'skipped': 18, 'warnings': 2}
>>> final_line([("unit tests", {"passed": 5, "skipped": 1}, 0), ("notebook cells", {"passed": 7}, 0)])
'All checks passed: 5 unit tests, 7 notebook cells (both editions); 1 skipped, each with its reason above.'
"""
from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTEST = [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider"]
PHASES = [
    ("unit tests",
     "1/2 unit tests and doctests: gradients against central differences, PyTorch's behaviours and "
     "error texts, the exercise checkers against wrong answers, the course's tools",
     [*PYTEST, "--durations=5", "--doctest-modules", "--ignore=tests/programs", "--ignore=tests/fidelity",
      "--ignore-glob=tests/test_*browser*.py", "tests/", "minigrad/", "tools/"]),
    ("notebook cells",
     "2/2 notebooks: every cell of every notebook (notebooks/ and notebooks/zh/) re-run, its output "
     "compared with the stored one (nbval)",
     [*PYTEST, "--nbval", "--nbval-current-env", "--nbval-sanitize-with", "tests/nbval_sanitize.cfg", "notebooks/"]),
]
SUMMARY = re.compile(r"(\d+) (passed|failed|skipped|errors?|warnings?|xfailed|xpassed|deselected)")


def counts(line: str) -> dict[str, int]:
    """The counts in pytest's closing line."""
    return {word: int(number) for number, word in SUMMARY.findall(line)}


def final_line(results: list[tuple[str, dict[str, int], int]]) -> str:
    """The plain last line of ``make test``."""
    ran = ", ".join(f"{found.get('passed', 0)} {name}" + (" (both editions)" if name == "notebook cells" else "")
                    for name, found, _ in results)
    skipped = sum(found.get("skipped", 0) for _, found, _ in results)
    failed = [f"{found.get('failed', 0) + found.get('errors', 0) + found.get('error', 0)} {name} failed"
              for name, found, status in results if status != 0]
    if failed:
        return f"Some checks failed: {', '.join(failed)} (see above); {ran} passed."
    return f"All checks passed: {ran}" + (f"; {skipped} skipped, each with its reason above." if skipped else ".")


def run_phase(name: str, title: str, command: list[str]) -> tuple[str, dict[str, int], int]:
    print(f"::: {title}", flush=True)
    print("$ python " + " ".join(command[1:]), flush=True)
    start, last = time.monotonic(), ""
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in process.stdout:
        sys.stdout.write(line)
        sys.stdout.flush()
        if SUMMARY.search(line) and (" in " in line or "no tests ran" in line):
            last = line
    status = process.wait()
    if status == 5:     # pytest: no tests collected
        status = 0
    print(f"::: {name} took {time.monotonic() - start:.0f} s", flush=True)
    return name, counts(last), status


def main() -> int:
    results = [run_phase(*phase) for phase in PHASES]
    print(final_line(results))
    return max(status for _, _, status in results)


if __name__ == "__main__":
    sys.exit(main())
