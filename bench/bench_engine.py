"""Count the engine's work instead of timing it: hops per backward and bytecodes per step.

Timings drift with the machine; these two numbers do not, so they show what a change to the
engine costs before any stopwatch is read.

- **Hops**: the distinct Python functions one plain ``(x * w).sum().backward()`` passes through,
  from ``Tensor.backward`` to its return, without what the nodes' own backward formulas run (the
  ops' math, below ``node.apply``). Each is a function a reader of the engine follows. Comprehensions
  count as functions (each is one in CPython 3.11).
- **Bytecodes per step**: the Python bytecodes one plain MLP step of ``bench_peers.py`` executes
  (forward, backward, SGD update), numpy's Python code included, counted with ``sys.settrace`` and
  ``frame.f_trace_opcodes``; DeZero's step too, counted the same way, when DeZero is installed.
- **Calls per step**: the Python function calls of that step.

``--list`` prints the hops' names. The script always exits 0.

>>> hops = engine_hops()
>>> 0 < len(hops) < 30 and "minigrad/tensor.py:backward" in hops
True
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:   # `python bench/bench_engine.py` from a clone finds minigrad without installing
    sys.path.insert(0, str(REPO))

import minigrad  # noqa: E402
from minigrad.autograd.function import BackwardCFunction  # noqa: E402

PACKAGE = os.path.dirname(os.path.abspath(minigrad.__file__))
NODE_APPLY = BackwardCFunction.apply.__code__   # below it: a node's backward formula, not the engine


def engine_hops() -> list[str]:
    """``file:function`` for each distinct function of minigrad that ``(x * w).sum().backward()`` runs,
    the backward formulas left out, in the order first met."""
    x = minigrad.ones(3, requires_grad=True)
    w = minigrad.ones(3, requires_grad=True)
    for _ in range(2):   # the leaves' .grad exist already, as in a training loop
        (x * w).sum().backward()
    loss = (x * w).sum()
    seen: dict = {}
    inside_formula = [0]

    def profile(frame, event, arg):
        code = frame.f_code
        if code is NODE_APPLY:
            inside_formula[0] += 1 if event == "call" else -1 if event == "return" else 0
            if event != "call" or inside_formula[0] > 1:
                return
        elif inside_formula[0] or event != "call" or not code.co_filename.startswith(PACKAGE):
            return
        name = f"minigrad/{os.path.relpath(code.co_filename, PACKAGE)}:{code.co_name}"
        seen.setdefault(code, name)

    sys.setprofile(profile)
    try:
        loss.backward()
    finally:
        sys.setprofile(None)
    return list(seen.values())


def step_counts(step) -> tuple[int, int]:
    """``(bytecodes, calls)`` of one call of ``step()``, every Python frame counted."""
    counts = [0, 0]

    def trace(frame, event, arg):
        if event == "call":
            counts[1] += 1
            frame.f_trace_opcodes = True
        elif event == "opcode":
            counts[0] += 1
        return trace

    sys.settrace(trace)
    try:
        step()
    finally:
        sys.settrace(None)
    return counts[0], counts[1]


def plain_steps() -> dict:
    """``bench_peers.py``'s plain MLP step in minigrad, and in DeZero if it is installed."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench_peers
    weights, x, y = bench_peers.problem()
    steps = {"minigrad": bench_peers.plain_step(minigrad, weights, x, y)[0]}
    dezero = bench_peers.load_dezero()
    if dezero is not None:
        steps["dezero"] = bench_peers.dezero_plain_step(dezero, weights, x, y)[0]
    return steps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print the name of every hop")
    args = parser.parse_args(argv)
    hops = engine_hops()
    in_autograd = sum(name.startswith("minigrad/autograd/") for name in hops)
    print(f"hops: {len(hops)} distinct functions in one plain (x * w).sum().backward(), "
          f"{in_autograd} of them in minigrad/autograd/")
    if args.list:
        for name in hops:
            print("  " + name)
    for name, step in plain_steps().items():
        for _ in range(3):
            step()
        bytecodes, calls = step_counts(step)
        target = " (target: at most 18,000 bytecodes)" if name == "minigrad" else ""
        print(f"plain MLP step (bench_peers.py), {name}: {bytecodes:,} bytecodes, {calls:,} Python calls "
              f"per step{target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
