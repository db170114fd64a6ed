"""Losses: ``mse_loss`` and ``nll_loss`` (``cross_entropy`` is ``nll_loss`` after ``log_softmax``), each
with its backward as one operation, as in PyTorch, so that it can be differentiated again.
``torch.nn.functional`` calls these.
"""
from __future__ import annotations

import numpy as np

from .. import grad_mode
from ..tensor import Tensor
from ._util import Builtin, NoEdge, binary_arrays, wrap


class MseLoss(Builtin):
    """f(x, t) = mean((x - t) ** 2) (reduction="sum": the sum; "none": each element's square)

    ∂L/∂x = grad * 2 * (x - t) / N (N, the number of elements, for "mean" only),  ∂L/∂t = -∂L/∂x
    Saves x and t, which both gradients read. Backward is one Function, MseLossBackward (PyTorch's
    ``mse_loss_backward``), so that it can be differentiated again; as in PyTorch, t's gradient is the
    same operation with x and t swapped.
    """

    _saved_names = ("self", "target")

    @staticmethod
    def forward(ctx, input, target, reduction):
        x, y = binary_arrays(input, target)
        diff = x - y
        ctx.save_for_backward(input, target)
        ctx._reduction = reduction
        squared = diff * diff
        return wrap(squared.mean() if reduction == "mean" else squared.sum() if reduction == "sum" else squared)

    @staticmethod
    def backward(ctx, grad):
        input, target = ctx.saved_tensors
        reduction = ctx._reduction
        # As in PyTorch, the target's gradient is the same operation with input and target swapped.
        return (MseLossBackward.apply(grad, input, target, reduction) if ctx.needs_input_grad[0] else None,
                MseLossBackward.apply(grad, target, input, reduction) if ctx.needs_input_grad[1] else None,
                None)


class MseLossBackward(Builtin):
    """MseLoss's backward as one operation, as in PyTorch (``mse_loss_backward``).

    f(g, x, t) = g * s * (x - t), with s = 2 / N for a mean (N elements), else 2
    ∂L/∂g = s * sum(grad * (x - t)) (no sum for reduction="none"),  ∂L/∂x = s * grad * g,
    ∂L/∂t = -s * grad * g
    Saves g, x and t. Node: MseLossBackwardBackward0.

    >>> import minigrad as torch
    >>> x = torch.tensor([1.0, 3.0], requires_grad=True)
    >>> g, = torch.autograd.grad(torch.nn.functional.mse_loss(x, torch.zeros(2)), x, create_graph=True)
    >>> g.tolist(), g.grad_fn.name()
    ([1.0, 3.0], 'MseLossBackwardBackward0')
    """

    _saved_names = ("grad_output", "self", "target")

    @staticmethod
    def forward(ctx, grad, input, target, reduction):
        x, y = binary_arrays(input, target)
        diff = x - y   # the mean was over the broadcast shape: divide by its size
        ctx._scale = 2 / diff.size if reduction == "mean" and diff.size else 2
        ctx._reduction = reduction
        ctx.save_for_backward(grad, input, target)
        diff *= grad._data * ctx._scale
        return wrap(diff)

    @staticmethod
    def backward(ctx, grad):
        grad_output, input, target = ctx.saved_tensors
        wrt_grad_output = wrt_input = wrt_target = None
        if ctx.needs_input_grad[0]:   # linear in grad_output; a reduced loss had one number of it
            wrt_grad_output = grad * (input - target) * ctx._scale
            if ctx._reduction != "none":
                wrt_grad_output = wrt_grad_output.sum()
        if ctx.needs_input_grad[1] or ctx.needs_input_grad[2]:
            scaled = grad * grad_output * ctx._scale
            wrt_input = scaled if ctx.needs_input_grad[1] else None
            wrt_target = -scaled if ctx.needs_input_grad[2] else None
        return wrt_grad_output, wrt_input, wrt_target, None


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """Mean squared error."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return MseLoss.apply(input, target, reduction)


class NllLoss(Builtin):
    """f(x, t) = -sum_i w[t_i] * x[i, t_i] / sum_i w[t_i], for log-probabilities x of shape [N, C] (or
    [C]), labels t and class weights w (all 1 by default); rows whose label is ignore_index count for
    nothing; reduction="sum" drops the division, "none" gives each row's term

    ∂L/∂x = zeros shaped like x, with -grad * w[t_i] at each (i, t_i), divided by sum_i w[t_i] for a
    mean (NllLossBackward, so that it can be differentiated again)
    Saves x, t and w, as PyTorch's node does: backward reads t and w (and x's shape and dtype), so an
    in-place change of one before backward, or a second backward, is refused. t and w come in a
    ``NoEdge``: like PyTorch's node, no next_functions entries for them. Keeps the total weight.
    """

    _saved_names = ("self", "target", "weight")

    @staticmethod
    def forward(ctx, log_probs, target, weight, reduction, ignore_index):
        target_tensor, weight_tensor = target.tensor, weight.tensor
        target, weight = _labels(target_tensor), None if weight_tensor is None else weight_tensor._data
        x = log_probs._data.reshape(1, -1) if log_probs.ndim == 1 else log_probs._data
        rows = np.arange(x.shape[0])
        if weight is None and reduction == "mean" and x.shape[0] and not np.count_nonzero(target == ignore_index):
            # The common case (cross_entropy's): each row counts once. The same values as the general code.
            total = x.dtype.type(x.shape[0])
            out = -np.add.reduce(x[rows, target]) / total
        else:
            kept = target != ignore_index
            safe_target = np.where(kept, target, 0)
            row_weight = (np.ones(x.shape[1], x.dtype) if weight is None else weight.astype(x.dtype))[safe_target]
            row_weight *= kept
            losses = -x[rows, safe_target] * row_weight
            total = row_weight.sum()   # PyTorch's total_weight
            if reduction == "mean":
                out = _divide(losses.sum(), total)
            elif reduction == "sum":
                out = losses.sum()
            else:
                out = losses if log_probs.ndim == 2 else losses.reshape(())
        ctx.save_for_backward(log_probs, target_tensor, weight_tensor)
        ctx._reduction, ctx._ignore_index, ctx._total_weight = reduction, ignore_index, total
        return wrap(np.asarray(out, dtype=x.dtype))

    @staticmethod
    def backward(ctx, grad):
        log_probs, target, weight = ctx.saved_tensors
        grad_input = NllLossBackward.apply(grad, log_probs, NoEdge(target), NoEdge(weight), ctx._reduction,
                                           ctx._ignore_index, ctx._total_weight)
        return grad_input, None, None, None, None


def _labels(target: Tensor) -> np.ndarray:
    """The class labels of ``target`` as one int64 array (a 0-dim target: one label)."""
    return target._data.reshape(-1).astype(np.int64, copy=False)


class NllLossBackward(Builtin):
    """NllLoss's backward as one operation, as in PyTorch (``nll_loss_backward``).

    f(g, x) = zeros shaped like x, with -g * w[t_i] (divided by the total weight for a mean) at each
    counted row's label
    ∂L/∂g = nll_loss(grad): f is linear in g;  ∂L/∂x = 0 (zeros, as PyTorch's: f reads only x's shape and dtype)
    Saves t and w (in ``NoEdge``s, as NllLoss), which g's gradient reads; keeps reduction and
    ignore_index. Node: NllLossBackwardBackward0.

    >>> import minigrad as torch
    >>> x = torch.zeros(2, 3, requires_grad=True)
    >>> g, = torch.autograd.grad(torch.nn.functional.nll_loss(x, torch.tensor([2, 0])), x, create_graph=True)
    >>> g.tolist(), g.grad_fn.name()
    ([[0.0, 0.0, -0.5], [-0.5, 0.0, 0.0]], 'NllLossBackwardBackward0')
    """

    _saved_names = ("target", "weight")

    @staticmethod
    def forward(ctx, grad, log_probs, target, weight, reduction, ignore_index, total_weight):
        ctx.save_for_backward(target.tensor, weight.tensor)
        ctx._reduction, ctx._ignore_index = reduction, ignore_index
        target, weight = _labels(target.tensor), None if weight.tensor is None else weight.tensor._data
        shape, dtype = log_probs._data.shape, log_probs._data.dtype
        out = np.zeros((1, shape[0]) if len(shape) == 1 else shape, dtype)
        value = -_divide(grad._data, total_weight) if reduction == "mean" else -grad._data
        if reduction == "none":
            value = value.reshape(-1)   # one gradient per row
        ignored = target == ignore_index
        if np.count_nonzero(ignored):
            rows = np.flatnonzero(~ignored)
            labels = target[rows]
            value = value[rows] if value.ndim else value
        else:
            rows, labels = np.arange(len(target)), target
        out[rows, labels] = value if weight is None else weight.astype(dtype)[labels] * value
        return wrap(out.reshape(shape))

    @staticmethod
    def backward(ctx, grad):
        wrt_grad = None
        if ctx.needs_input_grad[0]:   # nll_loss_backward is linear in grad: its derivative is nll_loss
            target, weight = ctx.saved_tensors
            wrt_grad = NllLoss.apply(grad, NoEdge(target), NoEdge(weight), ctx._reduction, ctx._ignore_index)
        wrt_log_probs = wrap(np.zeros_like(grad._data)) if ctx.needs_input_grad[1] else None   # PyTorch: zeros_like
        return wrt_grad, wrt_log_probs, None, None, None, None, None


def _divide(a, b):
    """``a / b``, quietly inf or nan when ``b`` is 0 (a mean over no counted rows), as in PyTorch."""
    if b != 0:
        return a / b
    with np.errstate(divide="ignore", invalid="ignore"):
        return a / b


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, ignore_index: int = -100,
             reduction: str = "mean") -> Tensor:
    """The mean (or sum) of ``-input[i, target[i]]``: use it after ``log_softmax``."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if input.ndim not in (1, 2):
        raise NotImplementedError(f"minigrad: nll_loss of a {input.ndim}-d input is not implemented")
    if target.dtype.legacy_name not in ("LongTensor", "ByteTensor"):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {target.dtype.legacy_name[:-6]}")
    batch = input.shape[0] if input.ndim == 2 else 1
    if target.numel() != batch or (input.ndim == 1 and target.ndim != 0):
        raise ValueError(f"Expected input batch_size ({batch}) to match target batch_size ({target.numel()}).")
    labels = _labels(target)
    out_of_bounds = (labels < 0) | (labels >= input.shape[-1])
    if np.count_nonzero(out_of_bounds):   # (count_nonzero: quicker than .any() on small arrays)
        out_of_bounds &= labels != ignore_index   # a label equal to ignore_index may be anything
        if np.count_nonzero(out_of_bounds):
            raise IndexError(f"Target {labels[out_of_bounds.argmax()]} is out of bounds.")
    if weight is not None and weight.requires_grad and grad_mode.state.enabled:
        raise RuntimeError("The function 'nll_loss_forward' is not differentiable with respect to argument 'weight'. "
                           "This input cannot have requires_grad True.")
    return NllLoss.apply(input, NoEdge(target), NoEdge(weight), reduction, ignore_index)
