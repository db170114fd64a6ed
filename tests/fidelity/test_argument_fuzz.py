"""Factories and shape, reduction and sorting ops called with random arguments (ints, negative ones,
floats, bools, None, tuples, lists, strings), on PyTorch and on minigrad.

Whatever the call, no error from numpy or from Python's own machinery may reach the user: when
minigrad refuses a call, it raises one of the exception types PyTorch uses for arguments, in words of
its own (never "cannot be interpreted as an integer", "operands could not be broadcast"...). When
PyTorch accepts the call, minigrad must too, with the same shape and dtype.
"""
import random
import re
import warnings

import pytest

import minigrad

torch = pytest.importorskip("torch", reason="the fidelity tests compare with real PyTorch: run `make fidelity`")

ATOMS = [0, 1, 2, 3, -1, -2, 5, 2.0, 1.5, True, False, None, (), (2,), (2, 3), [1, 2], (-1,), (0,), (2, -1), "a"]
SIX = lambda t: t.arange(6.0).reshape(2, 3)   # noqa: E731
CALLS = {
    "zeros": lambda t, *a: t.zeros(*a), "ones": lambda t, *a: t.ones(*a), "full": lambda t, *a: t.full(*a),
    "arange": lambda t, *a: t.arange(*a), "linspace": lambda t, *a: t.linspace(*a), "eye": lambda t, *a: t.eye(*a),
    "randn": lambda t, *a: t.randn(*a).shape, "randint": lambda t, *a: t.randint(*a).shape,
    "randperm": lambda t, *a: t.randperm(*a).shape, "tensor": lambda t, *a: t.tensor(*a),
    "reshape": lambda t, *a: SIX(t).reshape(*a), "view": lambda t, *a: SIX(t).view(*a),
    "expand": lambda t, *a: SIX(t).expand(*a), "permute": lambda t, *a: SIX(t).permute(*a),
    "transpose": lambda t, *a: SIX(t).transpose(*a), "narrow": lambda t, *a: SIX(t).narrow(*a),
    "unsqueeze": lambda t, *a: SIX(t).unsqueeze(*a), "squeeze": lambda t, *a: SIX(t).squeeze(*a),
    "flatten": lambda t, *a: SIX(t).flatten(*a), "repeat": lambda t, *a: SIX(t).repeat(*a),
    "split": lambda t, *a: SIX(t).split(*a), "chunk": lambda t, *a: SIX(t).chunk(*a),
    "select": lambda t, *a: SIX(t).select(*a), "flip": lambda t, *a: SIX(t).flip(*a),
    "sum": lambda t, *a: SIX(t).sum(*a), "mean": lambda t, *a: SIX(t).mean(*a), "std": lambda t, *a: SIX(t).std(*a),
    "softmax": lambda t, *a: SIX(t).softmax(*a), "cumsum": lambda t, *a: SIX(t).cumsum(*a),
    "max": lambda t, *a: SIX(t).max(*a), "argmax": lambda t, *a: SIX(t).argmax(*a), "topk": lambda t, *a: SIX(t).topk(*a),
    "sort": lambda t, *a: SIX(t).sort(*a), "prod": lambda t, *a: SIX(t).prod(*a), "unbind": lambda t, *a: SIX(t).unbind(*a),
    "repeat_interleave": lambda t, *a: SIX(t).repeat_interleave(*a), "clamp": lambda t, *a: SIX(t).clamp(*a),
    "getitem": lambda t, *a: SIX(t)[a[0] if len(a) == 1 else a], "new_zeros": lambda t, *a: SIX(t).new_zeros(*a),
    "cat": lambda t, *a: t.cat([SIX(t), SIX(t)], *a), "stack": lambda t, *a: t.stack([SIX(t), SIX(t)], *a),
}
# What numpy or the interpreter says when an argument was passed on unchecked.
INTERNAL = re.compile(r"cannot be interpreted as an integer|invalid literal for int|int\(\) argument must be|"
                      r"not supported between instances|could not be broadcast|could not convert|is not iterable|"
                      r"ndarray|numpy|axis \d+ is out of bounds|has no attribute|object is not subscriptable|"
                      r"unhashable type")


def outcome(call):
    try:
        result = call()
    except Exception as error:   # the exception is the answer being compared
        return ("error", type(error).__name__, str(error))
    if isinstance(result, (tuple, list)) and result and hasattr(result[0], "shape"):
        return ("value", tuple(tuple(r.shape) for r in result))
    if hasattr(result, "shape"):
        return ("value", tuple(result.shape), str(result.dtype).replace("minigrad", "torch"))
    return ("value", repr(result))


@pytest.mark.parametrize("seed", range(4))
def test_no_internal_error_and_what_pytorch_accepts_works(seed):
    rng = random.Random(seed)
    problems = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(600):
            name = rng.choice(sorted(CALLS))
            args = tuple(rng.choice(ATOMS) for _ in range(rng.randint(0, 3)))
            expected = outcome(lambda: CALLS[name](torch, *args))
            got = outcome(lambda: CALLS[name](minigrad, *args))
            if got[0] == "error" and (got[1] not in ("TypeError", "RuntimeError", "IndexError", "ValueError",
                                                     "NotImplementedError") or INTERNAL.search(got[2])):
                problems.append(f"{name}{args}: minigrad's internal {got[1]}: {got[2]}")
            elif expected[0] == "value" and got != expected:
                problems.append(f"{name}{args}: PyTorch gives {expected}, minigrad {got}")
    assert problems == []
