"""Shared helpers for the bench/ scripts: paired timing, medians, the results table, profiling.

Paired timing means that minigrad, numpy and PyTorch take turns inside one process: repetition
``i`` runs every candidate once (in an order that rotates from one repetition to the next), so a
slow moment of the machine hits all of them alike. Each candidate's time is the median over the
repetitions.

>>> times = paired({"a": lambda: None, "b": lambda: None}, repeats=5, number=10, warmup=1)
>>> sorted(times), len(times["a"])
(['a', 'b'], 5)
"""
from __future__ import annotations

import cProfile
import ctypes
import os
import platform
import pstats
import statistics
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:   # `python bench/x.py` from a clone finds minigrad without installing
    sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

import minigrad  # noqa: E402


def load_torch():
    """Real PyTorch if it is installed in this Python, else None (the benchmarks still run)."""
    try:
        import torch
    except ImportError:
        return None
    return torch


def paired(candidates: dict[str, Callable[[], object]], repeats: int, number: int = 1,
           warmup: int = 3, clock: Callable[[], float] = time.perf_counter) -> dict[str, list[float]]:
    """Seconds per call of each candidate, one sample per repetition.

    A sample times ``number`` calls in a row and divides (fast cases need several calls per
    sample to rise above the timer's resolution). ``warmup`` repetitions run first, untimed.
    ``clock=time.thread_time`` counts only the CPU time of this thread: steadier on a busy machine,
    where waiting for a core would otherwise count.
    """
    names = list(candidates)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for rep in range(warmup + repeats):
        shift = rep % len(names)
        for name in names[shift:] + names[:shift]:
            fn = candidates[name]
            start = clock()
            for _ in range(number):
                fn()
            elapsed = (clock() - start) / number
            if rep >= warmup:
                samples[name].append(elapsed)
    return samples


def paired_in_processes(candidates: dict[str, tuple[str, str, tuple]], repeats: int, number: int = 1,
                        warmup: int = 3, cpu_time: bool = False, threads: int = 1) -> tuple[dict, dict]:
    """``paired``, with each candidate in a process of its own.

    ``candidates`` maps a name to ``(module, function, args)`` or ``(module, function, args, folder)``:
    ``module.function(*args)`` (a module of bench/) returns ``(step, describe)``, the candidate's
    step and a function that describes its last result (``describe(step())`` is compared across
    candidates, e.g. the first loss). A ``folder`` goes first on the process's ``sys.path``: another
    checkout's ``minigrad``, to compare two builds. The
    processes take turns, as ``paired``'s candidates do: one runs ``number`` steps while the others
    wait for their turn, so they never compete for a core, and a slow moment of the machine hits
    all alike. In a process of its own, no library shares its memory allocator, caches, imported
    modules or garbage collector with another. Returns ``(samples, descriptions)``.
    """
    import multiprocessing
    context = multiprocessing.get_context("spawn")   # a fresh interpreter: only its own library imported
    workers = {}
    try:
        for name, (module, function, args, *folder) in candidates.items():
            ours, theirs = context.Pipe()
            process = context.Process(target=_serve, args=(theirs, module, function, args, number, cpu_time, threads),
                                      daemon=True)
            saved_path = list(sys.path)
            sys.path[:0] = folder   # the new process starts with a copy of sys.path
            try:
                process.start()
            finally:
                sys.path[:] = saved_path
            workers[name] = (process, ours)
        descriptions = {name: connection.recv() for name, (_, connection) in workers.items()}
        names = list(workers)
        samples: dict[str, list[float]] = {name: [] for name in names}
        for rep in range(warmup + repeats):
            shift = rep % len(names)
            for name in names[shift:] + names[:shift]:
                connection = workers[name][1]
                connection.send("run")
                elapsed = connection.recv()
                if rep >= warmup:
                    samples[name].append(elapsed)
        return samples, descriptions
    finally:
        for process, connection in workers.values():
            connection.send(None)
            process.join(timeout=10)


def _serve(connection, module: str, function: str, args: tuple, number: int, cpu_time: bool, threads: int) -> None:
    """A candidate's process: build its step, describe one result, then time ``number`` steps per request."""
    import importlib
    step, describe = getattr(importlib.import_module(module), function)(*args)
    if threads:
        set_threads(threads, sys.modules.get("torch"))
    connection.send(describe(step()))
    clock = time.thread_time if cpu_time else time.perf_counter
    while connection.recv() is not None:
        start = clock()
        for _ in range(number):
            step()
        connection.send((clock() - start) / number)


def run_cases(cases: list[Callable[[], "Result"]]) -> list["Result"]:
    """Run each case, printing the traceback of one that fails instead of stopping (benchmarks
    never fail CI: a broken case shows up as a missing row and a traceback above the table)."""
    results = []
    for case in cases:
        try:
            results.append(case())
        except Exception:   # noqa: BLE001 - report and go on with the other cases
            traceback.print_exc()
            print("  (this case failed; its row is missing from the table)")
    return results


def median(values: list[float]) -> float:
    return statistics.median(values)


@dataclass
class Result:
    """One row of the table: median seconds per call for each library (None: not measured)."""

    case: str
    minigrad: float
    numpy: float | None
    torch: float | None
    target: float | None   # the wanted upper bound of minigrad/torch


def format_time(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def _ratio(a: float | None, b: float | None) -> str:
    return "-" if a is None or b is None else f"{a / b:.2f}x"


def results_table(results: list[Result]) -> str:
    """A Markdown table: times, ratios, and whether minigrad meets its target against PyTorch."""
    header = ["case", "minigrad", "numpy", "torch", "minigrad/torch", "target", "OK?",
              "minigrad/numpy", "torch/numpy"]
    rows = []
    for r in results:
        if r.target is None:
            ok = "-"
        elif r.torch is None:
            ok = "n/a (no torch)"
        else:
            ok = "yes" if r.minigrad / r.torch <= r.target else "NO"
        rows.append([r.case, format_time(r.minigrad), format_time(r.numpy), format_time(r.torch),
                     _ratio(r.minigrad, r.torch), "-" if r.target is None else f"<= {r.target:.1f}x", ok,
                     _ratio(r.minigrad, r.numpy), _ratio(r.torch, r.numpy)])
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]

    def line(cells):
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"

    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


def spread(samples: list[float]) -> str:
    """The middle half of the samples, e.g. ``412.3-431.0 us``: how noisy a median is."""
    q1, _, q3 = statistics.quantiles(samples, n=4)
    return f"{format_time(q1)}-{format_time(q3)}"


def blas_name() -> str:
    """The BLAS numpy was built against, from ``numpy.show_config``."""
    try:
        config = np.show_config(mode="dicts")
        blas = config["Build Dependencies"]["blas"]
        return f"{blas['name']} {blas.get('version', '')}".strip()
    except Exception:   # older numpy: no mode= argument
        return "unknown (see numpy.show_config())"


def _openblas():
    """numpy's OpenBLAS library, if it is one and is loaded (found through /proc/self/maps: Linux)."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line.lower() and "/" in line}
    except OSError:
        return None
    for path in sorted(paths):
        library = ctypes.CDLL(path)
        for prefix in ("scipy_openblas", "openblas"):
            for suffix in ("64_", ""):
                getter = getattr(library, f"{prefix}_get_num_threads{suffix}", None)
                setter = getattr(library, f"{prefix}_set_num_threads{suffix}", None)
                if getter is not None and setter is not None:
                    return getter, setter
    return None


def blas_threads() -> int | None:
    """How many threads numpy's OpenBLAS uses (None when that cannot be asked)."""
    functions = _openblas()
    return None if functions is None else functions[0]()


def set_threads(count: int, torch) -> None:
    """Give numpy's OpenBLAS and PyTorch the same number of threads (minigrad's BLAS is numpy's)."""
    functions = _openblas()
    if functions is None:
        print(f"note: cannot set numpy's BLAS threads here; set OMP_NUM_THREADS={count} instead")
    else:
        functions[1](count)
    if torch is not None:
        torch.set_num_threads(count)


def describe_environment(torch) -> str:
    """Versions and thread settings, printed above every table so numbers can be compared."""
    env = {k: os.environ[k] for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
           if k in os.environ}
    threads = blas_threads()
    lines = [
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs; minigrad {minigrad.__version__}",
        f"numpy {np.__version__} with BLAS {blas_name()}, threads: {threads or 'unknown'} (minigrad computes with it)",
        "torch: not installed (pip install torch into this environment to compare)" if torch is None else
        f"torch {torch.__version__}, torch.get_num_threads() = {torch.get_num_threads()}",
        f"thread variables: {env or 'none set'}",
        "dtype float32 everywhere; times are medians of paired runs",
    ]
    return "\n".join(lines)


def profile(fn: Callable[[], object], calls: int, top: int = 25) -> None:
    """Run ``fn`` ``calls`` times under cProfile and print where the time goes, per call of ``fn``.

    Columns: calls made per ``fn`` call, own time and cumulative time in microseconds per ``fn``
    call, and own time per single call. cProfile adds about 0.1-0.3 us to every Python call it
    sees, so the absolute numbers are inflated; the ranking is what matters.
    """
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        fn()
    profiler.disable()
    stats = pstats.Stats(profiler).stats
    rows = sorted(stats.items(), key=lambda item: item[1][2], reverse=True)[:top]
    print(f"{'calls/step':>10} {'own us/step':>11} {'cum us/step':>11} {'us/call':>8}  function")
    for (filename, lineno, name), (_, ncalls, own, cumulative, _) in rows:
        where = _short_path(filename)
        label = f"{where}:{lineno}({name})" if lineno else name
        print(f"{ncalls / calls:10.1f} {own / calls * 1e6:11.2f} {cumulative / calls * 1e6:11.2f} "
              f"{own / ncalls * 1e6:8.3f}  {label}")
    total = sum(s[2] for s in stats.values()) / calls * 1e6
    print(f"total under the profiler: {total:.1f} us per step")


def _short_path(filename: str) -> str:
    try:
        return str(Path(filename).resolve().relative_to(REPO))
    except ValueError:
        parts = Path(filename).parts
        return "/".join(parts[-2:]) if len(parts) > 1 else filename
