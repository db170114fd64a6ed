"""minigrad.viz: the words, the pictures and the step-by-step trace of backward graphs.

The text descriptions are compared exactly: they are what the notebooks store as
``text/plain`` and what nbval checks on every machine.
"""
from __future__ import annotations

import base64
import os
import struct
import sys
import traceback

import pytest

import minigrad as torch
from minigrad import nn
from minigrad.autograd import Function
from minigrad.doctor import DotNotFoundError
from minigrad.viz import Graph, Trace, draw, legend, make_dot, trace_backward


# ---------------------------------------------------------------- Functions used below
class MulConstant(Function):
    """The PyTorch tutorial's MulConstant, combined style forward(ctx, tensor, constant)."""

    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


class ScaledMatmul(Function):
    """A non-tensor argument in the middle (like pyGAT's ctx.N): forward(ctx, a, n, b)."""

    @staticmethod
    def forward(ctx, a, n, b):
        ctx.N = n
        ctx.save_for_backward(a, b)
        return (a @ b) * n

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        grad_a = grad.mm(b.t()) * ctx.N if ctx.needs_input_grad[0] else None
        grad_b = a.t().mm(grad) * ctx.N if ctx.needs_input_grad[2] else None
        return grad_a, None, grad_b


class Sort(Function):
    """A tuple output with a non-differentiable part, as in "Extending PyTorch"."""

    @staticmethod
    def forward(ctx, x):
        values, indices = x.sort()
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        (indices,) = ctx.saved_tensors
        grad = torch.zeros_like(grad_values)
        grad[indices] = grad_values
        return grad


def graph_a():
    x = torch.ones(3, requires_grad=True)
    y = MulConstant.apply(x, 10)
    z = y * 3
    return x, y, z


TEXT_A = """\
Backward graph: 3 nodes, 2 edges between nodes, 1 edge (None, 0) leading nowhere (-> is the way gradients flow)
output z: [3] float32 -> MulBackward0
MulBackward0
  saved: self: None (not saved); other = 3 (a Python number, made a tensor)
  -> MulConstantBackward (self)
  other: needs no gradient, its edge next_functions[1] is (None, 0)
MulConstantBackward (ctx of the Function MulConstant)
  ctx: constant=10
  -> AccumulateGrad(x) (input tensor, needs_input_grad[0]=True)
  constant is not a tensor: no edge, its gradient is None
AccumulateGrad(x) -> leaf x: [3] float32, grad: not computed yet"""


def mlp():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    loss = model(torch.randn(5, 4)).sum()
    return model, loss


TEXT_MLP = """\
Backward graph: 10 nodes, 9 edges between nodes, 1 edge (None, 0) leading nowhere (-> is the way gradients flow)
output loss: scalar float32 -> SumBackward0
SumBackward0
  -> AddmmBackward0#2
AddmmBackward0#2
  saved: mat1: [5, 8] float32 (output of ReluBackward0); mat2: [8, 2] float32 (output of TBackward0#2)
  -> AccumulateGrad(2.bias) (bias)
  -> ReluBackward0 (mat1)
  -> TBackward0#2 (mat2)
AccumulateGrad(2.bias) -> leaf 2.bias: [2] float32, grad: not computed yet
ReluBackward0
  saved: result: [5, 8] float32 (output 0 of this node)
  -> AddmmBackward0#1
TBackward0#2
  -> AccumulateGrad(2.weight)
AddmmBackward0#1
  saved: mat1: [5, 4] float32; mat2: None (not saved)
  -> AccumulateGrad(0.bias) (bias)
  mat1: needs no gradient, its edge next_functions[1] is (None, 0)
  -> TBackward0#1 (mat2)
AccumulateGrad(2.weight) -> leaf 2.weight: [2, 8] float32, grad: not computed yet
AccumulateGrad(0.bias) -> leaf 0.bias: [8] float32, grad: not computed yet
TBackward0#1
  -> AccumulateGrad(0.weight)
AccumulateGrad(0.weight) -> leaf 0.weight: [8, 4] float32, grad: not computed yet"""


def chain(steps: int):
    """An unrolled loop h = h * w + b: two nodes per step, three leaves."""
    x = torch.ones(4, requires_grad=True)
    w = torch.full((4,), 0.5, requires_grad=True)
    b = torch.full((4,), 0.25, requires_grad=True)
    h = x
    for _ in range(steps):
        h = h * w + b
    return h.sum(), {"x": x, "w": w, "b": b}


def png_size(png: bytes) -> tuple[int, int]:
    return struct.unpack(">II", png[16:24])


# ---------------------------------------------------------------- (a) MulConstant then * 3
def test_text_of_mulconstant_graph():
    x, y, z = graph_a()
    assert draw(z, names={"x": x, "z": z}).text == TEXT_A


def test_str_and_repr_are_the_text():
    x, y, z = graph_a()
    graph = draw(z, names={"x": x, "z": z})
    assert str(graph) == repr(graph) == graph.text == TEXT_A


def test_grads_before_and_after_backward():
    x, y, z = graph_a()
    y.retain_grad()
    names = {"x": x, "y": y, "z": z}
    before = draw(z, names=names).text
    assert "leaf x: [3] float32, grad: not computed yet" in before
    assert "makes y: [3] float32, retain_grad, grad: not computed yet" in before
    assert "0., 0., 0." not in before  # never zeros before backward (micrograd's confusion)

    z.backward(torch.ones(3))
    after = draw(z, names=names).text
    assert "leaf x: [3] float32, grad: [30., 30., 30.]" in after
    assert "makes y: [3] float32, retain_grad, grad: [3., 3., 3.]" in after
    assert "not computed yet" not in after
    assert "saved: other: freed after backward" in after


def test_named_intermediate_that_keeps_no_grad():
    x, y, z = graph_a()
    text = draw(z, names={"x": x, "y": y}).text
    assert "makes y: [3] float32, grad: not kept (not a leaf; call .retain_grad() before backward)" in text


# ---------------------------------------------------------------- (b) a two-layer MLP
def test_text_of_mlp_with_parameter_names():
    model, loss = mlp()
    graph = draw(loss, params=dict(model.named_parameters()), names={"loss": loss})
    assert graph.text == TEXT_MLP


def test_params_can_be_the_module_itself_and_make_dot_is_draw():
    model, loss = mlp()
    by_module = draw(loss, params=model, names={"loss": loss})
    torchviz_style = make_dot(loss, params=dict(model.named_parameters()), show_attrs=True,
                              show_saved=True, names={"loss": loss})
    assert make_dot is draw
    assert by_module.text == torchviz_style.text == TEXT_MLP
    assert by_module.source == torchviz_style.source


def test_picture_lists_the_saved_slots_of_the_text():
    # The picture's orange boxes name what the text names: a slot saved as None, and the maker
    # of a saved tensor by its numbered handle when two nodes share a name (AddmmBackward0#2).
    model, loss = mlp()
    graph = draw(loss, params=dict(model.named_parameters()), names={"loss": loss})
    assert "mat2: None (not saved)" in graph.source
    assert "mat2: [8, 2] float32 (output of TBackward0#2)" in graph.source
    assert "(from " not in graph.source
    x, y, z = graph_a()
    source = draw(z, names={"x": x, "z": z}).source
    assert "self: None (not saved)" in source and "other = 3 (a Python number, made a tensor)" in source


def test_mlp_grads_after_backward():
    model, loss = mlp()
    loss.backward()
    text = draw(loss, params=model).text
    assert "not computed yet" not in text
    # large gradients: first values and the norm; small ones: all values
    assert "leaf 0.weight: [8, 4] float32, grad: [" in text and "(32 values), norm " in text
    assert "leaf 2.bias: [2] float32, grad: [5., 5.]" in text


def test_unnamed_leaves_are_numbered_in_graph_order():
    a = torch.ones(2, requires_grad=True)
    b = torch.ones(2, requires_grad=True)
    text = draw(a * b).text
    assert "AccumulateGrad(leaf 0) -> leaf 0: [2] float32" in text
    assert "AccumulateGrad(leaf 1) -> leaf 1: [2] float32" in text


# ---------------------------------------------------------------- (c) a non-tensor argument
def test_function_with_non_tensor_argument():
    a = torch.ones(2, 3, requires_grad=True)
    b = torch.ones(3, 2)  # needs no gradient
    out = ScaledMatmul.apply(a, 4, b)
    text = draw(out, names={"a": a, "b": b, "out": out}).text
    assert text == """\
Backward graph: 2 nodes, 1 edge between nodes, 1 edge (None, 0) leading nowhere (-> is the way gradients flow)
output out: [2, 2] float32 -> ScaledMatmulBackward
ScaledMatmulBackward (ctx of the Function ScaledMatmul)
  ctx: N=4
  saved: saved[0] = a; saved[1] = b
  -> AccumulateGrad(a) (input a, needs_input_grad[0]=True)
  b: needs no gradient, its edge next_functions[1] is (None, 0)
  n is not a tensor: no edge, its gradient is None
AccumulateGrad(a) -> leaf a: [2, 3] float32, grad: not computed yet"""
    source = draw(out, names={"a": a, "b": b}).source
    assert "needs_input_grad=(True, False, False)" in source
    assert "n (not a tensor, grad None)" in source
    assert "N=4" in source


# ---------------------------------------------------------------- (d) tuple output, non-differentiable part
def test_tuple_output_with_non_differentiable_indices():
    x = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
    values, indices = Sort.apply(x)
    expected = """\
Backward graph: 2 nodes, 1 edge between nodes (-> is the way gradients flow)
output values: [3] float32 -> SortBackward
output indices: [3] int64, non-differentiable (marked by SortBackward): no gradient flows back from it
SortBackward (ctx of the Function Sort)
  saved: saved[0] = indices
  -> AccumulateGrad(x) (input x, needs_input_grad[0]=True)
AccumulateGrad(x) -> leaf x: [3] float32, grad: not computed yet"""
    names = {"x": x, "values": values, "indices": indices}
    assert draw((values, indices), names=names).text == expected  # the tuple as returned
    assert draw(values, indices, names=names).text == expected  # or its parts
    assert "non-differentiable" in draw(values, indices, names=names).source


def test_tensors_without_graph_are_explained():
    x = torch.ones(3, requires_grad=True)
    assert "a leaf: no backward node, grad: not computed yet" in draw(x).text
    assert "does not require grad: no backward graph" in draw(torch.ones(2) * 2).text


# ---------------------------------------------------------------- display object
def test_mimebundle_is_png_and_text_only():
    x, y, z = graph_a()
    bundle = draw(z, names={"x": x, "z": z})._repr_mimebundle_()
    assert set(bundle) == {"image/png", "text/plain"}
    assert base64.b64decode(bundle["image/png"])[:4] == b"\x89PNG"
    assert bundle["text/plain"] == TEXT_A


def test_png_is_deterministic_and_fits_a_notebook():
    model, loss = mlp()
    first = draw(loss, params=model).png()
    second = draw(loss, params=model).png()
    assert first[:4] == b"\x89PNG"
    assert first == second
    width, height = png_size(first)
    assert width <= 912 and height <= 2880


def test_no_addresses_in_text_or_source():
    model, loss = mlp()
    class Thing:  # an attribute whose repr carries an address
        pass
    x = torch.ones(2, requires_grad=True)

    class KeepsObject(Function):
        @staticmethod
        def forward(ctx, t):
            ctx.thing = Thing()
            return t * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    for graph in (draw(loss, params=model), draw(KeepsObject.apply(x))):
        assert "0x" not in graph.text
        assert "0x" not in graph.source
    assert "thing=<Thing>" in draw(KeepsObject.apply(x)).text


def test_save_by_extension(tmp_path):
    x, y, z = graph_a()
    graph = draw(z, names={"x": x})
    assert (graph.save(tmp_path / "g.png")).read_bytes()[:4] == b"\x89PNG"
    assert (graph.save(tmp_path / "g.svg")).read_text().lstrip().startswith("<?xml")
    assert (graph.save(tmp_path / "g.pdf")).read_bytes()[:4] == b"%PDF"
    assert (graph.save(tmp_path / "g.dot")).read_text() == graph.source
    assert graph.svg().count("<svg") == 1
    with pytest.raises(ValueError, match="cannot tell the format"):
        graph.save(tmp_path / "g.jpeg")


def test_hiding_details():
    x, y, z = graph_a()
    text = draw(z, names={"x": x}, show_saved=False, show_attrs=False, show_grads=False).text
    assert "saved" not in text and "constant=10" not in text and "grad:" not in text
    source = draw(z, names={"x": x}, show_saved=False, show_attrs=False).source
    assert "saved for backward" not in source and "constant=10" not in source


def test_show_data_and_title_and_bad_rankdir():
    x, y, z = graph_a()
    graph = draw(z, names={"x": x}, show_data=True, title="y = MulConstant(x, 10); z = y * 3")
    assert graph.text.splitlines()[0] == "y = MulConstant(x, 10); z = y * 3"
    assert "leaf x: [3] float32 = [1., 1., 1.]" in graph.text
    assert draw(z, rankdir="LR").png()[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match="rankdir"):
        draw(z, rankdir="sideways")


def test_legend():
    key = legend()
    assert isinstance(key, Graph)
    assert key.text.startswith("How to read a backward graph")
    for word in ("green", "orange", "purple", "AccumulateGrad", "retain_grad", "non-differentiable"):
        assert word in key.text
    assert key.png()[:4] == b"\x89PNG"
    x, y, z = graph_a()
    assert "cluster_legend" in draw(z, legend=True).source


# ---------------------------------------------------------------- missing dot
def test_missing_dot_fails_early_with_install_steps(tmp_path, monkeypatch):
    x, y, z = graph_a()
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no dot anywhere
    with pytest.raises(DotNotFoundError) as info:
        draw(z)
    message = str(info.value)
    for step in ("apt-get", "brew", "winget", "conda"):
        assert step in message
    # Raised by the up-front check, not from deep inside a rendering library.
    frames = traceback.extract_tb(info.tb)
    assert frames[-1].filename.endswith(os.path.join("minigrad", "doctor.py"))
    assert not any("graphviz" in frame.filename for frame in frames)
    with pytest.raises(DotNotFoundError):
        trace_backward(z.sum())
    with pytest.raises(DotNotFoundError):
        legend()


# ---------------------------------------------------------------- big graphs
def test_collapse_keeps_big_graphs_small():
    loss, names = chain(500)  # 1,000 ops: 1,002 nodes with the sum and the leaves
    graph = draw(loss, names=names, max_nodes=40)
    lines = graph.text.splitlines()
    assert lines[0] == "Backward graph: 1004 nodes (43 drawn, 961 collapsed) (-> is the way gradients flow)"
    assert "... 961 more nodes (MulBackward0 x481, AddBackward0 x480): collapsed" in graph.text
    assert len(lines) < 160
    png = graph.png()
    width, height = png_size(png)
    assert width <= 912 and height <= 2880
    assert len(png) < 400_000


def test_collapse_is_the_default_and_can_be_turned_off():
    loss, names = chain(60)
    assert "more nodes" in draw(loss, names=names).text
    full = draw(loss, names=names, max_nodes=None).text
    assert "more nodes" not in full and full.startswith("Backward graph: 124 nodes, 241 edges")


def test_long_chain_needs_no_recursion():
    x = torch.ones(1, requires_grad=True)
    h = x
    for _ in range(3000):
        h = h * 1.0
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)
    try:
        graph = draw(h, names={"x": x})
    finally:
        sys.setrecursionlimit(limit)
    assert "3001 nodes" in graph.text.splitlines()[0]


# ---------------------------------------------------------------- step-by-step trace
def test_trace_steps_of_mulconstant_graph():
    x, y, z = graph_a()
    trace = trace_backward(z, names={"x": x, "z": z}, gradient=torch.ones(3))
    assert isinstance(trace, Trace)
    assert [step.name for step in trace.steps] == ["MulBackward0", "MulConstantBackward", "AccumulateGrad"]
    name, grad_outputs, grad_inputs = trace.steps[0]
    assert grad_outputs[0].tolist() == [1.0, 1.0, 1.0]
    assert grad_inputs[0].tolist() == [3.0, 3.0, 3.0] and grad_inputs[1] is None
    assert trace.text == """\
Backward pass: 3 steps
step 1: MulBackward0 receives [1., 1., 1.], sends [3., 3., 3.] to MulConstantBackward (self)
step 2: MulConstantBackward receives [3., 3., 3.], sends [30., 30., 30.] to AccumulateGrad(x)
step 3: AccumulateGrad(x) receives [30., 30., 30.]; x.grad will be [30., 30., 30.]"""
    assert x.grad.tolist() == [30.0, 30.0, 30.0]  # it was the real backward


def test_a_builtins_argument_without_edge_is_not_called_a_non_tensor():
    x = torch.ones(4, 3, requires_grad=True)
    text = draw(x[torch.tensor([0, 1])].sum(), names={"x": x}).text
    assert "key never carries a gradient: no edge, its gradient is None" in text
    assert "is not a tensor" not in text


def test_repeated_node_names_are_numbered_in_creation_order():
    q = torch.tensor(2.0, requires_grad=True)
    h = q * 3           # made first: MulBackward0#1
    r = h * h + h       # h * h made second: MulBackward0#2
    trace = trace_backward(r, names={"q": q, "h": h})
    assert trace.lines[1].startswith("step 2: MulBackward0#2 receives 1., sends 6. to MulBackward0#1")
    assert "MulBackward0#1" in draw(r).source


def test_trace_frames_and_filmstrip():
    x, y, z = graph_a()
    trace = trace_backward(z.sum(), names={"x": x})
    assert len(trace) == len(trace.frames) == 4
    assert trace.show(1).text.startswith("step 1: SumBackward0")
    with pytest.raises(IndexError):
        trace.show(5)
    # The frame of step 2 highlights MulBackward0 and shows the gradient it sent.
    frame = trace.show(2).source
    assert "#D55E00" in frame and "[3., 3., 3.]" in frame
    # x.grad is "not computed yet" until AccumulateGrad has run, in every frame before it.
    assert all("grad: not computed yet" in trace.show(i).source for i in (1, 2, 3))
    assert "grad will be [30., 30., 30.]" in trace.show(4).source   # written at the end of the pass
    bundle = trace._repr_mimebundle_()
    assert set(bundle) == {"image/png", "text/plain"}
    png = base64.b64decode(bundle["image/png"])
    assert png[:4] == b"\x89PNG" and png_size(png)[0] <= 1100
    assert bundle["text/plain"] == trace.text


def test_trace_retain_graph_and_accumulation():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    loss = (x * x).sum()
    first = trace_backward(loss, names={"x": x}, retain_graph=True)
    second = trace_backward(loss, names={"x": x})
    assert first.lines[-1] == "step 3: AccumulateGrad(x) receives [2., 4.]; x.grad will be [2., 4.]"
    assert second.lines[-1] == "step 3: AccumulateGrad(x) receives [2., 4.]; x.grad will be [4., 8.]"
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        trace_backward(loss)


def test_trace_of_mlp_names_parameters():
    model, loss = mlp()
    trace = trace_backward(loss, params=model)
    assert [s.name for s in trace.steps][:3] == ["SumBackward0", "AddmmBackward0", "AccumulateGrad"]
    assert trace.lines[2] == "step 3: AccumulateGrad(2.bias) receives [5., 5.]; 2.bias.grad will be [5., 5.]"
    assert "0x" not in trace.text
