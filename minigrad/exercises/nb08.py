"""Checkers for ``08_gradcheck.ipynb``.

>>> import minigrad as torch
>>> from minigrad.exercises import nb08 as check
>>> class CustomFunction(torch.autograd.Function):
...     @staticmethod
...     def forward(ctx, input):
...         return input * 2
...     @staticmethod
...     def backward(ctx, grad_output):
...         return grad_output * 2
>>> result = check.your_turn_3(CustomFunction)
✓ Your turn 3: spot the bugs in CustomFunction — correct.
>>> result = check.your_turn_2(lambda indices, shape: indices[0] * shape[1] + indices[1])
✓ Your turn 2: pyGAT's edge_idx on a rectangular matrix — correct.
"""
from __future__ import annotations

import inspect
import warnings

import numpy as np

import minigrad as torch
from minigrad.autograd.function import Function
from minigrad.autograd.gradcheck import gradcheck
from minigrad.tensor import Tensor

from ._feedback import exercise, expect

_MATMUL_SHAPES = [((3, 3), (3, 3)), ((2, 3), (3, 4))]
_GRAD_FORMULAS = {"a": "grad_a has the shape of a: which product of grad_output and b, transposed or not, has it?",
                  "b": "grad_b has the shape of b: which product of a and grad_output, transposed or not, has it?"}


def _values(t) -> list:
    return np.asarray(t.detach()._data).tolist()


def _is_function_class(cls) -> bool:
    return isinstance(cls, type) and issubclass(cls, Function)


def _matmul_inputs(shape_a: tuple, shape_b: tuple, needs: str) -> tuple:
    rng = np.random.default_rng(8)
    a = torch.tensor(rng.standard_normal(shape_a), requires_grad="a" in needs)
    b = torch.tensor(rng.standard_normal(shape_b), requires_grad="b" in needs)
    return a, b


@exercise("Your turn 1: fix the matmul backward")
def your_turn_1(MatMul) -> None:
    """``MatMul.apply(a, b)`` computes ``a @ b`` and passes ``gradcheck`` for square and
    non-square float64 matrices, for each input alone and for both together."""
    expect(_is_function_class(MatMul), f"{MatMul!r} is not a class derived from torch.autograd.Function",
           "pass the class itself: check.your_turn_1(MatMul)")
    for shape_a, shape_b in _MATMUL_SHAPES:
        a, b = _matmul_inputs(shape_a, shape_b, "")
        out = MatMul.apply(a, b)
        expect(isinstance(out, Tensor) and np.allclose(_values(out), np.asarray(a._data) @ b._data),
               f"forward does not compute a @ b for a {list(shape_a)} and b {list(shape_b)}",
               "keep the forward of the starter: a.mm(b)")
        sizes = f"a {list(shape_a)} @ b {list(shape_b)}"
        for name in ("a", "b"):
            inputs = _matmul_inputs(shape_a, shape_b, name)
            try:
                passed = gradcheck(MatMul.apply, inputs, raise_exception=False)
            except RuntimeError as error:
                expect(False, f"with {sizes} and only {name} requiring grad, backward failed: {error}",
                       _GRAD_FORMULAS[name])
            expect(passed, f"gradcheck finds grad_{name} wrong for {sizes}: backward's Jacobian differs from "
                   "the central differences", _GRAD_FORMULAS[name])
    a, b = _matmul_inputs(*_MATMUL_SHAPES[1], "ab")
    expect(gradcheck(MatMul.apply, (a, b), raise_exception=False),
           "each gradient passes alone, but gradcheck fails with both a and b requiring grad",
           "return grad_a, grad_b in the order of forward's arguments")


_POSITION_SHAPES = [(4, 4), (2, 3), (3, 5), (5, 2)]


def _positions(flat_positions, indices, shape) -> list:
    result = flat_positions(indices, shape)
    if isinstance(result, Tensor):
        result = result.detach()._data
    try:
        return np.asarray(result).astype(np.int64).tolist()
    except (TypeError, ValueError):
        expect(False, f"flat_positions returned {type(result).__name__}, not numbers",
               "return one whole number per stored entry, e.g. indices[0] * columns + indices[1]")


class _SpmmAtPositions(Function):
    """A @ b for A = sparse (indices, values, shape); backward gathers grad(A) at the positions."""

    positions = None   # the learner's function, set by the checker

    @staticmethod
    def forward(ctx, indices, values, shape, b):
        a = torch.sparse_coo_tensor(indices, values, shape).to_dense()
        ctx.save_for_backward(a, b)
        ctx.indices, ctx.shape = indices, shape
        return a.mm(b)

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        flat = Tensor._make(np.asarray(_positions(_SpmmAtPositions.positions, ctx.indices, ctx.shape)))
        return None, grad_output.mm(b.t()).reshape(-1)[flat], None, a.t().mm(grad_output)


@exercise("Your turn 2: pyGAT's edge_idx on a rectangular matrix")
def your_turn_2(flat_positions) -> None:
    """``flat_positions(indices, shape)``: the row-major position ``row * shape[1] + col`` of each stored
    entry, right for square and rectangular shapes; gradcheck passes with a 2 x 3 matrix."""
    expect(callable(flat_positions), f"{flat_positions!r} is not a function",
           "pass the function itself: check.your_turn_2(flat_positions)")
    rng = np.random.default_rng(11)
    for rows, cols in _POSITION_SHAPES:
        entries = rng.permutation(rows * cols)[:max(3, rows * cols // 2)]
        indices = torch.tensor(np.stack([entries // cols, entries % cols]).astype(np.int64))
        got = _positions(flat_positions, indices, torch.Size([rows, cols]))
        want = entries.tolist()
        if got == want:
            continue
        k = next(i for i, (g, w) in enumerate(zip(got, want)) if g != w) if len(got) == len(want) else 0
        row, col = int(want[k] // cols), int(want[k] % cols)
        square_hint = (rows != cols and got == (entries // cols * rows + entries % cols).tolist())
        expect(not square_hint,
               f"right for square shapes, wrong for ({rows}, {cols}): entry ({row}, {col}) is number {want[k]} "
               f"of the flattened matrix, you gave {got[k]}. shape[0] counts the rows, while a flattened "
               f"row holds shape[1] = {cols} entries",
               "how many entries does one flattened row hold: shape[0] or shape[1]?")
        expect(len(got) == len(want), f"for shape ({rows}, {cols}) and {len(want)} entries you returned "
               f"{len(got)} positions", "one position per column of indices")
        expect(False, f"for shape ({rows}, {cols}), entry ({row}, {col}) is number {want[k]} of the flattened "
               f"matrix; you gave {got[k]}", "row by row: row * (number of columns) + col")
    _SpmmAtPositions.positions = flat_positions
    indices = torch.tensor([[0, 0, 1, 1], [0, 2, 0, 1]])
    values = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64, requires_grad=True)
    b = torch.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    expect(gradcheck(lambda v, m: _SpmmAtPositions.apply(indices, v, torch.Size([2, 3]), m), (values, b),
                     raise_exception=False),
           "gradcheck fails for a sparse product whose backward gathers at your positions (A is 2 x 3)",
           "row * shape[1] + col")


def _is_static(cls, name: str) -> bool:
    return isinstance(inspect.getattr_static(cls, name, None), staticmethod)


@exercise("Your turn 3: spot the bugs in CustomFunction")
def your_turn_3(CustomFunction) -> None:
    """``CustomFunction.apply(x)`` returns ``2 * x`` with static ``forward`` and ``backward``; backward
    returns ``2 * grad_output`` and reads from ``ctx.saved_tensors`` only what forward saved."""
    expect(_is_function_class(CustomFunction),
           f"{CustomFunction!r} is not a class derived from torch.autograd.Function",
           "pass the class itself: check.your_turn_3(CustomFunction)")
    for name in ("forward", "backward"):
        expect(_is_static(CustomFunction, name),
               f"{name} is a plain function in the class body, not a static method: it works through apply, "
               "but on an instance Python would pass the instance itself as ctx",
               f"put @staticmethod on the line above def {name}")
    x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
    y = CustomFunction.apply(x)
    expect(_values(x) == [1.0, -2.0, 0.5],
           f"CustomFunction.apply(x) changed the caller's x in place: x was [1, -2, 0.5] and is now {_values(x)}",
           "forward returns a new tensor, input * 2, and leaves its input as it was: no in-place method "
           "such as mul_")
    expect(isinstance(y, Tensor) and _values(y) == [2.0, -4.0, 1.0],
           f"CustomFunction.apply([1, -2, 0.5]) gave {y!r}, expected 2 * input",
           "forward returns input * 2")
    node_name = CustomFunction._backward_cls.__name__
    expect(type(y.grad_fn) is CustomFunction._backward_cls,
           f"the output's grad_fn is {y.grad_fn!r}, not a {node_name} node",
           "return a new tensor from forward (input * 2), computed from the input")
    upstream = torch.tensor([1.0, 10.0, 100.0])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y.backward(upstream)
    except ValueError as error:
        expect(False, "backward unpacks ctx.saved_tensors, which does not hold what it expects: "
               f"ValueError: {error}",
               "either save in forward what backward reads (ctx.save_for_backward(input)), or, since the "
               "gradient of 2 * input does not need input, stop reading ctx.saved_tensors")
    expect(x.grad is not None, "after backward x.grad is None: backward returned no gradient",
           "return grad_output * 2")
    expected = [2.0 * g for g in _values(upstream)]
    expect(_values(x.grad) == expected,
           f"with an incoming gradient [1, 10, 100], x.grad is {_values(x.grad)}, expected 2 * grad = {expected}",
           "the derivative of 2 * input is 2, times grad_output (the chain rule)")
