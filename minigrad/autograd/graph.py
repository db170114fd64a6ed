"""The backward graph: nodes, their edges, and the AccumulateGrad nodes at the leaves.

Every tensor made by an operation that records history points at a node (``tensor.grad_fn``).
A node knows where to send gradients next through ``next_functions``: one ``(node, input_nr)``
pair per tensor input, ``(None, 0)`` for an input that needs no gradient. A leaf that requires
grad is reached through an ``AccumulateGrad`` node whose ``variable`` is the leaf itself.
Beyond PyTorch's public names (``name()``, ``next_functions``, ``metadata``, hooks), what a node
can tell (its Function, its saved tensors, what forward marked) is asked through ``node_info``.

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
import operator
from typing import Any, Callable

from ..inventory import not_writable

# Nodes are numbered in creation order. The engine runs later nodes first, as PyTorch's does.
_sequence_numbers = itertools.count()
ACCUMULATE_GRAD_SEQUENCE_NR = 2**64 - 1   # PyTorch's UINT64_MAX: AccumulateGrad runs as soon as it is ready


class RemovableHandle:
    """Returned by ``register_hook``; ``handle.remove()`` unregisters that one registration.

    Hooks live in a dict keyed by a number unique to each registration, so registering the same
    function twice gives two handles that each remove their own entry. Removing a hook while
    backward runs takes effect from the next backward: the engine walks a snapshot of the hooks.
    As in PyTorch, a handle is also a context manager: ``with t.register_hook(fn):`` removes the
    hook at the end of the block. ``extra_dict`` is a second dict the registration is entered in and
    removed from (PyTorch's handle has the same parameter, but there the caller enters it).
    """

    __slots__ = ("_hooks", "_id", "_extra_dict")
    _next_id = itertools.count()

    def __init__(self, hooks: dict, hook: Callable, *, extra_dict: dict | None = None) -> None:
        self._hooks, self._id, self._extra_dict = hooks, next(RemovableHandle._next_id), extra_dict
        hooks[self._id] = hook
        if extra_dict is not None:
            extra_dict[self._id] = hook

    def remove(self) -> None:
        self._hooks.pop(self._id, None)
        if self._extra_dict is not None:
            self._extra_dict.pop(self._id, None)

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc_info) -> None:
        self.remove()


def read_only(name: str, getter: Callable, doc: str) -> property:
    """A node attribute that can be read, never set or deleted, with PyTorch's error text.

    (A property, not a ``__setattr__``/``__delattr__``: a class that defines those makes CPython
    write every attribute of its instances the slow way, a few percent of a training step.)
    """
    def refuse(self, *value):
        raise not_writable(self, name)
    return property(getter, refuse, refuse, doc)


class Node:
    """A node of the backward graph: it turns gradients of its outputs into gradients of its inputs."""

    _next_functions: tuple = ()   # set once, when the node is recorded (_connect_to_inputs, views._new_node)
    next_functions = read_only("next_functions", operator.attrgetter("_next_functions"),
                               "One ``(node, input_nr)`` per tensor input: where its gradient goes next.")
    _pre_hooks: dict | None = None     # registration id -> hook, in registration order
    _post_hooks: dict | None = None
    _tensor_pre_hooks: dict | None = None  # output_nr -> hooks registered on the output tensor
    _retain_grad_tensors: dict | None = None  # output_nr -> weak reference to a retain_grad() tensor
    _metadata: dict | None = None
    _skips_without_gradients = False   # builtin nodes: no gradient in, no gradient out
    _class_in_errors: str | None = None   # PyTorch's C++ class, where its error texts name that, not the node's

    def name(self) -> str:
        """The node's name, e.g. ``'MulBackward0'`` or ``'MulConstantBackward'``."""
        return type(self).__name__

    def _get_metadata(self) -> dict:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    metadata = read_only("metadata", _get_metadata, "A dictionary free for your own use (PyTorch offers the same).")

    def register_hook(self, fn: Callable[[tuple, tuple], Any]) -> RemovableHandle:
        """Call ``fn(grad_inputs, grad_outputs)`` after this node's backward.

        If ``fn`` returns a tuple, it replaces ``grad_inputs``.
        """
        if self._post_hooks is None:
            self._post_hooks = {}
        return RemovableHandle(self._post_hooks, fn)

    def register_prehook(self, fn: Callable[[tuple], Any]) -> RemovableHandle:
        """Call ``fn(grad_outputs)`` before this node's backward; a returned tuple replaces them."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        return RemovableHandle(self._pre_hooks, fn)

    def _add_tensor_pre_hook(self, output_nr: int, fn: Callable) -> RemovableHandle:
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        return RemovableHandle(self._tensor_pre_hooks.setdefault(output_nr, {}), fn)


class AccumulateGrad(Node):
    """The node that adds an incoming gradient into a leaf tensor's ``.grad``.

    It has no next functions: the leaf is where backward stops.
    """

    _sequence_nr = ACCUMULATE_GRAD_SEQUENCE_NR
    _output_info = (None,)   # one gradient arrives (the leaf's): the engine makes its buffer one slot long

    def __init__(self, variable) -> None:
        self.variable = variable

    def __delattr__(self, name: str) -> None:   # PyTorch's node: nothing can be deleted
        if name in ("variable", "next_functions", "metadata"):
            raise not_writable(self, name)
        raise AttributeError(f"'AccumulateGrad' object has no attribute '{name}'")

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {hex(id(self))}>"

    def accumulate(self, grad, create_graph: bool, sole_owner: bool = False) -> None:
        """Add ``grad`` into ``variable.grad`` (the engine calls this once backward has succeeded).

        >>> import minigrad as torch
        >>> x = torch.ones(2, requires_grad=True)
        >>> (x * 3).sum().backward()      # x.grad was None: it becomes the gradient
        >>> (x * 3).sum().backward()      # now the gradient is added into it
        >>> x.grad
        tensor([6., 6.])
        """
        variable = self.variable
        if not (variable._requires_grad or variable._node is not None):   # variable.requires_grad
            return   # detached in place (detach_()) since the graph was made: PyTorch gives it no gradient
        if variable._grad is None:
            variable._grad = _first_gradient(grad, create_graph, sole_owner)
        elif create_graph or variable._grad.is_sparse:
            variable._grad = _sum_out_of_place(variable._grad, grad)
        else:   # in place, as PyTorch, whoever else holds .grad (even a .grad that requires grad)
            variable._grad._accumulate_in_place(grad)   # no new tensor on every backward
        if variable._post_accumulate_grad_hooks:
            _call_post_accumulate_grad_hooks(variable)


def _call_post_accumulate_grad_hooks(variable) -> None:
    """``register_post_accumulate_grad_hook``: each hook gets the leaf once its ``.grad`` is written."""
    for hook in list(variable._post_accumulate_grad_hooks.values()):
        if hook(variable) is not None:
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")


def increment_version(tensor) -> None:
    """Bump the version counter of ``tensor`` (or of each tensor of an iterable), as an in-place
    change would: a saved tensor changed behind autograd's back (by numpy, say) is then caught.

    >>> import minigrad as torch
    >>> a = torch.ones(2)
    >>> torch.autograd.graph.increment_version(a); a._version
    1
    """
    from ..tensor import Tensor
    if isinstance(tensor, Tensor):
        tensor = (tensor,)
    elif not hasattr(tensor, "__iter__"):
        raise RuntimeError("increment_version expect a Iterable[Tensor] as input")
    for t in tensor:
        t._version_counter.value += 1


def _sum_out_of_place(old, grad):
    """A gradient already there plus a new one, as a new tensor: a ``.grad`` that may not be changed
    in place (part of a graph, ``create_graph=True``, or sparse), or the gradient waiting in the
    engine's buffer. Sparse plus dense is computed as dense plus sparse, which is dense (PyTorch's
    ``new_grad + variable_grad``; it refuses ``sparse + dense``)."""
    if old.is_sparse and not grad.is_sparse:
        return grad + old
    return old + grad


def _first_gradient(grad, create_graph: bool, sole_owner: bool):
    """What ``.grad`` becomes when it was None: ``grad`` itself, or a copy of it.

    The engine passes ``sole_owner=True`` when nothing else holds ``grad`` (``engine._nobody_else_holds``):
    then no copy is needed, as in PyTorch. Otherwise the same gradient tensor may have been handed to
    several leaves, or kept by a hook, and ``.grad`` is later updated in place: it gets a copy. With
    ``create_graph=True`` the copy is itself recorded, so ``.grad`` stays differentiable.
    """
    if create_graph:
        return _recorded_copy(grad)
    if sole_owner:   # detach() gives a view a new tensor without _view_base: .grad is not a view of anything
        return grad if grad._view_base is None else grad.detach()
    return grad._detached_copy()


def _recorded_copy(grad):
    """``torch.empty_like(grad).copy_(grad)`` while grad mode is on: a copy whose grad_fn is ``copy_``'s
    node, named ``CopyBackwards`` as PyTorch names the node of this copy."""
    return grad._detached_copy().copy_(grad)
