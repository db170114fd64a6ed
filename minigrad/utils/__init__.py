"""``torch.utils``: only ``torch.utils.data`` (datasets and the loader that batches them)."""
from . import data

__all__ = ["data"]
