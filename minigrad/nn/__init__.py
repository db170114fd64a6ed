"""minigrad.nn: Module (and ``self``), Parameter, layers and losses."""
from . import functional, init
from .activation import ELU, Identity, LeakyReLU, LogSoftmax, Softmax
from .dropout import Dropout
from .layers import CrossEntropyLoss, Linear, MSELoss, NLLLoss, ReLU, Sequential, Sigmoid, Tanh
from .module import Module
from .parameter import Parameter

__all__ = ["Module", "Parameter", "Linear", "ReLU", "Tanh", "Sigmoid", "LeakyReLU", "ELU", "Softmax", "LogSoftmax",
           "Identity", "Dropout", "Sequential", "MSELoss", "NLLLoss", "CrossEntropyLoss", "functional", "init"]
