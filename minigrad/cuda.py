"""``torch.cuda`` as a CPU-only PyTorch build has it: no GPU is available.

What a CPU-only PyTorch answers quietly (``is_available``, ``device_count``, seeding) works here the
same way; everything that would need a GPU raises a ``NotImplementedError`` that names CUDA.

>>> import minigrad as torch
>>> torch.cuda.is_available(), torch.cuda.device_count()
(False, 0)
>>> torch.ones(2).cuda()
Traceback (most recent call last):
...
NotImplementedError: minigrad runs on the CPU only (numpy): CUDA is not available, so Tensor.cuda() cannot run. Remove the call, or guard it with torch.cuda.is_available().
"""
from __future__ import annotations


def not_available(what: str) -> NotImplementedError:
    """The error raised by everything in minigrad that would need a CUDA device."""
    return NotImplementedError(f"minigrad runs on the CPU only (numpy): CUDA is not available, so {what} cannot "
                               "run. Remove the call, or guard it with torch.cuda.is_available().")


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def manual_seed(seed: int) -> None:
    """Seeds the (absent) GPU generators: nothing to do, as in a CPU-only PyTorch."""


def manual_seed_all(seed: int) -> None:
    """Seeds the (absent) GPU generators: nothing to do, as in a CPU-only PyTorch."""


def _needs_a_gpu(name: str):
    def unavailable(*args, **kwargs):
        raise not_available(f"torch.cuda.{name}()")
    unavailable.__name__ = unavailable.__qualname__ = name
    unavailable.__doc__ = "Needs a GPU: raises NotImplementedError in minigrad."
    return unavailable


_GPU_ONLY = ("current_device", "set_device", "get_device_name", "get_device_properties", "get_device_capability",
             "synchronize", "empty_cache", "memory_allocated", "max_memory_allocated", "memory_reserved",
             "reset_peak_memory_stats", "init", "device", "stream", "Stream", "Event")
globals().update({name: _needs_a_gpu(name) for name in _GPU_ONLY})
