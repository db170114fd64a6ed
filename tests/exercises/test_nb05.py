"""The checkers of notebook 05, save_for_backward (``minigrad/exercises/nb05.py``): right answers
written several ways, and the wrong answers students write, each with the verdict it must give
in English and in Chinese."""
from __future__ import annotations

import numpy as np

import minigrad as torch
from minigrad.autograd import node_info
from minigrad.exercises import nb05

from exercise_helpers import function, run, verdict_tests


# =========================================================================== 05, Your turn 1
def cube(forward, backward, name="Cube"):
    return type(name, (torch.autograd.Function,),
                {"forward": staticmethod(forward), "backward": staticmethod(backward)})


def saving_forward(ctx, x):
    ctx.save_for_backward(x)
    return x ** 3


def saved_backward(ctx, grad_output):
    x, = ctx.saved_tensors
    return 3 * x ** 2 * grad_output


def stashing_forward(ctx, x):
    ctx.x = x
    return x ** 3


def stashed_backward(ctx, grad_output):
    return 3 * ctx.x ** 2 * grad_output


def saving_and_stashing_forward(ctx, x):
    ctx.save_for_backward(x)
    ctx.x = x
    return x ** 3


def saving_clone_forward(ctx, x):
    ctx.save_for_backward(x.clone())
    return x ** 3


def tuple_backward(ctx, grad_output):
    x = ctx.saved_tensors
    return 3 * x ** 2 * grad_output


def test_nb05_turn1_reports_the_error_of_a_backward_reading_what_forward_never_kept(capsys):
    ok, out = run(nb05.your_turn_1, cube(saving_forward, stashed_backward), capsys)
    assert not ok and "your code raised an error" in out.splitlines()[0]
    assert "AttributeError" in out, out


# (checker, answer, what the verdict says); None: accepted. CASES, at the end, gathers them.
TURN_1 = [(nb05.your_turn_1, cube(forward, backward), problem) for forward, backward, problem in [
    (saving_forward, saved_backward, None),
    (stashing_forward, stashed_backward,
     "backward ran and gave [300.0, 12000.0, 30000.0] (the true gradient at the values forward saw is "
     "[3, 120, 300]): backward read the changed x"),
    (saving_and_stashing_forward, stashed_backward,
     "x is saved with save_for_backward, but backward reads ctx.x, a plain attribute"),
    (saving_clone_forward, saved_backward, "you kept a copy of x, which the in-place change never touches"),
    (saving_forward, lambda ctx, grad_output: 3 * ctx.saved_tensors[0] ** 2,
     "x.grad is [3, 12, 3]: the gradient for an incoming gradient of ones, so backward ignores grad_output"),
    (saving_and_stashing_forward, saved_backward, "ctx.x still holds a tensor as a plain attribute"),
    (saving_forward, tuple_backward, "unpack it with `x, = ctx.saved_tensors`"),
    (saving_forward, lambda ctx, grad_output: 2 * ctx.saved_tensors[0] * grad_output,
     "the gradient of x ** 3 at [1, 2, -1] with an incoming gradient [1, 10, 100] came out as"),
]] + [(nb05.your_turn_1, object, "is not a class derived from torch.autograd.Function")]


# =========================================================================== 05, Your turn 2
def saved_bytes(tensor):
    stack, seen, total = [tensor.grad_fn], set(), 0
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        for t in node_info.saved_tensors(node) or ():
            if t is not None:
                total += t.numel() * t.element_size()
        stack.extend(n for n, _ in node.next_functions)
    return total


def walk(tensor, per_tensor, *, dedupe=True, skip_accumulate=True, skip_none=True, skip_freed=True,
         read=node_info.saved_tensors):
    """saved_bytes with one of its four precautions left out (or reading the saved tensors another way)."""
    stack, seen, total = [tensor.grad_fn], set(), 0
    while stack:
        node = stack.pop()
        if node is None or (dedupe and node in seen):
            continue
        seen.add(node)
        saved = read(node) if skip_accumulate else node.saved_tensors
        if saved is None and skip_freed:
            saved = ()
        for t in saved:
            if t is not None or not skip_none:
                total += per_tensor(t)
        stack.extend(n for n, _ in node.next_functions)
    return total


def nbytes(t):
    return t.numel() * t.element_size()


def checked_saved_tensors(node):
    """ctx.saved_tensors, PyTorch's checked name (AccumulateGrad has none): it raises on a freed graph."""
    return node.saved_tensors if hasattr(node, "saved_tensors") else ()


TURN_2 = [(nb05.your_turn_2, answer, problem) for answer, problem in [
    (saved_bytes, None),                 # the worked solution
    (lambda t: walk(t, nbytes, dedupe=False), "a node reached along two paths was counted twice"),
    (lambda t: walk(t, nbytes, skip_accumulate=False),
     "AccumulateGrad nodes save nothing: node_info.saved_tensors(node) answers () for them"),
    (lambda t: walk(t, nbytes, read=checked_saved_tensors), "node_info.saved_tensors(node) reads them without a check"),
    (lambda t: walk(t, nbytes, skip_none=False), "skip None"),
    (lambda t: walk(t, nbytes, skip_freed=False), "'NoneType' object is not iterable"),
    (lambda t: walk(t, lambda x: x.numel()), "the number of elements, not of bytes"),
    (lambda t: sum(nbytes(x) for x in node_info.saved_tensors(t.grad_fn) if x is not None),
     "the bytes of the first node only"),
    (lambda t: 0, "you gave 0, yet its nodes keep 60 bytes"),
    (lambda t: None, "your function returned None"),
    (lambda t: saved_bytes(t) / 3 + 0.5, "not a whole number of bytes"),
]]


def test_nb05_turn2_leaves_the_notebooks_random_numbers_alone():
    torch.manual_seed(123)
    expected = torch.randn(3).tolist()
    torch.manual_seed(123)
    nb05.your_turn_2(saved_bytes)
    assert torch.randn(3).tolist() == expected


def test_nb05_reference_counts_each_node_once_and_each_saved_entry():
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (a * a).exp()          # MulBackward0 saves a twice (12 + 12), ExpBackward0 its result (12)
    assert nb05._reference_bytes(y) == 36
    h = a * a
    assert nb05._reference_bytes(h.exp() + h.sin()) == 24 + 12 + 12
    assert nb05._paths_bytes(h.exp() + h.sin()) == 24 * 2 + 12 + 12


# =========================================================================== 05, Your turn 3
class SquareSaved(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return 2 * x * grad_output


def two_backwards_with(first_retain, last_retain, passes=("first", "second")):
    def two_backwards(x):
        y = SquareSaved.apply(x)
        if "first" in passes:
            y.sum().backward(retain_graph=first_retain)
        if "second" in passes:
            (3 * y).sum().backward(retain_graph=last_retain)
        return y
    return two_backwards


TURN_3 = [(nb05.your_turn_3, answer, problem) for answer, problem in [
    (two_backwards_with(True, None), None),      # retain_graph on the first pass only
    (two_backwards_with(None, None), "the first backward freed the saved tensors, so the second one failed"),
    (two_backwards_with(True, True), "retain_graph=True on the last pass keeps them for nothing"),
    (two_backwards_with(True, None, passes=("first",)), "= 2x: only the first backward added to it"),
    (two_backwards_with(True, None, passes=("second",)), "= 6x: only the second backward added to it"),
    (lambda x: None, "two_backwards returned NoneType"),
]]


# --------------------------------------------------------------------------- more answers students write
def saving(what):
    def forward(ctx, x):
        ctx.save_for_backward(what(x))
        return x ** 3
    return forward


def cube_backward(ctx, grad_output):
    x, = ctx.saved_tensors
    return 3 * x ** 2 * grad_output


def cube_from_output(ctx, x):
    y = x ** 3
    ctx.save_for_backward(y)
    return y


def backward_from_output(ctx, grad_output):
    y, = ctx.saved_tensors
    return 3 * y.abs() ** (2 / 3) * grad_output


def two_passes_with_autograd_grad(x):
    y = SquareSaved.apply(x)
    first, = torch.autograd.grad(y.sum(), x, retain_graph=True)
    second, = torch.autograd.grad((3 * y).sum(), x)
    x.grad = first + second
    return y


def rebuilds_the_graph(x):
    y = SquareSaved.apply(x)
    y.sum().backward()
    y = SquareSaved.apply(x)
    (3 * y).sum().backward()
    return y


def sets_the_gradient_by_hand(x):
    y = SquareSaved.apply(x)
    x.grad = 8 * x.detach()
    return y


def one_combined_backward(x):
    y = SquareSaved.apply(x)
    (y.sum() + (3 * y).sum()).backward()
    return y


def builtin_square(x):
    y = x * x
    y.sum().backward(retain_graph=True)
    (3 * y).sum().backward()
    return y


# --------------------------------------------------------------------------- more answers students write
def cube_on_the_class(ctx, x):
    ctx.save_for_backward(x)
    CubeOnTheClass.x = x
    return x ** 3


def backward_from_the_class(ctx, grad_output):
    ctx.saved_tensors   # touched, and unused
    return 3 * CubeOnTheClass.x ** 2 * grad_output


CubeOnTheClass = function("Cube", cube_on_the_class, backward_from_the_class)


def cube_in_a_list(ctx, x):
    ctx.save_for_backward(x)
    ctx.keep = [x]
    return x ** 3


def two_passes_then_rescaled(x):
    y = SquareSaved.apply(x)
    y.sum().backward(retain_graph=True)
    x.grad = x.grad * 4
    (0 * y).sum().backward()
    return y


def four_passes(x):
    y = SquareSaved.apply(x)
    for _ in range(3):
        y.sum().backward(retain_graph=True)
    y.sum().backward()
    return y


def retains_both_then_frees(x):
    y = SquareSaved.apply(x)
    y.sum().backward(retain_graph=True)
    (3 * y).sum().backward(retain_graph=True)
    (0 * y).sum().backward()
    return y


def the_other_order(x):
    y = SquareSaved.apply(x)
    (3 * y).sum().backward(retain_graph=True)
    y.sum().backward()
    return y

def create_graph_instead(x):
    y = SquareSaved.apply(x)
    y.sum().backward(create_graph=True)
    (3 * y).sum().backward()
    return y


# (checker, answer, what the problem line says); None: accepted.
CASES = TURN_1 + TURN_2 + TURN_3 + [
    (nb05.your_turn_1, function("Cube", saving(lambda x: x.detach()), cube_backward), None),
    (nb05.your_turn_1, function("Cube", saving(lambda x: x.clone()), cube_backward), "you kept a copy of x"),
    (nb05.your_turn_1, function("Cube", saving(lambda x: x * x), lambda ctx, g: 3 * ctx.saved_tensors[0] * g),
     "you saved a new tensor computed from x (such as x * x)"),
    (nb05.your_turn_1, function("Cube", saving(lambda x: x), lambda ctx, g: 3 * node_info.saved_tensors(ctx)[0] ** 2 * g),
     "you saved x itself, rightly, yet backward read the changed x without an error"),
    (nb05.your_turn_3, sets_the_gradient_by_hand, "no backward pass went through y's node"),
    (nb05.your_turn_1, function("Cube", saving(lambda x: x.data), cube_backward),
     "shares x's data but not its version counter"),
    (nb05.your_turn_1, function("Cube", cube_from_output, backward_from_output), "you saved the output y = x ** 3"),
    (nb05.your_turn_1, function("Cube", lambda ctx, x: x.mul_(x * x), cube_backward), "Cube.apply(x) changed the caller's x"),
    (nb05.your_turn_2, lambda tensor: float(saved_bytes(tensor)), None),
    (nb05.your_turn_3, two_passes_with_autograd_grad, "you computed the gradients with torch.autograd.grad"),
    (nb05.your_turn_3, rebuilds_the_graph, "you built the graph 2 times"),
    (nb05.your_turn_3, one_combined_backward, "one backward pass went through y's node"),
    (nb05.your_turn_3, builtin_square, "y's node is MulBackward0: y was not made by SquareSaved.apply(x)"),
    (nb05.your_turn_1, CubeOnTheClass, "backward read the x of another call"),
    (nb05.your_turn_3, two_passes_then_rescaled, "your code changed x.grad itself (from [2.0, -4.0, 6.0] to [8.0, -16.0, 24.0])"),
    (nb05.your_turn_3, four_passes, "4 backward passes ran, 4 of them through y's node"),
    (nb05.your_turn_3, retains_both_then_frees, "3 backward passes ran"),
    (nb05.your_turn_3, the_other_order, None),
    (nb05.your_turn_1, function("Cube", cube_in_a_list, lambda ctx, g: 3 * ctx.saved_tensors[0] ** 2 * g),
     "ctx.keep[0] still holds a tensor as a plain attribute"),
    # a number written as a 0-d tensor or array, and create_graph where retain_graph is asked
    (nb05.your_turn_2, lambda tensor: torch.tensor(saved_bytes(tensor)), None),
    (nb05.your_turn_2, lambda tensor: np.array(saved_bytes(tensor)), None),
    (nb05.your_turn_2, lambda tensor: np.int64(saved_bytes(tensor)), None),
    (nb05.your_turn_2, lambda tensor: torch.tensor(saved_bytes(tensor) + 1), "you gave"),
    (nb05.your_turn_3, create_graph_instead, "a backward pass ran with create_graph=True"),
]

test_each_answer_gets_the_right_verdict, test_the_chinese_verdict_is_the_same_and_wholly_chinese = verdict_tests(CASES)
