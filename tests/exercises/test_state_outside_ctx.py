"""Per-call state kept outside ctx, in a module-level list with only its index on ctx: every
checker of a Function that saves something refuses it (04, 06, 08; 02 has its own test), and the
right answers, which keep it on ctx, are still accepted."""
from __future__ import annotations

import pytest

import minigrad as torch
from minigrad.exercises import _feedback, nb04, nb06, nb08

from exercise_helpers import TransposedMatMulStarter, run
from test_nb04 import scale_shift
from test_nb06 import GuardedLinear, IndexAddSort, MarkedSort, NaiveLinear
from test_nb08 import TransposedMatMulFixed

RECORDS = []


def setup_context_with_an_index(ctx, inputs, output):
    tensor, scale, shift = inputs
    RECORDS.append(scale)
    ctx.scale_index = len(RECORDS) - 1


ScaleShiftIndexed = type("ScaleShift", (torch.autograd.Function,), {
    "forward": staticmethod(lambda tensor, scale=2.0, shift=0.0: tensor * scale + shift),
    "setup_context": staticmethod(setup_context_with_an_index),
    "backward": staticmethod(lambda ctx, grad_output: (grad_output * RECORDS[ctx.scale_index], None, None))})


class LinearIndexed(NaiveLinear):
    @staticmethod
    def forward(ctx, input, weight):
        RECORDS.append((input, weight))
        ctx.saved_index = len(RECORDS) - 1
        return input.mm(weight.t())

    @staticmethod
    def backward(ctx, grad_output):
        input, weight = RECORDS[ctx.saved_index]
        grad_input = grad_output.mm(weight) if ctx.needs_input_grad[0] else None
        return grad_input, grad_output.t().mm(input) if ctx.needs_input_grad[1] else None


class SortIndexed(MarkedSort):
    @staticmethod
    def forward(ctx, x):
        values, indices = x.sort()
        ctx.mark_non_differentiable(indices)
        RECORDS.append(indices)
        ctx.saved_index = len(RECORDS) - 1
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        grad_x = torch.zeros_like(grad_values)
        return grad_x.index_add_(0, RECORDS[ctx.saved_index], grad_values)


class TransposedMatMulIndexed(TransposedMatMulStarter):
    @staticmethod
    def forward(ctx, a, b):
        RECORDS.append((a, b))
        ctx.saved_index = len(RECORDS) - 1
        return a.t().mm(b)

    @staticmethod
    def backward(ctx, grad_output):
        a, b = RECORDS[ctx.saved_index]
        return b.mm(grad_output.t()), a.mm(grad_output)


KEPT = ("with the output dropped, {what} is still alive: something outside ctx keeps a reference to it",
        "仍然存活：ctx 之外有东西引用着它")
CASES = [
    (nb04.your_turn_3, ScaleShiftIndexed, scale_shift(),
     ("after ScaleShift.apply(x, 3.75), its ctx does not hold the scale 3.75 (it holds ctx.scale_index=",
      "ScaleShift.apply(x, 3.75) 之后，它的 ctx 里没有 scale 3.75")),
    (nb06.your_turn_1, LinearIndexed, GuardedLinear, (KEPT[0].format(what="input"), KEPT[1])),
    (nb06.your_turn_2, SortIndexed, IndexAddSort, (KEPT[0].format(what="indices"), KEPT[1])),
    (nb08.your_turn_1, TransposedMatMulIndexed, TransposedMatMulFixed, (KEPT[0].format(what="a"), KEPT[1])),
]


@pytest.mark.parametrize("language", [0, 1])
@pytest.mark.parametrize("checker, wrong, right, problems", CASES, ids=[c[0].__module__[-4:] for c in CASES])
def test_state_in_a_module_list_is_refused_and_state_on_ctx_accepted(checker, wrong, right, problems, language,
                                                                     capsys):
    _feedback.set_language(("en", "zh")[language])
    try:
        refused, out = run(checker, wrong, capsys)
        accepted, right_out = run(checker, right, capsys)
    finally:
        _feedback.set_language("en")
        RECORDS.clear()
    assert not refused and problems[language] in out, out
    assert accepted, right_out
