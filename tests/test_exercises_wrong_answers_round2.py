"""The wrong answers a second independent student found accepted (and the right ones refused), each
now given the right verdict in both languages: state kept outside ctx (on the class, in a module's
queue, on the input tensor), zeros where None is asked however they are written, a forward that
changes its input, working around the mechanism an exercise teaches (minigrad's own graph walk,
the real apply, a gradient written by hand, a pool of instances, N x N work on a numpy copy), a
correct answer written another way, and messages that named the wrong cause."""
from __future__ import annotations

import itertools
import types
from collections import deque

import numpy as np
import pytest

import minigrad as torch
from minigrad.exercises import _observe, nb02, nb03, nb04, nb05, nb06, nb07, nb08, nb09, nb10
from minigrad.sparse import spmm
from minigrad.viz import graph_walk
from test_exercises_nb03_05 import SquareSaved
from test_exercises_nb10 import MulA, VarA
from test_exercises_wrong_answers import (Ctx, assert_the_chinese_verdict, assert_the_verdict, case_id, function,  # noqa: F401
                                         given_second, my_apply, verdict)

F = torch.autograd.Function


# --------------------------------------------------------------------------- 02 Your turn 1
def engine_differentiates_forward(function_class, x, grad_output):
    """Calls backward and throws its result away; returns what the engine computed instead."""
    x = x.detach().requires_grad_(True)
    ctx = Ctx()
    with torch.enable_grad():
        out = function_class.forward(ctx, x)
    out.backward(grad_output)
    function_class.backward(ctx, grad_output)
    return x.grad


# --------------------------------------------------------------------------- 02 Your turn 2
def queued(keep_x_only: bool) -> type:
    """FixedPower keeping the calls that wait for their backward in a queue of the module (each
    class its own): backward takes the oldest, which is its own call only if backwards run in order."""
    pending: deque = deque()

    def forward(ctx, x, exponent):
        if keep_x_only:
            ctx.exponent = exponent   # the exponent on ctx, x in the queue
        if x.requires_grad:
            pending.append(x if keep_x_only else (x, exponent))
        return x ** exponent

    def backward(ctx, grad_output):
        x, exponent = (pending.popleft(), ctx.exponent) if keep_x_only else pending.popleft()
        return grad_output * exponent * x ** (exponent - 1), None

    return function("FixedPower", forward, backward)


KEYED_BY_CTX: dict = {}


def keyed_forward(ctx, x, exponent):
    KEYED_BY_CTX[id(ctx)] = (x, exponent)
    return x ** exponent


def keyed_backward(ctx, grad_output):
    x, exponent = KEYED_BY_CTX[id(ctx)]
    return grad_output * exponent * x ** (exponent - 1), None


# --------------------------------------------------------------------------- 03 Your turn 1
def names_from_the_private_walker(tensor):
    return [item.node.name() for item in graph_walk._Walker([tensor]).discover()]


def names_from_viz_walk(tensor):
    return [item.node.name() for item in graph_walk.walk([tensor]).nodes]


def names_from_the_engine_discovery(tensor):
    from minigrad.autograd.engine import _discover
    nodes = [tensor.grad_fn] + [n for n in _discover([(tensor.grad_fn, 0)]) if n is not tensor.grad_fn]
    return [node.name() for node in nodes]


# --------------------------------------------------------------------------- 04
def calls_the_real_apply(cls, *args):
    out = cls.apply(*args)
    ctx = out.grad_fn
    if ctx is None:
        return my_apply(cls, *args)
    return out.detach(), ctx


def needs(args):
    return tuple(isinstance(a, torch.Tensor) and a.requires_grad for a in args)


def detaches_the_output(cls, *args):
    ctx = cls._backward_cls()
    ctx.needs_input_grad = needs(args)
    return cls.forward(ctx, *args).detach(), ctx


def detaches_the_inputs(cls, *args):
    ctx = cls._backward_cls()
    ctx.needs_input_grad = needs(args)
    return cls.forward(ctx, *[a.detach() if isinstance(a, torch.Tensor) else a for a in args]), ctx


def keeps_all_inputs(ctx, inputs, output):
    ctx.inputs = inputs


def scale_shift_forward(tensor, scale=2.0, shift=0.0):
    return tensor * scale + shift


def scale_on_the_class(ctx, inputs, output):
    ScaleOnTheClass.scale = inputs[1]


ScaleOnTheClass = function("ScaleShift", scale_shift_forward,
                           lambda ctx, g: (g * ScaleOnTheClass.scale, None, None), scale_on_the_class)


def scale_on_the_saved_input(ctx, inputs, output):
    inputs[0].scale_ = inputs[1]
    ctx.save_for_backward(inputs[0])


def backward_from_the_saved_input(ctx, grad_output):
    x, = ctx.saved_tensors
    return grad_output * x.scale_, None, None


# --------------------------------------------------------------------------- 05
def cube_on_the_class(ctx, x):
    ctx.save_for_backward(x)
    CubeOnTheClass.x = x
    return x ** 3


def backward_from_the_class(ctx, grad_output):
    ctx.saved_tensors   # touched, and unused
    return 3 * CubeOnTheClass.x ** 2 * grad_output


CubeOnTheClass = function("Cube", cube_on_the_class, backward_from_the_class)


def cube_in_a_list(ctx, x):
    ctx.save_for_backward(x)
    ctx.keep = [x]
    return x ** 3


def two_passes_then_rescaled(x):
    y = SquareSaved.apply(x)
    y.sum().backward(retain_graph=True)
    x.grad = x.grad * 4
    (0 * y).sum().backward()
    return y


def four_passes(x):
    y = SquareSaved.apply(x)
    for _ in range(3):
        y.sum().backward(retain_graph=True)
    y.sum().backward()
    return y


def retains_both_then_frees(x):
    y = SquareSaved.apply(x)
    y.sum().backward(retain_graph=True)
    (3 * y).sum().backward(retain_graph=True)
    (0 * y).sum().backward()
    return y


def the_other_order(x):
    y = SquareSaved.apply(x)
    (3 * y).sum().backward(retain_graph=True)
    y.sum().backward()
    return y


# --------------------------------------------------------------------------- 06 Your turn 1
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


# --------------------------------------------------------------------------- 06 Your turn 2
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


# --------------------------------------------------------------------------- 06 Your turn 4
def two_scales(backward, forward=None):
    def default_forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2, x * 3
    return function("TwoScales", forward or default_forward, backward)


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


def dirty_but_returns_a_copy(ctx, x):
    x.add_(1)
    ctx.mark_dirty(x)
    return x.clone()


def materialize_attribute(value):
    def forward(ctx, x):
        ctx.materialize_grads = value
        return x * 2, x * 3
    return forward


# --------------------------------------------------------------------------- 07 Your turn 1
def numpy_row_blocks(copy):
    """(grad_output @ b.T) a block of rows at a time, in numpy, on a copy of the numbers."""
    def grad_values(indices, grad_output, b):
        g, other = copy(grad_output), copy(b).T
        rows, cols = indices.numpy()
        out = np.empty(rows.size)
        for start in range(0, g.shape[0], 256):
            block = g[start:start + 256] @ other
            here = (rows >= start) & (rows < start + 256)
            out[here] = block[rows[here] - start, cols[here]]
        return out
    return grad_values


def gathered_in_float64(indices, grad_output, b):
    rows, cols = indices.numpy()
    g, other = np.asarray(grad_output.numpy(), dtype=np.float64), np.asarray(b.numpy(), dtype=np.float64)
    return (g[rows] * other[cols]).sum(1)


PREDICTIONS = [(False, True, False, False), (False, False, False, True), (False, True, False, True),
               (False, True, False, True)]


# --------------------------------------------------------------------------- 08
def transposed(forward, backward=lambda ctx, g: (ctx.saved_tensors[1].mm(g.t()), ctx.saved_tensors[0].mm(g))):
    return function("TransposedMatMul", forward, backward)


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


# --------------------------------------------------------------------------- 09
def adjacency_as_a_list(edges, num_nodes):
    pairs = torch.tensor(edges)
    loops = torch.arange(num_nodes)
    rows = torch.cat([pairs[:, 0], pairs[:, 1], loops])
    cols = torch.cat([pairs[:, 1], pairs[:, 0], loops])
    degree = torch.zeros(num_nodes).index_add_(0, rows, torch.ones(rows.shape[0]))
    return [torch.stack([rows, cols]), degree[rows].pow(-0.5) * degree[cols].pow(-0.5)]


class CachesTheAdjacency(torch.nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(in_features, out_features))
        self.first = None

    def forward(self, h, adjacency):
        if self.first is None:
            self.first = adjacency
        indices, values, shape = self.first
        return spmm(indices, values, shape, h @ self.weight)


# --------------------------------------------------------------------------- 10 Your turn 1
class PoolOfFive(MulA):
    pool = None

    @classmethod
    def apply(cls, x, w):
        if cls.pool is None:
            cls.pool = itertools.cycle([cls() for _ in range(5)])
        return next(cls.pool)(x, w)


class ReturnsTheFreshInstance(MulA):
    @classmethod
    def apply(cls, x, w):
        return cls()


class ForgetsToReturn(MulA):
    @classmethod
    def apply(cls, x, w):
        cls()(x, w)


CASES = [
    # the false acceptances, in the order of the report
    (nb07.your_turn_1, numpy_row_blocks(lambda t: t.double().numpy()), "your function computed 16,0"),
    (nb07.your_turn_1, numpy_row_blocks(lambda t: np.array(t.numpy())), "your function computed 16,000,000 numbers"),
    (nb07.your_turn_1, numpy_row_blocks(lambda t: t.numpy().astype(np.float64)), "your function computed 16,000,000 numbers"),
    (nb07.your_turn_1, numpy_row_blocks(lambda t: np.asarray(t.numpy(), dtype=np.float64) + 0.0),
     "your function computed 16,"),
    (nb07.your_turn_1, gathered_in_float64, None),
    (nb06.your_turn_4, two_scales(none_to(lambda p: torch.zeros(1), lambda d, t: d * 2 + t * 3)),
     "backward turned the None it received into zeros and computed that output's term anyway"),
    (nb06.your_turn_4, two_scales(none_to(lambda p: torch.zeros(3), lambda d, t: (d + d) + (t + t + t))),
     "backward turned the None it received into zeros"),
    (nb06.your_turn_4, two_scales(none_to(lambda p: torch.zeros(3), lambda d, t: torch.stack([d, d, t, t, t]).sum(0))),
     "backward turned the None it received into zeros"),
    (nb06.your_turn_4, two_scales(none_to(lambda p: p * 0, lambda d, t: d * 2 + t * 3)),
     "backward turned the None it received into zeros"),
    (nb06.your_turn_4, two_scales(none_to(torch.zeros_like, lambda d, t: torch.add(d * 2, t, alpha=3))),
     "backward turned the None it received into zeros"),
    (nb06.your_turn_4, two_scales(none_to(torch.zeros_like, lambda d, t: d * 2 + t + t + t)),
     "backward turned the None it received into zeros"),
    (nb06.your_turn_4, two_scales(numpy_terms), "backward turned the None it received into zeros"),
    (nb06.your_turn_4, two_scales(numpy_stacked), "backward turned the None it received into zeros"),
    (nb06.your_turn_4, two_scales(numpy_accumulated), None),
    (nb06.your_turn_4, two_scales(python_sum), None),
    (nb06.your_turn_4, two_scales(stack_of_the_present), None),
    (nb06.your_turn_4, two_scales(zeroed_empty), None),
    (nb02.your_turn_2, queued(keep_x_only=False), "the ctx of FixedPower.apply(x, 3) holds nothing"),
    (nb02.your_turn_2, queued(keep_x_only=True), "then backward through the second call first"),
    (nb02.your_turn_2, function("FixedPower", keyed_forward, keyed_backward),
     "the ctx of FixedPower.apply(x, 3) holds nothing"),
    (given_second(nb10.your_turn_1, VarA), PoolOfFive, "in a chain of 100 calls"),
    (nb10.your_turn_2, "a record class shared by all Functions", "answer with one letter"),
    (nb10.your_turn_2, "a separate node class generated per Function", "answer with one letter"),
    (nb10.your_turn_2, "a guess", "answer with one letter"),
    (nb10.your_turn_2, "not A", "answer with one letter"),
    (nb06.your_turn_2, sort_then(sorts_x_too),
     "MySort.apply(x) changed the caller's x in place"),
    (nb06.your_turn_2, sort_then(zeroes_x),
     "MySort.apply(x) changed the caller's x in place"),
    (nb06.your_turn_2, sort_then(lambda x, v, i: (v, i.double())), "the indices have dtype torch.float64"),
    (nb08.your_turn_1, transposed(zeroes_inputs_kept_on_ctx, lambda ctx, g: (ctx.b.mm(g.t()), ctx.a.mm(g))),
     "TransposedMatMul.apply(a, b) changed the caller's a in place"),
    (nb08.your_turn_1, SavedOnTheClass, "then their backwards in the order second, third, first"),
    (nb08.your_turn_1, transposed(last_call_forward, lambda ctx, g: (LAST_CALL[1].mm(g.t()), LAST_CALL[0].mm(g))),
     "the gradients of call 1 are wrong"),
    (nb06.your_turn_1, NeedsOnTheClass, "for the call with needs_input_grad == (True, False), backward returned None"),
    (nb06.your_turn_1, function("MyLinear", linear_forward, through_python_lists),
     "backward returned None for weight, but still computed with input"),
    (nb06.your_turn_2, IndicesOnTheClass, "backward used the indices of another call"),
    (nb06.your_turn_2, function("MySort", indices_on_the_input_forward, indices_on_the_input_backward),
     "backward did not use the indices of the first sort"),
    (nb06.your_turn_2, function("MySort", sort_recomputed_in_backward, backward_sorting_again), None),
    (nb06.your_turn_2, function("MySort", x_kept_plainly, backward_sorting_plain_x),
     "backward did not use the indices of the first sort"),
    (nb04.your_turn_3, ScaleOnTheClass, "backward used the scale of another call"),
    (nb04.your_turn_3, function("ScaleShift", scale_shift_forward, backward_from_the_saved_input,
                                scale_on_the_saved_input), "backward used the scale of another call"),
    (nb05.your_turn_1, CubeOnTheClass, "backward read the x of another call"),
    (nb03.your_turn_1, names_from_the_private_walker, "your function calls graph_walk._Walker.discover"),
    (nb03.your_turn_1, names_from_viz_walk, "your function calls graph_walk._Walker.discover"),
    (nb03.your_turn_1, names_from_the_engine_discovery, "your function calls engine._discover"),
    (nb04.your_turn_2, calls_the_real_apply, "my_apply calls cls.apply, the real apply"),
    (nb04.your_turn_2, detaches_the_output, "forward ran with grad mode on"),
    (nb04.your_turn_2, detaches_the_inputs, "forward ran with grad mode on"),
    (nb05.your_turn_3, two_passes_then_rescaled, "your code changed x.grad itself (from [2.0, -4.0, 6.0] to [8.0, -16.0, 24.0])"),
    (nb05.your_turn_3, four_passes, "4 backward passes ran, 4 of them through y's node"),
    (nb05.your_turn_3, retains_both_then_frees, "3 backward passes ran"),
    (nb05.your_turn_3, the_other_order, None),
    (nb02.your_turn_1, engine_differentiates_forward, "your function started a backward pass of the engine"),
    # the false rejections
    (nb09.your_turn_1, adjacency_as_a_list, None),
    (nb03.your_turn_2, 8.0000001, None),
    (nb03.your_turn_2, 8.1, "8.1 is not dy/dx"),
    (nb07.your_turn_2, [np.array(p) for p in PREDICTIONS], None),
    (nb07.your_turn_2, [torch.tensor(p) for p in PREDICTIONS], None),
    (nb07.your_turn_2, np.array(PREDICTIONS), None),
    (nb10.your_turn_2, "it is design A", None),
    (nb10.your_turn_2, "答案是 A", None),
    # the misleading messages
    (nb08.your_turn_2, lambda indices, shape: indices[0] > 0, "your function returned a tensor of dtype torch.bool, not numbers"),
    (nb08.your_turn_2, positions_changing_indices, "your function changed indices in place"),
    (nb08.your_turn_1, transposed(changes_saved_inputs_and_back), "was changed in place after it was saved"),
    (nb06.your_turn_4, two_scales(python_sum, materialize_attribute(0)), "ctx.materialize_grads is 0, not False"),
    (nb06.your_turn_4, two_scales(python_sum, materialize_attribute(False)), None),
    (given_second(nb10.your_turn_1, VarA), ReturnsTheFreshInstance, "the Function instance itself, not the output VarA"),
    (given_second(nb10.your_turn_1, VarA), ForgetsToReturn, "apply(x, w) returned None, not a VarA"),
    (nb06.your_turn_2, sort_then(lambda x, v, i: (i, v)), "MySort.apply(x) returned the pair in the wrong order"),
    (nb06.your_turn_3, function("AddOne_", dirty_but_returns_a_copy, lambda ctx, g: g),
     "AddOne_.apply(h) failed: RuntimeError: Some elements marked as dirty"),
    (nb04.your_turn_1, function("AddConstant", lambda t, c: t + c, lambda ctx, g: (g, None), keeps_all_inputs),
     "setup_context keeps a tensor as a plain attribute, ctx.inputs[0]"),
    (nb05.your_turn_1, function("Cube", cube_in_a_list, lambda ctx, g: 3 * ctx.saved_tensors[0] ** 2 * g),
     "ctx.keep[0] still holds a tensor as a plain attribute"),
    (nb08.your_turn_3, function("CustomFunction", keeps_input_in_a_list, lambda ctx, g: g * 2),
     "forward keeps a tensor as a plain attribute, ctx.keep[0]"),
]


@pytest.mark.parametrize("checker, answer, problem", CASES, ids=[case_id(case) for case in CASES])
def test_each_answer_the_student_tried_gets_the_right_verdict(checker, answer, problem, verdict):
    assert_the_verdict(verdict, checker, answer, problem)


@pytest.mark.parametrize("checker, answer, problem", CASES, ids=[case_id(case) for case in CASES])
def test_the_chinese_verdict_is_the_same_and_wholly_chinese(checker, answer, problem, verdict):
    assert_the_chinese_verdict(verdict, checker, answer, problem)


def test_nb09_turn2_refuses_a_layer_that_keeps_the_first_adjacency(verdict):
    result, out = verdict(nb09.your_turn_2, CachesTheAdjacency)
    assert not result and "for a second adjacency (another graph on the same members)" in out, out


@pytest.mark.parametrize("answer", [ReturnsTheFreshInstance, ForgetsToReturn, PoolOfFive])
def test_nb10_turn1_hints_never_give_the_answer(answer, verdict):
    result, out = verdict(given_second(nb10.your_turn_1, VarA), answer)
    assert not result and "cls()(x, w)" not in out, out


# --------------------------------------------------------------------------- the Chinese, point by point
@pytest.mark.parametrize("checker, answer, chinese", [
    (nb08.your_turn_2, lambda indices, shape: indices[0] > 0, "你的函数返回了 dtype 为 torch.bool 的张量，不是数值"),
    (nb08.your_turn_1, transposed(lambda ctx, a, b: (ctx.save_for_backward(a, b), a.t().mm(b))[1],
                                  lambda ctx, g: (ctx.saved_tensors[1].mm(g), ctx.saved_tensors[0].mm(g))),
     "在 a 为 [3, 3]、b 为 [3, 3] 时"),
    (nb02.your_turn_2, function("FixedPower", lambda ctx, x, n: (setattr(ctx, "n", n), x ** n)[1],
                                lambda ctx, g: g * ctx.n),
     "反向传播失败：function FixedPowerBackward returned an incorrect number of gradients"),
    (nb06.your_turn_3, function("AddOne_", dirty_but_returns_a_copy, lambda ctx, g: g),
     "AddOne_.apply(h) 失败了：RuntimeError: Some elements marked as dirty"),
])
def test_the_chinese_messages_read_as_chinese(checker, answer, chinese, verdict):
    result, out = verdict(checker, answer, "zh")
    assert not result and chinese in out, out


def test_a_python_error_keeps_its_own_colon_in_chinese():
    from minigrad.exercises.messages_zh import MESSAGES
    framed = [text for text in MESSAGES.values() if "Error：" in text]
    assert not framed, framed


# --------------------------------------------------------------------------- what the checkers watch
def test_backward_passes_sees_every_way_into_the_engine_and_restores_it():
    from minigrad.autograd import backward as imported_backward
    x = torch.ones(2, requires_grad=True)
    with _observe.backward_passes(lambda: None if x.grad is None else x.grad.tolist()) as passes:
        (x * 2).sum().backward(retain_graph=True)
        torch.autograd.grad((x * 3).sum(), x)
        imported_backward([(x * 4).sum()])
    assert [(p.retain_graph, p.returns_gradients) for p in passes] == [(True, False), (False, True), (False, False)]
    assert [(p.before, p.after) for p in passes] == [(None, [2.0, 2.0]), ([2.0, 2.0], [2.0, 2.0]),
                                                     ([2.0, 2.0], [6.0, 6.0])]
    (x * 2).sum().backward()   # the engine works as before, and the block's listeners are gone
    assert x.grad.tolist() == [8.0, 8.0] and len(passes) == 3


def test_minigrad_graph_walks_names_the_helpers_and_ignores_building_a_graph():
    from minigrad.autograd import node_info
    x = torch.ones(2, requires_grad=True)
    y = (x * 2).sum()
    with _observe.minigrad_graph_walks() as walks:
        (x * 3).exp().sum()   # building a graph reads no edges to walk them
    assert walks == []
    with _observe.minigrad_graph_walks() as walks:
        node_info.reachable_nodes(y.grad_fn)
    assert walks == ["node_info.reachable_nodes"]


def test_tensors_kept_on_ctx_are_found_inside_containers():
    t = torch.ones(1)
    found = _observe.tensors_kept_on(None, {"scale": 2.0, "inputs": (t, 3.0), "keep": {"x": [t]},
                                            "ns": types.SimpleNamespace(x=t), "plain": t, "numbers": [1, 2]})
    assert found == [("inputs", "ctx.inputs[0]"), ("keep", "ctx.keep['x'][0]"), ("ns", "ctx.ns.x"),
                     ("plain", "ctx.plain")]


def test_nb06_watching_zero_terms_leaves_numpy_and_apply_as_they_were():
    zeros, array, apply = np.zeros, np.array, F.__dict__["apply"]
    g = torch.tensor([1.0, 2.0, 3.0])
    data = g._data
    with nb06._watching_zero_terms([g]) as terms:
        (torch.zeros(3) * 3).sum()
    assert terms.terms == ["Mul", "Sum"]   # zeros in, zeros out: two terms computed from zeros
    assert np.zeros is zeros and np.array is array and F.__dict__["apply"] is apply and g._data is data
    assert type(np.zeros(3) * 3) is np.ndarray


def test_nb07_counting_work_leaves_numpy_as_it_was_and_counts_copies():
    array, asarray = np.array, np.asarray
    g = torch.ones(10, 2)
    with nb07._counting_work(g, g) as computed:
        copy = np.array(g.numpy())
        copy @ copy.T
    assert computed[0] >= 100
    assert np.array is array and np.asarray is asarray and type(g._data) is np.ndarray
