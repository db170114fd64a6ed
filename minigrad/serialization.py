"""``save`` and ``load``: write tensors, state dicts and other Python objects to a file with pickle.

Like PyTorch, a tensor is pickled as its values, dtype and ``requires_grad`` (never its graph), and
``load`` by default unpickles only "weights": tensors, numbers, strings and the containers that hold
them. minigrad's files are a plain pickle, not PyTorch's zip archive: the two cannot read each other's.

>>> import io
>>> import minigrad as torch
>>> buffer = io.BytesIO()
>>> torch.save({"w": torch.tensor([1.0, 2.0], requires_grad=True)}, buffer)
>>> _ = buffer.seek(0)
>>> torch.load(buffer)
{'w': tensor([1., 2.], requires_grad=True)}
"""
from __future__ import annotations

import io
import os
import pickle
from typing import Any

import numpy as np

from .tensor import Tensor

PROTOCOL = 2   # PyTorch's DEFAULT_PROTOCOL


def rebuild_tensor(cls: type, raw: bytes, dtype: str, shape: tuple, requires_grad: bool) -> Tensor:
    """Called by pickle to make a tensor (or a Parameter) back from its bytes, dtype and shape."""
    data = np.frombuffer(raw, dtype=np.dtype(dtype)).reshape(shape).copy()
    if cls is not Tensor:
        return cls(Tensor._make(data), requires_grad=requires_grad)   # nn.Parameter
    return Tensor._make(data, requires_grad=requires_grad)


def reduce_tensor(t: Tensor) -> tuple:
    """How pickle stores a tensor: its values, dtype, shape and requires_grad (never its graph)."""
    data = np.ascontiguousarray(t._data)
    return rebuild_tensor, (type(t), data.tobytes(), data.dtype.str, data.shape, t.requires_grad)


def save(obj: Any, f, pickle_protocol: int = PROTOCOL, **kwargs) -> None:
    """Pickle ``obj`` into ``f``, a file name or a binary file object."""
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as file:
            pickle.dump(obj, file, protocol=pickle_protocol)
    else:
        pickle.dump(obj, f, protocol=pickle_protocol)


# What load(weights_only=True) lets a file build: tensors, parameters and plain containers
# (protocol 2 stores bytes through _codecs.encode).
_ALLOWED = {
    ("collections", "OrderedDict"), ("builtins", "set"), ("builtins", "frozenset"), ("_codecs", "encode"),
    ("minigrad.serialization", "rebuild_tensor"), ("minigrad.tensor", "Tensor"),
    ("minigrad.nn.parameter", "Parameter"),
}
_SAFE_GLOBALS: set = set()


def add_safe_globals(safe_globals: list) -> None:
    """Let ``load(weights_only=True)`` build these classes or functions too."""
    _SAFE_GLOBALS.update((g.__module__, g.__qualname__) for g in safe_globals)


class _WeightsUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        if (module, name) in _ALLOWED or (module, name) in _SAFE_GLOBALS:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(
            "Weights only load failed. This file can still be loaded, to do so you have two options, \x1b[1mdo those "
            "steps only if you trust the source of the checkpoint\x1b[0m. \n\t(1) In PyTorch 2.6, we changed the "
            "default value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running "
            "`torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code "
            "execution. Do it only if you got the file from a trusted source.\n\t(2) Alternatively, to load with "
            "`weights_only=True` please check the recommended steps in the following error message.\n\t"
            f"WeightsUnpickler error: Unsupported global: GLOBAL {module}.{name} was not an allowed global by "
            f"default. Please use `torch.serialization.add_safe_globals([{module}.{name}])` or the "
            f"`torch.serialization.safe_globals([{module}.{name}])` context manager to allowlist this global if you "
            "trust this class/function.\n\nCheck the documentation of torch.load to learn more about types "
            "accepted by default with weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")


def load(f, map_location=None, pickle_module=None, *, weights_only: bool | None = None, **kwargs) -> Any:
    """Unpickle what ``save`` wrote. With ``weights_only`` (the default) only tensors and plain data load."""
    if map_location is not None:
        from .types import check_device
        if not callable(map_location) and not isinstance(map_location, dict):
            check_device(map_location)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as file:
            return load(file, weights_only=weights_only)
    if isinstance(f, (bytes, bytearray)):
        f = io.BytesIO(f)
    unpickler = pickle.Unpickler(f) if weights_only is False else _WeightsUnpickler(f)
    return unpickler.load()
