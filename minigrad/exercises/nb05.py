"""Checkers for ``05_save_for_backward.ipynb``.

>>> import minigrad as torch
>>> from minigrad.autograd import node_info
>>> from minigrad.exercises import nb05 as check
>>> def saved_bytes(tensor):
...     seen, stack, total = set(), [tensor.grad_fn], 0
...     while stack:
...         node = stack.pop()
...         if node is None or node in seen:
...             continue
...         seen.add(node)
...         stack.extend(n for n, _ in node.next_functions)
...         for t in node_info.saved_tensors(node) or ():
...             if t is not None:
...                 total += t.numel() * t.element_size()
...     return total
>>> result = check.your_turn_2(saved_bytes)
✓ Your turn 2: count the bytes a graph keeps for backward — correct.
"""
from __future__ import annotations

import contextlib
from typing import Callable, Iterator

import numpy as np

import minigrad as torch
from minigrad import factories
from minigrad.autograd import node_info
from minigrad.autograd.function import Function

from ._feedback import _, N_, exercise, expect, plain_number
from ._observe import applying, backward_passes, tensors_kept_on

INPLACE_ERROR = "modified by an inplace operation"


def _values(t) -> list:
    return np.round(np.asarray(t.detach()._data, dtype=np.float64), 4).tolist()


@exercise("Your turn 1: make the version check catch the in-place bug",
          deeper_hint=N_("Two lines change: forward keeps x through ctx.save_for_backward instead of an attribute, "
                         "and backward unpacks ctx.saved_tensors (a tuple) instead of reading ctx.x."))
def your_turn_1(Cube) -> None:
    """``Cube.apply(x)`` is ``x ** 3`` with gradient ``3 x**2``; x is kept with ``save_for_backward``,
    so changing x in place before backward raises PyTorch's RuntimeError."""
    expect(isinstance(Cube, type) and issubclass(Cube, Function),
           _("{Cube!r} is not a class derived from torch.autograd.Function").format(Cube=Cube),
           _("pass the class: check.your_turn_1(Cube)"))
    x = torch.tensor([1.0, 2.0, -1.0], requires_grad=True)
    y = Cube.apply(x)
    expect(_values(x) == [1.0, 2.0, -1.0],
           _("Cube.apply(x) changed the caller's x in place: x was [1, 2, -1] and is now {values_x}")
           .format(values_x=_values(x)),
           _("forward returns a new tensor, x ** 3, and leaves x as it was"))
    expect(isinstance(y, torch.Tensor) and _values(y) == [1.0, 8.0, -1.0],
           _("Cube.apply([1, 2, -1]) gave {y!r}, expected [1, 8, -1]").format(y=y), _("forward returns x ** 3"))
    upstream = torch.tensor([1.0, 10.0, 100.0])   # not all ones: backward must use grad_output
    try:
        y.backward(upstream)
    except RuntimeError as error:
        expect(False, _("backward failed without any in-place change: {error}").format(error=error),
               _("in backward, read the tensor back with `x, = ctx.saved_tensors`"))
    except TypeError as error:
        expect("tuple" not in str(error), _("backward failed: TypeError: {error}").format(error=error),
               _("ctx.saved_tensors is a tuple, even for one tensor: unpack it with `x, = ctx.saved_tensors`"))
        raise
    got = None if x.grad is None else _values(x.grad)
    expect(got != [3.0, 12.0, 3.0],
           _("with an incoming gradient [1, 10, 100], x.grad is [3, 12, 3]: the gradient for an incoming gradient "
             "of ones, so backward ignores grad_output"),
           _("multiply by grad_output (the chain rule): 3 * x ** 2 * grad_output"))
    expect(got == [3.0, 120.0, 300.0],
           _("the gradient of x ** 3 at [1, 2, -1] with an incoming gradient [1, 10, 100] came out as {got}, "
             "expected [3, 120, 300]").format(got=got), _("backward returns 3 * x ** 2 * grad_output"))
    _expect_each_call_its_own_x(Cube)

    x = torch.tensor([1.0, 2.0, -1.0], requires_grad=True)
    y = Cube.apply(x)
    ctx = y.grad_fn
    saved = [t for t in (node_info.saved_tensors(ctx) or ()) if t is not None]
    stashed = [where for _, where in tensors_kept_on(ctx, node_info.ctx_attributes(ctx))]
    with torch.no_grad():
        x.mul_(10)   # the bug: x changes after forward and before backward
    try:
        y.backward(upstream)
    except RuntimeError as error:
        expect(INPLACE_ERROR in str(error), _("backward raised a different error: {error}").format(error=error),
               _("save x with ctx.save_for_backward(x) and read it with ctx.saved_tensors"))
    else:
        got = _values(x.grad)
        output_saved = any(_values(t) == [1.0, 8.0, -1.0] for t in saved)
        expect(got != [3.0, 120.0, 300.0] or not output_saved,
               _("x was changed in place after forward, yet backward ran without an error: you saved the output y = "
                 "x ** 3, which the in-place change of x never touches, so the version check has nothing to catch"),
               _("save the input x itself, ctx.save_for_backward(x), and compute the gradient from it"))
        copy_saved = any(_values(t) == [1.0, 2.0, -1.0] and t is not x for t in saved) or not saved
        expect(got != [3.0, 120.0, 300.0] or not copy_saved,
               _("x was changed in place after forward, yet backward ran without an error and gave the gradient at "
                 "the old values: you kept a copy of x, which the in-place change never touches, so there is "
                 "nothing for the version check to catch"),
               _("save x itself with ctx.save_for_backward(x), not a copy such as x.clone()"))
        expect(got != [3.0, 120.0, 300.0],
               _("x was changed in place after forward, yet backward ran without an error and gave the gradient at "
                 "the old values: you saved a new tensor computed from x (such as x * x), which the in-place change "
                 "of x never touches, so there is nothing for the version check to catch"),
               _("save the input x itself, ctx.save_for_backward(x), and compute the gradient from it in backward"))
        expect(not any(t is x for t in saved) or stashed,
               _("you saved x itself, rightly, yet backward read the changed x without an error: backward reads it "
                 "some other way than ctx.saved_tensors (node_info.saved_tensors, for one, reads without the check)"), _("in backward, read x with `x, = ctx.saved_tensors`: that read compares version counters"))
        expect(not (saved and stashed),
               _("x is saved with save_for_backward, but backward reads {stashed}, a plain attribute: only reading "
                 "ctx.saved_tensors compares version counters").format(stashed=stashed[0] if stashed else ''),
               _("in backward, read x with `x, = ctx.saved_tensors` and delete {stashed}")
               .format(stashed=stashed[0] if stashed else ''))
        expect(not (saved and not stashed and any(_values(t) == _values(x) for t in saved)),
               _("x was changed in place after forward, yet backward ran and read the changed values: what you "
                 "saved shares x's data but not its version counter (x.data does that), so the check cannot see the "
                 "change"), _("save x itself: ctx.save_for_backward(x)"))
        expect(False, _("x was changed in place after forward, yet backward ran and gave {got} (the true gradient "
                        "at the values forward saw is [3, 120, 300]): backward read the changed x").format(got=got),
               _("section 1: only a tensor kept with save_for_backward and read back from ctx.saved_tensors has its "
                 "version counter compared"))

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    ctx = Cube.apply(x).grad_fn
    stashed = tensors_kept_on(ctx, node_info.ctx_attributes(ctx))
    attribute, where = stashed[0] if stashed else ("", "")
    expect(not stashed, _("{where} still holds a tensor as a plain attribute: it is never checked and never freed "
                          "by backward").format(where=where),
           _("delete the line that sets ctx.{attribute}; save_for_backward is enough").format(attribute=attribute))


def _expect_each_call_its_own_x(Cube) -> None:
    """Three calls on different x before any backward, then their backwards in the order second,
    third, first: an x kept outside ctx (on the class, in a list or queue) is another call's."""
    inputs = [[1.0, 2.0, -1.0], [0.5, 3.0, 2.0], [-2.0, 1.5, 4.0]]
    upstream = [1.0, 10.0, 100.0]
    xs = [torch.tensor(values, requires_grad=True) for values in inputs]
    ys = [Cube.apply(x) for x in xs]
    for i in (1, 2, 0):
        ys[i].backward(torch.tensor(upstream))
    for number, (x, values) in enumerate(zip(xs, inputs), start=1):
        got = None if x.grad is None else _values(x.grad)
        want = [3.0 * v * v * g for v, g in zip(values, upstream)]
        expect(got is not None and np.allclose(got, want),
               _("Cube.apply(x1), Cube.apply(x2), Cube.apply(x3) on three different tensors, then their backwards "
                 "in the order second, third, first: x{number}.grad is {got}, expected {want}: backward read the x "
                 "of another call").format(number=number, got=got, want=want),
               _("backward must read the x of its own call, from ctx.saved_tensors: not from the class or anything "
                 "else that several calls share"))


def _reference_bytes(tensor) -> int:
    """What the engine's own discovery reaches, each node once, saved tensors summed."""
    return sum(_node_bytes(node) for node in node_info.reachable_nodes(tensor.grad_fn))


def _node_bytes(node) -> int:
    saved = node_info.saved_tensors(node) or ()
    return sum(t.numel() * t.element_size() for t in saved if t is not None)


def _paths_bytes(tensor) -> int:
    """The same sum, but a node reached along k paths counted k times (no set of seen nodes)."""
    total, stack = 0, [tensor.grad_fn]
    while stack:
        node = stack.pop()
        total += _node_bytes(node)
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return total


def _elements(tensor) -> int:
    return sum(t.numel() for node in node_info.reachable_nodes(tensor.grad_fn)
               for t in (node_info.saved_tensors(node) or ()) if t is not None)


@contextlib.contextmanager
def _own_random_numbers(start: int = 0) -> Iterator[None]:
    """Random test data that leaves the notebook's own random sequence untouched."""
    notebook_generator = factories._generator
    factories._generator = np.random.default_rng(start)
    try:
        yield
    finally:
        factories._generator = notebook_generator


def _test_graphs() -> list[tuple[str, object]]:
    with _own_random_numbers():
        return _build_test_graphs()


def _build_test_graphs() -> list[tuple[str, object]]:
    mlp = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.ReLU(), torch.nn.Linear(5, 1))
    batch = torch.randn(7, 3)
    x = torch.randn(4, 6, requires_grad=True)
    w = torch.randn(4, 6, requires_grad=True)
    h = x * w
    shared = (h.exp() + h.sin()).sum()
    d = torch.randn(1000, dtype=torch.float64, requires_grad=True)
    scaled = (d * 3).sum()
    done = (torch.randn(50, requires_grad=True).exp()).sum()
    done.backward()
    a = torch.randn(5, requires_grad=True)
    return [(N_("(a * a).exp()"), (a * a).exp()),
            (N_("a small MLP's loss"), mlp(batch).pow(2).mean()),
            (N_("(h.exp() + h.sin()).sum() with h = x * w"), shared),
            (N_("(d * 3).sum() for a float64 d"), scaled),
            (N_("a graph after backward (its saved tensors are freed)"), done)]


@exercise("Your turn 2: count the bytes a graph keeps for backward",
          deeper_hint=N_("Walk the graph from tensor.grad_fn with a stack and a set of the nodes seen; for each "
                         "node, add t.numel() * t.element_size() for every tensor t of "
                         "node_info.saved_tensors(node) that is not None (it answers None once backward freed "
                         "them), then push the nodes of next_functions."))
def your_turn_2(saved_bytes: Callable) -> None:
    """``saved_bytes(tensor)``: bytes of every tensor saved by the nodes reachable from
    ``tensor.grad_fn`` (each node once; 0 for freed nodes), compared with the engine's discovery."""
    expect(callable(saved_bytes), _("you passed {saved_bytes_type}, not a function")
                                  .format(saved_bytes_type=type(saved_bytes).__name__),
           _("pass the function itself: check.your_turn_2(saved_bytes)"))
    for description, tensor in _test_graphs():
        try:
            got = saved_bytes(tensor)
        except AttributeError as error:
            if "AccumulateGrad" in str(error):
                expect(False, _("for {description}: AttributeError: {error}")
                              .format(description=description, error=error),
                       _("AccumulateGrad nodes save nothing: node_info.saved_tensors(node) answers () for them"))
            if "NoneType" in str(error):
                expect(False, _("for {description}: AttributeError: {error}")
                              .format(description=description, error=error),
                       _("skip None: a node saves None where an input needed nothing, and "
                         "node_info.saved_tensors(node) is None once backward freed them"))
            raise
        except TypeError as error:
            if "NoneType" in str(error):
                expect(False, _("for {description}: TypeError: {error}").format(description=description, error=error),
                       _("skip None: node_info.saved_tensors(node) is None once backward freed the saved tensors, "
                         "and a node saves None where an input needed nothing"))
            raise
        except RuntimeError as error:
            if SECOND_TIME in str(error):
                expect(False, _("for {description}: RuntimeError: {SECOND_TIME}")
                              .format(description=description, SECOND_TIME=SECOND_TIME),
                       _("node.saved_tensors raises once backward freed them (section 2); "
                         "node_info.saved_tensors(node) reads them without a check and answers None then"))
            raise
        expected = _reference_bytes(tensor)
        expect(got is not None, _("for {description} your function returned None")
                                .format(description=description), _("end with `return total`"))
        got = plain_number(got)   # 60, np.int64(60) and torch.tensor(60) are one number
        if isinstance(got, float) and got.is_integer():
            got = int(got)   # 60.0 bytes is 60 bytes
        expect(isinstance(got, int) and not isinstance(got, bool),
               _("for {description} it returned {got_type} {got!r}, not a whole number of bytes")
               .format(description=description, got_type=type(got).__name__, got=got),
               _("add up t.numel() * t.element_size(): whole numbers"))
        if got == expected:
            continue
        expect(got != 0, _("for {description} you gave 0, yet its nodes keep {expected} bytes")
                         .format(description=description, expected=expected),
               _("visit every node through next_functions and add numel() * element_size() of each tensor in "
                 "node_info.saved_tensors(node)"))
        if got == _node_bytes(tensor.grad_fn):
            expect(False, _("for {description} you gave {got}, the bytes of the first node only (the whole graph "
                            "keeps {expected})")
                          .format(description=description, got=got, expected=expected), _("walk next_functions to every node"))
        if got == _paths_bytes(tensor):
            expect(False, _("for {description} you gave {got}: a node reached along two paths was counted twice "
                            "(each node once gives {expected})")
                          .format(description=description, got=got, expected=expected), _("keep a set of the nodes already visited"))
        if got == _elements(tensor):
            expect(False, _("for {description} you gave {got}, the number of elements, not of bytes")
                          .format(description=description, got=got),
                   _("multiply each tensor's numel() by its element_size() (4 for float32, 8 for float64)"))
        expect(False, _("for {description} you gave {got}, the saved tensors take {expected} bytes")
                      .format(description=description, got=got, expected=expected),
               _("every node once, every saved tensor that is not None, numel() * element_size() bytes each"))


SECOND_TIME = "Trying to backward through the graph a second time"


class _Watched:
    """A node recorded by a Function from outside minigrad (the notebook's SquareSaved), and how
    many backward passes went through it."""

    def __init__(self, function: type, node) -> None:
        self.function, self.node, self.passes = function, node, 0
        node.register_hook(self._count)

    def _count(self, grad_inputs, grad_outputs) -> None:
        self.passes += 1


@contextlib.contextmanager
def _watching_custom_functions() -> Iterator[list]:
    """The nodes that Functions written outside minigrad record while the block runs (built-in
    operations are Functions too: they are left out)."""
    watched: list[_Watched] = []

    def observe(cls, args, output) -> None:
        node = getattr(output, "grad_fn", None)
        if node is not None and not cls.__module__.startswith("minigrad"):
            watched.append(_Watched(cls, node))

    with applying(observe):
        yield watched


@exercise("Your turn 3: two backward passes through one graph",
          deeper_hint=N_("The backward of y.sum() is followed by another one through the same y: it alone needs "
                         "retain_graph=True; the backward of (3 * y).sum(), the last, takes nothing and frees the "
                         "saved x."))
def your_turn_3(two_backwards: Callable) -> None:
    """``two_backwards(x)`` runs backward of ``y.sum()`` and of ``(3 * y).sum()`` through one graph
    ``y = SquareSaved.apply(x)`` and returns ``y``: ``x.grad`` is ``8 x``, both passes went through
    the one node of y, and the saved x is freed."""
    expect(callable(two_backwards), _("you passed {two_backwards_type}, not a function")
                                    .format(two_backwards_type=type(two_backwards).__name__),
           _("pass the function itself: check.your_turn_3(two_backwards)"))
    x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    watched: list = []

    def look() -> tuple:   # x.grad's numbers, and how many node runs the watched nodes saw so far
        return None if x.grad is None else _values(x.grad), sum(r.passes for r in watched)

    try:
        with _watching_custom_functions() as watched, backward_passes(look) as passes:
            y = two_backwards(x)
    except RuntimeError as error:
        expect(SECOND_TIME not in str(error),
               _("the first backward freed the saved tensors, so the second one failed: RuntimeError: {error}")
               .format(error=str(error).split('.')[0]),
               _("retain_graph=True keeps the saved tensors after a backward: which of the two passes is followed "
                 "by another one?"))
        raise
    expect(isinstance(y, torch.Tensor) and y.grad_fn is not None,
           _("two_backwards returned {y_type}, not the output y of SquareSaved.apply(x)")
           .format(y_type=type(y).__name__), _("end with `return y`"))
    record = next((r for r in watched if r.node is y.grad_fn), None)
    expect(record is not None,
           _("y's node is {y_grad_fn_name}: y was not made by SquareSaved.apply(x), the Function whose saved "
             "tensors the exercise is about")
           .format(y_grad_fn_name=y.grad_fn.name()), _("keep the starter's first line, y = SquareSaved.apply(x)"))
    got = None if x.grad is None else _values(x.grad)
    expect(got is not None, _("x.grad is None after both backward passes"), _("call backward on y.sum() and on (3 * "
                                                                           "y).sum()"))
    expect(got != [2.0, -4.0, 6.0], _("x.grad is {got} = 2x: only the first backward added to it").format(got=got),
           _("run the second backward, of (3 * y).sum(), through the same y"))
    expect(got != [6.0, -12.0, 18.0], _("x.grad is {got} = 6x: only the second backward added to it").format(got=got),
           _("run both: y.sum() first, then (3 * y).sum(); their gradients add up in x.grad"))
    expect(got == [8.0, -16.0, 24.0], _("x.grad is {got}; both passes together give 2x + 6x = [8, -16, 24]")
                                      .format(got=got),
           _("y.sum() first, then (3 * y).sum(), through the same y; their gradients add up in x.grad"))
    expect(record.passes != 0 or any(r.passes for r in watched),
           _("no backward pass went through y's node: x.grad was set some other way, so nothing was backpropagated "
             "through the graph"), _("call y.sum().backward(...), then (3 * y).sum().backward()"))
    built = [record for record in watched if record.passes]
    expect(len(built) <= 1,
           _("you built the graph {n_built} times ({built_function_name}.apply ran once per backward), so each pass "
             "went through a new graph: the gradient is right, but retain_graph is what lets one graph serve two "
             "passes").format(n_built=len(built), built_function_name=built[0].function.__name__ if built else ''),
           _("build y once, and run both backward passes through that same y"))
    _expect_only_backward_writes_the_gradient(passes, got)
    expect(record.passes != 1,
           _("one backward pass went through y's node: adding the two losses and calling backward once gives the "
             "same x.grad, but the exercise is two separate passes through one graph"),
           _("call backward twice: first on y.sum(), then on (3 * y).sum()"))
    expect(len(passes) == 2 and record.passes == 2,
           _("{n_passes} backward passes ran, {record_passes} of them through y's node: the exercise is exactly "
             "two, y.sum() and then (3 * y).sum(), with retain_graph=True on the first one only")
           .format(n_passes=len(passes), record_passes=record.passes),
           _("call backward twice, once per loss; retain_graph=True keeps the graph for the second pass"))
    expect(not any(p.create_graph for p in passes),
           _("a backward pass ran with create_graph=True: it keeps the graph too (retain_graph defaults to "
             "create_graph), but it also records the backward pass itself as a new graph, for second derivatives, "
             "which nobody asked for here: x.grad then has a grad_fn and keeps that graph alive"),
           _("keep the graph for the second pass with retain_graph=True, which records nothing"))
    after_first = passes[0].after[0]
    expect(after_first in ([2.0, -4.0, 6.0], [6.0, -12.0, 18.0]),
           _("after the first backward pass x.grad is {after_first}: the backward of y.sum() gives 2x = [2, -4, 6] "
             "(and that of (3 * y).sum() gives 6x)").format(after_first=after_first),
           _("the first pass is y.sum().backward(retain_graph=True), the second (3 * y).sum().backward()"))
    expect(node_info.saved_tensors(y.grad_fn) is None,
           _("after the last backward the saved tensors are still kept: retain_graph=True on the last pass keeps "
             "them for nothing"),
           _("retain_graph=True only where another backward follows, not on the last one"))


def _expect_only_backward_writes_the_gradient(passes: list, final: list) -> None:
    """x.grad changes only inside the backward passes: nothing writes it before, between or after them."""
    state = None
    for record in passes + [None]:
        now = final if record is None else record.before[0]
        if now != state:
            returned = [p for p in passes if p.returns_gradients]
            expect(not returned,
                   _("you computed the gradients with torch.autograd.grad, which returns them instead of adding "
                     "them to x.grad, and wrote x.grad yourself: the numbers are right, but the exercise is two "
                     "backward passes that accumulate into x.grad themselves"),
                   _("call y.sum().backward(retain_graph=True), then (3 * y).sum().backward()"))
            expect(False,
                   _("your code changed x.grad itself (from {state} to {now}), outside the backward passes: x.grad "
                     "must hold only what the two backward passes accumulated").format(state=state, now=now),
                   _("call backward twice and leave x.grad to the engine: each pass adds its gradient to it"))
        if record is not None:
            state = record.after[0]
