"""``torch.nn.modules.loss``: the loss layers."""
from ..layers import CrossEntropyLoss, MSELoss, NLLLoss

__all__ = ["MSELoss", "NLLLoss", "CrossEntropyLoss"]
