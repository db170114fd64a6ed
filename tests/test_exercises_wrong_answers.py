"""The kinds of wrong answer every checker must reject (docs/notebook-conventions.md, point 6, and
the developers' guide, rule 8), and right answers written another way that it must accept, in
both languages: a forward that changes its input in place, zeros where None is asked, working
around the mechanism the exercise teaches, numpy and broadcasting instead of the operations the
worked solution uses. Each case was a false verdict once (issue 20)."""
from __future__ import annotations

import re
import types
import warnings
from collections import deque

import numpy as np
import pytest

import minigrad as torch
from minigrad.autograd import node_info
from minigrad.autograd.node_info import reachable_nodes
from minigrad.exercises import _feedback, nb00, nb01, nb02, nb03, nb04, nb05, nb06, nb07, nb08, nb09, nb10
from test_exercises_nb00_02 import Net   # the notebook's module
from test_exercises_nb03_05 import SquareSaved, saved_bytes   # the notebook's Function, a right answer
from test_exercises_nb06_08 import KeepsInputOnCtx, TransposedMatMulOneGradient, TransposedMatMulStarter
from test_exercises_nb07 import in_row_blocks
from test_exercises_nb10 import CachedByFirstInput, PoolOfTwo, ReturnsTheInstance, VarA

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


# --------------------------------------------------------------------------- 02 Your turn 1
class Ctx:
    pass


SHARED = Ctx()


def by_hand(make_ctx):
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


# --------------------------------------------------------------------------- 02 Your turn 2
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


def power_in_place(ctx, x, exponent):
    ctx.exponent, ctx.x = exponent, x.clone()
    return x.mul_(x) if exponent == 2 else x.mul_(x * x)


# --------------------------------------------------------------------------- 04
def add_constant(forward, backward=lambda ctx, g: (g, None), setup_context=lambda ctx, inputs, output: None):
    return function("AddConstant", forward, backward, setup_context)


def keeps_the_input(ctx, inputs, output):
    ctx.t = inputs[0]


def my_apply(cls, *args):
    ctx = cls._backward_cls()
    ctx.needs_input_grad = tuple(isinstance(a, torch.Tensor) and a.requires_grad for a in args)
    with torch.no_grad():
        return cls.forward(ctx, *args), ctx


def apply_with(needs=lambda a: isinstance(a, torch.Tensor) and a.requires_grad, node_class=lambda cls: cls._backward_cls):
    """A my_apply whose needs_input_grad and node class are computed the way a learner wrote them."""
    def my_apply(cls, *args):
        ctx = node_class(cls)()
        ctx.needs_input_grad = tuple(needs(a) for a in args)
        with torch.no_grad():
            return cls.forward(ctx, *args), ctx
    return my_apply


leaves_only_apply = apply_with(lambda a: isinstance(a, torch.Tensor) and a.is_leaf and a.requires_grad)
private_flag_apply = apply_with(lambda a: isinstance(a, torch.Tensor) and a._requires_grad)
hand_made_node_apply = apply_with(node_class=lambda cls: type(cls.__name__ + "Backward",
                                                              (cls._backward_cls.__bases__[0],), {}))


def scale_shift(forward, backward=lambda ctx, g: (g * ctx.scale, None, None)):
    def setup_context(ctx, inputs, output):
        _, ctx.scale, _ = inputs
    return function("ScaleShift", forward, backward, setup_context)


# --------------------------------------------------------------------------- 05
def saving(what):
    def forward(ctx, x):
        ctx.save_for_backward(what(x))
        return x ** 3
    return forward


def cube_backward(ctx, grad_output):
    x, = ctx.saved_tensors
    return 3 * x ** 2 * grad_output


def cube_from_output(ctx, x):
    y = x ** 3
    ctx.save_for_backward(y)
    return y


def backward_from_output(ctx, grad_output):
    y, = ctx.saved_tensors
    return 3 * y.abs() ** (2 / 3) * grad_output


def two_passes_with_autograd_grad(x):
    y = SquareSaved.apply(x)
    first, = torch.autograd.grad(y.sum(), x, retain_graph=True)
    second, = torch.autograd.grad((3 * y).sum(), x)
    x.grad = first + second
    return y


def rebuilds_the_graph(x):
    y = SquareSaved.apply(x)
    y.sum().backward()
    y = SquareSaved.apply(x)
    (3 * y).sum().backward()
    return y


def sets_the_gradient_by_hand(x):
    y = SquareSaved.apply(x)
    x.grad = 8 * x.detach()
    return y


def one_combined_backward(x):
    y = SquareSaved.apply(x)
    (y.sum() + (3 * y).sum()).backward()
    return y


def builtin_square(x):
    y = x * x
    y.sum().backward(retain_graph=True)
    (3 * y).sum().backward()
    return y


# --------------------------------------------------------------------------- 06 Your turn 4
def two_scales(backward, forward=None):
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


# --------------------------------------------------------------------------- 08 Your turn 3
def custom_function(forward):
    return function("CustomFunction", forward, lambda ctx, g: g * 2)


# --------------------------------------------------------------------------- 03, 07, 09: messages quoting a case
def names_without_seen_set(tensor):
    names, queue = [], [tensor.grad_fn]
    while queue:
        node = queue.pop(0)
        names.append(node.name())
        queue.extend(n for n, _ in node.next_functions if n is not None)
    return names


def names_deduplicated_by_name(tensor):
    names, queue = [], deque([tensor.grad_fn])
    while queue:
        node = queue.popleft()
        if node.name() not in names:
            names.append(node.name())
            queue.extend(n for n, _ in node.next_functions if n is not None)
    return names


def names_from_the_helper(tensor):
    return [node.name() for node in node_info.reachable_nodes(tensor.grad_fn)]


def names_from_the_imported_helper(tensor):
    return [node.name() for node in reachable_nodes(tensor.grad_fn)]


def merges_repeated_edges(indices, grad_output, b):
    rows, cols = zip(*sorted(set(zip(*indices.tolist()))))
    return (grad_output[torch.tensor(list(rows))] * b[torch.tensor(list(cols))]).sum(1)


def adjacency_for_34_members(edges, num_nodes):
    pairs = torch.tensor(edges)
    loops = torch.arange(34)
    rows = torch.cat([pairs[:, 0], pairs[:, 1], loops])
    cols = torch.cat([pairs[:, 1], pairs[:, 0], loops])
    degree = torch.zeros(34).index_add_(0, rows, torch.ones(rows.shape[0]))
    return torch.stack([rows, cols]), degree[rows].pow(-0.5) * degree[cols].pow(-0.5)


# (checker, answer, what the problem line says); None: accepted.
CASES = [
    (nb00.your_turn_1, np.array([2.0, 4.0, 6.0]), None),
    (nb01.your_turn_1, scale(0.0), "factor starts at 0; the task asks for 1.0"),
    (nb01.your_turn_1, scale(2.0), "factor starts at 2; the task asks for 1.0"),
    (nb01.your_turn_1, scale(requires_grad=False), "factor has requires_grad=False"),
    (nb01.your_turn_1, scale(forward=lambda self, x: x.mul_(self.factor)), "forward changed its input in place"),
    (nb01.your_turn_1, scale(forward=lambda self, x: 2.5 * x), "its output does not depend on self.factor"),
    (nb01.your_turn_1, scale(forward=lambda self, x: self.factor * self.factor * x / self.factor), None),
    (nb01.your_turn_1, scale(forward=lambda self, x: x * float(self.factor)), "forward used a copy of the Parameter"),
    (nb01.your_turn_1, scale(make=lambda start: start), "torch.nn.Parameter wraps a tensor, and it was given a float"),
    (nb01.your_turn_1, scale(1, make=torch.tensor), "torch.tensor(1) holds an integer"),
    (given_first(nb01.your_turn_2, Net), ["encoder.scale"], "your list misses 4 of the 5 names"),
    (given_first(nb01.your_turn_2, Net), ["temperature", "encoder.scale", "linear.weight", "linear.bias", "head.weight"],
     "['linear.weight', 'linear.bias'] lack part of their prefix"),
    (nb02.your_turn_1, by_hand(lambda f, x: types.SimpleNamespace()), None),
    (nb02.your_turn_1, by_hand(lambda f, x: f._backward_cls()), None),
    (nb02.your_turn_1, by_hand(lambda f, x: f), "you gave forward the class Cube as ctx"),
    (nb02.your_turn_1, by_hand(lambda f, x: Ctx), "you gave forward the class Ctx as ctx"),
    (nb02.your_turn_1, by_hand(lambda f, x: f()), "you gave forward an instance of Cube as ctx"),
    (nb02.your_turn_1, by_hand(lambda f, x: x), "you gave forward a tensor as ctx"),
    (nb02.your_turn_1, by_hand(lambda f, x: SHARED), "the call with Cube and the call with Sine used the same ctx"),
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
    (nb02.your_turn_2, function("FixedPower", power_forward, lambda ctx, g: power_backward(ctx, g)[:1] + (torch.zeros(1),)),
     "was not a Variable"),
    (nb03.your_turn_1, names_without_seen_set, "your list repeats MulBackward0 (2 extra copies)"),
    (nb03.your_turn_2, torch.tensor(8.0), None),
    (nb03.your_turn_1, names_deduplicated_by_name, "your list has each name once, but the graph has one more torch::autograd::AccumulateGrad node"),
    (nb03.your_turn_1, names_from_the_helper, "your function calls node_info.reachable_nodes"),
    (nb03.your_turn_1, names_from_the_imported_helper, "your function calls node_info.reachable_nodes"),
    (nb03.your_turn_2, 5.0, "5.0 leaves out at least one of the paths from y back to x"),
    (nb03.your_turn_2, 7.0, "7.0 leaves out at least one of the paths from y back to x"),
    (nb03.your_turn_2, np.float32(8.0), None),
    (nb04.your_turn_1, add_constant(lambda tensor, constant: tensor.add_(constant)),
     "AddConstant.apply(x, 2.5) changed the caller's x in place"),
    (nb04.your_turn_1, add_constant(lambda tensor, constant: tensor.clone().add_(constant)), None),
    (nb04.your_turn_1, add_constant(lambda t, c: t + c, lambda ctx, g: (g, None, None)), None),
    (nb04.your_turn_1, add_constant(lambda t, c: t + c, lambda ctx, g: (g, None, g)), "incorrect number of gradients"),
    (nb04.your_turn_1, add_constant(lambda t, c: t + c, lambda ctx, g: g), "incorrect number of gradients (expected 2, got 1)"),
    (nb04.your_turn_1, add_constant(lambda t, c: t + c, setup_context=keeps_the_input),
     "setup_context keeps a tensor as a plain attribute, ctx.t"),
    (nb04.your_turn_2, leaves_only_apply, "a tensor that is not a leaf needs a gradient too"),
    (nb04.your_turn_2, private_flag_apply, "a tensor that is not a leaf needs a gradient too"),
    (nb04.your_turn_2, hand_made_node_apply, "ctx is an instance of a class you made yourself, also named ProbeBackward"),
    (nb04.your_turn_3, scale_shift(lambda tensor, scale=2.0, shift=0.0: tensor * scale + shift,
                                   lambda ctx, g: (g * ctx.scale, 0, 0)),
     "scale and shift are numbers, not tensors"),
    (nb04.your_turn_2, lambda cls, *args: list(my_apply(cls, *args)), None),
    (nb04.your_turn_2, lambda cls, *args: my_apply(cls, *args)[::-1], "my_apply returned the pair in the wrong order"),
    (nb04.your_turn_3, scale_shift(lambda tensor, scale=2.0, shift=0.0: tensor.mul_(scale).add_(shift)),
     "ScaleShift.apply(x) changed the caller's x in place"),
    (nb05.your_turn_1, function("Cube", saving(lambda x: x.detach()), cube_backward), None),
    (nb05.your_turn_1, function("Cube", saving(lambda x: x.clone()), cube_backward), "you kept a copy of x"),
    (nb05.your_turn_1, function("Cube", saving(lambda x: x * x), lambda ctx, g: 3 * ctx.saved_tensors[0] * g),
     "you saved a new tensor computed from x (such as x * x)"),
    (nb05.your_turn_1, function("Cube", saving(lambda x: x), lambda ctx, g: 3 * node_info.saved_tensors(ctx)[0] ** 2 * g),
     "you saved x itself, rightly, yet backward read the changed x without an error"),
    (nb05.your_turn_3, sets_the_gradient_by_hand, "no backward pass went through y's node"),
    (nb05.your_turn_1, function("Cube", saving(lambda x: x.data), cube_backward),
     "shares x's data but not its version counter"),
    (nb05.your_turn_1, function("Cube", cube_from_output, backward_from_output), "you saved the output y = x ** 3"),
    (nb05.your_turn_1, function("Cube", lambda ctx, x: x.mul_(x * x), cube_backward), "Cube.apply(x) changed the caller's x"),
    (nb05.your_turn_2, lambda tensor: float(saved_bytes(tensor)), None),
    (nb05.your_turn_3, two_passes_with_autograd_grad, "you computed the gradients with torch.autograd.grad"),
    (nb05.your_turn_3, rebuilds_the_graph, "you built the graph 2 times"),
    (nb05.your_turn_3, one_combined_backward, "one backward pass went through y's node"),
    (nb05.your_turn_3, builtin_square, "y's node is MulBackward0: y was not made by SquareSaved.apply(x)"),
    (nb06.your_turn_1, function("MyLinear", lambda ctx, x, w: (ctx.save_for_backward(x, w), x.mm(w.t()))[1],
                                lambda ctx, g: (g.mm(ctx.saved_tensors[1].t()), g.t().mm(ctx.saved_tensors[0]))),
     "backward failed: mat1 and mat2 shapes cannot be multiplied"),
    (nb06.your_turn_4, two_scales(docs_style), None),
    (nb06.your_turn_4, two_scales(copies_into_zeros), None),
    (nb06.your_turn_4, two_scales(none_back_to_zeros), "backward turned the None it received into zeros"),
    (nb06.your_turn_4, two_scales(docs_style, materialize_zero), "forward called ctx.set_materialize_grads with something other than True or False: it takes a bool"),
    (nb06.your_turn_4, two_scales(docs_style, numbers_forward), "TwoScales.apply returned (float, float), not two tensors"),
    (nb07.your_turn_1, in_row_blocks(pieces=8), "your function computed 16,000,000 numbers"),
    (nb07.your_turn_1, merges_repeated_edges, "on a random graph with 6 nodes and 10 edges (some repeated)"),
    (nb09.your_turn_1, adjacency_for_34_members, "for a path 0-1-2-3-4 plus a member 5 with no friends"),
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
]


def case_id(case) -> str:
    checker, answer, problem = case
    return f"{checker.__module__.rsplit('.', 1)[-1]}.{checker.__name__}: {problem or 'accepted'}"[:90]


@pytest.fixture
def verdict(capsys):
    def run(checker, answer, language="en"):
        _feedback.set_language(language)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")   # creating a Function instance warns, as it should
                result = checker(answer)
        finally:
            _feedback.set_language("en")
        return result, capsys.readouterr().out
    return run


def assert_the_verdict(verdict, checker, answer, problem) -> None:
    """Accepted when ``problem`` is None, else refused with ``problem`` in the problem line."""
    result, out = verdict(checker, answer)
    if problem is None:
        assert result, out
    else:
        assert not result and "What is wrong: " in out and problem in out, out


def assert_the_chinese_verdict(verdict, checker, answer, problem) -> None:
    """The same verdict in Chinese, every word Chinese but code, PyTorch's texts and the learner's own answer."""
    result, out = verdict(checker, answer, "zh")
    assert bool(result) == (problem is None), out
    quoted = out.replace(repr(answer), "") if isinstance(answer, str) else out
    assert not english_left_in(quoted), f"English left in: {out}"


@pytest.mark.parametrize("checker, answer, problem", CASES, ids=[case_id(case) for case in CASES])
def test_each_kind_of_answer_gets_the_right_verdict(checker, answer, problem, verdict):
    assert_the_verdict(verdict, checker, answer, problem)


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


@pytest.mark.parametrize("verdict_text, english", [
    ("backward 返回了 tuple of length 3：forward 的每个参数都需要一个梯度", ["tuple of length"]),
    ("apply(x, w) 返回了 a ReentrantMul，不是 VarA", ["a ReentrantMul"]),
    ("第二次 apply 返回了 a tuple", ["a tuple"]),
    ("问题：Scale() 抛出了 AttributeError：'float' object has no attribute '_data'。torch.nn.Parameter 包装的是张量", []),
    ("提示：a [2, 3] @ b [3, 4] 时，用 `if grad_output is not None`", []),
])
def test_the_english_detector_finds_english_prose_and_spares_code(verdict_text, english):
    assert english_left_in(verdict_text) == english


@pytest.mark.parametrize("checker, answer, problem", CASES, ids=[case_id(case) for case in CASES])
def test_the_chinese_verdict_is_the_same_and_wholly_chinese(checker, answer, problem, verdict):
    assert_the_chinese_verdict(verdict, checker, answer, problem)
