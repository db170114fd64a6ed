"""``torch.nn.modules.dropout``: ``Dropout``."""
from ..dropout import Dropout

__all__ = ["Dropout"]
