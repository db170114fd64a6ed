"""The backward graph: nodes, their edges, and the AccumulateGrad nodes at the leaves.

Every tensor made by an operation that records history points at a node (``tensor.grad_fn``).
A node knows where to send gradients next through ``next_functions``: one ``(node, input_nr)``
pair per tensor input, ``(None, 0)`` for an input that needs no gradient. A leaf that requires
grad is reached through an ``AccumulateGrad`` node whose ``variable`` is the leaf itself.

>>> import minigrad as torch
>>> x = torch.ones(3, requires_grad=True)
>>> y = x * 3
>>> y.grad_fn.name()
'MulBackward0'
>>> acc, _ = y.grad_fn.next_functions[0]
>>> acc.variable is x
True
"""
from __future__ import annotations

import itertools
from typing import Any, Callable

# Nodes are numbered in creation order. The engine runs later nodes first, as PyTorch's does.
_sequence_numbers = itertools.count()
ACCUMULATE_GRAD_SEQUENCE_NR = 2**63  # PyTorch runs AccumulateGrad as soon as it is ready


class RemovableHandle:
    """Returned by ``register_hook``; ``handle.remove()`` unregisters the hook."""

    __slots__ = ("_hooks", "_hook")

    def __init__(self, hooks: list, hook: Callable) -> None:
        self._hooks, self._hook = hooks, hook

    def remove(self) -> None:
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


class Node:
    """A node of the backward graph: it turns gradients of its outputs into gradients of its inputs."""

    next_functions: tuple = ()
    _pre_hooks: list | None = None
    _post_hooks: list | None = None
    _tensor_pre_hooks: dict | None = None  # output_nr -> hooks registered on the output tensor
    _retain_grad_tensors: dict | None = None  # output_nr -> weak reference to a retain_grad() tensor
    _metadata: dict | None = None

    def name(self) -> str:
        """The node's name, e.g. ``'MulBackward0'`` or ``'MulConstantBackward'``."""
        return type(self).__name__

    @property
    def metadata(self) -> dict:
        """A dictionary free for your own use (PyTorch offers the same)."""
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def register_hook(self, fn: Callable[[tuple, tuple], Any]) -> RemovableHandle:
        """Call ``fn(grad_inputs, grad_outputs)`` after this node's backward.

        If ``fn`` returns a tuple, it replaces ``grad_inputs``.
        """
        if self._post_hooks is None:
            self._post_hooks = []
        self._post_hooks.append(fn)
        return RemovableHandle(self._post_hooks, fn)

    def register_prehook(self, fn: Callable[[tuple], Any]) -> RemovableHandle:
        """Call ``fn(grad_outputs)`` before this node's backward; a returned tuple replaces them."""
        if self._pre_hooks is None:
            self._pre_hooks = []
        self._pre_hooks.append(fn)
        return RemovableHandle(self._pre_hooks, fn)

    def _add_tensor_pre_hook(self, output_nr: int, fn: Callable) -> RemovableHandle:
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        hooks = self._tensor_pre_hooks.setdefault(output_nr, [])
        hooks.append(fn)
        return RemovableHandle(hooks, fn)


class AccumulateGrad(Node):
    """The node that adds an incoming gradient into a leaf tensor's ``.grad``.

    It has no next functions: the leaf is where backward stops.
    """

    _sequence_nr = ACCUMULATE_GRAD_SEQUENCE_NR
    _output_info = (None,)   # one incoming gradient slot

    def __init__(self, variable) -> None:
        self.variable = variable

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {hex(id(self))}>"

    def accumulate(self, grad, create_graph: bool) -> None:
        """Add ``grad`` into ``variable.grad`` (the engine calls this once backward has succeeded)."""
        variable = self.variable
        old = variable._grad
        if old is None:
            # Copy unless the graph must stay differentiable: the same gradient tensor may have
            # been handed to several leaves, and ``.grad`` is later updated in place.
            variable._grad = grad if create_graph else grad._detached_copy()
        elif create_graph or old.requires_grad:
            variable._grad = old + grad
        else:
            old._accumulate_in_place(grad)
