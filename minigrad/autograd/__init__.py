"""minigrad.autograd: Function, the backward engine, grad, gradcheck.

>>> import minigrad as torch
>>> x = torch.tensor(2.0, requires_grad=True)
>>> y = x ** 3
>>> dy, = torch.autograd.grad(y, x, create_graph=True)   # 3 x^2 = 12
>>> d2y, = torch.autograd.grad(dy, x)                     # 6 x = 12
>>> dy.item(), d2y.item()
(12.0, 12.0)
"""
from __future__ import annotations

from typing import Sequence

from ..tensor import Tensor
from . import anomaly_mode, forward_ad, function, graph
from .anomaly_mode import detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly
from .engine import ExecutionEngine, run_backward
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .graph import AccumulateGrad, Node


def _tuple(x) -> tuple:
    if x is None:
        return ()
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def backward(tensors, grad_tensors=None, retain_graph: bool | None = None, create_graph: bool = False,
             grad_variables=None, inputs=None) -> None:
    """Backpropagate from several tensors at once, accumulating into the leaves' ``.grad``.

    With ``inputs``, only those tensors (leaves or not) get their ``.grad`` filled.
    """
    tensors = _tuple(tensors)
    grads = _tuple(grad_tensors) or (None,) * len(tensors)
    if inputs is not None:
        inputs = _tuple(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    run_backward(tensors, grads, retain_graph, create_graph, inputs=inputs, accumulate=inputs is not None)


def grad(outputs, inputs, grad_outputs=None, retain_graph: bool | None = None, create_graph: bool = False,
         allow_unused: bool | None = None, materialize_grads: bool = False) -> tuple:
    """Return the gradients of ``outputs`` with respect to ``inputs`` (``.grad`` is left alone).

    With ``create_graph=True`` the returned gradients are themselves differentiable.
    """
    outputs, inputs = _tuple(outputs), _tuple(inputs)
    if not inputs:
        raise ValueError("grad requires non-empty inputs.")
    grads = _tuple(grad_outputs) or (None,) * len(outputs)
    result = run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs)
    if not (allow_unused or materialize_grads):
        for i, g in enumerate(result):
            if g is None:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the "
                                   "graph. Set allow_unused=True if this is the desired behavior.")
    if materialize_grads:
        result = tuple(Tensor._zeros(tuple(x.shape), x.dtype) if g is None else g for g, x in zip(result, inputs))
    return result


class _VariableMeta(type):
    def __instancecheck__(cls, instance) -> bool:
        return isinstance(instance, Tensor)


class Variable(metaclass=_VariableMeta):
    """PyTorch's old name for a tensor. ``Variable(t, requires_grad=True)`` is a new leaf sharing ``t``'s data.

    Every tensor is an instance of it, and ``Variable._execution_engine.queue_callback(fn)`` asks the
    engine to call ``fn()`` when the backward pass now running has finished.

    >>> import minigrad as torch
    >>> x = torch.ones(2)
    >>> v = torch.autograd.Variable(x, requires_grad=True)
    >>> v is x, v.requires_grad, v.is_leaf, isinstance(x, torch.autograd.Variable)
    (False, True, True, True)
    """

    _execution_engine = ExecutionEngine()

    def __new__(cls, data: Tensor, requires_grad: bool = False, volatile: bool = False):
        variable = Tensor._make(data._data)
        variable.requires_grad_(requires_grad)
        return variable


__all__ = ["Variable", "forward_ad", "detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "Function", "FunctionCtx", "once_differentiable", "grad", "backward", "gradcheck", "gradgradcheck",
           "GradcheckError", "AccumulateGrad", "Node", "function", "graph"]
