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
from . import anomaly_mode, forward_ad, function, graph, node_info
from .anomaly_mode import detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly
from .engine import ExecutionEngine, run_backward
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .graph import AccumulateGrad, Node
from .variable import Variable


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
        for t in inputs:
            if not isinstance(t, Tensor):
                raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}")
            if not t.requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    run_backward(tensors, grads, retain_graph, create_graph, inputs=inputs, accumulate=inputs is not None)
    for t in inputs or ():
        if not t.is_leaf:
            t.retain_grad()   # as in PyTorch, a non-leaf input goes on retaining its grad


def grad(outputs, inputs, grad_outputs=None, retain_graph: bool | None = None, create_graph: bool = False,
         allow_unused: bool | None = None, materialize_grads: bool = False) -> tuple:
    """Return the gradients of ``outputs`` with respect to ``inputs`` (``.grad`` is left alone).

    With ``create_graph=True`` the returned gradients are themselves differentiable.
    """
    outputs, inputs = _tuple(outputs), _tuple(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grads = _tuple(grad_outputs) or (None,) * len(outputs)
    result = run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs)
    if not (allow_unused or materialize_grads):
        for i, g in enumerate(result):
            if g is None:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the "
                                   "graph. Set allow_unused=True if this is the desired behavior.")
    if materialize_grads:   # zeros for unused inputs; with create_graph they require grad, as in PyTorch
        result = tuple(Tensor._zeros(tuple(x.shape), x.dtype).requires_grad_(create_graph) if g is None else g
                       for g, x in zip(result, inputs))
    return result


__all__ = ["Variable", "forward_ad", "detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "Function", "FunctionCtx", "once_differentiable", "grad", "backward", "gradcheck", "gradgradcheck",
           "GradcheckError", "AccumulateGrad", "Node", "function", "graph", "node_info"]
