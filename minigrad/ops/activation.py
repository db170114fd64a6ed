"""Activations: ``relu`` (with its backward, ``threshold_backward``, as an operation), ``leaky_relu``,
``elu``, ``hardtanh``, and ``softmax`` and ``log_softmax`` (with their backwards as operations).
(``sigmoid`` and ``tanh``, which are also plain pointwise functions, are in ``pointwise.py``.)

Their backward formulas are written with tensor operations, so they can be differentiated again
(``create_graph=True``). ``hardtanh``'s gradient is the one straight-through estimators use
(``F.hardtanh(grad_output)`` in their backward), and BinaryNet's activation.

>>> import minigrad as torch
>>> x = torch.tensor([-1.0, 2.0], requires_grad=True)
>>> torch.nn.functional.leaky_relu(x, 0.2)
tensor([-0.2000,  2.0000], grad_fn=<LeakyReluBackward0>)
>>> torch.nn.functional.hardtanh(torch.tensor([-2.0, 0.5, 1.0], requires_grad=True))
tensor([-1.0000,  0.5000,  1.0000], grad_fn=<HardtanhBackward0>)
"""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from ._util import Builtin, wrap, wrap_dim, zero_gradient
from .pointwise import _keep_where


class Relu(Builtin):
    """f(a) = max(a, 0)

    ∂L/∂a = grad where f > 0, else 0 (0 also at a = 0, as in PyTorch)
    Saves the result f, which is > 0 exactly where a is. Backward is one Function, ThresholdBackward
    (PyTorch's threshold_backward), so that it can be differentiated again.
    """

    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        x = a._data
        if x.dtype == np.bool_:
            raise RuntimeError("Boolean inputs not supported for relu")
        out = wrap(np.maximum(x.dtype.type(0), x))   # 0 first: numpy then keeps -0.0 (and nan), as PyTorch
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return ThresholdBackward.apply(grad, result, 0)


class ThresholdBackward(Builtin):
    """Relu's backward as one operation, as in PyTorch (``threshold_backward``).

    f(g, y) = 0 where y <= threshold, else g (so a nan y passes its gradient on, as in PyTorch)
    ∂L/∂g = grad where f passed g on, else 0: this same operation, so it can be differentiated again;
    ∂L/∂y = 0 (f is piecewise constant in y; zeros, as PyTorch's zeros_like)
    Saves y, to build the mask again. Node: ThresholdBackwardBackward0.
    """

    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, grad, result, threshold):
        ctx.save_for_backward(result)
        ctx._threshold = threshold
        return wrap(_keep_where(~(result._data <= threshold), grad._data))

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        zeros = zero_gradient(grad) if ctx.needs_input_grad[1] else None   # PyTorch: zeros_like
        return ThresholdBackward.apply(grad, result, ctx._threshold), zeros, None


def _check_floating(a: Tensor, kernel: str) -> None:
    if a._data.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{a.dtype.legacy_name[:-len('Tensor')]}'")


class LeakyRelu(Builtin):
    """f(a) = a where a > 0, else negative_slope * a

    ∂L/∂a = grad where a > 0, else negative_slope * grad
    Saves a, whose sign picks the slope (negative_slope is kept as a number).
    """

    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, negative_slope):
        _check_floating(a, "leaky_relu_cpu")
        ctx.save_for_backward(a)
        ctx._saved_negative_slope = negative_slope
        x = a._data
        return wrap(np.where(x > 0, x, x * x.dtype.type(negative_slope)))

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        slope = np.where(a._data > 0, 1, ctx._saved_negative_slope).astype(grad._data.dtype)
        return grad * wrap(slope), None


class Elu(Builtin):
    """f(a) = a where a > 0, else alpha * (exp(a) - 1)

    ∂L/∂a = grad where a > 0, else grad * alpha * exp(a)
    Saves a: the derivative reads its sign, and exp(a) on the negative side.
    """

    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, alpha):
        _check_floating(a, "elu_cpu")
        ctx.save_for_backward(a)
        ctx._saved_alpha, ctx._saved_scale, ctx._saved_input_scale = alpha, 1, 1
        x = a._data
        with np.errstate(over="ignore"):
            return wrap(np.where(x > 0, x, x.dtype.type(alpha) * np.expm1(np.minimum(x.dtype.type(0), x))))   # 0 first: -0.0 stays -0.0

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        from .pointwise import where
        # PyTorch's choice: the alpha * e^x branch where x <= 0 (so a nan input passes its gradient on);
        # inside it, e^min(x, 0) with a derivative only where x < 0 (the second derivative at 0 is 0)
        negative_part = grad * ctx._saved_alpha * where(a < 0, a, 0.0).exp()   # d/dx alpha * (e^x - 1)
        return where(a <= 0, negative_part, grad), None


class Hardtanh(Builtin):
    """``F.hardtanh(x, min_val, max_val)``: f(x) = min(max(x, min_val), max_val).

    ∂L/∂x = grad where min_val < x < max_val (strictly: 0 at the corners, unlike clamp), else 0.
    Saves the input.
    """

    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, min_val, max_val):
        if a._data.dtype == np.bool_:
            raise RuntimeError("Bool inputs not supported for hardtanh")
        ctx.save_for_backward(a)
        ctx._saved_min_val, ctx._saved_max_val = min_val, max_val
        x = a._data
        return wrap(np.clip(x, x.dtype.type(min_val), x.dtype.type(max_val)))

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        inside = (a._data > ctx._saved_min_val) & (a._data < ctx._saved_max_val)
        return grad * wrap(inside), None, None


def hardtanh(a: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        from .inplace import HardtanhInplace, unary_
        return unary_(HardtanhInplace, a, min_val, max_val)
    return Hardtanh.apply(a, min_val, max_val)


class Softplus(Builtin):
    """``F.softplus(x, beta, threshold)``: f(x) = log(1 + exp(beta * x)) / beta, and x itself where
    beta * x > threshold (where the two agree to float precision)

    ∂L/∂x = grad * sigmoid(beta * x), and grad where beta * x > threshold (SoftplusBackward, so that
    it can be differentiated again)
    Saves x, which the derivative reads; keeps beta and threshold.
    """

    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, beta, threshold):
        _check_floating(a, "softplus_cpu")
        ctx.save_for_backward(a)
        ctx._saved_beta, ctx._saved_threshold = beta, threshold
        x = a._data
        scaled = x * x.dtype.type(beta)
        with np.errstate(over="ignore"):
            return wrap(np.where(scaled > threshold, x, np.log1p(np.exp(scaled)) / x.dtype.type(beta)))

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return SoftplusBackward.apply(grad, a, ctx._saved_beta, ctx._saved_threshold), None, None


class SoftplusBackward(Builtin):
    """Softplus's backward as one operation, as in PyTorch (``softplus_backward``).

    f(g, x) = g * z / (z + 1) with z = exp(beta * x) (g * sigmoid(beta * x)), and g where beta * x > threshold
    ∂L/∂g = this same operation applied to grad;
    ∂L/∂x = grad * g * beta * s * (1 - s) with s = sigmoid(beta * x), 0 where beta * x > threshold
    Saves g and x, which the gradients read. Node: SoftplusBackwardBackward0.
    """

    _saved_names = ("grad_output", "self")

    @staticmethod
    def forward(ctx, grad, a, beta, threshold):
        ctx.save_for_backward(grad, a)
        ctx._saved_beta, ctx._saved_threshold = beta, threshold
        x, g = a._data, grad._data
        scaled = x * x.dtype.type(beta)
        with np.errstate(over="ignore", invalid="ignore"):
            z = np.exp(scaled)
            return wrap(np.where(scaled > threshold, g, g * z / (z + 1)))

    @staticmethod
    def backward(ctx, grad):
        grad_output, a = ctx.saved_tensors
        beta, threshold = ctx._saved_beta, ctx._saved_threshold
        from .pointwise import where
        wrt_grad_output = SoftplusBackward.apply(grad, a, beta, threshold) if ctx.needs_input_grad[0] else None
        wrt_input = None
        if ctx.needs_input_grad[1]:
            s = (a * beta).sigmoid()
            wrt_input = where(a * beta > threshold, 0.0, grad * grad_output * beta * s * (1 - s))
        return wrt_grad_output, wrt_input, None, None


class Softmax(Builtin):
    """f(a) = exp(a) / sum(exp(a)) along dim

    ∂L/∂a = f * (grad - sum(grad * f, dim)): the Jacobian diag(f) - f f.T applied to grad
    Saves the result f, all the derivative reads. Backward is one Function, SoftmaxBackwardData
    (PyTorch's ``_softmax_backward_data``), so that it can be differentiated again.
    """

    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a, dim):
        x, axis = a._data, _softmax_axis(a, dim, "softmax")
        if x.size:
            with np.errstate(invalid="ignore"):   # inf - inf is nan, as in PyTorch, without a numpy warning
                e = np.exp(x - np.maximum.reduce(x, axis=axis, keepdims=True))   # x minus its max: no overflow
                e /= np.add.reduce(e, axis=axis, keepdims=True)   # in place (a 0-dim numpy scalar is just replaced)
        else:
            e = x.copy()
        out = wrap(e)
        ctx._dim = dim
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        y, = ctx.saved_tensors
        return SoftmaxBackwardData.apply(grad, y, ctx._dim), None


class SoftmaxBackwardData(Builtin):
    """Softmax's backward as one operation, as in PyTorch (``_softmax_backward_data``).

    f(g, y) = y * (g - sum(g * y, dim)), for the softmax output y
    ∂L/∂g = y * (grad - sum(grad * y, dim)): this same operation, as f is linear in g;
    ∂L/∂y = g * grad - sum(y * g, dim) * grad - g * sum(y * grad, dim) (PyTorch's softmax_double_backward)
    Saves g and y, which both gradients read. Node: SoftmaxBackwardDataBackward0.
    """

    _saved_names = ("grad_output", "output")

    @staticmethod
    def forward(ctx, grad, y, dim):
        g, out = grad._data, y._data
        axis = dim if out.ndim else None
        result = g - np.add.reduce(g * out, axis=axis, keepdims=True)
        result *= out   # in place (a 0-dim numpy scalar is just replaced)
        ctx._dim = dim
        ctx.save_for_backward(grad, y)
        return wrap(result)

    @staticmethod
    def backward(ctx, grad):
        grad_output, output = ctx.saved_tensors
        dim = ctx._dim
        wrt_grad_output = SoftmaxBackwardData.apply(grad, output, dim) if ctx.needs_input_grad[0] else None
        wrt_output = None
        if ctx.needs_input_grad[1]:   # PyTorch's softmax_double_backward
            wrt_output = (grad_output * grad - (output * grad_output).sum(dim, keepdim=True) * grad
                          - grad_output * (output * grad).sum(dim, keepdim=True))
        return wrt_grad_output, wrt_output, None


class LogSoftmax(Builtin):
    """f(a) = a - log(sum(exp(a))) along dim

    ∂L/∂a = grad - exp(f) * sum(grad, dim) (exp(f) is the softmax)
    Saves the result f, all the derivative reads. Backward is one Function, LogSoftmaxBackwardData
    (PyTorch's ``_log_softmax_backward_data``), so that it can be differentiated again.
    """

    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a, dim):
        x, axis = a._data, _softmax_axis(a, dim, "log_softmax")
        if x.size:
            with np.errstate(invalid="ignore", divide="ignore"):   # inf - inf and log(0): nan and -inf, as in PyTorch
                out = x - np.maximum.reduce(x, axis=axis, keepdims=True)   # x minus its max: exp cannot overflow
                out -= np.log(np.add.reduce(np.exp(out), axis=axis, keepdims=True))   # in place (or, 0-dim, replaced)
        else:
            out = x.copy()
        result = wrap(out)
        ctx._dim = dim
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        y, = ctx.saved_tensors
        return LogSoftmaxBackwardData.apply(grad, y, ctx._dim), None


class LogSoftmaxBackwardData(Builtin):
    """LogSoftmax's backward as one operation, as in PyTorch (``_log_softmax_backward_data``).

    f(g, y) = g - exp(y) * sum(g, dim), for the log_softmax output y
    ∂L/∂g = grad - sum(grad * exp(y), dim),  ∂L/∂y = -sum(g, dim) * exp(y) * grad
    (the formulas of PyTorch's derivatives.yaml)
    Saves g and y, which the gradients read. Node: LogSoftmaxBackwardDataBackward0.

    >>> import minigrad as torch
    >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> g, = torch.autograd.grad(x.log_softmax(0)[0], x, create_graph=True)
    >>> g.grad_fn.name()
    'LogSoftmaxBackwardDataBackward0'
    """

    _saved_names = ("grad_output", "output")

    @staticmethod
    def forward(ctx, grad, y, dim):
        g, out = grad._data, y._data
        result = np.exp(out)
        result *= -np.add.reduce(g, axis=dim if out.ndim else None, keepdims=True)
        result += g   # g - exp(y) * sum(g), exactly, computed in place (a 0-dim numpy scalar is just replaced)
        ctx._dim = dim
        ctx.save_for_backward(grad, y)
        return wrap(result)

    @staticmethod
    def backward(ctx, grad):
        grad_output, output = ctx.saved_tensors
        dim = ctx._dim
        wrt_grad_output = wrt_output = None
        if ctx.needs_input_grad[0]:   # the formulas of PyTorch's derivatives.yaml
            wrt_grad_output = grad - (grad * output.exp()).sum(dim, keepdim=True)
        if ctx.needs_input_grad[1]:
            wrt_output = -grad_output.sum(dim, keepdim=True) * output.exp() * grad
        return wrt_grad_output, wrt_output, None


def _softmax_axis(a: Tensor, dim: int, name: str):
    """The numpy axis for softmax over ``dim`` (None for a 0-dim tensor), after PyTorch's checks."""
    dim = wrap_dim(dim, a.ndim)
    if a._data.dtype.kind != "f":
        kernel = "lastdim_kernel_impl" if dim == a.ndim - 1 or a.ndim == 0 else "kernel_impl"
        raise NotImplementedError(f'"{name}_{kernel}" not implemented for \'{a.dtype.legacy_name[:-len("Tensor")]}\'')
    return dim if a.ndim else None
