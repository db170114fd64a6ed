"""The ``verdict`` fixture: a checker run on one answer, in English or in Chinese."""
from __future__ import annotations

import warnings

import pytest

from minigrad.exercises import _feedback


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
