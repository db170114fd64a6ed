"""``torch.nn.modules``: where PyTorch keeps its layers, one submodule per family. Code written
against those paths (``from torch.nn.modules.module import Module``) finds minigrad's here; the
classes are the ones ``minigrad.nn`` exports.

>>> import minigrad
>>> from minigrad.nn.modules.module import Module
>>> Module is minigrad.nn.Module
True
"""
from . import activation, container, dropout, linear, loss, module, sparse
from .activation import ELU, Identity, LeakyReLU, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .container import Sequential
from .dropout import Dropout
from .linear import Linear
from .loss import CrossEntropyLoss, MSELoss, NLLLoss
from .module import Module
from .sparse import Embedding

__all__ = ["Module", "Linear", "Identity", "ReLU", "Tanh", "Sigmoid", "LeakyReLU", "ELU", "Softmax", "LogSoftmax",
           "Dropout", "Sequential", "MSELoss", "NLLLoss", "CrossEntropyLoss", "Embedding"]
