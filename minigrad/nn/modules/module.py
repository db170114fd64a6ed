"""``torch.nn.modules.module``: ``Module`` (defined in ``minigrad/nn/module.py``)."""
from ..module import Module

__all__ = ["Module"]
