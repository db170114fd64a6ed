"""Layers: Linear, activations, and Sequential."""
from __future__ import annotations

import math
import operator
from collections import OrderedDict
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


class _Loss(Module):
    """Base of the loss layers: the reduction ("mean", "sum" or "none"), or what the legacy
    ``size_average`` and ``reduce`` arguments ask for (with PyTorch's warning)."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = F._reduction(size_average, reduce, reduction)


class _WeightedLoss(_Loss):
    """A loss with class weights, kept as a buffer ``weight`` (None without)."""

    def __init__(self, weight: Tensor | None = None, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """``cross_entropy`` as a layer: class scores against labels or class probabilities."""

    def __init__(self, weight: Tensor | None = None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class NLLLoss(_WeightedLoss):
    """``nll_loss`` as a layer: takes log-probabilities and integer class labels."""

    def __init__(self, weight: Tensor | None = None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction)


class BCELoss(_WeightedLoss):
    """``binary_cross_entropy`` as a layer: probabilities against targets in [0, 1]."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """``binary_cross_entropy_with_logits`` as a layer; ``weight`` and ``pos_weight`` are buffers."""

    def __init__(self, weight: Tensor | None = None, size_average=None, reduce=None, reduction: str = "mean",
                 pos_weight: Tensor | None = None) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(input, target, self.weight, pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class Sequential(Module):
    """Modules applied one after the other; they are named ``'0'``, ``'1'``, ... (or by the keys of
    an OrderedDict). It changes like a list: ``net[0] = layer``, ``del net[1]``, ``append``,
    ``insert``, ``extend``, ``pop``, ``+`` and ``*``; the modules keep numbers 0, 1, 2... in order.

    >>> import minigrad as torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(2, 4), torch.nn.ReLU())
    >>> [name for name, _ in net.named_parameters()]
    ['0.weight', '0.bias']
    >>> net.insert(0, torch.nn.Tanh()).pop(1)
    Linear(in_features=2, out_features=4, bias=True)
    >>> net
    Sequential(
      (0): Tanh()
      (1): ReLU()
    )
    """

    def __init__(self, *modules) -> None:
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            for name, module in modules[0].items():
                self.add_module(name, module)
        else:
            for index, module in enumerate(modules):
                self.add_module(str(index), module)

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input

    def _key(self, index) -> str:
        """The name of the module at position ``index`` (negative counts from the end)."""
        size = len(self._modules)
        index = operator.index(index)
        if not -size <= index < size:
            raise IndexError(f"index {index} is out of range")
        return list(self._modules)[index % size]

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)(OrderedDict(list(self._modules.items())[index]))
        return self._modules[self._key(index)]

    def __setitem__(self, index, module: Module) -> None:
        setattr(self, self._key(index), module)

    def __delitem__(self, index) -> None:
        keys = list(self._modules)[index] if isinstance(index, slice) else [self._key(index)]
        for key in keys:
            delattr(self, key)
        self._modules = OrderedDict((str(i), module) for i, module in enumerate(self._modules.values()))   # renumber

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __dir__(self):
        return [name for name in super().__dir__() if not name.isdigit()]

    def append(self, module: Module) -> "Sequential":
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module: Module) -> "Sequential":
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        size = len(self._modules)
        if not -size <= index <= size:
            raise IndexError(f"Index out of range: {index}")
        index = index + size if index < 0 else index
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._modules = OrderedDict((str(i), m) for i, m in enumerate(modules))
        return self

    def extend(self, modules) -> "Sequential":
        for module in modules:
            self.append(module)
        return self

    def pop(self, index) -> Module:
        module = self[index]
        del self[index]
        return module

    def __add__(self, other: "Sequential") -> "Sequential":
        _check_sequential(other)
        return Sequential().extend(self).extend(other)

    def __iadd__(self, other: "Sequential") -> "Sequential":
        _check_sequential(other)
        return self.extend(list(other))

    def __mul__(self, times: int) -> "Sequential":
        _check_factor(self, times)
        return Sequential().extend(list(self) * times)

    __rmul__ = __mul__

    def __imul__(self, times: int) -> "Sequential":
        _check_factor(self, times)
        return self.extend(list(self) * (times - 1))


def _check_sequential(other) -> None:
    if not isinstance(other, Sequential):
        raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")


def _check_factor(sequential: Sequential, times) -> None:
    if not isinstance(times, int):
        raise TypeError(f"unsupported operand type(s) for *: {type(sequential)} and {type(times)}")
    if times <= 0:
        raise ValueError(f"Non-positive multiplication factor {times} for {type(sequential)}")
