"""Time one SGD training step of a small MLP: minigrad against PyTorch and hand-written numpy.

Run it with ``python bench/bench_mlp.py`` (``--profile`` adds a cProfile of minigrad's step).
The network is ``Linear(64,64)-ReLU-Linear(64,64)-ReLU-Linear(64,10)`` on a batch of 64, and a
step is ``zero_grad(); loss = loss_fn(model(x), target); loss.backward(); optimizer.step()``,
with mean squared error and with cross-entropy. All three start from the same weights, and the
script checks that they compute the same losses before it trusts any timing. The numpy column is
the same forward, backward and update written out by hand: the floor minigrad could reach.
PyTorch is optional. The script always exits 0.
"""
from __future__ import annotations

import argparse
import sys

import _timing
import numpy as np

import minigrad

LEARNING_RATE = 0.01
LOSSES = {"mse": "mse_loss", "cross-entropy": "cross_entropy"}


def initial_weights(sizes: list[int], seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(weight, bias)`` per layer, drawn as ``nn.Linear`` does: uniform in ``±1/sqrt(fan_in)``."""
    rng = np.random.default_rng(seed)
    weights = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        bound = 1 / np.sqrt(fan_in)
        weights.append((rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32),
                        rng.uniform(-bound, bound, fan_out).astype(np.float32)))
    return weights


def build(lib, weights):
    """The MLP and its SGD optimizer in ``lib`` (minigrad or torch: the code is the same)."""
    layers = []
    for index, (w, b) in enumerate(weights):
        layer = lib.nn.Linear(w.shape[1], w.shape[0])
        with lib.no_grad():
            layer.weight.copy_(lib.from_numpy(w.copy()))
            layer.bias.copy_(lib.from_numpy(b.copy()))
        layers.append(layer)
        if index < len(weights) - 1:
            layers.append(lib.nn.ReLU())
    model = lib.nn.Sequential(*layers)
    return model, lib.optim.SGD(model.parameters(), lr=LEARNING_RATE)


def library_step(lib, weights, x: np.ndarray, target: np.ndarray, loss: str):
    """A function running one training step in ``lib``, and the model it trains."""
    model, optimizer = build(lib, weights)
    inputs, targets = lib.from_numpy(x.copy()), lib.from_numpy(target.copy())
    loss_fn = getattr(lib.nn.functional, LOSSES[loss])

    def step():
        optimizer.zero_grad()
        value = loss_fn(model(inputs), targets)
        value.backward()
        optimizer.step()
        return value

    return step, model


class NumpyMLP:
    """The same network and SGD step written by hand in numpy: no graph, no bookkeeping."""

    def __init__(self, weights, loss: str) -> None:
        self.params = [(w.copy(), b.copy()) for w, b in weights]
        self.loss = loss

    def step(self, x: np.ndarray, target: np.ndarray):
        activations = [x]                     # the input of each layer
        h = x
        for index, (w, b) in enumerate(self.params):
            h = h @ w.T + b
            if index < len(self.params) - 1:
                h = np.maximum(h, np.float32(0))
                activations.append(h)
        value, grad = self._loss_and_grad(h, target)
        for index in reversed(range(len(self.params))):
            w, b = self.params[index]
            inputs = activations[index]
            grad_w, grad_b = grad.T @ inputs, grad.sum(0)
            if index > 0:                     # ReLU's gradient: pass where its output was > 0
                grad = (grad @ w) * (inputs > 0)
            w -= LEARNING_RATE * grad_w
            b -= LEARNING_RATE * grad_b
        return value

    def _loss_and_grad(self, out: np.ndarray, target: np.ndarray):
        if self.loss == "mse":
            diff = out - target
            return (diff * diff).mean(), diff * np.float32(2 / diff.size)
        rows = np.arange(len(out))
        shifted = out - out.max(axis=1, keepdims=True)
        log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        grad = np.exp(log_probs)
        grad[rows, target] -= 1
        grad *= np.float32(1 / len(out))
        return -log_probs[rows, target].mean(), grad


def problem(batch: int, width: int, loss: str, seed: int = 0):
    """Weights, input and target for one case (class labels for cross-entropy)."""
    rng = np.random.default_rng(seed + 1)
    weights = initial_weights([width, width, width, 10], seed)
    x = rng.standard_normal((batch, width)).astype(np.float32)
    if loss == "mse":
        target = rng.standard_normal((batch, 10)).astype(np.float32)
    else:
        target = rng.integers(0, 10, batch).astype(np.int64)
    return weights, x, target


def compare(batch: int, width: int, loss: str, torch, repeats: int, number: int, warmup: int,
            target_ratio: float | None) -> _timing.Result:
    """Check that the libraries agree on this case, then time them in pairs."""
    weights, x, target = problem(batch, width, loss)
    candidates, models = {}, {}
    candidates["minigrad"], models["minigrad"] = library_step(minigrad, weights, x, target, loss)
    numpy_mlp = NumpyMLP(weights, loss)
    candidates["numpy"] = lambda: numpy_mlp.step(x, target)
    if torch is not None:
        candidates["torch"], models["torch"] = library_step(torch, weights, x, target, loss)

    first_losses = {name: step().item() for name, step in candidates.items()}
    samples = _timing.paired(candidates, repeats, number, warmup)
    steps = 1 + (warmup + repeats) * number
    final_weights = {name: model[0].weight.detach().numpy() for name, model in models.items()}
    final_weights["numpy"] = numpy_mlp.params[0][0]
    drift = max(float(np.abs(w - final_weights["numpy"]).max()) for w in final_weights.values())
    case = f"MLP step, batch {batch}, width {width}, {loss}"
    print(f"{case}: step-1 losses " + ", ".join(f"{n} {v:.6f}" for n, v in first_losses.items())
          + f"; first-layer weights after {steps} steps differ by at most {drift:.1e}")
    if max(first_losses.values()) - min(first_losses.values()) > 1e-4 * max(1.0, abs(first_losses["numpy"])):
        print("  WARNING: the libraries disagree on the loss; the timings below compare different work")
    print("  middle half of the samples: "
          + ", ".join(f"{n} {_timing.spread(s)}" for n, s in samples.items()))
    medians = {name: _timing.median(s) for name, s in samples.items()}
    return _timing.Result(case, medians["minigrad"], medians["numpy"], medians.get("torch"), target_ratio)


def profile_minigrad(batch: int, width: int, seconds_per_step: float) -> None:
    steps = max(5, min(2000, round(2.0 / seconds_per_step)))   # about two seconds of steps
    for loss in LOSSES:
        weights, x, target = problem(batch, width, loss)
        step, _ = library_step(minigrad, weights, x, target, loss)
        for _ in range(3):
            step()
        print(f"\ncProfile of minigrad's {loss} step (batch {batch}, width {width}), {steps} steps:")
        _timing.profile(step, steps)


def main(argv: list[str] | None = None, batch: int = 64, width: int = 64, repeats: int = 200,
         number: int = 5, warmup: int = 3, threads: int = 1, target: float = 1.3,
         description: str | None = __doc__) -> int:
    parser = argparse.ArgumentParser(description=(description or "").splitlines()[0])
    parser.add_argument("--repeats", type=int, default=repeats, help="timed samples per library")
    parser.add_argument("--number", type=int, default=number, help="steps per sample")
    parser.add_argument("--threads", type=int, default=threads, help="threads for numpy's BLAS and "
                        f"for torch; 0 leaves each library's default (default: {threads})")
    parser.add_argument("--profile", action="store_true", help="also profile minigrad's step")
    args = parser.parse_args(argv)
    torch = _timing.load_torch()
    if args.threads:
        _timing.set_threads(args.threads, torch)
    print(_timing.describe_environment(torch))
    results = _timing.run_cases([
        lambda loss=loss: compare(batch, width, loss, torch, args.repeats, args.number, warmup, target)
        for loss in LOSSES])
    print()
    print(_timing.results_table(results))
    if args.profile and results:
        profile_minigrad(batch, width, seconds_per_step=results[0].minigrad)
    return 0


if __name__ == "__main__":
    sys.exit(main())
