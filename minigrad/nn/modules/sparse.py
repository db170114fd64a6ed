"""``torch.nn.modules.sparse``: ``Embedding`` (PyTorch files it under "sparse")."""
from ..embedding import Embedding

__all__ = ["Embedding"]
