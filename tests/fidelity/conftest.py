"""The tests here import real PyTorch next to minigrad: run them with `make fidelity`.

`make test` does not collect this folder; without torch installed they skip.
"""
import os
import sys

import pytest

pytest.importorskip("torch", reason="the fidelity tests compare with real PyTorch: run `make fidelity`")
sys.path.insert(0, os.path.dirname(__file__))   # programs.py and compare.py sit next to the tests
