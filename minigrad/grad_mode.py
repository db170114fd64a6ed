"""Grad mode: the switch that decides whether operations record the backward graph.

>>> import minigrad as torch
>>> x = torch.ones(2, requires_grad=True)
>>> with torch.no_grad():
...     y = x * 2
>>> y.requires_grad
False
"""
from __future__ import annotations

import functools


class _GradState:
    __slots__ = ("enabled",)

    def __init__(self) -> None:
        self.enabled = True


# One process-wide flag, read on every operation (an attribute lookup is the cheapest check).
state = _GradState()


def is_grad_enabled() -> bool:
    """True when new operations record a backward graph."""
    return state.enabled


class _GradModeContext:
    """Base for no_grad/enable_grad: a context manager that is also a decorator."""

    mode: bool

    def __enter__(self) -> None:
        self._previous = state.enabled
        state.enabled = self.mode

    def __exit__(self, *exc) -> None:
        state.enabled = self._previous

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return func(*args, **kwargs)
        return wrapper


class no_grad(_GradModeContext):
    """Context manager (and decorator) that turns graph recording off.

    >>> import minigrad as torch
    >>> a = torch.ones(1, requires_grad=True)
    >>> with torch.no_grad():
    ...     a -= 0.1 * torch.ones(1)   # an in-place update of a leaf, as optimisers do
    >>> a
    tensor([0.9000], requires_grad=True)
    """

    mode = False


class enable_grad(_GradModeContext):
    """Context manager (and decorator) that turns graph recording back on inside no_grad."""

    mode = True


class set_grad_enabled(_GradModeContext):
    """Set grad mode now; used as a context manager, restore the previous mode on exit.

    >>> import minigrad as torch
    >>> with torch.set_grad_enabled(False):
    ...     torch.is_grad_enabled()
    False
    """

    def __init__(self, mode: bool) -> None:
        self._previous = state.enabled
        self.mode = bool(mode)
        state.enabled = self.mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        state.enabled = self._previous

    def __call__(self, func):
        # Used as a decorator: undo the immediate switch, apply the mode only while func runs.
        state.enabled = self._previous
        mode = self.mode

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return func(*args, **kwargs)
        return wrapper
