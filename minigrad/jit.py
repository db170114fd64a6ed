"""``torch.jit``: TorchScript compiles a model ahead of time; minigrad always runs the Python code as
it is written. The decorators and checks real code carries therefore pass through, so that such code
runs unchanged: ``script``, ``unused``, ``ignore`` and ``export`` return what they decorate,
``is_scripting()`` and ``is_tracing()`` answer False, and ``annotate`` gives its value back. Other
``torch.jit`` names (``trace``, ``save``...) raise NotImplementedError with what to do instead.

>>> import minigrad as torch
>>> @torch.jit.script
... def swish(x):
...     return x * torch.sigmoid(x)
>>> swish(torch.tensor([0.0])), torch.jit.is_scripting()
(tensor([0.]), False)
"""
from __future__ import annotations

import warnings
from typing import Final  # noqa: F401  (torch.jit.Final, which annotations use)

from .inventory import module_getattr


def is_scripting() -> bool:
    """False: minigrad never compiles, so code under ``if torch.jit.is_scripting():`` never runs."""
    return False


def is_tracing() -> bool:
    """False: minigrad never traces."""
    return False


def script(obj, optimize=None, _frames_up: int = 0, _rcb=None, example_inputs=None):
    """Returns ``obj`` (a function or a Module) itself, with PyTorch 2.13's deprecation warning."""
    warnings.warn("`torch.jit.script` is deprecated. Please switch to `torch.compile` or `torch.export`.",
                  DeprecationWarning, stacklevel=2)
    return obj


def unused(fn):
    """Marks a method TorchScript should not compile; minigrad calls it as it is."""
    return fn


def ignore(drop=False, **kwargs):
    """``@torch.jit.ignore`` or ``@torch.jit.ignore(drop=True)``: the function itself."""
    if callable(drop):
        return drop
    return lambda fn: fn


def export(fn):
    """Marks a method TorchScript should compile too; minigrad calls it as it is."""
    return fn


def annotate(the_type, the_value):
    """The value itself (TorchScript reads the type)."""
    return the_value


__getattr__ = module_getattr("torch.jit")
