"""PyTorch programs run unchanged on minigrad and print exactly what PyTorch printed.

Each ``programs/NAME.py`` is a small PyTorch program (tutorial code, the questions the course answers,
node names, error texts). ``programs/NAME.expected`` is its standard output under real PyTorch 2.13
(regenerate with ``python tests/programs/record.py /path/to/python-with-torch``).

The test rewrites the imports (``import torch`` becomes ``import minigrad as torch``,
``from torch.x import y`` becomes ``from minigrad.x import y``), runs the program in this process
and compares its output with the recording, after two deliberate differences are evened out:

- memory addresses (``0x7f...``) become ``0xADDRESS``;
- PyTorch's generated node classes live in ``torch.autograd.function``, minigrad's in
  ``minigrad.autograd.function``.
"""
from __future__ import annotations

import contextlib
import importlib.util
import io
import re
from pathlib import Path

import pytest

import minigrad
from helpers import ROOT

PROGRAMS = ROOT / "tests" / "programs"
PROGRAM_FILES = sorted(p for p in PROGRAMS.glob("*.py") if p.name != "record.py")

IMPORT_REWRITES = [
    (re.compile(r"^(\s*)import torch$", re.M), r"\1import minigrad as torch"),
    (re.compile(r"^(\s*)import torch\.([\w.]+) as (\w+)$", re.M), r"\1import minigrad.\2 as \3"),
    (re.compile(r"^(\s*)from torch((?:\.\w+)*) import ", re.M), r"\1from minigrad\2 import "),
]
ANY_TORCH_IMPORT = re.compile(r"^\s*(import|from)\s+torch\b.*$", re.M)
ADDRESS = re.compile(r"0x[0-9a-f]+")


def rewrite_imports(source: str) -> str:
    """The program with its torch imports pointing at minigrad (and nothing else changed)."""
    for pattern, replacement in IMPORT_REWRITES:
        source = pattern.sub(replacement, source)
    leftover = ANY_TORCH_IMPORT.search(source)
    assert leftover is None, f"an import the rewrite does not handle: {leftover.group(0)!r}"
    return source


def normalize(text: str) -> str:
    text = ADDRESS.sub("0xADDRESS", text)
    return text.replace("torch.autograd.function.", "minigrad.autograd.function.")


def run_with_minigrad(path: Path) -> str:
    code = compile(rewrite_imports(path.read_text()), str(path), "exec")
    namespace = {"__name__": "__main__", "__file__": str(path)}
    output = io.StringIO()
    try:
        with contextlib.redirect_stdout(output):
            exec(code, namespace)
    finally:
        minigrad.set_grad_enabled(True)   # a program that fails half-way must not leave grad mode off
    return output.getvalue()


def test_there_are_at_least_twelve_programs_each_with_its_recording():
    assert len(PROGRAM_FILES) >= 12
    recordings = {p.stem for p in PROGRAMS.glob("*.expected")}
    assert recordings == {p.stem for p in PROGRAM_FILES}


def test_the_import_rewrite():
    source = ("import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
              "from torch.autograd import Function\nfrom torch.autograd.function import once_differentiable\n"
              "from torch import nn\n    import torch\nx = torch.ones(2)  # torch stays torch\n")
    assert rewrite_imports(source) == (
        "import minigrad as torch\nimport minigrad.nn as nn\nimport minigrad.nn.functional as F\n"
        "from minigrad.autograd import Function\nfrom minigrad.autograd.function import once_differentiable\n"
        "from minigrad import nn\n    import minigrad as torch\nx = torch.ones(2)  # torch stays torch\n")
    with pytest.raises(AssertionError, match="import torch.nn"):
        rewrite_imports("import torch.nn\n")


def test_normalize_evens_out_addresses_and_the_node_module():
    assert normalize("<torch.autograd.function.MulConstantBackward object at 0x7f36c622fb20>") == (
        "<minigrad.autograd.function.MulConstantBackward object at 0xADDRESS>")


@pytest.mark.parametrize("path", PROGRAM_FILES, ids=[p.stem for p in PROGRAM_FILES])
def test_program_prints_what_pytorch_printed(path):
    if "sparse_coo_tensor" in path.read_text() and importlib.util.find_spec("minigrad.sparse") is None:
        pytest.skip("minigrad.sparse does not exist yet")
    expected = path.with_suffix(".expected").read_text()
    assert expected.strip(), f"{path.name}: the recording is empty"
    actual = run_with_minigrad(path)
    assert normalize(actual).splitlines() == normalize(expected).splitlines()
