"""Checkers for ``03_tensors_and_the_graph.ipynb``.

>>> import minigrad as torch
>>> from minigrad.exercises import nb03 as check
>>> result = check.your_turn_2(8.0)
✓ Your turn 2: predict a gradient through a reused intermediate — correct.
"""
from __future__ import annotations

import math
from collections import Counter, deque
from itertools import combinations
from typing import Callable

import numpy as np

import minigrad as torch
from minigrad.autograd import node_info

from ._feedback import _, N_, exercise, expect, get_language, plain_number
from ._observe import minigrad_graph_walks


def reference_bfs(tensor) -> list[str]:
    """The names of the nodes reachable from ``tensor.grad_fn``, breadth-first, each once."""
    root = tensor.grad_fn
    seen, order, queue = {root}, [], deque([root])
    while queue:
        node = queue.popleft()
        order.append(node.name())
        for next_node, unused in node.next_functions:
            if next_node is not None and next_node not in seen:
                seen.add(next_node)
                queue.append(next_node)
    return order


def _depth_first(tensor) -> list[str]:
    """The same nodes in the order a stack (``list.pop()``) visits them: a typical mix-up."""
    root = tensor.grad_fn
    seen, order, stack = set(), [], [root]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        order.append(node.name())
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return order


def _engine_names(tensor) -> Counter:
    """What the engine itself finds: every node reachable through ``next_functions``, each once."""
    return Counter(node.name() for node in node_info.reachable_nodes(tensor.grad_fn))


def _names(counts: Counter) -> str:
    """``'MulBackward0, torch::autograd::AccumulateGrad (2 of them)'`` (in the checkers' language)."""
    return _separator().join(name if n == 1 else _("{name} ({n} of them)")
                                                 .format(name=name, n=n) for name, n in sorted(counts.items()))


def _more(counts: Counter) -> str:
    """``'one more torch::autograd::AccumulateGrad node'``: the nodes of those names a list left out."""
    return _separator().join(_("one more {name} node")
                             .format(name=name) if n == 1 else _("{n} more {name} nodes").format(n=n, name=name)
                             for name, n in sorted(counts.items()))


def _repeats(counts: Counter) -> str:
    """``'MulBackward0 (1 extra copy)'``: how often each name is listed more than once."""
    return _separator().join(_("{name} ({n} extra copy)")
                             .format(name=name, n=n) if n == 1 else _("{name} ({n} extra copies)").format(name=name, n=n)
                             for name, n in sorted(counts.items()))


def _separator() -> str:
    return "、" if get_language() == "zh" else ", "


def _test_graphs() -> list[tuple[str, object]]:
    """A few graphs, each with a short description used in the feedback."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([0.5, -1.0], requires_grad=True)
    c = torch.tensor([3.0, 3.0])
    a = torch.tensor(1.0, requires_grad=True)
    b = torch.tensor(2.0, requires_grad=True)
    s = torch.tensor(2.0, requires_grad=True)
    h = s * 3
    return [
        (N_("the graph of (x * w + c).sum()"), (x * w + c).sum()),
        (N_("the graph of (x * 2).exp().sum()"), (x * 2).exp().sum()),
        (N_("the graph of a.exp() * b.sin()"), a.exp() * b.sin()),
        (N_("the graph of h * h + h (h = s * 3)"), h * h + h),
    ]


@exercise("Your turn 1: the nodes in breadth-first order",
          deeper_hint=N_("Use a queue (collections.deque): take a node from its front, record its name, and append "
                         "each node of node.next_functions that is not None and not seen yet; mark a node as seen "
                         "when it joins the queue."))
def your_turn_1(node_names: Callable) -> None:
    """``node_names(tensor)`` must return ``[node.name(), ...]`` for every node reachable from
    ``tensor.grad_fn``, breadth-first, each node once (compared with the engine's discovery)."""
    expect(callable(node_names), _("you passed {node_names_type}, not a function")
                                 .format(node_names_type=type(node_names).__name__),
           _("pass the function itself: check.your_turn_1(node_names)"))
    for description, tensor in _test_graphs():
        expected = reference_bfs(tensor)
        with minigrad_graph_walks() as walks:
            got = node_names(tensor)
        expect(not walks,
               _("your function calls {walks}, minigrad's own walk over next_functions: the exercise is to write "
                 "that walk yourself").format(walks=walks[0] if walks else ''),
               _("start from [tensor.grad_fn] in a deque; take a node from the front, append its next_functions "
                 "(skipping None and nodes already seen) at the back"))
        expect(got is not None, _("for {description} your function returned None").format(description=description),
               _("collect the names in a list and end with `return names`"))
        expect(isinstance(got, (list, tuple)), _("for {description} it returned {got_type}, not a list")
                                               .format(description=description, got_type=type(got).__name__),
               _("collect the names in a list and return it"))
        got = list(got)
        expect(None not in got, _("for {description} the list contains None").format(description=description),
               _("(None, 0) in next_functions means 'this input needs no gradient': skip None"))
        not_names = [item for item in got if not isinstance(item, str)]
        expect(not not_names, _("for {description} the list holds {not_names_type} objects, not names")
                              .format(description=description, not_names_type=type(not_names[0]).__name__ if not_names else ''), _("append node.name() (a string), not the node itself"))
        expect(got, _("for {description} the list is empty")
                    .format(description=description), _("start from tensor.grad_fn"))
        if "AccumulateGrad" in got:
            expect(False, _("for {description} you wrote 'AccumulateGrad' where node.name() gives "
                            "'torch::autograd::AccumulateGrad'").format(description=description),
                   _("use node.name(), not type(node).__name__"))
        expect(got[0] == expected[0], _("for {description} the list starts with {got!r}, not with the output's own "
                                        "node {expected!r}")
                                      .format(description=description, got=got[0], expected=expected[0]),
               _("put tensor.grad_fn itself first, then what its next_functions point to"))
        engine = _engine_names(tensor)
        mine = Counter(got)
        extra = mine - engine
        missing = engine - mine
        if extra and not missing:
            expect(False, _("for {description} your list repeats {repeats_extra}: a node reached along two paths is "
                            "still one node")
                          .format(description=description, repeats_extra=_repeats(extra)), _("keep a set of the nodes already seen and skip them"))
        expect(not (missing and not extra and len(set(got)) == len(got) and all(n in mine for n in missing)),
               _("for {description} your list has each name once, but the graph has {more_missing}: different nodes "
                 "can have the same name (one AccumulateGrad per leaf)")
               .format(description=description, more_missing=_more(missing)),
               _("remember the nodes you have seen by the node objects themselves (seen.add(node)), not by their "
                 "names"))
        expect(not missing, _("for {description} the engine also reaches {names_missing}, which your list leaves out")
                            .format(description=description, names_missing=_names(missing)),
               _("follow the next_functions of every node you visit, down to the AccumulateGrad nodes"))
        expect(not extra, _("for {description} your list has nodes the engine never reaches: {names_extra}")
                          .format(description=description, names_extra=_names(extra)),
               _("only follow next_functions"))
        if got != expected and got == _depth_first(tensor):
            expect(False, _("for {description} you gave depth-first order {got}")
                          .format(description=description, got=got),
                   _("a list used with pop() is a stack; take from the front instead (collections.deque and "
                     "popleft(), or list.pop(0))"))
        expect(got == expected, _("for {description} the order is {got}, breadth-first is {expected}")
                                .format(description=description, got=got, expected=expected),
               _("visit the nodes level by level: a queue, first in, first out"))


# The graph of "Your turn 2": x = 2, h = x + 3, y = h * x + h. Three paths lead from y back to x:
# x as the right factor of h * x (it carries h = 5), h as the left factor (it carries x = 2), and
# + h (1). Every partial sum of them is a different number, so the checker can tell when a path
# was left out; it never says which, nor what a path carries: that would add up the answer.
_X = 2.0
_PATH_VALUES = (_X + 3.0, _X, 1.0)


def _same(prediction: float, value: float) -> bool:
    """Equal up to rounding: 8.0000001 (float32 arithmetic) is 8; every wrong sum is 1 or more away."""
    return math.isclose(prediction, value, rel_tol=1e-5, abs_tol=1e-9)


PATHS_HINT = N_("x reaches y along three paths, and backward adds up what arrives along each")


def _true_gradient() -> float:
    x = torch.tensor(_X, requires_grad=True)
    h = x + 3
    y = h * x + h
    y.backward()
    return x.grad.item()


@exercise("Your turn 2: predict a gradient through a reused intermediate",
          deeper_hint=N_("With x = 2, h = 5. Follow the three paths from y back to x: x as the right factor of h * "
                         "x, h as the left factor (and then h = x + 3), and + h; multiply the local derivatives "
                         "along each path, then add the paths."))
def your_turn_2(prediction) -> None:
    """``prediction``: dy/dx for ``x = 2.0; h = x + 3; y = h * x + h`` (the engine gives 8)."""
    expect(prediction is not Ellipsis and prediction is not None,
           _("there is no prediction yet (the answer is still ...)"), _("replace ... with a number"))
    prediction = plain_number(prediction)   # 8.0, np.array(8.0) and torch.tensor(8.0) are one number
    expect(isinstance(prediction, (int, float)) and not isinstance(prediction, bool),
           _("you gave {prediction_type} {prediction!r}, not a number")
           .format(prediction_type=type(prediction).__name__, prediction=prediction),
           _("a plain number such as 1.5 (for a tensor t, t.item() gives its number)"))
    truth = _true_gradient()
    if _same(prediction, truth):
        return
    partial_sums = [sum(subset) for size in (1, 2) for subset in combinations(_PATH_VALUES, size)]
    expect(not any(_same(prediction, value) for value in partial_sums),
           _("{prediction!r} leaves out at least one of the paths from y back to x").format(prediction=prediction),
           PATHS_HINT)
    expect(not _same(prediction, math.prod(_PATH_VALUES)),
           _("{prediction!r} multiplies what the paths carry: along one path the local derivatives multiply (the "
             "chain rule), but what arrives along different paths adds up").format(prediction=prediction),
           _("AccumulateGrad(x) adds every gradient that reaches it"))
    expect(False, _("{prediction!r} is not dy/dx").format(prediction=prediction),
           _("list every path from y back to x, multiply the local derivatives along each path, and add the paths up"))
