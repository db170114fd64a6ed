"""PyTorch's ModuleInfo samples replayed against minigrad's nn modules (no PyTorch needed): see
module_replay.py. As for OpInfo, the expected failures are data (module_expected_failures.json,
xfail strict both ways): a failure not listed, or a listed one that passes now, fails here."""
import copy
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from minigrad.inventory import classify  # noqa: E402
from tests.opinfo import module_replay, replay  # noqa: E402

RECORDS = module_replay.records()
EXPECTED = module_replay.expected_failures()


@pytest.mark.parametrize("key", sorted(RECORDS))
def test_moduleinfo_samples(key):
    failing = module_replay.run_module(RECORDS[key])
    problem = replay.unexpected(key, failing, EXPECTED.get(key, {}), module_replay.EXPECTED.name)
    assert problem is None, problem


def test_every_recorded_module_is_one_minigrad_implements_and_every_list_entry_has_data():
    assert len(RECORDS) >= 10 and set(EXPECTED) <= set(RECORDS)
    for key, record in RECORDS.items():
        assert record["torch"].startswith("2.13.0") and record["class"] == "torch." + key
        assert classify("torch.nn", key[len("nn."):]).status == "implemented"
        assert record["samples"]["float64"]


def test_a_wrong_recorded_answer_is_caught():
    record = copy.deepcopy(RECORDS["nn.Linear"])
    sample = record["samples"]["float64"][0]
    weight, bias = (value for _, value in sample["parameters"])
    sample["parameters"] = [["weight", weight], ["bias", {**bias, "shape": [9]}]]
    wrong_gradient = copy.deepcopy(RECORDS["nn.Linear"])
    grads = wrong_gradient["samples"]["float64"][0]["vjp"]["value"]
    grads[1], grads[2] = grads[2], grads[1]     # the weight's gradient given as the bias's, and back
    assert module_replay.run_module(record)["float64:0:forward"] == (
        "parameter bias: torch.float64[8] where PyTorch gives torch.float64[9]")
    assert module_replay.run_module(wrong_gradient)["float64:0:vjp"].startswith("gradient 1: torch.float64[8, 10]")


def test_an_error_of_another_message_or_type_is_caught():
    record = copy.deepcopy(RECORDS["nn.Embedding"])
    entry = next(e for e in record["error_inputs"] if e["on"] == "forward" and "error" in e["forward"])
    entry["forward"]["error"] = ["RuntimeError", "another message"]
    assert module_replay.check_error(record, entry).endswith("(PyTorch: RuntimeError: another message)")


def test_the_readme_table_is_up_to_date():
    text = replay.README.read_text()
    start = text.index(module_replay.BEGIN) + len(module_replay.BEGIN)
    assert text[start:text.index(module_replay.END)] == "\n" + module_replay.readme_table(RECORDS, EXPECTED) + "\n", \
        "run python -m tests.opinfo.replay"
