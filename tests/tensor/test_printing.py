"""Tests for minigrad._tensor_str: tensors must print exactly as PyTorch prints them.

Every expected string below was produced by real PyTorch (2.13, CPU) with
``repr(torch.from_numpy(data))``, plus ``.requires_grad_()`` or ``* 1`` for the
cases with autograd suffixes, and pasted in; these tests do not need torch.
"""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from minigrad._tensor_str import dtype_suffix, format_tensor

# (data, suffixes the caller passes, what PyTorch prints)
CASES = [
    pytest.param(
        np.array(2.5, dtype=np.float32),
        (),
        "tensor(2.5000)",
        id="scalar-fixed",
    ),
    pytest.param(
        np.array(3.0, dtype=np.float32),
        (),
        "tensor(3.)",
        id="scalar-int-mode",
    ),
    pytest.param(
        np.array(True),
        (),
        "tensor(True)",
        id="scalar-bool",
    ),
    pytest.param(
        np.array(7),
        (),
        "tensor(7)",
        id="scalar-int64",
    ),
    pytest.param(
        np.array(-0.0, dtype=np.float32),
        (),
        "tensor(-0.)",
        id="scalar-negative-zero",
    ),
    pytest.param(
        np.array(np.nan, dtype=np.float32),
        (),
        "tensor(nan)",
        id="scalar-nan",
    ),
    pytest.param(
        np.array(1e-5, dtype=np.float32),
        (),
        "tensor(1.0000e-05)",
        id="scalar-sci",
    ),
    pytest.param(
        np.array(2.5),
        ("dtype=torch.float64",),
        "tensor(2.5000, dtype=torch.float64)",
        id="scalar-float64",
    ),
    pytest.param(
        np.array(-4, dtype=np.int32),
        ("dtype=torch.int32",),
        "tensor(-4, dtype=torch.int32)",
        id="scalar-int32",
    ),
    pytest.param(
        np.array(2.0, dtype=np.float32),
        ("requires_grad=True",),
        "tensor(2., requires_grad=True)",
        id="scalar-requires-grad",
    ),
    pytest.param(
        np.array([1.0, 2.0], dtype=np.float32),
        (),
        "tensor([1., 2.])",
        id="1d-int-mode",
    ),
    pytest.param(
        np.array([1.5, -2.25, 30.0], dtype=np.float32),
        (),
        "tensor([ 1.5000, -2.2500, 30.0000])",
        id="1d-fixed-aligned",
    ),
    pytest.param(
        np.array([0.1, 0.2, 0.7], dtype=np.float32),
        (),
        "tensor([0.1000, 0.2000, 0.7000])",
        id="1d-float32-rounding",
    ),
    pytest.param(
        np.zeros(3, dtype=np.float32),
        (),
        "tensor([0., 0., 0.])",
        id="1d-all-zero",
    ),
    pytest.param(
        np.array([-0.0, 1.5], dtype=np.float32),
        (),
        "tensor([-0.0000, 1.5000])",
        id="1d-negative-zero",
    ),
    pytest.param(
        np.array([1.0, -100.0, 10.0], dtype=np.float32),
        (),
        "tensor([   1., -100.,   10.])",
        id="1d-int-mode-widths",
    ),
    pytest.param(
        np.array([np.nan, 1.0], dtype=np.float32),
        (),
        "tensor([nan, 1.])",
        id="1d-nan-int-mode",
    ),
    pytest.param(
        np.array([np.nan, np.inf, -np.inf, 1.5], dtype=np.float32),
        (),
        "tensor([   nan,    inf,   -inf, 1.5000])",
        id="1d-nan-inf-fixed",
    ),
    pytest.param(
        np.array([np.nan, np.inf, -np.inf, 0.0], dtype=np.float32),
        (),
        "tensor([nan, inf, -inf, 0.])",
        id="1d-only-nonfinite",
    ),
    pytest.param(
        np.array([1e-5, 1.0], dtype=np.float32),
        (),
        "tensor([1.0000e-05, 1.0000e+00])",
        id="1d-sci-small",
    ),
    pytest.param(
        np.array([1e9, 1.0], dtype=np.float32),
        (),
        "tensor([1.0000e+09, 1.0000e+00])",
        id="1d-sci-large",
    ),
    pytest.param(
        np.array([1.0, 1000.0], dtype=np.float32),
        (),
        "tensor([   1., 1000.])",
        id="1d-ratio-1000-fixed",
    ),
    pytest.param(
        np.array([1.0, 1001.0], dtype=np.float32),
        (),
        "tensor([1.0000e+00, 1.0010e+03])",
        id="1d-ratio-over-1000-sci",
    ),
    pytest.param(
        np.array([1e8, 2e8 / 2], dtype=np.float32),
        (),
        "tensor([100000000., 100000000.])",
        id="1d-1e8-int-mode",
    ),
    pytest.param(
        np.array([1.5e8, 2e8], dtype=np.float32),
        (),
        "tensor([1.5000e+08, 2.0000e+08])",
        id="1d-over-1e8-sci",
    ),
    pytest.param(
        np.array([1e-4, 0.05]),
        ("dtype=torch.float64",),
        "tensor([0.0001, 0.0500], dtype=torch.float64)",
        id="1d-1e-4-fixed",
    ),
    pytest.param(
        np.array([9e-5, 0.05]),
        ("dtype=torch.float64",),
        "tensor([9.0000e-05, 5.0000e-02], dtype=torch.float64)",
        id="1d-below-1e-4-sci",
    ),
    pytest.param(
        np.array([1e-5, np.nan, -np.inf, 0.0], dtype=np.float32),
        (),
        "tensor([1.0000e-05,        nan,       -inf, 0.0000e+00])",
        id="1d-sci-with-nan-inf",
    ),
    pytest.param(
        np.array([-10, 5, 300]),
        (),
        "tensor([-10,   5, 300])",
        id="1d-int64-aligned",
    ),
    pytest.param(
        np.array([True, False, True]),
        (),
        "tensor([ True, False,  True])",
        id="1d-bool",
    ),
    pytest.param(
        np.array([1, 2, 3], dtype=np.int32),
        ("dtype=torch.int32",),
        "tensor([1, 2, 3], dtype=torch.int32)",
        id="1d-int32",
    ),
    pytest.param(
        np.array([1.0, 2.5]),
        ("dtype=torch.float64",),
        "tensor([1.0000, 2.5000], dtype=torch.float64)",
        id="1d-float64",
    ),
    pytest.param(
        np.array([0.5, 2.0], dtype=np.float16),
        ("dtype=torch.float16",),
        "tensor([0.5000, 2.0000], dtype=torch.float16)",
        id="1d-float16",
    ),
    pytest.param(
        np.array([0, 255], dtype=np.uint8),
        ("dtype=torch.uint8",),
        "tensor([  0, 255], dtype=torch.uint8)",
        id="1d-uint8",
    ),
    pytest.param(
        np.array([1 + 2j, -1.5 - 0j, 0.25j], dtype=np.complex64),
        (),
        "tensor([ 1.0000+2.0000j, -1.5000+0.0000j,  0.0000+0.2500j])",
        id="1d-complex64",
    ),
    pytest.param(
        np.arange(30, dtype=np.float32) / 4,
        (),
        "tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000, 1.2500, 1.5000, 1.7500, 2.0000,\n"
        "        2.2500, 2.5000, 2.7500, 3.0000, 3.2500, 3.5000, 3.7500, 4.0000, 4.2500,\n"
        "        4.5000, 4.7500, 5.0000, 5.2500, 5.5000, 5.7500, 6.0000, 6.2500, 6.5000,\n"
        "        6.7500, 7.0000, 7.2500])",
        id="1d-wrap-floats",
    ),
    pytest.param(
        np.arange(40),
        (),
        "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n"
        "        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,\n"
        "        36, 37, 38, 39])",
        id="1d-wrap-ints",
    ),
    pytest.param(
        np.geomspace(1e-6, 1e6, 13),
        ("dtype=torch.float64",),
        "tensor([1.0000e-06, 1.0000e-05, 1.0000e-04, 1.0000e-03, 1.0000e-02, 1.0000e-01,\n"
        "        1.0000e+00, 1.0000e+01, 1.0000e+02, 1.0000e+03, 1.0000e+04, 1.0000e+05,\n"
        "        1.0000e+06], dtype=torch.float64)",
        id="1d-wrap-sci",
    ),
    pytest.param(
        np.arange(2000),
        (),
        "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])",
        id="1d-summarised-int",
    ),
    pytest.param(
        np.arange(10**6),
        (),
        "tensor([     0,      1,      2,  ..., 999997, 999998, 999999])",
        id="1d-summarised-million",
    ),
    pytest.param(
        np.linspace(-1, 1, 1001, dtype=np.float32),
        (),
        "tensor([-1.0000, -0.9980, -0.9960,  ...,  0.9960,  0.9980,  1.0000])",
        id="1d-summarised-float",
    ),
    pytest.param(
        np.ones(1000, dtype=np.float32)[:14],
        (),
        "tensor([1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1.])",
        id="1d-1000-not-summarised-wraps",
    ),
    pytest.param(
        np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32),
        (),
        "tensor([[1., 2.],\n"
        "        [3., 4.]])",
        id="2d-int-mode",
    ),
    pytest.param(
        np.array([[-1.5, 2.0], [3.25, -40.125]], dtype=np.float32),
        (),
        "tensor([[ -1.5000,   2.0000],\n"
        "        [  3.2500, -40.1250]])",
        id="2d-aligned",
    ),
    pytest.param(
        np.array([[True, False], [False, True]]),
        (),
        "tensor([[ True, False],\n"
        "        [False,  True]])",
        id="2d-bool",
    ),
    pytest.param(
        np.arange(50, dtype=np.float32).reshape(2, 25) / 8,
        (),
        "tensor([[0.0000, 0.1250, 0.2500, 0.3750, 0.5000, 0.6250, 0.7500, 0.8750, 1.0000,\n"
        "         1.1250, 1.2500, 1.3750, 1.5000, 1.6250, 1.7500, 1.8750, 2.0000, 2.1250,\n"
        "         2.2500, 2.3750, 2.5000, 2.6250, 2.7500, 2.8750, 3.0000],\n"
        "        [3.1250, 3.2500, 3.3750, 3.5000, 3.6250, 3.7500, 3.8750, 4.0000, 4.1250,\n"
        "         4.2500, 4.3750, 4.5000, 4.6250, 4.7500, 4.8750, 5.0000, 5.1250, 5.2500,\n"
        "         5.3750, 5.5000, 5.6250, 5.7500, 5.8750, 6.0000, 6.1250]])",
        id="2d-wrapped-rows",
    ),
    pytest.param(
        np.arange(2500).reshape(50, 50),
        (),
        "tensor([[   0,    1,    2,  ...,   47,   48,   49],\n"
        "        [  50,   51,   52,  ...,   97,   98,   99],\n"
        "        [ 100,  101,  102,  ...,  147,  148,  149],\n"
        "        ...,\n"
        "        [2350, 2351, 2352,  ..., 2397, 2398, 2399],\n"
        "        [2400, 2401, 2402,  ..., 2447, 2448, 2449],\n"
        "        [2450, 2451, 2452,  ..., 2497, 2498, 2499]])",
        id="2d-summarised",
    ),
    pytest.param(
        np.arange(1200.0).reshape(2, 600),
        ("dtype=torch.float64",),
        "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 5.9700e+02, 5.9800e+02,\n"
        "         5.9900e+02],\n"
        "        [6.0000e+02, 6.0100e+02, 6.0200e+02,  ..., 1.1970e+03, 1.1980e+03,\n"
        "         1.1990e+03]], dtype=torch.float64)",
        id="2d-summarised-short-rows",
    ),
    pytest.param(
        np.arange(1200.0).reshape(600, 2),
        ("dtype=torch.float64",),
        "tensor([[0.0000e+00, 1.0000e+00],\n"
        "        [2.0000e+00, 3.0000e+00],\n"
        "        [4.0000e+00, 5.0000e+00],\n"
        "        ...,\n"
        "        [1.1940e+03, 1.1950e+03],\n"
        "        [1.1960e+03, 1.1970e+03],\n"
        "        [1.1980e+03, 1.1990e+03]], dtype=torch.float64)",
        id="2d-summarised-short-cols",
    ),
    pytest.param(
        np.arange(12).reshape(2, 2, 3),
        (),
        "tensor([[[ 0,  1,  2],\n"
        "         [ 3,  4,  5]],\n"
        "\n"
        "        [[ 6,  7,  8],\n"
        "         [ 9, 10, 11]]])",
        id="3d",
    ),
    pytest.param(
        np.arange(12, dtype=np.float32).reshape(2, 3, 2) / 3,
        (),
        "tensor([[[0.0000, 0.3333],\n"
        "         [0.6667, 1.0000],\n"
        "         [1.3333, 1.6667]],\n"
        "\n"
        "        [[2.0000, 2.3333],\n"
        "         [2.6667, 3.0000],\n"
        "         [3.3333, 3.6667]]])",
        id="3d-fixed",
    ),
    pytest.param(
        np.arange(2000, dtype=np.float32).reshape(10, 10, 20),
        (),
        "tensor([[[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.7000e+01,\n"
        "          1.8000e+01, 1.9000e+01],\n"
        "         [2.0000e+01, 2.1000e+01, 2.2000e+01,  ..., 3.7000e+01,\n"
        "          3.8000e+01, 3.9000e+01],\n"
        "         [4.0000e+01, 4.1000e+01, 4.2000e+01,  ..., 5.7000e+01,\n"
        "          5.8000e+01, 5.9000e+01],\n"
        "         ...,\n"
        "         [1.4000e+02, 1.4100e+02, 1.4200e+02,  ..., 1.5700e+02,\n"
        "          1.5800e+02, 1.5900e+02],\n"
        "         [1.6000e+02, 1.6100e+02, 1.6200e+02,  ..., 1.7700e+02,\n"
        "          1.7800e+02, 1.7900e+02],\n"
        "         [1.8000e+02, 1.8100e+02, 1.8200e+02,  ..., 1.9700e+02,\n"
        "          1.9800e+02, 1.9900e+02]],\n"
        "\n"
        "        [[2.0000e+02, 2.0100e+02, 2.0200e+02,  ..., 2.1700e+02,\n"
        "          2.1800e+02, 2.1900e+02],\n"
        "         [2.2000e+02, 2.2100e+02, 2.2200e+02,  ..., 2.3700e+02,\n"
        "          2.3800e+02, 2.3900e+02],\n"
        "         [2.4000e+02, 2.4100e+02, 2.4200e+02,  ..., 2.5700e+02,\n"
        "          2.5800e+02, 2.5900e+02],\n"
        "         ...,\n"
        "         [3.4000e+02, 3.4100e+02, 3.4200e+02,  ..., 3.5700e+02,\n"
        "          3.5800e+02, 3.5900e+02],\n"
        "         [3.6000e+02, 3.6100e+02, 3.6200e+02,  ..., 3.7700e+02,\n"
        "          3.7800e+02, 3.7900e+02],\n"
        "         [3.8000e+02, 3.8100e+02, 3.8200e+02,  ..., 3.9700e+02,\n"
        "          3.9800e+02, 3.9900e+02]],\n"
        "\n"
        "        [[4.0000e+02, 4.0100e+02, 4.0200e+02,  ..., 4.1700e+02,\n"
        "          4.1800e+02, 4.1900e+02],\n"
        "         [4.2000e+02, 4.2100e+02, 4.2200e+02,  ..., 4.3700e+02,\n"
        "          4.3800e+02, 4.3900e+02],\n"
        "         [4.4000e+02, 4.4100e+02, 4.4200e+02,  ..., 4.5700e+02,\n"
        "          4.5800e+02, 4.5900e+02],\n"
        "         ...,\n"
        "         [5.4000e+02, 5.4100e+02, 5.4200e+02,  ..., 5.5700e+02,\n"
        "          5.5800e+02, 5.5900e+02],\n"
        "         [5.6000e+02, 5.6100e+02, 5.6200e+02,  ..., 5.7700e+02,\n"
        "          5.7800e+02, 5.7900e+02],\n"
        "         [5.8000e+02, 5.8100e+02, 5.8200e+02,  ..., 5.9700e+02,\n"
        "          5.9800e+02, 5.9900e+02]],\n"
        "\n"
        "        ...,\n"
        "\n"
        "        [[1.4000e+03, 1.4010e+03, 1.4020e+03,  ..., 1.4170e+03,\n"
        "          1.4180e+03, 1.4190e+03],\n"
        "         [1.4200e+03, 1.4210e+03, 1.4220e+03,  ..., 1.4370e+03,\n"
        "          1.4380e+03, 1.4390e+03],\n"
        "         [1.4400e+03, 1.4410e+03, 1.4420e+03,  ..., 1.4570e+03,\n"
        "          1.4580e+03, 1.4590e+03],\n"
        "         ...,\n"
        "         [1.5400e+03, 1.5410e+03, 1.5420e+03,  ..., 1.5570e+03,\n"
        "          1.5580e+03, 1.5590e+03],\n"
        "         [1.5600e+03, 1.5610e+03, 1.5620e+03,  ..., 1.5770e+03,\n"
        "          1.5780e+03, 1.5790e+03],\n"
        "         [1.5800e+03, 1.5810e+03, 1.5820e+03,  ..., 1.5970e+03,\n"
        "          1.5980e+03, 1.5990e+03]],\n"
        "\n"
        "        [[1.6000e+03, 1.6010e+03, 1.6020e+03,  ..., 1.6170e+03,\n"
        "          1.6180e+03, 1.6190e+03],\n"
        "         [1.6200e+03, 1.6210e+03, 1.6220e+03,  ..., 1.6370e+03,\n"
        "          1.6380e+03, 1.6390e+03],\n"
        "         [1.6400e+03, 1.6410e+03, 1.6420e+03,  ..., 1.6570e+03,\n"
        "          1.6580e+03, 1.6590e+03],\n"
        "         ...,\n"
        "         [1.7400e+03, 1.7410e+03, 1.7420e+03,  ..., 1.7570e+03,\n"
        "          1.7580e+03, 1.7590e+03],\n"
        "         [1.7600e+03, 1.7610e+03, 1.7620e+03,  ..., 1.7770e+03,\n"
        "          1.7780e+03, 1.7790e+03],\n"
        "         [1.7800e+03, 1.7810e+03, 1.7820e+03,  ..., 1.7970e+03,\n"
        "          1.7980e+03, 1.7990e+03]],\n"
        "\n"
        "        [[1.8000e+03, 1.8010e+03, 1.8020e+03,  ..., 1.8170e+03,\n"
        "          1.8180e+03, 1.8190e+03],\n"
        "         [1.8200e+03, 1.8210e+03, 1.8220e+03,  ..., 1.8370e+03,\n"
        "          1.8380e+03, 1.8390e+03],\n"
        "         [1.8400e+03, 1.8410e+03, 1.8420e+03,  ..., 1.8570e+03,\n"
        "          1.8580e+03, 1.8590e+03],\n"
        "         ...,\n"
        "         [1.9400e+03, 1.9410e+03, 1.9420e+03,  ..., 1.9570e+03,\n"
        "          1.9580e+03, 1.9590e+03],\n"
        "         [1.9600e+03, 1.9610e+03, 1.9620e+03,  ..., 1.9770e+03,\n"
        "          1.9780e+03, 1.9790e+03],\n"
        "         [1.9800e+03, 1.9810e+03, 1.9820e+03,  ..., 1.9970e+03,\n"
        "          1.9980e+03, 1.9990e+03]]])",
        id="3d-summarised",
    ),
    pytest.param(
        np.arange(16).reshape(2, 2, 2, 2),
        (),
        "tensor([[[[ 0,  1],\n"
        "          [ 2,  3]],\n"
        "\n"
        "         [[ 4,  5],\n"
        "          [ 6,  7]]],\n"
        "\n"
        "\n"
        "        [[[ 8,  9],\n"
        "          [10, 11]],\n"
        "\n"
        "         [[12, 13],\n"
        "          [14, 15]]]])",
        id="4d",
    ),
    pytest.param(
        np.zeros(0, dtype=np.float32),
        (),
        "tensor([])",
        id="empty-1d",
    ),
    pytest.param(
        np.zeros(0, dtype=np.int64),
        ("dtype=torch.int64",),
        "tensor([], dtype=torch.int64)",
        id="empty-1d-int64",
    ),
    pytest.param(
        np.zeros(0, dtype=bool),
        ("dtype=torch.bool",),
        "tensor([], dtype=torch.bool)",
        id="empty-1d-bool",
    ),
    pytest.param(
        np.zeros((0, 3), dtype=np.float32),
        (),
        "tensor([], size=(0, 3))",
        id="empty-2d",
    ),
    pytest.param(
        np.zeros((2, 0, 3)),
        ("dtype=torch.float64",),
        "tensor([], size=(2, 0, 3), dtype=torch.float64)",
        id="empty-3d-float64",
    ),
    pytest.param(
        np.zeros((0, 3), dtype=np.float32),
        ("requires_grad=True",),
        "tensor([], size=(0, 3), requires_grad=True)",
        id="empty-requires-grad",
    ),
    pytest.param(
        np.array([1.0, 2.0], dtype=np.float32),
        ("requires_grad=True",),
        "tensor([1., 2.], requires_grad=True)",
        id="requires-grad",
    ),
    pytest.param(
        np.array([1.0, 2.0], dtype=np.float32),
        ("grad_fn=<MulBackward0>",),
        "tensor([1., 2.], grad_fn=<MulBackward0>)",
        id="grad-fn",
    ),
    pytest.param(
        np.array([1.0, 2.5]),
        ("dtype=torch.float64", "grad_fn=<MulBackward0>"),
        "tensor([1.0000, 2.5000], dtype=torch.float64, grad_fn=<MulBackward0>)",
        id="dtype-and-grad-fn",
    ),
    pytest.param(
        np.arange(18, dtype=np.float32) / 4,
        ("requires_grad=True",),
        "tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000, 1.2500, 1.5000, 1.7500, 2.0000,\n"
        "        2.2500, 2.5000, 2.7500, 3.0000, 3.2500, 3.5000, 3.7500, 4.0000, 4.2500],\n"
        "       requires_grad=True)",
        id="suffix-wraps-after-long-row",
    ),
    pytest.param(
        np.arange(11, dtype=np.float32) / 4,
        ("requires_grad=True",),
        "tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000, 1.2500, 1.5000, 1.7500, 2.0000,\n"
        "        2.2500, 2.5000], requires_grad=True)",
        id="suffix-fits-on-last-line",
    ),
    pytest.param(
        np.arange(13) / 4,
        ("dtype=torch.float64", "grad_fn=<MulBackward0>"),
        "tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000, 1.2500, 1.5000, 1.7500, 2.0000,\n"
        "        2.2500, 2.5000, 2.7500, 3.0000], dtype=torch.float64,\n"
        "       grad_fn=<MulBackward0>)",
        id="suffix-second-one-wraps",
    ),
    pytest.param(
        np.ones(13, dtype=np.float32),
        ("requires_grad=True",),
        "tensor([1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1.],\n"
        "       requires_grad=True)",
        id="suffix-wraps-though-80-would-fit",
    ),
    pytest.param(
        np.arange(18) / 4,
        ("dtype=torch.float64", "grad_fn=<MulBackward0>"),
        "tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000, 1.2500, 1.5000, 1.7500, 2.0000,\n"
        "        2.2500, 2.5000, 2.7500, 3.0000, 3.2500, 3.5000, 3.7500, 4.0000, 4.2500],\n"
        "       dtype=torch.float64, grad_fn=<MulBackward0>)",
        id="suffix-wraps-float64",
    ),
    pytest.param(
        np.arange(6.0).reshape(2, 3),
        ("dtype=torch.float64", "grad_fn=<MulBackward0>"),
        "tensor([[0., 1., 2.],\n"
        "        [3., 4., 5.]], dtype=torch.float64, grad_fn=<MulBackward0>)",
        id="suffix-after-2d",
    ),
]


@pytest.mark.parametrize("data, suffixes, expected", CASES)
def test_matches_pytorch(data, suffixes, expected):
    assert format_tensor(data, suffixes) == expected


@pytest.mark.parametrize(
    "data, expected",
    [
        (np.array([1.0], dtype=np.float32), None),
        (np.array([1]), None),
        (np.array([True]), None),
        (np.array([1j], dtype=np.complex64), None),
        (np.array(1.0), "dtype=torch.float64"),
        (np.array([1], dtype=np.int32), "dtype=torch.int32"),
        (np.array([1], dtype=np.float16), "dtype=torch.float16"),
        (np.array([1], dtype=np.uint8), "dtype=torch.uint8"),
        (np.array([1j]), "dtype=torch.complex128"),
        # Empty tensors show every dtype except the default float32.
        (np.zeros(0, dtype=np.float32), None),
        (np.zeros(0, dtype=np.int64), "dtype=torch.int64"),
        (np.zeros((0, 2), dtype=bool), "dtype=torch.bool"),
        (np.zeros(0), "dtype=torch.float64"),
    ],
)
def test_dtype_suffix(data, expected):
    assert dtype_suffix(data) == expected


def test_caller_suffixes_are_not_modified():
    suffixes = ["requires_grad=True"]
    format_tensor(np.zeros((0, 3), dtype=np.float32), suffixes)
    assert suffixes == ["requires_grad=True"]


# Property tests on random float arrays small enough not to be summarised.
finite_floats = hnp.arrays(
    dtype=st.sampled_from([np.float32, np.float64]),
    shape=hnp.array_shapes(min_dims=1, max_dims=3, max_side=8),
    elements=st.floats(-(2.0**40), 2.0**40, allow_nan=False, width=32),
)


def _elements(text, ndim):
    """The printed elements of a tensor without suffixes, each with its alignment padding."""
    # A wrapped row continues after a newline and ndim + 7 spaces; make that an ordinary ", ".
    text = text.replace(",\n" + " " * (len("tensor(") + ndim), ", ")
    # Now every element follows "[" or ", ".
    return re.findall(r"(?:\[|, )( *-?[0-9][0-9.e+-]*)", text)


@settings(max_examples=200, deadline=None)
@given(finite_floats)
def test_every_value_printed_in_order_and_correctly_rounded(data):
    printed = [float(s) for s in _elements(format_tensor(data), data.ndim)]
    assert len(printed) == data.size
    # 4 decimals in fixed notation, 5 significant digits in scientific notation.
    assert np.allclose(printed, data.ravel().astype(np.float64), rtol=5e-5, atol=5e-5)


@settings(max_examples=200, deadline=None)
@given(finite_floats)
def test_columns_are_aligned(data):
    data = data + 0.0  # turn -0.0 into 0.0: "-0.0000" is the one value allowed to stick out
    elements = _elements(format_tensor(data), data.ndim)
    assert len(elements) == data.size
    assert len({len(e) for e in elements}) == 1


def test_huge_tensor_only_formats_the_edges():
    # Printing must not look at all 10 million values' text; this returns at once.
    data = np.zeros(10**7, dtype=np.float32)
    data[-1] = 1.5
    assert format_tensor(data) == "tensor([0.0000, 0.0000, 0.0000,  ..., 0.0000, 0.0000, 1.5000])"
