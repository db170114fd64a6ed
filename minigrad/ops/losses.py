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
        x = _rows(log_probs._data)
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
            losses = np.where(kept, -x[rows, safe_target] * row_weight, x.dtype.type(0))   # ignored: 0, never -0
            total = row_weight.sum()   # PyTorch's total_weight
            if reduction == "mean":
                out = _divide(losses.sum(), total)
            elif reduction == "sum":
                out = losses.sum()
            else:
                out = losses.reshape(target_tensor.shape if log_probs.ndim > 1 else ())
        ctx.save_for_backward(log_probs, target_tensor, weight_tensor)
        ctx._reduction, ctx._ignore_index, ctx._total_weight = reduction, ignore_index, total
        return wrap(np.asarray(out, dtype=x.dtype))

    @staticmethod
    def backward(ctx, grad):
        log_probs, target, weight = ctx.saved_tensors
        backward = NllLoss2dBackward if log_probs.ndim == 4 else NllLossBackward
        grad_input = backward.apply(grad, log_probs, NoEdge(target), NoEdge(weight), ctx._reduction,
                                    ctx._ignore_index, ctx._total_weight)
        return grad_input, None, None, None, None


class NllLoss2d(NllLoss):
    """NllLoss for log-probabilities of shape [N, C, H, W] and labels of shape [N, H, W] (each
    position of each sample is one row of classes): the same math, f, derivatives and saved tensors
    as NllLoss. Node: NllLoss2DBackward0, whose backward is NllLoss2DBackwardBackward0.
    """

    _node_name = "NllLoss2DBackward0"


def _labels(target: Tensor) -> np.ndarray:
    """The class labels of ``target`` as one int64 array (a 0-dim target: one label)."""
    return target._data.reshape(-1).astype(np.int64, copy=False)


def _rows(x: np.ndarray) -> np.ndarray:
    """Log-probabilities as one row of classes per label: [C] as one row, [N, C] as it is, and
    [N, C, H, W] with the classes moved last ([N * H * W, C], in the order of the labels)."""
    if x.ndim == 1:
        return x.reshape(1, -1)
    return x if x.ndim == 2 else np.moveaxis(x, 1, -1).reshape(-1, x.shape[1])


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
        out = np.zeros(_rows(log_probs._data).shape, dtype)
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
        if len(shape) > 2:   # back from one row per label to [N, C, H, W]
            return wrap(np.ascontiguousarray(np.moveaxis(out.reshape(shape[:1] + shape[2:] + shape[1:2]), -1, 1)))
        return wrap(out.reshape(shape))

    @staticmethod
    def backward(ctx, grad):
        wrt_grad = None
        if ctx.needs_input_grad[0]:   # nll_loss_backward is linear in grad: its derivative is nll_loss
            target, weight = ctx.saved_tensors
            loss = NllLoss2d if grad.ndim == 4 else NllLoss
            wrt_grad = loss.apply(grad, NoEdge(target), NoEdge(weight), ctx._reduction, ctx._ignore_index)
        wrt_log_probs = wrap(np.zeros_like(grad._data)) if ctx.needs_input_grad[1] else None   # PyTorch: zeros_like
        return wrt_grad, wrt_log_probs, None, None, None, None, None


class NllLoss2dBackward(NllLossBackward):
    """NllLoss2d's backward as one operation: f and the derivatives ∂L/∂g, ∂L/∂x are NllLossBackward's,
    for log-probabilities of shape [N, C, H, W]. Node: NllLoss2DBackwardBackward0."""

    _node_name = "NllLoss2DBackwardBackward0"


def _divide(a, b):
    """``a / b``, quietly inf or nan when ``b`` is 0 (a mean over no counted rows), as in PyTorch."""
    if b != 0:
        return a / b
    with np.errstate(divide="ignore", invalid="ignore"):
        return a / b


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, ignore_index: int = -100,
             reduction: str = "mean") -> Tensor:
    """The mean (or sum) of ``-input[i, target[i]]``: use it after ``log_softmax``. Classes are along
    dim 1 ([N, C], or [N, C, d1, d2...] with labels [N, d1, d2...]; [C] for one sample)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim != 1 and input.shape[0] != (target.shape[0] if target.ndim else 0):
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0] if target.ndim else 0}).")
    if target.dtype.legacy_name not in ("LongTensor", "ByteTensor"):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {target.dtype.legacy_name[:-6]}")
    if input.ndim <= 2:
        return _nll_loss(NllLoss, input, target, weight, ignore_index, reduction)
    if input.ndim == 4:
        return _nll_loss(NllLoss2d, input, target, weight, ignore_index, reduction)
    # Other shapes go through [N, C, 1, d1 * d2...], as in PyTorch (views, so ViewBackward0 nodes).
    out_shape = input.shape[:1] + input.shape[2:]
    if target.shape != out_shape:
        raise RuntimeError(f"Expected target size {list(out_shape)}, got {list(target.shape)}")
    n, classes = input.shape[0], input.shape[1]
    empty = input.numel() == 0
    flat = input.contiguous().view(n, classes, 0, 0) if empty else input.contiguous().view(n, classes, 1, -1)
    labels = target.contiguous().view(n, 0, 0) if empty else target.contiguous().view(n, 1, -1)
    out = _nll_loss(NllLoss2d, flat, labels, weight, ignore_index, reduction)
    return out.view(out_shape) if reduction == "none" else out


def _nll_loss(loss: type, input: Tensor, target: Tensor, weight, ignore_index: int, reduction: str) -> Tensor:
    """PyTorch's checks of nll_loss (``loss``: NllLoss) or nll_loss2d (NllLoss2d), in its order, then the op."""
    classes = input.shape[-1] if loss is NllLoss else input.shape[1]
    if loss is NllLoss:
        if target.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if input.ndim == 1 and target.ndim == 1 and target.shape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}")
        if weight is not None and (weight.ndim != 1 or weight.numel() != classes):
            raise RuntimeError(f"weight tensor should be defined either for all {classes} classes or no classes but "
                               f"got weight tensor of shape: {list(weight.shape)}")
    else:
        if target.ndim != 3:
            raise RuntimeError("only batches of spatial targets supported (3D tensors) but got targets of "
                               f"dimension: {target.ndim}")
        if input.shape[:1] + input.shape[2:] != target.shape:
            raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: {list(target.shape)}")
        if weight is not None and (weight.ndim != 1 or weight.numel() != classes):
            raise RuntimeError("weight tensor should be defined either for all or no classes")
    if not input.dtype.is_floating_point:
        kernel = "nll_loss_out_frame" if loss is NllLoss else "nll_loss2d_forward_out_frame"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype.legacy_name[:-6]}'")
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.legacy_name[:-6]} but found {weight.dtype.legacy_name[:-6]}")
    labels = _labels(target)
    out_of_bounds = (labels < 0) | (labels >= classes)
    if np.count_nonzero(out_of_bounds):   # (count_nonzero: quicker than .any() on small arrays)
        out_of_bounds &= labels != ignore_index   # a label equal to ignore_index may be anything
        if np.count_nonzero(out_of_bounds):
            raise IndexError(f"Target {labels[out_of_bounds.argmax()]} is out of bounds.")
    if weight is not None and weight.requires_grad and grad_mode.state.enabled:
        name = "nll_loss_forward" if loss is NllLoss else "nll_loss2d_forward"
        raise RuntimeError(f"The function '{name}' is not differentiable with respect to argument 'weight'. "
                           "This input cannot have requires_grad True.")
    return loss.apply(input, NoEdge(target), NoEdge(weight), reduction, ignore_index)


# ------------------------------------------------------------------------------------ binary cross-entropy
_EPSILON = 1e-12   # PyTorch's floor for p (1 - p) in the gradient of binary_cross_entropy


class BinaryCrossEntropy(Builtin):
    """f(p, t) = mean of -w (t log(p) + (1 - t) log(1 - p)), each log floored at -100 as in PyTorch
    (reduction="sum": the sum; "none": each element's term); w is 1 without a weight

    ∂L/∂p = grad * w * (p - t) / max(p (1 - p), 1e-12),  ∂L/∂t = -grad * w * log(p / (1 - p)), each
    divided by the number of elements for a mean (BinaryCrossEntropyBackward for p, so that it can be
    differentiated again)
    Saves p, t and w, which both gradients read (w in a ``NoEdge``: it gets no gradient).
    """

    _saved_names = ("self", "target", "weight")

    @staticmethod
    def forward(ctx, input, target, weight, reduction):
        weight = weight.tensor
        p, t = input._data, target._data
        with np.errstate(divide="ignore"):
            losses = (t - 1) * np.maximum(np.log1p(-p), -100) - t * np.maximum(np.log(p), -100)
        if weight is not None:
            losses = losses * weight._data
        ctx.save_for_backward(input, target, weight)
        ctx._saved_reduction = reduction
        return wrap(_reduce(losses.astype(p.dtype, copy=False), reduction))

    @staticmethod
    def backward(ctx, grad):
        input, target, weight = ctx.saved_tensors
        reduction = ctx._saved_reduction
        wrt_input = wrt_target = None
        if ctx.needs_input_grad[0]:
            wrt_input = BinaryCrossEntropyBackward.apply(grad, input, target, NoEdge(weight), reduction)
        if ctx.needs_input_grad[1]:
            wrt_target = _scaled(-(input / (1 - input)).log() * grad, weight, reduction, input.numel())
        return wrt_input, wrt_target, None, None


class BinaryCrossEntropyBackward(Builtin):
    """BinaryCrossEntropy's backward as one operation, as in PyTorch (``binary_cross_entropy_backward``).

    f(g, p, t) = g * w * (p - t) / max(p (1 - p), 1e-12), divided by N for a mean
    ∂L/∂g = the reduction of grad * w * (p - t) / max(p (1 - p), 1e-12),
    ∂L/∂p = grad * g * w * (p² - 2 p t + t) / max((p (1 - p))², 1e-12) (/ N),
    ∂L/∂t = -grad * g * w / max(p (1 - p), 1e-12) (/ N): PyTorch's double-backward formulas
    Saves g, p, t and w. Node: BinaryCrossEntropyBackwardBackward0.
    """

    _saved_names = ("grad_output", "self", "target", "weight")

    @staticmethod
    def forward(ctx, grad, input, target, weight, reduction):
        weight = weight.tensor
        ctx.save_for_backward(grad, input, target, weight)
        ctx._saved_reduction = reduction
        p, t = input._data, target._data
        out = grad._data * (p - t) / np.maximum((1 - p) * p, _EPSILON)
        if weight is not None:
            out = out * weight._data
        if reduction == "mean":
            out = out / p.size
        return wrap(np.asarray(out, dtype=p.dtype))

    @staticmethod
    def backward(ctx, grad):
        grad_output, input, target, weight = ctx.saved_tensors
        reduction, n = ctx._saved_reduction, input.numel()
        needs = ctx.needs_input_grad
        spread = (1 - input) * input
        wrt_grad_output = wrt_input = wrt_target = None
        if needs[0]:
            terms = (input - target) / spread.clamp(min=_EPSILON)
            terms = terms * weight if weight is not None else terms
            terms = terms * grad
            wrt_grad_output = terms.mean() if reduction == "mean" else terms.sum() if reduction == "sum" else terms
        if needs[1]:
            curvature = (input * input - 2 * input * target + target) / (spread * spread).clamp(min=_EPSILON)
            wrt_input = _scaled(curvature * grad_output * grad, weight, reduction, n)
        if needs[2]:
            wrt_target = _scaled(-grad * grad_output / spread.clamp(min=_EPSILON), weight, reduction, n)
        return wrt_grad_output, wrt_input, wrt_target, None, None


def _reduce(losses: np.ndarray, reduction: str):
    if reduction == "mean":
        return losses.sum() / losses.size if losses.size else np.asarray(np.nan, losses.dtype)
    return losses.sum() if reduction == "sum" else losses


def _scaled(gradient: Tensor, weight, reduction: str, n: int) -> Tensor:
    """``gradient`` times the weight (if any), divided by the number of elements for a mean (as
    PyTorch's ``div(numel)``, a DivBackward1 node)."""
    if weight is not None:
        gradient = gradient * weight
    if reduction != "mean":
        return gradient
    from .arithmetic import DivScalar
    return DivScalar.apply(gradient, n)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         reduction: str = "mean") -> Tensor:
    """The cross-entropy of probabilities ``input`` against targets in [0, 1], with PyTorch's checks."""
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape!r}) that is different to the input size "
                         f"({input.shape!r}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        from .shape import expand
        weight = expand(weight, (tuple(target.shape),))
    if target.dtype is not input.dtype:
        raise RuntimeError(f"Found dtype {target.dtype.legacy_name[:-6]} but expected {input.dtype.legacy_name[:-6]}")
    for name, t in (("input", input), ("target", target)):
        if t.numel() and not ((t._data >= 0) & (t._data <= 1)).all():
            raise RuntimeError(f"all elements of {name} should be between 0 and 1")
    return BinaryCrossEntropy.apply(input, target, NoEdge(weight), reduction)


class BinaryCrossEntropyWithLogits(Builtin):
    """f(z, t) = mean of w ((1 - t) z + (1 + (q - 1) t) log(1 + exp(-z))), the cross-entropy of
    sigmoid(z) against t computed without overflow; q is pos_weight (1 without), w the weight

    ∂L/∂z = grad * w * ((q t + 1 - t) sigmoid(z) - q t),  ∂L/∂t = grad * w * (log sigmoid(-z) - q log sigmoid(z))
    (-grad * w * z without pos_weight), each divided by the number of elements for a mean: PyTorch's
    formulas, as tensor operations (so differentiable again, with PyTorch's nodes)
    Saves z, t, w and q, which the gradients read (w and q in ``NoEdge``s: they get no gradient).
    """

    _saved_names = ("self", "target", "weight", "pos_weight")

    @staticmethod
    def forward(ctx, input, target, weight, pos_weight, reduction):
        weight, pos_weight = weight.tensor, pos_weight.tensor
        z, t = binary_arrays(input, target)
        with np.errstate(over="ignore"):
            log_sigmoid = -np.logaddexp(0, -z)   # log(sigmoid(z)), without overflow
        if pos_weight is None:
            losses = (1 - t) * z - log_sigmoid
        else:
            losses = (1 - t) * z - ((pos_weight._data - 1) * t + 1) * log_sigmoid
        if weight is not None:
            losses = losses * weight._data
        ctx.save_for_backward(input, target, weight, pos_weight)
        ctx._saved_reduction = reduction
        return wrap(_reduce(np.asarray(losses, dtype=z.dtype), reduction))

    @staticmethod
    def backward(ctx, grad):
        input, target, weight, pos_weight = ctx.saved_tensors
        reduction, n = ctx._saved_reduction, input.numel()
        wrt_input = wrt_target = None
        if ctx.needs_input_grad[0]:
            if pos_weight is None:
                core = input.sigmoid() - target
            else:
                scaled_target = pos_weight * target
                core = (scaled_target + 1 - target) * input.sigmoid() - scaled_target
            wrt_input = _scaled(core * grad, weight, reduction, n)
        if ctx.needs_input_grad[1]:
            if pos_weight is None:
                core = -input
            else:
                from .activation import Softplus
                core = -Softplus.apply(input, 1, 20) + Softplus.apply(-input, 1, 20) * pos_weight
            wrt_target = _scaled(core * grad, weight, reduction, n)
        return wrt_input, wrt_target, None, None, None


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     reduction: str = "mean", pos_weight: Tensor | None = None) -> Tensor:
    """The cross-entropy of sigmoid(input) against targets, with PyTorch's checks."""
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape!r}) must be the same as input size ({input.shape!r})")
    if not target.dtype.is_floating_point:
        raise RuntimeError(f"result type {input.dtype.legacy_name[:-6]} can't be cast to the desired output type "
                           f"{target.dtype.legacy_name[:-6]}")
    return BinaryCrossEntropyWithLogits.apply(input, target, NoEdge(weight), NoEdge(pos_weight), reduction)
