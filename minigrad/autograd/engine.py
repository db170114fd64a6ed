"""The backward engine: walks the graph from the outputs and calls each node's backward once.

Words used below (PyTorch's, as its engine and hooks use them):

- **edge**: an entry ``(next_node, input_nr)`` of ``node.next_functions``: where the gradient of one
  tensor argument of the node's forward goes. ``input_nr`` is the slot of ``next_node`` it fills,
  which is the ``output_nr`` of that tensor among ``next_node``'s forward outputs.
- **grad_outputs**: the gradients a node *receives*, one per output of its forward (its *buffer*
  while they arrive). **grad_inputs**: the gradients its backward *returns*, one per tensor input
  of its forward, sent along its edges. (PyTorch's C++ calls a node's received gradients its
  "inputs": backward turns the direction round.)
- **slot**: one position of a node's buffer (``grad_outputs[slot]``): the gradient of its forward's
  output number ``slot``. An edge's ``input_nr`` names the slot it fills.
- **dependencies**: for each node, how many edges point at it that have not delivered yet.
- **ready**: the nodes whose dependencies are all delivered.

One call of ``backward()`` is one ``GraphTask`` (PyTorch's name). It works in two passes, with no
recursion (a chain of 100,000 operations is fine):

1. **Discover** (``_discover``). From the outputs' ``grad_fn``, follow ``next_functions`` and count
   each node's dependencies.
2. **Execute** (``_execute``, the backward loop). A node runs only once it is ready, so a reused
   intermediate receives the *sum* of its gradients before its own backward runs: that makes the
   result right. Among the ready nodes the loop takes the one created last (the highest sequence
   number, as PyTorch's engine does: ``GraphTask.pop_ready``), runs it (``_run_node``), and sends
   each gradient it returns along the matching edge, counting down the dependencies of the node at
   the other end (``GraphTask.deliver``). A leaf's ``AccumulateGrad`` node runs no backward: its
   gradient is staged for the leaf's ``.grad``.

The staged gradients are written into ``.grad`` only after every node's backward succeeded
(``_write_staged_gradients``): if a backward, a hook or a check raises during the pass, no
``.grad`` has changed (PyTorch writes each ``.grad`` as soon as its leaf is reached). What did
happen stays done: hooks that ran, and the saved tensors of the nodes that ran, already freed.

Every other rule of PyTorch's engine is one named call of this module, listed here in the order a
backward meets it:

- the gradients backward starts with, checked and cast to each output's dtype: ``_root_gradients``
  (PyTorch's ``_make_grads``, then its ``validate_outputs`` on the root edges);
- a backward inside a backward (reentrant): ``REENTRANT_DEPTH_PER_THREAD``, ``_on_fresh_thread``;
- ``autograd.grad`` and ``backward(inputs=...)``: run only the nodes leading to an input, and read
  the inputs' gradients off the graph: ``ExecInfo`` (PyTorch's ``exec_info``);
- tensor hooks ``t.register_hook(fn)``, then ``t.retain_grad()``: ``_call_tensor_pre_hooks``; what
  any hook returns is checked: ``_checked_hook_result``;
- a leaf's gradient waits for the end of the pass: ``_stage_leaf_gradient``;
- node pre-hooks ``node.register_prehook(fn)``: ``_call_pre_hooks``;
- a builtin node that received no gradient sends none on: ``_received_no_gradient``;
- zeros for gradients that never arrived (``set_materialize_grads``): ``_materialize_grads``;
- anomaly mode: ``_apply_in_anomaly_mode``;
- checking what backward returned, and summing a broadcast gradient: ``_validate``, ``_conform``;
- node post-hooks ``node.register_hook(fn)``: ``_call_post_hooks``; freeing saved tensors once a
  node ran (unless ``retain_graph=True``): ``node._release_saved``;
- writing ``.grad`` (``retain_grad()`` and leaves), without a copy for a gradient nobody else
  holds: ``_write_staged_gradients``, ``_nobody_else_holds``.

Tools that watch a pass (``minigrad.viz``'s trace, the exercises' checkers) register listeners
(``listeners.py``): the engine tells them when a pass begins and ends and after each node ran.

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
from ..tensor import Tensor, _warn_once, shape_and_dtype
from ..types import broadcast_shapes, from_numpy_dtype
from .function import BackwardCFunction
from .graph import AccumulateGrad, Node, _sum_out_of_place
from .listeners import _BACKWARD_END, _BACKWARD_START, _NODE, graph_walk, notify

CREATE_GRAPH_CYCLE = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter and its gradient "
    "which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid this. If you "
    "have to use this function, make sure to reset the .grad fields of your parameters to None after use to break "
    "the cycle and avoid the leak.")
REENTRANT_DEPTH_PER_THREAD = 20     # nested backward calls per thread before a fresh thread takes over
_grad_state = grad_mode.state       # set by hand around a pass, as Function.apply does around forward


class _ThreadState(threading.local):
    def __init__(self) -> None:
        self.tasks: list = []   # per thread: the graph tasks running, innermost last


_thread_state = _ThreadState()
# sys.getrefcount's counts are CPython's up to 3.13 (3.14 may borrow references): see _nobody_else_holds.
_COUNTS_KNOWN = sys.implementation.name == "cpython" and sys.version_info < (3, 14)


def run_backward(tensors: Sequence[Tensor], grad_tensors: Sequence[Tensor | None],
                 retain_graph: bool | None = None, create_graph: bool = False,
                 inputs: Sequence[Tensor] | None = None, accumulate: bool = False) -> tuple | None:
    """Backpropagate from ``tensors``. With ``inputs``, return their gradients instead of
    accumulating into ``.grad`` (this is ``autograd.grad``), or, with ``accumulate=True``,
    accumulate into the ``.grad`` of those inputs only (``backward(inputs=...)``).

    A backward called from inside a backward (reentrant) runs to completion first; every
    ``REENTRANT_DEPTH_PER_THREAD`` nested levels it continues on a fresh thread, as PyTorch's
    engine does, so that thousands of nested levels never hit Python's recursion limit. The
    listeners of ``listeners.py`` hear the pass begin and end, also when it fails.
    """
    if create_graph and (inputs is None or accumulate):   # backward(), not autograd.grad()
        _warn_once(CREATE_GRAPH_CYCLE)   # PyTorch's warning: a recorded .grad holds the graph that holds it
    tasks = _thread_state.tasks          # the passes running on this thread, innermost last
    if len(tasks) >= REENTRANT_DEPTH_PER_THREAD:
        return _on_fresh_thread(run_backward, tensors, grad_tensors, retain_graph, create_graph, inputs, accumulate)
    task = GraphTask(_root_gradients(tensors, grad_tensors), create_graph if retain_graph is None else retain_graph,
                     create_graph, inputs, accumulate)
    if _BACKWARD_START:
        notify(_BACKWARD_START, task)
    tasks.append(task)                   # the current pass (queue_callback, the reentrant depth)
    # Backward's own operations are recorded only with create_graph (grad mode set by hand, as apply
    # does around forward), and numpy makes inf and nan silently, as PyTorch does (0 * inf in a formula).
    grad_enabled, _grad_state.enabled = _grad_state.enabled, create_graph
    error = None
    try:
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            _execute(task)
            _write_staged_gradients(task)   # (autograd.grad stages only what retain_grad() asks for)
        if task.final_callbacks:
            task.run_final_callbacks()
    except BaseException as raised:
        error = raised
        raise
    finally:
        _grad_state.enabled = grad_enabled
        tasks.pop()
        if _BACKWARD_END:
            notify(_BACKWARD_END, task, error)
        del error   # (the traceback holds this frame: no cycle through it)
    return None if task.exec_info is None else task.exec_info.result()


# ---------------------------------------------------------------------------- a backward inside a backward
def in_backward() -> bool:
    """True on a thread running a backward pass, whose numpy is silent already (see ``run_backward``)."""
    return bool(_thread_state.tasks)


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


# ---------------------------------------------------------------------------- where backward starts
def _root_gradients(tensors: Sequence, grad_tensors: Sequence) -> tuple:
    """``(edges, gradients)``: where backward starts, one edge per tensor (``(grad_fn, output_nr)``
    or its AccumulateGrad), and the gradient sent along it: the one given (cast to the tensor's dtype),
    or ones for a scalar (PyTorch's ``_make_grads``). Checked in PyTorch's order: each gradient against
    its tensor, then their numbers, then each tensor."""
    edges, grads = [], []
    for i, (t, g) in enumerate(zip(tensors, grad_tensors)):   # extra gradients are ignored, as in PyTorch
        if not isinstance(t, Tensor):
            raise AssertionError("Expected output to be a torch.Tensor")   # PyTorch's own assertion
        edge = t._gradient_edge()   # (None, 0) for a tensor that does not require grad
        if isinstance(g, Tensor):
            if g.shape != t.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                                   f"output[{i}] has a shape of {t.shape}.")
            if g._data.dtype != t._data.dtype:   # cast to the output's dtype (PyTorch's validate_outputs at the root),
                with np.errstate(over="ignore", invalid="ignore"):   # silently, as every cast inside the pass
                    g = g.to(t.dtype)
        elif g is not None:
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        elif edge[0] is not None or t.requires_grad:   # (a view made under no_grad may require grad)
            if t._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = Tensor._make(np.ones(t._data.shape, dtype=t._data.dtype))
        edges.append(edge)
        grads.append(g)
    if len(grads) != len(tensors):
        raise RuntimeError(f"got {len(tensors)} tensors and {len(grads)} gradients")
    for i, (node, _) in enumerate(edges):
        if node is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
    return edges, grads


class GraphTask:
    """One backward pass (PyTorch's ``GraphTask``): everything the loop keeps between two nodes.

    Made from the pass's ``roots``: the edges it starts from and the gradients sent along them, which
    the loop delivers first, as PyTorch's ``GraphRoot`` node does. Listeners of the pass
    (``listeners.on_backward_start``) read ``retain_graph``, ``create_graph``, ``inputs`` and ``accumulate``.
    """

    def __init__(self, roots: tuple, retain_graph: bool, create_graph: bool,
                 inputs: Sequence[Tensor] | None = None, accumulate: bool = False) -> None:
        self.retain_graph = retain_graph      # False: each node's saved tensors are freed once it ran
        self.create_graph = create_graph      # True: backward's operations are recorded too
        self.inputs, self.accumulate = inputs, accumulate   # autograd.grad, backward(inputs=...): see ExecInfo
        self.roots = roots                    # (edges, gradients)
        self.dependencies: dict = _discover(roots[0])   # node -> edges into it that have not delivered yet
        self.exec_info = None if inputs is None else ExecInfo(inputs, accumulate, roots[0], self.dependencies)
        # node -> its input buffer: one slot per output of its forward, where arriving gradients are summed
        self.buffers = buffers = {}
        for node in self.dependencies:
            buffers[node] = [None] * len(node._output_info)
        # The ready nodes, as a heap of (-sequence_nr, tie, node): the latest node comes out first.
        # AccumulateGrad nodes share one sequence number; the tie counter then keeps them first in,
        # first out, and stops heapq from ever comparing two nodes (a TypeError).
        self.ready: list = []
        self.tie = itertools.count()
        self.staged: list = []                # (AccumulateGrad node or retain_grad tensor, gradient) for .grad
        self.final_callbacks: list = []       # queue_callback(fn): run once the pass has succeeded

    def pop_ready(self) -> tuple:
        """The ready node created last, and its gradients: one per output of its forward, summed over its uses."""
        node = heapq.heappop(self.ready)[-1]
        return node, self.buffers.pop(node)

    def deliver(self, edges: Sequence, grads: Sequence) -> None:
        """Send each gradient along its edge ``(node, input_nr)``: add it into slot ``input_nr`` of
        that node's buffer. A node whose every incoming edge has delivered is ready."""
        buffers, dependencies = self.buffers, self.dependencies
        for (node, input_nr), grad in zip(edges, grads):
            if node is None:
                continue                             # this input needs no gradient
            if grad is not None:
                buffer = buffers[node]
                buffer[input_nr] = grad if buffer[input_nr] is None else _sum_out_of_place(buffer[input_nr], grad)
            left = dependencies[node] = dependencies[node] - 1
            if not left:                             # every edge into node has delivered
                heapq.heappush(self.ready, (-node._sequence_nr, next(self.tie), node))

    def run_final_callbacks(self) -> None:
        while self.final_callbacks:   # a callback may queue another: it runs too, in order
            self.final_callbacks.pop(0)()


@graph_walk
def _discover(root_edges) -> dict:
    """Count, for every node reachable from the root edges, the edges that point at it (the root
    edges included)."""
    dependencies = {}
    for node, _ in root_edges:   # the root edges count too
        dependencies[node] = dependencies.get(node, 0) + 1
    stack = list(dependencies)
    while stack:
        node = stack.pop()
        for next_node, _ in node.next_functions:
            if next_node in dependencies:
                dependencies[next_node] += 1
            elif next_node is not None:   # met for the first time: walk on from it
                dependencies[next_node] = 1
                stack.append(next_node)
    return dependencies


# ---------------------------------------------------------------------------- autograd.grad, backward(inputs=...)
class ExecInfo:
    """``autograd.grad`` and ``backward(inputs=...)`` (PyTorch's ``exec_info``): run only the nodes
    that lead to one of the inputs.

    ``backward(inputs=...)`` runs the inputs' own nodes as well, so that a non-leaf input (which
    retains its grad from now on) and a leaf get their ``.grad`` as in a plain backward.
    ``autograd.grad`` *captures* each input's gradient where it arrives and runs no leaf's
    AccumulateGrad: no leaf's ``.grad`` changes (a tensor that retains its grad still gets it, as in PyTorch).
    """

    def __init__(self, inputs: Sequence[Tensor], accumulate: bool, root_edges: list, dependencies: dict) -> None:
        self.accumulate = accumulate   # backward(inputs=...): into .grad; autograd.grad: returned
        self.captures: dict = {}       # autograd.grad: node -> [(slot of its grad_outputs, input index)]
        for index, t in enumerate(inputs):
            if not isinstance(t, Tensor):
                raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}")
            if accumulate:
                t.retain_grad()   # as in PyTorch: a non-leaf input retains its grad (a leaf: nothing to do)
            if not t.requires_grad:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            node, output_nr = t._gradient_edge()
            self.captures.setdefault(node, []).append((output_nr, index))
        self.needed = _needed_nodes(root_edges, dependencies, set(self.captures))
        if accumulate:
            self.needed.update(self.captures)   # the inputs' own nodes run too
            self.captures = {}
        self.grads: list = [None] * len(inputs)   # autograd.grad's result, one per input

    def should_run(self, task: GraphTask, node, grad_outputs: list) -> bool:
        """Whether ``node`` runs. First, read off the inputs' gradients that arrive at it: before its
        tensor hooks if it runs (they are called when it does), after them if not (PyTorch's order)."""
        runs = node in self.needed
        captures = self.captures.get(node)
        if captures is not None:
            if not runs:
                _call_tensor_pre_hooks(task, node, grad_outputs)
            for slot, index in captures:
                self.grads[index] = grad_outputs[slot]
        return runs

    def result(self) -> tuple | None:
        return None if self.accumulate else tuple(self.grads)


@graph_walk
def _needed_nodes(root_edges, dependencies: dict, input_nodes: set) -> set:
    """The nodes that lead to one of the ``input_nodes`` (the inputs' own nodes): those must run.

    An input's node that leads to no other input's node is not in the set: autograd.grad reads its
    gradient off as it arrives, without running it.
    """
    remaining = dict(dependencies)
    for node, _ in root_edges:   # the root edges deliver first
        remaining[node] -= 1
    order = [node for node in dict.fromkeys(node for node, _ in root_edges) if remaining[node] == 0]
    for node in order:   # Kahn's algorithm (a topological order): order grows while we walk it
        for next_node, _ in node.next_functions:
            if next_node is not None:
                remaining[next_node] -= 1
                if remaining[next_node] == 0:
                    order.append(next_node)
    needed = set()
    for node in reversed(order):
        if any(n in needed or n in input_nodes for n, _ in node.next_functions if n is not None):
            needed.add(node)
    return needed


# ---------------------------------------------------------------------------- the backward loop
def _execute(task: GraphTask) -> None:
    """The backward loop: every node runs once, after every edge into it has delivered."""
    task.deliver(*task.roots)                        # the gradients backward starts with
    while task.ready:
        node, grad_outputs = task.pop_ready()       # the ready node created last, its gradients summed
        grad_inputs = _run_node(task, node, grad_outputs)   # one gradient per edge
        if grad_inputs:                                 # (none from a leaf, or a node that did not run)
            task.deliver(node.next_functions, grad_inputs)


def _run_node(task: GraphTask, node: Node, grad_outputs: list) -> tuple:
    """Run one ready node with PyTorch's rules around it; return the gradients it sends, one per edge.

    Two kinds of node send none (``()``): a node that leads to no input of ``autograd.grad`` or
    ``backward(inputs=...)``, which does not run, and a leaf's AccumulateGrad, whose gradient waits
    for ``.grad``.
    """
    if task.exec_info is not None and not task.exec_info.should_run(task, node, grad_outputs):
        return ()
    if type(node) is AccumulateGrad:
        return _stage_leaf_gradient(task, node, grad_outputs[0])
    if node._tensor_pre_hooks or node._retain_grad_tensors:   # t.register_hook(fn), t.retain_grad()
        _call_tensor_pre_hooks(task, node, grad_outputs)
    if node._pre_hooks:
        grad_outputs = _call_pre_hooks(node, grad_outputs)
    if grad_outputs[0] is None and _received_no_gradient(node, grad_outputs):
        grad_inputs = (None,) * len(node.next_functions)
    else:
        if (grad_outputs[0] is None or len(grad_outputs) > 1) and node.materialize_grads:   # one may be missing
            _materialize_grads(node, grad_outputs)
        if anomaly_mode.state.enabled:
            grad_inputs = _apply_in_anomaly_mode(node, grad_outputs)
        else:
            grad_inputs = _validate(node, node.apply(*grad_outputs))   # node.apply runs backward
    if node._post_hooks:
        grad_inputs = _call_post_hooks(node, grad_inputs, grad_outputs)
    if not task.retain_graph:
        node._release_saved()                        # its saved tensors are freed: a 2nd backward raises
    if _NODE:
        notify(_NODE, node, tuple(grad_outputs), grad_inputs)
    return grad_inputs


def _call_tensor_pre_hooks(task: GraphTask, node, grad_outputs: list) -> None:
    """Hooks registered on tensors (``t.register_hook``) see the gradient first, then ``retain_grad()``
    stages it for ``t.grad`` (PyTorch's ``call_tensor_pre_hooks``). As in PyTorch, a hook is called
    with None for a gradient that did not arrive (an unused output of a node that runs).

    A non-leaf's hooks are kept on its ``grad_fn``, by output number; a leaf's on the tensor itself:
    its AccumulateGrad node is made when needed and held weakly, so it cannot keep them.
    """
    if type(node) is AccumulateGrad:
        if node.variable._hooks:
            grad_outputs[0] = _run_tensor_hooks(node.variable._hooks, grad_outputs[0])
        return
    if node._tensor_pre_hooks:
        for slot, hooks in node._tensor_pre_hooks.items():
            grad_outputs[slot] = _run_tensor_hooks(hooks, grad_outputs[slot])
    if node._retain_grad_tensors:
        for slot, ref in node._retain_grad_tensors.items():
            tensor = ref()
            if tensor is not None and grad_outputs[slot] is not None:
                task.staged.append((tensor, grad_outputs[slot]))


def _run_tensor_hooks(hooks: dict, grad):
    for hook in tuple(hooks.values()):   # a snapshot: a hook removed meanwhile still runs this time
        result = hook(grad)
        if result is not None:
            grad = _checked_hook_result(hook, grad, result)
    return grad


def _checked_hook_result(hook, grad, result) -> Tensor:
    """PyTorch's checks of a gradient a hook returned in place of ``grad``: a tensor of the same type and size."""
    if grad is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(result, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    name = getattr(hook, "__name__", "<unknown>")
    if result.type() != grad.type():
        raise RuntimeError(f"hook '{name}' has changed the type of value (was {grad.type()} got {result.type()})")
    if result.shape != grad.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")
    return result


def _stage_leaf_gradient(task: GraphTask, node: AccumulateGrad, grad) -> tuple:
    """A leaf's gradient: its tensor hooks and AccumulateGrad pre-hooks run now, ``.grad`` changes
    once the pass succeeded (``_write_staged_gradients``). A leaf sends nothing on: ``()``."""
    if node.variable._hooks:
        grad = _run_tensor_hooks(node.variable._hooks, grad)
    if node._pre_hooks:
        grad = _call_pre_hooks(node, [grad])[0]
    if grad is not None:
        task.staged.append((node, grad))
        if _NODE:
            notify(_NODE, node, (grad,), ())
    return ()


def _received_no_gradient(node: BackwardCFunction, grad_outputs: list) -> bool:
    """A builtin node that no gradient reached sends none on: no zeros are invented (PyTorch's
    rule; its hooks still run). (_run_node looks at slot 0 first: it usually holds a gradient.)"""
    return node._skips_without_gradients and all(g is None for g in grad_outputs)


def _call_pre_hooks(node: Node, grad_outputs: list) -> list:
    """``node.register_prehook(fn)``: each ``fn(grad_outputs)`` may return a tuple that replaces them."""
    for hook in tuple(node._pre_hooks.values()):   # a snapshot, as for tensor hooks
        result = hook(tuple(grad_outputs))
        if result is not None:
            grad_outputs = _checked_hook_results(hook, grad_outputs, result)
    return grad_outputs


def _checked_hook_results(hook, grads, results) -> list:
    """PyTorch's checks of the tuple a node hook returned in place of ``grads``: as many, each a
    tensor of the same type and size, or None (which replaces that gradient with None)."""
    if not isinstance(results, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(results).__name__}'")
    if len(results) != len(grads):
        raise RuntimeError(f"hook '{getattr(hook, '__name__', '<unknown>')}' has returned an incorrect number of "
                           f"values (got {len(results)}, but expected {len(grads)})")
    return [None if r is None else _checked_hook_result(hook, g, r) for g, r in zip(grads, results)]


def _materialize_grads(node: BackwardCFunction, grad_outputs: list) -> None:
    """``ctx.set_materialize_grads(True)``, the default: backward gets zeros, not None, for an
    output whose gradient never arrived, except, with ``ctx._materialize_non_diff_grads = False``,
    for the outputs marked non-differentiable."""
    keep_none = () if node._materialize_non_diff_grads else node._non_differentiable_slots
    for slot, grad in enumerate(grad_outputs):
        info = node._output_info[slot]
        if grad is None and info is not None and slot not in keep_none:
            grad_outputs[slot] = Tensor._make(np.zeros(info[0], info[1]))


def _apply_in_anomaly_mode(node: BackwardCFunction, grad_outputs: list) -> tuple:
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
    """Check what backward returned, PyTorch's way, and return one gradient per edge.

    Backward returns one gradient per *argument* of forward; ``node.next_functions`` has one edge per
    *tensor* argument (``node._input_info`` holds None for the others). Extra Nones at the end are
    allowed. Most often every argument is a tensor and each gradient already fits its input (its
    shape and dtype, or None): then ``grads`` goes on as it is.
    """
    if not isinstance(grads, tuple):
        grads = (grads,)
    needs = node.needs_input_grad
    if len(grads) != len(needs):
        while len(grads) > len(needs) and grads[-1] is None:   # extra Nones at the end are allowed
            grads = grads[:-1]
        if len(grads) != len(needs):
            raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                               f"(expected {len(needs)}, got {len(grads)})")
    input_info = node._input_info
    if None not in input_info:   # every argument a tensor
        for grad, info, need in zip(grads, input_info, needs):
            if grad is not None and (type(grad) is not Tensor or not need or shape_and_dtype(grad) != info):
                break   # this one must be checked, and conformed below
        else:
            return grads
    for i, grad in enumerate(grads):   # first the types, for every argument (PyTorch's order)
        if input_info[i] is None and grad is not None:
            raise RuntimeError(f"function {node.name()} returned a gradient different than None at "
                               f"position {i + 1}, but the corresponding forward input was not a Variable")
        if grad is not None and not isinstance(grad, Tensor):
            raise RuntimeError(f"expected Variable or None (got {type(grad).__name__})")
    conformed = []
    for grad, info in zip(grads, input_info):
        if info is not None:   # a tensor argument: its edge is the next one
            conformed.append(_conform(node, len(conformed), grad, info))
    return tuple(conformed)


def _conform(node: BackwardCFunction, edge_nr: int, grad: Tensor | None, info: tuple) -> Tensor | None:
    """The gradient sent along edge number ``edge_nr``: summed down to its input's shape (``info``:
    numpy shape and dtype) if it was broadcast, cast to the input's dtype. None along an edge to
    nowhere (an input that needs no gradient), unchecked (PyTorch's validate_outputs)."""
    if grad is None or node.next_functions[edge_nr][0] is None:
        return None
    shape, dtype = info
    if grad._data.shape != shape:
        if not _broadcasts_to(shape, grad._data.shape):
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {edge_nr} - got "
                f"{list(grad._data.shape)} but expected shape compatible with {list(shape)}")
        grad = grad.sum_to_size(shape)
    if grad._data.dtype != dtype:
        grad = grad.to(from_numpy_dtype(dtype))
    return grad


def _broadcasts_to(shape: tuple, target: tuple) -> bool:
    """True if a tensor of ``shape`` broadcasts to ``target`` (PyTorch's ``is_expandable_to``)."""
    try:
        return broadcast_shapes(shape, target) == target
    except RuntimeError:   # they clash
        return False


def _call_post_hooks(node: Node, grad_inputs: tuple, grad_outputs: list) -> tuple:
    """``node.register_hook(fn)``: each ``fn(grad_inputs, grad_outputs)`` may return a tuple that
    replaces grad_inputs (checked as ``_checked_hook_results`` says)."""
    for hook in tuple(node._post_hooks.values()):
        result = hook(grad_inputs, tuple(grad_outputs))
        if result is not None:
            grad_inputs = tuple(_checked_hook_results(hook, grad_inputs, result))
    return grad_inputs


# ---------------------------------------------------------------------------- writing .grad
def _write_staged_gradients(task: GraphTask) -> None:
    """Add the staged gradients into ``.grad``, in the order they arrived: only now, after every
    node's backward succeeded. An error while writing (an AccumulateGrad post-hook that raises, a
    gradient that cannot be added) stops the writing there, the earlier ``.grad``s written, as in
    PyTorch, which writes each ``.grad`` as its leaf is reached."""
    staged, task.staged = task.staged, []
    staged.reverse()   # so that pop() gives them in arrival order, the list letting go of each
    while staged:
        target, grad = staged.pop()   # the list lets go of grad: see _nobody_else_holds
        if type(target) is not AccumulateGrad:
            _add_retained_grad(target, grad)
            continue
        sole_owner = _nobody_else_holds(grad)   # asked alone: a call's argument list holds grad too
        target.accumulate(grad, task.create_graph, sole_owner)
        if target._post_hooks:   # AccumulateGrad's own hooks see no grad_inputs: a leaf sends nothing on
            _call_post_hooks(target, (), [grad])


def _add_retained_grad(tensor: Tensor, grad: Tensor) -> None:
    """``retain_grad()``: a non-leaf's ``.grad`` becomes a copy of the gradient, then the sum of the
    old ``.grad`` and the new one, a new tensor each time (PyTorch's retain_grad hook). With
    ``create_graph=True`` both are recorded (CloneBackward0, AddBackward0)."""
    tensor._grad = grad.clone() if tensor._grad is None else tensor._grad + grad


def _nobody_else_holds(grad: Tensor) -> bool:
    """True if nobody but the caller holds ``grad`` or its memory: then ``grad`` may become a leaf's
    ``.grad`` without a copy (PyTorch's AccumulateGrad asks the same of the reference counts).

    The caller holds ``grad`` in one local name and nothing else: with this parameter and
    ``getrefcount``'s own argument, that is 3. Any other holder (a hook that kept it, another leaf
    it was sent to, the user's ``grad_tensors``) makes the count higher, and the answer False. The
    array is held by the tensor alone. A view qualifies too when its base is held by the view alone
    (``nn.Linear``'s weight gradient is the transpose of a transposed product).
    """
    if not (_COUNTS_KNOWN and sys.getrefcount(grad) == 3 and sys.getrefcount(grad._data) == 2):
        return False
    if grad.is_sparse:   # a sparse .grad is never added into in place: holding the tensor is enough
        return True
    flags = grad._data.flags   # .grad is added into in place: no read-only or broadcast memory
    if not flags.writeable or not (flags.c_contiguous or flags.f_contiguous):
        return False
    base = grad._view_base
    if base is None:
        return grad._data.base is None
    # References to the base: the view's _view_base, the local name, getrefcount's argument; to its
    # array: the base itself, the view array's .base, getrefcount's argument.
    return (base._view_base is None and base._data.base is None and grad._data.base is base._data
            and sys.getrefcount(base) == 3 and sys.getrefcount(base._data) == 3)


# ---------------------------------------------------------------------------- reached from outside
def queue_callback(callback: Callable[[], None]) -> None:
    """Run ``callback()`` when the backward pass now running has finished (PyTorch's final callbacks)."""
    tasks = _thread_state.tasks
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
