"""``torch.nn.modules.loss``: the loss layers."""
from ..layers import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, MSELoss, NLLLoss

__all__ = ["MSELoss", "NLLLoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss"]
