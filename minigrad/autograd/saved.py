"""Saved tensors: what ``ctx.save_for_backward`` keeps, and the checks made when backward reads it.

Saving through ``save_for_backward`` (instead of ``ctx.x = x``) buys three things:

1. **A version check.** Every tensor has a version counter that each in-place change bumps. The
   saved record remembers the version at save time; reading ``ctx.saved_tensors`` later compares,
   and refuses a tensor that was modified in between (its old values are gone).
2. **Freeing.** After backward has used a node, its saved tensors are released (unless
   ``retain_graph=True``), so the memory goes away with the graph.
3. **No reference cycle for outputs.** An output saved for backward is stored without its
   ``grad_fn`` and rebuilt on unpacking, so ``output -> node -> output`` never forms a loop.

>>> import minigrad as torch
>>> a = torch.ones(2, requires_grad=True)
>>> b = a * a            # MulBackward0 saves a (twice)
>>> with torch.no_grad():
...     _ = a.add_(1)    # bumps a's version from 0 to 1
>>> try:
...     b.sum().backward()
... except RuntimeError as e:
...     print(str(e)[:72])
one of the variables needed for gradient computation has been modified b
"""
from __future__ import annotations

import re

BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward.")

DETACHED_IN_PLACE = ("Trying to use a saved tensor that has been detached in-place, i.e. with .detach_().This is not "
                     "supported, please use out-of-place `.detach()` instead")


class SavedTensor:
    """One tensor saved for backward, with the version it had when it was saved."""

    __slots__ = ("tensor", "version", "is_output", "output_nr", "had_grad_fn")

    def __init__(self, tensor, is_output: bool) -> None:
        if is_output:
            # Keep a grad_fn-free alias sharing data and version counter; it must not point back
            # at the output through ``_view_base`` either, or output -> node -> alias -> output is a cycle
            # (nor at a view's base: base -> CopySlices -> node -> alias -> base).
            alias = tensor._alias()
            alias._view_base = None
            self.tensor, self.output_nr, self.had_grad_fn = alias, tensor._output_nr, False
        else:   # had_grad_fn: made by an operation, saved as an input
            self.tensor, self.output_nr, self.had_grad_fn = tensor, 0, tensor._node is not None
        self.version = tensor._version_counter.value
        self.is_output = is_output

    def unpack(self, node):
        tensor = self.tensor
        if self.had_grad_fn and tensor._node is None:
            raise RuntimeError(DETACHED_IN_PLACE)   # its history was cut by detach_() after it was saved
        if tensor._version_counter.value != self.version:
            raise RuntimeError(modified_message(tensor, self.version, node if self.is_output else None))
        if self.is_output:
            return tensor._alias(grad_fn=node, output_nr=self.output_nr)
        return tensor

    @property
    def nbytes(self) -> int:
        return self.tensor._data.nbytes


def _op_name(node) -> str:
    """The spelling PyTorch uses in the message below: ``'AddBackward0'`` -> ``'Add'``, but
    ``'MinBackward1'`` -> ``'Min1'`` (only a final 0 goes with "Backward").

    >>> import minigrad as torch
    >>> _op_name(torch.ones(2, requires_grad=True).min().grad_fn)
    'Min1'
    """
    return re.sub(r"Backward(0$)?", "", node.name())


def modified_message(tensor, expected_version: int, owner=None) -> str:
    """PyTorch's error text for a saved tensor that was changed in place after it was saved."""
    shape = ", ".join(str(n) for n in tensor.shape)
    grad_fn = owner if owner is not None else tensor.grad_fn
    which = f", which is output {tensor._output_nr} of {_op_name(grad_fn)}," if grad_fn is not None else ""
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [{_type_name(tensor)} [{shape}]]{which} is at version "
        f"{tensor._version_counter.value}; expected version {expected_version} instead. Hint: enable "
        "anomaly detection to find the operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False).")


def _type_name(tensor) -> str:
    """How PyTorch's message names the tensor's type: ``torch.FloatTensor``, but ``CPUBoolType`` for bool."""
    legacy = tensor.dtype.legacy_name
    return "CPUBoolType" if legacy == "BoolTensor" else f"torch.{legacy}"
