"""Dropout: zeroes random elements while the module is training, and does nothing in eval mode.

>>> import minigrad as torch
>>> drop = torch.nn.Dropout(0.5)
>>> drop
Dropout(p=0.5, inplace=False)
>>> x = torch.ones(4)
>>> drop.eval()(x) is x
True
"""
from __future__ import annotations

from ..tensor import Tensor
from . import functional as F
from .module import Module


class Dropout(Module):
    """During training each element is zeroed with probability ``p``; the rest are scaled by ``1/(1-p)``."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"
