"""Collect the nodes and edges of a backward graph, starting from some output tensors.

This is the only module of :mod:`minigrad.viz` that reads the autograd engine's
objects. It turns them into plain records (:class:`GraphModel`, :class:`NodeItem`,
:class:`TensorItem`, :class:`EdgeItem`) that the text and picture modules format.

The walk is iterative (no recursion limit on long chains) and deterministic: nodes
are found breadth-first from the outputs, in the order of ``next_functions``, and
then listed in *topological order* (a node comes after every node that sends it a
gradient), which is an order the engine may run them in. Nothing depends on memory
addresses, so the same code gives the same graph on every machine.

>>> import minigrad as torch
>>> x = torch.ones(3, requires_grad=True)
>>> model = walk([(x * 2).sum()], names={"x": x})
>>> [item.handle for item in model.nodes]
['SumBackward0', 'MulBackward0', 'AccumulateGrad(x)']
"""
from __future__ import annotations

import heapq
import itertools
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from minigrad.autograd import listeners, node_info

# How a node is drawn: a built-in op, a Function the learner wrote, an AccumulateGrad, or other.
BUILTIN, FUNCTION, ACCUMULATE, OTHER = node_info.BUILTIN, node_info.FUNCTION, node_info.ACCUMULATE, node_info.OTHER


@dataclass
class TensorItem:
    """A tensor shown in the graph: an output, a leaf, a saved tensor or a retained one."""

    key: str  # DOT identifier, e.g. "t0"
    tensor: Any  # the tensor itself (None for a freed saved tensor)
    role: str  # "output", "leaf", "saved", "retained", "named"
    name: str  # what the learner calls it: "z", "0.weight", "leaf 0", "self", "saved[0]"
    same_as: str = ""  # for a saved tensor: the name of the graph tensor it is (e.g. "x")
    non_differentiable_in: "NodeItem | None" = None  # output marked non-differentiable by this node
    note: str = ""  # e.g. "output 0 of this node" for a saved output nobody named
    made_by: "NodeItem | None" = None  # for a saved non-leaf tensor: the node whose output it is


@dataclass
class EdgeItem:
    """One entry ``(node, input_nr)`` of a node's ``next_functions``."""

    index: int  # position in next_functions
    target: "NodeItem | None"  # None: the input needs no gradient (or the node is collapsed away)
    input_nr: int
    arg_position: int | None  # which forward argument this edge belongs to
    arg_name: str  # the forward parameter's name ("self", "tensor") or "arg 0"
    needs_input_grad: bool | None
    hidden: bool = False  # True when target is inside the collapsed summary


@dataclass
class NonTensorArg:
    """A forward argument that is not a tensor: it has no edge and its gradient is None."""

    position: int
    name: str  # parameter name, or "arg 1"
    type_name: str  # e.g. "int", or "" when unknown


@dataclass
class NodeItem:
    """A backward node (``grad_fn``) with everything the pictures say about it."""

    key: str  # DOT identifier, e.g. "n0"
    node: Any
    name: str  # "MulBackward0", "MulConstantBackward", "AccumulateGrad"
    kind: str  # BUILTIN, FUNCTION, ACCUMULATE or OTHER
    handle: str = ""  # unique name in the text: "AddBackward0#2", "AccumulateGrad(x)"
    edges: list[EdgeItem] = field(default_factory=list)
    needs_input_grad: tuple | None = None
    non_tensor_args: list[NonTensorArg] = field(default_factory=list)
    ctx_attributes: dict = field(default_factory=dict)
    metadata: dict = field(default_factory=dict)
    saved: list[TensorItem] | None = field(default_factory=list)  # None: freed by backward
    saved_freed_names: tuple = ()  # names of the freed saved tensors, when known
    dirty: list[str] = field(default_factory=list)  # names of tensors marked dirty
    leaf: TensorItem | None = None  # for AccumulateGrad: the leaf it writes .grad into
    retained: list[TensorItem] = field(default_factory=list)  # non-leaf tensors made by this node
    order: int = 0  # discovery order (breadth-first)


@dataclass
class Summary:
    """The nodes left out when a graph has more than ``max_nodes`` nodes."""

    key: str
    counts: list[tuple[str, int]]  # (node name, how many), most frequent first

    @property
    def total(self) -> int:
        return sum(n for _, n in self.counts)

    @property
    def label(self) -> str:
        """e.g. ``'... 120 more nodes (MulBackward0 x60, AddBackward0 x60)'``."""
        shown = ", ".join(f"{name} x{n}" for name, n in self.counts[:4])
        if len(self.counts) > 4:
            shown += ", ..."
        return f"... {self.total} more nodes ({shown})"


@dataclass
class GraphModel:
    """Everything :func:`walk` found, in a deterministic order."""

    outputs: list[TensorItem]
    nodes: list[NodeItem]  # visible nodes, topological order
    output_nodes: dict[str, NodeItem | None]  # output key -> its grad_fn item (None if not drawn)
    summary: Summary | None = None
    summary_in: list[NodeItem] = field(default_factory=list)  # visible nodes with edges into the summary
    summary_out: list[NodeItem] = field(default_factory=list)  # visible nodes the summary sends to
    total_nodes: int = 0

    @property
    def edge_count(self) -> int:
        """Edges between visible backward nodes (not the edges (None, 0), which lead to no node)."""
        return sum(1 for item in self.nodes for e in item.edges if e.target is not None)

    @property
    def edges_to_nowhere(self) -> int:
        """The ``(None, 0)`` entries of ``next_functions``: edges that lead to no node (not drawn)."""
        return sum(1 for item in self.nodes for e in item.edges if e.target is None and not e.hidden)

    @property
    def leaves(self) -> list[TensorItem]:
        return [item.leaf for item in self.nodes if item.leaf is not None]


def flatten_tensors(values: Iterable[Any]) -> list[Any]:
    """Flatten nested tuples/lists (a Function's tuple output) into a list of tensors."""
    out: list[Any] = []
    stack = list(reversed(list(values)))
    while stack:
        value = stack.pop()
        if isinstance(value, (tuple, list)):
            stack.extend(reversed(list(value)))
        elif value is not None:
            out.append(value)
    return out


def named_tensors(params: Any) -> list[tuple[str, Any]]:
    """``params`` as (name, tensor) pairs: a dict, a Module, or an iterable of pairs."""
    if params is None:
        return []
    if hasattr(params, "named_parameters"):
        return list(params.named_parameters())
    if isinstance(params, Mapping):
        return list(params.items())
    return [(name, tensor) for name, tensor in params]


def node_kind(node: Any) -> str:
    if type(node).__name__ == "AccumulateGrad" or hasattr(node, "variable"):
        return ACCUMULATE
    return node_info.kind(node)


def node_name(node: Any) -> str:
    if node_kind(node) == ACCUMULATE:
        return "AccumulateGrad"
    try:
        return str(node.name())
    except Exception:  # a half-built or foreign node: fall back on the class name
        return type(node).__name__


def forward_parameter_names(node: Any) -> list[str]:
    """Names of the forward's positional parameters, without ``ctx`` (empty if unknown)."""
    return node_info.argument_names(node)


class _Walker:
    """Finds the nodes reachable from some outputs and puts them in topological order."""

    def __init__(self, outputs: list[Any]) -> None:
        self.output_tensors = outputs
        self.keep_alive: list[Any] = []  # retained tensors found through weak references
        # id(node) -> its record. Ids are only dictionary keys here (the nodes stay alive
        # while we walk); nothing shown to the learner depends on them.
        self.items: dict[int, NodeItem] = {}

    @listeners.graph_walk
    def discover(self) -> list[NodeItem]:
        """Breadth-first from the outputs' grad_fns, children in next_functions order."""
        found: list[NodeItem] = []
        queue: deque[Any] = deque()

        def visit(node: Any) -> None:
            if node is None or id(node) in self.items:
                return
            item = NodeItem(key="", node=node, name=node_name(node), kind=node_kind(node),
                            order=len(found))
            self.items[id(node)] = item
            found.append(item)
            queue.append(node)

        for tensor in self.output_tensors:
            visit(getattr(tensor, "grad_fn", None))
        while queue:
            node = queue.popleft()
            for child, _ in getattr(node, "next_functions", ()) or ():
                visit(child)
        return found

    def topological(self, found: list[NodeItem]) -> list[NodeItem]:
        """Kahn's algorithm; among ready nodes the one found first goes first."""
        indegree = Counter()
        for item in found:
            for child, _ in getattr(item.node, "next_functions", ()) or ():
                if child is not None:
                    indegree[id(child)] += 1
        ready = [(item.order, item.order) for item in found if indegree[id(item.node)] == 0]
        heapq.heapify(ready)
        ordered: list[NodeItem] = []
        while ready:
            _, index = heapq.heappop(ready)
            item = found[index]
            ordered.append(item)
            for child, _ in getattr(item.node, "next_functions", ()) or ():
                if child is None:
                    continue
                indegree[id(child)] -= 1
                if indegree[id(child)] == 0:
                    child_item = self.items[id(child)]
                    heapq.heappush(ready, (child_item.order, child_item.order))
        if len(ordered) != len(found):  # a cycle cannot happen in autograd, but never lose nodes
            seen = {id(item.node) for item in ordered}
            ordered += [item for item in found if id(item.node) not in seen]
        return ordered


def walk(tensors: Iterable[Any], params: Any = None, names: Mapping[str, Any] | None = None,
         max_nodes: int | None = None) -> GraphModel:
    """Collect the backward graph that ends in ``tensors``.

    Args:
        tensors: output tensors (nested tuples and lists are flattened).
        params: names for leaf tensors: a dict ``{name: tensor}``, an ``nn.Module``
            (its ``named_parameters()``), or ``(name, tensor)`` pairs.
        names: names for any tensor (outputs, leaves, intermediates), ``{name: tensor}``.
        max_nodes: keep at most about this many nodes; the rest become one summary.
    """
    outputs = flatten_tensors(tensors)
    name_of: dict[int, str] = {}
    keep: list[Any] = []
    for name, tensor in named_tensors(params) + list((names or {}).items()):
        name_of[id(tensor)] = str(name)
        keep.append(tensor)

    walker = _Walker(outputs)
    found = walker.discover()
    ordered = walker.topological(found)
    total = len(ordered)
    for position, item in enumerate(ordered):
        item.key = f"n{position}"

    visible = ordered
    summary: Summary | None = None
    if max_nodes is not None and total > max_nodes:
        visible, summary = _collapse(ordered, max_nodes)
    visible_ids = {id(item.node) for item in visible}

    # Tensors: outputs first, then leaves, saved and retained tensors as nodes are described.
    counter = itertools.count()

    def new_tensor(tensor: Any, role: str, name: str) -> TensorItem:
        return TensorItem(key=f"t{next(counter)}", tensor=tensor, role=role, name=name)

    output_items: list[TensorItem] = []
    single = len(outputs) == 1
    for index, tensor in enumerate(outputs):
        default = "output" if single else f"output {index}"
        output_items.append(new_tensor(tensor, "output", name_of.get(id(tensor), default)))

    # Leaves: named ones keep their names, the others are numbered in graph order.
    unnamed = 0
    for item in visible:
        if item.kind == ACCUMULATE:
            leaf = getattr(item.node, "variable", None)
            name = name_of.get(id(leaf))
            if name is None:
                name = f"leaf {unnamed}"
                unnamed += 1
            item.leaf = new_tensor(leaf, "leaf", name)

    known: list[tuple[Any, str]] = [(t.tensor, t.name) for t in output_items]
    known += [(item.leaf.tensor, item.leaf.name) for item in visible if item.leaf is not None]
    for tensor in keep:
        known.append((tensor, name_of[id(tensor)]))

    output_ids = {id(t) for t in outputs}
    named_nonleaf = [t for t in keep if getattr(t, "grad_fn", None) is not None
                     and id(t) not in output_ids]
    for item in visible:
        _describe_node(item, walker, visible_ids, known, name_of, new_tensor, output_ids,
                       named_nonleaf)

    # Outputs without a grad_fn may be marked non-differentiable by a node of the graph.
    for out in output_items:
        if getattr(out.tensor, "grad_fn", None) is None:
            for item in visible:
                marked = node_info.non_differentiable_tensors(item.node)
                if any(t is out.tensor for t in marked):
                    out.non_differentiable_in = item
                    break

    _assign_handles(visible)
    output_nodes = {}
    for out in output_items:
        fn = getattr(out.tensor, "grad_fn", None)
        output_nodes[out.key] = walker.items.get(id(fn)) if fn is not None and id(fn) in visible_ids else None
    model = GraphModel(outputs=output_items, nodes=visible, output_nodes=output_nodes,
                       summary=summary, total_nodes=total)
    if summary is not None:
        hidden_ids = {id(item.node) for item in ordered} - visible_ids
        model.summary_in = [item for item in visible if any(e.hidden for e in item.edges)]
        model.summary_out = [walker.items[id(child)] for child in _summary_targets(ordered, hidden_ids, visible_ids)]
    return model


def _collapse(ordered: list[NodeItem], max_nodes: int) -> tuple[list[NodeItem], Summary]:
    """Keep the ``max_nodes`` nodes nearest the outputs, plus the leaves' AccumulateGrad nodes
    when there are few enough of them; everything else is counted in one summary node."""
    keep = ordered[:max_nodes]
    kept = {id(item.node) for item in keep}
    accumulators = [item for item in ordered[max_nodes:] if item.kind == ACCUMULATE]
    if len(accumulators) + sum(1 for item in keep if item.kind == ACCUMULATE) <= max(4, max_nodes // 2):
        keep = keep + accumulators
        kept |= {id(item.node) for item in accumulators}
    hidden = [item for item in ordered if id(item.node) not in kept]
    counts = Counter(item.name for item in hidden)
    summary = Summary(key="summary", counts=sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return keep, summary


def _summary_targets(ordered: list[NodeItem], hidden_ids: set, visible_ids: set) -> list[Any]:
    """Visible nodes that some hidden node sends gradients to, in topological order."""
    targets: dict[int, Any] = {}
    for item in ordered:
        if id(item.node) in hidden_ids:
            for child, _ in getattr(item.node, "next_functions", ()) or ():
                if child is not None and id(child) in visible_ids:
                    targets.setdefault(id(child), child)
    order = {id(item.node): i for i, item in enumerate(ordered)}
    return sorted(targets.values(), key=lambda node: order[id(node)])


def _type_name_for(item: NodeItem, name: str, position: int) -> str:
    """The type of a non-tensor argument, guessed from a ctx attribute of the same name
    (``ctx.constant = constant``, ``ctx.N = n``); the engine does not record it."""
    if name in item.ctx_attributes:
        return type(item.ctx_attributes[name]).__name__
    same = [value for key, value in item.ctx_attributes.items() if key.lower() == name.lower()]
    return type(same[0]).__name__ if len(same) == 1 else ""


def _describe_node(item: NodeItem, walker: _Walker, visible_ids: set, known: list,
                   name_of: dict, new_tensor, output_ids: set, named_nonleaf: list) -> None:
    node = item.node
    params = forward_parameter_names(node)
    needs = getattr(node, "needs_input_grad", None)
    item.needs_input_grad = tuple(needs) if needs is not None else None
    positions = node_info.argument_positions(node)
    item.ctx_attributes = node_info.ctx_attributes(node)
    item.metadata = dict(getattr(node, "metadata", None) or {})

    def arg_name(position: int | None, index: int) -> str:
        if position is not None and position < len(params):
            return params[position]
        return f"arg {position if position is not None else index}"

    for index, (child, input_nr) in enumerate(getattr(node, "next_functions", ()) or ()):
        position = positions[index] if positions is not None and index < len(positions) else None
        if position is None and positions is None and item.needs_input_grad is not None:
            position = index
        need = None
        if item.needs_input_grad is not None and position is not None and position < len(item.needs_input_grad):
            need = bool(item.needs_input_grad[position])
        target = None
        hidden = False
        if child is not None:
            if id(child) in visible_ids:
                target = walker.items[id(child)]
            else:
                hidden = True
        item.edges.append(EdgeItem(index=index, target=target, input_nr=int(input_nr),
                                   arg_position=position, arg_name=arg_name(position, index),
                                   needs_input_grad=need, hidden=hidden))

    if item.needs_input_grad is not None and positions is not None:
        used = set(positions)
        for position in range(len(item.needs_input_grad)):
            if position not in used:
                name = arg_name(position, position)
                item.non_tensor_args.append(NonTensorArg(position, name, _type_name_for(item, name, position)))

    # Saved tensors: named like PyTorch's _saved_<name> for built-ins, saved[i] otherwise.
    if item.kind in (BUILTIN, FUNCTION):
        saved_names = node_info.saved_names(node)
        raw = node_info.saved_tensors(node)
        if raw is None:
            item.saved = None
            held = node_info.freed_slots(node)  # which slots held a tensor, when known
            item.saved_freed_names = saved_names if held is None else tuple(
                name for name, kept in zip(saved_names, held) if kept)
        else:
            item.saved = []
            for index, tensor in enumerate(raw):
                name = saved_names[index] if index < len(saved_names) else f"saved[{index}]"
                saved = new_tensor(tensor, "saved", name)
                if tensor is not None:
                    nr = node_info.saved_output_nr(node, index)
                    if nr is not None:
                        # A saved output is kept as an alias without grad_fn: find the output itself.
                        saved.same_as = _output_name(node, nr, known)
                        saved.note = "" if saved.same_as else f"output {nr} of this node"
                    else:
                        saved.same_as = _same_as(tensor, known)
                        maker = getattr(tensor, "grad_fn", None)
                        if not saved.same_as and maker is not None and id(maker) in visible_ids:
                            saved.made_by = walker.items[id(maker)]
                item.saved.append(saved)

    for tensor in node_info.dirty_tensors(node):
        item.dirty.append(_same_as(tensor, known) or "a tensor")

    # Non-leaf tensors made by this node: retain_grad() ones and the ones the caller named.
    extra: list[Any] = list(node_info.retained_tensors(node).values())
    extra += [t for t in named_nonleaf if getattr(t, "grad_fn", None) is node]
    seen: set[int] = set()
    for tensor in extra:
        if id(tensor) in seen or id(tensor) in output_ids:
            continue
        seen.add(id(tensor))
        walker.keep_alive.append(tensor)
        retains = bool(getattr(tensor, "retains_grad", False))
        name = name_of.get(id(tensor), "retained tensor" if retains else "tensor")
        item.retained.append(new_tensor(tensor, "retained" if retains else "named", name))


def _output_name(node: Any, output_nr: int, known: list[tuple[Any, str]]) -> str:
    """The name of the known tensor that is output ``output_nr`` of ``node``."""
    for other, name in known:
        if getattr(other, "grad_fn", None) is node and getattr(other, "output_nr", 0) == output_nr:
            return name
    return ""


def _same_as(tensor: Any, known: list[tuple[Any, str]]) -> str:
    """The name of a graph tensor that ``tensor`` is."""
    for other, name in known:
        if other is tensor:
            return name
    return ""


def _assign_handles(items: list[NodeItem]) -> None:
    """Unique names for the text and pictures: ``AccumulateGrad(x)``, and ``#1``, ``#2`` for
    repeated names, numbered in creation order (``#1`` is the node the forward pass made first)."""
    counts = Counter(item.name for item in items if item.kind != ACCUMULATE)
    seen: Counter = Counter()
    for item in sorted(items, key=lambda item: node_info.sequence_nr(item.node)):
        if item.kind == ACCUMULATE:
            item.handle = f"AccumulateGrad({item.leaf.name})" if item.leaf is not None else "AccumulateGrad"
        elif counts[item.name] > 1:
            seen[item.name] += 1
            item.handle = f"{item.name}#{seen[item.name]}"
        else:
            item.handle = item.name
