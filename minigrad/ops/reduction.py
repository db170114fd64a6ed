"""Reductions (sum, mean, max, min), gather and scatter_add, sort, softmax and log_softmax (with their
backwards as operations)."""
from __future__ import annotations

import numpy as np

from .. import grad_mode
from ..tensor import Tensor
from ..types import int64
from ._util import Builtin, NoEdge, normalize_dims, wrap, wrap_dim
from .shape import View


def _restore_dims(grad: Tensor, dims: tuple, keepdim: bool) -> Tensor:
    """Put back the reduced dimensions (as size 1) so the gradient broadcasts over them."""
    if not keepdim:
        for d in dims:
            grad = grad.unsqueeze(d)
    return grad


class Sum(Builtin):
    """f(a) = the sum of all elements of a

    ∂L/∂a = grad expanded to a's shape: each element's derivative is 1
    Saves nothing: keeps a's shape.
    """

    _node_name = "SumBackward0"

    @staticmethod
    def forward(ctx, a, dtype=None):
        ctx._shape = a.shape
        x = a._data
        if dtype is not None:
            x = x.astype(dtype.numpy)
        elif x.dtype.kind in "bi":
            x = x.astype(np.int64)
        return wrap(x.sum())

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx._shape), None


class SumDim(Builtin):
    """f(a) = a summed over dims (kept as size 1 with keepdim)

    ∂L/∂a = grad, with the summed dims put back as size 1, expanded to a's shape
    Saves nothing: keeps a's shape, dims and keepdim. Node: SumBackward1.
    """

    _node_name = "SumBackward1"

    @staticmethod
    def forward(ctx, a, dims, keepdim, dtype=None):
        ctx._shape, ctx._dims, ctx._keepdim = a.shape, dims, keepdim
        x = a._data
        if dtype is not None:
            x = x.astype(dtype.numpy)
        elif x.dtype.kind in "bi":
            x = x.astype(np.int64)
        return wrap(np.add.reduce(x, axis=dims, keepdims=keepdim))   # x.sum(...), minus a Python layer

    @staticmethod
    def backward(ctx, grad):
        return _restore_dims(grad, ctx._dims, ctx._keepdim).expand(ctx._shape), None, None, None


class Mean(Builtin):
    """f(a) = sum(a) / N, for the N elements of a

    ∂L/∂a = grad / N, expanded to a's shape
    Saves nothing: keeps a's shape.
    """

    _node_name = "MeanBackward0"

    @staticmethod
    def forward(ctx, a, dtype=None):
        ctx._shape = a.shape
        x = a._data if dtype is None else a._data.astype(dtype.numpy)
        if x.size and (x.dtype == np.float32 or x.dtype == np.float64):
            total = np.add.reduce(x, axis=None)   # what x.mean() computes, minus its Python layer
            return wrap(total.dtype.type(total / np.intp(x.size)))
        if not x.size:   # the mean of nothing is nan, without numpy's "Mean of empty slice" warning
            return wrap(np.full((), np.nan, x.dtype))
        return wrap(x.mean())

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx._shape) / (ctx._shape.numel() or 1), None


class MeanDim(Builtin):
    """f(a) = a summed over dims, divided by the number n of elements summed

    ∂L/∂a = grad / n, with the reduced dims put back as size 1, expanded to a's shape
    Saves nothing: keeps a's shape, dims, keepdim and n. Node: MeanBackward1.
    """

    _node_name = "MeanBackward1"

    @staticmethod
    def forward(ctx, a, dims, keepdim, dtype=None):
        ctx._shape, ctx._dims, ctx._keepdim = a.shape, dims, keepdim
        x = a._data if dtype is None else a._data.astype(dtype.numpy)
        ctx._count = int(np.prod([a.shape[d] for d in dims])) if dims else 1
        if not x.size:   # the mean of nothing is nan, without numpy's "Mean of empty slice" warning
            return wrap(np.full(x.sum(axis=dims, keepdims=keepdim).shape, np.nan, x.dtype))
        return wrap(x.mean(axis=dims, keepdims=keepdim))

    @staticmethod
    def backward(ctx, grad):
        return _restore_dims(grad, ctx._dims, ctx._keepdim).expand(ctx._shape) / ctx._count, None, None, None


def sum(a: Tensor, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    if dim is None:
        return Sum.apply(a, dtype) if dtype is not None else Sum.apply(a)
    return SumDim.apply(a, normalize_dims(dim, a.ndim), keepdim, dtype)


def mean(a: Tensor, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    if a._data.dtype.kind not in "fc" and dtype is None:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {a.dtype.legacy_name.replace('Tensor', '')}")
    if dim is None:
        return Mean.apply(a, dtype) if dtype is not None else Mean.apply(a)
    return MeanDim.apply(a, normalize_dims(dim, a.ndim), keepdim, dtype)


def sum_to_size(a: Tensor, shape) -> Tensor:
    """Sum the dimensions that broadcasting added or stretched, giving ``shape``."""
    shape = tuple(shape)
    own = a._data.shape
    if own == shape:
        return a
    lead = len(own) - len(shape)
    stretched = tuple(lead + i for i, n in enumerate(shape) if n == 1 and own[lead + i] != 1)
    if not stretched and not grad_mode.state.enabled:
        # Only leading dimensions to drop and nothing is recorded: one sum gives the same values
        # as PyTorch's two steps below (a bias's gradient in a backward without create_graph).
        return SumDim.apply(a, tuple(range(lead)), False)
    dims = tuple(range(lead)) + stretched
    out = SumDim.apply(a, dims, True) if dims else a
    return View.apply(out, shape) if lead else out   # as PyTorch: sum with keepdim, then view


class Gather(Builtin):
    """f(a)[i][j] = a[i][index[i][j]] along dim (dim = 1 shown)

    ∂L/∂a = zeros shaped like a, with grad added at index along dim (ScatterAdd; repeats add up)
    Saves a and index, as PyTorch's node: backward reads index, so an in-place change of either
    before backward is refused; keeps dim and a's shape. index comes in a ``NoEdge``: no
    next_functions entry for it, as in PyTorch.
    """

    _node_name = "GatherBackward0"
    _saved_names = ("self", "index")

    @staticmethod
    def forward(ctx, a, dim, index):
        index = index.tensor
        ctx._shape, ctx._dim = a.shape, dim
        ctx.save_for_backward(a, index)
        return wrap(np.take_along_axis(a._data, index._data, axis=dim))

    @staticmethod
    def backward(ctx, grad):
        _, index = ctx.saved_tensors
        return ScatterAdd.apply(grad, ctx._dim, NoEdge(index), ctx._shape), None, None


class ScatterAdd(Builtin):
    """f(g) = zeros of ``shape``, with g added at index along dim: Gather's backward, as an operation

    ∂L/∂g = grad gathered at index along dim (Gather)
    Saves index, which backward reads (in a ``NoEdge``, as Gather's); keeps dim.
    """

    _node_name = "ScatterAddBackward0"
    _saved_names = ("index",)

    @staticmethod
    def forward(ctx, grad, dim, index, shape):
        index = index.tensor
        ctx._dim = dim
        ctx.save_for_backward(index)
        out = np.zeros(shape, dtype=grad._data.dtype)
        # np.add.at has no axis argument: build full coordinate arrays for the indexed axis.
        coords = list(np.indices(index.shape, sparse=True))
        coords[dim] = index._data
        np.add.at(out, tuple(coords), grad._data)
        return wrap(out)

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        return Gather.apply(grad, ctx._dim, NoEdge(index)), None, None, None


class _ReturnTypes(tuple):
    """PyTorch's named pair ``torch.return_types.max(values=..., indices=...)``."""

    _name = ""

    def __new__(cls, values, indices):
        return tuple.__new__(cls, (values, indices))

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]

    def __repr__(self) -> str:
        return f"torch.return_types.{self._name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


def _return_type(name: str) -> type:
    return type(name, (_ReturnTypes,), {"_name": name})


max_return, min_return, sort_return = _return_type("max"), _return_type("min"), _return_type("sort")


class MaxAll(Builtin):
    """f(a) = max(a) (``x.max()``)

    ∂L/∂a = grad / k at each of the k elements equal to f, 0 elsewhere: tied maxima share the
    gradient evenly, as in PyTorch (``evenly_distribute_backward``)
    Saves a and f, which pick the winners; saving a also catches an in-place change of it, as in PyTorch.
    Node: MaxBackward1.
    """

    _node_name = "MaxBackward1"
    _saved_names = ("self", "result")
    _reduce = staticmethod(np.max)

    @staticmethod
    def forward(ctx, a):
        if a._data.size == 0:
            raise RuntimeError("max(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        out = wrap(ctx._forward_cls._reduce(a._data))
        ctx.save_for_backward(a, out)   # as PyTorch: changing the input in place is then caught
        return out

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        from .pointwise import where
        # PyTorch's evenly_distribute_backward: the winners share the gradient; if the result is nan,
        # the winners are the nan elements
        winners = np.isnan(a._data) if np.isnan(result._data) else a._data == result._data
        return where(wrap(winners), grad / int(winners.sum()), 0.0)


class MinAll(MaxAll):
    """f(a) = min(a) (``x.min()``)

    ∂L/∂a = grad / k at each of the k elements equal to f, 0 elsewhere, as MaxAll's
    Saves a and f, as MaxAll. Node: MinBackward1.
    """

    _node_name = "MinBackward1"
    _reduce = staticmethod(np.min)


class MaxDim(Builtin):
    """f(a) = (values, indices): the maximum along dim, and where it was found (``x.max(dim)``)

    ∂L/∂a = grad put at the index of each maximum along dim, 0 elsewhere (ScatterAdd)
    The indices are marked non-differentiable: their gradient (grad_indices) is ignored.
    Saves the indices, as PyTorch's node, and reads them in backward (so a second backward, or an
    in-place change of them, is refused); keeps dim, keepdim and a's shape. Node: MaxBackward0.
    """

    _node_name = "MaxBackward0"
    _saved_names = ("indices",)
    _name = "max"
    _arg = staticmethod(np.argmax)

    @staticmethod
    def forward(ctx, a, dim, keepdim):
        ctx._shape, ctx._dim, ctx._keepdim = a.shape, dim, keepdim
        if a._data.ndim == 0:   # a 0-dim tensor is its own maximum, at index 0
            indices = wrap(np.zeros((), np.int64))
            ctx.mark_non_differentiable(indices)
            ctx.save_for_backward(indices)
            return wrap(a._data.copy()), indices
        if a._data.shape[dim] == 0:
            raise IndexError(f"{ctx._forward_cls._name}(): Expected reduction dim {dim} to have non-zero size.")
        index = np.expand_dims(ctx._forward_cls._arg(a._data, axis=dim), dim)
        values = np.take_along_axis(a._data, index, axis=dim)
        if not keepdim:
            values, index = values.squeeze(dim), index.squeeze(dim)
        indices = wrap(index.astype(np.int64))
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return wrap(values), indices

    @staticmethod
    def backward(ctx, grad, grad_indices):
        indices, = ctx.saved_tensors
        if not ctx._shape:
            return grad, None, None
        if not ctx._keepdim:
            grad, indices = grad.unsqueeze(ctx._dim), indices.unsqueeze(ctx._dim)
        return ScatterAdd.apply(grad, ctx._dim, NoEdge(indices), ctx._shape), None, None


class MinDim(MaxDim):
    """f(a) = (values, indices): the minimum along dim, and where it was found (``x.min(dim)``)

    ∂L/∂a = grad put at the index of each minimum along dim, 0 elsewhere, as MaxDim's
    Node: MinBackward0.
    """

    _node_name = "MinBackward0"
    _name = "min"
    _arg = staticmethod(np.argmin)


def max(a: Tensor, dim=None, keepdim: bool = False):
    if isinstance(dim, Tensor):
        raise NotImplementedError("minigrad: max(tensor, other) (maximum) is not implemented; use torch.where(a > b, a, b)")
    if dim is None:
        return MaxAll.apply(a)
    return max_return(*MaxDim.apply(a, wrap_dim(dim, a.ndim), keepdim))


def min(a: Tensor, dim=None, keepdim: bool = False):
    if isinstance(dim, Tensor):
        raise NotImplementedError("minigrad: min(tensor, other) (minimum) is not implemented; use torch.where(a < b, a, b)")
    if dim is None:
        return MinAll.apply(a)
    return min_return(*MinDim.apply(a, wrap_dim(dim, a.ndim), keepdim))


def argmax(a: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    if a._data.dtype == np.bool_:
        raise RuntimeError("argmax(): does not support bool input")
    if dim is None:
        return wrap(np.int64(np.argmax(a._data)))
    dim = wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        return wrap(np.zeros((), np.int64))
    if a.shape[dim] == 0:
        raise IndexError("argmax(): Expected reduction dim " + str(dim) + " to have non-zero size.")
    return wrap(np.argmax(a._data, axis=dim, keepdims=keepdim).astype(np.int64))


def argmin(a: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    if a._data.dtype == np.bool_:
        raise RuntimeError("argmin(): does not support bool input")
    if dim is None:
        return wrap(np.int64(np.argmin(a._data)))
    dim = wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        return wrap(np.zeros((), np.int64))
    if a.shape[dim] == 0:
        raise IndexError("argmin(): Expected reduction dim " + str(dim) + " to have non-zero size.")
    return wrap(np.argmin(a._data, axis=dim, keepdims=keepdim).astype(np.int64))


def _descending_order(x: np.ndarray, dim: int) -> np.ndarray:
    """Indices that sort ``x`` from largest to smallest. PyTorch counts NaN as larger than
    everything, so NaNs come first (numpy's argsort of ``-x`` would put them last)."""
    keys = -x if x.dtype.kind in "fi" else -x.astype(np.int64)   # bool and uint8 cannot be negated as they are
    order = np.argsort(keys, axis=dim, kind="stable")
    if np.issubdtype(x.dtype, np.floating):
        is_number = ~np.isnan(np.take_along_axis(x, order, axis=dim))
        order = np.take_along_axis(order, np.argsort(is_number, axis=dim, kind="stable"), axis=dim)
    return order


class Sort(Builtin):
    """f(a) = (values, indices): a sorted along dim, and where each value came from

    ∂L/∂a = grad sent back to where each value came from (ScatterAdd at the indices)
    The indices are marked non-differentiable. Saves the indices, as PyTorch's node, and reads them
    in backward (so a second backward, or an in-place change of them, is refused); keeps dim.
    """

    _node_name = "SortBackward0"
    _saved_names = ("indices",)

    @staticmethod
    def forward(ctx, a, dim, descending):
        x = a._data
        if x.ndim == 0:   # one element: it is already sorted
            x, dim = x.reshape(1), 0
        order = _descending_order(x, dim) if descending else np.argsort(x, axis=dim, kind="stable")
        values = np.take_along_axis(x, order, axis=dim)
        if a._data.ndim == 0:
            values, order = values.reshape(()), order.reshape(())
        ctx._dim = dim
        indices = wrap(order.astype(np.int64))
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return wrap(values), indices

    @staticmethod
    def backward(ctx, grad, grad_indices):
        indices, = ctx.saved_tensors
        if not grad.shape:
            return grad, None, None
        return ScatterAdd.apply(grad, ctx._dim, NoEdge(indices), tuple(grad.shape)), None, None


def sort(a: Tensor, dim: int = -1, descending: bool = False):
    return sort_return(*Sort.apply(a, wrap_dim(dim, a.ndim), descending))


class Softmax(Builtin):
    """f(a) = exp(a) / sum(exp(a)) along dim

    ∂L/∂a = f * (grad - sum(grad * f, dim)): the Jacobian diag(f) - f f.T applied to grad
    Saves the result f, all the derivative reads. Backward is one Function, SoftmaxBackwardData
    (PyTorch's ``_softmax_backward_data``), so that it can be differentiated again.
    """

    _node_name = "SoftmaxBackward0"
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

    _node_name = "SoftmaxBackwardDataBackward0"
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

    _node_name = "LogSoftmaxBackward0"
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

    _node_name = "LogSoftmaxBackwardDataBackward0"
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
