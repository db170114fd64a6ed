"""PyTorch's OpInfo samples replayed against minigrad (no PyTorch needed): see replay.py.

Expected failures are data (expected_failures.json): a check that fails and is not listed is a
regression; a listed check that passes now must be taken off the list (xfail strict). Both fail here.
After fixing an op, ``python -m tests.opinfo.replay <op>`` shows what still fails, and
``python -m tests.opinfo.replay`` rewrites the list, failures.md and the README's table.
"""
import copy
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.opinfo import replay  # noqa: E402

RECORDS = replay.records()
EXPECTED = replay.expected_failures()


@pytest.mark.parametrize("key", sorted(RECORDS))
def test_opinfo_samples(key):
    failing = replay.run_op(RECORDS[key])
    expected = EXPECTED.get(key, {})
    regressions = {c: r for c, r in failing.items() if c not in expected}
    now_passing = sorted(set(expected) - set(failing))
    assert not regressions and not now_passing, (
        f"{key}: new failures {regressions}; passing now, take them off expected_failures.json: {now_passing}")


def test_every_recorded_op_is_one_minigrad_implements_and_every_list_entry_has_data():
    assert len(RECORDS) > 50
    assert set(EXPECTED) <= set(RECORDS)
    assert all(record["torch"].startswith("2.13.0") for record in RECORDS.values())


def test_a_wrong_recorded_answer_is_caught():
    record = copy.deepcopy(RECORDS["add"])
    sample = record["samples"][0]
    right_forward = sample["forward"]["value"][0]
    sample["forward"]["value"][0] = sample["cotangents"][0]     # another tensor of the same shape
    sample["vjp"]["value"][0] = right_forward                   # add's true gradient is the cotangent itself
    failing = replay.run_op(record)
    assert failing["0:forward:function"] == "values differ"
    assert failing["0:vjp"] == "gradient of input 0: values differ"


def test_the_readme_table_and_the_work_list_are_up_to_date():
    text = replay.README.read_text()
    start = text.index(replay.BEGIN) + len(replay.BEGIN)
    assert text[start:text.index(replay.END)] == "\n" + replay.readme_table(RECORDS, EXPECTED) + "\n", \
        "run python -m tests.opinfo.replay"
    assert replay.WORK_LIST.read_text() == replay.work_list(EXPECTED)
