"""The checkers of notebook 01, self (``minigrad/exercises/nb01.py``): right answers
written several ways, and the wrong answers students write, each with the verdict it must give
in English and in Chinese."""
from __future__ import annotations

import minigrad as torch
from minigrad.exercises import nb01

from exercise_helpers import given_first, problem, scale, verdict_tests


# ---------------------------------------------------------------- notebook 01
def make_scale(factor_value=None, call_super=True, forward=lambda self, x: self.factor * x):
    """A Scale module class built like a learner's answer."""
    def __init__(self):
        if call_super:
            torch.nn.Module.__init__(self)
        self.factor = torch.nn.Parameter(torch.tensor(1.0)) if factor_value is None else factor_value
    return type("Scale", (torch.nn.Module,), {"__init__": __init__, "forward": forward})


# (checker, answer, what the problem line says); None: accepted. CASES, at the end, gathers them.
SCALES = [(nb01.your_turn_1, answer, problem) for answer, problem in [
    (make_scale(), None), (make_scale()(), None),       # the solution class, and an instance
    (make_scale(factor_value=torch.nn.Parameter(torch.ones(1))), None),      # a one-element parameter
    (make_scale(factor_value=1.0), "Scale() has no parameters: self.factor is a float"),
    (make_scale(factor_value=torch.tensor(1.0)), "Scale() has no parameters: self.factor is a Tensor"),
    (make_scale(call_super=False), "cannot assign parameters before Module.__init__() call"),
    (make_scale(factor_value=torch.nn.Parameter(torch.ones(3))), "factor has shape [3]"),
    (make_scale(forward=lambda self, x: x), "returned x unchanged"),
    (make_scale(forward=lambda self, x: self.factor.item() * x), "the output does not require grad"),
    (make_scale(forward=lambda self, x: self.factor + x), "forward returned [3.5, 0.5, 5.5]"),
]]


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


NAMES = [(given_first(nb01.your_turn_2, Net), names, problem) for names, problem in [
    (list(NET_NAMES), None), (tuple(NET_NAMES), None),
    (["encoder.scale"], "your list misses 4 of the 5 names"),
    (["temperature", "encoder.scale", "linear.weight", "linear.bias", "head.weight"],
     "['linear.weight', 'linear.bias'] lack part of their prefix"),
    (["net." + name for name in NET_NAMES], "start with a name that is not a parameter's path"),
    (NET_NAMES + ["head.bias"], "named_parameters() has no ['head.bias']: that Linear was built with bias=False"),
    (["temperature", "scale", "encoder.linear.weight", "encoder.linear.bias", "head.weight"],
     "['scale'] lack part of their prefix"),
    (NET_NAMES[1:] + NET_NAMES[:1], "right names, wrong order"),
    (NET_NAMES + ["encoder.weight"], "named_parameters() has no ['encoder.weight']"),
    (..., "you have not written your prediction yet"),
    ("temperature", "is not a list of strings"),
]]


def test_nb01_names_refuses_a_name_listed_twice(capsys):
    assert "['temperature'] appear more than once" in problem(nb01.your_turn_2(Net, NET_NAMES + ["temperature"]))
    nb01.your_turn_2(Net, NET_NAMES + ["temperature"])
    assert "Hint: named_parameters() gives each parameter once, even a parameter that two paths reach" in \
        capsys.readouterr().out


def test_nb01_names_never_names_a_missing_parameter():
    """The starter once got "such as 'temperature'": a name the learner had to find."""
    said = problem(nb01.your_turn_2(Net, ["encoder.scale"]))
    assert not any(repr(name) in said or name + "'" in said for name in NET_NAMES if name != "encoder.scale"), said


def test_nb01_names_with_the_arguments_swapped_gets_a_verdict():
    said = problem(nb01.your_turn_2(list(NET_NAMES), Net))
    assert "What is wrong:" in said or "is not a list of strings" in said, said


CASES = SCALES + NAMES + [
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
    # the right numbers, but the gradient to earlier layers cut
    (nb01.your_turn_1, scale(forward=lambda self, x: self.factor * x.data), "forward cut x off from the graph"),
    (nb01.your_turn_1, scale(forward=lambda self, x: self.factor * x.detach()), "forward cut x off from the graph"),
    (nb01.your_turn_1, scale(forward=lambda self, x: x * self.factor), None),
]

test_each_answer_gets_the_right_verdict, test_the_chinese_verdict_is_the_same_and_wholly_chinese = verdict_tests(CASES)
