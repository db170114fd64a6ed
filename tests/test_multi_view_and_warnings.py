"""Behaviours checked against PyTorch 2.13 (texts copied from its output): the views made by one node
that returns several (split, chunk, unbind) refuse in-place changes, and backward(create_graph=True)
warns about the reference cycle it creates, once per process."""
from __future__ import annotations

import sys
import warnings

import pytest

import minigrad as torch
from minigrad.autograd import engine

ADVICE = (" This view is the output of a function that returns multiple views. Such functions do not allow the "
          "output views to be modified inplace. You should replace the inplace operation by an out-of-place one.")


def recorded():
    return torch.ones(2, 4, requires_grad=True) * 1   # a non-leaf: in-place changes are allowed on it


@pytest.mark.parametrize("make, index, name", [
    (lambda x: x.unbind(0), 1, "Unbind"),
    (lambda x: x.split(2, dim=1), 0, "Split"),
    (lambda x: x.chunk(2, dim=1), 1, "Split"),
    (lambda x: x.split([1, 3], dim=1), 0, "SplitWithSizes"),
    (lambda x: x.split(4, dim=1), 0, "Split"),   # one piece only: still a multi-output node
])
def test_a_piece_of_a_multi_view_node_refuses_an_in_place_change(make, index, name):
    piece = make(recorded())[index]
    with pytest.raises(RuntimeError) as error:
        piece.mul_(2)
    assert str(error.value) == f"Output {index} of {name} is a view and is being modified inplace." + ADVICE


def test_a_view_of_a_piece_is_refused_too_under_its_own_node_name():
    view = recorded().chunk(2, dim=1)[0][0]
    with pytest.raises(RuntimeError, match=r"^Output 0 of Select is a view and is being modified inplace\. This view is the output"):
        view.add_(1)


def test_changing_the_base_makes_the_pieces_unusable():
    x = recorded()
    first, _ = x.split(2, dim=1)
    x.add_(1)
    message = "Output 0 of Split is a view and its base or another view of its base has been modified inplace." + ADVICE
    with pytest.raises(RuntimeError) as error:
        first.grad_fn
    assert str(error.value) == message
    with pytest.raises(RuntimeError) as error:
        (first * 1).sum().backward()
    assert str(error.value) == message


def test_pieces_made_under_no_grad_get_the_no_grad_message():
    x = recorded()
    with torch.no_grad():
        first, _ = x.unbind(0)
    with pytest.raises(RuntimeError, match=r"^A view was created in no_grad mode and is being modified inplace"):
        first.add_(1)


def test_pieces_that_need_no_gradient_and_data_writes_are_allowed():
    first, _ = torch.ones(2, 4).unbind(0)
    first.add_(1)
    assert first.grad_fn is None and first.tolist() == [2.0] * 4
    piece, _ = recorded().unbind(0)
    piece.data.add_(1)   # .data does not bump the version: the node stays
    assert piece.grad_fn.name() == "UnbindBackward0"


CYCLE = ("Using backward() with create_graph=True will create a reference cycle between the parameter and its "
         "gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid "
         "this. If you have to use this function, make sure to reset the .grad fields of your parameters to None "
         "after use to break the cycle and avoid the leak.")


@pytest.mark.parametrize("run, warns", [
    (lambda x: (x * x).sum().backward(create_graph=True), True),
    (lambda x: torch.autograd.backward((x * x).sum(), create_graph=True), True),
    (lambda x: (x * x).sum().backward(create_graph=True, inputs=[x]), True),
    (lambda x: torch.autograd.grad((x * x).sum(), x, create_graph=True), False),
    (lambda x: (x * x).sum().backward(), False),
])
def test_backward_with_create_graph_warns_once_per_process(run, warns, monkeypatch):
    monkeypatch.setattr(sys.modules["minigrad.tensor"], "_warned", set())   # a fresh process, as far as warnings go
    for attempt in range(2):
        x = torch.ones(2, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            run(x)
        messages = [str(w.message) for w in caught if w.category is UserWarning]
        assert messages == ([CYCLE] if warns and attempt == 0 else []), messages
    assert engine.CREATE_GRAPH_CYCLE == CYCLE
