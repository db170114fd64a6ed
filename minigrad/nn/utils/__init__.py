"""``torch.nn.utils``: gradient clipping, and parameters flattened into one vector.

>>> import minigrad as torch
>>> p = torch.nn.Parameter(torch.tensor([3.0, 4.0]))
>>> p.grad = torch.tensor([3.0, 4.0])
>>> torch.nn.utils.clip_grad_norm_([p], max_norm=1.0)
tensor(5.)
>>> p.grad
tensor([0.6000, 0.8000])
"""
from __future__ import annotations

import math

from . import rnn

from ... import factories
from ...grad_mode import no_grad
from ...ops import cat
from ...tensor import Tensor


def _as_list(parameters) -> list:
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach=None) -> Tensor:
    """Scale the gradients in place so that their joint ``norm_type``-norm is at most ``max_norm``
    (multiplied by ``max_norm / (norm + 1e-6)`` when it is larger); returns that norm."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    norm_type = float(norm_type)
    if not grads:
        return factories.tensor(0.0)
    with no_grad():
        norms = [g.detach().norm(norm_type) for g in grads]
        total = norms[0] if len(norms) == 1 else _joint_norm(norms, norm_type)
        if error_if_nonfinite and not math.isfinite(total.item()):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot "
                "be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
                "`error_if_nonfinite=False`")
        scale = (max_norm / (total + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(scale.to(g.dtype))
    return total


def _joint_norm(norms: list, norm_type: float) -> Tensor:
    from ...ops import stack
    return stack(norms).norm(norm_type)


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every gradient in place to ``[-clip_value, clip_value]``."""
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(-clip_value, clip_value)


def parameters_to_vector(parameters) -> Tensor:
    """All parameters flattened and concatenated into one vector (differentiable, a CatBackward0)."""
    return cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Copy consecutive pieces of ``vec`` into the parameters' data."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    start = 0
    for p in parameters:
        count = p.numel()
        p.data = vec[start:start + count].view_as(p).data
        start += count


__all__ = ["rnn", "clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters"]
