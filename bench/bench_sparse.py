"""Sparse product forward + backward of ``out.sum()``: minigrad.sparse.spmm against the dense backward.

Compared, on the same random graph (N nodes, nnz = 10 N edges, d features, float32):

- ``spmm``             minigrad.sparse.spmm: the values' gradient on the nnz edges only, O(nnz * d);
- ``pyGAT (minigrad)``  pyGAT's SpecialSpmmFunction run on minigrad: its backward builds the dense
                       N x N matrix ``grad_output @ b.t()`` and reads nnz entries off it;
- ``a @ b (minigrad)`` ``sparse_coo_tensor(indices, values) @ b`` in minigrad (dense N x N backward,
                       like PyTorch's);
- ``torch.sparse.mm``  PyTorch with values requiring grad, and ``pyGAT (torch)``: pyGAT's Function on
                       PyTorch. Both only when ``import torch`` works.
- ``gather (torch)``   the best plain-PyTorch formulation, no sparse tensor at all:
                       ``zeros(N, d).index_add_(0, rows, values[:, None] * b[cols])``; its backward
                       is O(nnz * d) too.

PyTorch runs with one thread (``torch.set_num_threads(1)``), like numpy's kernels here. At N = 20,000
the script also times ``spmm`` against ``gather (torch)`` paired and interleaved in one process
(medians of alternating runs), which is steadier than the separate processes of the table.

Every measurement runs in a fresh subprocess so that peaks do not mix. "extra peak" is the growth of
the process's peak resident memory (VmHWM, reset through /proc/self/clear_refs just before the run)
during one forward + backward, the same yardstick for numpy and PyTorch; for the minigrad methods
``tracemalloc`` (numpy's own allocations) is shown as well. Times are the best of a few runs after a
warm-up (a single run for the dense methods above N = 10,000). Ratios are "how many times more than
spmm".

Run it with both libraries importable, e.g. from the repository root with PyTorch installed into
``.venv`` (bench/README.md says how) or with ``make fidelity``'s ``.venv-fidelity``, which has both:

    .venv-fidelity/bin/python bench/bench_sparse.py            # N = 2k, 5k, 10k, 20k + the 20k check
    .venv-fidelity/bin/python bench/bench_sparse.py --quick    # N = 1k, 2k, 5k
    .venv-fidelity/bin/python bench/bench_sparse.py --full     # + N = 30k, and spmm alone up to 1M
    .venv-fidelity/bin/python bench/bench_sparse.py --huge     # spmm alone: 1M nodes, 10M edges, d = 16

Without PyTorch the torch rows are skipped. The script exits 0; the N = 20,000 check prints PASS or FAIL.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SEED = 0
EDGES_PER_NODE = 10
FEATURES = 32
DONE_WHEN = dict(n=20_000, nnz=200_000, d=32, speedup=20.0, memory_ratio=20.0)
HUGE = dict(n=1_000_000, nnz=10_000_000, d=16)
MIB = 2**20


# --------------------------------------------------------------------------- the methods
def special_spmm_function(torch):
    """pyGAT's SpecialSpmmFunction (Diego999/pyGAT, layers.py), defined against ``torch`` (either library)."""
    class SpecialSpmmFunction(torch.autograd.Function):
        """Special function for only sparse region backpropataion layer."""
        @staticmethod
        def forward(ctx, indices, values, shape, b):
            assert indices.requires_grad == False  # noqa: E712
            a = torch.sparse_coo_tensor(indices, values, shape)
            ctx.save_for_backward(a, b)
            ctx.N = shape[0]
            return torch.matmul(a, b)

        @staticmethod
        def backward(ctx, grad_output):
            a, b = ctx.saved_tensors
            grad_values = grad_b = None
            if ctx.needs_input_grad[1]:
                grad_a_dense = grad_output.matmul(b.t())
                edge_idx = a._indices()[0, :] * ctx.N + a._indices()[1, :]
                grad_values = grad_a_dense.view(-1)[edge_idx]
            if ctx.needs_input_grad[3]:
                grad_b = a.t().matmul(grad_output)
            return None, grad_values, None, grad_b
    return SpecialSpmmFunction


def forward_builders(torch, library: str) -> dict:
    """For each method of this library: ``forward(indices, values, n, b) -> out``."""
    special = special_spmm_function(torch)
    if library == "minigrad":
        from minigrad.sparse import spmm
        return {
            "spmm": lambda i, v, n, b: spmm(i, v, (n, n), b),
            "pyGAT (minigrad)": lambda i, v, n, b: special.apply(i, v, torch.Size([n, n]), b),
            "a @ b (minigrad)": lambda i, v, n, b: torch.sparse_coo_tensor(i, v, (n, n)) @ b,
        }
    return {
        "torch.sparse.mm": lambda i, v, n, b: torch.sparse.mm(torch.sparse_coo_tensor(i, v, (n, n)), b),
        "pyGAT (torch)": lambda i, v, n, b: special.apply(i, v, torch.Size([n, n]), b),
        "gather (torch)": lambda i, v, n, b: gather_index_add(torch, i, v, n, b),
    }


def gather_index_add(torch, indices, values, n: int, b):
    """``A @ b`` in plain PyTorch: gather the rows ``b[cols]``, scale them by the values, add them
    into the output rows with ``index_add_``. Differentiable in values and b, O(nnz * d)."""
    rows, cols = indices[0], indices[1]
    return torch.zeros(n, b.shape[1], dtype=b.dtype).index_add_(0, rows, values[:, None] * b[cols])


METHODS = {"spmm": "minigrad", "pyGAT (minigrad)": "minigrad", "a @ b (minigrad)": "minigrad",
           "torch.sparse.mm": "torch", "pyGAT (torch)": "torch", "gather (torch)": "torch"}
DENSE_BACKWARD = {"pyGAT (minigrad)", "a @ b (minigrad)", "torch.sparse.mm", "pyGAT (torch)"}


def graph(n: int, nnz: int, d: int):
    rng = np.random.default_rng(SEED)
    indices = rng.integers(0, n, size=(2, nnz), dtype=np.int64)
    values = rng.standard_normal(nnz, dtype=np.float32)
    b = rng.standard_normal((n, d), dtype=np.float32)
    return indices, values, b


# --------------------------------------------------------------------------- one measurement (subprocess)
def _status_kib(key: str) -> int:
    """VmRSS / VmHWM of this process in KiB (Linux); elsewhere the peak from getrusage."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1])
    except OSError:
        pass
    import resource
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak   # macOS reports bytes, Linux KiB


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")   # resets VmHWM to the current resident size (Linux >= 4.0)
        return True
    except OSError:
        return False


def worker(method: str, n: int, nnz: int, d: int, repeat: int, grads_path: str | None) -> dict:
    warnings.simplefilter("ignore")   # PyTorch warns that sparse invariant checks are off
    library = METHODS[method]
    if library == "torch":
        import torch
        torch.set_num_threads(1)   # numpy's take, add.at and einsum run on one thread too
    else:
        import minigrad as torch
    forward = forward_builders(torch, library)[method]
    indices_np, values_np, b_np = graph(n, nnz, d)
    indices = torch.from_numpy(indices_np)
    values = torch.from_numpy(values_np).requires_grad_()
    b = torch.from_numpy(b_np).requires_grad_()

    def step():
        values.grad = b.grad = None
        forward(indices, values, n, b).sum().backward()

    reset = _reset_peak()
    before = _status_kib("VmRSS:") if reset else _status_kib("VmHWM:")
    start = time.perf_counter()
    step()   # first run: peak memory (and a cold time)
    cold = time.perf_counter() - start
    peak_kib = _status_kib("VmHWM:") - before
    if grads_path:
        np.savez(grads_path, values=values.grad.detach().numpy(), b=b.grad.detach().numpy())
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    traced = None
    if library == "minigrad":
        tracemalloc.start()
        step()
        traced = tracemalloc.get_traced_memory()[1] / MIB
        tracemalloc.stop()
    return dict(method=method, n=n, nnz=nnz, d=d, time=min(times) if times else cold, cold=cold,
                peak_mib=peak_kib / 1024, traced_mib=traced)


def measure(method: str, n: int, nnz: int, d: int, repeat: int, grads_path: str | None, timeout: float) -> dict:
    command = [sys.executable, __file__, "--worker", method, str(n), str(nnz), str(d), str(repeat),
               grads_path or "-"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return dict(method=method, n=n, error=f"timed out after {timeout:.0f} s")
    if done.returncode != 0:
        return dict(method=method, n=n, error=(done.stderr.strip().splitlines() or ["failed"])[-1])
    return json.loads(done.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------- reporting
def torch_available() -> str | None:
    done = subprocess.run([sys.executable, "-c", "import torch; print(torch.__version__, torch.get_num_threads())"],
                          capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def available_mib() -> float:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("inf")


def grad_difference(path_a: str, path_b: str) -> float:
    """Largest |difference| of the two runs' gradients, relative to the largest |gradient|."""
    a, b = np.load(path_a), np.load(path_b)
    worst = 0.0
    for key in ("values", "b"):
        scale = max(float(np.abs(b[key]).max()), 1e-30)
        worst = max(worst, float(np.abs(a[key] - b[key]).max()) / scale)
    return worst


def fmt_mib(x) -> str:
    return "-" if x is None else f"{x:9.1f}"


def run_size(n: int, methods: list, repeat: int, tmp: str, timeout: float) -> dict:
    nnz, d = EDGES_PER_NODE * n, FEATURES
    results = {}
    print(f"\nN = {n:,}, nnz = {nnz:,}, d = {d} (float32); dense N x N float32 = {n * n * 4 / MIB:,.0f} MiB")
    for method in methods:
        if method in DENSE_BACKWARD and 1.25 * n * n * 4 / MIB > 0.7 * available_mib():
            results[method] = dict(method=method, n=n, error=f"skipped: needs ~{1.25 * n * n * 4 / 2**30:.1f} GiB")
            continue
        grads = os.path.join(tmp, f"{method.replace(' ', '_').replace('@', 'at')}_{n}.npz")
        runs = 1 if method in DENSE_BACKWARD and n > 10_000 else repeat   # a dense run takes seconds there
        results[method] = measure(method, n, nnz, d, runs, grads, timeout)
        results[method]["grads"] = grads
    base = results.get("spmm")
    print(f"  {'method':<18} {'time s':>9} {'x spmm':>8} {'extra peak MiB':>15} {'x spmm':>8} "
          f"{'tracemalloc MiB':>16} {'grad diff vs spmm':>18}")
    for method, r in results.items():
        if "error" in r:
            print(f"  {method:<18} {r['error']}")
            continue
        time_ratio = r["time"] / base["time"] if base and "error" not in base else float("nan")
        memory_ratio = r["peak_mib"] / max(base["peak_mib"], 1e-9) if base and "error" not in base else float("nan")
        compared = method != "spmm" and base and "error" not in base
        diff = f"{grad_difference(r['grads'], base['grads']):.1e}" if compared else "-"
        print(f"  {method:<18} {r['time']:9.3f} {time_ratio:8.1f} {r['peak_mib']:15.1f} {memory_ratio:8.1f} "
              f"{fmt_mib(r['traced_mib']):>16} {diff:>18}")
    return results


def growth_table(all_results: dict, methods: list) -> None:
    sizes = sorted(all_results)
    print("\nHow each grows with N (nnz = 10 N, d = 32): time in s / extra peak in MiB")
    print(f"  {'method':<18}" + "".join(f"{f'N={n:,}':>22}" for n in sizes))
    for method in methods:
        cells = []
        for n in sizes:
            r = all_results[n].get(method)
            cells.append("-" if r is None or "error" in r else f"{r['time']:.3f} / {r['peak_mib']:.0f}")
        print(f"  {method:<18}" + "".join(f"{c:>22}" for c in cells))


def done_when_check(results: dict) -> None:
    spmm_r, torch_r = results.get("spmm"), results.get("torch.sparse.mm")
    print(f"\nCheck at N = {DONE_WHEN['n']:,}, nnz = {DONE_WHEN['nnz']:,}, d = {DONE_WHEN['d']}: spmm against "
          "torch.sparse.mm (values requiring grad), same run")
    if not spmm_r or not torch_r or "error" in spmm_r or "error" in torch_r:
        print("  not measured (PyTorch missing or a run failed)")
        return
    diff = grad_difference(spmm_r["grads"], torch_r["grads"])
    a, b = np.load(spmm_r["grads"]), np.load(torch_r["grads"])
    same = all(np.allclose(a[k], b[k], rtol=1e-4, atol=1e-4) for k in ("values", "b"))
    speedup = torch_r["time"] / spmm_r["time"]
    memory = torch_r["peak_mib"] / max(spmm_r["peak_mib"], 1e-9)
    print(f"  same gradients (allclose rtol=1e-4, atol=1e-4; max relative difference {diff:.1e}): "
          f"{'PASS' if same else 'FAIL'}")
    print(f"  {speedup:.0f}x faster ({torch_r['time']:.3f} s vs {spmm_r['time']:.3f} s), needs >= "
          f"{DONE_WHEN['speedup']:.0f}x: {'PASS' if speedup >= DONE_WHEN['speedup'] else 'FAIL'}")
    print(f"  {memory:.0f}x less extra peak memory ({torch_r['peak_mib']:.0f} MiB vs {spmm_r['peak_mib']:.1f} MiB), "
          f"needs >= {DONE_WHEN['memory_ratio']:.0f}x: {'PASS' if memory >= DONE_WHEN['memory_ratio'] else 'FAIL'}")
    gather_r = results.get("gather (torch)")
    if gather_r and "error" not in gather_r:
        print(f"  {gather_r['time'] / spmm_r['time']:.1f}x faster than the plain-PyTorch gather/index_add_ "
              f"formulation ({gather_r['time']:.3f} s, separate processes; the paired check below is steadier)")


def paired_gather_check(n: int, nnz: int, d: int, rounds: int = 15) -> None:
    """spmm against the plain-PyTorch gather/index_add_ formulation, in this one process, one
    thread each, alternating runs; prints the median times and their ratio (target: >= 2x)."""
    import statistics

    import torch

    import minigrad
    from minigrad.sparse import spmm
    torch.set_num_threads(1)
    indices, values, b = graph(n, nnz, d)
    runs = {}
    for name, lib in (("spmm", minigrad), ("gather (torch)", torch)):
        i, v, bb = lib.from_numpy(indices), lib.from_numpy(values).requires_grad_(), lib.from_numpy(b).requires_grad_()
        product = (lambda i, v, bb: spmm(i, v, (n, n), bb)) if lib is minigrad else \
            (lambda i, v, bb: gather_index_add(torch, i, v, n, bb))

        def step(i=i, v=v, bb=bb, product=product):
            v.grad = bb.grad = None
            product(i, v, bb).sum().backward()
        runs[name] = step
    samples = {name: [] for name in runs}
    for round_ in range(rounds + 1):
        order = list(runs) if round_ % 2 == 0 else list(runs)[::-1]
        for name in order:
            start = time.perf_counter()
            runs[name]()
            if round_:   # the first round warms up
                samples[name].append(time.perf_counter() - start)
    medians = {name: statistics.median(s) for name, s in samples.items()}
    ratio = medians["gather (torch)"] / medians["spmm"]
    print(f"\nPaired in one process at N = {n:,}, nnz = {nnz:,}, d = {d}, one thread each, {rounds} rounds: "
          f"spmm {medians['spmm']:.4f} s, gather (torch) {medians['gather (torch)']:.4f} s")
    print(f"  RATIO spmm is {ratio:.2f}x faster than the plain-PyTorch gather/index_add_ formulation, "
          f"needs >= 2x: {'PASS' if ratio >= 2 else 'FAIL'}")


def huge(timeout: float) -> None:
    n, nnz, d = HUGE["n"], HUGE["nnz"], HUGE["d"]
    print(f"\nHuge: spmm alone, N = {n:,}, nnz = {nnz:,}, d = {d} (float32). A dense N x N float32 matrix would "
          f"be {n * n * 4 / 2**40:.1f} TiB.")
    r = measure("spmm", n, nnz, d, 1, None, timeout)
    if "error" in r:
        print(f"  {r['error']}")
        return
    inputs = (2 * nnz * 8 + nnz * 4 + n * d * 4) / MIB
    print(f"  forward + backward: {r['time']:.2f} s (first run {r['cold']:.2f} s); extra peak {r['peak_mib']:.0f} MiB "
          f"(tracemalloc {r['traced_mib']:.0f} MiB); the inputs themselves take {inputs:.0f} MiB")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--worker":
        method, n, nnz, d, repeat, grads = argv[1], *map(int, argv[2:6]), argv[6]
        print(json.dumps(worker(method, n, nnz, d, repeat, None if grads == "-" else grads)))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="N = 1k, 2k, 5k only")
    size.add_argument("--full", action="store_true", help="also N = 30k, and spmm alone at 100k, 300k, 1M")
    parser.add_argument("--huge", action="store_true", help="only spmm at 1M nodes, 10M edges, d = 16")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs after the first (best is shown)")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds allowed per measurement")
    args = parser.parse_args(argv)

    import minigrad.sparse.kernels as kernels
    torch_version = torch_available()
    torch_text = f"(version, threads) {torch_version}" if torch_version else "not importable: torch rows skipped"
    print(f"Python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs; PyTorch {torch_text}; "
          f"spmm chunk {kernels.CHUNK:,} edges")
    if args.huge:
        huge(args.timeout)
        return 0
    sizes = [1_000, 2_000, 5_000] if args.quick else [2_000, 5_000, 10_000, 20_000] + ([30_000] if args.full else [])
    methods = [m for m, lib in METHODS.items() if lib == "minigrad" or torch_version]
    all_results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            all_results[n] = run_size(n, methods, args.repeat, tmp, args.timeout)
        if args.full:
            for n in (100_000, 300_000, 1_000_000):
                all_results[n] = run_size(n, ["spmm"], args.repeat, tmp, args.timeout)
        growth_table(all_results, methods)
        if DONE_WHEN["n"] in all_results:
            done_when_check(all_results[DONE_WHEN["n"]])
            if torch_version:
                paired_gather_check(DONE_WHEN["n"], DONE_WHEN["nnz"], DONE_WHEN["d"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
