"""The tests here import real PyTorch next to minigrad: run them with `make fidelity`.

`make test` does not collect this folder; run without torch installed, its tests skip.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))   # programs.py and compare.py sit next to the tests
