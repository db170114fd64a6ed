"""The checkers of notebook 10, three designs of ctx (``minigrad/exercises/nb10.py``): right answers
written several ways, and the wrong answers students write, each with the verdict it must give
in English and in Chinese."""
from __future__ import annotations

import itertools
import weakref

import pytest

import minigrad as torch
from minigrad.exercises import nb10

from exercise_helpers import VarA, given_second, verdict_tests


class FunctionA:
    def __call__(self, *inputs):
        y = VarA(self.forward(*[x.data for x in inputs]))
        y.creator = self
        self.inputs = inputs
        self.outputs = [weakref.ref(y)]
        return y


class MulA(FunctionA):
    def forward(self, x, w):
        return x * w

    def backward(self, gy):
        x, w = self.inputs
        return gy * w.data, gy * x.data


# --------------------------------------------------------------------------- answers to Your turn 1
class FreshPerCall(MulA):
    @classmethod
    def apply(cls, x, w):
        return cls()(x, w)


class SharedInstance(MulA):
    """The notebook's starter: one instance for every call (what a module holding `Mul()` does)."""
    shared = None

    @classmethod
    def apply(cls, x, w):
        if cls.shared is None:
            cls.shared = cls()
        return cls.shared(x, w)


class PoolOfTwo(MulA):
    """Two instances used in turn: right for two calls before backward, wrong for three."""
    pool, turn = None, 0

    @classmethod
    def apply(cls, x, w):
        if cls.pool is None:
            cls.pool = [cls(), cls()]
        cls.turn += 1
        return cls.pool[cls.turn % 2](x, w)


class CachedByFirstInput(MulA):
    """One instance per first input: right while every call gets a new x."""
    cache = {}

    @classmethod
    def apply(cls, x, w):
        return cls.cache.setdefault(id(x), cls())(x, w)


class CachedByBothInputs(MulA):
    """One instance per pair of inputs: right until the same pair is multiplied twice before backward."""
    cache = {}

    @classmethod
    def apply(cls, x, w):
        return cls.cache.setdefault((id(x), id(w)), cls())(x, w)


class ReturnsTheInstance(MulA):
    @classmethod
    def apply(cls, x, w):
        f = cls()
        f(x, w)
        return f


class Stub(MulA):
    @classmethod
    def apply(cls, x, w):
        ...


class StaticApply(MulA):
    @staticmethod
    def apply(x, w):
        return FreshPerCall()(x, w)


class NoGraph(MulA):
    @classmethod
    def apply(cls, x, w):
        return VarA(x.data * w.data)


class SwappedBackward(MulA):
    def backward(self, gy):
        x, w = self.inputs
        return gy * x.data, gy * w.data

    @classmethod
    def apply(cls, x, w):
        return cls()(x, w)


class Raises(MulA):
    @classmethod
    def apply(cls, x, w):
        raise ValueError("boom")


def run(checker, *args, capsys):
    result = checker(*args)
    return result, capsys.readouterr().out


# --------------------------------------------------------------------------- Your turn 1
def test_design_a_itself_breaks_when_one_instance_is_reused():
    # The premise of the exercise: a shared instance loses the first call and half of w's gradient.
    mul = MulA()
    x, w = VarA(2.0), VarA(3.0)
    out = mul(mul(x, w), w)
    out.backward()
    assert (x.grad, w.grad) == (None, 6.0)


# (checker, answer, what the verdict says); None: accepted. CASES, at the end, gathers them.
TURN_1 = [(given_second(nb10.your_turn_1, VarA), answer, problem) for answer, problem in [
    (FreshPerCall, None),                # a fresh instance per call
    (SharedInstance, "What is wrong: both outputs point at the same Function instance"),
    (Stub, "What is wrong: apply(x, w) returned None, not a VarA"),
    (StaticApply, "What is wrong: StaticApply.apply is not a classmethod"),
    (NoGraph, "What is wrong: an output's creator is None"),
    (SwappedBackward, "What is wrong: x.grad is 12.0; expected 9.0"),
    (PoolOfTwo, "What is wrong: apply(apply(apply(x, w), w), w), then apply(x, v) and apply(x, w): two of these five calls share"),
    (CachedByFirstInput, "What is wrong: apply(apply(apply(x, w), w), w), then apply(x, v) and apply(x, w): two of these five calls"),
    (CachedByBothInputs, "two of these five calls share one Function instance"),
    (ReturnsTheInstance, "What is wrong: apply(x, w) returned an object of type ReturnsTheInstance, the Function instance itself, not the output VarA"),
]]


@pytest.mark.parametrize("args", [("ReentrantMul", VarA), (VarA, FreshPerCall), (FreshPerCall, "VarA")])
def test_your_turn_1_gives_a_verdict_for_arguments_that_are_not_classes_or_swapped(args, capsys):
    """A string once got the checker's own AttributeError ('str' object has no attribute '__name__')."""
    result, out = run(nb10.your_turn_1, *args, capsys=capsys)
    assert not result
    assert "What is wrong: " in out and "Hint: " in out, out


def test_your_turn_1_reports_an_error_raised_by_the_answer(capsys):
    result, out = run(nb10.your_turn_1, Raises, VarA, capsys=capsys)
    assert not result
    assert "your code raised an error" in out
    assert "ValueError: boom" in out


# --------------------------------------------------------------------------- Your turn 2
TURN_2 = [(nb10.your_turn_2, answer, problem) for answer, problem in [
    ("A", None), (" a ", None), ("design A", None), ("Design a", None),
    # design A however it is written
    ("A (the Function instance)", None), ("'A'", None), ("Ａ", None), ("设计 A", None), ("A, like DeZero", None),
    # a wrong design, explained
    ("B", "What is wrong: not B: in design B every Function shares one record class (a Context)"),
    ("C", ("What is wrong: not C: ", "what makes design C is the class of ctx: a separate node class generated for "
                                     "each Function")),
    ("c", ("What is wrong: not C: ", "what makes design C is the class of ctx")),
]] + [(nb10.your_turn_2, answer, f"you answered {answer!r}; answer with one letter: 'A', 'B' or 'C'")
      for answer in ["?", "", "D", 3, None, "AB", "A or B", "a or c", "ctx is the instance"]]


@pytest.mark.parametrize("answer", ["B", "C"])
@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_wrong_design_is_explained_without_giving_the_answer(answer, language, capsys):
    """"B" once got "...it is an instance of the Function class itself (type(out._ctx) is TinyMul)",
    the definition of design A, and "C" "...it makes design A re-entrant"."""
    from minigrad.exercises import set_language
    set_language(language)
    try:
        result, out = run(nb10.your_turn_2, answer, capsys=capsys)
    finally:
        set_language("en")
    assert not result
    for giveaway in ("design A", "设计 A", "is TinyMul", "is True", "为 True", "Function class itself", "Function 类本身"):
        assert giveaway not in out, out


def test_the_design_c_explanation_holds_for_minigrad():
    # What the checker's "not C" text claims: in design C ctx is not an instance of the Function.
    class MulConstant(torch.autograd.Function):
        @staticmethod
        def forward(ctx, tensor, constant):
            ctx.constant = constant
            return tensor * constant

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.constant, None

    y = MulConstant.apply(torch.ones(2, requires_grad=True), 10)
    assert not isinstance(y.grad_fn, MulConstant)
    assert type(y.grad_fn).__name__ == "MulConstantBackward"
    assert type(y.grad_fn)._forward_cls is MulConstant


# --------------------------------------------------------------------------- Your turn 1: more answers students write
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


@pytest.mark.parametrize("answer", [ReturnsTheFreshInstance, ForgetsToReturn, PoolOfFive])
def test_nb10_turn1_hints_never_give_the_answer(answer, verdict):
    result, out = verdict(given_second(nb10.your_turn_1, VarA), answer)
    assert not result and "cls()(x, w)" not in out, out

# (checker, answer, what the problem line says); None: accepted.
CASES = TURN_1 + TURN_2 + [
    (given_second(nb10.your_turn_1, VarA), PoolOfTwo, "two of these five calls share one Function instance"),
    (given_second(nb10.your_turn_1, VarA), CachedByFirstInput, "two of these five calls share one Function instance"),
    (given_second(nb10.your_turn_1, VarA), ReturnsTheInstance, "apply(x, w) returned an object of type"),
    (given_second(nb10.your_turn_1, VarA), type("ReentrantMul", (), {"apply": classmethod(lambda cls, x, w: (x,))}),
     "apply(x, w) returned an object of type tuple"),
    (given_second(nb10.your_turn_1, VarA), "ReentrantMul", "check.your_turn_1 received str and type"),
    (nb10.your_turn_2, "A (the Function instance)", None),
    (nb10.your_turn_2, "B", "not B: in design B every Function shares one record class"),
    (nb10.your_turn_2, "C", "not C: static methods, a ctx argument"),
    (nb10.your_turn_2, "A.", None),
    (nb10.your_turn_2, "设计 A", None),
    (given_second(nb10.your_turn_1, VarA), PoolOfFive, "in a chain of 100 calls"),
    (nb10.your_turn_2, "a record class shared by all Functions", "answer with one letter"),
    (nb10.your_turn_2, "a separate node class generated per Function", "answer with one letter"),
    (nb10.your_turn_2, "a guess", "answer with one letter"),
    (nb10.your_turn_2, "not A", "answer with one letter"),
    (nb10.your_turn_2, "it is design A", None),
    (nb10.your_turn_2, "答案是 A", None),
    (given_second(nb10.your_turn_1, VarA), ReturnsTheFreshInstance, "the Function instance itself, not the output VarA"),
    (given_second(nb10.your_turn_1, VarA), ForgetsToReturn, "apply(x, w) returned None, not a VarA"),
]

test_each_answer_gets_the_right_verdict, test_the_chinese_verdict_is_the_same_and_wholly_chinese = verdict_tests(CASES)
