"""Describe a backward graph in words: the ``text/plain`` of a graph picture.

The description says the same things as the picture, line by line, in the order
backward can visit the nodes. It is what a screen reader reads, what ``print(graph)``
shows, and what nbval compares in the course's notebooks, so it never contains a
memory address or a machine-dependent number.

Arrows ``->`` point the way gradients flow: from an output, through the nodes'
``next_functions``, down to ``AccumulateGrad`` and the leaf whose ``.grad`` it fills.

>>> import minigrad as torch
>>> from minigrad.viz.graph_walk import walk
>>> x = torch.ones(3, requires_grad=True)
>>> print(describe(walk([x.exp()], names={"x": x})))
Backward graph: 2 nodes, 1 edge between nodes (-> is the way gradients flow)
output: [3] float32 -> ExpBackward0
ExpBackward0
  saved: result = output
  -> AccumulateGrad(x)
AccumulateGrad(x) -> leaf x: [3] float32, grad: not computed yet
"""
from __future__ import annotations

from typing import Any

from minigrad.autograd import node_info

from .formatting import describe_tensor, describe_value
from .graph_walk import ACCUMULATE, BUILTIN, FUNCTION, GraphModel, NodeItem, TensorItem
from .options import DrawOptions

NOT_COMPUTED = "not computed yet"


def short_repr(value: Any, max_chars: int = 50) -> str:
    """A ctx attribute's value in a few characters: tensors by shape, the rest by repr."""
    if hasattr(value, "shape") and hasattr(value, "dtype") and hasattr(value, "grad_fn"):
        text = "tensor " + describe_tensor(value)
    else:
        text = repr(value)
        if " at 0x" in text:  # an object's default repr carries its address
            text = f"<{type(value).__name__}>"
    if len(text) > max_chars:
        text = text[: max(0, max_chars - 3)] + "..."
    return text


def attribute_lines(item: NodeItem, options: DrawOptions) -> list[str]:
    """``['constant=10']``: what the forward stored on ctx (plus the node's metadata dict)."""
    lines = [f"{name}={short_repr(value, options.max_attr_chars)}"
             for name, value in item.ctx_attributes.items()]
    if item.metadata:
        lines.append("metadata=" + short_repr(item.metadata, options.max_attr_chars))
    return lines


def grad_text(tensor: Any) -> str:
    """The ``.grad`` of a leaf or retained tensor: its values, or "not computed yet"."""
    grad = getattr(tensor, "_grad", None)
    if grad is None:
        return NOT_COMPUTED
    return describe_value(grad)


def tensor_text(item: TensorItem, options: DrawOptions) -> str:
    """``'[3] float32'``, with the values when ``show_data`` is on."""
    if item.tensor is None:
        return "None"
    text = describe_tensor(item.tensor)
    if options.show_data:
        text += " = " + describe_value(item.tensor)
    return text


def saved_text(item: TensorItem, options: DrawOptions) -> str:
    """One saved tensor: ``'self = y'``, ``'other: scalar float32 (3.)'``, ``'saved[0]: [3] float32'``."""
    if item.tensor is None:
        return f"{item.name}: None (not saved)"
    if item.same_as:
        return f"{item.name} = {item.same_as}"
    if getattr(item.tensor, "_wrapped_number", False):
        return f"{item.name} = {describe_value(item.tensor)} (a Python number, made a tensor)"
    text = f"{item.name}: {describe_tensor(item.tensor)}"
    if options.show_data or item.tensor.numel() == 1:
        text += f" ({describe_value(item.tensor)})"
    if item.note:
        text += f" ({item.note})"
    elif item.made_by is not None:
        text += f" (output of {item.made_by.handle})"
    return text


def function_title(item: NodeItem) -> str:
    """``'MulConstantBackward (ctx of your Function MulConstant)'`` for a learner's Function."""
    if item.kind == FUNCTION:
        forward_cls = node_info.function_class(item.node)
        if forward_cls is not None:
            return f"{item.handle} (ctx of the Function {forward_cls.__name__})"
    return item.handle


def edge_text(edge, item: NodeItem) -> str:
    """Why an edge exists: which forward argument it carries the gradient of.

    For a built-in op only the argument's name, when there are several (``self``,
    ``other``); for your own Function also ``needs_input_grad``.
    """
    if item.kind == BUILTIN:
        return edge.arg_name if len(item.edges) > 1 else ""
    parts = []
    if edge.arg_position is not None:
        parts.append(f"input {edge.arg_name}")
        if edge.needs_input_grad is not None:
            parts.append(f"needs_input_grad[{edge.arg_position}]={edge.needs_input_grad}")
    elif item.kind != ACCUMULATE:
        parts.append(f"next_functions[{edge.index}]")
    return ", ".join(parts)


def non_tensor_text(arg, builtin: bool = False) -> str:
    """``'constant is not a tensor: no edge, its gradient is None'``.

    A built-in's argument without an edge may be a tensor that never carries a gradient (integer
    indices or targets) or an option (``dim``, ``reduction``): it is described as such.
    """
    if builtin:
        return f"{arg.name} never carries a gradient: no edge, its gradient is None"
    return f"{arg.name} is not a tensor: no edge, its gradient is None"


def leaf_text(leaf: TensorItem, options: DrawOptions) -> str:
    text = f"leaf {leaf.name}" if not leaf.name.startswith("leaf ") else leaf.name
    text += f": {tensor_text(leaf, options)}"
    if options.show_grads:
        text += f", grad: {grad_text(leaf.tensor)}"
    return text


def output_text(out: TensorItem, model: GraphModel, options: DrawOptions) -> str:
    tensor = out.tensor
    text = f"{out.name}: {tensor_text(out, options)}"
    target = model.output_nodes.get(out.key)
    if target is not None:
        text += f" -> {target.handle}"
        if options.show_grads and getattr(tensor, "retains_grad", False):
            text += f" (retain_grad, grad: {grad_text(tensor)})"
    elif getattr(tensor, "grad_fn", None) is not None:
        text += " -> (collapsed)"
    elif out.non_differentiable_in is not None:
        text += (f", non-differentiable (marked by {out.non_differentiable_in.handle}): "
                 "no gradient flows back from it")
    elif getattr(tensor, "is_leaf", True) and getattr(tensor, "requires_grad", False):
        text += ", a leaf: no backward node"
        if options.show_grads:
            text += f", grad: {grad_text(tensor)}"
    else:
        text += (", does not require grad: no backward graph (made under no_grad, or from "
                 "tensors without requires_grad=True)")
    return text


def header(model: GraphModel) -> str:
    n_nodes = model.total_nodes
    n_edges = model.edge_count
    line = f"Backward graph: {n_nodes} node{'s' if n_nodes != 1 else ''}"
    if model.summary is None:
        line += f", {n_edges} edge{'s' if n_edges != 1 else ''} between nodes"
        nowhere = model.edges_to_nowhere
        if nowhere:
            line += f", {nowhere} edge{'s' if nowhere != 1 else ''} (None, 0) leading nowhere"
    else:
        line += f" ({len(model.nodes)} drawn, {model.summary.total} collapsed)"
    return line + " (-> is the way gradients flow)"


def node_lines(item: NodeItem, model: GraphModel, options: DrawOptions) -> list[str]:
    """The description of one node: a title line and indented details."""
    if item.kind == ACCUMULATE:
        if item.leaf is None:
            return [f"{item.handle}"]
        return [f"{item.handle} -> {leaf_text(item.leaf, options)}"]
    lines = [function_title(item)]
    if options.show_attrs:
        attrs = attribute_lines(item, options)
        if attrs:
            lines.append("  ctx: " + ", ".join(attrs))
    if options.show_saved:
        if item.saved is None:
            names = ", ".join(item.saved_freed_names) if item.saved_freed_names else "saved tensors"
            lines.append(f"  saved: {names}: freed after backward")
        elif item.saved:
            lines.append("  saved: " + "; ".join(saved_text(s, options) for s in item.saved))
    if options.show_attrs and item.dirty:
        lines.append("  marked dirty (changed in place): " + ", ".join(item.dirty))
    for edge in item.edges:
        why = edge_text(edge, item) if options.show_attrs else ""
        why = f" ({why})" if why else ""
        if edge.target is not None:
            lines.append(f"  -> {edge.target.handle}{why}")
        elif edge.hidden:
            lines.append(f"  -> (collapsed){why}")
        elif options.show_attrs:
            lines.append(f"  {edge.arg_name}: needs no gradient, its edge next_functions[{edge.index}] is (None, 0)")
    if options.show_attrs:
        for arg in item.non_tensor_args:
            lines.append("  " + non_tensor_text(arg, builtin=item.kind == BUILTIN))
    for tensor in item.retained:
        text = f"  makes {tensor.name}: {tensor_text(tensor, options)}"
        if options.show_grads:
            if tensor.role == "retained":
                text += f", retain_grad, grad: {grad_text(tensor.tensor)}"
            else:
                text += ", grad: not kept (not a leaf; call .retain_grad() before backward)"
        lines.append(text)
    return lines


def describe(model: GraphModel, options: DrawOptions | None = None) -> str:
    """The whole graph in words, one node per paragraph, outputs first."""
    options = options or DrawOptions()
    lines = []
    if options.title:
        lines.append(options.title)
    lines.append(header(model))
    for out in model.outputs:
        lines.append("output " + output_text(out, model, options) if not out.name.startswith("output")
                     else output_text(out, model, options))
    for item in model.nodes:
        lines.extend(node_lines(item, model, options))
    if model.summary is not None:
        lines.append(model.summary.label + ": collapsed, not drawn (raise max_nodes to see them)")
        if model.summary_out:
            lines.append("  -> " + ", ".join(item.handle for item in model.summary_out))
    return "\n".join(lines)
