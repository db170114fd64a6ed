"""minigrad.nn: Module (and ``self``), Parameter, layers and losses."""
from . import functional
from .layers import CrossEntropyLoss, Linear, MSELoss, ReLU, Sequential, Sigmoid, Tanh
from .module import Module
from .parameter import Parameter

__all__ = ["Module", "Parameter", "Linear", "ReLU", "Tanh", "Sigmoid", "Sequential", "MSELoss",
           "CrossEntropyLoss", "functional"]
