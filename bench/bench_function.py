"""Time a custom autograd Function on a tiny tensor: the cost of ``apply`` and of backward itself.

Run it with ``python bench/bench_function.py`` (``--profile`` adds a cProfile of minigrad).
A MulConstant Function (PyTorch's documentation example, saving its input for backward) is
applied to a 16-element tensor and backpropagated through: ``y = MulConstant.apply(x, 3.0);
y.sum().backward()``. With 16 numbers the arithmetic is nothing, so this measures the machinery
around it: making ctx, recording the node, saving and checking tensors, and the backward engine.
It is timed in both styles a Function can be written in (``forward(ctx, ...)``, and ``forward``
plus ``setup_context``), next to the same computation with a builtin multiplication, and the
same arithmetic in plain numpy. PyTorch is optional. The script always exits 0.
"""
from __future__ import annotations

import argparse
import sys

import _timing
import numpy as np

import minigrad

SIZE = 16
CONSTANT = 3.0


def mul_constant(lib, style: str) -> type:
    """The MulConstant Function for ``lib`` (minigrad or torch), in one of the two styles."""
    if style == "forward(ctx, ...)":
        class MulConstant(lib.autograd.Function):
            @staticmethod
            def forward(ctx, tensor, constant):
                ctx.save_for_backward(tensor)
                ctx.constant = constant
                return tensor * constant

            @staticmethod
            def backward(ctx, grad_output):
                tensor, = ctx.saved_tensors   # read, as a real backward would
                return grad_output * ctx.constant, None
    else:
        class MulConstant(lib.autograd.Function):
            @staticmethod
            def forward(tensor, constant):
                return tensor * constant

            @staticmethod
            def setup_context(ctx, inputs, output):
                tensor, constant = inputs
                ctx.save_for_backward(tensor)
                ctx.constant = constant

            @staticmethod
            def backward(ctx, grad_output):
                tensor, = ctx.saved_tensors
                return grad_output * ctx.constant, None
    return MulConstant


STYLES = ("forward(ctx, ...)", "setup_context")


def library_case(lib, style: str | None):
    """A function doing apply + backward once in ``lib``, and the leaf ``x`` it differentiates.

    ``style=None`` uses the builtin multiplication instead of a custom Function.
    """
    x = lib.from_numpy(np.linspace(-1, 1, SIZE, dtype=np.float32)).requires_grad_()
    if style is None:
        def run():
            y = x * CONSTANT
            y.sum().backward()
    else:
        function = mul_constant(lib, style)

        def run():
            y = function.apply(x, CONSTANT)
            y.sum().backward()
    return run, x


def numpy_case():
    """The same arithmetic in numpy: forward product, sum, gradient, accumulation into x.grad."""
    x = np.linspace(-1, 1, SIZE, dtype=np.float32)
    grad = np.zeros_like(x)

    def run():
        y = x * np.float32(CONSTANT)
        y.sum()
        np.add(grad, np.ones_like(y) * np.float32(CONSTANT), out=grad)
    return run, grad


def compare(style: str | None, torch, repeats: int, number: int, target: float | None) -> _timing.Result:
    candidates, grads = {}, {}
    candidates["minigrad"], grads["minigrad"] = library_case(minigrad, style)
    candidates["numpy"], grads["numpy"] = numpy_case()
    if torch is not None:
        candidates["torch"], grads["torch"] = library_case(torch, style)
    samples = _timing.paired(candidates, repeats, number)
    calls = (3 + repeats) * number
    values = {name: (g if isinstance(g, np.ndarray) else g.grad.numpy()) for name, g in grads.items()}
    agree = all(np.allclose(v, calls * CONSTANT) for v in values.values())
    case = f"custom Function, {style}" if style else "builtin x * 3.0 (no Function)"
    print(f"{case}: x.grad after {calls} backwards is {calls} * 3 everywhere: "
          f"{'yes' if agree else 'NO: the libraries disagree'}; middle half of the samples: "
          + ", ".join(f"{n} {_timing.spread(s)}" for n, s in samples.items()))
    medians = {name: _timing.median(s) for name, s in samples.items()}
    return _timing.Result(f"{case}, {SIZE} elements", medians["minigrad"], medians["numpy"],
                          medians.get("torch"), target)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeats", type=int, default=300, help="timed samples per library")
    parser.add_argument("--number", type=int, default=20, help="apply+backward calls per sample")
    parser.add_argument("--threads", type=int, default=1, help="threads for numpy's BLAS and for "
                        "torch; 0 leaves each library's default (default: 1)")
    parser.add_argument("--profile", action="store_true", help="also profile minigrad")
    args = parser.parse_args(argv)
    torch = _timing.load_torch()
    if args.threads:
        _timing.set_threads(args.threads, torch)
    print(_timing.describe_environment(torch))
    results = _timing.run_cases([
        lambda style=style: compare(style, torch, args.repeats, args.number, 1.3 if style else None)
        for style in (*STYLES, None)])
    print()
    print(_timing.results_table(results))
    if args.profile:
        for style in (*STYLES, None):
            run, _ = library_case(minigrad, style)
            print(f"\ncProfile of minigrad, {style or 'builtin x * 3.0'}, per apply + backward:")
            _timing.profile(run, 2000)
    return 0


if __name__ == "__main__":
    sys.exit(main())
