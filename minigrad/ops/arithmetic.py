"""Pointwise arithmetic and comparisons: ``+ - * / ** // %``, unary minus, ``number - tensor`` and
``1 / tensor``; ``== != < <= > >= & |``, ``isclose``/``allclose`` and the tests ``isnan``, ``isinf``,
``isfinite``. Each arithmetic op is a Function whose backward uses tensor operations (so that backward
itself can be differentiated when ``create_graph=True``); comparisons return bool tensors, which
never need a gradient.

Broadcasting needs no code here: when a gradient comes back larger than its input
(``[3, 4]`` for a bias of shape ``[4]``), the engine sums it down to the input's shape.

>>> import minigrad as torch
>>> a = torch.tensor([1.0, 2.0], requires_grad=True)
>>> (a * 3).grad_fn.next_functions[1]    # the number 3 needs no gradient: no edge
(None, 0)
>>> x = torch.tensor([1.0, float('nan'), 3.0], requires_grad=True)
>>> torch.isnan(x)
tensor([False,  True, False])
"""
from __future__ import annotations

import numpy as np

from ..autograd.graph import ACCUMULATE_GRAD_SEQUENCE_NR
from ..tensor import Tensor, _operand, plain_alpha
from ._util import (Builtin, _argument_error, binary_arrays, check_broadcast, qualify_node_name, times_alpha, wrap,
                    zero_gradient)


class Add(Builtin):
    """f(a, b) = a + b

    ∂L/∂a = grad,  ∂L/∂b = grad
    Saves nothing: both derivatives are 1, whatever a and b are. (``add(a, b, alpha=k)``: AddScaled.)
    """

    @staticmethod
    def forward(ctx, a, b):
        x, y = binary_arrays(a, b)
        return wrap(x + y)

    @staticmethod
    def backward(ctx, grad):
        return grad, grad


class AddScaled(Add):
    """f(a, b, k) = a + k * b: PyTorch's ``add(a, b, alpha=k)``, one node (AddBackward0, as for a + b)

    ∂L/∂a = grad,  ∂L/∂b = k * grad
    Saves nothing: keeps k.
    """

    _node_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, b, alpha):
        x, y = binary_arrays(a, b)
        ctx._alpha = alpha
        return wrap(x + times_alpha(alpha, y))

    @staticmethod
    def backward(ctx, grad):   # (k = 1.0 or True: grad itself, as PyTorch's maybe_multiply)
        return grad, (grad if ctx._alpha == 1 else grad * ctx._alpha), None   # None: alpha is a number


def check_bool_subtraction(a: Tensor, b: Tensor) -> None:
    """PyTorch refuses ``-`` when a bool tensor takes part (``~`` or ``^`` is what was meant)."""
    if a._data.dtype.kind != "b" and b._data.dtype.kind != "b":
        return
    if a._data.dtype.kind == b._data.dtype.kind:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                           "`logical_xor()` operator instead.")
    raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
                       "to invert a mask, use the `~` or `logical_not()` operator instead.")


class Sub(Builtin):
    """f(a, b) = a - b

    ∂L/∂a = grad,  ∂L/∂b = -grad
    Saves nothing: the derivatives are the constants 1 and -1. (``sub(a, b, alpha=k)``: SubScaled.)
    """

    @staticmethod
    def forward(ctx, a, b):
        check_bool_subtraction(a, b)
        x, y = binary_arrays(a, b)
        return wrap(x - y)

    @staticmethod
    def backward(ctx, grad):
        return grad, (-grad if ctx.needs_input_grad[1] else None)   # (b needs no gradient: skip negating)


class SubScaled(Sub):
    """f(a, b, k) = a - k * b: PyTorch's ``sub(a, b, alpha=k)``, one node (SubBackward0, as for a - b)

    ∂L/∂a = grad,  ∂L/∂b = -k * grad
    Saves nothing: keeps k.
    """

    _node_name = "SubBackward0"

    @staticmethod
    def forward(ctx, a, b, alpha):
        check_bool_subtraction(a, b)
        x, y = binary_arrays(a, b)
        ctx._alpha = alpha
        return wrap(x - times_alpha(alpha, y))

    @staticmethod
    def backward(ctx, grad):
        if not ctx.needs_input_grad[1]:   # b needs no gradient: skip negating
            return grad, None, None
        return grad, (-grad if ctx._alpha == 1 else grad * -ctx._alpha), None


class Mul(Builtin):
    """f(a, b) = a * b

    ∂L/∂a = grad * b,  ∂L/∂b = grad * a
    Saves a and b, each only when the *other* input needs a gradient: b is read only by a's
    gradient, and a only by b's.

    >>> import minigrad as torch
    >>> a, b = torch.tensor([1.0, 2.0], requires_grad=True), torch.tensor([3.0, 4.0], requires_grad=True)
    >>> (a * b).backward(torch.tensor([1.0, 10.0])); a.grad, b.grad
    (tensor([ 3., 40.]), tensor([ 1., 20.]))
    """

    _saved_names = ("self", "other")

    @staticmethod
    def forward(ctx, a, b):
        x, y = binary_arrays(a, b)
        # Each factor is needed only for the *other* input's gradient.
        ctx.save_for_backward(a if ctx.needs_input_grad[1] else None,
                              b if ctx.needs_input_grad[0] else None)
        return wrap(x * y)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return (grad * b if ctx.needs_input_grad[0] else None,
                grad * a if ctx.needs_input_grad[1] else None)


class Div(Builtin):
    """f(a, b) = a / b

    ∂L/∂a = grad / b,  ∂L/∂b = -grad * a / b ** 2  (computed as -grad * ((a / b) / b), PyTorch's order)
    Saves b, which both gradients read, and a only when b needs a gradient.
    """

    _saved_names = ("self", "other")

    @staticmethod
    def forward(ctx, a, b):
        x, y = binary_arrays(a, b)
        ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, b)
        if x.dtype.kind in "biu":   # PyTorch: true division of integers gives the default float dtype
            x, y = x.astype(np.float32), y.astype(np.float32)
        if b._wrapped_number and y != 0:   # speed: the common x / n cannot give 0/0 or x/0, skip errstate's cost
            return wrap(x / y)
        with np.errstate(divide="ignore", invalid="ignore"):   # PyTorch gives inf and nan without a warning
            return wrap(x / y)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return (grad / b if ctx.needs_input_grad[0] else None,
                -grad * ((a / b) / b) if ctx.needs_input_grad[1] else None)   # PyTorch's formula, in its order


class MulScalar(Mul):
    """f(a) = a * s, for a number s, as PyTorch's C++ code multiplies (``mul(Scalar)``, inside
    functions such as cross_entropy's label smoothing): Mul's math, ∂L/∂a = grad * s. Node:
    MulBackward1 (Python's ``x * 2`` is MulBackward0)."""

    _node_name = "MulBackward1"

    @staticmethod
    def forward(ctx, a, number):
        return Mul.forward(ctx, a, _operand(number))

    @staticmethod
    def backward(ctx, grad):
        return Mul.backward(ctx, grad)[0], None


class DivScalar(Div):
    """f(a) = a / s, for a number s, as PyTorch's C++ code divides (``div(Scalar)``, inside backward
    formulas such as a mean loss's): Div's math, ∂L/∂a = grad / s. Node: DivBackward1 (Python's
    ``x / 2`` is DivBackward0)."""

    _node_name = "DivBackward1"

    @staticmethod
    def forward(ctx, a, number):
        return Div.forward(ctx, a, _operand(number))

    @staticmethod
    def backward(ctx, grad):
        return Div.backward(ctx, grad)[0], None


class Neg(Builtin):
    """f(a) = -a

    ∂L/∂a = -grad
    Saves nothing: the derivative is the constant -1.
    """

    @staticmethod
    def forward(ctx, a):
        if a._data.dtype == np.bool_:
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                               "invert a mask, use the `~` or `logical_not()` operator instead.")
        return wrap(-a._data)

    @staticmethod
    def backward(ctx, grad):
        return -grad


class Pow(Builtin):
    """f(a) = a ** n, for a number n (``tensor ** number``)

    ∂L/∂a = grad * n * a ** (n - 1)
    Saves a, which the derivative reads (n is kept as a number).
    PyTorch's special case: for n = 0, ∂L/∂a = 0, also at a = 0 (where the formula is 0 * inf = nan).
    """

    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, exponent):
        ctx.save_for_backward(a)
        ctx._exponent = exponent
        return wrap(scalar_power(a._data, exponent))

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        exponent = ctx._exponent
        if exponent != 0 and exponent != 2:   # the formula, in PyTorch's order; its two special cases follow
            return grad * (exponent * a ** (exponent - 1)), None
        if exponent == 2:   # speed: the common square, where a ** 1 would only copy a
            return grad * (exponent * a), None
        return zero_gradient(grad), None   # a ** 0 is constant: zeros as PyTorch's, even for an inf or nan grad


def scalar_power(x: np.ndarray, exponent) -> np.ndarray:
    """``x ** exponent`` for a number, with PyTorch's dtypes, special cases and errors."""
    if x.dtype.kind in "biu" and isinstance(exponent, (int, np.integer)) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if x.dtype.kind in "biu" and isinstance(exponent, float):
        x = x.astype(np.float32)   # integer ** float is float32, as in PyTorch
    elif x.dtype == np.bool_:   # bool ** int counts in int64, as in PyTorch
        x = x.astype(np.int64)
    if isinstance(exponent, int) and exponent >= 0:   # x ** 2 and friends: no inf or nan from 0 or negatives
        return x ** exponent
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):   # PyTorch: inf and nan, no warning
        if exponent == 0.5 or exponent == -0.5:   # PyTorch computes these as sqrt and 1 / sqrt, which
            root = np.sqrt(x)                      # differ from pow at -0.0 and -inf
            return root if exponent == 0.5 else 1 / root
        return x ** exponent


class PowTensor(Builtin):
    """f(a, b) = a ** b, for two tensors

    ∂L/∂a = grad * b * a ** (b - 1),  ∂L/∂b = grad * f * log(a)
    Saves a, b and the result f (∂L/∂b reads f rather than computing a ** b again).
    PyTorch's special cases: ∂L/∂a is 0 where b == 0, and ∂L/∂b is 0 where a == 0 and b >= 0
    (where the formulas would give nan or inf). Node: PowBackward1.
    """

    _node_name = "PowBackward1"
    _saved_names = ("self", "exponent", "result")

    @staticmethod
    def forward(ctx, a, b):
        out = wrap(power(*binary_arrays(a, b)))
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, b, result = ctx.saved_tensors
        from .pointwise import where
        # PyTorch's formulas and masks: d/da is 0 where the exponent is 0, d/db is 0 where a is 0 and b >= 0
        # (the masked places still compute 0 * inf underneath, so a second derivative there is nan, as in PyTorch;
        # d/db multiplies the gradient after masking, so an infinite gradient there gives nan, as in PyTorch)
        grad_a = where(b == 0, 0.0, grad * (b * a ** (b - 1))) if ctx.needs_input_grad[0] else None
        grad_b = grad * where((a == 0) & (b >= 0), 0.0, result * a.log()) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


def power(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x ** y`` for arrays of one dtype, silently (inf and nan as in PyTorch). Integers follow PyTorch's
    (and C's) rule for a negative exponent, where numpy refuses: 1 ** b is 1, (-1) ** b is 1 or -1, and
    every other a ** b is 0 (1 / a truncated).

    >>> power(np.array([1, -1, -1, 2, 0]), np.array([-1, -1, -2, -1, -1]))
    array([ 1, -1,  1,  0,  0])
    """
    if x.dtype == np.bool_ and y.dtype == np.bool_:
        raise NotImplementedError("\"pow\" not implemented for 'Bool'")
    if x.dtype.kind not in "biu" or not (y < 0).any():
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return x ** y
    negative = y < 0
    result = x ** np.where(negative, 0, y)
    odd = (-y) % 2 == 1
    of_negative = np.where(x == 1, 1, np.where(x == -1, np.where(odd, -1, 1), 0)).astype(result.dtype)
    return np.where(negative, of_negative, result)


class Rsub(Builtin):
    """f(a) = s - alpha * a, for a number s (``number - tensor``, ``torch.rsub(a, s)``)

    ∂L/∂a = -alpha * grad
    Saves nothing: the derivative is the constant -alpha.
    Node: RsubBackward1, which, as PyTorch's, has one entry, for the tensor.
    """

    _node_name = "RsubBackward1"

    @staticmethod
    def forward(ctx, a, number, alpha=1):
        check_bool_subtraction(a, _operand(number))
        x, y = binary_arrays(a, _operand(number))
        ctx._alpha = alpha
        return wrap(y - x if plain_alpha(alpha) else y - times_alpha(alpha, x))

    @staticmethod
    def backward(ctx, grad):
        return (-grad if ctx._alpha == 1 else grad * -ctx._alpha), None, None


class RsubTensor(Builtin):
    """f(a, b) = b - alpha * a, for two tensors (``torch.rsub(a, b)``, ``a.__rsub__(b)``)

    ∂L/∂a = -alpha * grad,  ∂L/∂b = grad
    Saves nothing: the derivatives are constants. Node: RsubBackward0, with entries for a, then b.
    """

    _node_name = "RsubBackward0"

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        check_bool_subtraction(a, b)
        x, y = binary_arrays(a, b)
        ctx._alpha = alpha
        return wrap(y - x if plain_alpha(alpha) else y - times_alpha(alpha, x))

    @staticmethod
    def backward(ctx, grad):
        grad_a = (-grad if ctx._alpha == 1 else grad * -ctx._alpha) if ctx.needs_input_grad[0] else None
        return grad_a, grad, None


def rsub(a: Tensor, b, alpha=1) -> Tensor:
    """``b - alpha * a``: RsubBackward0 when ``b`` is a tensor, RsubBackward1 when it is a number."""
    if not isinstance(a, Tensor):
        raise TypeError(f"rsub() received an invalid combination of arguments - got ({type(a).__name__}, "
                        f"{type(b).__name__}), but expected one of:\n * (Tensor input, Tensor other, *, Number alpha = "
                        "1)\n * (Tensor input, Number other, Number alpha = 1)\n")
    if isinstance(b, Tensor):
        return RsubTensor.apply(a, b, alpha)
    return Rsub.apply(a, b, alpha)


class Reciprocal(Builtin):
    """f(a) = 1 / a (``number / tensor`` is ``tensor.reciprocal() * number``, as in PyTorch)

    ∂L/∂a = -grad * f * f   (the derivative -1 / a ** 2 is -f ** 2)
    Saves the result f: the derivative reads only f, with no new division.
    """

    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        x = a._data
        if x.dtype.kind in "biu":
            x = x.astype(np.float32)
        with np.errstate(divide="ignore", over="ignore"):
            out = wrap(1 / x)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return -grad * result * result


class PowScalarBase(Builtin):
    """f(b) = s ** b, for a number s (``number ** tensor``)

    ∂L/∂b = grad * f * log(s)
    Saves the result f, which the derivative reads, and b (as PyTorch's node does); keeps s as a number.
    PyTorch's special case: for s = 0, ∂L/∂b = 0 where b >= 0 (0 ** b is flat there; the formula
    would give 0 * -inf = nan). Node: PowBackward2, which has one entry, for the exponent b.
    """

    _node_name = "PowBackward2"
    _saved_names = ("exponent", "result")

    @staticmethod
    def forward(ctx, base, exponent):
        out = wrap(power(*binary_arrays(_operand(base), exponent)))
        ctx.save_for_backward(exponent, out)
        ctx._saved_self = base   # PyTorch shows the number here too
        return out

    @staticmethod
    def backward(ctx, grad):
        exponent, result = ctx.saved_tensors
        base = ctx._saved_self
        with np.errstate(divide="ignore", invalid="ignore"):
            log_base = float(np.log(base))   # -inf for 0, nan for a negative base, as PyTorch's
        if base == 0:   # 0 ** b is 0 for every b > 0 and 1 at b = 0: flat, where log(0) would give nan
            from .pointwise import where
            return None, grad * where(exponent >= 0, 0.0, result * log_base)
        return None, grad * (result * log_base)


class FloorDivide(Builtin):
    """f(a, b) = floor(a / b) (``a // b``, ``torch.floor_divide``)

    No derivative: PyTorch records the node (``NotImplemented``) but defines none, and its backward
    raises "derivative for aten::floor_divide is not implemented". Saves nothing. As PyTorch's node,
    it has edges only for the operands that require grad: ``floor_divide`` passes the two operands
    as a pair (no edge) and those tensors again after it. Like PyTorch's NotImplemented nodes, it has
    the largest sequence number (PyTorch gives these none), so backward runs it as soon as it is ready.
    """

    _node_name = "NotImplemented"

    @staticmethod
    def forward(ctx, operands, *requiring_grad):
        ctx._sequence_nr = ACCUMULATE_GRAD_SEQUENCE_NR
        return wrap(divide_rounded(*binary_arrays(*operands), "floor"))

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError("derivative for aten::floor_divide is not implemented")

qualify_node_name(FloorDivide, "torch::autograd::NotImplemented")


def floor_divide(a, b) -> Tensor:
    """``a // b`` for tensors and numbers, with PyTorch's node and edges (see FloorDivide)."""
    _check_a_tensor("floor_divide", a, b)
    a, b = _operand(a), _operand(b)
    return FloorDivide.apply((a, b), *[t for t in (a, b) if t.requires_grad])


def divide_rounded(x: np.ndarray, y: np.ndarray, rounding_mode: str) -> np.ndarray:
    """floor(x / y) or trunc(x / y), as PyTorch's kernels: numpy's floor_divide is PyTorch's algorithm
    for floats (x / 0 gives inf or nan, silently); integers refuse a zero divisor, as PyTorch does."""
    if x.dtype == np.bool_:
        raise NotImplementedError(f"\"div_{rounding_mode}_cpu\" not implemented for 'Bool'")
    if x.dtype.kind in "iu":
        if not y.all():
            raise RuntimeError("ZeroDivisionError")
        quotient = np.floor_divide(x, y)
        if rounding_mode == "trunc":   # toward 0: one more where the division was inexact and the signs differ
            quotient += (quotient * y != x) & ((x < 0) != (y < 0))
        return quotient
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.floor_divide(x, y) if rounding_mode == "floor" else np.trunc(x / y)


class DivRounding(Builtin):
    """f(a, b) = floor(a / b) or trunc(a / b) (``torch.div(a, b, rounding_mode="floor" or "trunc")``)

    ∂L/∂a = 0,  ∂L/∂b = 0: f is piecewise constant (zeros, as PyTorch's, even for an inf or nan grad).
    With ``rounding_mode=None`` it is a / b, with Div's derivatives.
    Saves b, and a when b needs a gradient, as PyTorch's node (Div's formula reads them, and backward
    checks them even when it returns zeros); keeps the mode. Node: DivBackward2.
    """

    _node_name = "DivBackward2"
    _saved_names = ("self", "other")

    @staticmethod
    def forward(ctx, a, b, rounding_mode):
        ctx._saved_rounding_mode = rounding_mode
        if rounding_mode is None:
            return Div.forward(ctx, a, b)
        ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, b)
        return wrap(divide_rounded(*binary_arrays(a, b), rounding_mode))

    @staticmethod
    def backward(ctx, grad):
        if ctx._saved_rounding_mode is None:
            return Div.backward(ctx, grad) + (None,)
        ctx.saved_tensors   # checked as PyTorch's node checks what it saved (freed, changed in place)
        needs = ctx.needs_input_grad
        return zero_gradient(grad) if needs[0] else None, zero_gradient(grad) if needs[1] else None, None


def _check_a_tensor(function: str, a, b) -> None:
    """PyTorch's error when neither operand of a binary function is a tensor."""
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        raise TypeError(f"{function}() received an invalid combination of arguments - got ({type(a).__name__}, "
                        f"{type(b).__name__}), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = "
                        "None)\n * (Number self, Tensor other)\n * (Tensor input, Number other, *, Tensor out = None)\n")


def check_rounding_mode(rounding_mode) -> None:
    if rounding_mode not in (None, "trunc", "floor"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")


def div(a, b, rounding_mode: str | None = None) -> Tensor:
    """``a / b``, or, with ``rounding_mode``, that quotient rounded (a DivRounding node)."""
    if rounding_mode is None and isinstance(a, Tensor):
        return a / b
    check_rounding_mode(rounding_mode)
    return DivRounding.apply(_operand(a), _operand(b), rounding_mode)


def _remainder(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x - y * floor(x / y), with the sign of y, as PyTorch's kernel; an integer y of 0 is refused."""
    if x.dtype.kind in "iu":
        if not y.all():
            raise RuntimeError("ZeroDivisionError")
        return np.remainder(x, y)
    if x.dtype == np.bool_:
        raise NotImplementedError("\"remainder_cpu\" not implemented for 'Bool'")
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.fmod(x, y)   # PyTorch's kernel: fmod, moved into y's sign (so -0.0 % 1.5 is -0.0)
        return np.where((out != 0) & ((y < 0) != (out < 0)), out + y, out)


class Remainder(Builtin):
    """f(a, b) = a - b * floor(a / b): ``a % b``, with the sign of b (Python's rule, as PyTorch's)

    ∂L/∂a = grad,  ∂L/∂b = -grad * floor(a / b) (the floor division is a DivRounding node, as in
    PyTorch, whose own derivatives are 0)
    Saves a and b when b needs a gradient, as PyTorch's node: an in-place change of either after
    ``a % b`` is then caught at backward.
    """

    _node_name = "RemainderBackward1"
    _saved_names = ("self", "other")

    @staticmethod
    def forward(ctx, a, b):
        needed = ctx.needs_input_grad[1]
        ctx.save_for_backward(a if needed else None, b if needed else None)
        return wrap(_remainder(*binary_arrays(a, b)))

    @staticmethod
    def backward(ctx, grad):
        if not ctx.needs_input_grad[1]:
            return grad, None
        a, b = ctx.saved_tensors
        return grad, -grad * DivRounding.apply(a, b, "floor")


class RemainderScalar(Builtin):
    """f(a) = a % s, for a number s (``tensor % number``)

    ∂L/∂a = grad (the quotient floor(a / s) only shifts a by whole multiples of s)
    Saves nothing: the derivative is the incoming gradient. PyTorch's node has one entry, for the tensor.
    """

    _node_name = "RemainderBackward0"

    @staticmethod
    def forward(ctx, a, number):
        return wrap(_remainder(*binary_arrays(a, _operand(number))))

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class RemainderOfNumber(Builtin):
    """``number % tensor``: PyTorch records it but has no derivative for it, and says so in backward.
    Its node runs as soon as it is ready, as FloorDivide's."""

    _node_name = "NotImplemented"

    @staticmethod
    def forward(ctx, number, b):
        ctx._sequence_nr = ACCUMULATE_GRAD_SEQUENCE_NR
        return wrap(_remainder(*binary_arrays(_operand(number), b)))

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::remainder is not implemented")

qualify_node_name(RemainderOfNumber, "torch::autograd::NotImplemented")


def remainder(a, b) -> Tensor:
    """``a % b`` for tensors and numbers, each with PyTorch's node."""
    _check_a_tensor("remainder", a, b)
    if not isinstance(b, Tensor):
        return RemainderScalar.apply(a, b)
    if not isinstance(a, Tensor):
        return RemainderOfNumber.apply(a, b)
    return Remainder.apply(a, b)


def pow(base, exponent):
    """``base ** exponent`` for tensors and numbers."""
    if isinstance(base, Tensor) and not isinstance(exponent, Tensor):
        _number(exponent)
        return Pow.apply(base, exponent)
    if not isinstance(base, Tensor):
        _number(base)
        return PowScalarBase.apply(base, exponent)
    return PowTensor.apply(base, _operand(exponent))


def _number(value) -> None:
    """Refuse (``_operand``'s NotAnOperand) a value that is neither a number nor a tensor."""
    if type(value) is not int and type(value) is not float:
        _operand(value)


def compare(numpy_function, a: Tensor, b) -> Tensor:
    """Comparisons: bool results, no gradient, so no node is recorded."""
    x, y = binary_arrays(a, _operand(b))
    return wrap(numpy_function(x, y))


# ------------------------------------------------------------------ bitwise and logical operations
# Integer and bool results: never differentiable, so no node is recorded (as comparisons).
_BITWISE = {"and": (np.bitwise_and, "bitwise_and"), "or": (np.bitwise_or, "bitwise_or"),
            "xor": (np.bitwise_xor, "bitwise_xor"), "lshift": (np.left_shift, "lshift"),
            "rshift": (np.right_shift, "rshift")}


def bitwise(operation: str, a, b) -> Tensor:
    """``a & b``, ``a | b``, ``a ^ b``, ``a << b``, ``a >> b`` (``operation``: a key of ``_BITWISE``):
    bit by bit on integers, and/or/xor on bools; PyTorch refuses floating point (and bool shifts).

    >>> import minigrad as torch
    >>> torch.tensor([3, 5, -2]) & torch.tensor([5, 1, 7]), torch.tensor([3, -8]) >> 1
    (tensor([1, 1, 6]), tensor([ 1, -4]))
    """
    a, b = _operand(a), _operand(b)
    x, y = binary_arrays(a, b)
    numpy_function, kernel = _BITWISE[operation]
    if x.dtype.kind == "f" or (x.dtype == np.bool_ and operation in ("lshift", "rshift")):
        raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for '{_dtype_name(x)}'")
    if operation in ("lshift", "rshift"):
        return wrap(_shift(x, y, operation == "lshift"))
    return wrap(numpy_function(x, y))


def _dtype_name(x: np.ndarray) -> str:
    from ._util import dtype_of
    return dtype_of(x).legacy_name[:-len("Tensor")]


def _shift(x: np.ndarray, y: np.ndarray, left: bool) -> np.ndarray:
    """``x << y`` or ``x >> y`` as PyTorch's kernels: a shift by a negative amount or by the width of
    the type or more gives 0 (or, to the right, the sign: -1 for negative numbers), where C leaves it
    undefined."""
    bits = x.dtype.itemsize * 8
    outside = (y < 0) | (y >= bits)
    safe = np.where(outside, 0, y).astype(x.dtype)
    shifted = np.left_shift(x, safe) if left else np.right_shift(x, safe)
    if not outside.any():
        return shifted
    overflow = np.zeros_like(shifted) if left else np.where(x < 0, -1, 0).astype(x.dtype)
    return np.where(outside, overflow, shifted)


def bitwise_not(a: Tensor) -> Tensor:
    """``~a``: each bit flipped for integers, logical not for bools."""
    if a._data.dtype.kind == "f":
        raise NotImplementedError(f"\"bitwise_not_cpu\" not implemented for '{_dtype_name(a._data)}'")
    return wrap(np.logical_not(a._data) if a._data.dtype == np.bool_ else np.invert(a._data))


def _bitwise_function(name: str, operation: str):
    """``torch.bitwise_and`` and friends: ``bitwise`` with at least one tensor among the operands."""
    def function(input, other):
        if not isinstance(input, Tensor) and not isinstance(other, Tensor):
            kinds = f"{type(input).__name__}, {type(other).__name__}"
            raise TypeError(f"{name}() received an invalid combination of arguments - got ({kinds}), but expected "
                            f"one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Number self, "
                            f"Tensor other)\n * (Tensor input, Number other, *, Tensor out = None)\n")
        return bitwise(operation, input, other)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input, other)``: see ``bitwise``."
    return function


bitwise_and, bitwise_or, bitwise_xor, bitwise_left_shift, bitwise_right_shift = (
    _bitwise_function(f"bitwise_{name}", operation) for name, operation in (
        ("and", "and"), ("or", "or"), ("xor", "xor"), ("left_shift", "lshift"), ("right_shift", "rshift")))


def logical_and(input, other): return logical("and", input, other)
def logical_or(input, other): return logical("or", input, other)
def logical_xor(input, other): return logical("xor", input, other)


def bitwise_(operation: str, a: Tensor, b) -> Tensor:
    """``a &= b`` and friends: the result written into ``a``, which keeps its dtype, and its version
    counter moves (no node: integers and bools never require grad)."""
    from ..autograd.views import check_inplace, writeable_memory
    result = bitwise(operation, a, b)
    check_inplace(a, b)
    if result._data.shape != a._data.shape:
        raise RuntimeError(f"output with shape {list(a._data.shape)} doesn't match the broadcast shape "
                           f"{list(result._data.shape)}")
    if not np.can_cast(result._data.dtype, a._data.dtype, "same_kind"):
        raise RuntimeError(f"result type {_dtype_name(result._data)} can't be cast to the desired output type "
                           f"{_dtype_name(a._data)}")
    np.copyto(writeable_memory(a._data), result._data, casting="unsafe")
    a._version_counter.value += 1
    return a


_LOGICAL = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}


def logical(operation: str, a: Tensor, b: Tensor, method: bool = False) -> Tensor:
    """``torch.logical_and/or/xor(a, b)``: each element taken as true when non-zero; a bool result.
    (``method``: called as ``a.logical_and(b)``, whose error counts ``b`` as argument 1.)"""
    for name, position, value in (("input", 1, a), ("other", 1 if method else 2, b)):
        if not isinstance(value, Tensor):
            raise _argument_error(f"logical_{operation}", name, position, "Tensor", value)
    check_broadcast(a._data.shape, b._data.shape)
    return wrap(_LOGICAL[operation](a._data, b._data))


def logical_not(a: Tensor) -> Tensor:
    """``torch.logical_not(a)``: True where ``a`` is zero."""
    if not isinstance(a, Tensor):
        raise _argument_error("logical_not", "input", 1, "Tensor", a)
    return wrap(np.logical_not(a._data))


def isclose(a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """``|a - b| <= atol + rtol * |b|`` element-wise (equal infinities are close); never differentiable."""
    if not isinstance(b, Tensor):
        raise _argument_error("isclose", "other", 2, "Tensor", b)
    if a.dtype is not b.dtype:
        raise RuntimeError(f"{a.dtype.legacy_name[:-6]} did not match {b.dtype.legacy_name[:-6]}")
    for name, value in (("rtol", rtol), ("atol", atol)):
        if value < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {value}")
    check_broadcast(a._data.shape, b._data.shape)
    with np.errstate(invalid="ignore", over="ignore"):
        return wrap(np.isclose(a._data, b._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def allclose(a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """True when every element of ``isclose(a, b)`` is True."""
    if not isinstance(b, Tensor):
        raise _argument_error("allclose", "other", 2, "Tensor", b)
    return bool(isclose(a, b, rtol, atol, equal_nan)._data.all())


def isnan(a: Tensor) -> Tensor:
    if a.is_sparse:   # per stored value: a sparse result
        return a.isnan()
    return wrap(np.isnan(a._data) if a._data.dtype.kind == "f" else np.zeros(a._data.shape, bool))


def isinf(a: Tensor) -> Tensor:
    if a.is_sparse:
        return a.isinf()
    return wrap(np.isinf(a._data) if a._data.dtype.kind == "f" else np.zeros(a._data.shape, bool))


def isfinite(a: Tensor) -> Tensor:
    return wrap(np.isfinite(a._data) if a._data.dtype.kind == "f" else np.ones(a._data.shape, bool))
