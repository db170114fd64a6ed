"""gradcheck: compare a Function's backward with central differences, as PyTorch's does.

For every input element ``x[i]`` the numerical derivative is ``(f(x + eps) - f(x - eps)) / (2 eps)``;
backward gives the analytical one, row by row of the Jacobian. They must agree within
``atol + rtol * |numerical|``. Use float64 inputs: in float32 the rounding error of ``f`` divided by
``2 eps`` swamps the derivative.

>>> import minigrad as torch
>>> x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
>>> torch.autograd.gradcheck(lambda t: (t * t).sum(), (x,))
True
"""
from __future__ import annotations

import warnings
from typing import Callable, Sequence

import numpy as np

from .. import grad_mode
from ..tensor import Tensor


class GradcheckError(RuntimeError):
    """Raised by gradcheck when the analytical and numerical Jacobians differ."""


def _as_tuple(x) -> tuple:
    return x if isinstance(x, tuple) else (x,)


def _outputs(func: Callable, inputs: tuple) -> tuple:
    return tuple(o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor))


def _numerical_jacobian(func, inputs, output_index: int, input_index: int, eps: float) -> np.ndarray:
    x = inputs[input_index]
    flat = x._data.reshape(-1)   # a view: writing into it perturbs the input in place
    n_out = _outputs(func, inputs)[output_index].numel()
    jacobian = np.zeros((flat.size, n_out), dtype=x._data.dtype)
    with grad_mode.no_grad():
        for i in range(flat.size):
            original = flat[i]
            flat[i] = original + eps
            plus = _outputs(func, inputs)[output_index]._data.reshape(-1).copy()
            flat[i] = original - eps
            minus = _outputs(func, inputs)[output_index]._data.reshape(-1).copy()
            flat[i] = original
            jacobian[i] = (plus - minus) / (2 * eps)
    return jacobian


def _analytical_jacobian(func, inputs, output_index: int, input_index: int) -> np.ndarray:
    from .engine import run_backward
    x = inputs[input_index]
    output = _outputs(func, inputs)[output_index]
    jacobian = np.zeros((x.numel(), output.numel()), dtype=x._data.dtype)
    if not output.requires_grad:
        return jacobian
    for j in range(output.numel()):
        seed = np.zeros(output.numel(), dtype=output._data.dtype)
        seed[j] = 1
        grads = run_backward((output,), (Tensor._make(seed.reshape(output._data.shape)),), retain_graph=True,
                             inputs=(x,))
        if grads[0] is not None:
            jacobian[:, j] = grads[0]._data.reshape(-1)
    return jacobian


def _format(jacobian: np.ndarray) -> str:
    return repr(Tensor._make(jacobian))


def gradcheck(func: Callable, inputs, *, eps: float = 1e-06, atol: float = 1e-05, rtol: float = 0.001,
              raise_exception: bool = True, **unsupported) -> bool:
    """Check ``func``'s gradients against central differences for every input that requires grad.

    Returns True, or raises ``GradcheckError`` (False with ``raise_exception=False``).
    """
    inputs = _as_tuple(inputs)
    differentiable = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not differentiable:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of "
                         "them have requires_grad=True.")
    for i in differentiable:
        if inputs[i].dtype.name != "float64":
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point or complex. This "
                "check will likely fail if all the inputs are not of double precision floating point or complex. ",
                UserWarning, stacklevel=2)
    for output_index in range(len(_outputs(func, inputs))):
        for input_index in differentiable:
            numerical = _numerical_jacobian(func, inputs, output_index, input_index, eps)
            analytical = _analytical_jacobian(func, inputs, output_index, input_index)
            if not np.allclose(analytical, numerical, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian mismatch for output {output_index} with respect to input {input_index},\n"
                    f"numerical:{_format(numerical)}\nanalytical:{_format(analytical)}\n")
    return True


def gradgradcheck(func: Callable, inputs, grad_outputs=None, *, eps: float = 1e-06, atol: float = 1e-05,
                  rtol: float = 0.001, raise_exception: bool = True, **unsupported) -> bool:
    """Check second derivatives: gradcheck applied to the function ``inputs -> d(func)/d(inputs)``."""
    from .engine import run_backward
    inputs = _as_tuple(inputs)
    differentiable = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    outputs = _outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(Tensor._make(rng.standard_normal(o._data.shape).astype(o._data.dtype))
                             .requires_grad_() for o in outputs)
    grad_outputs = _as_tuple(grad_outputs)

    def first_derivatives(*args):
        xs, gs = args[:len(inputs)], args[len(inputs):]
        wanted = tuple(x for x in xs if isinstance(x, Tensor) and x.requires_grad)
        with grad_mode.enable_grad():   # gradcheck's numerical pass runs under no_grad
            outs = _outputs(func, xs)
            grads = run_backward(outs, gs, retain_graph=True, create_graph=True, inputs=wanted)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
