"""Pointwise functions of one tensor: ``exp``, ``log``, ``sin``, ``cos``, ``tanh``, ``sigmoid``, ``sqrt``,
``sgn``/``sign``, ``abs``, and ``clamp`` and ``where``. Those whose derivative is easiest from the
output save the output (``exp``, ``tanh``, ``sigmoid``, ``sqrt``), as PyTorch does; the others save
the input. (The activations of ``torch.nn.functional`` are in ``activation.py``.)
"""
from __future__ import annotations

import warnings

import numpy as np

from ..tensor import Tensor, _operand
from ._util import Builtin, NoEdge, binary_arrays, check_broadcast, wrap, zero_gradient


def _float(x: np.ndarray) -> np.ndarray:
    """x, or x as float32 when it holds integers or bools: sin, exp... of those are float32 in PyTorch."""
    return x if x.dtype.kind == "f" else x.astype(np.float32)


class Exp(Builtin):
    """f(a) = exp(a)

    ∂L/∂a = grad * f
    Saves the result f: exp is its own derivative.
    """

    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        with np.errstate(over="ignore"):
            out = wrap(np.exp(_float(a._data)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return grad * result


class Log(Builtin):
    """f(a) = log(a)

    ∂L/∂a = grad / a
    Saves a, which the derivative reads.
    """

    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        with np.errstate(divide="ignore", invalid="ignore"):
            return wrap(np.log(_float(a._data)))

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return grad / a


class Sin(Builtin):
    """f(a) = sin(a)

    ∂L/∂a = grad * cos(a)
    Saves a, which the derivative reads.
    """

    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        with np.errstate(invalid="ignore"):   # sin(inf) is nan, silently as in PyTorch
            return wrap(np.sin(_float(a._data)))

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return grad * a.cos()


class Cos(Builtin):
    """f(a) = cos(a)

    ∂L/∂a = -grad * sin(a)
    Saves a, which the derivative reads.
    """

    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        with np.errstate(invalid="ignore"):   # cos(inf) is nan, silently as in PyTorch
            return wrap(np.cos(_float(a._data)))

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return -grad * a.sin()


class Tanh(Builtin):
    """f(a) = tanh(a)

    ∂L/∂a = grad * (1 - f * f)
    Saves the result f: the derivative 1 - tanh(a) ** 2 reads only f.
    """

    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        out = wrap(np.tanh(_float(a._data)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return grad * (1 - result * result)


class Sigmoid(Builtin):
    """f(a) = 1 / (1 + exp(-a))

    ∂L/∂a = grad * f * (1 - f)
    Saves the result f: the derivative reads only f.
    """

    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        x = _float(a._data)
        with np.errstate(over="ignore"):
            out = wrap(1 / (1 + np.exp(-x)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return grad * result * (1 - result)


def _keep_where(mask: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``np.where(mask, values, 0)``, for floating-point values without a choice per element.

    np.where branches at every element, which is slow (10x here) when the mask is random, as relu's
    is. Instead each number's bits, read as an integer, are multiplied by 1 (kept) or by 0 (the bits
    of 0.0): the same result, NaN, infinity and -0.0 included.

    >>> _keep_where(np.array([True, False, True]), np.array([1.5, np.nan, -np.inf]))
    array([ 1.5,  0. , -inf])
    """
    if values.dtype.kind != "f" or mask.shape != values.shape:
        return np.where(mask, values, values.dtype.type(0))
    bits = values.view(f"i{values.itemsize}")   # the same memory, read as integers
    return np.multiply(bits, mask).view(values.dtype)


class Sqrt(Builtin):
    """f(a) = sqrt(a)

    ∂L/∂a = grad / (2 * f)
    Saves the result f: the derivative 1 / (2 * sqrt(a)) reads only f.
    """

    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        with np.errstate(invalid="ignore"):
            out = wrap(np.sqrt(_float(a._data)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return grad / (2 * result)


class Sign(Builtin):
    """f(a) = sign(a): -1, 0 or 1 (the sign inside abs's backward)

    ∂L/∂a = 0 (f is piecewise constant): zeros, which need no graph (never grad * 0, nan for an inf grad)
    Saves nothing. Node: SgnBackward0 (PyTorch computes this sign with ``sgn``).
    """

    _node_name = "SgnBackward0"

    @staticmethod
    def forward(ctx, a):
        return wrap(np.sign(a._data))

    @staticmethod
    def backward(ctx, grad):
        return zero_gradient(grad)


def signum(x: np.ndarray) -> np.ndarray:
    """``torch.sign``'s values, in x's dtype: -1, 0 or 1; 0 for nan; a bool is its own sign."""
    if x.dtype.kind != "f":
        return x.copy() if x.dtype == np.bool_ else np.sign(x)
    return np.where(np.isnan(x), x.dtype.type(0), np.sign(x))


class Signum(Builtin):
    """``torch.sign``: f(x) = -1, 0 or 1 as x is negative, zero or positive (0 for nan, as in PyTorch).

    ∂L/∂x = 0 everywhere (``zeros_like(grad)``, so a nan gradient gives 0). Nothing is saved.
    (abs's backward uses ``sgn``, the same values under the node name ``SgnBackward0``: see ``Sign``.)
    """

    _node_name = "SignBackward0"

    @staticmethod
    def forward(ctx, a):
        return wrap(signum(a._data))

    @staticmethod
    def backward(ctx, grad):
        return wrap(np.zeros_like(grad._data))


class Abs(Builtin):
    """f(a) = |a|

    ∂L/∂a = grad * sign(a) (0 at a = 0, as in PyTorch); sign is a Function, Sign, so that it can be
    differentiated again.
    Saves a, whose sign the derivative reads.
    """

    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        if a._data.dtype == np.bool_:
            raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
        ctx.save_for_backward(a)
        return wrap(np.abs(a._data))

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return grad * Sign.apply(a)


class Clamp(Builtin):
    """f(a) = min(max(a, min), max) (either bound may be None)

    ∂L/∂a = grad where min <= a <= max, else 0 (1 at the bounds themselves, as in PyTorch)
    Saves a, to find where it lies inside the bounds. Node: ClampBackward1.
    """

    _node_name = "ClampBackward1"
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, min=None, max=None):
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        ctx.save_for_backward(a)
        ctx._min, ctx._max = min, max
        x = a._data
        if x.dtype.kind in "biu" and any(isinstance(v, float) for v in (min, max)):
            x = x.astype(np.float32)   # float bounds on an integer tensor give the default float dtype
        # the bound first: numpy then keeps x on a tie, so -0.0 stays -0.0 as in PyTorch
        if min is not None:
            x = np.maximum(_bound(min, x.dtype), x)
        return wrap(np.minimum(_bound(max, x.dtype), x) if max is not None else x)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        x = a._data
        inside = np.ones(x.shape, dtype=bool)
        if ctx._min is not None:
            inside &= x >= ctx._min
        if ctx._max is not None:
            inside &= x <= ctx._max
        return _keep_gradient(wrap(inside), grad), None, None


class ClampTensor(Builtin):
    """``clamp`` with tensor bounds: f(a, min, max) = min(max(a, min), max), element by element, the
    bounds broadcast against a (either may be None).

    Each element's gradient goes to the one of the three it took its value from (PyTorch's
    clamp_backward and clamp_backward_min_max): ∂L/∂a = grad where min <= a <= max, else 0;
    ∂L/∂min = grad where a < min (and min < max); ∂L/∂max = grad where a > max (or max < min). The
    engine sums a bound's gradient down to the bound's shape. Saves a, min and max
    (``_saved_self``, ``_saved_min``, ``_saved_max``): the three masks compare them. Node: ClampBackward0.
    """

    _node_name = "ClampBackward0"
    _saved_names = ("self", "min", "max")

    @staticmethod
    def forward(ctx, a, min, max):
        min, max = (None if b is _NO_BOUND else b for b in (min, max))
        if min is None and max is None:   # (clamp() says so before it gets here)
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        ctx.save_for_backward(a, min, max)
        x = a
        for bound, pick in ((min, np.maximum), (max, np.minimum)):
            if bound is not None:
                low, high = binary_arrays(bound, x)
                x = wrap(pick(low, high))   # the bound first: on a tie numpy keeps x, as PyTorch keeps -0.0
        return x

    @staticmethod
    def backward(ctx, grad):
        a, low, high = ctx.saved_tensors
        inside = np.ones(a.shape, dtype=bool)
        grad_low = grad_high = None
        if low is not None:
            inside = inside & (a._data >= low._data)
            if ctx.needs_input_grad[1]:
                below = a._data < low._data
                grad_low = _keep_gradient(wrap(below & (low._data < high._data) if high is not None else below), grad)
        if high is not None:
            inside = inside & (a._data <= high._data)
            if ctx.needs_input_grad[2]:
                above = a._data > high._data
                grad_high = _keep_gradient(wrap(above | (high._data < low._data) if low is not None else above), grad)
        return _keep_gradient(wrap(inside), grad), grad_low, grad_high


def clamp(a: Tensor, min=None, max=None) -> Tensor:
    """``torch.clamp(a, min, max)``: number bounds make a ``ClampBackward1``, tensor bounds a
    ``ClampBackward0`` (PyTorch's two overloads); a tensor and a number together are refused, as there."""
    for bound in (min, max):
        if bound is not None and not isinstance(bound, (int, float, np.number, Tensor)):
            got = ", ".join(type(v).__name__ for v in (min, max))
            raise TypeError(f"clamp() received an invalid combination of arguments - got ({got}), but expected one "
                            "of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
                            " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n")
    if has_tensor_bound(min, max):
        return ClampTensor.apply(a, *tensor_bounds(min, max))
    return Clamp.apply(a, min, max)


def has_tensor_bound(min, max) -> bool:
    return isinstance(min, Tensor) or isinstance(max, Tensor)


def tensor_bounds(min, max) -> tuple:
    """ClampTensor's bounds: both tensors, a missing one as ``_NO_BOUND`` (PyTorch's node has an edge
    ``(None, 0)`` for it too). A number next to a tensor is refused with PyTorch's TypeError."""
    if not all(b is None or isinstance(b, Tensor) for b in (min, max)):
        got = ", ".join(["Tensor"] + [type(b).__name__ if not isinstance(b, Tensor) else "Tensor"
                                      for b in (min, max) if b is not None])
        raise TypeError(f"clamp() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                        " * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
                        " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n")
    return (_NO_BOUND if min is None else min), (_NO_BOUND if max is None else max)


_NO_BOUND = Tensor._make(np.zeros((), np.float32))   # stands for None: a tensor that needs no gradient


def _bound(value, dtype: np.dtype):
    return value._data if isinstance(value, Tensor) else np.asarray(value).astype(dtype, copy=False)


class Where(Builtin):
    """f(condition, a, b) = a where condition, else b

    ∂L/∂a = grad * condition,  ∂L/∂b = grad * ~condition
    Saves the condition (``_saved_condition``), which both gradients read, as PyTorch's node: an
    in-place change of it before backward, or a second backward, is refused. It comes in a
    ``NoEdge``: like PyTorch's node, this one has next_functions entries for a and b only.
    """

    _saved_names = ("condition",)

    @staticmethod
    def forward(ctx, condition, a, b):
        condition = condition.tensor
        check_broadcast(check_broadcast(condition.shape, a.shape), b.shape)
        ctx.save_for_backward(condition)
        x, y = binary_arrays(a, b)
        return wrap(np.where(condition._data, x, y))

    @staticmethod
    def backward(ctx, grad):
        condition, = ctx.saved_tensors
        if condition._data.dtype != np.bool_:   # a uint8 condition (deprecated in PyTorch): nonzero is True
            condition = wrap(condition._data != 0)
        return (None, _keep_gradient(condition, grad) if ctx.needs_input_grad[1] else None,
                _keep_gradient(wrap(~condition._data), grad) if ctx.needs_input_grad[2] else None)


def _keep_gradient(mask: Tensor, grad: Tensor) -> Tensor:
    """``grad`` where the bool tensor ``mask`` (broadcast to grad's shape) is True, else 0, as PyTorch's
    ``where(mask, grad, 0)``: an infinite or nan gradient becomes 0 where masked (``grad * mask``
    would give nan, or -0.0 for a negative one)."""
    if grad.requires_grad:   # create_graph: the backward must itself be differentiable
        return Where.apply(NoEdge(mask), grad, _operand(0.0))
    return wrap(_keep_where(np.broadcast_to(mask._data, grad._data.shape), grad._data))


def where(condition: Tensor, a, b) -> Tensor:
    """Pick from ``a`` where ``condition`` (a bool tensor) is True, else from ``b``."""
    if condition._data.dtype != np.bool_:
        _check_condition(condition)
    return Where.apply(NoEdge(condition), _operand(a), _operand(b))


def _check_condition(condition: Tensor) -> None:
    """PyTorch's rule for a condition that is not bool: uint8 is deprecated, anything else refused."""
    if condition._data.dtype != np.uint8:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{condition.dtype.legacy_name[:-len('Tensor')]}")
    warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and will be removed in a "
                  "future version of PyTorch. Use a boolean condition instead.", UserWarning, stacklevel=3)


# ------------------------------------------------------------------------------------ maximum, minimum
class Maximum(Builtin):
    """f(a, b) = the larger of a and b, element by element, nan where either is nan (``torch.maximum``,
    ``torch.max(a, b)``)

    ∂L/∂a = grad where a > b, grad / 2 where a == b, 0 where a < b;  ∂L/∂b = the same with a and b
    swapped (a tie shares the gradient, as in PyTorch; where one is nan both get grad)
    Saves a and b: the masks compare them.
    """

    _saved_names = ("self", "other")
    _pick = np.maximum

    @staticmethod
    def forward(ctx, a, b):
        x, y = binary_arrays(a, b)
        ctx.save_for_backward(a, b)
        return wrap(_extreme(ctx._forward_cls._pick, x, y))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        a_loses, b_loses = (a < b, a > b) if ctx._forward_cls._pick is np.maximum else (a > b, a < b)
        shared = where(a == b, grad / 2, grad)
        needs = ctx.needs_input_grad
        return (shared.masked_fill(a_loses, 0) if needs[0] else None,
                shared.masked_fill(b_loses, 0) if needs[1] else None)


class Minimum(Maximum):
    """f(a, b) = the smaller of a and b, element by element, nan where either is nan (``torch.minimum``,
    ``torch.min(a, b)``)

    ∂L/∂a = grad where a < b, grad / 2 where a == b, 0 where a > b;  ∂L/∂b = the same with a and b swapped
    Saves a and b: the masks compare them (Maximum's forward and backward, with np.minimum).
    """

    _pick = np.minimum


def _extreme(numpy_function, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype == np.bool_:   # numpy's maximum of bools is their or; PyTorch's too
        return numpy_function(x, y)
    with np.errstate(invalid="ignore"):
        return numpy_function(x, y)


def maximum(input: Tensor, other: Tensor) -> Tensor:
    """The larger of two tensors, element by element (they broadcast)."""
    _check_tensor_pair("maximum", input, other)
    return Maximum.apply(input, other)


def minimum(input: Tensor, other: Tensor) -> Tensor:
    """The smaller of two tensors, element by element (they broadcast)."""
    _check_tensor_pair("minimum", input, other)
    return Minimum.apply(input, other)


def _check_tensor_pair(function: str, input, other) -> None:
    from ._util import _argument_error
    for name, position, value in (("input", 1, input), ("other", 2, other)):
        if not isinstance(value, Tensor):
            raise _argument_error(function, name, position, "Tensor", value)
