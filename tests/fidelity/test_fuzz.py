"""Differential fuzzing: random programs inside minigrad's API contract must behave identically
on minigrad and on real PyTorch (values, gradients, graphs, printing, errors and warnings).

`make fidelity` runs MINIGRAD_FUZZ_EXAMPLES programs (300 by default) with a fixed hypothesis seed
(FUZZ_SEED=0); `make fidelity FUZZ_EXAMPLES=1000 FUZZ_SEED=` runs 1,000 with a random seed.
`python tests/fidelity/fuzz.py --programs 1000` counts identical programs without stopping.
"""
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minigrad

torch = pytest.importorskip("torch", reason="the fidelity tests compare with real PyTorch: run `make fidelity`")
from compare import compare, report  # noqa: E402  (after the skip)
from programs import HypothesisChooser, generate  # noqa: E402

EXAMPLES = int(os.environ.get("MINIGRAD_FUZZ_EXAMPLES", "300"))


@settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_a_random_program_behaves_the_same_on_minigrad_and_pytorch(data):
    program = generate(HypothesisChooser(data), torch)
    found = compare(program, torch, minigrad)
    assert not found, report(program, found)


def test_a_program_prints_as_runnable_pytorch_code():
    from programs import RandomChooser
    program = generate(RandomChooser(1), torch)
    source = program.source()
    assert source.startswith("import torch\n") and "PyTorch raises" in source
    preamble, _ = source.split("\n" + program.steps[0].source(), 1)
    namespace = {}
    exec(preamble, namespace)
    for step in program.steps:   # each printed line runs as it is, and fails where PyTorch failed
        if step.raises:
            with pytest.raises(Exception) as caught:
                exec(step.source(), namespace)
            assert type(caught.value).__name__ == step.raises
        else:
            exec(step.source(), namespace)


def test_the_comparison_notices_a_difference():
    from programs import Program, Step
    program = Program([Step("x0 = torch.tensor([1.5, 2.0], requires_grad=True)", "x0"),
                       Step("x1 = (x0 * 2).sum()", "x1")])
    assert compare(program, torch, minigrad) == []
    program.steps.append(Step("x2 = x0.exp() if torch.__name__ == 'torch' else x0.sin()", "x2"))
    found = compare(program, torch, minigrad)
    assert len(found) == 4 and found[0].startswith("step 3 `x2`: values")   # values, repr, str, graph
