"""gradcheck: compare a Function's backward with central differences, as PyTorch's does.

For every input element ``x[i]`` the numerical derivative is ``(f(x + eps) - f(x - eps)) / (2 eps)``;
backward gives the analytical one, one output element at a time. They must agree within
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
from .engine import run_backward
from .function import Function


class GradcheckError(RuntimeError):
    """Raised by gradcheck when the analytical and numerical Jacobians differ."""


NOT_REENTRANT = (
    "Backward is not reentrant, i.e., running backward with same input and grad_output multiple times gives "
    "different values, although analytical gradient matches numerical gradient.The tolerance for "
    "nondeterminism was {}.\n\nNOTE: If your op relies on non-deterministic operations i.e., it is listed "
    "here:\nhttps://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html\nthis failure "
    "might be expected.\n\nIf you are adding a new operator, please file an issue and then use one of the\n"
    "workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.\nIf the test\n- "
    "manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck\n  with `nondet_tol=<tol>` as "
    "a keyword argument.\n- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the "
    "test\n  to have `gradcheck_nondet_tol=<tol>`.\n- is a Module test (e.g., in common_nn.py), then modify "
    "the corresponding\n  module_test entry to have `gradcheck_nondet_tol=<tol>`\n")


FAST_FAIL_SLOW_OK = (
    "Fast gradcheck failed but element-wise differences are small. This means that the\ntest might've passed in "
    "slow_mode!\n\nIf you are adding a new operator, please file an issue and then use one of the\nworkarounds. "
    "The workaround depends on how your test invokes gradcheck/gradgradcheck:\n\nIf the test\n- manually invokes "
    "gradcheck/gradgradcheck, then call gradcheck/gradgradcheck\n  with `fast_mode=False` as a keyword argument.\n"
    "- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test\n  to have "
    "`gradcheck_fast_mode=False`\n- is a Module test (e.g., in common_nn.py), then modify the corresponding\n  "
    "module_test entry to have `gradcheck_fast_mode=False`")


def _as_tuple(x) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _outputs(func: Callable, inputs: tuple) -> tuple:
    return tuple(o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor))


def _numerical_jacobian(func, inputs, output_index: int, input_index: int, eps: float) -> np.ndarray:
    x = inputs[input_index]
    flat = x._data.reshape(-1)   # a view: writing into it perturbs the input in place
    n_out = _outputs(func, inputs)[output_index].numel()
    jacobian = np.zeros((flat.size, n_out), dtype=x._data.dtype)
    for i in range(flat.size):   # func runs as the user wrote it (hooks included), only the data moves
        original = flat[i]
        flat[i] = original - eps
        minus = _outputs(func, inputs)[output_index]
        minus_values = minus._data.reshape(-1).copy()   # copied now: an output may share the input's data
        flat[i] = original + eps
        plus = _outputs(func, inputs)[output_index]
        plus_values = plus._data.reshape(-1).copy()
        flat[i] = original
        _check_same_shape_and_dtype(minus, plus, np.unravel_index(i, x._data.shape), eps)
        jacobian[i] = (plus_values - minus_values) / (2 * eps)
    return jacobian


def _numerical_jvp(func, inputs, input_index: int, u: np.ndarray, eps: float) -> list:
    """Fast mode's central difference along a direction: ``(f(x + eps u) - f(x - eps u)) / (2 eps)``,
    flattened, for every output."""
    data = inputs[input_index]._data
    original = data.copy()
    data[...] = original - eps * u.reshape(data.shape)   # written in place: the input is the same object
    minus = _outputs(func, inputs)
    minus_values = [o._data.reshape(-1).copy() for o in minus]
    data[...] = original + eps * u.reshape(data.shape)
    plus = _outputs(func, inputs)
    plus_values = [o._data.reshape(-1).copy() for o in plus]
    data[...] = original
    for a, b in zip(minus, plus):
        _check_same_shape_and_dtype(a, b, None, eps)
    return [(b - a) / (2 * eps) for a, b in zip(minus_values, plus_values)]


def _check_same_shape_and_dtype(minus: Tensor, plus: Tensor, index: tuple | None, eps: float) -> None:
    """A function whose output shape or dtype jumps with its input has no Jacobian to compare."""
    on_index = "" if index is None else f"on index {tuple(int(i) for i in index)} "
    for what, a, b in (("shape", minus.shape, plus.shape), ("dtype", minus.dtype, plus.dtype)):
        if a != b:
            raise AssertionError(f"Expected `func` to return outputs with the same {what} when inputs are perturbed "
                                 f"{on_index}by {eps}, but got: {what}s {a} and {b}.")


def _check_inputs_do_not_overlap(inputs: tuple, differentiable: list) -> None:
    """Perturbing one element of an expanded input would move all the elements that share its memory."""
    for i in differentiable:
        data = inputs[i]._data   # numpy gives an empty array zero strides: it has no element to share
        if data.size and any(stride == 0 and size > 1 for stride, size in zip(data.strides, data.shape)):
            raise RuntimeError(f"The {i}th input has a dimension with stride 0. gradcheck only supports inputs that "
                               "are non-overlapping to be able to compute the numerical gradients correctly. You "
                               "should call .contiguous on the input before passing it to gradcheck.")


def _analytical_jacobian(output: Tensor, inputs: tuple, differentiable: list) -> list:
    """One Jacobian per differentiable input (rows: input elements, columns: output elements, as
    PyTorch prints it), built column by column: one backward per output element."""
    wanted = tuple(inputs[i] for i in differentiable)
    jacobians = [np.zeros((x.numel(), output.numel()), dtype=x._data.dtype) for x in wanted]
    for j in range(output.numel()):
        one_hot = np.zeros(output.numel(), dtype=output._data.dtype)
        one_hot[j] = 1
        grads = run_backward((output,), (Tensor._make(one_hot.reshape(output._data.shape)),), retain_graph=True,
                             inputs=wanted)
        for jacobian, grad in zip(jacobians, grads):
            if grad is not None:
                jacobian[:, j] = grad._data.reshape(-1)
    return jacobians


def _format(jacobian: np.ndarray) -> str:
    return repr(Tensor._make(jacobian))


def _refuse_out_of_scope(check_forward_ad: bool, check_backward_ad: bool, check_batched_grad: bool,
                         check_batched_forward_grad: bool) -> None:
    if check_forward_ad or check_batched_forward_grad:
        raise NotImplementedError("minigrad does not implement forward-mode AD, so gradcheck cannot "
                                  "check_forward_ad or check_batched_forward_grad.")
    if check_batched_grad:
        raise NotImplementedError("minigrad does not implement vmap, so gradcheck cannot check_batched_grad.")
    if not check_backward_ad:
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")


def gradcheck(func: Callable, inputs, *, eps: float = 1e-06, atol: float = 1e-05, rtol: float = 0.001,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked: bool | None = None) -> bool:
    """Check ``func``'s gradients against central differences for every input that requires grad.

    Returns True, or raises ``GradcheckError`` (False with ``raise_exception=False``). Backward is run
    twice for every output: results further apart than ``nondet_tol`` mean a backward that is not
    reproducible ("not reentrant"). ``fast_mode=True`` compares one random projection of each
    Jacobian instead of the whole of it (``_fast_check``), so that large inputs stay cheap.
    """
    _refuse_out_of_scope(check_forward_ad, check_backward_ad, check_batched_grad, check_batched_forward_grad)
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
    _check_inputs_do_not_overlap(inputs, differentiable)
    outputs = _outputs(func, inputs)
    checked = [k for k, o in enumerate(outputs) if o.requires_grad]   # outputs that carry gradients
    compare = _fast_check if fast_mode else _slow_check
    try:
        compare(func, inputs, outputs, checked, differentiable, eps, rtol, atol, nondet_tol)
        if checked:
            _check_multiplied_by_grad_output([outputs[k] for k in checked], inputs, differentiable)
        if check_undefined_grad:
            _check_undefined_grad(func, inputs, differentiable)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _slow_check(func, inputs, outputs, checked, differentiable, eps, rtol, atol, nondet_tol) -> None:
    """Whole Jacobians, element by element: two forwards per input element, one backward per
    output element (twice, for reentrancy)."""
    if not checked:
        _check_numerical_gradient_is_zero(func, inputs, len(outputs), differentiable, eps)
    for index, k in enumerate(checked):
        output = _outputs(func, inputs)[k]
        analytical = _analytical_jacobian(output, inputs, differentiable)
        _check_reentrant(analytical, _analytical_jacobian(output, inputs, differentiable), nondet_tol)
        for position, i in enumerate(differentiable):
            numerical = _numerical_jacobian(func, inputs, k, i, eps)
            if not np.allclose(analytical[position], numerical, rtol=rtol, atol=atol):
                raise GradcheckError(_mismatch(index, position, _format(numerical), _format(analytical[position])))


def _check_reentrant(first: list, second: list, nondet_tol: float) -> None:
    if any(a.size and np.abs(a - b).max() > nondet_tol for a, b in zip(first, second)):
        raise GradcheckError(NOT_REENTRANT.format(nondet_tol))


def _mismatch(output_index: int, input_index: int, numerical: str, analytical: str) -> str:
    """Inputs and outputs are counted among those that carry gradients, as PyTorch counts them."""
    return (f"Jacobian mismatch for output {output_index} with respect to input {input_index},\n"
            f"numerical:{numerical}\nanalytical:{analytical}\n")


def _fast_check(func, inputs, outputs, checked, differentiable, eps, rtol, atol, nondet_tol) -> None:
    """PyTorch's fast mode. With random unit vectors ``u`` (one per input) and ``v`` (one per
    output), ``v . (J u)``, where ``J u`` is a central difference along ``u``, must equal
    ``(v J) . u``, where ``v J`` is one backward with ``grad_output = v``. The tolerance ``atol``
    becomes ``atol * sum(u) * sum(v)``, the projection of an all-``atol`` matrix."""
    rng = np.random.default_rng(0)   # a generator of its own: the user's random numbers stay untouched
    us = [_unit_vector(inputs[i].numel(), inputs[i]._data.dtype, rng) for i in differentiable]
    vs = [_unit_vector(outputs[k].numel(), outputs[k]._data.dtype, rng) for k in checked]
    jvps = [_numerical_jvp(func, inputs, i, u, eps) for i, u in zip(differentiable, us)]
    if not checked:
        if any(j.size and np.abs(j).max() > nondet_tol for per_input in jvps for j in per_input):
            raise GradcheckError("Numerical gradient for function expected to be zero")
        return
    vjs = [_vector_jacobian(_outputs(func, inputs)[k], v, inputs, differentiable, nondet_tol)
           for k, v in zip(checked, vs)]
    for position, u in enumerate(us):
        for index, (k, v) in enumerate(zip(checked, vs)):
            numerical, analytical = v @ jvps[position][k], vjs[index][position] @ u
            if not np.isclose(analytical, numerical, rtol=rtol, atol=atol * u.sum() * v.sum()):
                raise GradcheckError(_mismatch(index, position, repr(float(numerical)), repr(float(analytical))) +
                                     _slow_mode_report(func, inputs, k, differentiable[position], position,
                                                       rtol, atol, eps))


def _unit_vector(size: int, dtype, rng) -> np.ndarray:
    vector = rng.random(size).astype(dtype)   # uniform in [0, 1), as PyTorch draws it
    norm = np.linalg.norm(vector)
    return vector / norm if norm else vector


def _vector_jacobian(output: Tensor, v: np.ndarray, inputs: tuple, differentiable: list, nondet_tol: float) -> list:
    """``v J`` for every differentiable input (flattened), from one backward with ``grad_output = v``; run
    twice, so that a backward that is not reproducible is caught."""
    wanted = tuple(inputs[i] for i in differentiable)
    runs = []
    for _ in range(2):
        grad = Tensor._make(v.reshape(output._data.shape))
        grads = run_backward((output,), (grad,), retain_graph=True, inputs=wanted)
        runs.append([np.zeros(x.numel(), x._data.dtype) if g is None else g._data.reshape(-1).copy()
                     for g, x in zip(grads, wanted)])
    _check_reentrant(*runs, nondet_tol)
    return runs[0]


def _slow_mode_report(func, inputs, output_index: int, input_index: int, position: int, rtol, atol, eps) -> str:
    """After a fast-mode mismatch, PyTorch recomputes that pair's whole Jacobians to show them."""
    numerical = _numerical_jacobian(func, inputs, output_index, input_index, eps)
    analytical = _analytical_jacobian(_outputs(func, inputs)[output_index], inputs, [input_index])[0]
    report = ("\nThe above quantities relating the numerical and analytical jacobians are computed \n"
              "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
              "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n"
              f"Numerical:\n {_format(numerical)}\nAnalytical:\n{_format(analytical)}\n\n"
              f"The max per-element difference (slow mode) is: {float(np.abs(numerical - analytical).max())!r}.\n")
    if np.allclose(analytical, numerical, rtol=rtol, atol=atol):
        report += FAST_FAIL_SLOW_OK
    return report


def _check_multiplied_by_grad_output(outputs: list, inputs: tuple, differentiable: list) -> None:
    """PyTorch's check that backward scales with the gradient it gets: zero gradients in, zeros out
    (of the input's dtype and shape)."""
    wanted = tuple(inputs[i] for i in differentiable)
    grads = run_backward(outputs, [Tensor._zeros(tuple(o.shape), o.dtype) for o in outputs], inputs=wanted)
    for g, x in zip(grads, wanted):
        if g is None:
            continue
        if np.any(g.to_dense()._data != 0):
            raise GradcheckError("backward not multiplied by grad_output")
        if g.dtype is not x.dtype:
            raise GradcheckError("grad is incorrect type")
        if g.shape != x.shape:
            raise GradcheckError("grad is incorrect size")


class _UndefinedGrad(Function):
    """PyTorch's ``UndefinedGrad``: passes its input on, and sends back no gradient at all (None)."""

    _is_builtin = True
    _node_name = "UndefinedGradBackward"

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        return None


UNDEFINED_GRAD_COMPATIBILITY = (
    "Backwards compatibility: New undefined gradient support checking feature is enabled by default, but it may "
    "break existing callers of this function. If this is true for you, you can call this function with "
    "\"check_undefined_grad=False\" to disable the feature")
_UNDEFINED_NOTES = 'Please look at "Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'


def _check_undefined_grad(func, inputs: tuple, differentiable: list) -> None:
    """PyTorch's ``check_undefined_grad``: when no gradient reaches the outputs (all of them, then each
    in turn), backward must run and give every input None or zeros."""
    wanted = tuple(inputs[i] for i in differentiable)
    n_outputs = len(_outputs(func, inputs))
    for undefined in [None] + (list(range(n_outputs)) if n_outputs > 1 else []):
        outputs = [o for o in _outputs(func, inputs) if o.requires_grad]
        outputs = [_UndefinedGrad.apply(o) if undefined is None or k == undefined else o for k, o in enumerate(outputs)]
        try:
            grads = run_backward(outputs, [Tensor._zeros(tuple(o.shape), o.dtype) for o in outputs], inputs=wanted)
        except RuntimeError as error:
            warnings.warn(UNDEFINED_GRAD_COMPATIBILITY, UserWarning, stacklevel=4)
            raise GradcheckError(f"Expected backward function to handle undefined output grads. {_UNDEFINED_NOTES}") \
                from error
        if any(g is not None and np.any(g._data != 0) for g in grads):
            warnings.warn(UNDEFINED_GRAD_COMPATIBILITY, UserWarning, stacklevel=4)
            raise GradcheckError("Expected all input grads to be undefined or zero when all output grads are "
                                 f"undefined or zero. {_UNDEFINED_NOTES}")


def _check_numerical_gradient_is_zero(func, inputs, n_outputs: int, differentiable: list, eps: float) -> None:
    """No output carries a gradient: then the outputs must not depend on the inputs either."""
    for k in range(n_outputs):
        for i in differentiable:
            if np.any(_numerical_jacobian(func, inputs, k, i, eps) != 0):
                raise GradcheckError("Numerical gradient for function expected to be zero")


def gradgradcheck(func: Callable, inputs, grad_outputs=None, *, eps: float = 1e-06, atol: float = 1e-05,
                  rtol: float = 0.001, gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True,
                  nondet_tol: float = 0.0, check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False, masked: bool = False) -> bool:
    """Check second derivatives: gradcheck applied to the function ``inputs -> d(func)/d(inputs)``.

    Only the outputs that carry gradients get a ``grad_output`` (random in [-1, 1), float64 for an
    output that is not floating point, as PyTorch makes them)."""
    _refuse_out_of_scope(check_fwd_over_rev, check_rev_over_rev, check_batched_grad, False)
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(Tensor._make(rng.uniform(-1, 1, o._data.shape).astype(
            o._data.dtype if o.is_floating_point() else np.float64)).requires_grad_()
            for o in _differentiable_outputs(func, inputs))
    grad_outputs = _as_tuple(grad_outputs)

    def first_derivatives(*args):
        xs, gs = args[:len(inputs)], args[len(inputs):]
        wanted = tuple(x for x in xs if isinstance(x, Tensor) and x.requires_grad)
        with grad_mode.enable_grad():
            grads = run_backward(_differentiable_outputs(func, xs), gs, retain_graph=True, create_graph=True,
                                 inputs=wanted)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad, fast_mode=fast_mode)


def _differentiable_outputs(func: Callable, inputs: tuple) -> tuple:
    return tuple(o for o in _outputs(func, inputs) if o.requires_grad)
