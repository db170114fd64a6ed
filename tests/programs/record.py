"""Record what each program here prints under real PyTorch, as ``NAME.expected``.

Usage (from the repository root), with a Python that has torch installed:

    python tests/programs/record.py /path/to/python-with-torch

The recordings were made with PyTorch 2.13 (CPU). tests/test_fidelity_programs.py runs the same
programs on minigrad and compares.
"""
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent


def main(python: str) -> None:
    for program in sorted(HERE.glob("*.py")):
        if program.name == "record.py":
            continue
        result = subprocess.run([python, program.name], cwd=HERE, capture_output=True, text=True, check=True)
        program.with_suffix(".expected").write_text(result.stdout)
        print(f"recorded {program.with_suffix('.expected').name} ({len(result.stdout.splitlines())} lines)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else sys.executable)
