"""minigrad.optim: SGD (with momentum) and Adam. ``step()`` updates parameters in place under no_grad.

>>> import minigrad as torch
>>> w = torch.nn.Parameter(torch.tensor([1.0]))
>>> opt = torch.optim.SGD([w], lr=0.1)
>>> (w * w).sum().backward(); opt.step(); w
Parameter containing:
tensor([0.8000], requires_grad=True)
"""
from __future__ import annotations

import math
from typing import Iterable

from .. import grad_mode
from ..tensor import Tensor


class Optimizer:
    """Holds parameter groups (lists of parameters with their own settings) and updates them."""

    def __init__(self, params: Iterable, defaults: dict) -> None:
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        groups = params if isinstance(params[0], dict) else [{"params": params}]
        self.defaults = defaults
        self.param_groups = [{**defaults, **group, "params": list(group["params"])} for group in groups]
        self.state: dict = {}

    def zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is not None:
                    if set_to_none:
                        p._grad = None
                    else:
                        p._grad.zero_()

    def _state(self, p: Tensor) -> dict:
        return self.state.setdefault(p, {})


class SGD(Optimizer):
    """Stochastic gradient descent: ``p -= lr * g``, with optional momentum and weight decay."""

    def __init__(self, params, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False) -> None:
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov))

    @grad_mode.no_grad()
    def step(self, closure=None):
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
            for p in group["params"]:
                if p._grad is None:
                    continue
                d_p = p._grad
                if group["weight_decay"]:
                    d_p = d_p + group["weight_decay"] * p
                if momentum:
                    state = self._state(p)
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = state["momentum_buffer"] = d_p.clone()
                    else:
                        buf.mul_(momentum).add_(d_p, alpha=1 - dampening)
                    d_p = d_p + momentum * buf if group["nesterov"] else buf
                p.add_(d_p, alpha=-lr)
        return loss


class Adam(Optimizer):
    """Adam: steps scaled by running averages of the gradient and of its square."""

    def __init__(self, params, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0) -> None:
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    @grad_mode.no_grad()
    def step(self, closure=None):
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p._grad is None:
                    continue
                grad = p._grad
                if group["weight_decay"]:
                    grad = grad + group["weight_decay"] * p
                state = self._state(p)
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = Tensor._zeros(tuple(p.shape), p.dtype)
                    state["exp_avg_sq"] = Tensor._zeros(tuple(p.shape), p.dtype)
                state["step"] += 1
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                exp_avg_sq.mul_(beta2).add_(grad * grad, alpha=1 - beta2)
                bias_correction1 = 1 - beta1 ** state["step"]
                bias_correction2 = 1 - beta2 ** state["step"]
                denom = exp_avg_sq.sqrt() / math.sqrt(bias_correction2) + group["eps"]
                p.add_(exp_avg / denom, alpha=-group["lr"] / bias_correction1)
        return loss


__all__ = ["Optimizer", "SGD", "Adam"]
