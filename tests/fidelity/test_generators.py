"""The generators of the OpInfo and ModuleInfo data, run on real PyTorch: what they classify,
which tolerances and seeds they record, and which files they keep."""
import pytest

torch = pytest.importorskip("torch", reason="the fidelity tests compare with real PyTorch: run `make fidelity`")
import moduleinfo_generate  # noqa: E402  (after the skip)
import opinfo_generate  # noqa: E402
from torch.testing._internal.common_methods_invocations import op_db  # noqa: E402
from torch.testing._internal.common_modules import module_db  # noqa: E402


def op(name: str, variant: str = ""):
    return next(o for o in op_db if o.name == name and o.variant_test_name == variant)


def module_info(name: str):
    return next(m for m in module_db if m.name == name)


def test_randomness_tells_random_uninitialized_and_deterministic_samples_apart():
    randomness, F = opinfo_generate.randomness, torch.nn.functional
    assert randomness(lambda: torch.randn(3, 4)) == "random"
    assert randomness(lambda: F.dropout(torch.ones(50), 0.5)) == "random"
    assert randomness(lambda: F.dropout(torch.ones(50), 0.0)) is None
    assert randomness(lambda: torch.empty(5, 5)) == "uninitialized"
    assert randomness(lambda: torch.ones(5, 5).new_empty(3, 2)) == "uninitialized"
    assert randomness(lambda: torch.zeros(5, 5) + 1) is None
    assert randomness(lambda: torch.ones(2)[5]) is None   # an error is the forward's to record


def test_random_ops_run_with_opinfos_seed_and_their_statistics_come_from_the_plain_function():
    assert opinfo_generate.seeded(op("nn.functional.dropout")) and opinfo_generate.seeded(op("randn"))
    assert not opinfo_generate.seeded(op("add"))
    assert opinfo_generate.plain_callable(opinfo_generate.variants(op("rand_like"))) is torch.rand_like


def test_tolerances_are_torch_testings_defaults_loosened_where_the_opinfo_says_so():
    assert opinfo_generate.tolerance(op("add"), torch.float32) == [1.3e-06, 1e-05]
    assert opinfo_generate.tolerance(op("add"), torch.int64) == [0, 0]
    assert opinfo_generate.tolerance(op("__rmatmul__"), torch.float32) == [0.0012, 1e-05]
    assert opinfo_generate.tolerance(op("sigmoid"), torch.float16) == [0.001, 0.01]


def test_the_cotangents_are_the_replays():
    output = torch.zeros(2, 3, dtype=torch.float16)
    cotangent, = opinfo_generate.cotangents([output])
    assert cotangent.dtype == torch.float16 and cotangent.shape == (2, 3)
    assert len(set(cotangent.flatten().tolist())) == 6


def test_a_file_no_longer_qualifying_is_deleted(tmp_path, monkeypatch):
    monkeypatch.setattr(opinfo_generate, "DATA", tmp_path)
    for name in ("nn.functional.conv2d", "abs", "stale"):
        (tmp_path / f"{name}.json.gz").write_bytes(b"")
    opinfo_generate.main(["nn.functional.conv2d"])   # named, but minigrad does not implement it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["abs.json.gz", "stale.json.gz"]
    monkeypatch.setattr(opinfo_generate, "op_db", [op("abs")])
    opinfo_generate.main([])   # abs supports sparse COO inputs: its sparse file is kept too
    assert sorted(p.name for p in tmp_path.iterdir()) == ["abs.json.gz", "sparse_coo.abs.json.gz"]
    (tmp_path / "sparse_coo.abs.json.gz").unlink()
    opinfo_generate.main(["sparse_coo.abs"])   # an entry is named by any of its files
    assert sorted(p.name for p in tmp_path.iterdir()) == ["abs.json.gz", "sparse_coo.abs.json.gz"]


def test_a_module_file_no_longer_qualifying_is_deleted(tmp_path, monkeypatch):
    monkeypatch.setattr(moduleinfo_generate, "DATA", tmp_path)
    monkeypatch.setattr(moduleinfo_generate, "module_db", [module_info("nn.ReLU"), module_info("nn.Conv2d")])
    (tmp_path / "nn.Conv2d.json.gz").write_bytes(b"")
    moduleinfo_generate.main([])
    assert [p.name for p in tmp_path.iterdir()] == ["nn.ReLU.json.gz"]


def test_module_records_keep_the_parameters_order():
    record = moduleinfo_generate.record_module(module_info("nn.Linear"))
    sample = record["samples"]["float64"][0]
    assert [name for name, _ in sample["parameters"]] == ["weight", "bias"]
    assert sample["gradcheck"] == sample["gradgradcheck"] == {"value": True}
    assert "vjp" not in record["samples"]["float32"][0] and record["tolerance"]["float32"] == [1.3e-06, 1e-05]


def test_a_second_run_records_the_same():
    # cat's error inputs share tensors that a failed out= call resizes; amax's hold torch.empty outputs
    for name in ("cat", "amax"):
        assert opinfo_generate.record_op(op(name)) == opinfo_generate.record_op(op(name))


def test_an_op_without_sparse_samples_gets_no_sparse_file():
    # zeros_like supports sparse COO, but its sparse sample function yields none (OpInfo's "NO SAMPLES!")
    assert op("zeros_like").supports_sparse and opinfo_generate.record_op(op("zeros_like"), sparse=True) is None
