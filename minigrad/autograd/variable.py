"""``Variable``: the wrapper older PyTorch code puts around tensors.

Since PyTorch 0.4 every tensor can record gradients, and ``Variable(t)`` only returns a new
tensor sharing ``t``'s data, detached from any graph, with ``requires_grad`` as asked.
``volatile`` no longer does anything (use ``no_grad``). Every tensor counts as a Variable, and
``Variable._execution_engine.queue_callback(fn)`` asks the engine to call ``fn()`` when the
backward pass now running has finished.

>>> import minigrad as torch
>>> from minigrad.autograd import Variable
>>> x = torch.ones(2)
>>> v = Variable(x, requires_grad=True)
>>> v, x.requires_grad, isinstance(x, Variable)
(tensor([1., 1.], requires_grad=True), False, True)
"""
from __future__ import annotations

import warnings

from ..tensor import Tensor
from .engine import ExecutionEngine

VOLATILE_WARNING = "volatile was removed and now has no effect. Use `with torch.no_grad():` instead."


class _VariableMeta(type):
    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor)


class Variable(metaclass=_VariableMeta):
    """Calling ``Variable(data, requires_grad=False, volatile=False)`` returns a plain tensor."""

    _execution_engine = ExecutionEngine()

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = False, volatile: bool = False,
                _grad_fn=None, **kwargs) -> Tensor:
        if kwargs:
            raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for this function")
        if _grad_fn is not None:
            raise TypeError(f"_grad_fn has to be a Function object or None, but got {type(_grad_fn).__name__}")
        if volatile:
            warnings.warn(VOLATILE_WARNING, UserWarning, stacklevel=2)
            if requires_grad:
                raise ValueError("Variable can't be volatile and require_grad at the same time!")
        if data is None:
            from ..factories import empty
            data = empty(0)
        elif not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if not isinstance(requires_grad, int):
            raise TypeError(f"'{type(requires_grad).__name__}' object cannot be interpreted as an integer")
        out = Tensor.detach(data)
        if requires_grad:
            if not data.dtype.is_floating_point:
                raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
            out.requires_grad_(True)
        return out
