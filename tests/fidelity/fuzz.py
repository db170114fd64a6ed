"""Count how many random programs behave identically on minigrad and PyTorch.

    .venv-fidelity/bin/python tests/fidelity/fuzz.py --programs 1000 --seed 0 [--show 3]

Program i is generated from seed ``seed + i`` with Python's ``random`` (no shrinking: the pytest
version, tests/fidelity/test_fuzz.py, uses hypothesis and shrinks a failure to a short program).
"""
import argparse
import collections
import sys

import torch

import minigrad
from compare import compare, report
from programs import RandomChooser, generate


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", type=int, default=3, help="print this many disagreeing programs")
    args = parser.parse_args(argv)
    identical, kinds, shown = 0, collections.Counter(), 0
    for i in range(args.programs):
        program = generate(RandomChooser(args.seed + i), torch)
        found = compare(program, torch, minigrad)
        if not found:
            identical += 1
            continue
        kinds[found[0].split("\n")[0].split(": ")[-1]] += 1
        if shown < args.show:
            shown += 1
            print(f"--- seed {args.seed + i}\n{report(program, found)}\n")
    print(f"{identical}/{args.programs} programs identical on minigrad and PyTorch "
          f"(seeds {args.seed}..{args.seed + args.programs - 1})")
    for kind, count in kinds.most_common():
        print(f"  {count:4d} differ first in: {kind}")
    return 0 if identical == args.programs else 1


if __name__ == "__main__":
    sys.exit(main())
