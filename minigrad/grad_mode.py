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
import inspect
import warnings


class _GradState:
    __slots__ = ("enabled",)

    def __init__(self) -> None:
        self.enabled = True


# One process-wide flag, read on every operation (an attribute lookup is the cheapest check).
state = _GradState()


def is_grad_enabled() -> bool:
    """True when new operations record a backward graph."""
    return state.enabled


CLASS_DECORATION_WARNING = (
    "Decorating classes is deprecated and will be disabled in future versions. You should only decorate functions "
    "or methods. To preserve the current behavior of class decoration, you can directly decorate the `__init__` "
    "method and nothing else.")


class _DecoratorContextManager:
    """A context manager that is also a decorator, as PyTorch's grad-mode classes are.

    The decorated function runs inside a fresh copy of the context (``clone``). A generator function
    gets the mode around each step of its body, and the caller's mode between steps; a coroutine
    function is called inside the context (its body runs later, in the caller's mode, as in PyTorch).
    """

    def __call__(self, func):
        if inspect.isclass(func):
            warnings.warn(CLASS_DECORATION_WARNING, FutureWarning, stacklevel=2)
            cls = func
            func = lambda *args, **kwargs: cls(*args, **kwargs)  # noqa: E731  (PyTorch wraps the class so)
        make_context = self.clone
        if inspect.isgeneratorfunction(func):
            return _wrap_generator(make_context, func)

        @functools.wraps(func)
        def decorate_context(*args, **kwargs):
            with make_context():
                return func(*args, **kwargs)
        return decorate_context

    def clone(self) -> "_DecoratorContextManager":
        return self.__class__()


def _wrap_generator(make_context, func):
    """Each step of the generator (first ``next``, ``send``, ``throw``, ``close``) runs inside the context."""
    @functools.wraps(func)
    def generator_context(*args, **kwargs):
        generator = func(*args, **kwargs)
        try:
            with make_context():
                response = generator.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with make_context():
                        generator.close()
                    raise
                except BaseException as error:
                    with make_context():
                        response = generator.throw(error)
                else:
                    with make_context():
                        response = generator.send(request)
        except StopIteration as stop:
            return stop.value
    return generator_context


class _GradModeContext(_DecoratorContextManager):
    """Base for no_grad/enable_grad: usable as ``with no_grad():``, ``@no_grad()``, ``@no_grad`` and
    ``no_grad(function)``."""

    mode: bool

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)   # a bare decorator: no_grad(function)

    def __enter__(self) -> None:
        self._previous = state.enabled
        state.enabled = self.mode

    def __exit__(self, *exc) -> None:
        state.enabled = self._previous


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
    """Context manager (and decorator) that turns graph recording back on inside no_grad.

    >>> import minigrad as torch
    >>> @torch.enable_grad
    ... def recording():
    ...     return torch.is_grad_enabled()
    >>> with torch.no_grad():
    ...     recording()
    True
    """

    mode = True


class set_grad_enabled(_DecoratorContextManager):
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

    def __call__(self, func):
        state.enabled = self._previous   # used as a decorator: undo the immediate switch
        return super().__call__(func)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        state.enabled = self._previous

    def clone(self) -> "set_grad_enabled":
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """``torch.inference_mode()``: no_grad for code that will never need gradients (a context manager
    and a decorator, bare or called). ``inference_mode(False)`` turns grad mode on, as PyTorch's.

    PyTorch also marks the tensors made inside as inference tensors, which autograd later refuses (and
    so do in-place changes outside); minigrad makes ordinary tensors (``is_inference()`` is False).

    >>> import minigrad as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> with torch.inference_mode():
    ...     y = x * 2
    ...     torch.is_inference_mode_enabled()
    True
    >>> y.requires_grad
    False
    """

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):   # a bare decorator: @inference_mode
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        self._previous = state.enabled, _inference.enabled
        state.enabled, _inference.enabled = not self.mode, bool(self.mode)

    def __exit__(self, *exc) -> None:
        state.enabled, _inference.enabled = self._previous

    def clone(self) -> "inference_mode":
        return self.__class__(self.mode)


_inference = _GradState()
_inference.enabled = False


def is_inference_mode_enabled() -> bool:
    """True inside ``torch.inference_mode()``."""
    return _inference.enabled
