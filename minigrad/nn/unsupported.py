"""Layers outside minigrad's subset: convolution, pooling and batch normalisation.

They exist under PyTorch's names, so that a program reaching for them gets a clear
``NotImplementedError`` at its first use (building the layer, or calling the function) instead of
an ``AttributeError``; ``isinstance(m, nn.Conv2d)`` in a weight-initialisation loop still works.

>>> import minigrad as torch
>>> torch.nn.Conv2d(3, 8, kernel_size=3)
Traceback (most recent call last):
  ...
NotImplementedError: minigrad does not implement nn.Conv2d (convolution). Convolution, pooling and batch normalization are outside minigrad's subset: the README's section 'What minigrad covers, and differences from PyTorch' lists them.
"""
from __future__ import annotations

from .module import Module

FAMILIES = {
    "convolution": ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
                    "LazyConv1d", "LazyConv2d", "LazyConv3d", "Unfold", "Fold"],
    "pooling": ["MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d",
                "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
                "AdaptiveMaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "LPPool1d", "LPPool2d"],
    "batch normalization": ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
                            "LazyBatchNorm3d", "SyncBatchNorm", "InstanceNorm1d", "InstanceNorm2d",
                            "InstanceNorm3d"],
}
FUNCTION_FAMILIES = {
    "convolution": ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
                    "unfold", "fold"],
    "pooling": ["max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices",
                "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d",
                "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d",
                "adaptive_max_pool3d", "max_unpool1d", "max_unpool2d", "max_unpool3d", "lp_pool1d", "lp_pool2d"],
    "batch normalization": ["batch_norm", "instance_norm"],
}
# The same functions as PyTorch also offers them at the top level (torch.conv2d, torch.batch_norm...).
TOP_LEVEL = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
             "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d",
             "max_pool1d_with_indices", "batch_norm", "instance_norm"]


def not_implemented(name: str, family: str) -> NotImplementedError:
    return NotImplementedError(
        f"minigrad does not implement {name} ({family}). Convolution, pooling and batch normalization are outside "
        "minigrad's subset: the README's section 'What minigrad covers, and differences from PyTorch' lists them.")


def _layer(name: str, family: str) -> type:
    def __init__(self, *args, **kwargs):
        raise not_implemented(f"nn.{name}", family)

    return type(name, (Module,), {"__init__": __init__, "__module__": "minigrad.nn", "_minigrad_unsupported": True,
                                  "__doc__": f"Not implemented in minigrad ({family}): building one raises."})


def _function(prefix: str, name: str, family: str):
    def function(*args, **kwargs):
        raise not_implemented(f"{prefix}{name}", family)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"Not implemented in minigrad ({family}): calling it raises."
    function._minigrad_unsupported = True   # a placeholder: minigrad.inventory does not count it as implemented
    return function


LAYERS = {name: _layer(name, family) for family, names in FAMILIES.items() for name in names}
FUNCTIONS = {name: _function("nn.functional.", name, family) for family, names in FUNCTION_FAMILIES.items()
             for name in names}
_FAMILY_OF = {name: family for family, names in FUNCTION_FAMILIES.items() for name in names}
TOP_LEVEL_FUNCTIONS = {name: _function("torch.", name, _FAMILY_OF[name]) for name in TOP_LEVEL}

__all__ = ["LAYERS", "FUNCTIONS", "TOP_LEVEL_FUNCTIONS", "not_implemented"]
