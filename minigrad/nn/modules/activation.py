"""``torch.nn.modules.activation``: the activation layers."""
from ..activation import ELU, Hardtanh, Identity, LeakyReLU, LogSoftmax, Softmax, Softplus
from ..layers import ReLU, Sigmoid, Tanh

__all__ = ["ReLU", "Tanh", "Sigmoid", "LeakyReLU", "ELU", "Softmax", "LogSoftmax", "Identity", "Hardtanh", "Softplus"]
