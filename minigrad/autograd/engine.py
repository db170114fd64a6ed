"""The backward engine: walks the graph from the outputs and calls each node's backward once.

One call of ``backward()`` is one ``GraphTask`` (PyTorch's name). It works in two passes, with no
recursion (a chain of 100,000 operations is fine):

1. **Discover** (``_discover``). From the outputs' ``grad_fn``, follow ``next_functions`` and count,
   for each node, how many edges point at it: its dependencies.
2. **Execute** (``_execute``, the backward loop). A node is ready once every edge into it has
   delivered its gradient, so a reused intermediate receives the *sum* of its gradients before its
   own backward runs. The loop takes the ready node created last (the highest sequence number, as in
   PyTorch's engine), runs its backward, sends each gradient it returns along the matching edge, and
   counts down the dependencies of the node at the other end. A leaf's ``AccumulateGrad`` node runs
   no backward: its gradient is staged for the leaf's ``.grad``.

The staged gradients are written into ``.grad`` only after the whole pass succeeded
(``_write_staged_gradients``): a backward that fails half-way leaves every ``.grad`` as it was.

Every other rule of PyTorch's engine is one named call, defined below the loop:

- tensor hooks, ``t.register_hook(fn)``: ``_call_tensor_hooks``;
- ``retain_grad()``, node pre-hooks and zeros for gradients that never arrived: ``_prepare_grad_outputs``;
- checking what backward returned, and summing a broadcast gradient: ``_validate``, ``_conform``;
- anomaly mode: ``_apply_watched``; node post-hooks: ``_run_post_hooks``;
- a builtin node that received no gradient sends none on: ``_received_no_gradient``;
- ``autograd.grad``: capture the inputs' gradients, run only the nodes leading to them: ``GradCapture``;
- a backward inside a backward (reentrant): ``_running_tasks``, ``_on_fresh_thread``;
- no copy for a gradient nobody else holds: ``graph._nobody_else_holds``.

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
import threading
from typing import Callable, Sequence

import numpy as np

from .. import grad_mode
from . import anomaly_mode
from ..tensor import Tensor
from ..types import from_numpy_dtype
from .function import BackwardCFunction
from .graph import _COUNTS_KNOWN, AccumulateGrad, Node, _nobody_else_holds  # noqa: F401 (_COUNTS_KNOWN: tests)

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
    if len(_running_tasks()) >= REENTRANT_DEPTH_PER_THREAD:
        return _on_fresh_thread(run_backward, tensors, grad_tensors, retain_graph, create_graph, inputs,
                                observer, accumulate)
    task = GraphTask(create_graph if retain_graph is None else retain_graph, create_graph, observer)
    tasks = _running_tasks()
    tasks.append(task)   # this thread's current graph task (for queue_callback and the reentrant depth)
    try:
        # Backward's own operations are recorded only for higher-order gradients (create_graph=True).
        with grad_mode.set_grad_enabled(create_graph), _silent_numpy():
            task.start(_root_gradients(tensors, grad_tensors), inputs, accumulate)
            _execute(task)
            if task.capture is None or task.capture.accumulate:   # autograd.grad writes no .grad
                _write_staged_gradients(task)
            task.run_final_callbacks()
    finally:
        tasks.pop()
    return task.capture.result() if task.capture is not None else None


class GraphTask:
    """One backward pass (PyTorch's ``GraphTask``): everything the loop keeps between two nodes."""

    def __init__(self, retain_graph: bool, create_graph: bool, observer: Observer | None = None) -> None:
        self.retain_graph = retain_graph      # False: each node's saved tensors are freed once it ran
        self.create_graph = create_graph      # True: backward's operations are recorded too
        self.observer = observer
        self.dependencies: dict = {}          # node -> edges into it that have not delivered yet
        self.buffers: dict = {}               # node -> one gradient per output, summed as they arrive
        self.ready: list = []                 # heap of (-sequence_nr, tie, node): the latest node first
        self.tie = itertools.count()          # equal sequence numbers (AccumulateGrad): first in, first out
        self.staged: list = []                # (tensor, gradient, AccumulateGrad or None) for .grad
        self.final_callbacks: list = []       # queue_callback(fn): run once the pass has succeeded
        self.capture: GradCapture | None = None

    def start(self, roots: list, inputs: Sequence[Tensor] | None, accumulate: bool) -> None:
        """Count dependencies, put the root gradients in their buffers, make the roots ready."""
        root_nodes = [node for node, _, _ in roots]
        self.dependencies = _discover(root_nodes)
        if inputs is not None:
            self.capture = GradCapture(inputs, accumulate, root_nodes, self.dependencies)
        for node, output_nr, grad in roots:
            buffer = self.buffers.get(node) or _new_buffer(self.buffers, node)
            buffer[output_nr] = grad if buffer[output_nr] is None else buffer[output_nr] + grad
        for node in dict.fromkeys(root_nodes):
            if self.dependencies.get(node, 0) == 0:
                heapq.heappush(self.ready, (-node._sequence_nr, next(self.tie), node))

    def run_final_callbacks(self) -> None:
        while self.final_callbacks:   # a callback may queue another: it runs too, in order
            self.final_callbacks.pop(0)()


def _execute(task: GraphTask) -> None:
    """The backward loop: every node runs once, after every edge into it has delivered."""
    ready, buffers, dependencies, capture = task.ready, task.buffers, task.dependencies, task.capture
    while ready:
        node = heapq.heappop(ready)[-1]              # the ready node created last
        grad_outputs = buffers.pop(node)             # one gradient per output, summed over its uses
        if capture is not None and capture.skips(node):
            continue                                 # autograd.grad: it leads to no input
        _call_tensor_hooks(node, grad_outputs)       # t.register_hook(fn) sees the gradient first
        if capture is not None and capture.stops_at(task, node, grad_outputs):
            continue                                 # autograd.grad: an input's gradient, read off here
        if type(node) is AccumulateGrad:             # a leaf: nothing to run, the gradient is for .grad
            _stage_leaf_gradient(task, node, grad_outputs[0])
            continue
        grad_outputs, grad_inputs = _run_node(task, node, grad_outputs)
        if not task.retain_graph:
            node._release_saved()                    # its saved tensors are freed: a 2nd backward raises
        if task.observer is not None:
            task.observer(node, tuple(grad_outputs), grad_inputs)
        for (next_node, input_nr), grad in zip(node.next_functions, grad_inputs):
            if next_node is None:
                continue                             # this input needs no gradient
            buffer = buffers.get(next_node) or _new_buffer(buffers, next_node)
            if grad is not None:
                buffer[input_nr] = grad if buffer[input_nr] is None else buffer[input_nr] + grad
            dependencies[next_node] -= 1
            if dependencies[next_node] == 0:         # every edge into next_node has delivered
                heapq.heappush(ready, (-next_node._sequence_nr, next(task.tie), next_node))


def _run_node(task: GraphTask, node: BackwardCFunction, grad_outputs: list) -> tuple[list, tuple]:
    """Call ``node``'s backward with PyTorch's rules around it; return the gradients it was given
    (after hooks and zeros for missing ones) and the checked gradients it returned."""
    if _received_no_gradient(node, grad_outputs):
        return grad_outputs, (None,) * len(node.next_functions)
    grad_outputs = _prepare_grad_outputs(node, grad_outputs, task.staged)
    if anomaly_mode.state.enabled:
        grad_inputs = _apply_watched(node, grad_outputs)
    else:
        grad_inputs = _validate(node, node.apply(*grad_outputs))
    if node._post_hooks:
        grad_inputs = _run_post_hooks(node, grad_inputs, grad_outputs)
    return grad_outputs, grad_inputs


def _write_staged_gradients(task: GraphTask) -> None:
    """Add the staged gradients into ``.grad``: only now, after every node's backward succeeded."""
    for tensor, grad, node in task.staged:
        if node is None:   # a non-leaf that called retain_grad(), or a non-leaf input of backward(inputs=...)
            AccumulateGrad(tensor).accumulate(grad, task.create_graph)
            continue
        sole_owner = _nobody_else_holds(grad)   # asked first: an argument list being built holds grad too
        node.accumulate(grad, task.create_graph, sole_owner)
        if node._post_hooks:   # AccumulateGrad's own hooks see no grad_inputs: a leaf sends nothing on
            _run_post_hooks(node, (), [grad])


# ---------------------------------------------------------------------------- the two passes' pieces
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


def _new_buffer(buffers: dict, node) -> list:
    """An empty input buffer for ``node``: one slot per output, None until a gradient arrives."""
    buffer = buffers[node] = [None] * len(node._output_info)
    return buffer


def _root_gradients(tensors, grad_tensors) -> list:
    """``(node, output_nr, gradient)`` for each tensor backward starts from, checked PyTorch's way."""
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


def _stage_leaf_gradient(task: GraphTask, node: AccumulateGrad, grad) -> None:
    """A leaf's gradient: its AccumulateGrad pre-hooks run now, ``.grad`` changes at the end."""
    if grad is None:
        return
    if node._pre_hooks:
        grad = _run_pre_hooks(node, [grad])[0]
    task.staged.append((node.variable, grad, node))
    if task.observer is not None:
        task.observer(node, (grad,), ())


def _received_no_gradient(node: BackwardCFunction, grad_outputs: list) -> bool:
    """A builtin node that no gradient reached sends none on: no zeros are invented (PyTorch's rule)."""
    return (grad_outputs[0] is None and node._skips_without_gradients and not node._pre_hooks
            and all(g is None for g in grad_outputs))


def _silent_numpy() -> np.errstate:
    """PyTorch makes inf and nan silently (0 * inf in a backward formula); numpy would warn."""
    return np.errstate(invalid="ignore", divide="ignore", over="ignore")


# ---------------------------------------------------------------------------- autograd.grad
class GradCapture:
    """``autograd.grad`` and ``backward(inputs=...)``: read the inputs' gradients off the graph, and run
    only the nodes that lead to one of them (PyTorch's ``exec_info``)."""

    def __init__(self, inputs: Sequence[Tensor], accumulate: bool, root_nodes: list, dependencies: dict) -> None:
        self.inputs = inputs
        self.accumulate = accumulate   # backward(inputs=...): into .grad; autograd.grad: returned
        self.positions: dict = {}      # (node, output_nr) -> indices of the inputs whose gradient arrives there
        for index, t in enumerate(inputs):
            if not t.requires_grad:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            self.positions.setdefault(t._gradient_edge(), []).append(index)
        self.wanted = {node for node, _ in self.positions}
        self.needed = _needed_nodes(root_nodes, dependencies, self.wanted)
        self.captured: list = [None] * len(inputs)

    def skips(self, node) -> bool:
        """True for a node that leads to no input: it never runs, and its hooks are not called."""
        return node not in self.needed and node not in self.wanted

    def stops_at(self, task: GraphTask, node, grad_outputs: list) -> bool:
        """Keep the gradients of the inputs that arrive at ``node``; True if node itself must not run."""
        for slot, grad in enumerate(grad_outputs):
            for index in self.positions.get((node, slot), ()):
                self.captured[index] = grad
                if self.accumulate and type(node) is not AccumulateGrad:
                    task.staged.append((self.inputs[index], grad, None))   # a non-leaf input: like retain_grad
        if type(node) is AccumulateGrad:
            return not (self.accumulate and node in self.wanted)   # backward(inputs=[leaf]) accumulates
        if node in self.needed:
            return False
        if self.accumulate and node._pre_hooks:   # a non-leaf input of backward(inputs=...): hooks still run
            _run_pre_hooks(node, grad_outputs)
        return True

    def result(self) -> tuple | None:
        return None if self.accumulate else tuple(self.captured)


def _needed_nodes(root_nodes, dependencies: dict, wanted: set) -> set:
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
    needed = set()
    for node in reversed(order):
        if any(n in needed or n in wanted for n, _ in node.next_functions if n is not None):
            needed.add(node)
    return needed


# ---------------------------------------------------------------------------- hooks and retain_grad
def _run_tensor_hooks(hooks: dict, grad):
    for hook in tuple(hooks.values()):   # a snapshot: a hook removed meanwhile still runs this time
        result = hook(grad)
        if result is not None:
            grad = result
    return grad


def _call_tensor_hooks(node, grad_outputs: list) -> None:
    """Hooks registered on tensors (``t.register_hook``) run first, before anything reads the gradient."""
    if type(node) is AccumulateGrad:
        hooks = node.variable._backward_hooks
        if hooks and grad_outputs[0] is not None:
            grad_outputs[0] = _run_tensor_hooks(hooks, grad_outputs[0])
    elif node._tensor_pre_hooks:
        for slot, hooks in node._tensor_pre_hooks.items():
            if grad_outputs[slot] is not None:
                grad_outputs[slot] = _run_tensor_hooks(hooks, grad_outputs[slot])


def _prepare_grad_outputs(node, grad_outputs: list, staged: list) -> list:
    """retain_grad, node pre-hooks, then zeros for gradients that never arrived."""
    if len(grad_outputs) == 1 and grad_outputs[0] is not None and not (node._retain_grad_tensors or node._pre_hooks):
        return grad_outputs   # the common case: one gradient, no hooks
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


# ---------------------------------------------------------------------------- checking gradients
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


def _validate(node: BackwardCFunction, grads) -> tuple:
    """Check what backward returned, PyTorch's way, and line it up with next_functions."""
    if not isinstance(grads, tuple):
        grads = (grads,)
    needs = node.needs_input_grad
    if len(grads) != len(needs):
        if len(grads) > len(needs) and all(g is None for g in grads[len(needs):]):
            grads = grads[:len(needs)]   # extra Nones at the end are allowed
        else:
            raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                               f"(expected {len(needs)}, got {len(grads)})")
    if _fits_as_it_is(node, grads):
        return grads   # the common case: every argument a tensor, every gradient of the right shape
    positions = node._input_positions
    result = []
    for i, grad in enumerate(grads):
        if i not in positions:
            if grad is not None:
                raise RuntimeError(f"function {node.name()} returned a gradient different than None at "
                                   f"position {i + 1}, but the corresponding forward input was not a Variable")
            continue
        if grad is not None:
            if not isinstance(grad, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(grad).__name__})")
            grad = _conform(node, len(result), grad) if needs[i] else None
        result.append(grad)
    return tuple(result)


def _fits_as_it_is(node: BackwardCFunction, grads: tuple) -> bool:
    """True if every argument was a tensor and every gradient already has its input's shape and dtype."""
    info = node._input_info
    if len(grads) != len(info):
        return False
    for grad, (shape, dtype), need in zip(grads, info, node.needs_input_grad):
        if grad is not None and (type(grad) is not Tensor or not need or grad._data.shape != shape
                                 or (grad._data.dtype is not dtype and grad._data.dtype != dtype)):
            return False
    return True


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


# ---------------------------------------------------------------------------- threads and callbacks
REENTRANT_DEPTH_PER_THREAD = 20
_thread_state = threading.local()   # per thread: the graph tasks running, innermost last


def _running_tasks() -> list:
    """The graph tasks running on this thread, innermost last: a backward called from a backward
    (reentrant) pushes its own, and their number is the reentrant depth."""
    tasks = getattr(_thread_state, "tasks", None)
    if tasks is None:
        tasks = _thread_state.tasks = []
    return tasks


def in_backward() -> bool:
    """True on a thread running a backward pass, whose numpy is silent already (``_silent_numpy``)."""
    return bool(getattr(_thread_state, "tasks", None))


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


def queue_callback(callback: Callable[[], None]) -> None:
    """Run ``callback()`` when the backward pass now running has finished (PyTorch's final callbacks)."""
    tasks = _running_tasks()
    if not tasks:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    tasks[-1].final_callbacks.append(callback)


class ExecutionEngine:
    """``Variable._execution_engine``: the object PyTorch code reaches the engine through."""

    queue_callback = staticmethod(queue_callback)

    @staticmethod
    def run_backward(tensors, grad_tensors, keep_graph, create_graph, inputs=(), allow_unreachable=True,
                     accumulate_grad=True):
        return run_backward(tensors, grad_tensors, keep_graph, create_graph, inputs or None,
                            accumulate=bool(inputs) and accumulate_grad)
