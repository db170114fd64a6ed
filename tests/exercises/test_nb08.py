"""The checkers of notebook 08, gradcheck (``minigrad/exercises/nb08.py``): right answers
written several ways, and the wrong answers students write, each with the verdict it must give
in English and in Chinese."""
from __future__ import annotations

import numpy as np
import pytest

import minigrad as torch
from minigrad.exercises import nb08

from exercise_helpers import (Function, TransposedMatMulIgnoringGradOutput, TransposedMatMulStarter, function, run,
                              transposed, verdict_tests)


# =========================================================================== notebook 08, Your turn 1
class MatMulStarter(Function):
    """The notebook's starter: grad_b is transposed."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a.mm(b)

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return grad_output.mm(b.t()), grad_output.t().mm(a)


class MatMulFixed(MatMulStarter):
    """The worked solution."""

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return grad_output.mm(b.t()), a.t().mm(grad_output)


class TransposedMatMulFixed(TransposedMatMulStarter):
    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return b.mm(grad_output.t()), a.mm(grad_output)


class TransposedMatMulWithTransposes(TransposedMatMulStarter):
    """Right, written another way: the transpose of the matmul's grad_a."""

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return grad_output.mm(b.t()).t(), (grad_output.t().mm(a.t())).t()


class TransposedMatMulRightOnlyForSquares(TransposedMatMulStarter):
    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return b.t().mm(grad_output.t()) if a.shape[0] == a.shape[1] else b.mm(grad_output.t()), a.mm(grad_output)


class TransposedMatMulSwapped(TransposedMatMulStarter):
    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return a.mm(grad_output), b.mm(grad_output.t())


class TransposedMatMulSavingDetached(TransposedMatMulStarter):
    """Right first derivatives from a saved a.detach(): gradcheck passes, the second derivatives are cut."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a.detach(), b)
        return a.t().mm(b)

    backward = TransposedMatMulFixed.backward


class TransposedMatMulDetachingGradOutput(TransposedMatMulStarter):
    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return b.mm(grad_output.data.t()), a.mm(grad_output)


# =========================================================================== notebook 08, Your turn 2
class BlogCustomFunction(Function):
    """The blog post's code: no @staticmethod, backward reads a tensor forward never saved."""

    def forward(ctx, input):
        output = input * 2
        return output

    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output * 2
        return grad_input


class StaticButUnsaved(Function):
    @staticmethod
    def forward(ctx, input):
        return input * 2

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 2


class StaticForwardOnly(Function):
    @staticmethod
    def forward(ctx, input):
        return input * 2

    def backward(ctx, grad_output):
        return grad_output * 2


class NothingSaved(Function):
    """The worked solution."""

    @staticmethod
    def forward(ctx, input):
        return input * 2

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 2


class SavesInput(StaticButUnsaved):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input * 2


class SavesTwoReadsOne(StaticButUnsaved):
    @staticmethod
    def forward(ctx, input):
        output = input * 2
        ctx.save_for_backward(input, output)
        return output


class IgnoresGradOutput(SavesInput):
    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return torch.ones_like(input) * 2


class DetachesGradOutput(NothingSaved):
    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.detach() * 2


class TimesThree(NothingSaved):
    @staticmethod
    def forward(ctx, input):
        return input * 3


# (checker, answer, what the verdict says); None: accepted. CASES, at the end, gathers them.
TURN_3 = [(nb08.your_turn_3, answer, problem) for answer, problem in [
    (NothingSaved, None), (SavesInput, None),
    (BlogCustomFunction, "forward is a plain function in the class body, not a static method"),
    (StaticForwardOnly, "backward is a plain function in the class body, not a static method"),
    (StaticButUnsaved, "backward unpacks ctx.saved_tensors, which does not hold what it expects: "
                       "ValueError: not enough values to unpack (expected 1, got 0)"),
    (SavesTwoReadsOne, "ValueError: too many values to unpack (expected 1)"),
    (IgnoresGradOutput, "with an incoming gradient [1, 10, 100], x.grad is [2.0, 2.0, 2.0], "
                        "expected 2 * grad = [2.0, 20.0, 200.0]"),
    (TimesThree, "CustomFunction.apply([1, -2, 0.5]) gave"),
    (DetachesGradOutput, "gradgradcheck fails for CustomFunction.apply(input): backward computes its gradients from "
                         "tensors cut from the graph"),
    ("CustomFunction", "'CustomFunction' is not a class derived from torch.autograd.Function"),
]]


def test_nb08_the_seed_function_fails_exactly_as_the_notebook_says():
    # The premise of the exercise: forward works through apply, backward fails on unpacking.
    x = torch.tensor([1.0], requires_grad=True)
    z = BlogCustomFunction.apply(x) * 3
    assert np.asarray(z.detach()._data).tolist() == [6.0]
    with pytest.raises(ValueError, match=r"not enough values to unpack \(expected 1, got 0\)"):
        z.backward()


# =========================================================================== notebook 08: more answers students write
class TransposedMatMulOneGradient(TransposedMatMulStarter):
    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return b.mm(grad_output.t())


class ClassMethods(Function):
    @classmethod
    def forward(cls, ctx, input):
        return input * 2

    @classmethod
    def backward(cls, ctx, grad_output):
        return grad_output * 2


class KeepsInputOnCtx(NothingSaved):
    @staticmethod
    def forward(ctx, input):
        ctx.input = input
        return input * 2


# (checker, answer, (what is wrong, what the hint says))
PROBLEM_AND_HINT = [
    (nb08.your_turn_1, TransposedMatMulOneGradient, ("returned an incorrect number of gradients (expected 2, got 1)",
     "backward returns one gradient per input of forward, in order: return grad_a, grad_b")),
    (nb08.your_turn_1, "TransposedMatMul", ("'TransposedMatMul' is not a class derived from torch.autograd.Function",
     "check.your_turn_1(TransposedMatMul)")),
    (nb08.your_turn_2, lambda indices, shape: (indices[1] * shape[0] + indices[0]).float(),
     ("your function returned positions of dtype float32", "integer arithmetic only")),
    (nb08.your_turn_2, lambda indices, shape: [float(p) for p in (indices[1] * shape[0] + indices[0]).tolist()],
     ("your function returned positions of dtype float64", "integer arithmetic only")),
    (nb08.your_turn_3, KeepsInputOnCtx, ("forward keeps a tensor as a plain attribute, ctx.input",
     "either save it with ctx.save_for_backward(input), or keep nothing at all")),
    (nb08.your_turn_3, ClassMethods, ("forward is a class method", "@staticmethod, not @classmethod")),
]


def test_nb08_your_turn_2_names_the_position_in_chinese_without_an_ordinal(capsys):
    """"第 5 个" read as the sixth entry counted from one; 07 says "编号是 5"."""
    from minigrad.exercises import set_language
    set_language("zh")
    try:
        result, out = run(nb08.your_turn_2, lambda indices, shape: indices[1] * shape[1] + indices[0], capsys)
    finally:
        set_language("en")
    assert "A 的元素 (1, 2) 在展平后的转置里编号是 5；你给出的是 7" in out and "第 5 个" not in out, out


TURN_1 = [(nb08.your_turn_1, answer, problem) for answer, problem in [
    (TransposedMatMulFixed, None), (TransposedMatMulWithTransposes, None),
    (TransposedMatMulStarter, "gradcheck finds grad_a wrong for a [3, 3], b [3, 3]"),
    (TransposedMatMulRightOnlyForSquares, "gradcheck finds grad_a wrong for a [3, 3], b [3, 3]"),
    (TransposedMatMulIgnoringGradOutput, "gradcheck finds grad_a wrong for a [3, 3], b [3, 3]"),
    (TransposedMatMulSwapped, "the right gradients in the wrong order"),
    (MatMulFixed, "forward does not compute a.t() @ b for a [3, 3] and b [3, 3]"),
    (TransposedMatMulSavingDetached, "gradgradcheck fails for TransposedMatMulSavingDetached.apply(a, b): backward "
                                     "computes its gradients from tensors cut from the graph"),
    (TransposedMatMulDetachingGradOutput, "gradgradcheck fails for TransposedMatMulDetachingGradOutput.apply(a, b)"),
]]


def test_nb08_transposed_matmul_rejects_the_starter_on_non_square_inputs_too(capsys):
    """The starter fails for square inputs by its values; for (4, 2) and (4, 3) its shapes do not even fit."""
    class Square(TransposedMatMulStarter):
        pass
    nb08._TRANSPOSED_SHAPES, saved = nb08._TRANSPOSED_SHAPES[1:], nb08._TRANSPOSED_SHAPES
    try:
        result, out = run(nb08.your_turn_1, Square, capsys)
    finally:
        nb08._TRANSPOSED_SHAPES = saved
    assert not result and "with a [4, 2], b [4, 3] and only a requiring grad, backward failed" in out, out


# Your turn 2: positions in the flattened transpose b @ grad_output.t() (column by column).
TURN_2 = [(nb08.your_turn_2, answer, problem) for answer, problem in [
    (lambda indices, shape: indices[1] * shape[0] + indices[0], None),     # column by column
    (lambda indices, shape: indices[0] * shape[1] + indices[1],
     "for shape (4, 4) you gave the positions in the gradient flattened row by row, but backward flattens its transpose"),
    (lambda indices, shape: indices[1] * shape[1] + indices[0],
     "for shape (2, 3), entry (1, 2) of A is at position 5 of the flattened transpose; you gave 7"),
    (lambda indices, shape: (indices[1] * shape[0] + indices[0]).double(), "your function returned positions of dtype float64"),
    (lambda indices, shape: indices[1], "for shape (4, 4), entry"),
]]


# --------------------------------------------------------------------------- Your turn 3: more answers students write
def custom_function(forward):
    return function("CustomFunction", forward, lambda ctx, g: g * 2)


def zeroes_inputs_kept_on_ctx(ctx, a, b):
    a.zero_()
    b.zero_()
    ctx.a, ctx.b = a, b
    return a.t().mm(b)


def saved_on_the_class(ctx, a, b):
    SavedOnTheClass.saved = (a, b)
    return a.t().mm(b)


SavedOnTheClass = function("TransposedMatMul", saved_on_the_class,
                           lambda ctx, g: (SavedOnTheClass.saved[1].mm(g.t()), SavedOnTheClass.saved[0].mm(g)))


LAST_CALL: list = []


def last_call_forward(ctx, a, b):
    LAST_CALL[:] = [a, b]
    return a.t().mm(b)


def changes_saved_inputs_and_back(ctx, a, b):
    ctx.save_for_backward(a, b)
    a.mul_(2.0)   # the same numbers afterwards (exactly: a power of two), but a new version
    a.div_(2.0)
    return a.t().mm(b)


def positions_changing_indices(indices, shape):
    indices[1] *= shape[0]
    indices[1] += indices[0]
    return indices[1]


def keeps_input_in_a_list(ctx, input):
    ctx.keep = [input]
    return input * 2

def derived_by_the_engine(ctx, grad_output):
    a, b = ctx.saved_tensors
    with torch.enable_grad():
        a, b = a.detach().requires_grad_(), b.detach().requires_grad_()
        return torch.autograd.grad(a.t().mm(b), (a, b), grad_output)


def saving_forward(ctx, a, b):
    ctx.save_for_backward(a, b)
    return a.t().mm(b)


def float32_forward(ctx, a, b):
    ctx.save_for_backward(a, b)
    return a.t().mm(b).float()


# (checker, answer, what the problem line says); None: accepted.
CASES = TURN_1 + TURN_2 + TURN_3 + PROBLEM_AND_HINT + [
    (nb08.your_turn_3, custom_function(lambda ctx, input: input.mul_(2)), "CustomFunction.apply(x) changed the caller's x"),
    (nb08.your_turn_3, custom_function(lambda ctx, input: input + input), None),
    (nb08.your_turn_3, KeepsInputOnCtx, "forward keeps a tensor as a plain attribute, ctx.input"),
    (nb08.your_turn_1, TransposedMatMulOneGradient, "returned an incorrect number of gradients"),
    (nb08.your_turn_2, lambda indices, shape: (indices[1] * shape[0] + indices[0]).float(),
     "your function returned positions of dtype float32"),
    (nb08.your_turn_2, lambda indices, shape: indices[1] * shape[1] + indices[0], "of A is at position 5 of the flattened transpose"),
    (nb08.your_turn_1, TransposedMatMulStarter, "gradcheck finds grad_a wrong"),
    (nb08.your_turn_2, lambda indices, shape: indices[0] * shape[1] + indices[1],
     "you gave the positions in the gradient flattened row by row"),
    (nb08.your_turn_1, transposed(zeroes_inputs_kept_on_ctx, lambda ctx, g: (ctx.b.mm(g.t()), ctx.a.mm(g))),
     "TransposedMatMul.apply(a, b) changed the caller's a in place"),
    (nb08.your_turn_1, SavedOnTheClass, "then their backwards in the order second, third, first"),
    (nb08.your_turn_1, transposed(last_call_forward, lambda ctx, g: (LAST_CALL[1].mm(g.t()), LAST_CALL[0].mm(g))),
     "the gradients of call 1 are wrong"),
    # the misleading messages
    (nb08.your_turn_2, lambda indices, shape: indices[0] > 0, "your function returned a tensor of dtype torch.bool, not numbers"),
    (nb08.your_turn_2, positions_changing_indices, "your function changed indices in place"),
    (nb08.your_turn_1, transposed(changes_saved_inputs_and_back), "was changed in place after it was saved"),
    (nb08.your_turn_3, function("CustomFunction", keeps_input_in_a_list, lambda ctx, g: g * 2),
     "forward keeps a tensor as a plain attribute, ctx.keep[0]"),
    # backward by the engine, float32, swapped gradients
    (nb08.your_turn_1, transposed(saving_forward, derived_by_the_engine), "backward runs a backward pass of its own"),
    (nb08.your_turn_1, transposed(float32_forward), "forward returns a tensor of dtype torch.float32"),
    (nb08.your_turn_1, transposed(saving_forward, lambda ctx, g: (ctx.saved_tensors[1].mm(g.t()).float(),
                                                                  ctx.saved_tensors[0].mm(g))),
     "backward returns grad_a of dtype torch.float32"),
    (nb08.your_turn_1, TransposedMatMulSwapped, "the right gradients in the wrong order: grad_b first, then grad_a"),
]

test_each_answer_gets_the_right_verdict, test_the_chinese_verdict_is_the_same_and_wholly_chinese = verdict_tests(CASES)
