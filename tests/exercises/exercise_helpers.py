"""What the checkers' tests share: running a checker and reading its verdict in both languages,
Functions built from a forward and a backward, and answers more than one notebook's tests use."""
from __future__ import annotations

import re

import pytest

import minigrad as torch


def run(checker, answer, capsys):
    """The checker's result (true when it accepts) and what it printed."""
    result = checker(answer)
    return result, capsys.readouterr().out


def problem(result) -> str:
    """The 'What is wrong' (or error) lines of a failed check, as one string."""
    assert not result, "the checker accepted a wrong answer"
    return "\n".join(result.lines[1:])


Function = torch.autograd.Function


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


class TransposedMatMulIgnoringGradOutput(TransposedMatMulStarter):
    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        ones = torch.ones_like(grad_output)
        return b.mm(ones.t()), a.mm(ones)


# --------------------------------------------------------------------------- design A, as in the notebook
class VarA:
    def __init__(self, data):
        self.data, self.grad, self.creator = data, None, None

    def backward(self):
        self.grad = 1.0
        order, seen, stack = [], set(), [(self.creator, False)]
        while stack:   # every Function instance, each before those that made its inputs
            f, done = stack.pop()
            if done:
                order.append(f)
            elif id(f) not in seen:
                seen.add(id(f))
                stack.append((f, True))
                stack.extend((x.creator, False) for x in f.inputs if x.creator is not None)
        for f in reversed(order):
            gy = f.outputs[0]().grad
            for x, gx in zip(f.inputs, f.backward(gy)):
                x.grad = gx if x.grad is None else x.grad + gx


F = torch.autograd.Function


def function(name: str, forward, backward, setup_context=None) -> type:
    namespace = {"forward": staticmethod(forward), "backward": staticmethod(backward)}
    if setup_context is not None:
        namespace["setup_context"] = staticmethod(setup_context)
    return type(name, (F,), namespace)


def given_first(checker, first):
    """``checker`` with its first argument given, so that a case passes only the learner's answer."""
    def check(answer):
        return checker(first, answer)
    check.__module__, check.__name__ = checker.__module__, checker.__name__
    return check


def given_second(checker, second):
    """``checker`` with its second argument given (nb10's variable class)."""
    def check(answer):
        return checker(answer, second)
    check.__module__, check.__name__ = checker.__module__, checker.__name__
    return check


# --------------------------------------------------------------------------- 01 Your turn 1
def scale(start=1.0, forward=lambda self, x: self.factor * x, make=torch.tensor, **parameter) -> type:
    def __init__(self):
        torch.nn.Module.__init__(self)
        self.factor = torch.nn.Parameter(make(start), **parameter)
    return type("Scale", (torch.nn.Module,), {"__init__": __init__, "forward": forward})


def case_id(case) -> str:
    checker, answer, problem = case
    problem = problem and " … ".join(problem if isinstance(problem, tuple) else (problem,)).removeprefix("What is wrong: ")
    named = isinstance(answer, type) or "__name__" in dir(answer)    # a class or a function
    name = answer.__name__ if named else repr(answer)
    accepted = f"accepted {'a lambda' if name == '<lambda>' else name}"
    return f"{checker.__module__.rsplit('.', 1)[-1]}.{checker.__name__}: {problem or accepted}"[:90]


def assert_the_verdict(verdict, checker, answer, problem) -> None:
    """Accepted when ``problem`` is None: the one line "✓ <title> — correct."; else refused: the
    "not yet" line, what is wrong and a hint, with ``problem`` (a text, or a tuple of texts) in what
    is wrong or in the hint."""
    result, out = verdict(checker, answer)
    if problem is None:
        assert result and out == f"✓ {result.title} — correct.\n", out
    else:
        assert not result and out.startswith(f"✗ {result.title} — not yet.\n  What is wrong: "), out
        assert all(text in out for text in (problem if isinstance(problem, tuple) else (problem,))), out
        assert "\n  Hint: " in out, out


def assert_the_chinese_verdict(verdict, checker, answer, problem) -> None:
    """The same verdict in Chinese, every word Chinese but code, PyTorch's texts and the learner's own answer."""
    result, out = verdict(checker, answer, "zh")
    assert bool(result) == (problem is None), out
    quoted = out.replace(repr(answer), "") if isinstance(answer, str) else out
    assert not english_left_in(quoted), f"English left in: {out}"


# PyTorch's own error texts stay in English in the Chinese edition (notebooks/zh/GLOSSARY.md), and
# so does code; every other word is Chinese.
PYTORCH_TEXT = re.compile(r"should not be instantiated|[Ff]unction \w+ returned [^。\n]*|mat1 and mat2 shapes [^。\n]*|"
                          r"`[^`]*`|\w*(Error|Warning)[:：]\s*[^。\n]*")


ENGLISH_PROSE = re.compile(r"\b[a-z]{2,} [a-z]{2,} [a-z]{2,}\b"   # three words in a row
                           r"|\ban? [A-Za-z]{2,}"                 # an article: "a ReentrantMul", "a tuple"
                           r"|\b(the|of|was|were|has|have|its|this|that|an|are|but|only|length|returned|gave|"
                           r"which|when|does|your|you|than|must|should|needs?|gives?)\b")   # words code never uses


def english_left_in(chinese_verdict: str) -> list[str]:
    """The English words of a Chinese verdict, code and PyTorch's error texts left out."""
    return [match.group(0) for match in ENGLISH_PROSE.finditer(PYTORCH_TEXT.sub("", chinese_verdict))]


def dirty_but_returns_a_copy(ctx, x):
    x.add_(1)
    ctx.mark_dirty(x)
    return x.clone()


# --------------------------------------------------------------------------- 08
def transposed(forward, backward=lambda ctx, g: (ctx.saved_tensors[1].mm(g.t()), ctx.saved_tensors[0].mm(g))):
    return function("TransposedMatMul", forward, backward)


def verdict_tests(cases: list, english_only: list = ()) -> tuple:
    """The two tests of a notebook's ``cases`` (checker, answer, what the problem line says; None:
    accepted): each answer gets the right verdict, and the same verdict wholly in Chinese. The
    ``english_only`` cases get the first test only."""
    def parametrize(cases):
        return pytest.mark.parametrize("checker, answer, problem", cases, ids=[case_id(case) for case in cases])

    @parametrize(cases + list(english_only))
    def test_each_answer_gets_the_right_verdict(checker, answer, problem, verdict):
        assert_the_verdict(verdict, checker, answer, problem)

    @parametrize(cases)
    def test_the_chinese_verdict_is_the_same_and_wholly_chinese(checker, answer, problem, verdict):
        assert_the_chinese_verdict(verdict, checker, answer, problem)

    return test_each_answer_gets_the_right_verdict, test_the_chinese_verdict_is_the_same_and_wholly_chinese
