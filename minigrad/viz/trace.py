"""Watch backward run, one node at a time.

:func:`trace_backward` runs the real backward pass (``loss.backward()``) with
listeners (``minigrad.autograd.listeners``) that record, after each node, the gradients
it received and the gradients it sent on. The :class:`Trace` it returns can be read as text, drawn as a
filmstrip of frames, or stepped through frame by frame.

>>> import minigrad as torch
>>> x = torch.ones(3, requires_grad=True)
>>> t = trace_backward((x * 3).sum(), names={"x": x})
>>> print(t)
Backward pass: 3 steps
step 1: SumBackward0 receives 1., sends [1., 1., 1.] to MulBackward0
step 2: MulBackward0 receives [1., 1., 1.], sends [3., 3., 3.] to AccumulateGrad(x) (self)
step 3: AccumulateGrad(x) receives [3., 3., 3.]; x.grad will be [3., 3., 3.]
>>> [step.name for step in t.steps]
['SumBackward0', 'MulBackward0', 'AccumulateGrad']
"""
from __future__ import annotations

import base64
import struct
import tempfile
from pathlib import Path
from typing import Any, Iterator, Mapping, NamedTuple

import numpy as np

from minigrad.doctor import require_dot

from . import style
from .display import Graph
from .drawing import DEFAULT_MAX_NODES
from .describe import NOT_COMPUTED
from .dot_source import FrameState, graph_header, html, to_dot
from .formatting import describe_value_short
from .graph_walk import ACCUMULATE, GraphModel, NodeItem, node_name, walk
from .options import DrawOptions
from .render import render

MAX_FILMSTRIP_FRAMES = 12  # a filmstrip shows at most this many frames
FILMSTRIP_WIDTH = 860  # pixels: the filmstrip's frames are laid out to about this width
MIN_SCALE = 0.7  # frames are shrunk at most this much (fewer columns instead): smaller is hard to read


class Step(NamedTuple):
    """One node's backward: its name, the gradients it received and the ones it sent.

    ``grad_inputs`` has one entry per ``next_functions`` edge (``()`` for AccumulateGrad).
    The tensors are copies taken at that moment.
    """

    name: str
    grad_outputs: tuple
    grad_inputs: tuple


def _snapshot(grad: Any) -> Any:
    if grad is None:
        return None
    return grad.detach().clone() if hasattr(grad, "clone") else grad


def _values(grads: tuple) -> str:
    shown = [describe_value_short(g) if g is not None else "None" for g in grads]
    return shown[0] if len(shown) == 1 else "(" + ", ".join(shown) + ")"


class Trace:
    """What :func:`trace_backward` saw: ``steps``, their ``text``, and one frame per step.

    A notebook shows the steps in words (``text/plain``) and a PNG filmstrip of the
    frames. ``trace.frames[i]`` (or ``trace.show(i)``) is the :class:`Graph` of step
    ``i + 1``: nodes that already ran are drawn normally, the others faded, the
    current node has a vermillion border and its gradients are written on its edges.
    """

    def __init__(self, model: GraphModel, options: DrawOptions, steps: list[Step],
                 lines: list[str], states: list[FrameState]) -> None:
        self.model, self.options = model, options
        self.steps = steps
        self.lines = lines
        self._states = states
        self._frames: list[Graph] | None = None
        self._filmstrips: dict[int, bytes] = {}

    @property
    def text(self) -> str:
        """The steps in words, one line per step."""
        head = f"Backward pass: {len(self.steps)} step{'s' if len(self.steps) != 1 else ''}"
        return "\n".join([head] + self.lines)

    @property
    def frames(self) -> list[Graph]:
        """One :class:`Graph` per step (drawn when displayed)."""
        if self._frames is None:
            self._frames = [Graph(to_dot(self.model, self.options, state, size=style.MAX_SIZE),
                                  state.caption, check_dot=False) for state in self._states]
        return self._frames

    def show(self, step: int) -> Graph:
        """The frame of step number ``step`` (1-based, as in the text)."""
        if not 1 <= step <= len(self.steps):
            raise IndexError(f"step must be between 1 and {len(self.steps)}, got {step}")
        return self.frames[step - 1]

    def __iter__(self) -> Iterator[Graph]:
        return iter(self.frames)

    def __len__(self) -> int:
        return len(self.steps)

    def filmstrip(self, max_frames: int = MAX_FILMSTRIP_FRAMES) -> bytes:
        """The first ``max_frames`` frames in rows, as one PNG (drawn once, then kept)."""
        if max_frames not in self._filmstrips:
            self._filmstrips[max_frames] = _filmstrip(self.frames[:max_frames], len(self.frames))
        return self._filmstrips[max_frames]

    def png(self) -> bytes:
        """The filmstrip PNG (what a notebook shows)."""
        return self.filmstrip()

    def save(self, path: str) -> Path:
        """Save the filmstrip (.png) or the steps in words (.txt)."""
        path = Path(path)
        if path.suffix.lower() == ".png":
            path.write_bytes(self.png())
        elif path.suffix.lower() == ".txt":
            path.write_text(self.text + "\n", encoding="utf-8")
        else:
            raise ValueError(f"cannot tell the format from {path.name!r}: use .png or .txt")
        return path

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        return {"image/png": base64.b64encode(self.png()).decode("ascii"), "text/plain": self.text}

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__


def _png_size(png: bytes) -> tuple[int, int]:
    """Width and height in pixels, read from the PNG header."""
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def _layout(widest: int, count: int) -> tuple[int, float]:
    """How many frames per row (at most 4), and how much to shrink them to fit ``FILMSTRIP_WIDTH``:
    never below ``MIN_SCALE`` while fewer columns would do.

    >>> _layout(FILMSTRIP_WIDTH // 4, 6), _layout(FILMSTRIP_WIDTH // 2, 6)[0], _layout(2 * FILMSTRIP_WIDTH, 3)
    ((4, 1.0), 2, (1, 0.5))
    """
    for columns in range(min(count, 4), 0, -1):
        scale = min(1.0, FILMSTRIP_WIDTH / (columns * widest))
        if scale >= MIN_SCALE:
            return columns, scale
    return 1, min(1.0, FILMSTRIP_WIDTH / widest)


def _filmstrip(frames: list[Graph], total: int) -> bytes:
    """Lay the frames' PNGs out in a grid with one more ``dot`` run (an HTML table of images)."""
    pngs = [frame.png() for frame in frames]
    sizes = [_png_size(png) for png in pngs]
    widest = max(w for w, _ in sizes)
    columns, scale = _layout(widest, len(pngs))
    points = 72.0 / style.DPI  # HTML table sizes are in points, PNG sizes in pixels
    with tempfile.TemporaryDirectory(prefix="minigrad-trace-") as folder:
        cells = []
        for i, (png, frame) in enumerate(zip(pngs, frames)):
            path = Path(folder) / f"frame{i + 1}.png"
            path.write_bytes(png)
            caption = html(frame.text.split(" receives", 1)[0])
            width, height = sizes[i]
            cell_w, cell_h = round(width * scale * points), round(height * scale * points)
            image = (f'<TD FIXEDSIZE="TRUE" WIDTH="{cell_w}" HEIGHT="{cell_h}">'
                     f'<IMG SRC="{path}" SCALE="TRUE"/></TD>')
            cells.append(f'<TD VALIGN="TOP"><TABLE BORDER="0" CELLSPACING="2">'
                         f"<TR><TD><B>{caption}</B></TD></TR><TR>{image}</TR></TABLE></TD>")
        rows = ["<TR>" + "".join(cells[i:i + columns]) + "</TR>" for i in range(0, len(cells), columns)]
        note = ""
        if total > len(frames):
            note = (f'<TR><TD COLSPAN="{columns}">... {total - len(frames)} more steps: '
                    f"see trace.frames or trace.show(i)</TD></TR>")
        table = f'<TABLE BORDER="0" CELLSPACING="6">{"".join(rows)}{note}</TABLE>'
        source = "\n".join(graph_header(DrawOptions(), size="30,60", name="filmstrip") +
                           [f"  strip [shape=plaintext, label=<{table}>];", "}"]) + "\n"
        return render(source, "png")


class _Recorder:
    """Listens to one backward pass: one :class:`Step`, line of text and frame per node it runs
    (a backward started from inside one of its nodes is a pass of its own: not recorded)."""

    def __init__(self, model: GraphModel, loss: Any, gradient: Any) -> None:
        self.model = model
        self.passes: list = []   # the passes running, outermost (the traced one) first
        self.by_node = {id(item.node): item for item in model.nodes}
        self.steps: list[Step] = []
        self.lines: list[str] = []
        self.states: list[FrameState] = []
        # .grad before this backward, for leaves and retained tensors (backward adds to it).
        self.before: dict[str, Any] = {}
        state = FrameState(output_current=True)
        for item in model.nodes:
            watched = ([item.leaf] if item.leaf is not None else []) + [
                t for t in item.retained if t.role == "retained"]
            for tensor in watched:
                grad = tensor.tensor._grad
                self.before[tensor.key] = None if grad is None else np.array(grad._data)
                state.leaf_grads[tensor.key] = "grad: " + (NOT_COMPUTED if grad is None else describe_value_short(grad))
        if gradient is not None:
            state.output_grads[model.outputs[0].key] = describe_value_short(gradient)
        elif loss.numel() == 1:
            state.output_grads[model.outputs[0].key] = describe_value_short(np.ones_like(loss._data))
        self.state = state

    def grad_after(self, key: str, incoming: Any) -> str:
        """The text of ``.grad`` once ``incoming`` is added (the engine writes it at the end)."""
        old = self.before.get(key)
        return describe_value_short(incoming._data if old is None else old + incoming._data)

    def pass_started(self, task: Any) -> None:
        self.passes.append(task)

    def pass_ended(self, task: Any, error: Any) -> None:
        self.passes.pop()

    def __call__(self, node: Any, grad_outputs: tuple, grad_inputs: tuple) -> None:
        if len(self.passes) != 1:
            return  # a backward inside a node's backward
        item = self.by_node.get(id(node))  # None: the node is collapsed in the pictures
        outs = tuple(_snapshot(g) for g in grad_outputs)
        ins = tuple(_snapshot(g) for g in grad_inputs)
        name = item.name if item is not None else node_name(node)
        self.steps.append(Step(name, outs, ins))
        previous = self.state
        state = FrameState(visited=set(previous.visited), edge_grads=dict(previous.edge_grads),
                           leaf_grads=dict(previous.leaf_grads), output_grads=dict(previous.output_grads),
                           output_current=len(self.steps) == 1)
        head = f"step {len(self.steps)}: {item.handle if item is not None else name + ' (collapsed)'}"
        if item is None:
            summary = self.model.summary
            if summary is not None:
                state.visited.add(summary.key)
                state.current = summary.key
            line = f"{head} receives {_values(outs)}, sends " + self._sent_from_hidden(node, ins)
        else:
            state.visited.add(item.key)
            state.current = item.key
            for tensor in item.retained:
                nr = getattr(tensor.tensor, "_output_nr", 0)
                if tensor.role == "retained" and nr < len(outs) and outs[nr] is not None:
                    state.leaf_grads[tensor.key] = "grad will be " + self.grad_after(tensor.key, outs[nr])
            if item.kind == ACCUMULATE and item.leaf is not None:
                now = self.grad_after(item.leaf.key, outs[0])
                state.leaf_grads[item.leaf.key] = "grad will be " + now
                line = f"{head} receives {_values(outs)}; {item.leaf.name}.grad will be {now}"
            else:
                line = f"{head} receives {_values(outs)}, sends " + self._sent(item, ins, state)
        state.caption = line
        self.state = state
        self.lines.append(line)
        self.states.append(state)

    def _sent(self, item: NodeItem, ins: tuple, state: FrameState) -> str:
        sent = []
        for index, grad in enumerate(ins):
            edge = item.edges[index] if index < len(item.edges) else None
            if edge is not None and edge.target is None and not edge.hidden:
                continue  # (None, 0): this input needs no gradient
            target = "(collapsed)" if edge is None or edge.target is None else edge.target.handle
            arg = f" ({edge.arg_name})" if edge is not None and len(item.edges) > 1 else ""
            if grad is not None:
                state.edge_grads[(item.key, index)] = describe_value_short(grad)
                state.current_edges.add((item.key, index))
            sent.append(f"{'None' if grad is None else describe_value_short(grad)} to {target}{arg}")
        return "; ".join(sent) if sent else "nothing"

    def _sent_from_hidden(self, node: Any, ins: tuple) -> str:
        sent = []
        for (child, _), grad in zip(getattr(node, "next_functions", ()), ins):
            if child is None:
                continue
            shown = self.by_node.get(id(child))
            target = shown.handle if shown is not None else node_name(child)
            sent.append(f"{'None' if grad is None else describe_value_short(grad)} to {target}")
        return "; ".join(sent) if sent else "nothing"


def trace_backward(loss: Any, params: Any = None, names: Mapping[str, Any] | None = None,
                   gradient: Any = None, retain_graph: bool | None = None,
                   show_saved: bool = False, show_attrs: bool = False, show_grads: bool = True,
                   max_nodes: int | None = DEFAULT_MAX_NODES, rankdir: str = "TB") -> Trace:
    """Run ``loss.backward(gradient, retain_graph)`` and record every step.

    This *is* the real backward: afterwards the leaves' ``.grad`` are filled (and
    saved tensors freed unless ``retain_graph=True``), exactly as after ``backward()``.

    Args:
        loss: the tensor to backpropagate from (a scalar, or pass ``gradient``).
        params, names: names for tensors, as in :func:`draw`.
        gradient: the gradient of ``loss`` (needed when it is not a scalar).
        retain_graph: keep the saved tensors so backward can run again.
        show_saved, show_attrs, show_grads, max_nodes, rankdir: as in :func:`draw`
            (frames are kept simple by default: saved tensors and ctx attributes hidden).

    Returns:
        a :class:`Trace` with ``steps`` in the order the engine ran them.

    >>> import minigrad as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> t = trace_backward((x * x).sum(), names={"x": x})
    >>> t.lines[-1]
    'step 3: AccumulateGrad(x) receives [2., 2.]; x.grad will be [2., 2.]'
    """
    from minigrad.autograd import listeners

    require_dot()
    options = DrawOptions(show_saved=show_saved, show_attrs=show_attrs, show_grads=show_grads,
                          rankdir=rankdir)
    model = walk([loss], params=params, names=names, max_nodes=max_nodes)
    recorder = _Recorder(model, loss, gradient)
    with listeners.on_backward_start(recorder.pass_started), listeners.on_backward_end(recorder.pass_ended), \
            listeners.on_node(recorder):
        loss.backward(gradient, retain_graph=retain_graph)
    return Trace(model, options, recorder.steps, recorder.lines, recorder.states)
