"""``torch.nn.modules.container``: ``Sequential``."""
from ..layers import Sequential

__all__ = ["Sequential"]
