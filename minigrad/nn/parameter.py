"""Parameter: a tensor that a Module registers as learnable when it is set as an attribute; Buffer:
one that it registers as state (``register_buffer``)."""
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


class _BufferMeta(type):
    def __instancecheck__(cls, instance) -> bool:   # a Buffer is a plain tensor carrying a mark
        return isinstance(instance, Tensor) and instance.__dict__.get("_is_buffer", False)


class Buffer(Tensor, metaclass=_BufferMeta):
    """A tensor that a Module registers as a buffer when it is set as an attribute (``self.mean =
    nn.Buffer(torch.zeros(3))`` is ``self.register_buffer("mean", torch.zeros(3))``). As in PyTorch,
    it is the data itself, detached (a plain Tensor) and marked, so that the module stores that very tensor.

    >>> import minigrad as torch
    >>> model = torch.nn.Module()
    >>> model.mean = torch.nn.Buffer(torch.zeros(2))
    >>> model.scratch = torch.nn.Buffer(torch.ones(1), persistent=False)
    >>> list(model.state_dict()), [name for name, _ in model.named_buffers()], type(model.mean).__name__
    (['mean'], ['mean', 'scratch'], 'Tensor')
    """

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Tensor:
        from ..factories import empty
        data = empty(0) if data is None else data
        if not isinstance(data, Tensor):   # PyTorch calls data.detach() here
            raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
        buffer = data.detach().requires_grad_(data.requires_grad)
        buffer.persistent = persistent
        buffer._is_buffer = True
        return buffer
