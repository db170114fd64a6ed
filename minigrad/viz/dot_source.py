"""Write a backward graph as DOT, the text Graphviz's ``dot`` program draws.

The DOT text is built by hand (no ``graphviz`` package needed): node identifiers
are ``n0, n1, ...`` for backward nodes and ``t0, t1, ...`` for tensors, numbered in
walk order, so the same graph gives the same DOT text every time. Every graph
attribute that changes the picture (dpi, size cap, fonts) is set explicitly.

Layout: with ``rankdir="TB"`` the outputs are at the top and each arrow points
the way the gradient flows, from a node to the nodes in its ``next_functions``,
down to ``AccumulateGrad`` and the leaf. (torchviz draws the arrows the other
way, along the forward pass; here the picture follows the backward pass.)

A :class:`FrameState` paints one step of a backward trace over the same graph.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from minigrad.autograd import node_info

from . import style
from .describe import NOT_COMPUTED, attribute_lines
from .formatting import describe_tensor, describe_value, describe_value_short
from .graph_walk import ACCUMULATE, FUNCTION, GraphModel, NodeItem, TensorItem
from .options import DrawOptions


@dataclass
class FrameState:
    """What one frame of a backward trace highlights.

    ``visited`` nodes are drawn normally and the others faded; ``current`` gets a
    thick vermillion border; ``edge_grads`` maps ``(node key, edge index)`` to the
    gradient text written on that edge; ``current_edges`` are the edges of this step.
    ``leaf_grads`` maps a tensor key to the text of its ``.grad`` line at this step
    (``'grad will be [3., 3.]'`` once its gradient has arrived: the engine writes ``.grad`` at the end).
    """

    visited: set[str] = field(default_factory=set)
    current: str | None = None
    edge_grads: dict[tuple[str, int], str] = field(default_factory=dict)
    current_edges: set[tuple[str, int]] = field(default_factory=set)
    leaf_grads: dict[str, str] = field(default_factory=dict)
    output_grads: dict[str, str] = field(default_factory=dict)
    output_current: bool = False  # step 1: the output's gradient is being handed to its node
    caption: str = ""


def html(text: str) -> str:
    """Escape text for a Graphviz HTML-like label."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def quote(text: str) -> str:
    """A double-quoted DOT string."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def label(title: str, *lines: str, bold: bool = True) -> str:
    """An HTML-like label: a title, then smaller grey lines."""
    head = f"<B>{html(title)}</B>" if bold else html(title)
    body = "".join(f"<BR/>{html(line)}" for line in lines if line)
    if body:
        body = f'<FONT POINT-SIZE="9" COLOR="{style.NOTE}">{body[5:]}</FONT>'
        return f"<{head}<BR/>{body}>"
    return f"<{head}>"


def attrs(**values: str) -> str:
    """``[a="1", b=<...>]``: HTML labels (starting with '<') are written unquoted."""
    parts = []
    for name, value in values.items():
        if value is None:
            continue
        text = value if isinstance(value, str) and value.startswith("<") else quote(str(value))
        parts.append(f"{name}={text}")
    return "[" + ", ".join(parts) + "]"


def box(colours: tuple[str, str], rounded: bool = False, dashed: bool = False) -> dict:
    fill, border = colours
    kinds = ["filled"] + (["rounded"] if rounded else []) + (["dashed"] if dashed else [])
    return {"style": ",".join(kinds), "fillcolor": fill, "color": border}


def graph_header(options: DrawOptions, size: str = style.MAX_SIZE, name: str = "backward") -> list[str]:
    lines = [f"digraph {name} {{",
             f"  graph {attrs(rankdir=options.rankdir, dpi=str(style.DPI), size=size, ranksep='0.35', nodesep='0.3', pad='0.15', fontname=style.FONT, fontsize='12', bgcolor='white', newrank='true')};",
             f"  node {attrs(shape='box', fontname=style.FONT, fontsize='11', margin='0.12,0.06', penwidth='1.3', height='0.3')};",
             f"  edge {attrs(fontname=style.FONT, fontsize='9', color=style.EDGE, fontcolor=style.NOTE, arrowsize='0.7')};"]
    if options.title:
        lines.append(f"  label={quote(options.title)}; labelloc=t;")
    return lines


class _Writer:
    """Builds the lines of one DOT graph from a :class:`GraphModel`."""

    def __init__(self, model: GraphModel, options: DrawOptions, state: FrameState | None,
                 prefix: str = "") -> None:
        self.model, self.options, self.state = model, options, state
        self.prefix = prefix  # "f1_" when several frames share one DOT graph
        self.lines: list[str] = []

    # -- helpers ---------------------------------------------------------------------------
    def emit(self, text: str) -> None:
        self.lines.append("  " + text)

    def faded(self, key: str) -> bool:
        return self.state is not None and key not in self.state.visited

    def node(self, key: str, label_text: str, look: dict, trace_key: str | None = None) -> None:
        look = dict(look)
        if trace_key is not None and self.state is not None:
            if trace_key == self.state.current:
                look["color"], look["penwidth"] = style.CURRENT, "3.5"
            elif self.faded(trace_key):
                look["color"], look["fontcolor"] = style.FADED, style.FADED
                look["fillcolor"] = "#FFFFFF"
        self.emit(f"{self.prefix}{key} {attrs(label=label_text, **look)};")

    def edge(self, a: str, b: str, **look: str) -> None:
        self.emit(f"{self.prefix}{a} -> {self.prefix}{b} {attrs(**look)};")

    def same_rank(self, keys: list[str]) -> None:
        self.emit("{rank=same; " + "; ".join(self.prefix + key for key in keys) + ";}")

    def grad_line(self, item: TensorItem) -> str:
        if not self.options.show_grads:
            return ""
        if self.state is not None and item.key in self.state.leaf_grads:
            return self.state.leaf_grads[item.key]
        grad = getattr(item.tensor, "_grad", None)
        if grad is None:
            return "grad: " + NOT_COMPUTED
        return "grad: " + describe_value_short(grad)

    def tensor_lines(self, item: TensorItem) -> list[str]:
        lines = [describe_tensor(item.tensor)]
        if self.options.show_data:
            lines.append("= " + describe_value(item.tensor))
        return lines

    # -- parts of the graph -------------------------------------------------------------------
    def outputs(self) -> None:
        for out in self.model.outputs:
            tensor = out.tensor
            lines = self.tensor_lines(out)
            target = self.model.output_nodes.get(out.key)
            if out.non_differentiable_in is not None:
                lines.append("non-differentiable")
                self.node(out.key, label(out.name, *lines), box(style.NON_DIFFERENTIABLE, dashed=True))
                self.edge(out.key, out.non_differentiable_in.key, style="dotted", arrowhead="none",
                          color=style.LIGHT_GREY, label="no gradient")
                continue
            if getattr(tensor, "grad_fn", None) is None:
                if getattr(tensor, "requires_grad", False):
                    lines.append(self.grad_line(out))
                    self.node(out.key, label(out.name, *lines), box(style.LEAF))
                else:
                    lines.append("requires_grad=False: no graph")
                    self.node(out.key, label(out.name, *lines), box(style.NON_DIFFERENTIABLE, dashed=True))
                continue
            if getattr(tensor, "retains_grad", False):
                lines.append(self.grad_line(out))
            self.node(out.key, label(out.name, *lines), box(style.OUTPUT))
            look = {}
            if self.state is not None and out.key in self.state.output_grads:
                look = {"label": " " + self.state.output_grads[out.key]}
                if self.state.output_current:
                    look.update(color=style.CURRENT, fontcolor=style.CURRENT, penwidth="2.2")
            if target is not None:
                self.edge(out.key, target.key, **look)
            elif self.model.summary is not None:
                self.edge(out.key, self.model.summary.key, **look)

    def node_label(self, item: NodeItem) -> str:
        if item.kind == ACCUMULATE:
            return label("AccumulateGrad", bold=False)
        lines: list[str] = []
        if item.kind == FUNCTION:
            forward_cls = node_info.function_class(item.node)
            if forward_cls is not None:
                lines.append(f"ctx of {forward_cls.__name__}")
        if self.options.show_attrs:
            lines += attribute_lines(item, self.options)
            if item.kind == FUNCTION and item.needs_input_grad is not None:
                flags = ", ".join(str(bool(b)) for b in item.needs_input_grad)
                if len(item.needs_input_grad) == 1:
                    flags += ","
                lines.append(f"needs_input_grad=({flags})")
            for edge in item.edges:
                if edge.target is None and not edge.hidden:
                    lines.append(f"{edge.arg_name}: no grad needed (None, 0)")
            for arg in item.non_tensor_args:
                why = "not a tensor" if item.kind == FUNCTION else "no edge"
                lines.append(f"{arg.name} ({why}, grad None)")
            if item.dirty:
                lines.append("dirty: " + ", ".join(item.dirty))
        return label(item.handle or item.name, *lines)

    def backward_nodes(self) -> None:
        looks = {ACCUMULATE: style.ACCUMULATE, FUNCTION: style.FUNCTION}
        groups = spines(self.model)
        for item in self.model.nodes:
            look = box(looks.get(item.kind, style.BUILTIN), rounded=True)
            if item.key in groups:
                look["group"] = groups[item.key]
            self.node(item.key, self.node_label(item), look, trace_key=item.key)

    def edge_label(self, item: NodeItem, edge) -> str:
        """Built-in ops name the argument when they have several (``self``, ``other``); your own
        Functions also say ``needs_input_grad[i]=True``, the flag this edge corresponds to."""
        if not self.options.show_attrs or item.kind == ACCUMULATE:
            return ""
        if item.kind == FUNCTION and edge.arg_position is not None and edge.needs_input_grad is not None:
            return f"{edge.arg_name}\nneeds_input_grad[{edge.arg_position}]={edge.needs_input_grad}"
        return edge.arg_name if len(item.edges) > 1 else ""

    def edges(self) -> None:
        shortcuts = long_edges(self.model)
        for item in self.model.nodes:
            for edge in item.edges:
                if edge.target is None and not edge.hidden:
                    continue
                target = edge.target.key if edge.target is not None else self.model.summary.key
                look: dict[str, str] = {}
                text = self.edge_label(item, edge)
                if self.state is not None:
                    slot = (item.key, edge.index)
                    grad = self.state.edge_grads.get(slot)
                    if grad is not None:
                        text = f"{text}: {grad}" if text else grad
                        if slot in self.state.current_edges:
                            look.update(color=style.CURRENT, fontcolor=style.CURRENT, penwidth="2.2")
                    elif self.faded(item.key):
                        look.update(color=style.FADED)
                if text:
                    look["label"] = " " + text
                if (item.key, edge.index) in shortcuts:
                    # A long edge into a shared node: point at it by name instead of drawing
                    # the edge across the whole picture (that also keeps dot fast).
                    proxy = f"{item.key}_to{edge.index}"
                    self.node(proxy, label(f"to {edge.target.handle}", bold=False),
                              {"shape": "plaintext", "style": "", "fontcolor": style.NOTE, "fontsize": "9"})
                    target = proxy
                self.edge(item.key, target, **look)

    def leaves(self) -> None:
        for item in self.model.nodes:
            leaf = item.leaf
            if leaf is None:
                continue
            lines = self.tensor_lines(leaf) + [self.grad_line(leaf)]
            look = box(style.LEAF)
            if self.state is not None and leaf.key in self.state.leaf_grads and item.key == self.state.current:
                look.update(color=style.CURRENT, penwidth="2.5")
            self.node(leaf.key, label(leaf.name, *lines), look)
            self.edge(item.key, leaf.key, label=" .grad", arrowhead="empty")

    def saved_line(self, saved: TensorItem) -> str:
        """One row of a saved-tensors box, e.g. ``'mat2 = 2.weight, [8, 2] float32'``: the same
        slots, names and makers (``AddmmBackward0#2``) as the text description."""
        tensor = saved.tensor
        if tensor is None:
            return f"{saved.name}: None (not saved)"
        if saved.same_as:
            return f"{saved.name} = {saved.same_as}, {describe_tensor(tensor)}"
        if getattr(tensor, "_wrapped_number", False):
            return f"{saved.name} = {describe_value(tensor)} (a Python number, made a tensor)"
        text = f"{saved.name}: {describe_tensor(tensor)}"
        if self.options.show_data or tensor.numel() == 1:
            text += f" = {describe_value(tensor)}"
        if saved.note:
            text += f" ({saved.note})"
        elif saved.made_by is not None:
            text += f" (output of {saved.made_by.handle})"
        return text

    def saved(self) -> None:
        """One orange box per node listing what it saved, joined to it by a dashed line."""
        if not self.options.show_saved:
            return
        for item in self.model.nodes:
            key = f"{item.key}_saved"
            if item.saved is None:
                names = ", ".join(item.saved_freed_names) or "saved tensors"
                self.node(key, label("saved for backward", f"{names}: freed after backward", bold=False),
                          {"style": "dashed", "color": style.SAVED[1], "fontcolor": style.NOTE})
            else:
                rows = [self.saved_line(s) for s in item.saved]   # a slot saved as None too
                if not rows:
                    continue
                self.node(key, label("saved for backward", *rows, bold=False), box(style.SAVED))
            self.edge(key, item.key, style="dashed", color=style.SAVED[1], arrowhead="none")
            self.same_rank([key, item.key])

    def retained(self) -> None:
        for item in self.model.nodes:
            for tensor in item.retained:
                lines = self.tensor_lines(tensor)
                if self.options.show_grads:
                    if tensor.role == "retained":
                        lines.append(self.grad_line(tensor))
                    else:
                        lines.append("grad not kept (not a leaf)")
                self.node(tensor.key, label(tensor.name, *lines), box(style.RETAINED))
                self.edge(tensor.key, item.key, style="dotted", color=style.RETAINED[1],
                          arrowhead="none", label=" grad_fn")
                self.same_rank([item.key, tensor.key])

    def summary(self) -> None:
        summary = self.model.summary
        if summary is None:
            return
        self.node(summary.key, label(summary.label, "raise max_nodes to draw them", bold=False),
                  {"style": "filled,dotted", "fillcolor": style.SUMMARY[0], "color": style.SUMMARY[1],
                   "shape": "box"}, trace_key=summary.key)
        for item in self.model.summary_out:
            self.edge(summary.key, item.key, style="dotted")

    def write(self, size: str, name: str = "backward", header: bool = True) -> str:
        if header:
            self.lines = graph_header(self.options, size, name)
        self.outputs()
        self.backward_nodes()
        self.edges()
        self.leaves()
        self.saved()
        self.retained()
        self.summary()
        if header:
            self.lines.append("}")
        return "\n".join(self.lines) + "\n"


def spines(model: GraphModel) -> dict[str, str]:
    """Chains of first inputs, ``{node key: group name}``: dot draws each chain straight.

    Following ``next_functions[0]`` from a node gives the "main line" of a computation
    (``h`` in ``h = h * w + b``); giving its nodes one Graphviz group keeps it vertical.
    """
    groups: dict[str, str] = {}
    for item in model.nodes:
        groups.setdefault(item.key, f"g{item.key}")
        first = next((e for e in item.edges if e.target is not None), None)
        if first is not None and first.target.kind != ACCUMULATE:
            groups.setdefault(first.target.key, groups[item.key])
    return groups


LONG_SPAN = 3  # an edge into a shared node that skips more ranks than this becomes a pointer


def long_edges(model: GraphModel) -> set[tuple[str, int]]:
    """Edges ``(node key, edge index)`` drawn as a short pointer "to X" instead of a line.

    Only edges into a node that three or more edges point at (a weight used in every step
    of a loop) and that would span more than ``LONG_SPAN`` ranks; the closest edge into
    each such node is always drawn. Without this, ``dot`` needs minutes for an unrolled
    loop of a few hundred steps, and the picture is a fan of crossing lines.
    """
    level: dict[str, int] = {item.key: 0 for item in model.nodes}
    incoming: dict[str, list[tuple[int, str, int]]] = {}
    for item in model.nodes:  # topological order: a node's level is final when we reach it
        for edge in item.edges:
            if edge.target is not None:
                level[edge.target.key] = max(level[edge.target.key], level[item.key] + 1)
                incoming.setdefault(edge.target.key, []).append((level[item.key], item.key, edge.index))
    shortcuts: set[tuple[str, int]] = set()
    for target, sources in incoming.items():
        if len(sources) < 3:
            continue
        closest = max(sources, key=lambda s: s[0])
        for source in sources:
            if source is not closest and level[target] - source[0] > LONG_SPAN:
                shortcuts.add((source[1], source[2]))
    return shortcuts


def to_dot(model: GraphModel, options: DrawOptions | None = None, state: FrameState | None = None,
           size: str = style.MAX_SIZE) -> str:
    """The DOT text of a backward graph (and, with ``state``, of one trace step)."""
    return _Writer(model, options or DrawOptions(), state).write(size)
