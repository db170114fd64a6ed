"""Run one program on PyTorch and on minigrad, and list where the two disagree."""
from __future__ import annotations

import re

import numpy as np

from programs import Program, run, warm_up

NUMBER = re.compile(r"-?\d+\.?\d*(e[+-]\d+)?")
SPACE = re.compile(r"\s+")


def same_values(expected: np.ndarray, actual: np.ndarray) -> bool:
    if expected.dtype != actual.dtype or expected.shape != actual.shape:
        return False
    if expected.dtype.kind == "f":
        tolerance = 1e-4 if expected.dtype == np.float32 else 1e-6   # float64 made from float32
        return bool(np.allclose(actual, expected, rtol=tolerance, atol=tolerance, equal_nan=True))
    return bool(np.array_equal(actual, expected))


def same_bits(expected: np.ndarray, actual: np.ndarray) -> bool:
    """Equal values, and equal signs of zero (-0. prints as "-0.")."""
    if expected.dtype != actual.dtype or expected.shape != actual.shape:
        return False
    if expected.dtype.kind != "f":
        return bool(np.array_equal(expected, actual))
    return bool(np.array_equal(expected, actual, equal_nan=True) and
                np.array_equal(np.signbit(expected), np.signbit(actual)))


def tensor_differences(expected: dict, actual: dict, where: str) -> list:
    found = []
    if not same_values(expected["values"], actual["values"]):
        found.append(f"{where}: values\n  torch:    {expected['values'].tolist()!r} ({expected['values'].dtype})"
                     f"\n  minigrad: {actual['values'].tolist()!r} ({actual['values'].dtype})")
    exact = same_bits(expected["values"], actual["values"])
    for key in ("repr", "str"):
        e, a = expected[key], actual[key]
        if not exact:   # rounding noise (last digit, sign of a zero): compare the text without numbers
            e, a = SPACE.sub("", NUMBER.sub("N", e)), SPACE.sub("", NUMBER.sub("N", a))
        if e != a:
            found.append(f"{where}: {key}\n  torch:    {expected[key]}\n  minigrad: {actual[key]}")
    for key in ("dtype", "shape", "requires_grad", "is_leaf", "graph", "sparse"):
        if expected.get(key) != actual.get(key):
            found.append(f"{where}: {key}\n  torch:    {expected[key]!r}\n  minigrad: {actual[key]!r}")
    return found


def differences(expected, actual, where: str) -> list:
    """Where two observations differ (empty when they agree)."""
    if isinstance(expected, dict) and isinstance(actual, dict) and "values" in expected and "values" in actual:
        return tensor_differences(expected, actual, where)
    if isinstance(expected, dict) and isinstance(actual, dict) and "items" in expected and "items" in actual:
        found = [f"{where}: {key}\n  torch:    {expected.get(key)!r}\n  minigrad: {actual.get(key)!r}"
                 for key in ("type", "repr") if expected.get(key) != actual.get(key)]
        if len(expected["items"]) != len(actual["items"]):
            return found + [f"{where}: {len(expected['items'])} items in torch, {len(actual['items'])} in minigrad"]
        for i, (e, a) in enumerate(zip(expected["items"], actual["items"])):
            found += differences(e, a, f"{where}[{i}]")
        return found
    if isinstance(expected, dict) and isinstance(actual, dict) and "float" in expected and "float" in actual:
        e, a = expected["float"], actual["float"]
        if (e != e and a != a) or abs(e - a) <= 1e-6 * max(1.0, abs(e)):   # e != e: both nan
            return []
    if isinstance(expected, dict) and isinstance(actual, dict) and expected.keys() == actual.keys():
        found = []
        for key in expected:
            if key in ("values", "items", "warnings"):
                continue
            if expected[key] != actual[key]:
                found.append(f"{where}: {key}\n  torch:    {expected[key]!r}\n  minigrad: {actual[key]!r}")
        return found
    return [f"{where}\n  torch:    {expected!r}\n  minigrad: {actual!r}"]


# A difference the README lists: arithmetic on inf and nan (inf * 0 in ``*`` or a sum) gives the same
# values on both sides, and minigrad also shows numpy's RuntimeWarning. Programs with edge values
# (programs.py's make_edge) meet it; it is not counted. Matrix products are silent, as PyTorch's: a
# warning from numpy's matmul or dot counts.
NUMPY_FLOATING_POINT_WARNING = re.compile(
    r"^RuntimeWarning: (invalid value|overflow|divide by zero) encountered in (?!matmul$|dot$)\w+$")


def _counted(warnings: list | None) -> list | None:
    kept = [w for w in warnings or () if not NUMPY_FLOATING_POINT_WARNING.match(w)]
    return kept or None


def compare(program: Program, torch, minigrad) -> list:
    """The differences between running ``program`` on ``torch`` and on ``minigrad``, step by step."""
    warm_up(torch), warm_up(minigrad)
    expected, actual = run(program, torch), run(program, minigrad)
    found = []
    for number, (step, e, a) in enumerate(zip(program.steps, expected, actual), start=1):
        if "INTERNAL ASSERT FAILED" in repr(e):
            break   # a bug of PyTorch's own ("please report a bug to PyTorch"): nothing to match from here on
        warnings_e, warnings_a = e.get("warnings"), _counted(a.get("warnings"))
        # warnings are compared here only (a step that raises on both sides may warn on one)
        e, a = ({key: value for key, value in r.items() if key != "warnings"} for r in (e, a))
        if warnings_e != warnings_a:
            found.append(f"step {number} `{step.observe}`: warnings\n  torch:    {warnings_e}\n  minigrad: {warnings_a}")
        found += differences(e, a, f"step {number} `{step.observe}`")
        if found:
            break   # later steps inherit the first difference
    return found


def report(program: Program, found: list) -> str:
    return "minigrad and PyTorch disagree on this program:\n\n" + program.source() + "\n" + "\n".join(found)
