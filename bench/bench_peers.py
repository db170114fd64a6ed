"""Time a small MLP training step written the plain way: minigrad against PyTorch and DeZero.

Run it with ``python bench/bench_peers.py`` (``--phases`` adds the time of the step's forward,
backward and update in each library; ``--profile`` adds a cProfile of minigrad's step).
Learners rarely start with ``nn.Linear`` and ``optim.SGD``; they write the step out::

    h = (x @ W1 + b1).relu()
    h = (h @ W2 + b2).relu()
    out = h @ W3 + b3
    loss = ((out - y) ** 2).mean()
    for p in params: p.grad = None
    loss.backward()
    with torch.no_grad():
        for p in params: p -= 0.01 * p.grad

That is the *plain* step: batch 64, width 64, two hidden layers, three weight matrices and three
biases, all float32. The same code runs with ``import minigrad as torch`` and with PyTorch (one
thread). DeZero (the numpy-based framework of the book "Deep Learning from Scratch 3") runs the
same computation in its own spelling (``F.relu(F.matmul(x, W1) + b1)``,
``F.sum(d * d) / np.float32(d.size)``, ``p.cleargrad()``, ``p.data -= lr * p.grad.data``). That
spelling keeps DeZero in float32. DeZero
turns a Python number into a 0-dim numpy array (int64 or float64), and numpy 2 no longer lets such an
array keep the other operand's float32: ``F.sum(d ** 2) / d.size`` makes the loss float64, and
``d ** 2``'s backward (``2 * x``) makes every gradient float64, so DeZero's whole backward pass would
run double-precision matrix products, about 10% more work than the other libraries do. The script
checks the dtype of every loss and gradient and warns if one is not float32. It also times the
``nn.Linear`` + ``optim.SGD`` step of ``bench_mlp.py`` (MSE loss) in all three libraries (DeZero:
``L.Linear``, ``optimizers.SGD``).

Every library starts from the same weights; the script checks that all compute the same first
loss before timing. Runs are paired and interleaved, each library in a process of its own, the
processes taking turns (see ``_timing.paired_in_processes``; ``--one-process`` keeps them all in this
process, ``--against FOLDER`` adds another checkout's minigrad, to compare two builds).

PyTorch and DeZero are optional: a missing one leaves its column empty. DeZero 0.0.13 uses
``numpy.int``, which numpy 2 removed; this script sets ``numpy.int = int`` before importing it
(only in this process) so that it imports at all. Install both with
``.venv/bin/pip install torch dezero==0.0.13``. The script always exits 0.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import _timing
import numpy as np
from bench_mlp import initial_weights, library_step

import minigrad

LEARNING_RATE = 0.01
BATCH, WIDTH, OUTPUTS = 64, 64, 10
TARGETS = {"torch": 1.5, "dezero": 1.3}   # wanted upper bounds of minigrad / peer, per case below
NN_TARGETS = {"torch": 1.3}
CASE_NAMES = {"plain": f"plain step (batch {BATCH}, width {WIDTH})",
              "nn": f"nn.Linear + optim.SGD step (batch {BATCH}, width {WIDTH})"}


def load_dezero():
    """DeZero if it imports, else None. DeZero 0.0.13 still names ``numpy.int`` (gone in numpy 2),
    and it imports matplotlib at start-up, so that must be installed too."""
    if not hasattr(np, "int"):
        np.int = int   # only so that DeZero 0.0.13 imports; nothing else here uses it
    try:
        import dezero
        import dezero.functions
        import dezero.layers
        import dezero.optimizers
    except ImportError as error:
        if error.name != "dezero":
            print(f"dezero is installed but does not import: {error} "
                  "(DeZero 0.0.13 needs matplotlib: pip install matplotlib)")
        return None
    return dezero


def problem(seed: int = 0):
    """Weights ``(out, in)`` as nn.Linear stores them, an input batch and a regression target."""
    rng = np.random.default_rng(seed + 1)
    weights = initial_weights([WIDTH, WIDTH, WIDTH, OUTPUTS], seed)
    x = rng.standard_normal((BATCH, WIDTH)).astype(np.float32)
    y = rng.standard_normal((BATCH, OUTPUTS)).astype(np.float32)
    return weights, x, y


def plain_phases(lib, weights, x: np.ndarray, y: np.ndarray):
    """The plain-written step in ``lib`` (minigrad or torch: the same code) as its three phases,
    ``forward() -> loss``, ``backward(loss)`` and ``update()``, and its parameters."""
    params = []
    for w, b in weights:
        params.append(lib.from_numpy(w.T.copy()).requires_grad_())   # (in, out): x @ W
        params.append(lib.from_numpy(b.copy()).requires_grad_())
    W1, b1, W2, b2, W3, b3 = params
    inputs, target = lib.from_numpy(x.copy()), lib.from_numpy(y.copy())

    def forward():
        h = (inputs @ W1 + b1).relu()
        h = (h @ W2 + b2).relu()
        out = h @ W3 + b3
        return ((out - target) ** 2).mean()

    def backward(loss):
        for p in params:
            p.grad = None
        loss.backward()

    def update():
        with lib.no_grad():
            for p in params:
                p -= LEARNING_RATE * p.grad

    return (forward, backward, update), params


def dezero_plain_phases(dezero, weights, x: np.ndarray, y: np.ndarray):
    """The same phases in DeZero's own spelling (it has no ``@`` and no ``.mean()``)."""
    F = dezero.functions
    params = []
    for w, b in weights:
        params.append(dezero.Parameter(w.T.copy()))
        params.append(dezero.Parameter(b.copy()))
    W1, b1, W2, b2, W3, b3 = params
    inputs, target = dezero.Variable(x.copy()), dezero.Variable(y.copy())

    def forward():
        h = F.relu(F.matmul(inputs, W1) + b1)
        h = F.relu(F.matmul(h, W2) + b2)
        out = F.matmul(h, W3) + b3
        diff = out - target
        return F.sum(diff * diff) / np.float32(diff.size)   # float32 throughout (see above)

    def backward(loss):
        for p in params:
            p.cleargrad()
        loss.backward()

    def update():
        for p in params:
            p.data -= LEARNING_RATE * p.grad.data

    return (forward, backward, update), params


def _whole_step(phases_and_params):
    (forward, backward, update), params = phases_and_params

    def step():
        loss = forward()
        backward(loss)
        update()
        return loss

    return step, params


def plain_step(lib, weights, x: np.ndarray, y: np.ndarray):
    """The plain-written step in ``lib`` (minigrad or torch), and its parameters."""
    return _whole_step(plain_phases(lib, weights, x, y))


def dezero_plain_step(dezero, weights, x: np.ndarray, y: np.ndarray):
    """The same step in DeZero's own spelling."""
    return _whole_step(dezero_plain_phases(dezero, weights, x, y))


def dezero_nn_step(dezero, weights, x: np.ndarray, y: np.ndarray):
    """DeZero's layers-and-optimizer step: ``L.Linear``, ``optimizers.SGD``, the mean of squares."""
    F, L = dezero.functions, dezero.layers
    layers = []
    for w, b in weights:
        layer = L.Linear(w.shape[0], in_size=w.shape[1])
        layer.W.data, layer.b.data = w.T.copy(), b.copy()
        layers.append(layer)
    optimizer = dezero.optimizers.SGD(LEARNING_RATE)
    model = dezero.Model()
    for index, layer in enumerate(layers):
        setattr(model, f"l{index}", layer)
    optimizer.setup(model)
    inputs, target = dezero.Variable(x.copy()), dezero.Variable(y.copy())

    def step():
        h = inputs
        for layer in layers[:-1]:
            h = F.relu(layer(h))
        diff = layers[-1](h) - target
        loss = F.sum(diff * diff) / np.float32(diff.size)   # F.mean_squared_error divides by the batch only
        model.cleargrads()
        loss.backward()
        optimizer.update()
        return loss

    return step, model


def _value(loss) -> float:
    data = getattr(loss, "data", None)   # DeZero's Variable keeps a numpy array in .data
    return float(data) if isinstance(data, np.ndarray) else loss.item()


def _dtype_names(loss, params) -> set:
    """The dtypes of a loss and of the parameters' gradients (DeZero keeps numpy arrays in ``.data``)."""
    values = [loss] + [p.grad for p in params]
    return {str(getattr(v, "data", v).dtype).replace("torch.", "") for v in values}


def compare_in_processes(case: str, names: list, repeats: int, number: int, warmup: int, targets: dict,
                         cpu_time: bool, threads: int, against: str | None = None) -> dict:
    """Time the ``case`` step of each library in a process of its own, taking turns
    (``_timing.paired_in_processes``), and print the report. ``against``: another checkout's
    folder, whose minigrad runs as the library "other"."""
    candidates = {name: ("bench_peers", "step_in_process", (name, case)) for name in names}
    if against is not None:
        candidates["other"] = ("bench_peers", "step_in_process", ("minigrad", case), str(Path(against).resolve()))
    samples, described = _timing.paired_in_processes(candidates, repeats, number, warmup, cpu_time, threads)
    return report(CASE_NAMES[case], described, samples, targets)


def step_in_process(library: str, case: str):
    """For ``paired_in_processes``: the ``case`` step ("plain" or "nn") in ``library``, and how to
    describe its result (its loss and dtypes)."""
    weights, x, y = problem()
    if library == "dezero":
        dezero = load_dezero()
        step, params = (dezero_plain_step(dezero, weights, x, y) if case == "plain" else
                        _dezero_params(dezero_nn_step(dezero, weights, x, y)))
    else:
        lib = minigrad if library == "minigrad" else _timing.load_torch()
        step, params = (plain_step(lib, weights, x, y) if case == "plain" else
                        _with_parameters(library_step(lib, weights, x, y, "mse")))
    return step, lambda loss: _describe(loss, params)


def _dezero_params(step_and_model: tuple) -> tuple:
    step, model = step_and_model
    return step, list(model.params())


def _describe(loss, params) -> tuple:
    return _value(loss), _dtype_names(loss, params)


def report(case: str, described: dict, samples: dict, targets: dict) -> dict:
    """Print the first losses (warning if they disagree or are not float32), the timings and the ratios."""
    first = {name: value for name, (value, _) in described.items()}
    print(f"{case}: step-1 losses " + ", ".join(f"{n} {v:.6f}" for n, v in first.items()))
    if max(first.values()) - min(first.values()) > 1e-4 * max(1.0, abs(first["minigrad"])):
        print("  WARNING: the libraries disagree on the loss; the timings below compare different work")
    for name, (_, dtypes) in described.items():
        if dtypes != {"float32"}:
            print(f"  WARNING: {name} computes in {', '.join(sorted(dtypes))}, not only float32")
    candidates = list(samples)
    medians = {name: _timing.median(s) for name, s in samples.items()}
    print("  middle half of the samples: " + ", ".join(f"{n} {_timing.spread(s)}" for n, s in samples.items()))
    print("  medians: " + ", ".join(f"{n} {_timing.format_time(t)}" for n, t in medians.items()))
    for peer in candidates:
        if peer == "minigrad":
            continue
        # The ratio of the medians of paired samples, and the median of the per-sample ratios.
        per_pair = _timing.median([m / p for m, p in zip(samples["minigrad"], samples[peer])])
        ratio = medians["minigrad"] / medians[peer]
        target = targets.get(peer)
        verdict = "" if target is None else \
            f"  target <= {target:.1f}x: {'yes' if ratio <= target and per_pair <= target else 'NO'}"
        print(f"  RATIO {case}: minigrad / {peer} = {ratio:.2f}x (median of paired ratios "
              f"{per_pair:.2f}x){verdict}")
    return medians


def report_rounds(medians_per_round: list, case: str, targets: dict) -> None:
    """``--rounds``: each peer's ratio of medians in every round (fresh processes each time), their
    median and range, and the verdict on that median."""
    if not medians_per_round:
        return
    for peer in medians_per_round[0]:
        if peer == "minigrad":
            continue
        ratios = sorted(medians["minigrad"] / medians[peer] for medians in medians_per_round)
        middle = _timing.median(ratios)
        target = targets.get(peer)
        verdict = "" if target is None else f"  target <= {target:.1f}x: {'yes' if middle <= target else 'NO'}"
        print(f"ROUNDS {case}: minigrad / {peer} = {middle:.2f}x, the median of {len(ratios)} rounds "
              f"({ratios[0]:.2f}x-{ratios[-1]:.2f}x){verdict}")


def compare_phases(phases: dict, repeats: int, clock=time.perf_counter) -> None:
    """Time the plain step's forward, backward and update separately, paired and interleaved as in
    ``compare``, and print each phase's median per library and its ratio to minigrad's."""
    names = list(phases)
    samples = {name: ([], [], []) for name in names}
    for rep in range(3 + repeats):
        shift = rep % len(names)
        for name in names[shift:] + names[:shift]:
            forward, backward, update = phases[name]
            start = clock()
            loss = forward()
            after_forward = clock()
            backward(loss)
            after_backward = clock()
            update()
            end = clock()
            del loss   # freed outside every phase: otherwise the next library's forward would pay for it
            if rep >= 3:
                for phase, seconds in zip(samples[name], (after_forward - start, after_backward - after_forward,
                                                          end - after_backward)):
                    phase.append(seconds)
    print("plain step by phase (medians; the ratio is minigrad / that library):")
    for index, phase in enumerate(("forward", "backward", "update")):
        medians = {name: _timing.median(samples[name][index]) for name in names}
        print(f"  {phase:8s} " + ", ".join(
            f"{name} {_timing.format_time(t)}" + ("" if name == "minigrad" else f" ({medians['minigrad'] / t:.2f}x)")
            for name, t in medians.items()))


def _with_parameters(step_and_model: tuple) -> tuple:
    step, model = step_and_model
    return step, list(model.parameters())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200, help="timed samples per library")
    parser.add_argument("--number", type=int, default=5, help="steps per sample")
    parser.add_argument("--threads", type=int, default=1, help="threads for numpy's BLAS and for "
                        "torch; 0 leaves each library's default (default: 1)")
    parser.add_argument("--cpu-time", action="store_true", help="time with the thread's CPU time "
                        "(time.thread_time) instead of the wall clock: steadier on a busy machine")
    parser.add_argument("--one-process", action="store_true", help="time every library in this one "
                        "process (by default each runs in a process of its own, taking turns)")
    parser.add_argument("--against", metavar="FOLDER", help="also time the minigrad of another checkout "
                        "(its folder), as the library 'other', to compare two builds")
    parser.add_argument("--rounds", type=int, default=1, help="repeat the comparison N times, each in "
                        "fresh processes, and report the median ratio over the rounds (one round's ratio "
                        "moves by a few percent from one set of processes to the next)")
    parser.add_argument("--profile", action="store_true", help="also profile minigrad's plain step")
    parser.add_argument("--phases", action="store_true", help="also time the plain step's forward, "
                        "backward and update separately in every library (in this process)")
    args = parser.parse_args(argv)
    torch = _timing.load_torch()
    dezero = load_dezero()
    if args.threads:
        _timing.set_threads(args.threads, torch)
    print(_timing.describe_environment(torch))
    print("dezero: not installed (pip install dezero==0.0.13 to compare)" if dezero is None else
          f"dezero {getattr(dezero, '__version__', '?')} (numpy-based, pure Python)")
    names = ["minigrad"] + [name for name, lib in (("torch", torch), ("dezero", dezero)) if lib is not None]
    clock = time.thread_time if args.cpu_time else time.perf_counter
    print(f"clock: {clock.__name__}; " + ("every library in this one process" if args.one_process else
                                          "one process per library, taking turns"))
    if args.one_process:
        _timing.run_cases([
            lambda: _compare_here("plain", names, args, TARGETS, clock),
            lambda: _compare_here("nn", names, args, NN_TARGETS, clock),
        ])
    else:
        rounds: dict = {"plain": [], "nn": []}
        for _ in range(args.rounds):
            _timing.run_cases([
                lambda: rounds["plain"].append(compare_in_processes(
                    "plain", names, args.repeats, args.number, 3, TARGETS, args.cpu_time, args.threads, args.against)),
                lambda: rounds["nn"].append(compare_in_processes(
                    "nn", names, args.repeats, args.number, 3, NN_TARGETS, args.cpu_time, args.threads, args.against)),
            ])
        if args.rounds > 1:
            report_rounds(rounds["plain"], CASE_NAMES["plain"], TARGETS)
            report_rounds(rounds["nn"], CASE_NAMES["nn"], NN_TARGETS)
    weights, x, y = problem()
    if args.phases:
        phases = {"minigrad": plain_phases(minigrad, weights, x, y)[0]}
        if torch is not None:
            phases["torch"] = plain_phases(torch, weights, x, y)[0]
        if dezero is not None:
            phases["dezero"] = dezero_plain_phases(dezero, weights, x, y)[0]
        compare_phases(phases, args.repeats, clock)
    if args.profile:
        print("\ncProfile of minigrad's plain step:")
        _timing.profile(plain_step(minigrad, weights, x, y)[0], 2000)
    return 0


def _compare_here(case: str, names: list, args, targets: dict, clock) -> dict:
    """The ``case`` step of every library, built and timed in pairs in this one process."""
    steps, described = {}, {}
    for name in names:
        step, describe = step_in_process(name, case)
        steps[name], described[name] = step, describe(step())
    samples = _timing.paired(steps, args.repeats, args.number, 3, clock)
    return report(CASE_NAMES[case], described, samples, targets)


if __name__ == "__main__":
    sys.exit(main())
