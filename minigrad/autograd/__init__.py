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

import warnings
from collections.abc import Mapping

from .. import grad_mode   # torch.autograd.grad_mode: the same module as the top level's switches
from ..grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled
from ..tensor import Tensor
from . import anomaly_mode, forward_ad, function, graph, node_info
from .anomaly_mode import detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly
from .engine import ExecutionEngine, run_backward
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .graph import AccumulateGrad, Node
from .variable import Variable
from ..inventory import module_getattr

# A PyTorch name these modules lack raises NotImplementedError with the reason (minigrad/inventory/).
__getattr__ = module_getattr("torch.autograd")
graph.__getattr__ = module_getattr("torch.autograd.graph")
function.__getattr__ = module_getattr("torch.autograd.function")


def _tuple(x) -> tuple:
    if x is None:
        return ()
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _gradients(grads, n_tensors: int) -> tuple:
    """``grad_tensors`` / ``grad_outputs`` as a tuple: None means one None per tensor (PyTorch's
    ``_tensor_or_tensors_to_tuple``); their number is checked against the tensors' by the engine."""
    return (None,) * n_tensors if grads is None else _tuple(grads)


def _inputs(inputs, function: str) -> tuple:
    """``inputs`` as a tuple: a tensor, a sequence of tensors, or a dict of them (its values)."""
    if type(inputs) is dict:
        return tuple(inputs.values())
    if isinstance(inputs, Mapping):
        raise TypeError(f"`inputs` argument to `{function}()` must be a dict, not {type(inputs).__name__}. "
                        "Other Mapping types are not supported.")
    inputs = _tuple(inputs)
    if not inputs:
        raise RuntimeError(f"`inputs` argument to `{function}()` cannot be empty.")
    return inputs


def backward(tensors, grad_tensors=None, retain_graph: bool | None = None, create_graph: bool = False,
             grad_variables=None, inputs=None) -> None:
    """Backpropagate from several tensors at once, accumulating into the leaves' ``.grad``.

    With ``inputs``, only those tensors (leaves or not) get their ``.grad`` filled; a non-leaf
    among them retains its gradient from then on (``retain_grad()``), as in PyTorch.
    """
    if grad_variables is not None:
        warnings.warn("`grad_variables` is deprecated. Use `grad_tensors` instead.", FutureWarning, stacklevel=2)
        if grad_tensors is not None:
            raise RuntimeError("`grad_tensors` and `grad_variables` (deprecated) arguments both passed to "
                               "`backward()`. Please only use `grad_tensors`.")
        grad_tensors = grad_variables
    if inputs is not None:
        inputs = _inputs(inputs, "backward")
    tensors = _tuple(tensors)
    run_backward(tensors, _gradients(grad_tensors, len(tensors)), retain_graph, create_graph, inputs=inputs,
                 accumulate=inputs is not None)


def grad(outputs, inputs, grad_outputs=None, retain_graph: bool | None = None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused: bool | None = None, is_grads_batched: bool = False,
         materialize_grads: bool = False) -> tuple | dict:
    """Return the gradients of ``outputs`` with respect to ``inputs`` (``.grad`` is left alone).

    With ``create_graph=True`` the returned gradients are themselves differentiable. ``inputs`` may
    be a dict of tensors (``dict(model.named_parameters())``): the result is then a dict too.
    """
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if is_grads_batched:
        raise NotImplementedError("minigrad does not implement vmap, so autograd.grad cannot take "
                                  "is_grads_batched=True; call it once per row of grad_outputs instead.")
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use torch.autograd.backward.",
                      FutureWarning, stacklevel=2)
    outputs, wanted = _tuple(outputs), _inputs(inputs, "grad")
    result = run_backward(outputs, _gradients(grad_outputs, len(outputs)), retain_graph, create_graph, inputs=wanted)
    if not (allow_unused or materialize_grads):
        for i, g in enumerate(result):
            if g is None:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the "
                                   "graph. Set allow_unused=True if this is the desired behavior.")
    if materialize_grads:   # zeros for unused inputs; with create_graph they require grad, as in PyTorch
        result = tuple(Tensor._zeros(tuple(x.shape), x.dtype).requires_grad_(create_graph) if g is None else g
                       for g, x in zip(result, wanted))
    return dict(zip(inputs.keys(), result)) if type(inputs) is dict else result


__all__ = ["Variable", "forward_ad", "detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "Function", "FunctionCtx", "once_differentiable", "grad", "backward", "gradcheck", "gradgradcheck",
           "GradcheckError", "AccumulateGrad", "Node", "function", "graph", "node_info"]
