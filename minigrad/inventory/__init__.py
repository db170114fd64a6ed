"""What minigrad does with each public name of PyTorch: implemented, refused, or out of scope.

Two data files sit beside this module. ``torch_names.json`` lists every public name of PyTorch's
namespaces (``torch``, ``torch.Tensor``, ``torch.nn``...) as the wheel's ``dir()`` gave it, with the
PyTorch version (``python -m tools.inventory names`` regenerates it). ``rules.json`` says, by explicit
names and patterns, why minigrad lacks a name and what to use instead. A name minigrad has is
*implemented*; a name it lacks takes the first rule that matches it. Accessing a name minigrad lacks
raises ``Unsupported``, a ``NotImplementedError`` that says so (and an ``AttributeError``, so that
``hasattr`` and ``getattr(obj, name, default)`` still answer False and ``default``):

>>> import minigrad as torch
>>> torch.fft
Traceback (most recent call last):
  ...
NotImplementedError: torch.fft is out of scope for minigrad (Fourier transforms and signal processing). Instead: use PyTorch (torch.fft) or numpy.fft on .detach().numpy()
>>> hasattr(torch, "fft"), classify("torch", "fft").status, classify("torch", "exp").status
(False, 'out_of_scope', 'implemented')
"""
from __future__ import annotations

import functools
import importlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).parent
STATUSES = ("implemented", "refused", "out_of_scope", "unclassified")


class Unsupported(NotImplementedError, AttributeError):
    """A PyTorch name minigrad does not have, with the reason and what to use instead."""


# A traceback names it as the NotImplementedError it is (``except AttributeError`` catches it too).
Unsupported.__module__, Unsupported.__qualname__ = "builtins", "NotImplementedError"


@dataclass(frozen=True)
class Entry:
    namespace: str
    name: str
    status: str            # one of STATUSES
    reason: str = ""
    instead: str = ""

    @property
    def qualified(self) -> str:
        return f"{self.namespace}.{self.name}"

    def message(self) -> str:
        if self.status == "out_of_scope":
            return f"{self.qualified} is out of scope for minigrad ({self.reason}). Instead: {self.instead}"
        if self.status == "refused":
            return f"minigrad does not implement {self.qualified} ({self.reason}). Instead: {self.instead}"
        return f"minigrad does not implement {self.qualified}: it is not classified yet (minigrad/inventory/rules.json)."


@functools.lru_cache(maxsize=None)
def torch_names() -> dict:
    """``{"torch_version": ..., "namespaces": {namespace: {name: kind}}}``, kind as ``"function"`` or
    ``"class@typing"`` (a class PyTorch's namespace imports from the ``typing`` module)."""
    return json.loads((HERE / "torch_names.json").read_text())


@functools.lru_cache(maxsize=None)
def rules() -> list:
    loaded = json.loads((HERE / "rules.json").read_text())["rules"]
    for rule in loaded:
        rule["_pattern"] = re.compile(rule["pattern"]) if "pattern" in rule else None
    return loaded


def _matches(rule: dict, namespace: str, name: str, kind: str) -> bool:
    if "namespaces" in rule and namespace not in rule["namespaces"]:
        return False
    if "kind" in rule and kind.split("@")[0] not in rule["kind"]:
        return False
    if rule.get("imported") and "@" not in kind:
        return False
    return name in rule.get("names", ()) or bool(rule["_pattern"] and rule["_pattern"].fullmatch(name))


def minigrad_object(namespace: str):
    """minigrad's counterpart of a PyTorch namespace (``torch.nn`` -> ``minigrad.nn``), or None."""
    if namespace == "torch.Tensor":
        from ..tensor import Tensor
        return Tensor
    try:
        return importlib.import_module("minigrad" + namespace[len("torch"):])
    except (ImportError, NotImplementedError):
        return None


def has(namespace: str, name: str) -> bool:
    """Whether minigrad has the name (a placeholder that only raises does not count)."""
    owner = minigrad_object(namespace)
    try:
        value = getattr(owner, name) if owner is not None else None
    except (AttributeError, NotImplementedError):
        return False
    return owner is not None and not getattr(value, "_minigrad_unsupported", False)


@functools.lru_cache(maxsize=None)
def rule_for(namespace: str, name: str) -> Entry | None:
    kind = torch_names()["namespaces"].get(namespace, {}).get(name)
    if kind is None:
        return None
    for rule in rules():
        if _matches(rule, namespace, name, kind):
            return Entry(namespace, name, rule["status"], rule["reason"], rule["instead"])
    return Entry(namespace, name, "unclassified")


def classify(namespace: str, name: str) -> Entry:
    if has(namespace, name):
        return Entry(namespace, name, "implemented")
    entry = rule_for(namespace, name)
    if entry is None:
        raise KeyError(f"PyTorch {torch_names()['torch_version']} has no {namespace}.{name}")
    return entry


def unsupported(namespace: str, name: str, owner: str) -> AttributeError:
    """The exception for a failed look-up of ``name`` on minigrad's ``namespace``: ``Unsupported``
    with the reason for a name PyTorch has, a plain AttributeError (as Python words it) otherwise."""
    if not name.startswith("_") or namespace == "torch.Tensor" and name.endswith("__"):
        entry = rule_for(namespace, name)
        if entry is not None:
            return Unsupported(entry.message())
    return AttributeError(f"{owner} has no attribute '{name}'")


def module_getattr(namespace: str):
    """A module-level ``__getattr__`` that refuses PyTorch's names with their reason."""
    def __getattr__(name: str):
        raise unsupported(namespace, name, f"module 'minigrad{namespace[len('torch'):]}'")
    return __getattr__


# Special methods that Python or numpy look up on the type (``x in t``, ``complex(t)``, numpy's
# ``__array_wrap__``...): a placeholder there would change what they do, so these stay missing.
_LOOKED_UP_ON_THE_TYPE = frozenset({
    "__contains__", "__delitem__", "__complex__", "__reversed__", "__ipow__", "__imod__", "__ifloordiv__",
    "__deepcopy__", "__setstate__", "__array_priority__", "__array_wrap__"})


class MissingMethod:
    """A PyTorch method a class of minigrad lacks: reading it from an instance raises ``Unsupported``
    with the reason and what to use instead; ``hasattr`` answers False, as for any missing name.

    >>> import minigrad as torch
    >>> torch.ones(2).addcmul
    Traceback (most recent call last):
      ...
    NotImplementedError: minigrad does not implement torch.Tensor.addcmul ...
    >>> hasattr(torch.ones(2), "addcmul"), "addcmul" in dir(torch.ones(2))
    (False, False)
    """

    _minigrad_unsupported = True   # has() does not count it as implemented

    def __init__(self, namespace: str, name: str) -> None:
        self.namespace, self.name = namespace, name

    def __get__(self, obj, owner=None):
        if obj is None and not self.name.startswith("__"):
            return self   # read from the class (inventory.has): the placeholder itself
        raise unsupported(self.namespace, self.name, f"'{(owner or type(obj)).__name__}' object")


class MissingAttribute(MissingMethod):
    """A read-only PyTorch attribute (not a method) that minigrad lacks: reading it raises
    ``Unsupported``, and setting or deleting it is refused with PyTorch's text (``not_writable``)."""

    def __set__(self, obj, value) -> None:
        raise not_writable(obj, self.name)

    def __delete__(self, obj) -> None:
        raise not_writable(obj, self.name)


def not_writable(obj, name: str) -> AttributeError:
    """PyTorch's error for setting or deleting a read-only attribute. The text names PyTorch's C++
    class where PyTorch's does (``obj._class_in_errors``: ``torch._C.TensorBase`` for a tensor),
    else ``obj``'s own class (``MulBackward0``)."""
    owner = getattr(type(obj), "_class_in_errors", None) or type(obj).__name__
    return AttributeError(f"attribute '{name}' of '{owner}' objects is not writable")


# PyTorch tensor attributes that accept assignment; every other attribute ("value") minigrad lacks is
# read-only in PyTorch, so its placeholder refuses assignment too (tests/fidelity checks both).
_WRITABLE_ATTRIBUTES = frozenset({"real", "imag", "volatile", "grad_dtype"})


def refuse_missing_methods(cls: type, namespace: str) -> None:
    """Give ``cls`` a ``MissingMethod`` for each name of PyTorch's ``namespace`` it lacks (a
    ``MissingAttribute`` for a read-only attribute).

    Class attributes instead of a ``__getattr__``: a class with ``__getattr__`` makes CPython look
    up every attribute of its instances the slow way (about 5% of a small training step).
    """
    for name, kind in torch_names()["namespaces"].get(namespace, {}).items():
        if name not in _LOOKED_UP_ON_THE_TYPE and not hasattr(cls, name):
            read_only = kind == "value" and not name.startswith("__") and name not in _WRITABLE_ATTRIBUTES
            setattr(cls, name, (MissingAttribute if read_only else MissingMethod)(namespace, name))
