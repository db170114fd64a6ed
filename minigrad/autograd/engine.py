"""The backward engine: walks the graph from the outputs and calls each node's backward once.

Two passes, no recursion (a chain of 100,000 operations is fine):

1. **Discover.** From the output's ``grad_fn``, follow ``next_functions`` and count, for each node,
   how many edges point at it (its dependencies).
2. **Execute.** A node is ready once every edge into it has delivered its gradient, so a reused
   intermediate receives the *sum* of its gradients before its own backward runs. Among the ready
   nodes, the most recently created runs first (as in PyTorch's engine).

Gradients for leaves are collected and written into ``.grad`` only after the whole pass
succeeded: a backward that fails half-way leaves every ``.grad`` as it was.

>>> import minigrad as torch
>>> x = torch.tensor([2.0], requires_grad=True)
>>> y = x * x          # y is used twice below
>>> z = y + y
>>> z.backward(); x.grad   # dz/dx = 2 * 2x
tensor([8.])
"""
from __future__ import annotations

import heapq
import itertools
import sys
import threading
from typing import Callable, Sequence

import numpy as np

from .. import grad_mode
from . import anomaly_mode
from ..tensor import Tensor
from ..types import from_numpy_dtype
from .function import BackwardCFunction
from .graph import AccumulateGrad, Node

Observer = Callable[[Node, tuple, tuple], None]


def run_backward(tensors: Sequence[Tensor], grad_tensors: Sequence[Tensor | None],
                 retain_graph: bool | None = None, create_graph: bool = False,
                 inputs: Sequence[Tensor] | None = None,
                 observer: Observer | None = None, accumulate: bool = False) -> tuple | None:
    """Backpropagate from ``tensors``. With ``inputs``, return their gradients instead of
    accumulating into ``.grad`` (this is ``autograd.grad``), or, with ``accumulate=True``,
    accumulate into the ``.grad`` of those inputs only (``backward(inputs=...)``).

    ``observer(node, grad_outputs, grad_inputs)`` is called after each node runs, in order.
    A backward called from inside a backward (reentrant) runs to completion first; every
    ``REENTRANT_DEPTH_PER_THREAD`` nested levels it continues on a fresh thread, as PyTorch's
    engine does, so that thousands of nested levels never hit Python's recursion limit.
    """
    depth = getattr(_thread_state, "depth", 0)
    if depth >= REENTRANT_DEPTH_PER_THREAD:
        return _on_fresh_thread(run_backward, tensors, grad_tensors, retain_graph, create_graph, inputs,
                                observer, accumulate)
    if retain_graph is None:
        retain_graph = create_graph
    previous_mode = grad_mode.state.enabled
    grad_mode.state.enabled = create_graph   # backward is recorded only for higher-order grads
    _thread_state.depth = depth + 1
    callbacks: list = []
    _callback_stack().append(callbacks)
    try:
        roots = _root_gradients(tensors, grad_tensors)
        captures = _capture_points(inputs) if inputs is not None else None
        # PyTorch makes inf and nan silently (0 * inf in a backward formula); numpy would warn.
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            result = _execute(roots, retain_graph, create_graph, captures, inputs, observer, accumulate)
        while callbacks:      # queue_callback: run once this graph task is done, in order
            callbacks.pop(0)()
        return result
    finally:
        _callback_stack().pop()
        _thread_state.depth = depth
        grad_mode.state.enabled = previous_mode


REENTRANT_DEPTH_PER_THREAD = 20
_thread_state = threading.local()   # per thread: reentrant depth and the running graph tasks


def _on_fresh_thread(function: Callable, *args):
    """Run ``function(*args)`` on a new thread and wait: its Python stack starts empty."""
    outcome = {}

    def target():
        try:
            outcome["value"] = function(*args)
        except BaseException as error:  # noqa: BLE001 - re-raised below on the calling thread
            outcome["error"] = error

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def _callback_stack() -> list:
    stack = getattr(_thread_state, "callbacks", None)
    if stack is None:
        stack = _thread_state.callbacks = []
    return stack


def queue_callback(callback: Callable[[], None]) -> None:
    """Run ``callback()`` when the backward pass now running has finished (PyTorch's final callbacks)."""
    stack = _callback_stack()
    if not stack:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    stack[-1].append(callback)


class ExecutionEngine:
    """``Variable._execution_engine``: the object PyTorch code reaches the engine through."""

    queue_callback = staticmethod(queue_callback)

    @staticmethod
    def run_backward(tensors, grad_tensors, keep_graph, create_graph, inputs=(), allow_unreachable=True,
                     accumulate_grad=True):
        return run_backward(tensors, grad_tensors, keep_graph, create_graph, inputs or None,
                            accumulate=bool(inputs) and accumulate_grad)


def _root_gradients(tensors, grad_tensors) -> list:
    roots = []
    for i, (t, g) in enumerate(zip(tensors, grad_tensors)):
        if t.grad_fn is None and not t._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        if g is None:
            if t.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = Tensor._make(np.ones(t._data.shape, dtype=t._data.dtype))
        elif not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        elif g.shape != t.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                               f"output[{i}] has a shape of {t.shape}.")
        node, output_nr = t._gradient_edge()
        roots.append((node, output_nr, g))
    return roots


def _capture_points(inputs) -> dict:
    """For autograd.grad and backward(inputs=...): where each input's gradient is read off the graph."""
    captures = {}
    for index, t in enumerate(inputs):
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        node, output_nr = t._gradient_edge()
        captures.setdefault((node, output_nr), []).append(index)
    return captures


def _discover(root_nodes) -> dict:
    """Count, for every reachable node, the edges that point at it."""
    dependencies = {}
    seen = set(root_nodes)
    stack = list(seen)
    while stack:
        node = stack.pop()
        for next_node, _ in node.next_functions:
            if next_node is None:
                continue
            dependencies[next_node] = dependencies.get(next_node, 0) + 1
            if next_node not in seen:
                seen.add(next_node)
                stack.append(next_node)
    return dependencies


def _needed_nodes(root_nodes, dependencies: dict, captures: dict) -> set:
    """For autograd.grad: the nodes that must run because they lead to one of the inputs.

    A node whose own output gradient is wanted, but which leads to no other input, is not run:
    its gradient is read off as it arrives.
    """
    remaining = dict(dependencies)
    order = [n for n in dict.fromkeys(root_nodes) if remaining.get(n, 0) == 0]
    for node in order:   # Kahn's algorithm: order grows while we walk it
        for next_node, _ in node.next_functions:
            if next_node is not None:
                remaining[next_node] -= 1
                if remaining[next_node] == 0:
                    order.append(next_node)
    wanted = {node for node, _ in captures}
    needed = set()
    for node in reversed(order):
        if any(n in needed or n in wanted for n, _ in node.next_functions if n is not None):
            needed.add(node)
    return needed


def _execute(roots, retain_graph, create_graph, captures, inputs, observer, accumulate):
    root_nodes = [node for node, _, _ in roots]
    dependencies = _discover(root_nodes)
    needed = wanted = None
    if captures is not None:
        needed = _needed_nodes(root_nodes, dependencies, captures)
        wanted = {node for node, _ in captures}
    captured = [None] * len(inputs or ())
    staged = []     # (tensor, gradient, node) written to .grad once everything succeeded

    buffers = {}
    ready = []
    tie = itertools.count()
    for node, output_nr, grad in roots:
        if node not in buffers:
            buffers[node] = [None] * len(node._output_info)
        buffer = buffers[node]
        buffer[output_nr] = grad if buffer[output_nr] is None else buffer[output_nr] + grad
    for node in dict.fromkeys(root_nodes):
        if dependencies.get(node, 0) == 0:
            heapq.heappush(ready, (-node._sequence_nr, next(tie), node))

    while ready:
        _, _, node = heapq.heappop(ready)
        grad_outputs = buffers.pop(node)
        if needed is not None:
            if node not in needed and node not in wanted:
                continue      # leads to no input: not run, and its hooks are not called
            _run_tensor_pre_hooks(node, grad_outputs)
            for slot, grad in enumerate(grad_outputs):
                for index in captures.get((node, slot), ()):
                    captured[index] = grad
                    if accumulate and type(node) is not AccumulateGrad:
                        staged.append((inputs[index], grad, None))   # a non-leaf input: like retain_grad
        elif node._tensor_pre_hooks or (type(node) is AccumulateGrad and node.variable._backward_hooks):
            _run_tensor_pre_hooks(node, grad_outputs)
        if type(node) is AccumulateGrad:
            if captures is None or (accumulate and node in wanted):
                _visit_leaf(node, grad_outputs[0], staged, observer)
            continue
        if needed is not None and node not in needed:
            if accumulate and node._pre_hooks:   # a non-leaf input of backward(inputs=...): hooks still run
                _run_pre_hooks(node, grad_outputs)
            continue
        if grad_outputs[0] is None and node._skips_without_gradients and not node._pre_hooks \
                and all(g is None for g in grad_outputs):
            grad_inputs = (None,) * len(node.next_functions)   # nothing arrived: nothing to send on
        else:
            # Hooks, retain_grad and missing gradients need work; the common case (one gradient, no
            # hooks) skips it.
            if (len(grad_outputs) != 1 or grad_outputs[0] is None
                    or node._retain_grad_tensors or node._pre_hooks):
                grad_outputs = _prepare_grad_outputs(node, grad_outputs, staged)
            if anomaly_mode.state.enabled:
                grad_inputs = _apply_watched(node, grad_outputs)
            else:
                grad_inputs = _validate(node, node.apply(*grad_outputs))
            if node._post_hooks:
                grad_inputs = _run_post_hooks(node, grad_inputs, grad_outputs)
        if not retain_graph:
            node._release_saved()
        if observer is not None:
            observer(node, tuple(grad_outputs), grad_inputs)
        for (next_node, input_nr), grad in zip(node.next_functions, grad_inputs):
            if next_node is None:
                continue
            buffer = buffers.get(next_node)
            if buffer is None:
                buffer = buffers[next_node] = [None] * len(next_node._output_info)
            if grad is not None:
                buffer[input_nr] = grad if buffer[input_nr] is None else buffer[input_nr] + grad
            remaining = dependencies[next_node] - 1
            dependencies[next_node] = remaining
            if remaining == 0:
                heapq.heappush(ready, (-next_node._sequence_nr, next(tie), next_node))

    if captures is not None and not accumulate:
        return tuple(captured)
    grad_outputs = grad_inputs = buffer = None   # drop the last node's references (see _held_only_here)
    for tensor, grad, node in staged:
        if node is None:   # a non-leaf that called retain_grad(), or a non-leaf input of backward(inputs=...)
            AccumulateGrad(tensor).accumulate(grad, create_graph)
            continue
        sole_owner = _held_only_here(grad)   # asked first: an argument list being built holds grad too
        node.accumulate(grad, create_graph, sole_owner)
        if node._post_hooks:   # AccumulateGrad's own hooks see no grad_inputs: a leaf sends nothing on
            _run_post_hooks(node, (), [grad])
    return None


def _held_only_here(grad: Tensor) -> bool:
    """True if no one but this backward pass holds ``grad`` or its memory, so that it may become a
    leaf's ``.grad`` without a copy. PyTorch's AccumulateGrad asks the same of the reference counts.

    The expected references are ``staged``'s tuple, the loop variable in ``_execute``, this
    parameter and ``getrefcount``'s own argument; the array is held by the tensor alone. A view
    qualifies too when its base is held by the view alone (``nn.Linear``'s weight gradient is the
    transpose of a transposed product). Those counts are CPython's up to 3.13 (3.14 may borrow
    references): elsewhere the answer is False.
    """
    if not (_COUNTS_KNOWN and sys.getrefcount(grad) == 4 and sys.getrefcount(grad._data) == 2):
        return False
    flags = grad._data.flags   # .grad is added into in place: no read-only or broadcast memory
    if not flags.writeable or not (flags.c_contiguous or flags.f_contiguous):
        return False
    base = grad._base
    if base is None:
        return grad._data.base is None
    # References to the base: the view's _base, the local name, getrefcount's argument; to its
    # array: the base itself, the view array's .base, getrefcount's argument.
    return (base._base is None and base._data.base is None and grad._data.base is base._data
            and sys.getrefcount(base) == 3 and sys.getrefcount(base._data) == 3)


_COUNTS_KNOWN = sys.implementation.name == "cpython" and sys.version_info < (3, 14)


def _apply_watched(node, grad_outputs: list) -> tuple:
    """Anomaly detection is on: note which node runs, refuse nan, say where a failing node came from."""
    parent, anomaly_mode.state.current_node = anomaly_mode.state.current_node, node
    try:
        grad_inputs = _validate(node, node.apply(*grad_outputs))
        if anomaly_mode.state.check_nan:
            anomaly_mode.check_nan(node, grad_inputs)
        return grad_inputs
    except Exception:
        anomaly_mode.warn_error_in(node)
        raise
    finally:
        anomaly_mode.state.current_node = parent


def _run_tensor_hooks(hooks: dict, grad):
    for hook in tuple(hooks.values()):   # a snapshot: a hook removed meanwhile still runs this time
        result = hook(grad)
        if result is not None:
            grad = result
    return grad


def _run_tensor_pre_hooks(node, grad_outputs: list) -> None:
    """Hooks registered on tensors (``t.register_hook``) run first, before anything reads the gradient."""
    if type(node) is AccumulateGrad:
        hooks = node.variable._backward_hooks
        if hooks and grad_outputs[0] is not None:
            grad_outputs[0] = _run_tensor_hooks(hooks, grad_outputs[0])
    elif node._tensor_pre_hooks:
        for slot, hooks in node._tensor_pre_hooks.items():
            if grad_outputs[slot] is not None:
                grad_outputs[slot] = _run_tensor_hooks(hooks, grad_outputs[slot])


def _visit_leaf(node: AccumulateGrad, grad, staged: list, observer) -> None:
    if grad is None:
        return
    if node._pre_hooks:
        grad = _run_pre_hooks(node, [grad])[0]
    staged.append((node.variable, grad, node))
    if observer is not None:
        observer(node, (grad,), ())


def _prepare_grad_outputs(node, grad_outputs: list, staged: list) -> list:
    """retain_grad, node pre-hooks, then zeros for gradients that never arrived."""
    if node._retain_grad_tensors:
        for slot, ref in node._retain_grad_tensors.items():
            tensor = ref()
            if tensor is not None and grad_outputs[slot] is not None:
                staged.append((tensor, grad_outputs[slot], None))
    if node._pre_hooks:
        grad_outputs = _run_pre_hooks(node, grad_outputs)
    if node.materialize_grads:
        skip = () if node._materialize_non_diff_grads else node._non_differentiable_slots
        for slot, grad in enumerate(grad_outputs):
            info = node._output_info[slot] if grad is None and slot not in skip else None
            if info is not None:
                grad_outputs[slot] = Tensor._make(np.zeros(info[0], info[1]))
    return grad_outputs


def _run_pre_hooks(node: Node, grad_outputs: list) -> list:
    for hook in tuple(node._pre_hooks.values()):   # a snapshot, as for tensor hooks
        result = hook(tuple(grad_outputs))
        if result is not None:
            grad_outputs = list(result)
    return grad_outputs


def _run_post_hooks(node: BackwardCFunction, grads: tuple, grad_outputs: list) -> tuple:
    for hook in tuple(node._post_hooks.values()):
        result = hook(grads, tuple(grad_outputs))
        if result is not None:
            grads = tuple(result)
    return grads


def _validate(node: BackwardCFunction, grads) -> tuple:
    """Check what backward returned, PyTorch's way, and line it up with next_functions."""
    if not isinstance(grads, tuple):
        grads = (grads,)
    needs = node.needs_input_grad
    n_args = len(needs)
    if len(grads) != n_args:
        if len(grads) > n_args and all(g is None for g in grads[n_args:]):
            grads = grads[:n_args]
        else:
            raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                               f"(expected {n_args}, got {len(grads)})")
    info = node._input_info
    if len(grads) == len(info):
        # Every argument is a tensor: nothing to drop or re-align if every gradient already fits.
        for grad, (shape, dtype), need in zip(grads, info, needs):
            if grad is not None and (type(grad) is not Tensor or not need or grad._data.shape != shape
                                     or (grad._data.dtype is not dtype and grad._data.dtype != dtype)):
                break
        else:
            return grads
    positions = node._input_positions
    result = []
    k = 0
    for i, grad in enumerate(grads):
        is_tensor_input = k < len(positions) and positions[k] == i
        if not is_tensor_input:
            if grad is not None:
                raise RuntimeError(f"function {node.name()} returned a gradient different than None at "
                                   f"position {i + 1}, but the corresponding forward input was not a Variable")
            continue
        if grad is not None:
            if not isinstance(grad, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(grad).__name__})")
            if not needs[i]:
                grad = None
            else:
                grad = _conform(node, k, grad)
        result.append(grad)
        k += 1
    return tuple(result)


def _conform(node: BackwardCFunction, index: int, grad: Tensor) -> Tensor:
    """Sum a broadcast gradient down to the input's shape and cast it to the input's dtype."""
    shape, dtype = node._input_info[index]
    if grad._data.shape != shape:
        if not _expandable(shape, grad._data.shape):
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {index} - got "
                f"{list(grad._data.shape)} but expected shape compatible with {list(shape)}")
        grad = grad.sum_to_size(shape)
    if grad._data.dtype != dtype:
        grad = grad.to(from_numpy_dtype(dtype))
    return grad


def _expandable(shape: tuple, target: tuple) -> bool:
    if len(shape) > len(target):
        return False
    for a, b in zip(reversed(shape), reversed(target)):
        if a != b and a != 1:
            return False
    return True
