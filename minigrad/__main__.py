"""minigrad's command line: ``python -m minigrad COMMAND [options]``.

Commands:
    doctor    check that this machine can run the course
              (``python -m minigrad doctor --help`` lists its options)

>>> main(["doctor", "--dot-only"])
minigrad doctor
  OK       dot (the Graphviz program)
All required checks passed.
0
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from minigrad.doctor import main as doctor_main

COMMANDS = {"doctor": (doctor_main, "check that this machine can run the course")}


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command and return its exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m minigrad",
        description="minigrad's command line.",
        epilog="\n".join(f"  {name:<10}{help}" for name, (_, help) in COMMANDS.items()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("command", choices=COMMANDS, help="what to do (listed below)")
    # Everything after the command belongs to it: the command parses its own options.
    parser.add_argument("args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    run, _ = COMMANDS[args.command]
    return run(args.args)


if __name__ == "__main__":
    sys.exit(main())
