"""The checkers of notebook 02, static methods (``minigrad/exercises/nb02.py``): right answers
written several ways, and the wrong answers students write, each with the verdict it must give
in English and in Chinese."""
from __future__ import annotations

import types
from collections import deque

import pytest

import minigrad as torch
from minigrad.exercises import nb02

from exercise_helpers import F, function, problem, verdict_tests


# ---------------------------------------------------------------- notebook 02
class Ctx:
    pass


def by_hand(function, x, grad_output):
    ctx = Ctx()
    function.forward(ctx, x)
    return function.backward(ctx, grad_output)


def test_nb02_by_hand_solution_matches_the_engine_on_both_functions():
    x, upstream = [0.5, -1.0, 2.0], [1.0, 0.5, -2.0]
    for cube_or_sine in (nb02.Cube, nb02.Sine):
        engine = torch.tensor(x, requires_grad=True)
        cube_or_sine.apply(engine).backward(torch.tensor(upstream))
        mine = by_hand(cube_or_sine, torch.tensor(x), torch.tensor(upstream))
        assert mine.tolist() == pytest.approx(engine.grad.tolist())


def stub(function, x, grad_output):
    ...


def fresh_ctx_for_backward(function, x, grad_output):
    function.forward(Ctx(), x)
    return function.backward(Ctx(), grad_output)


def uses_apply(function, x, grad_output):
    x = x.detach().requires_grad_()
    function.apply(x).backward(grad_output)
    return x.grad


def ignores_grad_output(function, x, grad_output):
    ctx = Ctx()
    function.forward(ctx, x)
    return function.backward(ctx, torch.ones(3))


def returns_forward_output(function, x, grad_output):
    return function.forward(Ctx(), x)


def returns_a_tuple(function, x, grad_output):
    return (by_hand(function, x, grad_output),)


def hard_codes_cube(function, x, grad_output):
    return by_hand(nb02.Cube, x, grad_output)


# (checker, answer, what the verdict says); None: accepted. CASES, at the end, gathers them.
TURN_1 = [(nb02.your_turn_1, answer, problem) for answer, problem in [
    (by_hand, None),
    (stub, "gradient_by_hand returned None"),
    (fresh_ctx_for_backward, "backward received a ctx without the attribute x"),
    (uses_apply, "your code called .apply"),
    (ignores_grad_output, "your gradient ignores grad_output"),
    (returns_forward_output, "you returned forward's output"),
    (returns_a_tuple, "you returned a tuple"),
    (hard_codes_cube, "the forward of the function you were given never ran"),
]]


def power_class(store_on_class: bool, return_none: bool = True) -> type:
    """A Power Function like the notebook's: state on the class (the bug) or on ctx (the fix)."""
    def forward(ctx, x, exponent):
        record = cls if store_on_class else ctx
        record.exponent, record.x = exponent, x
        return x ** exponent

    def backward(ctx, grad_output):
        record = cls if store_on_class else ctx
        grad = grad_output * record.exponent * record.x ** (record.exponent - 1)
        return (grad, None) if return_none else grad

    cls = type("FixedPower", (torch.autograd.Function,),
               {"forward": staticmethod(forward), "backward": staticmethod(backward)})
    return cls


TURN_2 = [(nb02.your_turn_2, answer, problem) for answer, problem in [
    (power_class(store_on_class=False), None),       # the fix
    (power_class(store_on_class=True), ("forward still writes FixedPower.exponent, FixedPower.x on the class",
                                        "Hint: which object is the record of one single call?")),
    (power_class(store_on_class=False, return_none=False),
     ("returned an incorrect number of gradients (expected 2, got 1)", "None for the exponent")),
    (lambda x, n: x ** n, "is not a Function class"),
]]


def test_nb02_power_notices_class_state_even_when_declared_in_the_class_body():
    cls = power_class(store_on_class=True)
    cls.exponent, cls.x = None, None
    assert "on the class" in problem(nb02.your_turn_2(cls))


SHARED = Ctx()


def by_hand_with(make_ctx):
    def gradient_by_hand(function, x, grad_output):
        ctx = make_ctx(function, x)
        function.forward(ctx, x)
        return function.backward(ctx, grad_output)
    return gradient_by_hand


def through_the_engine(function, x, grad_output):
    x = x.detach().requires_grad_()
    function.forward(Ctx(), x).backward(grad_output)
    return x.grad


def ctx_filled_by_hand(function, x, grad_output):
    ctx = Ctx()
    ctx.x = x
    return function.backward(ctx, grad_output)


def zeroes_the_callers_x(function, x, grad_output):
    ctx = Ctx()
    function.forward(ctx, x)
    gradient = function.backward(ctx, grad_output)
    x.mul_(0)
    return gradient


# --------------------------------------------------------------------------- Your turn 2: more answers students write
def exponent_on_the_input(ctx, x, exponent):
    x.exponent = exponent   # "keep the exponent with the tensor it belongs to"
    ctx.x = x
    return x ** exponent


def backward_from_the_input(ctx, grad_output):
    x = ctx.x
    return grad_output * x.exponent * x ** (x.exponent - 1), None


EXPONENTS = {}   # a global record keyed by the input: two calls on the same x share it


def exponent_by_input(ctx, x, exponent):
    EXPONENTS[id(x)] = exponent
    ctx.x = x
    return x ** exponent


def backward_by_input(ctx, grad_output):
    exponent = EXPONENTS[id(ctx.x)]
    return grad_output * exponent * ctx.x ** (exponent - 1), None


class DictOnTheClass(F):
    store = {}

    @staticmethod
    def forward(ctx, x, exponent):
        DictOnTheClass.store[id(ctx)] = (x, exponent)
        return x ** exponent

    @staticmethod
    def backward(ctx, grad_output):
        x, exponent = DictOnTheClass.store[id(ctx)]
        return grad_output * exponent * x ** (exponent - 1), None


class SeparateStylePower(F):
    @staticmethod
    def forward(x, exponent):
        return x ** exponent

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, ctx.exponent = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return grad_output * ctx.exponent * x ** (ctx.exponent - 1), None


def power_forward(ctx, x, exponent):
    ctx.exponent, ctx.x = exponent, x
    return x ** exponent


def power_backward(ctx, grad_output):
    return grad_output * ctx.exponent * ctx.x ** (ctx.exponent - 1), None


def power_by_the_engine(ctx, grad_output):
    """No derivative written: forward recomputed, and torch.autograd.grad differentiates it."""
    with torch.enable_grad():
        x = ctx.x.detach().requires_grad_()
        grad, = torch.autograd.grad(x ** ctx.exponent, x, grad_output)
    return grad, None


def power_in_place(ctx, x, exponent):
    ctx.exponent, ctx.x = exponent, x.clone()
    return x.mul_(x) if exponent == 2 else x.mul_(x * x)


# --------------------------------------------------------------------------- Your turn 1: more answers students write
def engine_differentiates_forward(function_class, x, grad_output):
    """Calls backward and throws its result away; returns what the engine computed instead."""
    x = x.detach().requires_grad_(True)
    ctx = Ctx()
    with torch.enable_grad():
        out = function_class.forward(ctx, x)
    out.backward(grad_output)
    function_class.backward(ctx, grad_output)
    return x.grad


# --------------------------------------------------------------------------- Your turn 2: more answers students write
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

# --------------------------------------------------------------------------- per-call state in a module's list
STORE: list = []


def indexed_forward(ctx, x, exponent):
    ctx.index = len(STORE)
    STORE.append((x, exponent))
    return x ** exponent


def indexed_backward(ctx, grad_output):
    x, exponent = STORE[ctx.index]
    return grad_output * exponent * x ** (exponent - 1), None


def saved_and_indexed_forward(ctx, x, exponent):
    ctx.save_for_backward(x)
    return indexed_forward(ctx, x, exponent)


def notebook_solution_forward(ctx, x, exponent):
    ctx.exponent = exponent
    ctx.x = x
    return x ** exponent


def notebook_solution_backward(ctx, grad_output):
    return grad_output * ctx.exponent * ctx.x ** (ctx.exponent - 1), None


# (checker, answer, what the problem line says); None: accepted.
CASES = TURN_1 + TURN_2 + [
    (nb02.your_turn_2, function("FixedPower", notebook_solution_forward,
                                lambda ctx, g: (g * ctx.x ** (ctx.exponent - 1), None)),   # forgot the factor n
     "expected 2 * x * grad = [2.0, 40.0, 600.0]"),
    (nb02.your_turn_2, function("FixedPower", notebook_solution_forward,
                                lambda ctx, g: (ctx.exponent * ctx.x ** (ctx.exponent - 1), None)),   # no grad_output
     ("so backward ignores grad_output", "Hint: multiply by grad_output")),
    (nb02.your_turn_1, by_hand_with(lambda f, x: types.SimpleNamespace()), None),
    (nb02.your_turn_1, by_hand_with(lambda f, x: f._backward_cls()), None),
    (nb02.your_turn_1, by_hand_with(lambda f, x: f), "you gave forward the class Cube as ctx"),
    (nb02.your_turn_1, by_hand_with(lambda f, x: Ctx), "you gave forward the class Ctx as ctx"),
    (nb02.your_turn_1, by_hand_with(lambda f, x: f()), "you gave forward an instance of Cube as ctx"),
    (nb02.your_turn_1, by_hand_with(lambda f, x: x), "you gave forward a tensor as ctx"),
    (nb02.your_turn_1, by_hand_with(lambda f, x: SHARED), "the call with Cube and the call with Sine used the same ctx"),
    (nb02.your_turn_1, through_the_engine, "function.backward never ran"),
    (nb02.your_turn_1, ctx_filled_by_hand, "the forward of the function you were given never ran"),
    (nb02.your_turn_1, zeroes_the_callers_x, "gradient_by_hand changed the caller's tensors in place"),
    (nb02.your_turn_2, SeparateStylePower, None),
    (nb02.your_turn_2, function("FixedPower", exponent_on_the_input, backward_from_the_input),
     "forward writes x.exponent on the input tensor"),
    (nb02.your_turn_2, DictOnTheClass, "forward still writes DictOnTheClass.store on the class"),
    (nb02.your_turn_2, function("FixedPower", exponent_by_input, backward_by_input),
     "then FixedPower.apply(x, 3) on the same x"),
    (nb02.your_turn_2, function("FixedPower", power_in_place, power_backward), "FixedPower.apply changed its input in place"),
    (nb02.your_turn_2, function("FixedPower", power_forward, power_by_the_engine),
     "backward runs a backward pass of its own (torch.autograd.grad or .backward() inside it): it has the engine "
     "differentiate x ** exponent for it"),
    (nb02.your_turn_2, function("FixedPower", power_forward, power_backward), None),
    (nb02.your_turn_2, function("FixedPower", power_forward, lambda ctx, g: power_backward(ctx, g)[:1] + (torch.zeros(1),)),
     "was not a Variable"),
    (nb02.your_turn_2, queued(keep_x_only=False), "the ctx of FixedPower.apply(x, 3) holds nothing"),
    (nb02.your_turn_2, queued(keep_x_only=True), "holds only ctx.exponent=3, and no tensor"),
    (nb02.your_turn_2, function("FixedPower", keyed_forward, keyed_backward),
     "the ctx of FixedPower.apply(x, 3) holds nothing"),
    (nb02.your_turn_1, engine_differentiates_forward, "your function started a backward pass of the engine"),
    # per-call state in a module-level list, found through an index kept on ctx
    (nb02.your_turn_2, function("FixedPower", indexed_forward, indexed_backward),
     "the ctx of FixedPower.apply(x, 3) holds only ctx.index="),
    (nb02.your_turn_2, function("FixedPower", saved_and_indexed_forward, indexed_backward),
     "x is still alive: something outside ctx keeps a reference to it"),
    (nb02.your_turn_2, function("FixedPower", notebook_solution_forward, notebook_solution_backward), None),
]

test_each_answer_gets_the_right_verdict, test_the_chinese_verdict_is_the_same_and_wholly_chinese = verdict_tests(CASES)
