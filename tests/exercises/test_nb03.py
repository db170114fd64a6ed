"""The checkers of notebook 03, tensors and the graph (``minigrad/exercises/nb03.py``): right answers
written several ways, and the wrong answers students write, each with the verdict it must give
in English and in Chinese."""
from __future__ import annotations

from collections import deque

import numpy as np
import pytest

import minigrad as torch
from minigrad.autograd import node_info
from minigrad.autograd.node_info import reachable_nodes
from minigrad.exercises import nb03
from minigrad.viz import graph_walk

from exercise_helpers import run, verdict_tests


# =========================================================================== 03, Your turn 1
def bfs_names(tensor):
    names, seen, queue = [], {tensor.grad_fn}, deque([tensor.grad_fn])
    while queue:
        node = queue.popleft()
        names.append(node.name())
        for next_node, _ in node.next_functions:
            if next_node is not None and next_node not in seen:
                seen.add(next_node)
                queue.append(next_node)
    return names


def bfs_names_marking_on_pop(tensor):
    names, seen, queue = [], set(), [tensor.grad_fn]
    while queue:
        node = queue.pop(0)
        if node is None or node in seen:
            continue
        seen.add(node)
        names.append(node.name())
        queue.extend(n for n, _ in node.next_functions)
    return names


def without_seen_set(tensor):
    names, queue = [], deque([tensor.grad_fn])
    while queue:
        node = queue.popleft()
        names.append(node.name())
        queue.extend(n for n, _ in node.next_functions if n is not None)
    return names


def depth_first(tensor):
    names, seen, stack = [], set(), [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            names.append(node.name())
            stack.extend(n for n, _ in node.next_functions if n is not None)
    return names


def keeps_none(tensor):
    names, seen, queue = [], set(), deque([tensor.grad_fn])
    while queue:
        node = queue.popleft()
        if node in seen:
            continue
        seen.add(node)
        names.append(None if node is None else node.name())
        if node is not None:
            queue.extend(n for n, _ in node.next_functions)
    return names


def type_names(tensor):
    return [name.replace("torch::autograd::", "") for name in bfs_names(tensor)]


def nodes_not_names(tensor):
    return [tensor.grad_fn]


def no_accumulate_grad(tensor):
    return [name for name in bfs_names(tensor) if "AccumulateGrad" not in name]


def without_root(tensor):
    return bfs_names(tensor)[1:]


def forgets_return(tensor):
    bfs_names(tensor)


# (checker, answer, what the verdict says); None: accepted. CASES, at the end, gathers them.
TURN_1 = [(nb03.your_turn_1, answer, problem) for answer, problem in [
    (bfs_names, None), (bfs_names_marking_on_pop, None),     # breadth-first walks
    (without_seen_set, "your list repeats MulBackward0 (2 extra copies)"),
    (depth_first, "you gave depth-first order"),
    (keeps_none, "the list contains None"),
    (type_names, "you wrote 'AccumulateGrad' where node.name() gives 'torch::autograd::AccumulateGrad'"),
    (nodes_not_names, "the list holds SumBackward0 objects, not names"),
    (no_accumulate_grad, "the engine also reaches torch::autograd::AccumulateGrad (2 of them)"),
    (without_root, "not with the output's own node 'SumBackward0'"),
    (forgets_return, "your function returned None"),
    (lambda tensor: [], "the list is empty"),
    (42, "you passed int, not a function"),
]]


def test_nb03_reference_order_matches_the_engine_on_a_reused_intermediate():
    s = torch.tensor(2.0, requires_grad=True)
    h = s * 3
    assert nb03.reference_bfs(h * h + h) == ["AddBackward0", "MulBackward0", "MulBackward0",
                                             "torch::autograd::AccumulateGrad"]


# =========================================================================== 03, Your turn 2
def test_nb03_turn2_accepts_the_engine_value(capsys):
    x = torch.tensor(2.0, requires_grad=True)
    h = x + 3
    (h * x + h).backward()
    ok, out = run(nb03.your_turn_2, x.grad.item(), capsys)
    assert ok and x.grad.item() == 8.0, out


TURN_2 = [(nb03.your_turn_2, answer, problem) for answer, problem in [
    (7.0, "7.0 leaves out at least one of the paths from y back to x"),
    (5, "5 leaves out at least one of the paths from y back to x"),
    (3.0, "3.0 leaves out at least one of the paths"),
    (6.0, "6.0 leaves out at least one of the paths"),
    (10.0, "10.0 multiplies what the paths carry"),
    (9.5, "9.5 is not dy/dx"),
    (..., "there is no prediction yet"),
    (True, "you gave bool True, not a number"),
    ("8", "you gave str '8', not a number"),
]]


@pytest.mark.parametrize("answer", [1.0, 2.0, 3.0, 5.0, 6.0, 7.0, 10.0, 9.5])
def test_nb03_turn2_never_names_or_values_a_path(answer, capsys):
    """7 once got "counts only the paths x -> h * x and x -> h -> h * x, and misses x -> h -> + h"
    and 5 "counts only the path x -> h * x": two guesses added up to the answer."""
    ok, out = run(nb03.your_turn_2, answer, capsys)
    assert not ok and "->" not in out and "factor" not in out and " 8" not in out, out


# --------------------------------------------------------------------------- 03, 07, 09: messages quoting a case
def names_without_seen_set(tensor):
    names, queue = [], [tensor.grad_fn]
    while queue:
        node = queue.pop(0)
        names.append(node.name())
        queue.extend(n for n, _ in node.next_functions if n is not None)
    return names


def names_deduplicated_by_name(tensor):
    names, queue = [], deque([tensor.grad_fn])
    while queue:
        node = queue.popleft()
        if node.name() not in names:
            names.append(node.name())
            queue.extend(n for n, _ in node.next_functions if n is not None)
    return names


def names_from_the_helper(tensor):
    return [node.name() for node in node_info.reachable_nodes(tensor.grad_fn)]


def names_from_the_imported_helper(tensor):
    return [node.name() for node in reachable_nodes(tensor.grad_fn)]


# --------------------------------------------------------------------------- Your turn 1: more answers students write
def names_from_the_private_walker(tensor):
    return [item.node.name() for item in graph_walk._Walker([tensor]).discover()]


def names_from_viz_walk(tensor):
    return [item.node.name() for item in graph_walk.walk([tensor]).nodes]


def names_from_the_engine_discovery(tensor):
    from minigrad.autograd.engine import _discover
    nodes = [tensor.grad_fn] + [n for n in _discover([(tensor.grad_fn, 0)]) if n is not tensor.grad_fn]
    return [node.name() for node in nodes]


# (checker, answer, what the problem line says); None: accepted.
CASES = TURN_1 + TURN_2 + [
    (nb03.your_turn_1, names_without_seen_set, "your list repeats MulBackward0 (2 extra copies)"),
    (nb03.your_turn_2, torch.tensor(8.0), None),
    (nb03.your_turn_1, names_deduplicated_by_name, "your list has each name once, but the graph has one more torch::autograd::AccumulateGrad node"),
    (nb03.your_turn_1, names_from_the_helper, "your function calls node_info.reachable_nodes"),
    (nb03.your_turn_1, names_from_the_imported_helper, "your function calls node_info.reachable_nodes"),
    (nb03.your_turn_2, 5.0, "5.0 leaves out at least one of the paths from y back to x"),
    (nb03.your_turn_2, 7.0, "7.0 leaves out at least one of the paths from y back to x"),
    (nb03.your_turn_2, np.float32(8.0), None),
    (nb03.your_turn_1, names_from_the_private_walker, "your function calls graph_walk._Walker.discover"),
    (nb03.your_turn_1, names_from_viz_walk, "your function calls graph_walk._Walker.discover"),
    (nb03.your_turn_1, names_from_the_engine_discovery, "your function calls engine._discover"),
    (nb03.your_turn_2, 8.0000001, None),
    (nb03.your_turn_2, 8.1, "8.1 is not dy/dx"),
    # a number written as a 0-d numpy array
    (nb03.your_turn_2, np.array(8.0), None),
    (nb03.your_turn_2, np.array(5.0), "5.0 leaves out at least one of the paths from y back to x"),
]

test_each_answer_gets_the_right_verdict, test_the_chinese_verdict_is_the_same_and_wholly_chinese = verdict_tests(CASES)
