"""Index, mask, condition and label tensors that a builtin's backward reads are saved for backward.

PyTorch saves them (``SavedVariable``), so changing one in place between forward and backward makes
backward refuse with the version error, and backward frees them. minigrad's builtins do the same
through the learner's own mechanism, ``ctx.save_for_backward``, handing the tensor to forward in a
``NoEdge`` so that it gets no ``next_functions`` entry (PyTorch's builtin nodes have entries only
for the inputs a gradient can flow to).

Every expectation here was observed on PyTorch 2.13 (CPU) with the same code (the program
``programs/saved_indices.py`` is the recorded version): node names, next_functions, the names of
the saved attributes, the error texts, and the cases where PyTorch does not check (no gradient
that needs the index is computed).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest

import minigrad as torch
import minigrad.nn.functional as F
from minigrad.autograd.saved import BACKWARD_TWICE
from minigrad.ops._util import NoEdge

ACC = "torch::autograd::AccumulateGrad"
MASK = [[True, False, True], [False, True, False]]
SRC = [[10.0, 20.0], [30.0, 40.0]]


def modified(type_name: str, shape: str) -> str:
    """PyTorch's text for a saved tensor changed in place once since it was saved."""
    return ("one of the variables needed for gradient computation has been modified by an inplace operation: "
            f"[{type_name} [{shape}]] is at version 1; expected version 0 instead. Hint: enable anomaly detection "
            "to find the operation that failed to compute its gradient, with "
            "torch.autograd.set_detect_anomaly(True, check_nan=False).")


def modified_pattern(type_name: str, shape: str) -> str:
    """The exact text as a regular expression (PyTorch spells a bool tensor's type ``CPUBoolType``)."""
    return "^" + re.escape(modified(type_name, shape)) + "$"


def clone_then(method: Callable) -> Callable:
    """An in-place method run on a copy of x (a leaf that requires grad cannot be changed in place)."""
    def operation(x, index):
        y = x.clone()
        method(y, index)
        return y
    return operation


@dataclass
class Case:
    operation: Callable      # (x, index) -> y, for a float64 x of shape [2, 3] that requires grad
    index: Callable          # () -> the integer or bool tensor the operation reads in backward
    node: str                # y.grad_fn.name() on PyTorch
    next: list               # the names of y.grad_fn.next_functions on PyTorch (None for (None, 0))
    saved: str               # the node attribute that holds the index on PyTorch
    type_name: str           # the index's type in PyTorch's error text
    shape: str               # the index's shape in that text
    needs: tuple             # y.grad_fn.needs_input_grad (as before the index was saved)


def src():
    return torch.tensor(SRC, dtype=torch.float64, requires_grad=True)


def long(values, dtype=None):
    return lambda: torch.tensor(values, dtype=dtype)


def mask(values=MASK):
    return lambda: torch.tensor(values)


CASES = {
    "gather": Case(lambda x, i: x.gather(1, i), long([[0, 1], [2, 0]]), "GatherBackward0", [ACC], "_saved_index",
                   "torch.LongTensor", "2, 2", (True, False, False)),
    "gather int32": Case(lambda x, i: x.gather(1, i), long([[0, 1], [2, 0]], torch.int32), "GatherBackward0", [ACC],
                         "_saved_index", "torch.IntTensor", "2, 2", (True, False, False)),
    "scatter": Case(lambda x, i: x.scatter(1, i, src()), long([[0, 1], [2, 0]]), "ScatterBackward0", [ACC, ACC],
                    "_saved_index", "torch.LongTensor", "2, 2", (True, False, False, True, False)),
    "scatter value": Case(lambda x, i: x.scatter(1, i, 7.0), long([[0, 1], [2, 0]]), "ScatterBackward1", [ACC],
                          "_saved_index", "torch.LongTensor", "2, 2", (True, False, False, False, False)),
    "scatter_": Case(clone_then(lambda y, i: y.scatter_(1, i, src())), long([[0, 1], [2, 0]]), "ScatterBackward0",
                     ["CloneBackward0", ACC], "_saved_index", "torch.LongTensor", "2, 2",
                     (True, False, False, True, False)),
    "scatter_add": Case(lambda x, i: x.scatter_add(1, i, src()), long([[0, 1], [2, 0]]), "ScatterAddBackward0",
                        [ACC, ACC], "_saved_index", "torch.LongTensor", "2, 2", (True, False, False, True)),
    "scatter_add_": Case(clone_then(lambda y, i: y.scatter_add_(1, i, src())), long([[0, 1], [2, 0]]),
                         "ScatterAddBackward0", ["CloneBackward0", ACC], "_saved_index", "torch.LongTensor", "2, 2",
                         (True, False, False, True)),
    "index_select": Case(lambda x, i: x.index_select(1, i), long([2, 0, 2]), "IndexSelectBackward0", [ACC],
                         "_saved_index", "torch.LongTensor", "3", (True, False, False)),
    "index_select 0-dim index": Case(lambda x, i: x.index_select(1, i), long(2), "IndexSelectBackward0", [ACC],
                                     "_saved_index", "torch.LongTensor", "", (True, False, False)),
    "index_add_": Case(clone_then(lambda y, i: y.index_add_(1, i, src())), long([2, 0]), "IndexAddBackward0",
                       ["CloneBackward0", ACC], "_saved_index", "torch.LongTensor", "2",
                       (True, False, False, True, False)),
    "masked_fill": Case(lambda x, m: x.masked_fill(m, 0.0), mask(), "MaskedFillBackward0", [ACC], "_saved_mask",
                        "CPUBoolType", "2, 3", (True, False, False)),
    "masked_fill row mask": Case(lambda x, m: x.masked_fill(m, 0.0), mask([True, False, True]), "MaskedFillBackward0",
                                 [ACC], "_saved_mask", "CPUBoolType", "3", (True, False, False)),
    "masked_fill tensor value": Case(lambda x, m: x.masked_fill(m, torch.tensor(5.0, requires_grad=True)), mask(),
                                     "MaskedFillBackward1", [ACC, ACC], "_saved_mask", "CPUBoolType", "2, 3",
                                     (True, False, True)),
    "masked_fill_": Case(clone_then(lambda y, m: y.masked_fill_(m, 0.0)), mask(), "MaskedFillBackward0",
                         ["CloneBackward0"], "_saved_mask", "CPUBoolType", "2, 3", (True, False, False)),
    "masked_select": Case(lambda x, m: x.masked_select(m), mask(), "MaskedSelectBackward0", [ACC], "_saved_mask",
                          "CPUBoolType", "2, 3", (True, False)),
    "masked_select row mask": Case(lambda x, m: x.masked_select(m), mask([True, False, True]), "MaskedSelectBackward0",
                                   [ACC], "_saved_mask", "CPUBoolType", "3", (True, False)),
    "where": Case(lambda x, m: torch.where(m, x, torch.zeros(2, 3, dtype=torch.float64)), mask(), "WhereBackward0",
                  [ACC, None], "_saved_condition", "CPUBoolType", "2, 3", (False, True, False)),
    "where both": Case(lambda x, m: torch.where(m, x, x * 2), mask(), "WhereBackward0", [ACC, "MulBackward0"],
                       "_saved_condition", "CPUBoolType", "2, 3", (False, True, True)),
    "x[index]": Case(lambda x, i: x[i], long([1, 0, 1]), "IndexBackward0", [ACC], "_saved_indices",
                     "torch.LongTensor", "3", (True, False)),
    "x[:, index]": Case(lambda x, i: x[:, i], long([2, 0]), "IndexBackward0", [ACC], "_saved_indices",
                        "torch.LongTensor", "2", (True, False)),
    "x[1:, index]": Case(lambda x, i: x[1:, i], long([2, 0]), "IndexBackward0", ["SliceBackward0"], "_saved_indices",
                         "torch.LongTensor", "2", (True, False)),
    "x[rows, index]": Case(lambda x, i: x[torch.tensor([1, 0]), i], long([2, 0]), "IndexBackward0", [ACC],
                           "_saved_indices", "torch.LongTensor", "2", (True, False)),
    "x[mask]": Case(lambda x, m: x[m], mask(), "IndexBackward0", [ACC], "_saved_indices", "CPUBoolType", "2, 3",
                    (True, False)),
    "x[index] = v": Case(clone_then(lambda y, i: y.__setitem__(i, torch.ones(3, dtype=torch.float64,
                                                                              requires_grad=True))),
                         long([1]), "IndexPutBackward0", ["CloneBackward0", ACC], "_saved_indices",
                         "torch.LongTensor", "1", (True, True, False)),
    "x[:, index] = v": Case(clone_then(lambda y, i: y.__setitem__((slice(None), i), torch.zeros(2, 2,
                                                                                                dtype=torch.float64))),
                            long([2, 0]), "IndexPutBackward0", ["CloneBackward0", None], "_saved_indices",
                            "torch.LongTensor", "2", (True, False, False)),
    "x[mask] = 0": Case(clone_then(lambda y, m: y.__setitem__(m, 0.0)), mask(), "IndexPutBackward0",
                        ["CloneBackward0", None], "_saved_indices", "CPUBoolType", "2, 3", (True, False, False)),
    "embedding": Case(lambda w, i: F.embedding(i, w), long([[1, 0], [1, 1]]), "EmbeddingBackward0", [ACC],
                      "_saved_indices", "torch.LongTensor", "2, 2", (True, False, False, False)),
    "nll_loss": Case(lambda x, t: F.nll_loss(x, t), long([2, 1]), "NllLossBackward0", [ACC], "_saved_target",
                     "torch.LongTensor", "2", (True, False, False, False, False)),
    "nll_loss uint8 target": Case(lambda x, t: F.nll_loss(x, t), long([2, 1], torch.uint8), "NllLossBackward0", [ACC],
                                  "_saved_target", "torch.ByteTensor", "2", (True, False, False, False, False)),
    "nll_loss one sample": Case(lambda x, t: F.nll_loss(x[0], t), long(2), "NllLossBackward0", ["SelectBackward0"],
                                "_saved_target", "torch.LongTensor", "", (True, False, False, False, False)),
    "nll_loss sum": Case(lambda x, t: F.nll_loss(x, t, reduction="sum"), long([2, 1]), "NllLossBackward0", [ACC],
                         "_saved_target", "torch.LongTensor", "2", (True, False, False, False, False)),
    "cross_entropy": Case(lambda x, t: F.cross_entropy(x, t), long([2, 1]), "NllLossBackward0",
                          ["LogSoftmaxBackward0"], "_saved_target", "torch.LongTensor", "2",
                          (True, False, False, False, False)),
    "nll_loss weight": Case(lambda x, w: F.nll_loss(x, torch.tensor([2, 1]), weight=w),
                            lambda: torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64), "NllLossBackward0", [ACC],
                            "_saved_weight", "torch.DoubleTensor", "3", (True, False, False, False, False)),
}


def leaf() -> torch.Tensor:
    return torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=torch.float64, requires_grad=True)


def upstream(y) -> torch.Tensor:
    """A gradient for y with a different number in each place, so that a wrong place shows."""
    return torch.arange(1.0, y.numel() + 1, dtype=torch.float64).reshape(y.shape) * 0.5


def holds(node, name: str, index) -> bool:
    """Whether ``node.<name>`` is the index itself (``_saved_indices``: one of the tensors it lists)."""
    kept = getattr(node, name)
    return kept is index if isinstance(kept, torch.Tensor) else any(t is index for t in kept)


def central_differences(case: Case, index, grad_output: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """d sum(operation(x) * grad_output) / dx by central differences, x = leaf()."""
    x0 = leaf().detach().numpy()
    grad = np.zeros_like(x0)
    for position in np.ndindex(x0.shape):
        values = []
        for step in (eps, -eps):
            moved = x0.copy()
            moved[position] += step
            with torch.no_grad():
                y = case.operation(torch.tensor(moved), index)
            values.append(float((y.numpy() * grad_output).sum()))
        grad[position] = (values[0] - values[1]) / (2 * eps)
    return grad


# --------------------------------------------------------------------------- every case
@pytest.mark.parametrize("name", CASES)
def test_unchanged_the_gradient_is_right_and_the_graph_is_pytorchs(name):
    case = CASES[name]
    x, index = leaf(), case.index()
    y = case.operation(x, index)
    node = y.grad_fn
    assert node.name() == case.node
    assert [n.name() if n is not None else None for n, _ in node.next_functions] == case.next
    assert holds(node, case.saved, index)
    assert node.needs_input_grad == case.needs   # the index is an argument that needs no gradient
    g = upstream(y)
    y.backward(g)
    np.testing.assert_allclose(x.grad.numpy(), central_differences(case, index, g.numpy()), atol=1e-6)


@pytest.mark.parametrize("name", CASES)
def test_changed_in_place_before_backward_raises_pytorchs_text_and_grad_is_untouched(name):
    case = CASES[name]
    x, index = leaf(), case.index()
    x.grad = before = torch.full((2, 3), 7.0, dtype=torch.float64)
    y = case.operation(x, index)
    index.zero_()   # version 0 -> 1
    with pytest.raises(RuntimeError, match=modified_pattern(case.type_name, case.shape)):
        y.backward(upstream(y))
    assert x.grad is before and x.grad.tolist() == [[7.0] * 3] * 2


@pytest.mark.parametrize("name", CASES)
def test_the_saved_index_is_freed_by_backward_unless_retain_graph(name):
    case = CASES[name]
    x, index = leaf(), case.index()
    y = case.operation(x, index)
    y.backward(upstream(y), retain_graph=True)
    first = x.grad.clone()
    assert holds(y.grad_fn, case.saved, index)   # still there
    y.backward(upstream(y))
    np.testing.assert_allclose(x.grad.numpy(), 2 * first.numpy())
    with pytest.raises(RuntimeError, match=re.escape(BACKWARD_TWICE)):
        getattr(y.grad_fn, case.saved)
    with pytest.raises(RuntimeError, match=re.escape(BACKWARD_TWICE)):
        y.backward(upstream(y))
    np.testing.assert_allclose(x.grad.numpy(), 2 * first.numpy())   # the failed third backward wrote nothing


def test_a_bool_tensor_is_named_as_pytorch_names_it():
    x, m = leaf(), torch.tensor(MASK)
    y = x.masked_fill(m, 0.0)
    m.zero_()
    with pytest.raises(RuntimeError) as error:
        y.sum().backward()
    assert str(error.value) == modified("CPUBoolType", "2, 3")


# --------------------------------------------------------------------------- PyTorch's own exceptions
@pytest.mark.parametrize("operation", [lambda x, i: x.scatter_add(1, i, torch.ones(2, 2, dtype=torch.float64)),
                                       clone_then(lambda y, i: y.scatter_add_(1, i, torch.ones(2, 2,
                                                                                             dtype=torch.float64)))],
                         ids=["scatter_add", "scatter_add_"])
def test_scatter_add_reads_its_index_only_for_src(operation):
    x, index = leaf(), torch.tensor([[0, 1], [2, 0]])
    y = operation(x, index)
    assert [n.name() if n is not None else None for n, _ in y.grad_fn.next_functions][-1] is None
    index.zero_()
    y.sum().backward(retain_graph=False)   # as in PyTorch: x's gradient does not read the index...
    y.sum().backward()                     # ...so neither the change nor a second backward is refused
    assert x.grad.tolist() == [[2.0] * 3] * 2


def test_index_add_reads_its_index_only_for_source():
    x, index = leaf(), torch.tensor([2, 0])
    y = x.clone().index_add_(1, index, torch.ones(2, 2, dtype=torch.float64))
    assert [n.name() if n is not None else None for n, _ in y.grad_fn.next_functions] == ["CloneBackward0", None]
    index.zero_()
    y.sum().backward()
    assert x.grad.tolist() == [[1.0] * 3] * 2


def test_index_add_saves_its_source_too():
    x, source = leaf(), torch.ones(2, 2, dtype=torch.float64, requires_grad=True)
    doubled = source * 2
    y = x.clone().index_add_(1, torch.tensor([2, 0]), doubled)
    assert y.grad_fn._saved_source is doubled
    doubled.add_(1)   # its history is now the add's, which PyTorch's text names
    text = modified("torch.DoubleTensor", "2, 2").replace("]] is at", "]], which is output 0 of Add, is at")
    with pytest.raises(RuntimeError, match="^" + re.escape(text) + "$"):
        y.sum().backward()


def test_a_0_dim_mask_is_saved_as_the_positions_it_keeps():
    x0, mask0 = torch.tensor(3.0, requires_grad=True), torch.tensor(True)
    y = x0[mask0]   # as PyTorch: unsqueeze, then index with where the mask is True
    assert [n.name() for n, _ in y.grad_fn.next_functions] == ["UnsqueezeBackward0"]
    kept, = y.grad_fn._saved_indices
    assert kept.tolist() == [0] and kept is not mask0
    mask0.fill_(False)   # not what backward reads: no error, as in PyTorch
    y.sum().backward()
    assert x0.grad.item() == 1.0
    x = leaf()
    y = x[torch.tensor(True)]
    assert tuple(y.shape) == (1, 2, 3) and [n.name() for n, _ in y.grad_fn.next_functions] == ["UnsqueezeBackward0"]
    y = x[True]
    assert tuple(y.shape) == (1, 2, 3) and [n.name() for n, _ in y.grad_fn.next_functions] == ["UnsqueezeBackward0"]


def test_a_0_dim_integer_tensor_selects_as_an_int():
    x, index = leaf(), torch.tensor(1)
    y = x[index]
    assert y.grad_fn.name() == "SelectBackward0" and y._base is x
    y = x[:, index]
    assert y.grad_fn.name() == "SelectBackward0" and y.tolist() == [2.0, 5.0]
    index.zero_()   # a select reads no tensor in backward
    y.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]]
    with pytest.raises(IndexError, match="^too many indices for tensor of dimension 0$"):
        torch.tensor(3.0)[torch.tensor(0)]   # an int would say "invalid index of a 0-dim tensor..."


def test_an_index_of_another_type_gets_pytorchs_error():
    with pytest.raises(IndexError, match=re.escape("only integers, slices (`:`), ellipsis (`...`), None and long or "
                                                   "byte Variables are valid indices (got float)")):
        leaf()[:, 1.5]


def test_saved_indices_has_none_for_each_whole_dimension():
    x, j = leaf(), torch.tensor([2, 0])
    y = x[:, j]
    assert len(y.grad_fn._saved_indices) == 2 and y.grad_fn._saved_indices[0] is None
    assert y.grad_fn._saved_indices[1] is j
    z = x.clone()
    z[:, j] = torch.zeros(2, 2, dtype=torch.float64)
    assert z.grad_fn._saved_indices[0] is None and z.grad_fn._saved_indices[1] is j


def test_a_mask_that_is_a_view_is_changed_through_its_base():
    base = torch.tensor(MASK)
    x = leaf()
    y = x.masked_fill(base[0], 0.0)
    base[1, 0] = True   # another row: the view's elements did not change, its version did (shared counter)
    with pytest.raises(RuntimeError, match=modified_pattern("CPUBoolType", "3")):
        y.sum().backward()


@pytest.mark.parametrize("values, indices, node", [
    (lambda x: x.max(1), "_saved_indices", "MaxBackward0"),
    (lambda x: x.sort(1), "_saved_indices", "SortBackward0"),
    (lambda x: x.topk(2), "_saved_indices", "TopkBackward0"),
    (lambda x: x.median(1), "_saved_indices", "MedianBackward1"),
], ids=["max", "sort", "topk", "median"])
def test_indices_a_node_returns_are_saved_and_read_by_backward(values, indices, node):
    x = torch.tensor([[1.0, 3.0, 2.0], [6.0, 4.0, 5.0]], requires_grad=True)
    out, idx = values(x)
    assert out.grad_fn.name() == node and getattr(out.grad_fn, indices) is idx
    shape = ", ".join(str(n) for n in idx.shape)
    idx.zero_()
    with pytest.raises(RuntimeError, match=modified_pattern("torch.LongTensor", shape)):
        out.sum().backward()
    assert x.grad is None


# --------------------------------------------------------------------------- double backward
DOUBLE = {
    "gather": (lambda x, i: x.gather(1, i), long([[0, 1], [2, 0]]), "torch.LongTensor", "2, 2"),
    "masked_fill": (lambda x, m: x.masked_fill(m, 0.0), mask(), "CPUBoolType", "2, 3"),
    "where": (lambda x, m: torch.where(m, x, 0.0), mask(), "CPUBoolType", "2, 3"),
    "x[index]": (lambda x, i: x[i], long([1, 0]), "torch.LongTensor", "2"),
    "x[mask]": (lambda x, m: x[m], mask(), "CPUBoolType", "2, 3"),
    "index_select": (lambda x, i: x.index_select(1, i), long([2, 0]), "torch.LongTensor", "2"),
    "masked_select": (lambda x, m: x.masked_select(m), mask(), "CPUBoolType", "2, 3"),
    "embedding": (lambda w, i: F.embedding(i, w), long([1, 0]), "torch.LongTensor", "2"),
    "nll_loss": (lambda x, t: F.nll_loss(x, t, reduction="none"), long([1, 2]), "torch.LongTensor", "2"),
}


@pytest.mark.parametrize("name", DOUBLE)
def test_the_backward_graph_reads_the_index_too(name):
    """With create_graph=True, the nodes backward records save the index as well: changed before
    the second backward, it is refused there, as in PyTorch."""
    operation, make_index, type_name, shape = DOUBLE[name]
    x, index = leaf(), make_index()
    y = operation(x, index)
    w = torch.ones(tuple(y.shape), dtype=torch.float64, requires_grad=True)
    g, = torch.autograd.grad(y, x, w, create_graph=True)
    weights = torch.arange(6.0, dtype=torch.float64).reshape(2, 3)
    (g * weights).sum().backward(retain_graph=True)
    expected = w.grad.clone()
    np.testing.assert_allclose(expected.numpy(), operation(weights, index).detach().numpy())   # linear in x
    index.zero_()
    with pytest.raises(RuntimeError, match=modified_pattern(type_name, shape)):
        (g * weights).sum().backward()
    assert w.grad.tolist() == expected.tolist()


# --------------------------------------------------------------------------- the argument checks nearby
@pytest.mark.parametrize("dtype, name", [(torch.int64, "Long"), (torch.float32, "Float"), (torch.int32, "Int")])
def test_where_refuses_a_condition_that_is_not_bool(dtype, name):
    with pytest.raises(RuntimeError, match=f"^where expected condition to be a boolean tensor, but got a tensor "
                                           f"with dtype {name}$"):
        torch.where(torch.tensor([1, 0], dtype=dtype), torch.ones(2), torch.zeros(2))


def test_where_accepts_a_uint8_condition_with_pytorchs_warning():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    condition = torch.tensor([2, 0], dtype=torch.uint8)   # nonzero counts as True
    with pytest.warns(UserWarning, match="^where received a uint8 condition tensor. This behavior is deprecated"):
        y = torch.where(condition, x, torch.zeros(2))
    assert y.tolist() == [1.0, 0.0] and y.grad_fn._saved_condition is condition
    y.backward(torch.tensor([3.0, 4.0]))
    assert x.grad.tolist() == [3.0, 0.0]


def test_nll_loss_refuses_a_weight_that_requires_grad_unless_under_no_grad():
    weight = torch.ones(3, requires_grad=True)
    text = ("^The function 'nll_loss_forward' is not differentiable with respect to argument 'weight'. This input "
            "cannot have requires_grad True.$")
    with pytest.raises(RuntimeError, match=text):
        F.nll_loss(torch.zeros(2, 3), torch.tensor([1, 0]), weight=weight)
    with torch.no_grad():
        assert F.nll_loss(torch.zeros(2, 3), torch.tensor([1, 0]), weight=weight).item() == 0.0


# --------------------------------------------------------------------------- NoEdge itself
def test_no_edge_hands_forward_the_tensor_without_an_edge():
    """gather's Function applied by hand: NoEdge(index) gives no next_functions entry, False in
    needs_input_grad, and forward saves the tensor inside under PyTorch's name."""
    from minigrad.autograd import node_info
    from minigrad.ops.gather_scatter import GatherPart
    x, index = leaf(), torch.tensor([[0, 1], [2, 0]])
    node = GatherPart.apply(x, 1, NoEdge(index)).grad_fn
    assert len(node.next_functions) == 1 and node.needs_input_grad == (True, False, False)
    assert node_info.saved_names(node) == ("self", "index")
    assert node._saved_self is x and node._saved_index is index
    assert not isinstance(NoEdge(index), torch.Tensor)
