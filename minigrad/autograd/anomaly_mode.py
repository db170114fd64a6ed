"""Anomaly detection: which forward call made the node whose backward failed or returned nan.

Turned on with ``detect_anomaly()`` (a context manager or decorator) or ``set_detect_anomaly(True)``.
While it is on, every node records the Python stack of the forward call that created it (and the
node whose backward was running, for a node made during a backward). When a backward fails, the
engine warns ``Error detected in <Node>`` with that stack before the error propagates; with
``check_nan`` (the default) a gradient containing nan is itself an error. It costs time: it is for
debugging.

>>> import warnings
>>> import minigrad as torch
>>> x = torch.tensor([0.0], requires_grad=True)
>>> y = torch.sqrt(x) * 0           # the gradient of sqrt at 0 is inf, times 0 is nan
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     with torch.autograd.detect_anomaly():
...         try:
...             y.backward()
...         except RuntimeError as error:
...             print(error)
Function 'SqrtBackward0' returned nan values in its 0th output.
"""
from __future__ import annotations

import functools
import sys
import traceback
import warnings

import numpy as np


class _AnomalyState:
    enabled = False
    check_nan = True
    current_node = None   # the node whose backward is running (while anomaly detection is on)


state = _AnomalyState()

ENABLED_WARNING = ("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                   "enabled for debugging.")


def is_anomaly_enabled() -> bool:
    return state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    return state.check_nan


class detect_anomaly:
    """Context manager (or decorator) that turns anomaly detection on inside it."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        warnings.warn(ENABLED_WARNING, UserWarning, stacklevel=2)

    def __enter__(self) -> None:
        self._previous = (state.enabled, state.check_nan)
        state.enabled, state.check_nan = True, self.check_nan

    def __exit__(self, *exc_info) -> None:
        state.enabled, state.check_nan = self._previous

    def __call__(self, function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with self:
                return function(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Turn anomaly detection on or off now; used in a ``with``, the old setting returns at its end."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._previous = (state.enabled, state.check_nan)
        state.enabled, state.check_nan = mode, check_nan

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc_info) -> None:
        state.enabled, state.check_nan = self._previous


def record_forward(node) -> None:
    """Called for each node made while anomaly detection is on: remember where it came from.

    The stack ends where minigrad took over: this function and the one that called it
    (``_connect_to_inputs`` for a node made by ``Function.apply``, ``_new_node`` for one made by
    views.py) are left out.
    """
    node._anomaly_trace = "".join(traceback.format_stack()[:-2])
    node._anomaly_parent = state.current_node


def check_nan(node, grad_inputs: tuple) -> None:
    for index, grad in enumerate(grad_inputs):
        if grad is not None and np.isnan(grad._data).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {index}th output.")


def warn_error_in(node) -> None:
    """The warnings PyTorch gives before an error in ``node``'s backward propagates."""
    trace = getattr(node, "_anomaly_trace", None)
    if trace is None:
        _warn_while_failing(f"Error detected in {node.name()}. No forward pass information available. Enable detect "
                            "anomaly during forward pass for more information.")
        return
    _warn_while_failing(f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n{trace}")
    parent = node._anomaly_parent
    while parent is not None and getattr(parent, "_anomaly_trace", None) is not None:
        _warn_while_failing(f"\n\nPrevious calculation was induced by {parent.name()}. Traceback of forward call "
                            f"that induced the previous calculation:\n{parent._anomaly_trace}")
        parent = parent._anomaly_parent


def _warn_while_failing(message: str) -> None:
    """A UserWarning shown while the backward's own error propagates. If warnings are turned into
    errors, PyTorch prints it (``UserWarning: ...`` on stderr) and still raises the original error."""
    try:
        warnings.warn(message, UserWarning, stacklevel=3)
    except Warning as warning:
        print(f"{type(warning).__name__}: {warning}", file=sys.stderr)
