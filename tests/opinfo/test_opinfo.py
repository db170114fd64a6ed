"""PyTorch's OpInfo samples replayed against minigrad (no PyTorch needed): see replay.py.

Expected failures are data (expected_failures.json): a check that fails and is not listed is a
regression; a listed check that passes now must be taken off the list (xfail strict). Both fail here.
After fixing an op, ``python -m tests.opinfo.replay <op>`` shows what still fails, and
``python -m tests.opinfo.replay`` rewrites the list, failures.md and the README's table.
"""
import base64
import copy
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.opinfo import module_replay, replay  # noqa: E402

RECORDS = replay.records()
EXPECTED = replay.expected_failures()


@pytest.mark.parametrize("key", sorted(RECORDS))
def test_opinfo_samples(key):
    problem = replay.unexpected(key, replay.run_op(RECORDS[key]), EXPECTED.get(key, {}), replay.EXPECTED.name)
    assert problem is None, problem


def test_a_new_failure_and_a_listed_check_that_passes_now_are_both_reported():
    assert replay.unexpected("add", {"0:vjp": "why"}, {}, "list.json") == (
        "add: new failures {'0:vjp': 'why'}; passing now, take them off list.json: []")
    assert replay.unexpected("add", {}, {"1:vjp": "why"}, "list.json").endswith("take them off list.json: ['1:vjp']")
    assert replay.unexpected("add", {"0:vjp": "why"}, {"0:vjp": "another wording"}, "list.json") is None


def test_every_recorded_op_is_one_minigrad_implements_and_every_list_entry_has_data():
    assert len(RECORDS) > 50
    assert set(EXPECTED) <= set(RECORDS)
    assert all(record["torch"].startswith("2.13.0") for record in RECORDS.values())


def test_a_wrong_recorded_answer_is_caught():
    record = copy.deepcopy(RECORDS["add"])
    sample = record["samples"][0]
    forward, gradient = sample["forward"]["value"][0], sample["vjp"]["value"][0]
    sample["forward"]["value"][0], sample["vjp"]["value"][0] = gradient, forward   # both of the same shape
    failing = replay.run_op(record)
    assert failing["0:forward:function"] == "values differ"
    assert failing["0:vjp"] == "gradient 0: values differ"


def _shifted(record: dict, dtype: str, by: float) -> dict:
    """``record``'s first sample of ``dtype`` with PyTorch's answer moved by ``by`` times its size."""
    sample = copy.deepcopy(record["dtypes"][dtype][0])
    value = sample["forward"]["value"][0]
    answer = replay.decode(value)._data
    moved = (answer + by * max(np.abs(answer).max(), 1)).astype(answer.dtype)
    value["data"] = base64.b64encode(moved.tobytes()).decode()
    return sample


def test_other_dtypes_are_compared_to_their_own_tolerance():
    add = RECORDS["add"]
    tolerances = add["tolerance"]
    assert tolerances["float64"] == [1e-7, 1e-7] and tolerances["float32"] == [1.3e-06, 1e-05]
    assert tolerances["int64"] == [0, 0]
    assert replay.check_forward(minigrad.add, _shifted(add, "float32", 1e-6), tolerances=tolerances) is None
    assert replay.check_forward(minigrad.add, _shifted(add, "float32", 1e-4), tolerances=tolerances) == "values differ"
    assert replay.check_forward(minigrad.add, _shifted(add, "float32", 1e-6)) == "values differ"   # float64's 1e-7
    assert replay.check_forward(minigrad.add, _shifted(add, "int64", 1), tolerances=tolerances) == "values differ"
    sample = add["dtypes"]["float32"][0]
    shape = sample["forward"]["value"][0]["shape"]
    assert replay.check_forward(lambda *args: minigrad.add(*args).double(), sample) == (
        f"torch.float64{shape} where PyTorch gives torch.float32{shape}")


def test_random_values_are_compared_by_their_statistics():
    randn = next(s for s in RECORDS["randn"]["samples"] if s["forward"].get("random") == "random")
    assert "data" not in randn["forward"]["value"][0] and randn["forward"]["stats"][0]["n"] >= replay.RUNS
    assert replay.check_forward(minigrad.randn, randn) is None
    assert replay.check_forward(minigrad.rand, randn).startswith("random values of output 0: mean ")
    assert replay.check_forward(lambda *a, **k: minigrad.randn(*a, **k) * 1.5, randn).startswith(
        "random values of output 0: variance ")
    dropout = RECORDS["nn.functional.dropout"]
    sample = next(s for s in dropout["samples"] if s["forward"].get("random") == "random")
    F = minigrad.nn.functional
    assert replay.check_forward(F.dropout, sample) is None
    unscaled = lambda x, *args, **kwargs: F.dropout(x, *args, **kwargs) * 0.5   # noqa: E731
    assert replay.check_forward(unscaled, sample).startswith("random values of output 0: ")
    assert dropout["seed"] == replay.SEED and replay.run_op(dropout) == EXPECTED.get("nn.functional.dropout", {})


def test_statistics_of_two_draws_of_one_distribution_agree_and_of_two_distributions_do_not():
    rng = np.random.default_rng(0)
    normal = [replay.pooled_stats([rng.normal(size=25) for _ in range(replay.RUNS)]) for _ in range(2)]
    assert replay.stats_differ(*normal) is None
    moved = replay.pooled_stats([rng.normal(0.3, size=25) for _ in range(replay.RUNS)])
    assert replay.stats_differ(normal[0], moved).startswith("mean ")
    zeros = replay.pooled_stats([rng.normal(size=25) * (rng.random(25) < 0.5) for _ in range(replay.RUNS)])
    assert replay.stats_differ(normal[0], zeros) is not None


def test_uninitialized_values_are_compared_by_dtype_and_shape_only():
    sample = next(s for s in RECORDS["empty"]["samples"] if s["forward"]["value"][0]["shape"] not in ([], [0]))
    assert sample["forward"]["random"] == "uninitialized" and "data" not in sample["forward"]["value"][0]
    assert replay.check_forward(minigrad.empty, sample) is None
    assert replay.check_forward(lambda *a, **k: minigrad.empty(*a, **k).float(), sample).startswith("torch.float32")


def test_the_readme_table_and_the_work_list_are_up_to_date():
    text = replay.README.read_text()
    start = text.index(replay.BEGIN) + len(replay.BEGIN)
    assert text[start:text.index(replay.END)] == "\n" + replay.readme_table(RECORDS, EXPECTED) + "\n", \
        "run python -m tests.opinfo.replay"
    assert replay.WORK_LIST.read_text() == replay.work_list(EXPECTED, module_replay.expected_failures())
