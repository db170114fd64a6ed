"""Time minigrad.viz on a big graph: walk, text, DOT and PNG, with and without collapsing.

Run it with ``python bench/bench_viz.py`` (add ``--nodes 2000`` for a bigger graph).
The graph is an unrolled loop ``h = h * w + b`` on three leaves: two nodes per step,
so ``--nodes 1000`` is 500 steps. It prints seconds for each stage and exits 0.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import minigrad as torch  # noqa: E402
from minigrad.viz import draw  # noqa: E402
from minigrad.viz.describe import describe  # noqa: E402
from minigrad.viz.dot_source import to_dot  # noqa: E402
from minigrad.viz.graph_walk import walk  # noqa: E402
from minigrad.viz.options import DrawOptions  # noqa: E402
from minigrad.viz.render import render  # noqa: E402


def chain(nodes: int):
    """An unrolled loop with about ``nodes`` backward nodes; returns (loss, names)."""
    x = torch.ones(4, requires_grad=True)
    w = torch.full((4,), 0.999, requires_grad=True)
    b = torch.full((4,), 0.001, requires_grad=True)
    h = x
    for _ in range(max(1, (nodes - 5) // 2)):
        h = h * w + b
    return h.sum(), {"x": x, "w": w, "b": b}


def timed(label: str, fn):
    start = time.perf_counter()
    result = fn()
    print(f"  {label:<12} {time.perf_counter() - start:8.3f} s")
    return result


def bench(nodes: int, max_nodes: int | None) -> None:
    loss, names = chain(nodes)
    what = "everything" if max_nodes is None else f"max_nodes={max_nodes}"
    print(f"graph of {nodes} nodes, drawing {what}:")
    options = DrawOptions()
    model = timed("graph walk", lambda: walk([loss], names=names, max_nodes=max_nodes))
    text = timed("text", lambda: describe(model, options))
    source = timed("DOT", lambda: to_dot(model, options))
    png = timed("PNG (dot)", lambda: render(source, "png"))
    timed("draw() + png", lambda: draw(loss, names=names, max_nodes=max_nodes).png())
    print(f"  nodes found {model.total_nodes}, drawn {len(model.nodes)}; text {len(text.splitlines())} lines, "
          f"DOT {len(source) // 1024} KiB, PNG {len(png) // 1024} KiB")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1000)
    args = parser.parse_args(argv)
    bench(args.nodes, max_nodes=40)
    bench(args.nodes, max_nodes=None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
