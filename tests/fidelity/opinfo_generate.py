"""Record PyTorch's OpInfo samples and PyTorch's answers on them, for minigrad's torch-free replay.

Run by ``make fidelity`` (in ``.venv-fidelity``): ``python tests/fidelity/opinfo_generate.py [op ...]``.
For every OpInfo of ``torch.testing._internal.common_methods_invocations.op_db`` whose function or
method minigrad implements (``minigrad.inventory``: never a hand list), it writes
``tests/opinfo/data/<op>.json.gz``: each float64 sample (input, args, kwargs), PyTorch's forward
outputs, one vector-Jacobian product with a fixed random cotangent, gradcheck's and gradgradcheck's
verdicts (fast mode), and each ``error_input`` with PyTorch's exception type and message.
``tests/opinfo/test_opinfo.py`` replays them against minigrad.
"""
from __future__ import annotations

import base64
import gzip
import json
import sys
import warnings
from pathlib import Path

import torch
from torch.testing._internal.common_methods_invocations import op_db

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from minigrad.inventory import classify, torch_names  # noqa: E402

DATA = ROOT / "tests" / "opinfo" / "data"


class Unrepresentable(Exception):
    """An argument the JSON record cannot carry (a generator, a memory format...)."""


def encode(value):
    if isinstance(value, torch.Tensor):
        if value.layout != torch.strided or value.is_complex() or value.dim() > 64:
            raise Unrepresentable(f"a {value.layout} {value.dtype} tensor")
        array = value.detach().contiguous().cpu().numpy()
        return {"tensor": str(value.dtype).replace("torch.", ""), "shape": list(value.shape),
                "data": base64.b64encode(array.tobytes()).decode(), "requires_grad": value.requires_grad}
    if isinstance(value, torch.dtype):
        return {"dtype": str(value).replace("torch.", "")}
    if isinstance(value, torch.Size):
        return list(value)
    if isinstance(value, (list, tuple)):
        return {"tuple": [encode(v) for v in value]} if isinstance(value, tuple) else [encode(v) for v in value]
    if isinstance(value, float) and value != value or value in (float("inf"), float("-inf")):
        return {"float": repr(value)}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise Unrepresentable(type(value).__name__)


def flat_tensors(value) -> list:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in flat_tensors(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in flat_tensors(v)]
    return []


def implemented(namespace: str, name: str) -> bool:
    try:
        return classify(namespace, name).status == "implemented"
    except KeyError:   # not a public name of that namespace in PyTorch either (torch.item: a method only)
        return False


def variants(op) -> dict:
    """The callables minigrad implements, by OpInfo variant: the function, the method, the in-place method."""
    namespace, _, name = ("torch." + op.name).rpartition(".")
    found = {}
    kind = torch_names()["namespaces"].get(namespace, {}).get(name, "")
    if kind.startswith("function") and implemented(namespace, name):   # torch.float is a dtype, not the op
        found["function"] = f"{namespace}.{name}"
    method = name if namespace == "torch" else None   # "__rsub__": a method only
    if name.startswith("__") and implemented("torch.Tensor", name):
        found["method"] = f"torch.Tensor.{name}"
    if op.method_variant is not None and method and implemented("torch.Tensor", method):
        found["method"] = f"torch.Tensor.{method}"
    if op.inplace_variant is not None and method and implemented("torch.Tensor", method + "_"):
        found["inplace"] = f"torch.Tensor.{method}_"
    return found


def outcome(call):
    """``{"value": ...}`` or ``{"error": [type, message]}``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return {"value": call()}
    except Exception as error:   # PyTorch's answer, whatever it is, is what minigrad must give
        return {"error": [type(error).__name__, str(error).split("\n")[0]]}


def record_sample(op, sample, generator) -> dict:
    args = (sample.input, *sample.args)
    record = {"input": encode(sample.input), "args": encode(list(sample.args)), "kwargs": {k: encode(v) for k, v in
                                                                                           sample.kwargs.items()}}
    forward = outcome(lambda: op(*args, **sample.kwargs))
    if "error" in forward:
        record["forward"] = forward
        return record
    outputs = flat_tensors(forward["value"])
    record["forward"] = {"value": [encode(o.detach()) for o in outputs]}
    inputs = [t for t in flat_tensors([args, sample.kwargs]) if t.requires_grad]
    differentiable = [o for o in outputs if o.requires_grad]
    if not inputs or not differentiable:
        return record
    cotangents = [torch.rand(o.shape, generator=generator, dtype=o.dtype) for o in differentiable]
    record["cotangents"] = [encode(c) for c in cotangents]
    grads = outcome(lambda: torch.autograd.grad(differentiable, inputs, cotangents, allow_unused=True))
    record["vjp"] = grads if "error" in grads else {"value": [None if g is None else encode(g) for g in grads["value"]]}

    def function(*diff):
        replace = dict(zip(map(id, inputs), diff))
        swap = lambda v: replace.get(id(v), v) if isinstance(v, torch.Tensor) else (   # noqa: E731
            type(v)(swap(x) for x in v) if isinstance(v, (list, tuple)) else v)
        return op(*swap(list(args)), **{k: swap(v) for k, v in sample.kwargs.items()})
    checks = {"gradcheck": torch.autograd.gradcheck}
    if op.supports_gradgrad:
        checks["gradgradcheck"] = torch.autograd.gradgradcheck
    for check, run in checks.items():
        verdict = outcome(lambda: run(function, tuple(inputs), fast_mode=True, check_undefined_grad=False,
                                      check_batched_grad=False))
        record[check] = verdict if "error" in verdict else {"value": bool(verdict["value"])}
    return record


def record_op(op) -> dict | None:
    found = variants(op)
    if not found:
        return None
    generator = torch.Generator().manual_seed(0)
    samples, skipped = [], []
    if torch.float64 in op.supported_dtypes("cpu"):
        for sample in op.sample_inputs("cpu", torch.float64, requires_grad=op.supports_autograd):
            try:
                samples.append(record_sample(op, sample, generator))
            except Unrepresentable as why:
                skipped.append(str(why))
    errors = []
    for error_input in op.error_inputs("cpu") if op.error_inputs_func else []:
        sample = error_input.sample_input
        try:
            entry = {"input": encode(sample.input), "args": encode(list(sample.args)),
                     "kwargs": {k: encode(v) for k, v in sample.kwargs.items()}}
        except Unrepresentable as why:
            skipped.append(f"error input: {why}")
            continue
        entry["forward"] = outcome(lambda: [encode(t.detach()) for t in flat_tensors(
            op(sample.input, *sample.args, **sample.kwargs))])
        errors.append(entry)
    return {"op": op.name, "variant": op.variant_test_name, "callables": found, "torch": torch.__version__,
            "samples": samples, "error_inputs": errors, "skipped": skipped}


def op_key(op) -> str:
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


def main(names: list) -> int:
    DATA.mkdir(parents=True, exist_ok=True)
    for op in op_db:
        if names and op_key(op) not in names and op.name not in names:
            continue
        record = record_op(op)
        if record is None:
            continue
        text = json.dumps(record, sort_keys=True, separators=(",", ":"))
        (DATA / f"{op_key(op)}.json.gz").write_bytes(gzip.compress(text.encode(), mtime=0))
        print(f"{op_key(op)}: {len(record['samples'])} samples, {len(record['error_inputs'])} error inputs, "
              f"{len(record['skipped'])} skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
