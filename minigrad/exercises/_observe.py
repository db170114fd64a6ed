"""What a checker watches while the learner's code runs: the operations it applies, the engine's
backward passes it starts, the graph walks of minigrad's own it calls, and the tensors it keeps on
ctx. The first three are heard through autograd's public listeners (``minigrad.autograd.listeners``).
These are mechanisms only; every message is worded by the checker that uses them (nbNN.py), so that
its translation is found with the others.

>>> import minigrad as torch
>>> x = torch.ones(2, requires_grad=True)
>>> with backward_passes() as passes:
...     (x * 2).sum().backward(retain_graph=True)
>>> [(p.retain_graph, p.returns_gradients) for p in passes]
[(True, False)]
"""
from __future__ import annotations

import contextlib
import os
import sys
import types
import warnings
from collections import deque
from typing import Any, Callable, Iterator

from minigrad.autograd import listeners
from minigrad.tensor import Tensor


# ---------------------------------------------------------------------------- operations applied
@contextlib.contextmanager
def applying(observe: Callable[[type, tuple, Any], None],
             starting: Callable[[type, tuple], None] | None = None) -> Iterator[None]:
    """Call ``observe(function_class, args, output)`` after every ``Function.apply`` (each built-in
    operation is one) while the block runs, the learner's own Functions included, and, if given,
    ``starting(function_class, args)`` before each one's forward runs (``args`` is the same tuple)."""
    with contextlib.ExitStack() as stack:
        if starting is not None:
            stack.enter_context(listeners.on_apply_start(starting))
        stack.enter_context(listeners.on_apply_end(lambda function, ctx, args, output: observe(function, args, output)))
        yield


VIEWS = frozenset({"View", "UnsafeView", "ReshapeAlias", "T", "Transpose", "Permute", "Unsqueeze", "Squeeze",
                   "SqueezeDim", "SqueezeInplaceDim", "Expand", "Select", "Slice", "SelectBackward", "SliceBackward",
                   "Alias", "ViewFunction", "MultiViewFunction", "Split", "SplitWithSizes", "Unbind"})
"""The built-in operations whose outputs are views of their input: they compute no number."""


def outputs_of(output: Any) -> list:
    """The tensors an ``apply`` returned (one tensor, or a tuple of them)."""
    return [t for t in (output if isinstance(output, (tuple, list)) else (output,)) if isinstance(t, Tensor)]


# ---------------------------------------------------------------------------- backward passes
class Pass:
    """One backward pass: ``Tensor.backward``, ``torch.autograd.backward`` or ``torch.autograd.grad``."""

    def __init__(self, task, before: Any) -> None:
        self.retain_graph = bool(task.retain_graph)
        self.create_graph = bool(task.create_graph)
        self.returns_gradients = task.inputs is not None and not task.accumulate   # autograd.grad
        self.before, self.after = before, None


@contextlib.contextmanager
def backward_passes(look: Callable[[], Any] = lambda: None) -> Iterator[list]:
    """The engine's backward passes started while the block runs, as :class:`Pass` records, each
    with ``look()`` called just before it starts (``.before``) and once it ended (``.after``), also
    when it failed. Every way into the engine (``Tensor.backward``, ``torch.autograd.backward`` or
    ``grad``, a name imported before the check) starts a pass the engine's listeners hear of."""
    passes: list = []
    running: dict = {}   # task -> its record, while it runs

    def started(task) -> None:
        running[task] = record = Pass(task, look())
        passes.append(record)

    def ended(task, error) -> None:
        record = running.pop(task, None)
        if record is not None:
            record.after = look()

    with listeners.on_backward_start(started), listeners.on_backward_end(ended):
        yield passes


# ---------------------------------------------------------------------------- minigrad's own graph walks
@contextlib.contextmanager
def minigrad_graph_walks() -> Iterator[list]:
    """The walks of minigrad's graph (the functions autograd and minigrad.viz mark with
    ``listeners.graph_walk``) that run while the block runs, as ``'node_info.reachable_nodes'``: a
    walk of the graph the learner's code had minigrad do instead of writing it (a private helper
    or a public one, however imported)."""
    called: list = []
    walks = listeners.graph_walks()

    def profile(frame, event, arg):
        if event == "call" and frame.f_code in walks:
            code = frame.f_code
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


# ---------------------------------------------------------------------------- warnings of the learner's code
# Code that is not the learner's: minigrad (the checkers included), Python's library, installed packages.
_NOT_THE_LEARNERS = tuple(os.path.join(os.path.realpath(folder), "") for folder in
                          {os.path.dirname(os.path.dirname(os.path.abspath(__file__))), sys.prefix,
                           sys.base_prefix, sys.exec_prefix, os.path.dirname(os.__file__)})


@contextlib.contextmanager
def learners_warnings(checker_frame) -> Iterator[list]:
    """The warnings shown while the block runs (the filters in force decide which), as
    ``(filename, line, "Category: message")`` once each, where the place is the learner's own
    code that was running when minigrad, numpy or Python warned: the innermost frame that is
    neither minigrad's nor an installed library's. A warning with none of the learner's code
    between it and ``checker_frame`` (the checker's own frame) is the checker's, and is dropped.
    Nothing reaches stderr.

    >>> import sys, warnings
    >>> def learners_code():
    ...     warnings.warn("careful", UserWarning)
    >>> with learners_warnings(sys._getframe()) as caught:
    ...     learners_code()
    ...     learners_code()
    >>> [(line, text) for _, line, text in caught]
    [(2, 'UserWarning: careful')]
    """
    caught: list = []

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        frame = sys._getframe(1)
        while frame is not None and frame is not checker_frame:
            path = frame.f_code.co_filename
            if not (path.startswith("<frozen") or os.path.realpath(path).startswith(_NOT_THE_LEARNERS)):
                entry = (path, frame.f_lineno, f"{category.__name__}: {message}")
                if entry not in caught:
                    caught.append(entry)
                return
            frame = frame.f_back

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield caught


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
