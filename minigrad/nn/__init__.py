"""minigrad.nn: Module (and ``self``), Parameter, layers and losses."""
from . import functional, init, modules, parameter, utils
from .activation import ELU, Hardtanh, Identity, LeakyReLU, LogSoftmax, Softmax, Softplus
from .dropout import Dropout
from .embedding import Embedding
from .layers import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, Linear, MSELoss, NLLLoss, ReLU, Sequential, Sigmoid,
                     Tanh)
from .module import Module
from .parameter import Buffer, Parameter
from .unsupported import LAYERS as _UNSUPPORTED_LAYERS

from ..inventory import module_getattr

globals().update(_UNSUPPORTED_LAYERS)   # nn.Conv2d, nn.MaxPool2d, nn.BatchNorm1d...: NotImplementedError when built

__all__ = ["Module", "Parameter", "Buffer", "Linear", "ReLU", "Tanh", "Sigmoid", "LeakyReLU", "ELU", "Softmax",
           "LogSoftmax", "Identity", "Hardtanh", "Softplus", "Dropout", "Sequential", "MSELoss", "NLLLoss",
           "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss", "Embedding", "functional", "init", "modules",
           "parameter", "utils"]

# A PyTorch name these modules lack raises NotImplementedError with the reason (minigrad/inventory/).
__getattr__ = module_getattr("torch.nn")
functional.__getattr__ = module_getattr("torch.nn.functional")
