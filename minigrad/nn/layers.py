"""Layers: Linear, activations, and Sequential."""
from __future__ import annotations

import math
from typing import Iterator

import numpy as np

from .. import factories
from ..tensor import Tensor
from ..types import float32
from . import functional as F
from .module import Module
from .parameter import Parameter


def _uniform(shape: tuple, bound: float, dtype) -> Parameter:
    values = factories._generator.uniform(-bound, bound, size=shape).astype((dtype or float32).numpy)
    return Parameter(Tensor._make(values))


class Linear(Module):
    """``y = x @ weight.T + bias``, initialised uniformly in ``±1/sqrt(in_features)`` as in PyTorch.

    >>> import minigrad as torch
    >>> layer = torch.nn.Linear(5, 3)
    >>> layer
    Linear(in_features=5, out_features=3, bias=True)
    >>> layer(torch.ones(2, 5)).shape
    torch.Size([2, 3])
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        bound = 1 / math.sqrt(in_features) if in_features > 0 else 0
        self.weight = _uniform((out_features, in_features), bound, dtype)
        if bias:
            self.bias = _uniform((out_features,), bound, dtype)
        else:
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class ReLU(Module):
    """max(0, x), element-wise."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return input.relu_() if self.inplace else input.relu()

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Tanh(Module):
    def forward(self, input: Tensor) -> Tensor:
        return input.tanh()


class Sigmoid(Module):
    def forward(self, input: Tensor) -> Tensor:
        return input.sigmoid()


class MSELoss(Module):
    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, self.reduction)


class CrossEntropyLoss(Module):
    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(input, target, self.reduction)


class NLLLoss(Module):
    """``nll_loss`` as a layer: takes log-probabilities and integer class labels."""

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100, reduction: str = "mean") -> None:
        super().__init__()
        self.weight, self.ignore_index, self.reduction = weight, ignore_index, reduction

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction)


class Sequential(Module):
    """Modules applied one after the other; they are named ``'0'``, ``'1'``, ...

    >>> import minigrad as torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(2, 4), torch.nn.ReLU())
    >>> [name for name, _ in net.named_parameters()]
    ['0.weight', '0.bias']
    """

    def __init__(self, *modules: Module) -> None:
        super().__init__()
        for index, module in enumerate(modules):
            self.add_module(str(index), module)

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input

    def __getitem__(self, index: int) -> Module:
        return list(self._modules.values())[index]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())
