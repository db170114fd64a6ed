"""The checkers of notebook 06, needs_input_grad and friends (``minigrad/exercises/nb06.py``): right answers
written several ways, and the wrong answers students write, each with the verdict it must give
in English and in Chinese."""
from __future__ import annotations

import numpy as np

import minigrad as torch
from minigrad.autograd.function import FunctionCtx
from minigrad.exercises import nb06, nb08

from exercise_helpers import (F, Function, TransposedMatMulIgnoringGradOutput, dirty_but_returns_a_copy, function, run,
                              verdict_tests)


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


FROZEN = "with a frozen weight (needs_input_grad == (True, False))"


DATA = "with data that needs no gradient (needs_input_grad == (False, True))"


# (checker, answer, what the problem line says, from its start); None: accepted. CASES, at the
# end, gathers them.
TURN_1 = [(nb06.your_turn_1, answer, problem and f"What is wrong: {problem}") for answer, problem in [
    (GuardedLinear, None), (MatmulOperatorLinear, None), (NumpyGuardedLinear, None), (BroadcastGuardedLinear, None),
    (UnpacksToNumpyFirst, None),
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
]]


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


TURN_2 = [(nb06.your_turn_2, answer, problem and f"What is wrong: {problem}") for answer, problem in [
    (IndexAddSort, None), (SetItemSort, None), (SeparateStyleSort, None),
    (StubSort, "forward never passed the returned indices to ctx.mark_non_differentiable"),
    (MarkedSort, "after backward x.grad is None: backward returned no gradient for x"),
    (GatherInsteadOfScatter, "for the loss sum(values * [1, 10, 100, 1000, 10000]), x.grad is "
                             "[10.0, 1000.0, 1.0, 10000.0, 100.0], expected [100.0, 1.0, 10000.0, 10.0, 1000.0]"),
    (MarksBoth, "the values are marked non-differentiable"),
    (ValuesOnly, "MySort.apply(x) returned Tensor, not a pair (values, indices)"),
    (Descending, "values are [2.5, 1.1, 0.3, 0.0, -1.2], not sorted ascending"),
]]


def test_nb06_your_turn_2_is_not_fooled_by_the_builtin_sorts_own_mark(capsys):
    # x.sort() inside forward marks its indices on SortBackward0's ctx: that must not count.
    marked_by_builtin = []
    with nb06._recording_marks(StubSort) as marked:
        torch.tensor([2.0, 1.0], requires_grad=True).sort()
        marked_by_builtin.extend(marked)
    assert marked_by_builtin == []
    assert FunctionCtx.mark_non_differentiable.__qualname__ == "FunctionCtx.mark_non_differentiable"


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


TURN_3 = [(nb06.your_turn_3, answer, problem) for answer, problem in [
    (add_one(), None),
    (add_one(mark=False), "apply returned a new tensor object, not h: without ctx.mark_dirty(x)"),
    (add_one(return_copy=True), "Some elements marked as dirty during the forward method were not returned"),
    (add_one(use_grad=False), "a.grad is [1.0, 1.0, 1.0]: backward ignores grad_output"),
]]


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


TURN_4 = [(nb06.your_turn_4, answer, problem) for answer, problem in [
    (two_scales(), None),
    (two_scales(materialize=True), "ctx.materialize_grads is still True"),
    (two_scales(handle_none=False), "backward computed with the None it received for the other output"),
    (two_scales(use_grad=False), "only the first output used, with an incoming gradient [1.0, 10.0, 100.0]"),
]]


# --------------------------------------------------------------------------- Your turn 4: more answers students write
def two_scales_function(backward, forward=None):
    def default_forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2, x * 3
    return function("TwoScales", forward or default_forward, backward)


def docs_style(ctx, grad_double, grad_triple):
    grad = torch.zeros(3)   # the PyTorch documentation's pattern: add the gradients that are there
    if grad_double is not None:
        grad += grad_double * 2
    if grad_triple is not None:
        grad += grad_triple * 3
    return grad


def copies_into_zeros(ctx, grad_double, grad_triple):
    grad = torch.zeros(3)
    if grad_double is not None:
        grad[:] = grad + grad_double * 2
    if grad_triple is not None:
        grad.index_add_(0, torch.tensor([0, 1, 2]), grad_triple * 3)
    return grad


def none_back_to_zeros(ctx, grad_double, grad_triple):
    if grad_double is None:
        grad_double = torch.zeros_like(grad_triple)
    if grad_triple is None:
        grad_triple = torch.zeros_like(grad_double)
    return grad_double * 2 + grad_triple * 3


def materialize_zero(ctx, x):
    ctx.set_materialize_grads(0)
    return x * 2, x * 3


def numbers_forward(ctx, x):
    ctx.set_materialize_grads(False)
    return 2.0, 3.0


def swapped_forward(ctx, x):   # the outputs in the wrong order: the backward above no longer fits
    ctx.set_materialize_grads(False)
    return x * 3, x * 2


def negated_forward(ctx, x):
    ctx.set_materialize_grads(False)
    return -(x * 2), x * 3


def added_forward(ctx, x):
    ctx.set_materialize_grads(False)
    return x + x, torch.mul(x, 3.0)


# --------------------------------------------------------------------------- Your turn 1: more answers students write
def linear_forward(ctx, input, weight):
    ctx.save_for_backward(input, weight)
    return input.mm(weight.t())


def needs_on_the_class_forward(ctx, input, weight):
    NeedsOnTheClass.needs = ctx.needs_input_grad
    return linear_forward(ctx, input, weight)


def needs_on_the_class_backward(ctx, grad_output):
    input, weight = ctx.saved_tensors
    needed = NeedsOnTheClass.needs
    return (grad_output.mm(weight) if needed[0] else None), (grad_output.t().mm(input) if needed[1] else None)


NeedsOnTheClass = function("MyLinear", needs_on_the_class_forward, needs_on_the_class_backward)


def through_python_lists(ctx, grad_output):
    input, weight = ctx.saved_tensors
    i, w, g = input.tolist(), weight.tolist(), grad_output.tolist()
    grad_input = [[sum(g[r][k] * w[k][c] for k in range(len(w))) for c in range(len(w[0]))] for r in range(len(g))]
    grad_weight = [[sum(g[r][k] * i[r][c] for r in range(len(g))) for c in range(len(i[0]))] for k in range(len(w))]
    return (torch.tensor(grad_input, dtype=torch.float64) if ctx.needs_input_grad[0] else None,
            torch.tensor(grad_weight, dtype=torch.float64) if ctx.needs_input_grad[1] else None)


# --------------------------------------------------------------------------- Your turn 2: more answers students write
def sort_backward(ctx, grad_values, grad_indices):
    indices, = ctx.saved_tensors
    return torch.zeros_like(grad_values).index_add_(0, indices.long(), grad_values)


def sorts_x_too(x, values, indices):
    x.copy_(values)
    return values, indices


def zeroes_x(x, values, indices):
    x.zero_()
    return values, indices


def sort_then(change):
    def forward(ctx, x):
        values, indices = x.sort()
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        values, indices = change(x, values, indices)
        return values, indices
    return function("MySort", forward, sort_backward)


def indices_on_the_class_forward(ctx, x):
    values, indices = x.sort()
    ctx.mark_non_differentiable(indices)
    IndicesOnTheClass.idx = indices
    return values, indices


IndicesOnTheClass = function("MySort", indices_on_the_class_forward,
                             lambda ctx, gv, gi: torch.zeros_like(gv).index_add_(0, IndicesOnTheClass.idx, gv))


def indices_on_the_input_forward(ctx, x):
    values, indices = x.sort()
    ctx.mark_non_differentiable(indices)
    x.sort_indices = indices
    ctx.x = x   # a plain attribute: no version check stops backward from reading the changed x
    return values, indices


def indices_on_the_input_backward(ctx, grad_values, grad_indices):
    return torch.zeros_like(grad_values).index_add_(0, ctx.x.sort_indices, grad_values)


def sort_recomputed_in_backward(ctx, x):
    values, indices = x.sort()
    ctx.mark_non_differentiable(indices)
    ctx.save_for_backward(x)
    return values, indices


def x_kept_plainly(ctx, x):
    values, indices = x.sort()
    ctx.mark_non_differentiable(indices)
    ctx.x = x   # no version check: backward sorts whatever x holds by then
    return values, indices


def backward_sorting_plain_x(ctx, grad_values, grad_indices):
    return torch.zeros_like(grad_values).index_add_(0, ctx.x.sort()[1], grad_values)


def backward_sorting_again(ctx, grad_values, grad_indices):
    x, = ctx.saved_tensors
    return torch.zeros_like(grad_values).index_add_(0, x.sort()[1], grad_values)


def none_to(make_zero, combine):
    """A backward that turns a missing gradient into ``make_zero(present)`` and combines anyway."""
    def backward(ctx, grad_double, grad_triple):
        present = grad_double if grad_double is not None else grad_triple
        grad_double = make_zero(present) if grad_double is None else grad_double
        grad_triple = make_zero(present) if grad_triple is None else grad_triple
        return combine(grad_double, grad_triple)
    return backward


def numpy_terms(ctx, grad_double, grad_triple):
    a = np.zeros(3) if grad_double is None else grad_double.numpy()
    b = np.zeros(3) if grad_triple is None else grad_triple.numpy()
    return torch.tensor(a * 2 + b * 3).float()


def numpy_stacked(ctx, grad_double, grad_triple):
    a = np.zeros(3) if grad_double is None else grad_double.numpy()
    b = np.zeros(3) if grad_triple is None else grad_triple.numpy()
    return torch.tensor(np.array([a, b]).T @ np.array([2.0, 3.0])).float()


def numpy_accumulated(ctx, grad_double, grad_triple):
    grad = np.zeros(3)
    if grad_double is not None:
        grad += grad_double.numpy() * 2
    if grad_triple is not None:
        grad += grad_triple.numpy() * 3
    return torch.from_numpy(grad).float()


def python_sum(ctx, grad_double, grad_triple):
    return sum(g * k for g, k in ((grad_double, 2), (grad_triple, 3)) if g is not None)


def stack_of_the_present(ctx, grad_double, grad_triple):
    return torch.stack([g * k for g, k in ((grad_double, 2), (grad_triple, 3)) if g is not None]).sum(0)


def zeroed_empty(ctx, grad_double, grad_triple):
    grad = torch.empty(3).zero_()
    if grad_double is not None:
        grad.add_(grad_double * 2)
    if grad_triple is not None:
        grad.add_(grad_triple * 3)
    return grad


def materialize_attribute(value):
    def forward(ctx, x):
        ctx.materialize_grads = value
        return x * 2, x * 3
    return forward


def test_nb06_watching_zero_terms_leaves_numpy_and_apply_as_they_were():
    zeros, array, apply = np.zeros, np.array, F.__dict__["apply"]
    g = torch.tensor([1.0, 2.0, 3.0])
    data = g._data
    with nb06._watching_zero_terms([g]) as terms:
        (torch.zeros(3) * 3).sum()
    assert terms.terms == ["Mul", "Sum"]   # zeros in, zeros out: two terms computed from zeros
    assert np.zeros is zeros and np.array is array and F.__dict__["apply"] is apply and g._data is data
    assert type(np.zeros(3) * 3) is np.ndarray


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


IGNORING_GRAD_OUTPUT = [
    (nb06.your_turn_1, LinearIgnoringGradOutput, "with both input and weight requiring grad: input.grad has wrong values"),
    (nb06.your_turn_2, SortIgnoringGradOutput, "for the loss sum(values * [1, 10, 100, 1000, 10000]), x.grad is"),
    (nb08.your_turn_1, TransposedMatMulIgnoringGradOutput, "gradcheck finds grad_a wrong for a [3, 3], b [3, 3]"),
]


def detached_forward(ctx, input, weight):
    ctx.save_for_backward(input.detach(), weight.detach())
    return input.mm(weight.t())


def both_products_backward(ctx, grad_output):
    input, weight = ctx.saved_tensors
    grad_input, grad_weight = grad_output.mm(weight), grad_output.t().mm(input)
    return (grad_input if ctx.needs_input_grad[0] else None), (grad_weight if ctx.needs_input_grad[1] else None)


def skipping_backward(ctx, grad_output):
    input, weight = ctx.saved_tensors
    return (grad_output.mm(weight) if ctx.needs_input_grad[0] else None,
            grad_output.t().mm(input) if ctx.needs_input_grad[1] else None)


CASES = TURN_1 + TURN_2 + TURN_3 + TURN_4 + IGNORING_GRAD_OUTPUT + [
    (nb06.your_turn_1, function("MyLinear", lambda ctx, x, w: (ctx.save_for_backward(x, w), x.mm(w.t()))[1],
                                lambda ctx, g: (g.mm(ctx.saved_tensors[1].t()), g.t().mm(ctx.saved_tensors[0]))),
     "backward failed: mat1 and mat2 shapes cannot be multiplied"),
    (nb06.your_turn_4, two_scales_function(docs_style), None),
    (nb06.your_turn_4, two_scales_function(copies_into_zeros), None),
    (nb06.your_turn_4, two_scales_function(none_back_to_zeros), "backward turned the None it received into zeros"),
    (nb06.your_turn_4, two_scales_function(docs_style, materialize_zero), "forward called ctx.set_materialize_grads with something other than True or False: it takes a bool"),
    (nb06.your_turn_4, two_scales_function(docs_style, numbers_forward), "TwoScales.apply returned (float, float), not two tensors"),
    (nb06.your_turn_4, two_scales_function(docs_style, swapped_forward),
     "TwoScales.apply(x) returned [[3.0, -6.0, 1.5], [2.0, -4.0, 1.0]]; expected [[2.0, -4.0, 1.0], [3.0, -6.0, 1.5]]"),
    (nb06.your_turn_4, two_scales_function(docs_style, negated_forward), "TwoScales.apply(x) returned [[-2.0, 4.0, -1.0]"),
    (nb06.your_turn_4, two_scales_function(docs_style, added_forward), None),
    (nb06.your_turn_4, two_scales_function(none_to(lambda p: torch.zeros(1), lambda d, t: d * 2 + t * 3)),
     "backward turned the None it received into zeros and computed that output's term anyway"),
    (nb06.your_turn_4, two_scales_function(none_to(lambda p: torch.zeros(3), lambda d, t: (d + d) + (t + t + t))),
     "backward turned the None it received into zeros"),
    (nb06.your_turn_4, two_scales_function(none_to(lambda p: torch.zeros(3), lambda d, t: torch.stack([d, d, t, t, t]).sum(0))),
     "backward turned the None it received into zeros"),
    (nb06.your_turn_4, two_scales_function(none_to(lambda p: p * 0, lambda d, t: d * 2 + t * 3)),
     "backward turned the None it received into zeros"),
    (nb06.your_turn_4, two_scales_function(none_to(torch.zeros_like, lambda d, t: torch.add(d * 2, t, alpha=3))),
     "only the first output used: backward turned the None it received into zeros and computed that output's term"),
    (nb06.your_turn_4, two_scales_function(none_to(torch.zeros_like, lambda d, t: d * 2 + t + t + t)),
     "backward turned the None it received into zeros"),
    (nb06.your_turn_4, two_scales_function(numpy_terms), "backward turned the None it received into zeros"),
    (nb06.your_turn_4, two_scales_function(numpy_stacked), "backward turned the None it received into zeros"),
    (nb06.your_turn_4, two_scales_function(numpy_accumulated), None),
    (nb06.your_turn_4, two_scales_function(python_sum), None),
    (nb06.your_turn_4, two_scales_function(stack_of_the_present), None),
    (nb06.your_turn_4, two_scales_function(zeroed_empty), None),
    (nb06.your_turn_2, sort_then(sorts_x_too),
     "MySort.apply(x) changed the caller's x in place"),
    (nb06.your_turn_2, sort_then(zeroes_x),
     "MySort.apply(x) changed the caller's x in place"),
    (nb06.your_turn_2, sort_then(lambda x, v, i: (v, i.double())), "the indices have dtype torch.float64"),
    (nb06.your_turn_1, NeedsOnTheClass, "for the call with needs_input_grad == (True, False), backward returned None"),
    (nb06.your_turn_1, function("MyLinear", linear_forward, through_python_lists),
     "backward returned None for weight, but still computed with input"),
    (nb06.your_turn_2, IndicesOnTheClass, "backward used the indices of another call"),
    (nb06.your_turn_2, function("MySort", indices_on_the_input_forward, indices_on_the_input_backward),
     "backward did not use the indices of the first sort"),
    (nb06.your_turn_2, function("MySort", sort_recomputed_in_backward, backward_sorting_again), None),
    (nb06.your_turn_2, function("MySort", x_kept_plainly, backward_sorting_plain_x),
     "backward did not use the indices of the first sort"),
    (nb06.your_turn_4, two_scales_function(python_sum, materialize_attribute(0)), "ctx.materialize_grads is 0, not False"),
    (nb06.your_turn_4, two_scales_function(python_sum, materialize_attribute(False)), None),
    (nb06.your_turn_2, sort_then(lambda x, v, i: (i, v)), "MySort.apply(x) returned the pair in the wrong order"),
    (nb06.your_turn_3, function("AddOne_", dirty_but_returns_a_copy, lambda ctx, g: g),
     "AddOne_.apply(h) failed: RuntimeError: Some elements marked as dirty"),
    # detached inputs saved, and both products computed
    (nb06.your_turn_1, function("MyLinear", detached_forward, both_products_backward),
     "backward returned None for weight, but still computed with input"),
    (nb06.your_turn_1, function("MyLinear", detached_forward, skipping_backward), None),
]

test_each_answer_gets_the_right_verdict, test_the_chinese_verdict_is_the_same_and_wholly_chinese = verdict_tests(CASES)
