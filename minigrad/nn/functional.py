"""Functions used by the layers, and losses: ``relu``, ``linear``, ``mse_loss``, ``cross_entropy``."""
from __future__ import annotations

import warnings

import numpy as np

from .. import factories, grad_mode
from ..ops import Addmm, Elu, LeakyRelu
from ..ops._util import Builtin, NoEdge, binary_arrays, wrap
from ..tensor import Tensor


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return input.relu_() if inplace else input.relu()


def relu_(input: Tensor) -> Tensor:
    return input.relu_()


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """``input`` clipped to ``[min_val, max_val]``; the gradient is 1 strictly inside, 0 elsewhere."""
    from ..ops import hardtanh as clip
    return clip(input, min_val, max_val, inplace)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, inplace=True)


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def _implicit_dim(name: str, ndim: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", UserWarning, stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    if dim is None:
        dim = _implicit_dim("softmax", input.ndim)
    return (input if dtype is None else input.to(dtype)).softmax(dim)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    if dim is None:
        dim = _implicit_dim("log_softmax", input.ndim)
    return (input if dtype is None else input.to(dtype)).log_softmax(dim)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``x`` for positive ``x``, ``negative_slope * x`` otherwise."""
    _refuse_inplace("leaky_relu", inplace)
    return LeakyRelu.apply(input, negative_slope)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` for positive ``x``, ``alpha * (exp(x) - 1)`` otherwise."""
    _refuse_inplace("elu", inplace)
    return Elu.apply(input, alpha)


def _refuse_inplace(name: str, inplace: bool) -> None:
    if inplace:
        raise NotImplementedError(f"minigrad: {name}(inplace=True) is not implemented; use inplace=False")


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """The rows of ``weight`` named by the integer tensor ``input`` (see ``ops/scans.py``)."""
    from ..ops import embedding as lookup
    return lookup(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """While training, zero each element with probability ``p`` and scale the others by ``1 / (1 - p)``.

    Not training (or ``p == 0``), the input itself comes back. As in PyTorch on the CPU, the
    result is ``input * mask``, so its node is a MulBackward0.

    >>> import minigrad as torch
    >>> x = torch.ones(6, requires_grad=True)
    >>> torch.nn.functional.dropout(x, 0.5, training=False) is x
    True
    >>> torch.nn.functional.dropout(x, 0.5).grad_fn.name()
    'MulBackward0'
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input.numel() == 0:
        return input
    if not input.is_floating_point():
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{input.dtype.legacy_name[:-len('Tensor')]}")
    if p == 1:
        mask = Tensor._zeros((), input.dtype)
    else:
        dtype = input._data.dtype if input._data.dtype in (np.float32, np.float64) else np.float64
        keep = factories._generator.random(input._data.shape, dtype=dtype) >= p
        mask = Tensor._make(keep.astype(input._data.dtype) * input._data.dtype.type(1 / (1 - p)))
    return input.mul_(mask) if inplace else input * mask


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``; for a batch of vectors, one AddmmBackward0 node (as in PyTorch)."""
    if input.ndim == 2 and bias is not None:
        return Addmm.apply(bias, input, weight.t())
    if input.ndim == 1 and bias is not None:   # PyTorch views the vector as a 1-row matrix
        return Addmm.apply(bias, input.view(1, -1), weight.t()).view(-1)
    out = input.matmul(weight.t())
    return out + bias if bias is not None else out


class MseLoss(Builtin):
    """f(x, t) = mean((x - t) ** 2) (reduction="sum": the sum; "none": each element's square)

    ∂L/∂x = grad * 2 * (x - t) / N (N, the number of elements, for "mean" only),  ∂L/∂t = -∂L/∂x
    Saves x and t, which both gradients read. Backward is one Function, MseLossBackward (PyTorch's
    ``mse_loss_backward``), so that it can be differentiated again; as in PyTorch, t's gradient is the
    same operation with x and t swapped.
    """

    _node_name = "MseLossBackward0"
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

    _node_name = "MseLossBackwardBackward0"
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

    _node_name = "NllLossBackward0"
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

    _node_name = "NllLossBackwardBackward0"
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


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None, ignore_index: int = -100,
             reduce=None, reduction: str = "mean") -> Tensor:
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


def cross_entropy(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """``nll_loss(log_softmax(input, 1), target)``: class scores against integer labels (for one
    sample of shape ``[C]``, log_softmax over dim 0, as PyTorch does)."""
    if target.dtype.is_floating_point:
        raise NotImplementedError("minigrad: cross_entropy with class probabilities is not implemented; "
                                  "pass integer class labels")
    return nll_loss(input.log_softmax(0 if input.ndim == 1 else 1), target, reduction=reduction)


# F.conv2d, F.max_pool2d, F.batch_norm...: outside the subset, NotImplementedError when called.
from .unsupported import FUNCTIONS as _UNSUPPORTED_FUNCTIONS  # noqa: E402

globals().update(_UNSUPPORTED_FUNCTIONS)
