"""The checkers of notebook 00, start here (``minigrad/exercises/nb00.py``): right answers
written several ways, and the wrong answers students write, each with the verdict it must give
in English and in Chinese."""
from __future__ import annotations

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given

import minigrad as torch
from minigrad.exercises import nb00

from exercise_helpers import problem, verdict_tests


# ---------------------------------------------------------------- notebook 00
# (checker, answer, what the problem line says); None: accepted. CASES, at the end, gathers them.
PREDICTIONS = [(nb00.your_turn_1, prediction, problem) for prediction, problem in [
    ([2.0, 4.0, 6.0], None), (torch.tensor([2.0, 4.0, 6.0]), None), ((2, 4, 6), None),
    ([0.0, 0.0, 0.0], "What is wrong: [0.0, 0.0, 0.0] is not the gradient that backward puts in x.grad"),  # the starter
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
]]


@pytest.mark.parametrize("prediction", [[2.0, 2.0, 2.0], [2.0, 4.0, 0.0], [0.0, 4.0, 6.0]])
def test_nb00_never_says_which_numbers_of_a_wrong_prediction_are_right(prediction):
    """[2, 2, 2] once got "x.grad[1] is not 2.0", which says that x.grad[0] is 2."""
    said = problem(nb00.your_turn_1(prediction))
    assert "x.grad[" not in said and "[0]" not in said and "[1]" not in said, said


@given(st.lists(st.floats(-10, 10), min_size=3, max_size=3))
def test_nb00_rejects_every_prediction_away_from_the_true_gradient(prediction):
    if any(abs(p - q) > 1e-4 for p, q in zip(prediction, [2.0, 4.0, 6.0])):
        assert not nb00.your_turn_1(prediction)


CASES = PREDICTIONS + [
    (nb00.your_turn_1, np.array([2.0, 4.0, 6.0]), None),
    # x.grad passed before backward ran
    (nb00.your_turn_1, None, "you gave None, not a list of numbers: x.grad is None until a backward pass"),
]

test_each_answer_gets_the_right_verdict, test_the_chinese_verdict_is_the_same_and_wholly_chinese = verdict_tests(CASES)
