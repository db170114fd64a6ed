"""The "Your turn" checkers of notebooks 00-02: each accepts the worked solution and rejects the
typical wrong answers with a message that says what is wrong."""
from __future__ import annotations

import hypothesis.strategies as st
import pytest
from hypothesis import given

import minigrad as torch
from minigrad.exercises import nb00, nb01, nb02


def problem(result) -> str:
    """The 'What is wrong' (or error) lines of a failed check, as one string."""
    assert not result, "the checker accepted a wrong answer"
    return "\n".join(result.lines[1:])


# ---------------------------------------------------------------- notebook 00

def test_nb00_accepts_the_solution_and_prints_a_tick(capsys):
    result = nb00.your_turn_1([2.0, 4.0, 6.0])
    assert result
    assert capsys.readouterr().out == "✓ Your turn 1: predict x.grad — correct.\n"


def test_nb00_accepts_a_tensor_or_tuple():
    assert nb00.your_turn_1(torch.tensor([2.0, 4.0, 6.0]))
    assert nb00.your_turn_1((2, 4, 6))


def test_nb00_starter_prints_a_cross_with_problem_and_hint(capsys):
    result = nb00.your_turn_1([0.0, 0.0, 0.0])
    out = capsys.readouterr().out
    assert not result
    assert out.startswith("✗ Your turn 1: predict x.grad — not yet.\n")
    assert "What is wrong: [0.0, 0.0, 0.0] is not the gradient that backward puts in x.grad" in out
    assert "Hint:" in out


@pytest.mark.parametrize("prediction, message", [
    ([1.0, 2.0, 3.0], "what ONE arrow out of MulBackward0 carries"),
    ([3.0, 3.0, 3.0], "was x.grad for y = (x * 3).sum()"),
    ([1.0, 4.0, 9.0], "(forward values), not gradients"),
    ([2.0, 4.0], "you gave 2 numbers; x has 3 elements"),
    (..., "you have not written a prediction yet"),
    ("2, 4, 6", "you gave a string, '2, 4, 6', not a list of numbers"),
    ("[2, 4, 6]", "you gave a string, '[2, 4, 6]', not a list of numbers"),
    (["2", "4", "6"], "['2', '4', '6'] holds strings, not numbers"),
    ([True, True, True], "[True, True, True] is not a list of numbers"),
    ([2.0, 5.0, 6.0], "[2.0, 5.0, 6.0] is not the gradient that backward puts in x.grad"),
])
def test_nb00_rejects_typical_mistakes(prediction, message):
    assert message in problem(nb00.your_turn_1(prediction))


@pytest.mark.parametrize("prediction", [[2.0, 2.0, 2.0], [2.0, 4.0, 0.0], [0.0, 4.0, 6.0]])
def test_nb00_never_says_which_numbers_of_a_wrong_prediction_are_right(prediction):
    """[2, 2, 2] once got "x.grad[1] is not 2.0", which says that x.grad[0] is 2."""
    said = problem(nb00.your_turn_1(prediction))
    assert "x.grad[" not in said and "[0]" not in said and "[1]" not in said, said


@given(st.lists(st.floats(-10, 10), min_size=3, max_size=3))
def test_nb00_rejects_every_prediction_away_from_the_true_gradient(prediction):
    if any(abs(p - q) > 1e-4 for p, q in zip(prediction, [2.0, 4.0, 6.0])):
        assert not nb00.your_turn_1(prediction)


# ---------------------------------------------------------------- notebook 01

def make_scale(factor_value=None, call_super=True, forward=lambda self, x: self.factor * x):
    """A Scale module class built like a learner's answer."""
    def __init__(self):
        if call_super:
            torch.nn.Module.__init__(self)
        self.factor = torch.nn.Parameter(torch.tensor(1.0)) if factor_value is None else factor_value
    return type("Scale", (torch.nn.Module,), {"__init__": __init__, "forward": forward})


def test_nb01_scale_accepts_the_solution_class_and_an_instance():
    assert nb01.your_turn_1(make_scale())
    assert nb01.your_turn_1(make_scale()())


def test_nb01_scale_accepts_a_one_element_parameter():
    assert nb01.your_turn_1(make_scale(factor_value=torch.nn.Parameter(torch.ones(1))))


@pytest.mark.parametrize("scale, message", [
    (make_scale(factor_value=1.0), "Scale() has no parameters: self.factor is a float"),
    (make_scale(factor_value=torch.tensor(1.0)), "Scale() has no parameters: self.factor is a Tensor"),
    (make_scale(call_super=False), "cannot assign parameters before Module.__init__() call"),
    (make_scale(factor_value=torch.nn.Parameter(torch.ones(3))), "factor has shape [3]"),
    (make_scale(forward=lambda self, x: x), "returned x unchanged"),
    (make_scale(forward=lambda self, x: self.factor.item() * x), "the output does not require grad"),
    (make_scale(forward=lambda self, x: self.factor + x), "forward returned [3.5, 0.5, 5.5]"),
])
def test_nb01_scale_rejects_typical_mistakes(scale, message):
    assert message in problem(nb01.your_turn_1(scale))


def test_nb01_scale_names_the_missing_super_call_in_the_hint():
    result = nb01.your_turn_1(make_scale(call_super=False))
    assert "Hint: call super().__init__()" in "\n".join(result.lines)


def test_nb01_scale_reports_an_error_raised_by_the_learners_code():
    def broken_forward(self, x):
        raise ValueError("oops")
    result = nb01.your_turn_1(make_scale(forward=broken_forward))
    assert result.lines == ["✗ Your turn 1: a Scale module — your code raised an error.", "  ValueError: oops"]


def test_nb01_scale_wrong_parameter_name():
    def __init__(self):
        torch.nn.Module.__init__(self)
        self.scale = torch.nn.Parameter(torch.tensor(1.0))
    scale = type("Scale", (torch.nn.Module,), {"__init__": __init__, "forward": lambda self, x: self.scale * x})
    assert "named_parameters() gives ['scale']; expected exactly ['factor']" in problem(nb01.your_turn_1(scale))


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.ones(3))
        self.linear = torch.nn.Linear(3, 3)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Block()
        self.head = torch.nn.Linear(3, 1, bias=False)
        self.temperature = torch.nn.Parameter(torch.tensor(1.0))


NET_NAMES = ["temperature", "encoder.scale", "encoder.linear.weight", "encoder.linear.bias", "head.weight"]


def test_nb01_names_accepts_the_solution():
    assert nb01.your_turn_2(Net, list(NET_NAMES))
    assert nb01.your_turn_2(Net, tuple(NET_NAMES))


@pytest.mark.parametrize("names, message", [
    (["encoder.scale"], "your list misses 4 of the 5 names"),
    (["temperature", "encoder.scale", "linear.weight", "linear.bias", "head.weight"],
     "['linear.weight', 'linear.bias'] lack part of their prefix"),
    (["net." + name for name in NET_NAMES], "start with a name that is not a parameter's path"),
    (NET_NAMES + ["head.bias"], "named_parameters() has no ['head.bias']: that Linear was built with bias=False"),
    (["temperature", "scale", "encoder.linear.weight", "encoder.linear.bias", "head.weight"],
     "['scale'] lack part of their prefix"),
    (NET_NAMES[1:] + NET_NAMES[:1], "right names, wrong order"),
    (NET_NAMES + ["temperature"], "['temperature'] appear more than once"),
    (NET_NAMES + ["encoder.weight"], "named_parameters() has no ['encoder.weight']"),
    (..., "you have not written your prediction yet"),
    ("temperature", "is not a list of strings"),
])
def test_nb01_names_rejects_typical_mistakes(names, message):
    assert message in problem(nb01.your_turn_2(Net, names))


def test_nb01_names_never_names_a_missing_parameter():
    """The starter once got "such as 'temperature'": a name the learner had to find."""
    said = problem(nb01.your_turn_2(Net, ["encoder.scale"]))
    assert not any(repr(name) in said or name + "'" in said for name in NET_NAMES if name != "encoder.scale"), said


def test_nb01_names_with_the_arguments_swapped_gets_a_verdict():
    said = problem(nb01.your_turn_2(list(NET_NAMES), Net))
    assert "What is wrong:" in said or "is not a list of strings" in said, said


# ---------------------------------------------------------------- notebook 02

class Ctx:
    pass


def by_hand(function, x, grad_output):
    ctx = Ctx()
    function.forward(ctx, x)
    return function.backward(ctx, grad_output)


def test_nb02_by_hand_accepts_the_solution(capsys):
    assert nb02.your_turn_1(by_hand)
    assert capsys.readouterr().out == "✓ Your turn 1: autograd by hand — correct.\n"


def test_nb02_by_hand_solution_matches_the_engine_on_both_functions():
    x, upstream = [0.5, -1.0, 2.0], [1.0, 0.5, -2.0]
    for function in (nb02.Cube, nb02.Sine):
        engine = torch.tensor(x, requires_grad=True)
        function.apply(engine).backward(torch.tensor(upstream))
        mine = by_hand(function, torch.tensor(x), torch.tensor(upstream))
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


@pytest.mark.parametrize("answer, message", [
    (stub, "gradient_by_hand returned None"),
    (fresh_ctx_for_backward, "backward received a ctx without the attribute x"),
    (uses_apply, "your code called .apply"),
    (ignores_grad_output, "your gradient ignores grad_output"),
    (returns_forward_output, "you returned forward's output"),
    (returns_a_tuple, "you returned a tuple"),
    (hard_codes_cube, "the forward of the function you were given never ran"),
])
def test_nb02_by_hand_rejects_typical_mistakes(answer, message):
    assert message in problem(nb02.your_turn_1(answer))


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


def test_nb02_power_accepts_the_fix(capsys):
    assert nb02.your_turn_2(power_class(store_on_class=False))
    assert capsys.readouterr().out == "✓ Your turn 2: why does Power break? — correct.\n"


def test_nb02_power_rejects_state_on_the_class():
    message = problem(nb02.your_turn_2(power_class(store_on_class=True)))
    assert "forward still writes FixedPower.exponent, FixedPower.x on the class" in message, message
    assert "Hint: which object is the record of one single call?" in message


def test_nb02_power_notices_class_state_even_when_declared_in_the_class_body():
    cls = power_class(store_on_class=True)
    cls.exponent, cls.x = None, None
    assert "on the class" in problem(nb02.your_turn_2(cls))


def test_nb02_power_explains_a_missing_none_gradient():
    message = problem(nb02.your_turn_2(power_class(store_on_class=False, return_none=False)))
    assert "returned an incorrect number of gradients (expected 2, got 1)" in message
    assert "None for the exponent" in message


def test_nb02_power_rejects_wrong_maths():
    class FixedPower(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, exponent):
            ctx.exponent, ctx.x = exponent, x
            return x ** exponent

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.x ** (ctx.exponent - 1), None   # forgot the factor n
    assert "expected 2 * x * grad = [2.0, 40.0, 600.0]" in problem(nb02.your_turn_2(FixedPower))


def test_nb02_power_rejects_a_backward_that_ignores_grad_output():
    class FixedPower(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, exponent):
            ctx.exponent, ctx.x = exponent, x
            return x ** exponent

        @staticmethod
        def backward(ctx, grad_output):
            return ctx.exponent * ctx.x ** (ctx.exponent - 1), None   # no grad_output
    message = problem(nb02.your_turn_2(FixedPower))
    assert "so backward ignores grad_output" in message
    assert "Hint: multiply by grad_output" in message


def test_nb02_power_rejects_something_that_is_not_a_function():
    assert "is not a Function class" in problem(nb02.your_turn_2(lambda x, n: x ** n))
