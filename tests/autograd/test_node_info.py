"""minigrad.autograd.node_info: the public questions pictures and checkers ask a node.

``minigrad/viz/`` and ``minigrad/exercises/`` must ask them through ``node_info`` (or PyTorch's own
public names), never by reading a node's private attributes: the scan below fails otherwise.
"""
from __future__ import annotations

import ast
import pathlib

import pytest

import minigrad as torch
from minigrad.autograd import node_info
from minigrad.autograd.engine import _discover
from minigrad.autograd.function import BackwardCFunction, Function
from minigrad.autograd.graph import AccumulateGrad, Node

PACKAGE = pathlib.Path(torch.__file__).parent
SCANNED = sorted((PACKAGE / "viz").glob("*.py")) + sorted((PACKAGE / "exercises").glob("*.py"))
# PyTorch's own names, which learners use too: the node class a Function generates (FunctionMeta
# sets cls._backward_cls in PyTorch), and a builtin node's documented _saved_<name> / _raw_saved_<name>.
ALLOWED = {"_backward_cls"}


def _private_node_names() -> set:
    """Every private name a node or a Function class carries: class attributes and what apply sets."""
    names = set()
    for cls in (Node, BackwardCFunction, AccumulateGrad, Function):
        names |= {n for n in dir(cls) if n.startswith("_") and not n.startswith("__")}
    x = torch.ones(2, requires_grad=True)
    y = x * x
    y.retain_grad()
    y.register_hook(lambda grad: None)
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: None)
    values, _ = torch.tensor([3.0, 1.0], requires_grad=True).sort()
    for node in (y.grad_fn, values.grad_fn):
        names |= {n for n in vars(node) if n.startswith("_")}
        names |= {n for n in vars(type(node)) if n.startswith("_") and not n.startswith("__")}
    names |= {"_arg_names", "_node_name", "_forward_signature", "_runs_without_gradients", "_freed_slots"}
    documented = {prefix + name for name in ("self", "other", "result") for prefix in ("_saved_", "_raw_saved_")}
    return names - documented - ALLOWED


PRIVATE = _private_node_names()


def private_reads(source: str) -> list[str]:
    """``node._x`` attribute reads and ``getattr(node, "_x")``-style lookups of a private node name."""
    found = []
    for item in ast.walk(ast.parse(source)):
        if isinstance(item, ast.Attribute) and item.attr in PRIVATE:
            found.append(f"line {item.lineno}: .{item.attr}")
        elif (isinstance(item, ast.Call) and isinstance(item.func, ast.Name)
              and item.func.id in ("getattr", "hasattr", "setattr") and len(item.args) >= 2
              and isinstance(item.args[1], ast.Constant) and item.args[1].value in PRIVATE):
            found.append(f"line {item.lineno}: {item.func.id}(..., {item.args[1].value!r})")
    return found


def test_the_scan_knows_the_private_names_and_catches_both_spellings():
    assert {"_raw_saved_tensors", "_dirty_refs", "_non_differentiable_refs", "_input_info", "_output_info",
            "_sequence_nr", "_saved_names", "_freed_slots", "_forward_cls", "_retain_grad_tensors",
            "_is_builtin", "_uses_setup_context", "_saved", "_input_positions"} <= PRIVATE
    assert "_backward_cls" not in PRIVATE and "_saved_self" not in PRIVATE
    assert private_reads("a = node._raw_saved_tensors\nb = getattr(node, '_dirty_refs', ())\n") == [
        "line 1: ._raw_saved_tensors", "line 2: getattr(..., '_dirty_refs')"]
    assert private_reads("ctx = cls._backward_cls()\nt = node._saved_self\nn = node_info.saved_names(node)") == []


@pytest.mark.parametrize("path", SCANNED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_pictures_and_checkers_read_no_private_node_attribute(path):
    assert private_reads(path.read_text()) == []


# ---------------------------------------------------------------------------- the answers themselves
class SavesItsOutput(Function):
    @staticmethod
    def forward(ctx, x, unused):
        out = x.exp()
        ctx.save_for_backward(None, out)
        ctx.note = "kept"
        return out

    @staticmethod
    def backward(ctx, grad):
        _, out = ctx.saved_tensors
        return grad * out, None


def test_a_saved_output_is_named_and_freed_slots_remember_which_held_a_tensor():
    x = torch.ones(2, requires_grad=True)
    y = SavesItsOutput.apply(x, 3)
    node = y.grad_fn
    assert node_info.kind(node) == "function" and node_info.function_class(node) is SavesItsOutput
    assert node_info.argument_names(node) == ["x", "unused"] and node_info.argument_positions(node) == (0,)
    saved = node_info.saved_tensors(node)
    assert saved[0] is None and saved[1] is not y and saved[1].tolist() == y.tolist()
    assert [node_info.saved_output_nr(node, i) for i in range(2)] == [None, 0]
    assert node_info.freed_slots(node) is None and node_info.ctx_attributes(node) == {"note": "kept"}
    y.sum().backward()
    assert node_info.saved_tensors(node) is None and node_info.freed_slots(node) == (False, True)


def test_asking_never_checks_versions_nor_frees():
    x = torch.ones(2, requires_grad=True)
    y = x * x
    with torch.no_grad():
        x.add_(1)   # ctx.saved_tensors would now raise
    assert [t is x for t in node_info.saved_tensors(y.grad_fn)] == [True, True]
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.grad_fn.saved_tensors


def test_every_question_accepts_an_accumulate_grad_node():
    x = torch.ones(2, requires_grad=True)
    acc = (x * 2).grad_fn.next_functions[0][0]
    assert node_info.kind(acc) == "accumulate" and node_info.function_class(acc) is None
    assert node_info.saved_tensors(acc) == () and node_info.saved_names(acc) == ()
    assert node_info.ctx_attributes(acc) == {} and node_info.argument_positions(acc) is None
    assert node_info.dirty_tensors(acc) == [] and node_info.retained_tensors(acc) == {}
    assert node_info.output_metadata(acc) == () and node_info.input_metadata(acc) == ()
    assert node_info.sequence_nr(acc) > node_info.sequence_nr((x * 2).grad_fn)


def test_marked_tensors_and_metadata():
    a = torch.ones(3, requires_grad=True).clone()
    b = a.mul_(2)
    assert node_info.dirty_tensors(b.grad_fn) == [a]
    assert node_info.input_metadata(b.grad_fn)[0] == (torch.Size([3]), torch.float32)
    values, indices = torch.tensor([[3.0, 1.0]], requires_grad=True).max(1)
    assert node_info.non_differentiable_tensors(values.grad_fn) == [indices]
    assert node_info.output_metadata(values.grad_fn) == ((torch.Size([1]), torch.float32),
                                                         (torch.Size([1]), torch.int64))


def test_reachable_nodes_are_the_engines_own_discovery():
    x = torch.ones(2, requires_grad=True)
    w = torch.ones(2, requires_grad=True)
    h = x * w
    loss = (h + h.exp()).sum()
    nodes = node_info.reachable_nodes(loss.grad_fn)
    assert nodes[0] is loss.grad_fn and len(nodes) == len(set(nodes))
    assert set(nodes) == set(_discover([(loss.grad_fn, 0)]))   # the root edge counts its node too
