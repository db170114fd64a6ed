"""The checkers of notebooks 06 (needs_input_grad and friends) and 08 (gradcheck) accept the worked
solutions and say what is wrong with typical wrong answers.

Each wrong answer below is a mistake a learner is likely to make; the test pins the first line of
feedback it gets. The checkers patch Tensor methods and FunctionCtx while they run: the tests also
check that everything is restored, even when the learner's code raises.
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad as torch
from minigrad.autograd.function import FunctionCtx
from minigrad.exercises import nb06, nb08
from minigrad.tensor import Tensor

Function = torch.autograd.Function


def run(checker, answer, capsys):
    result = checker(answer)
    return result, capsys.readouterr().out


# =========================================================================== notebook 06, Your turn 1
class NaiveLinear(Function):
    """The notebook's starter: both gradients, always."""

    @staticmethod
    def forward(ctx, input, weight):
        ctx.save_for_backward(input, weight)
        return input.mm(weight.t())

    @staticmethod
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        return grad_output.mm(weight), grad_output.t().mm(input)


class GuardedLinear(NaiveLinear):
    """The worked solution."""

    @staticmethod
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        grad_input = grad_weight = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        return grad_input, grad_weight


class MatmulOperatorLinear(NaiveLinear):
    """Also right, written with the @ operator."""

    @staticmethod
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        needs_input, needs_weight = ctx.needs_input_grad
        return (grad_output @ weight if needs_input else None,
                grad_output.t() @ input if needs_weight else None)


class WeightOnlyGuarded(NaiveLinear):
    """Skips the weight gradient but still always computes the input gradient."""

    @staticmethod
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        grad_weight = grad_output.t().mm(input) if ctx.needs_input_grad[1] else None
        return grad_output.mm(weight), grad_weight


class SwappedGuards(NaiveLinear):
    """Tests needs_input_grad[1] for the input's gradient and [0] for the weight's."""

    @staticmethod
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        grad_input = grad_output.mm(weight) if ctx.needs_input_grad[1] else None
        grad_weight = grad_output.t().mm(input) if ctx.needs_input_grad[0] else None
        return grad_input, grad_weight


class NeverWeight(NaiveLinear):
    """Skips the weight gradient always."""

    @staticmethod
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        return grad_output.mm(weight), None


class WrongWeightGradient(GuardedLinear):
    @staticmethod
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        return grad_output.mm(weight), input.t().mm(grad_output).t() * 2


class RaisingLinear(NaiveLinear):
    @staticmethod
    def backward(ctx, grad_output):
        raise ValueError("boom")


class NumpyGuardedLinear(NaiveLinear):
    """Right, written with numpy: judged by what it returns and computes, not by its spelling."""

    @staticmethod
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        g = grad_output.numpy()
        grad_input = torch.tensor(g @ weight.numpy()) if ctx.needs_input_grad[0] else None
        grad_weight = torch.tensor(np.einsum("ni,nj->ij", g, input.numpy())) if ctx.needs_input_grad[1] else None
        return grad_input, grad_weight


class BroadcastGuardedLinear(NaiveLinear):
    """Right, written as broadcast-and-sum: no matrix multiply at all."""

    @staticmethod
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        grad_input = (grad_output[:, :, None] * weight[None]).sum(1) if ctx.needs_input_grad[0] else None
        grad_weight = (grad_output[:, :, None] * input[:, None, :]).sum(0) if ctx.needs_input_grad[1] else None
        return grad_input, grad_weight


class UnpacksToNumpyFirst(NaiveLinear):
    """Right: converting every saved tensor up front is not computing with it."""

    @staticmethod
    def backward(ctx, grad_output):
        input, weight = (t.numpy() for t in ctx.saved_tensors)
        grad_input = torch.from_numpy(grad_output.numpy() @ weight) if ctx.needs_input_grad[0] else None
        grad_weight = torch.from_numpy(grad_output.numpy().T @ input) if ctx.needs_input_grad[1] else None
        return grad_input, grad_weight


class ZerosInsteadOfNone(NaiveLinear):
    """Returns zeros where None is asked."""

    @staticmethod
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        grad_input = grad_output.mm(weight) if ctx.needs_input_grad[0] else torch.zeros_like(input)
        grad_weight = grad_output.t().mm(input) if ctx.needs_input_grad[1] else torch.zeros_like(weight)
        return grad_input, grad_weight


class ComputesThenDrops(NaiveLinear):
    """Returns None where asked, but computes both gradients first."""

    @staticmethod
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        grad_input, grad_weight = grad_output.mm(weight), grad_output.t().mm(input)
        return (grad_input if ctx.needs_input_grad[0] else None), (grad_weight if ctx.needs_input_grad[1] else None)


class NumpyComputesThenDrops(NaiveLinear):
    @staticmethod
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        g = grad_output.numpy()
        grad_input, grad_weight = g @ weight.numpy(), np.dot(g.T, input.numpy())
        return (torch.tensor(grad_input) if ctx.needs_input_grad[0] else None,
                torch.tensor(grad_weight) if ctx.needs_input_grad[1] else None)


class BroadcastComputesThenDrops(NaiveLinear):
    @staticmethod
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        grad_input = (grad_output[:, :, None] * weight[None]).sum(1)
        grad_weight = (grad_output[:, :, None] * input[:, None, :]).sum(0)
        return (grad_input if ctx.needs_input_grad[0] else None), (grad_weight if ctx.needs_input_grad[1] else None)


class ZeroNumberForUnneeded(NaiveLinear):
    @staticmethod
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        return (grad_output.mm(weight) if ctx.needs_input_grad[0] else 0,
                grad_output.t().mm(input) if ctx.needs_input_grad[1] else 0)


@pytest.mark.parametrize("answer", [GuardedLinear, MatmulOperatorLinear, NumpyGuardedLinear, BroadcastGuardedLinear,
                                    UnpacksToNumpyFirst])
def test_nb06_your_turn_1_accepts_guarded_backwards_however_written(answer, capsys):
    result, out = run(nb06.your_turn_1, answer, capsys)
    assert result, out
    assert out == "✓ Your turn 1: skip the gradients nobody needs — correct.\n"


FROZEN = "with a frozen weight (needs_input_grad == (True, False))"
DATA = "with data that needs no gradient (needs_input_grad == (False, True))"


@pytest.mark.parametrize("answer, problem", [
    (NaiveLinear, f"{FROZEN}, backward returned a Tensor for weight, whose gradient nobody needs"),
    (WeightOnlyGuarded, f"{DATA}, backward returned a Tensor for input, whose gradient nobody needs"),
    (ZerosInsteadOfNone, f"{FROZEN}, backward returned zeros for weight, whose gradient nobody needs"),
    (ZeroNumberForUnneeded, "backward returned 0 for weight: a gradient is a tensor, or None when nobody needs it"),
    (ComputesThenDrops, f"{FROZEN}, backward returned None for weight, but still computed with input"),
    (NumpyComputesThenDrops, f"{FROZEN}, backward returned None for weight, but still computed with input"),
    (BroadcastComputesThenDrops, f"{FROZEN}, backward returned None for weight, but still computed with input"),
    (SwappedGuards, f"{FROZEN}: backward returned None for input, whose gradient is needed"),
    (NeverWeight, "with both input and weight requiring grad: backward returned None for weight, whose gradient "
                  "is needed"),
    (WrongWeightGradient, "with both input and weight requiring grad: weight.grad has wrong values"),
    (3, "3 is not a class derived from torch.autograd.Function"),
])
def test_nb06_your_turn_1_says_what_is_wrong(answer, problem, capsys):
    result, out = run(nb06.your_turn_1, answer, capsys)
    assert not result
    assert out.startswith("✗ Your turn 1: skip the gradients nobody needs — not yet.\n")
    assert f"What is wrong: {problem}" in out
    assert "Hint: " in out


def test_nb06_your_turn_1_reports_an_error_and_leaves_the_saved_tensors_as_they_were(capsys):
    result, out = run(nb06.your_turn_1, RaisingLinear, capsys)
    assert not result
    assert "your code raised an error" in out and "ValueError: boom" in out
    x = torch.ones(2, 2, requires_grad=True)
    with nb06._watching(x):
        assert type(x._data) is nb06._Watched
    assert type(x._data) is np.ndarray


def test_nb06_watching_sees_computations_in_every_spelling_but_not_views_or_shapes():
    def used(compute) -> bool:
        x = torch.tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3))
        with nb06._watching(x):
            compute(x)
            return nb06._Watched.used
    g = np.ones((4, 2), dtype=np.float32)
    for compute in (lambda x: torch.ones(4, 2).mm(x), lambda x: torch.ones(4, 2) @ x, lambda x: x * 2,
                    lambda x: (x[None] * torch.ones(4, 1, 1)).sum(0), lambda x: g @ x.numpy(),
                    lambda x: g.dot(x.numpy()), lambda x: np.dot(g, x.numpy()), lambda x: x.numpy().sum(),
                    lambda x: np.einsum("ij,jk->ik", g, x.numpy())):
        assert used(compute)
    for compute in (lambda x: x.shape, lambda x: x.t(), lambda x: x.numpy(), lambda x: x.numpy().T,
                    lambda x: torch.zeros_like(x), lambda x: x[0]):
        assert not used(compute)


# =========================================================================== notebook 06, Your turn 2
class StubSort(Function):
    """The notebook's starter: no mark, backward not written."""

    @staticmethod
    def forward(ctx, x):
        values, indices = x.sort()
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        ...


class MarkedSort(StubSort):
    @staticmethod
    def forward(ctx, x):
        values, indices = x.sort()
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices


class IndexAddSort(MarkedSort):
    """The worked solution."""

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        indices, = ctx.saved_tensors
        grad_x = torch.zeros_like(grad_values)
        grad_x.index_add_(0, indices, grad_values)
        return grad_x


class SetItemSort(MarkedSort):
    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        indices, = ctx.saved_tensors
        grad_x = torch.zeros_like(grad_values)
        grad_x[indices] = grad_values
        return grad_x


class SeparateStyleSort(Function):
    @staticmethod
    def forward(x):
        return x.sort()

    @staticmethod
    def setup_context(ctx, inputs, output):
        values, indices = output
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        indices, = ctx.saved_tensors
        grad_x = torch.zeros_like(grad_values)
        grad_x.index_add_(0, indices, grad_values)
        return grad_x


class GatherInsteadOfScatter(MarkedSort):
    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        indices, = ctx.saved_tensors
        return grad_values[indices]


class MarksBoth(IndexAddSort):
    @staticmethod
    def forward(ctx, x):
        values, indices = x.sort()
        ctx.mark_non_differentiable(values, indices)
        ctx.save_for_backward(indices)
        return values, indices


class ValuesOnly(IndexAddSort):
    @staticmethod
    def forward(ctx, x):
        values, indices = x.sort()
        ctx.save_for_backward(indices)
        return values


class Descending(IndexAddSort):
    @staticmethod
    def forward(ctx, x):
        values, indices = x.sort(descending=True)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices


@pytest.mark.parametrize("answer", [IndexAddSort, SetItemSort, SeparateStyleSort])
def test_nb06_your_turn_2_accepts_right_sorts(answer, capsys):
    result, out = run(nb06.your_turn_2, answer, capsys)
    assert result
    assert out == "✓ Your turn 2: a sort that marks its indices — correct.\n"


@pytest.mark.parametrize("answer, problem", [
    (StubSort, "forward never passed the returned indices to ctx.mark_non_differentiable"),
    (MarkedSort, "after backward x.grad is None: backward returned no gradient for x"),
    (GatherInsteadOfScatter, "for the loss sum(values * [1, 10, 100, 1000, 10000]), x.grad is "
                             "[10.0, 1000.0, 1.0, 10000.0, 100.0], expected [100.0, 1.0, 10000.0, 10.0, 1000.0]"),
    (MarksBoth, "the values are marked non-differentiable"),
    (ValuesOnly, "MySort.apply(x) returned Tensor, not a pair (values, indices)"),
    (Descending, "values are [2.5, 1.1, 0.3, 0.0, -1.2], not sorted ascending"),
])
def test_nb06_your_turn_2_says_what_is_wrong(answer, problem, capsys):
    result, out = run(nb06.your_turn_2, answer, capsys)
    assert not result
    assert out.startswith("✗ Your turn 2: a sort that marks its indices — not yet.\n")
    assert f"What is wrong: {problem}" in out


def test_nb06_your_turn_2_is_not_fooled_by_the_builtin_sorts_own_mark(capsys):
    # x.sort() inside forward marks its indices on SortBackward0's ctx: that must not count.
    marked_by_builtin = []
    with nb06._recording_marks(StubSort) as marked:
        torch.tensor([2.0, 1.0], requires_grad=True).sort()
        marked_by_builtin.extend(marked)
    assert marked_by_builtin == []
    assert FunctionCtx.mark_non_differentiable.__qualname__ == "FunctionCtx.mark_non_differentiable"


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


class TransposedMatMulStarter(Function):
    """The notebook's starter: the matmul backward copied, wrong for a.t() @ b."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a.t().mm(b)

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


class TransposedMatMulIgnoringGradOutput(TransposedMatMulStarter):
    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        ones = torch.ones_like(grad_output)
        return b.mm(ones.t()), a.mm(ones)


class TransposedMatMulSwapped(TransposedMatMulStarter):
    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return a.mm(grad_output), b.mm(grad_output.t())


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


class TimesThree(NothingSaved):
    @staticmethod
    def forward(ctx, input):
        return input * 3


@pytest.mark.parametrize("answer", [NothingSaved, SavesInput])
def test_nb08_your_turn_3_accepts_both_fixes(answer, capsys):
    result, out = run(nb08.your_turn_3, answer, capsys)
    assert result
    assert out == "✓ Your turn 3: spot the bugs in CustomFunction — correct.\n"


@pytest.mark.parametrize("answer, problem", [
    (BlogCustomFunction, "forward is a plain function in the class body, not a static method"),
    (StaticForwardOnly, "backward is a plain function in the class body, not a static method"),
    (StaticButUnsaved, "backward unpacks ctx.saved_tensors, which does not hold what it expects: "
                       "ValueError: not enough values to unpack (expected 1, got 0)"),
    (SavesTwoReadsOne, "ValueError: too many values to unpack (expected 1)"),
    (IgnoresGradOutput, "with an incoming gradient [1, 10, 100], x.grad is [2.0, 2.0, 2.0], "
                        "expected 2 * grad = [2.0, 20.0, 200.0]"),
    (TimesThree, "CustomFunction.apply([1, -2, 0.5]) gave"),
    ("CustomFunction", "'CustomFunction' is not a class derived from torch.autograd.Function"),
])
def test_nb08_your_turn_3_says_what_is_wrong(answer, problem, capsys):
    result, out = run(nb08.your_turn_3, answer, capsys)
    assert not result
    assert out.startswith("✗ Your turn 3: spot the bugs in CustomFunction — not yet.\n")
    assert problem in out
    assert "Hint: " in out


def test_nb08_the_seed_function_fails_exactly_as_the_notebook_says():
    # The premise of the exercise: forward works through apply, backward fails on unpacking.
    x = torch.tensor([1.0], requires_grad=True)
    z = BlogCustomFunction.apply(x) * 3
    assert np.asarray(z.detach()._data).tolist() == [6.0]
    with pytest.raises(ValueError, match=r"not enough values to unpack \(expected 1, got 0\)"):
        z.backward()


# =========================================================================== notebook 06, Your turn 3
def add_one(mark=True, return_copy=False, use_grad=True):
    def forward(ctx, x):
        x.add_(1)
        if mark:
            ctx.mark_dirty(x)
        return x.clone() if return_copy else x

    def backward(ctx, grad_output):
        return grad_output if use_grad else torch.ones(3)

    return type("AddOne_", (torch.autograd.Function,),
                {"forward": staticmethod(forward), "backward": staticmethod(backward)})


def test_nb06_your_turn_3_accepts_mark_dirty(capsys):
    result, out = run(nb06.your_turn_3, add_one(), capsys)
    assert result, out


@pytest.mark.parametrize("answer, problem", [
    (add_one(mark=False), "apply returned a new tensor object, not h: without ctx.mark_dirty(x)"),
    (add_one(return_copy=True), "Some elements marked as dirty during the forward method were not returned"),
    (add_one(use_grad=False), "a.grad is [1.0, 1.0, 1.0]: backward ignores grad_output"),
])
def test_nb06_your_turn_3_says_what_is_wrong(answer, problem, capsys):
    result, out = run(nb06.your_turn_3, answer, capsys)
    assert not result
    assert problem in out, out


# =========================================================================== notebook 06, Your turn 4
def two_scales(materialize=False, handle_none=True, use_grad=True):
    def forward(ctx, x):
        ctx.set_materialize_grads(materialize)
        return x * 2, x * 3

    def backward(ctx, grad_double, grad_triple):
        if not use_grad:
            return torch.ones(3) * 5
        if not handle_none:
            return grad_double * 2 + grad_triple * 3
        terms = [g * k for g, k in ((grad_double, 2), (grad_triple, 3)) if g is not None]
        return sum(terms[1:], terms[0])

    return type("TwoScales", (torch.autograd.Function,),
                {"forward": staticmethod(forward), "backward": staticmethod(backward)})


def test_nb06_your_turn_4_accepts_none_handling(capsys):
    result, out = run(nb06.your_turn_4, two_scales(), capsys)
    assert result, out


@pytest.mark.parametrize("answer, problem", [
    (two_scales(materialize=True), "ctx.materialize_grads is still True"),
    (two_scales(handle_none=False), "backward computed with the None it received for the other output"),
    (two_scales(use_grad=False), "only the first output used, with an incoming gradient [1.0, 10.0, 100.0]"),
])
def test_nb06_your_turn_4_says_what_is_wrong(answer, problem, capsys):
    result, out = run(nb06.your_turn_4, answer, capsys)
    assert not result
    assert problem in out, out


# ====================================== every checker of a backward rejects one that ignores grad_output
class LinearIgnoringGradOutput(NaiveLinear):
    @staticmethod
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        ones = torch.ones_like(grad_output)
        return ones.mm(weight), ones.t().mm(input)


class SortIgnoringGradOutput(MarkedSort):
    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        indices, = ctx.saved_tensors
        return torch.zeros_like(grad_values).index_add_(0, indices, torch.ones_like(grad_values))


@pytest.mark.parametrize("checker, answer, problem", [
    (nb06.your_turn_1, LinearIgnoringGradOutput, "with both input and weight requiring grad: input.grad has wrong values"),
    (nb06.your_turn_2, SortIgnoringGradOutput, "for the loss sum(values * [1, 10, 100, 1000, 10000]), x.grad is"),
    (nb08.your_turn_1, TransposedMatMulIgnoringGradOutput, "gradcheck finds grad_a wrong for a [3, 3], b [3, 3]"),
])
def test_a_backward_that_ignores_grad_output_is_rejected(checker, answer, problem, capsys):
    result, out = run(checker, answer, capsys)
    assert not result
    assert problem in out, out


# =========================================================================== notebook 08: round 2 (issue 20)
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


@pytest.mark.parametrize("checker, answer, problem, hint", [
    (nb08.your_turn_1, TransposedMatMulOneGradient, "returned an incorrect number of gradients (expected 2, got 1)",
     "backward returns one gradient per input of forward, in order: return grad_a, grad_b"),
    (nb08.your_turn_1, "TransposedMatMul", "'TransposedMatMul' is not a class derived from torch.autograd.Function",
     "check.your_turn_1(TransposedMatMul)"),
    (nb08.your_turn_2, lambda indices, shape: (indices[1] * shape[0] + indices[0]).float(),
     "your function returned positions of dtype float32", "integer arithmetic only"),
    (nb08.your_turn_2, lambda indices, shape: [float(p) for p in (indices[1] * shape[0] + indices[0]).tolist()],
     "your function returned positions of dtype float64", "integer arithmetic only"),
    (nb08.your_turn_3, KeepsInputOnCtx, "forward keeps a tensor as a plain attribute, ctx.input",
     "either save it with ctx.save_for_backward(input), or keep nothing at all"),
    (nb08.your_turn_3, ClassMethods, "forward is a class method", "@staticmethod, not @classmethod"),
])
def test_nb08_round_two_wrong_answers_get_the_right_message(checker, answer, problem, hint, capsys):
    result, out = run(checker, answer, capsys)
    assert not result
    assert problem in out and hint in out, out


def test_nb08_your_turn_2_names_the_position_in_chinese_without_an_ordinal(capsys):
    """"第 5 个" read as the sixth entry counted from one; 07 says "编号是 5"."""
    from minigrad.exercises import set_language
    set_language("zh")
    try:
        result, out = run(nb08.your_turn_2, lambda indices, shape: indices[1] * shape[1] + indices[0], capsys)
    finally:
        set_language("en")
    assert "A 的元素 (1, 2) 在展平后的转置里编号是 5；你给出的是 7" in out and "第 5 个" not in out, out


@pytest.mark.parametrize("answer", [TransposedMatMulFixed, TransposedMatMulWithTransposes])
def test_nb08_transposed_matmul_accepts_right_backwards(answer, capsys):
    result, out = run(nb08.your_turn_1, answer, capsys)
    assert result, out
    assert out == "✓ Your turn 1: the backward of a.t() @ b — correct.\n"


@pytest.mark.parametrize("answer, problem", [
    (TransposedMatMulStarter, "gradcheck finds grad_a wrong for a [3, 3], b [3, 3]"),
    (TransposedMatMulRightOnlyForSquares, "gradcheck finds grad_a wrong for a [3, 3], b [3, 3]"),
    (TransposedMatMulIgnoringGradOutput, "gradcheck finds grad_a wrong for a [3, 3], b [3, 3]"),
    (TransposedMatMulSwapped, "gradcheck finds grad_a wrong for a [3, 3], b [3, 3]"),
    (MatMulFixed, "forward does not compute a.t() @ b for a [3, 3] and b [3, 3]"),
])
def test_nb08_transposed_matmul_rejects_wrong_backwards(answer, problem, capsys):
    result, out = run(nb08.your_turn_1, answer, capsys)
    assert not result and "Hint: " in out
    assert problem in out, out


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
def test_nb08_transposed_positions_accepts_column_major_positions(capsys):
    result, out = run(nb08.your_turn_2, lambda indices, shape: indices[1] * shape[0] + indices[0], capsys)
    assert result, out
    assert out == "✓ Your turn 2: positions in the transposed gradient — correct.\n"


@pytest.mark.parametrize("answer, problem", [
    (lambda indices, shape: indices[0] * shape[1] + indices[1],
     "for shape (4, 4) you gave the positions in the gradient flattened row by row, but backward flattens its transpose"),
    (lambda indices, shape: indices[1] * shape[1] + indices[0],
     "for shape (2, 3), entry (1, 2) of A is at position 5 of the flattened transpose; you gave 7"),
    (lambda indices, shape: (indices[1] * shape[0] + indices[0]).double(), "your function returned positions of dtype float64"),
    (lambda indices, shape: indices[1], "for shape (4, 4), entry"),
])
def test_nb08_transposed_positions_says_what_is_wrong(answer, problem, capsys):
    result, out = run(nb08.your_turn_2, answer, capsys)
    assert not result and "Hint: " in out
    assert problem in out, out
