"""Mutation testing of every exercise checker (``tools/mutants.py``): each mutant of a reference
answer is rejected or shown equivalent by a rule, and each right rewrite is accepted.

``make test`` runs a fixed sample (every whole-answer mutant, every 10th one-site rewrite, the
known false verdicts); ``make mutants`` runs every mutant (``MINIGRAD_MUTANTS=all``).
``known_false_verdicts.json`` lists the false verdicts the checkers still give: each is an
``xfail(strict=True)`` case, so fixing one fails its test until the list drops it."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tools import mutants as mutation

KNOWN = json.loads((Path(__file__).with_name("known_false_verdicts.json")).read_text(encoding="utf-8"))
EVERY_MUTANT = os.environ.get("MINIGRAD_MUTANTS") == "all"
EXERCISES = {exercise.key: exercise for exercise in mutation.exercises()}
MUTANTS = {key: mutation.mutants(exercise) for key, exercise in EXERCISES.items()}


def known(kind: str, key: str, name: str) -> list:
    if name in KNOWN[kind].get(key, []):
        return [pytest.mark.xfail(strict=True, reason="a known false verdict of the checker")]
    return []


def mutant_cases() -> list:
    cases = []
    for key, made in MUTANTS.items():
        chosen = made if EVERY_MUTANT else mutation.sample(made, set(KNOWN["survivors"].get(key, [])))
        cases += [pytest.param(key, mutant.id, id=f"{key}: {mutant.id}", marks=known("survivors", key, mutant.id))
                  for mutant in chosen]
    return cases


def right_cases() -> list:
    return [pytest.param(key, name, id=f"{key}: {name}", marks=known("rejected_right", key, name))
            for key in EXERCISES for name, _ in mutation.RIGHT_REWRITES.get(key, [])]


@pytest.fixture(scope="module")
def sandboxes():
    """One sandbox process per exercise, started when first needed, with the reference's run."""
    opened = {}

    def get(key):
        if key not in opened:
            sandbox = mutation.Sandbox(EXERCISES[key])
            opened[key] = (sandbox, sandbox.run(EXERCISES[key].solution))
        return opened[key]
    yield get
    for sandbox, _ in opened.values():
        sandbox.close()


@pytest.mark.parametrize("key", list(EXERCISES))
def test_the_reference_answer_is_accepted(key, sandboxes):
    _, reference = sandboxes(key)
    assert reference.accepted, reference.output


@pytest.mark.parametrize("key, mutant_id", mutant_cases())
def test_each_mutant_is_rejected_or_equivalent(key, mutant_id, sandboxes):
    sandbox, reference = sandboxes(key)
    mutant = next(m for m in MUTANTS[key] if m.id == mutant_id)
    mutation.judge(EXERCISES[key], mutant, sandbox.run(mutant.run_source), reference)
    assert mutant.verdict != "survived", f"the checker accepted this mutant ({mutant.id}):\n{mutant.source}"


@pytest.mark.parametrize("key, name", right_cases())
def test_each_right_rewrite_is_accepted(key, name, sandboxes):
    sandbox, _ = sandboxes(key)
    run = mutation.right_run(sandbox, dict(mutation.RIGHT_REWRITES[key])[name], EXERCISES[key])
    assert run.accepted, f"the checker rejected a right answer ({name}):\n{run.output}"


def test_the_known_false_verdicts_name_mutants_and_rewrites_that_exist():
    stale = [(key, name) for key, names in KNOWN["survivors"].items() for name in names
             if name not in {m.id for m in MUTANTS.get(key, [])}]
    stale += [(key, name) for key, names in KNOWN["rejected_right"].items() for name in names
              if name not in dict(mutation.RIGHT_REWRITES.get(key, []))]
    assert not stale, f"known_false_verdicts.json names what is no longer generated: {stale}"


def test_every_exercise_of_the_notebooks_has_mutants_and_a_context():
    assert len(EXERCISES) >= 26
    assert all(MUTANTS[key] for key in EXERCISES)
    assert all(exercise.context and "import minigrad" in exercise.context[0] for exercise in EXERCISES.values())


def test_a_mutant_that_is_rejected_is_killed_and_one_accepted_survives():
    """The runner sees both verdicts: a sign flip of 00's prediction is rejected, and a prediction
    given the checker's own way (the reference) is accepted; a loop that never ends times out."""
    exercise = EXERCISES["00.1"]
    with mutation.Sandbox(exercise, timeout=2) as sandbox:
        assert sandbox.run(exercise.solution).accepted
        assert sandbox.run(exercise.solution.replace("[2.0, 4.0, 6.0]", "[-2.0, -4.0, -6.0]")).accepted is False
        looping = sandbox.run("while True:\n    pass")
    assert looping.accepted is None and "timed out" in looping.output


def test_the_equivalence_rules_excuse_only_accepted_mutants():
    exercise = EXERCISES["04.1"]
    swapped = next(m for m in mutation.mutants(exercise) if m.rewrite.startswith("operands of + swapped"))
    assert swapped.equivalent.startswith("+ and * are commutative")
    mutation.judge(exercise, swapped, mutation.Run(True, "✓"), mutation.Run(True, "✓"))
    assert swapped.verdict == "equivalent"
    mutation.judge(exercise, swapped, mutation.Run(False, "✗"), mutation.Run(True, "✓"))
    assert swapped.verdict == "killed" and swapped.equivalent is None
