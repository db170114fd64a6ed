"""What a checker watches while the learner's code runs: the operations it applies, the engine's
backward passes it starts, the graph walks of minigrad's own it calls, and the tensors it keeps on
ctx. These are mechanisms only; every message is worded by the checker that uses them (nbNN.py),
so that its translation is found with the others.

>>> import minigrad as torch
>>> x = torch.ones(2, requires_grad=True)
>>> with backward_passes() as passes:
...     (x * 2).sum().backward(retain_graph=True)
>>> [(p.retain_graph, p.returns_gradients) for p in passes]
[(True, False)]
"""
from __future__ import annotations

import contextlib
import inspect
import os
import sys
import types
from collections import deque
from typing import Any, Callable, Iterator

from minigrad.autograd import engine
from minigrad.autograd.function import Function
from minigrad.tensor import Tensor

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # .../minigrad
_EXERCISES = os.path.dirname(os.path.abspath(__file__))


# ---------------------------------------------------------------------------- operations applied
@contextlib.contextmanager
def applying(observe: Callable[[type, tuple, Any], None]) -> Iterator[None]:
    """Call ``observe(function_class, args, output)`` after every ``Function.apply`` (each built-in
    operation is one) while the block runs, the learner's own Functions included."""
    original = Function.__dict__["apply"]

    def apply(cls, *args, **kwargs):
        output = original.__func__(cls, *args, **kwargs)
        observe(cls, args, output)
        return output

    Function.apply = classmethod(apply)
    try:
        yield
    finally:
        Function.apply = original


VIEWS = frozenset({"View", "UnsafeView", "ReshapeAlias", "T", "Transpose", "Permute", "Unsqueeze", "Squeeze",
                   "SqueezeDim", "SqueezeInplaceDim", "Expand", "Select", "Slice", "SelectBackward", "SliceBackward",
                   "Alias", "ViewFunction", "MultiViewFunction", "Split", "SplitWithSizes", "Unbind"})
"""The built-in operations whose outputs are views of their input: they compute no number."""


def outputs_of(output: Any) -> list:
    """The tensors an ``apply`` returned (one tensor, or a tuple of them)."""
    return [t for t in (output if isinstance(output, (tuple, list)) else (output,)) if isinstance(t, Tensor)]


# ---------------------------------------------------------------------------- backward passes
class Pass:
    """One call of the engine: ``Tensor.backward``, ``torch.autograd.backward`` or ``torch.autograd.grad``."""

    def __init__(self, retain_graph, create_graph, inputs, before: Any) -> None:
        self.retain_graph = bool(create_graph if retain_graph is None else retain_graph)
        self.returns_gradients = inputs is not None   # autograd.grad, or backward(inputs=...)
        self.before, self.after = before, None


_observers: list = []   # (passes, look) for each backward_passes block running, innermost last


def _run_backward_observed(*args, **kwargs):
    # Runs as engine.run_backward's own code (see backward_passes), with the engine's globals: it
    # reaches this module by importing it. Any signature: the arguments are bound below.
    from minigrad.exercises import _observe
    return _observe._observed_pass(args, kwargs)


_real_run_backward = types.FunctionType(engine.run_backward.__code__, engine.run_backward.__globals__,
                                        "run_backward", engine.run_backward.__defaults__)
_real_run_backward.__kwdefaults__ = engine.run_backward.__kwdefaults__
_run_backward_code = engine.run_backward.__code__
_SIGNATURE = inspect.signature(_real_run_backward)


def _observed_pass(args: tuple, kwargs: dict):
    if not _observers:
        return _real_run_backward(*args, **kwargs)
    passes, look = _observers[-1]
    bound = _SIGNATURE.bind(*args, **kwargs)
    bound.apply_defaults()
    given = bound.arguments
    record = Pass(given.get("retain_graph"), given.get("create_graph", False),
                  None if given.get("accumulate") else given.get("inputs"), look())
    passes.append(record)
    try:
        return _real_run_backward(*args, **kwargs)
    finally:
        record.after = look()


@contextlib.contextmanager
def backward_passes(look: Callable[[], Any] = lambda: None) -> Iterator[list]:
    """The engine's backward passes started while the block runs, as :class:`Pass` records, each
    with ``look()`` called just before it starts (``.before``) and once it ended (``.after``).

    Every way into the engine (``Tensor.backward``, ``torch.autograd.backward``/``grad``, a name
    imported before the check) ends in ``engine.run_backward``: its code is swapped for the block."""
    passes: list = []
    _observers.append((passes, look))
    engine.run_backward.__code__ = _run_backward_observed.__code__
    try:
        yield passes
    finally:
        _observers.pop()
        if not _observers:
            engine.run_backward.__code__ = _run_backward_code


# ---------------------------------------------------------------------------- minigrad's own graph walks
# The functions of minigrad that read next_functions while a graph is being built or backpropagated
# (not to walk it): a learner's graph walk never runs them, but building a tensor inside it might.
_NOT_WALKS = {"_record_node", "_conform", "_execute", "_run_node", "rebase_view"}


def _reads_next_functions(code: types.CodeType) -> bool:
    return "next_functions" in code.co_names or "next_functions" in code.co_consts


@contextlib.contextmanager
def minigrad_graph_walks() -> Iterator[list]:
    """The functions of minigrad (outside the exercises) that follow ``next_functions`` and run
    while the block runs, as ``'node_info.reachable_nodes'``: a walk of the graph the learner's code
    had minigrad do instead of writing it (a private helper or a public one, however imported)."""
    called: list = []

    def profile(frame, event, arg):
        if event == "call":
            code = frame.f_code
            if (code.co_filename.startswith(_PACKAGE) and not code.co_filename.startswith(_EXERCISES)
                    and code.co_name not in _NOT_WALKS and _reads_next_functions(code)):
                module = os.path.splitext(os.path.basename(code.co_filename))[0]
                name = f"{module}.{getattr(code, 'co_qualname', code.co_name)}"
                if name not in called:
                    called.append(name)

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        yield called
    finally:
        sys.setprofile(previous)


# ---------------------------------------------------------------------------- tensors kept on ctx
def tensors_kept_on(ctx, attributes: dict) -> list[tuple[str, str]]:
    """Where ``attributes`` (what the learner stored on ctx) hold a tensor, inside a list, tuple,
    dict, set or namespace too: ``[("inputs", "ctx.inputs[0]")]``, one entry per attribute.

    >>> import minigrad as torch
    >>> tensors_kept_on(None, {"scale": 2.0, "keep": [1, {"x": torch.ones(1)}]})
    [('keep', "ctx.keep[1]['x']")]
    """
    found = []
    for name, value in attributes.items():
        path = _tensor_inside(value, f"ctx.{name}", depth=4)
        if path is not None:
            found.append((name, path))
    return found


def _tensor_inside(value: Any, path: str, depth: int) -> str | None:
    if isinstance(value, Tensor):
        return path
    if depth == 0:
        return None
    if isinstance(value, dict):
        items = [(f"{path}[{key!r}]", item) for key, item in value.items()]
    elif isinstance(value, (list, tuple, deque)):
        items = [(f"{path}[{i}]", item) for i, item in enumerate(value)]
    elif isinstance(value, (set, frozenset)):
        items = [(f"{path} (a set)", item) for item in value]
    elif isinstance(value, types.SimpleNamespace):
        items = [(f"{path}.{key}", item) for key, item in vars(value).items()]
    else:
        return None
    for inner_path, item in items:
        found = _tensor_inside(item, inner_path, depth - 1)
        if found is not None:
            return found
    return None
