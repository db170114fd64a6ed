"""``torch.nn.modules.linear``: ``Linear`` and ``Identity``."""
from ..activation import Identity
from ..layers import Linear

__all__ = ["Linear", "Identity"]
