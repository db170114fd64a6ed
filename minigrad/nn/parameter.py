"""Parameter: a tensor that a Module registers as learnable when it is set as an attribute."""
from __future__ import annotations

from ..tensor import Tensor


class Parameter(Tensor):
    """A leaf tensor that requires grad by default and that ``Module`` collects automatically.

    >>> import minigrad as torch
    >>> w = torch.nn.Parameter(torch.ones(2))
    >>> w
    Parameter containing:
    tensor([1., 1.], requires_grad=True)
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> "Parameter":
        from ..factories import empty
        data = empty(0) if data is None else data
        if not isinstance(data, Tensor):   # PyTorch calls data.detach() here
            raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
        parameter = cls._make(data._data)   # shares memory with data, as in PyTorch
        parameter.requires_grad = requires_grad
        return parameter

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()
