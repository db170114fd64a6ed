"""Record PyTorch's ModuleInfo samples and PyTorch's answers on them, for minigrad's torch-free replay.

Run by ``make fidelity`` (in ``.venv-fidelity``): ``python tests/fidelity/moduleinfo_generate.py
[nn.Linear ...]``. For every ModuleInfo of ``torch.testing._internal.common_modules.module_db``
whose module minigrad implements (``minigrad.inventory``: never a hand list), it writes
``tests/opinfo/modules/<name>.json.gz``. For each dtype of the ModuleInfo that minigrad has, and
each training mode it lists, each sample holds what PyTorch's ``test/test_modules.py`` works with:
the constructor's and forward's arguments, the parameters and buffers PyTorch's module was built
with, its forward outputs, and in float64 one vector-Jacobian product over the inputs and the
parameters and the verdicts of gradcheck and gradgradcheck on the total derivative and on each
parameter alone. Each error input records PyTorch's exception type and message, at construction or
forward as the ModuleInfo says. Without module names, the file of a module that no longer qualifies
is deleted. ``tests/opinfo/test_moduleinfo.py`` replays them.
"""
from __future__ import annotations

import functools
import sys

import torch
from torch.testing._internal.common_modules import ModuleErrorEnum, module_db

from opinfo_generate import (ROOT, Unrepresentable, cotangents, encode, flat_tensors, implemented, made, outcome,
                             regenerate, tolerances)
from tests.opinfo.module_replay import gradient_checks  # noqa: E402  (opinfo_generate puts the root on sys.path)

DATA = ROOT / "tests" / "opinfo" / "modules"
DTYPES = (torch.float64, torch.float32, torch.float16)   # ModuleInfo lists floating dtypes only


def encode_call(function_input) -> dict:
    return {"args": encode(list(function_input.args)),
            "kwargs": {k: encode(v) for k, v in function_input.kwargs.items()}}


def build(info, module_input, dtype, training: bool):
    module = info.module_cls(*module_input.constructor_input.args, **module_input.constructor_input.kwargs)
    module.to(dtype)
    module.train(training)
    return module


def record_sample(info, module_input, dtype, training: bool) -> dict:
    record = {"desc": module_input.desc, "training": training, "constructor": encode_call(
        module_input.constructor_input), "input": encode_call(module_input.forward_input)}
    module = build(info, module_input, dtype, training)
    # [name, value] pairs: their order is the module's (a JSON object's keys are sorted when written)
    record["parameters"] = [[name, encode(p.detach())] for name, p in module.named_parameters()]
    record["buffers"] = [[name, encode(b)] for name, b in module.named_buffers()]
    args, kwargs = module_input.forward_input.args, module_input.forward_input.kwargs
    forward = outcome(lambda: module(*args, **kwargs))
    if "error" in forward:
        record["forward"] = forward
        return record
    outputs = flat_tensors(forward["value"])
    record["forward"] = {"value": [encode(o.detach()) for o in outputs],
                         "requires_grad": [o.requires_grad for o in outputs]}
    if dtype != torch.float64:   # the other dtypes: the forward only, as for OpInfo
        return record
    inputs = [t for t in flat_tensors([args, kwargs]) + list(module.parameters()) if t.requires_grad]
    differentiable = [o for o in outputs if o.requires_grad]
    if not inputs or not differentiable:
        return record
    grads = outcome(lambda: torch.autograd.grad(differentiable, inputs, cotangents(differentiable), allow_unused=True))
    record["vjp"] = grads if "error" in grads else {"value": [None if g is None else encode(g) for g in grads["value"]]}
    checks = {"gradcheck": torch.autograd.gradcheck}
    if info.supports_gradgrad:
        checks["gradgradcheck"] = torch.autograd.gradgradcheck
    for check, run in checks.items():
        run = functools.partial(run, fast_mode=True, check_batched_grad=False)
        verdict = outcome(lambda: gradient_checks(module, list(args), kwargs, run, torch.Tensor, flat_tensors))
        record[check] = verdict if "error" in verdict else {"value": verdict["value"]}
    return record


def record_error(info, error_input) -> dict:
    module_input = error_input.module_error_input
    on = "construction" if error_input.error_on == ModuleErrorEnum.CONSTRUCTION_ERROR else "forward"
    entry = {"on": on, "constructor": encode_call(module_input.constructor_input), "regex": error_input.error_regex}
    construct = lambda: info.module_cls(*module_input.constructor_input.args,   # noqa: E731
                                        **module_input.constructor_input.kwargs)
    if on == "forward":
        entry["input"] = encode_call(module_input.forward_input)
        module = construct()
        forward = module_input.forward_input
        entry["forward"] = outcome(lambda: module(*forward.args, **forward.kwargs))
    else:
        entry["forward"] = outcome(construct)
    if "value" in entry["forward"]:
        entry["forward"] = {"value": []}   # PyTorch raised nothing after all: minigrad must not either
    return entry


def record_module(info) -> dict | None:
    namespace, _, name = ("torch." + info.name).rpartition(".")
    if not implemented(namespace, name):
        return None
    torch.manual_seed(0)   # the samples' random values: the same file from the same PyTorch
    samples, skipped = {}, []
    for dtype in (d for d in DTYPES if d in info.dtypes):
        key = str(dtype)[len("torch."):]
        samples[key] = []
        for training in (True, False) if info.train_and_eval_differ else (True,):
            for module_input in made(info.module_inputs_func(info, device="cpu", dtype=dtype, requires_grad=True,
                                                             training=training)):
                try:
                    samples[key].append(record_sample(info, module_input, dtype, training))
                except Unrepresentable as why:
                    skipped.append(f"{key}: {why}")
    errors = []
    if info.module_error_inputs_func is not None:
        for error_input in made(info.module_error_inputs_func(info, device="cpu", dtype=torch.float64,
                                                              requires_grad=False, training=True)):
            try:
                errors.append(record_error(info, error_input))
            except Unrepresentable as why:
                skipped.append(f"error input: {why}")
    return {"module": info.name, "class": f"{namespace}.{name}", "torch": torch.__version__,
            "tolerance": tolerances(info), "samples": samples, "error_inputs": errors, "skipped": skipped}


def main(names: list) -> int:
    regenerate(DATA, module_db, lambda info: {info.name: lambda: record_module(info)}, lambda record: ", ".join(
        f"{len(s)} {d} samples" for d, s in record["samples"].items()) + f", {len(record['error_inputs'])} error "
        f"inputs, {len(record['skipped'])} skipped", names)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
