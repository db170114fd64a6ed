"""Record PyTorch's OpInfo samples and PyTorch's answers on them, for minigrad's torch-free replay.

Run by ``make fidelity`` (in ``.venv-fidelity``): ``python tests/fidelity/opinfo_generate.py [op ...]``.
For every OpInfo of ``torch.testing._internal.common_methods_invocations.op_db`` whose function or
method minigrad implements (``minigrad.inventory``: never a hand list), it writes
``tests/opinfo/data/<op>.json.gz``:

- each float64 sample (input, args, kwargs), PyTorch's forward outputs, one vector-Jacobian product
  with a fixed random cotangent, gradcheck's and gradgradcheck's verdicts (fast mode);
- for each other dtype minigrad has and OpInfo lists for the op (float32, float16, integers, bool),
  that dtype's samples with PyTorch's forward outputs (or its error);
- the tolerance OpInfo states for each dtype (torch.testing's default, or the op's own);
- each ``error_input`` with PyTorch's exception type and message.

A sample whose values depend on the random seed (``randn``, ``dropout``) records, instead of its
values, their statistics over many seeds; one whose values are not even fixed by the seed
(``empty``: uninitialized memory) records only dtype and shape. Without op names, the file of an op
that no longer qualifies is deleted. ``tests/opinfo/test_opinfo.py`` replays the files against minigrad.

An op that supports sparse COO inputs also gets ``sparse_coo.<op>.json.gz``, the same record made
from its sparse samples: its own (``sample_inputs_sparse``), or, for a unary ufunc, its samples with
the input made sparse, as test_sparse.py's TestSparseUnaryUfuncs makes them. There the VJP and the
gradient checks run on the outputs made dense with ``to_dense(masked_grad=True)``, with
``gradcheck(..., masked=True)``. Samples storing more than ``SPARSE_LIMIT`` numbers are not
recorded (listed as skipped).
"""
from __future__ import annotations

import base64
import contextlib
import copy
import gzip
import importlib
import json
import sys
import unittest
import warnings
from pathlib import Path

import torch
from torch.testing._comparison import default_tolerances
from torch.testing._internal.common_device_type import precisionOverride, toleranceOverride
from torch.testing._internal.common_methods_invocations import op_db, sparse_unary_ufuncs

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from minigrad.inventory import classify, torch_names  # noqa: E402
from minigrad.types import _BY_NUMPY  # noqa: E402
from tests.opinfo.replay import RUNS, SEED, cotangent, pooled_stats  # noqa: E402

DATA = ROOT / "tests" / "opinfo" / "data"
# The dtypes minigrad has, besides float64 (which gets the gradient checks too).
OTHER_DTYPES = [getattr(torch, d.name) for d in _BY_NUMPY.values() if d.name != "float64"]
SPARSE_LIMIT = 20_000   # numbers (indices and values) a recorded sparse sample may store


class Unrepresentable(Exception):
    """An argument the JSON record cannot carry (a generator, a memory format...)."""


def encode(value):
    if isinstance(value, torch.Tensor) and value.layout == torch.sparse_coo and not value.is_complex():
        parts = value.detach()
        return {"sparse": {"indices": encode(parts._indices()), "values": encode(parts._values()),
                           "size": list(value.shape), "coalesced": value.is_coalesced()},
                "requires_grad": value.requires_grad}
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


def plain_callable(found: dict):
    """PyTorch's own callable of the first variant minigrad has (OpInfo's ``op`` may be a wrapper that
    reseeds on every call, so its random draws do not change with the seed)."""
    variant = next(v for v in ("function", "method", "inplace") if v in found)
    namespace, _, name = found[variant].rpartition(".")
    function = getattr(torch.Tensor if namespace == "torch.Tensor" else importlib.import_module(namespace), name)
    if variant == "inplace":
        return lambda input, *args, **kwargs: function(input.detach().clone(), *args, **kwargs)
    return function


def seeded(op) -> bool:
    """Whether OpInfo calls the op through ``wrapper_set_seed``: every call draws with seed 42, which
    makes gradcheck of a random op (dropout) meaningful."""
    code = getattr(op.op, "__code__", None)
    return code is not None and "wrapper_set_seed" in code.co_names


def tolerance(op, dtype) -> list:
    """``[rtol, atol]``: torch.testing's default for the dtype, loosened where the OpInfo's own
    decorators (for the CPU) override it for that dtype."""
    rtol, atol = default_tolerances(dtype)
    for info in op.decorators:
        if getattr(info, "device_type", None) not in (None, "cpu"):
            continue
        for decorator in getattr(info, "decorators", [info]):
            if isinstance(decorator, toleranceOverride) and dtype in decorator.d:
                rtol, atol = max(rtol, decorator.d[dtype].rtol), max(atol, decorator.d[dtype].atol)
            elif isinstance(decorator, precisionOverride) and dtype in decorator.d:
                atol = max(atol, decorator.d[dtype])
    return [rtol, atol]


def tolerances(info) -> dict:
    """``{dtype: [rtol, atol]}`` for every dtype minigrad has, as an OpInfo or a ModuleInfo states them."""
    return {d.name: tolerance(info, getattr(torch, d.name)) for d in _BY_NUMPY.values()}


def outcome(call):
    """``{"value": ...}`` or ``{"error": [type, message]}``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return {"value": call()}
    except Exception as error:   # PyTorch's answer, whatever it is, is what minigrad must give
        return {"error": [type(error).__name__, str(error).split("\n")[0]]}


def draws(call, seeds) -> list:
    """The outputs of ``call`` run once per seed, each a list of tensors."""
    results = []
    for seed in seeds:
        torch.manual_seed(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results.append([t.detach().clone() for t in flat_tensors(call())])
    return results


def _bytes(t: torch.Tensor) -> bytes:
    return (t.to_dense() if t.layout == torch.sparse_coo else t).numpy().tobytes()


def _same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(x.dtype == y.dtype and x.shape == y.shape and x.layout == y.layout and
                                    _bytes(x) == _bytes(y) for x, y in zip(a, b))


@contextlib.contextmanager
def filled_memory():
    """PyTorch's deterministic mode, in which fresh memory (``torch.empty``) is filled with NaN, True
    or the largest integer instead of keeping what it held."""
    torch.use_deterministic_algorithms(True)
    torch.utils.deterministic.fill_uninitialized_memory = True
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(False)


def made(inputs) -> list:
    """A catalogue's samples, made with fresh memory filled: an ``out=`` tensor made with torch.empty
    then holds the same values in every run, and so does the file recording it."""
    with filled_memory():
        return list(inputs)


def randomness(call) -> str | None:
    """``"uninitialized"`` when the values depend on what the memory held before, ``"random"`` when
    they change with the seed, None for a deterministic sample. PyTorch's deterministic mode fills
    fresh memory with NaN, True or the largest integer; the other runs find memory just filled with
    zeros (freed right before), so that an output left uninitialized differs from that one."""
    try:
        with filled_memory():
            filled, = draws(call, [0])
        runs = []
        for _ in range(3):
            litter = [torch.zeros(t.numel() * t.element_size(), dtype=torch.uint8) for t in filled]
            del litter
            runs += draws(call, [0])
        other, = draws(call, [1])
    except Exception:   # an error is recorded by the forward itself
        return None
    if not all(_same(run, filled) for run in runs):
        return "uninitialized"
    return "random" if not _same(runs[0], other) else None


def record_forward(op, sample, plain) -> tuple:
    """A sample with PyTorch's forward outputs (for a random sample their dtype, shape and statistics),
    and the outputs themselves (none after an error)."""
    args = (sample.input, *sample.args)
    record = {"input": encode(sample.input), "args": encode(list(sample.args)), "kwargs": {k: encode(v) for k, v in
                                                                                           sample.kwargs.items()}}
    forward = outcome(lambda: op(*args, **sample.kwargs))
    if "error" in forward:
        record["forward"] = forward
        return record, []
    outputs = flat_tensors(forward["value"])
    record["forward"] = {"value": [encode(o.detach()) for o in outputs],
                         "requires_grad": [o.requires_grad for o in outputs]}
    kind = randomness(lambda: plain(*args, **sample.kwargs))
    if kind:
        for value in record["forward"]["value"]:
            value.pop("data", None)
        record["forward"]["random"] = kind
    if kind == "random":
        runs = draws(lambda: plain(*args, **sample.kwargs), range(RUNS))
        record["forward"]["stats"] = [pooled_stats([run[k].numpy() for run in runs]) for k in range(len(outputs))]
    return record, outputs


def cotangents(outputs: list) -> list:
    """The cotangents of a VJP: the replay makes the same ones from the outputs' shapes and dtypes."""
    return [torch.from_numpy(cotangent(list(o.shape), str(o.dtype)[len("torch."):])) for o in outputs]


def dense_outputs(op):
    """``op`` with its sparse outputs made dense (``to_dense(masked_grad=True)``), for the gradient checks."""
    def dense(value):
        if isinstance(value, torch.Tensor) and value.layout == torch.sparse_coo:
            return value.to_dense(masked_grad=True)
        return type(value)(dense(v) for v in value) if isinstance(value, (list, tuple)) else value
    return lambda *args, **kwargs: dense(op(*args, **kwargs))


def record_sample(op, sample, plain, masked: bool = False) -> dict:
    """A float64 sample: its forward, then one VJP and the gradient checks (``masked``: of the
    outputs made dense, with ``gradcheck(..., masked=True)``)."""
    record, outputs = record_forward(op, sample, plain)
    args = (sample.input, *sample.args)
    call = dense_outputs(op) if masked else op
    if masked and outputs:
        outputs = flat_tensors(call(*args, **sample.kwargs))
    inputs = [t for t in flat_tensors([args, sample.kwargs]) if t.requires_grad]
    differentiable = [o for o in outputs if o.requires_grad]
    if not inputs or not differentiable:
        return record
    grads = outcome(lambda: torch.autograd.grad(differentiable, inputs, cotangents(differentiable), allow_unused=True))
    record["vjp"] = grads if "error" in grads else {"value": [None if g is None else encode(g) for g in grads["value"]]}

    def function(*diff):
        replace = dict(zip(map(id, inputs), diff))
        swap = lambda v: replace.get(id(v), v) if isinstance(v, torch.Tensor) else (   # noqa: E731
            type(v)(swap(x) for x in v) if isinstance(v, (list, tuple)) else v)
        return call(*swap(list(args)), **{k: swap(v) for k, v in sample.kwargs.items()})
    checks = {"gradcheck": torch.autograd.gradcheck}
    if op.supports_gradgrad:
        checks["gradgradcheck"] = torch.autograd.gradgradcheck
    for check, run in checks.items():
        verdict = outcome(lambda: run(function, tuple(inputs), fast_mode=True, check_undefined_grad=False,
                                      check_batched_grad=False, masked=masked))
        record[check] = verdict if "error" in verdict else {"value": bool(verdict["value"])}
    return record


def uninitialized(samples: list) -> None:
    """Mark every sample of an op that leaves its output uninitialized (``empty``) as such: one sample
    may happen to find memory that looks initialized, the op's other samples show what it does."""
    for sample in samples:
        forward = sample["forward"]
        if "value" in forward:
            forward["random"] = "uninitialized"
            forward.pop("stats", None)
            for value in forward["value"]:
                value.pop("data", None)


def dense_samples(op, dtype) -> list:
    return made(op.sample_inputs("cpu", dtype, requires_grad=dtype == torch.float64 and op.supports_autograd))


def sparse_samples(op, dtype) -> list:
    """PyTorch's sparse COO samples of ``op``: its own, or a unary ufunc's samples made sparse."""
    requires_grad = dtype == torch.float64 and op.supports_autograd
    try:
        return made(op.sample_inputs_sparse(torch.sparse_coo, "cpu", dtype, requires_grad=requires_grad))
    except unittest.SkipTest:   # "NO SAMPLES!": none in this dtype (zeros_like's bool)
        return []
    except NotImplementedError:   # "no sample function specified"
        if op.name not in {unary.name for unary in sparse_unary_ufuncs}:
            return []
    samples = made(op.sample_inputs("cpu", dtype))
    for sample in samples:
        sample.input = sample.input.to_sparse().detach().requires_grad_(requires_grad)
    return samples


def stored_numbers(sample) -> int:
    return sum(t._values().numel() + t._indices().numel() for t in flat_tensors([sample.input, list(sample.args)])
               if t.layout == torch.sparse_coo)


def record_samples(samples: list, dtype, record, skipped: list) -> list:
    """``record(sample)`` for each sample; one the JSON cannot carry, or a sparse one storing more than
    SPARSE_LIMIT numbers, is listed in ``skipped`` instead."""
    recorded, name = [], str(dtype)[len("torch."):]
    for sample in samples:
        try:
            if stored_numbers(sample) > SPARSE_LIMIT:
                raise Unrepresentable(f"a sample storing {stored_numbers(sample)} numbers (more than {SPARSE_LIMIT})")
            recorded.append(record(sample))
        except Unrepresentable as why:
            skipped.append(f"{name}: {why}")
    return recorded


def record_errors(op, skipped: list) -> list:
    """Each ``error_input`` with PyTorch's exception type and message."""
    errors = []
    for error_input in made(op.error_inputs("cpu")) if op.error_inputs_func else []:
        # a copy of its own: error inputs share tensors that a failed out= call may have resized
        sample = copy.deepcopy(error_input.sample_input)
        try:
            entry = {"input": encode(sample.input), "args": encode(list(sample.args)),
                     "kwargs": {k: encode(v) for k, v in sample.kwargs.items()}}
        except Unrepresentable as why:
            skipped.append(f"error input: {why}")
            continue
        entry["forward"] = outcome(lambda: [encode(t.detach()) for t in flat_tensors(
            op(sample.input, *sample.args, **sample.kwargs))])
        errors.append(entry)
    return errors


def record_op(op, sparse: bool = False) -> dict | None:
    """The record of ``op``'s samples, or (``sparse``) of its sparse COO samples, without its in-place
    variant or error inputs; None when minigrad has no variant of the op or it has no such samples."""
    found = variants(op)
    if sparse:
        found = {v: name for v, name in found.items() if v != "inplace"} if op.supports_sparse else {}
    if not found:
        return None
    torch.manual_seed(0)   # the samples' random values: the same file from the same PyTorch
    plain, supported, skipped = plain_callable(found), op.supported_dtypes("cpu"), []
    samples_of = sparse_samples if sparse else dense_samples
    samples = record_samples(samples_of(op, torch.float64), torch.float64, lambda s: record_sample(
        op, s, plain, masked=sparse), skipped) if torch.float64 in supported else []
    dtypes = {str(dtype)[len("torch."):]: record_samples(samples_of(op, dtype), dtype, lambda s: record_forward(
        op, s, plain)[0], skipped) for dtype in OTHER_DTYPES if dtype in supported}
    every = samples + [s for some in dtypes.values() for s in some]
    if any(s["forward"].get("random") == "uninitialized" for s in every):
        uninitialized(every)
    if sparse and not every:
        return None
    return {"op": op.name, "variant": op.variant_test_name, "callables": found, "torch": torch.__version__,
            "tolerance": tolerances(op), "samples": samples, "dtypes": dtypes,
            "error_inputs": [] if sparse else record_errors(op, skipped), "skipped": skipped,
            **({"masked": True} if sparse else {}), **({"seed": SEED} if seeded(op) else {})}


def op_key(op) -> str:
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


def write(path: Path, record: dict) -> None:
    text = json.dumps(record, sort_keys=True, separators=(",", ":"))
    path.write_bytes(gzip.compress(text.encode(), mtime=0))


def regenerate(data: Path, entries, files, summary, names: list) -> None:
    """For each catalogue entry (those ``names`` names, by name or by file, if any), write each of its
    files: ``files(entry)`` gives ``{key: recorder}``, and ``recorder()`` the record written to
    ``data/<key>.json.gz``. The file of a record minigrad does not implement (None) is deleted;
    without names, so is every file that no entry wrote."""
    data.mkdir(parents=True, exist_ok=True)
    kept = set()
    for entry in entries:
        recorders = files(entry)
        if names and not ({entry.name, *recorders} & set(names)):
            continue
        for key, recorder in recorders.items():
            path, recorded = data / f"{key}.json.gz", recorder()
            if recorded is None:
                path.unlink(missing_ok=True)
                continue
            write(path, recorded)
            kept.add(path)
            print(f"{key}: {summary(recorded)}")
    for stale in set(data.glob("*.json.gz")) - kept if not names else ():
        stale.unlink()
        print(f"deleted {stale.name}: minigrad no longer implements it, or PyTorch's catalogue no longer lists it")


def op_files(op) -> dict:
    """An op's two files: its samples, and its sparse COO samples."""
    return {op_key(op): lambda: record_op(op), f"sparse_coo.{op_key(op)}": lambda: record_op(op, sparse=True)}


def main(names: list) -> int:
    regenerate(DATA, op_db, op_files, lambda record: (
        f"{len(record['samples'])} float64 samples, {sum(map(len, record['dtypes'].values()))} in "
        f"{len(record['dtypes'])} other dtypes, {len(record['error_inputs'])} error inputs, "
        f"{len(record['skipped'])} skipped"), names)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
