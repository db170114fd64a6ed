"""Time one SGD training step of a wide MLP: minigrad against PyTorch and hand-written numpy.

Run it with ``python bench/bench_large.py`` (``--profile`` adds a cProfile of minigrad's step).
The network is ``Linear(1024,1024)-ReLU-Linear(1024,1024)-ReLU-Linear(1024,10)`` on a batch of
512, trained exactly as in ``bench_mlp.py`` (same code, bigger sizes). Here the Python overhead
of minigrad is small next to the arithmetic, so the ratio to numpy shows what the graph costs
in copies and extra passes over memory, and the ratio to PyTorch mostly compares numpy's BLAS
with PyTorch's. PyTorch is optional. The script always exits 0.
"""
from __future__ import annotations

import sys

from bench_mlp import main

if __name__ == "__main__":
    # threads=0: each library keeps its default (one thread per core), since threads pay off here.
    sys.exit(main(batch=512, width=1024, repeats=20, number=1, warmup=1, threads=0, target=1.0,
                  description=__doc__))
