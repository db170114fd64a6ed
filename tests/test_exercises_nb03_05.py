"""The checkers of notebooks 03, 04 and 05 accept the worked solutions and explain typical mistakes.

Each test passes an answer to a checker and looks at its verdict (``bool(result)``) and at the
printed feedback: a wrong answer must be rejected with the message that names its mistake.
"""
from __future__ import annotations

from collections import deque

import pytest

import minigrad as torch
from minigrad.autograd import node_info
from minigrad.exercises import nb03, nb04, nb05


def verdict(checker, answer, capsys) -> tuple[bool, str]:
    result = checker(answer)
    return bool(result), capsys.readouterr().out


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


@pytest.mark.parametrize("answer", [bfs_names, bfs_names_marking_on_pop])
def test_nb03_turn1_accepts_breadth_first_walks(answer, capsys):
    ok, out = verdict(nb03.your_turn_1, answer, capsys)
    assert ok, out
    assert "✓ Your turn 1" in out


@pytest.mark.parametrize("answer, message", [
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
])
def test_nb03_turn1_explains_mistakes(answer, message, capsys):
    ok, out = verdict(nb03.your_turn_1, answer, capsys)
    assert not ok
    assert message in out, out


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
    ok, out = verdict(nb03.your_turn_2, x.grad.item(), capsys)
    assert ok and x.grad.item() == 8.0, out


@pytest.mark.parametrize("answer, message", [
    (7.0, "7.0 leaves out at least one of the paths from y back to x"),
    (5, "5 leaves out at least one of the paths from y back to x"),
    (3.0, "3.0 leaves out at least one of the paths"),
    (6.0, "6.0 leaves out at least one of the paths"),
    (10.0, "10.0 multiplies what the paths carry"),
    (9.5, "9.5 is not dy/dx"),
    (..., "there is no prediction yet"),
    (True, "you gave bool True, not a number"),
    ("8", "you gave str '8', not a number"),
])
def test_nb03_turn2_explains_mistakes(answer, message, capsys):
    ok, out = verdict(nb03.your_turn_2, answer, capsys)
    assert not ok
    assert message in out, out


@pytest.mark.parametrize("answer", [1.0, 2.0, 3.0, 5.0, 6.0, 7.0, 10.0, 9.5])
def test_nb03_turn2_never_names_or_values_a_path(answer, capsys):
    """7 once got "counts only the paths x -> h * x and x -> h -> h * x, and misses x -> h -> + h"
    and 5 "counts only the path x -> h * x": two guesses added up to the answer."""
    ok, out = verdict(nb03.your_turn_2, answer, capsys)
    assert not ok and "->" not in out and "factor" not in out and " 8" not in out, out


# =========================================================================== 04, Your turn 1
class AddConstant(torch.autograd.Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor + constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.constant = inputs[1]

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None


def add_constant_variant(name="AddConstant", *, forward=None, setup_context=True, backward=None,
                         combined=False):
    """A variant of the worked solution with one part replaced."""
    namespace = {}
    if combined:
        namespace["forward"] = staticmethod(forward or (lambda ctx, tensor, constant: tensor + constant))
    else:
        namespace["forward"] = staticmethod(forward or (lambda tensor, constant: tensor + constant))
    if setup_context:
        namespace["setup_context"] = staticmethod(lambda ctx, inputs, output: None)
    namespace["backward"] = staticmethod(backward or (lambda ctx, grad: (grad, None)))
    return type(name, (torch.autograd.Function,), namespace)


def test_nb04_turn1_accepts_the_separate_style(capsys):
    ok, out = verdict(nb04.your_turn_1, AddConstant, capsys)
    assert ok, out


def test_nb04_turn1_accepts_a_setup_context_that_stores_nothing(capsys):
    ok, out = verdict(nb04.your_turn_1, add_constant_variant(), capsys)
    assert ok, out


@pytest.mark.parametrize("answer, message", [
    (add_constant_variant(combined=True, setup_context=False), "AddConstant has no setup_context"),
    (add_constant_variant(combined=True), "forward takes (ctx, tensor, constant)"),
    (add_constant_variant(backward=lambda ctx, grad: (grad * 2.5, None)), "x.grad is [2.5, 25.0, 250.0]"),
    (add_constant_variant(backward=lambda ctx, grad: grad),
     "returned an incorrect number of gradients (expected 2, got 1)"),
    (add_constant_variant(backward=lambda ctx, grad: (grad, grad)),
     "returned a gradient different than None at position 2"),
    (add_constant_variant(forward=lambda tensor, constant: None), "apply returned NoneType, not a tensor"),
    (add_constant_variant(forward=lambda tensor, constant: (tensor * 1 + constant * 2)),
     "AddConstant.apply([1, -2, 0.5], 2.5) gave"),
    (add_constant_variant("PlusConstant"), "the class is called PlusConstant"),
    (int, "is not a class derived from torch.autograd.Function"),
])
def test_nb04_turn1_explains_mistakes(answer, message, capsys):
    ok, out = verdict(nb04.your_turn_1, answer, capsys)
    assert not ok
    assert message in out, out


def test_nb04_turn1_reports_the_node_name(capsys):
    ok, out = verdict(nb04.your_turn_1, add_constant_variant(), capsys)
    assert ok, out
    y = add_constant_variant().apply(torch.ones(2, requires_grad=True), 1.0)
    assert y.grad_fn.name() == "AddConstantBackward"


# =========================================================================== 04, Your turn 2
def my_apply(cls, *args):
    ctx = cls._backward_cls()
    ctx.needs_input_grad = tuple(isinstance(arg, torch.Tensor) and arg.requires_grad for arg in args)
    with torch.no_grad():
        output = cls.forward(ctx, *args)
    return output, ctx


def plain_ctx(cls, *args):
    ctx = torch.autograd.function.FunctionCtx()
    ctx.needs_input_grad = tuple(isinstance(arg, torch.Tensor) and arg.requires_grad for arg in args)
    with torch.no_grad():
        return cls.forward(ctx, *args), ctx


def needs_set_after_forward(cls, *args):
    ctx = cls._backward_cls()
    with torch.no_grad():
        output = cls.forward(ctx, *args)
    ctx.needs_input_grad = tuple(isinstance(arg, torch.Tensor) and arg.requires_grad for arg in args)
    return output, ctx


def requires_grad_of_numbers(cls, *args):
    ctx = cls._backward_cls()
    ctx.needs_input_grad = tuple(arg.requires_grad for arg in args)
    with torch.no_grad():
        return cls.forward(ctx, *args), ctx


def needs_as_list(cls, *args):
    ctx = cls._backward_cls()
    ctx.needs_input_grad = [isinstance(arg, torch.Tensor) and arg.requires_grad for arg in args]
    with torch.no_grad():
        return cls.forward(ctx, *args), ctx


def is_tensor_only(cls, *args):
    ctx = cls._backward_cls()
    ctx.needs_input_grad = tuple(isinstance(arg, torch.Tensor) for arg in args)
    with torch.no_grad():
        return cls.forward(ctx, *args), ctx


def grad_mode_on(cls, *args):
    ctx = cls._backward_cls()
    ctx.needs_input_grad = tuple(isinstance(arg, torch.Tensor) and arg.requires_grad for arg in args)
    return cls.forward(ctx, *args), ctx


SHARED_CTX = []


def one_ctx_for_all_calls(cls, *args):
    if not SHARED_CTX:
        SHARED_CTX.append(cls._backward_cls())
    ctx = SHARED_CTX[0]
    ctx.needs_input_grad = tuple(isinstance(arg, torch.Tensor) and arg.requires_grad for arg in args)
    with torch.no_grad():
        return cls.forward(ctx, *args), ctx


def placeholder(cls, *args):
    ctx = ...
    return None, ctx


def test_nb04_turn2_accepts_the_worked_solution(capsys):
    ok, out = verdict(nb04.your_turn_2, my_apply, capsys)
    assert ok, out


@pytest.mark.parametrize("answer, message", [
    (plain_ctx, "ctx is a plain FunctionCtx"),
    (needs_set_after_forward, "inside forward, ctx.needs_input_grad was ()"),
    (requires_grad_of_numbers, "'float' object has no attribute 'requires_grad'"),
    (needs_as_list, "ctx.needs_input_grad is list, not a tuple"),
    (is_tensor_only, "ctx.needs_input_grad is (True, False), the real apply gives (False, False)"),
    (grad_mode_on, "the output has a grad_fn (MulBackward0)"),
    (one_ctx_for_all_calls, "two calls returned the same ctx object"),
    (placeholder, "ctx is still ..."),
    (lambda cls, *args: None, "my_apply returned None"),
])
def test_nb04_turn2_explains_mistakes(answer, message, capsys):
    SHARED_CTX.clear()
    ok, out = verdict(nb04.your_turn_2, answer, capsys)
    assert not ok
    assert message in out, out


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


def test_nb05_turn1_accepts_save_for_backward(capsys):
    ok, out = verdict(nb05.your_turn_1, cube(saving_forward, saved_backward), capsys)
    assert ok, out


@pytest.mark.parametrize("forward, backward, message", [
    (stashing_forward, stashed_backward,
     "backward ran and gave [300.0, 12000.0, 30000.0] (the true gradient at the values forward saw is "
     "[3, 120, 300]): backward read the changed x"),
    (saving_forward, stashed_backward, "AttributeError"),
    (saving_and_stashing_forward, stashed_backward,
     "x is saved with save_for_backward, but backward reads ctx.x, a plain attribute"),
    (saving_clone_forward, saved_backward, "you kept a copy of x, which the in-place change never touches"),
    (saving_forward, lambda ctx, grad_output: 3 * ctx.saved_tensors[0] ** 2,
     "x.grad is [3, 12, 3]: the gradient for an incoming gradient of ones, so backward ignores grad_output"),
    (saving_and_stashing_forward, saved_backward, "ctx.x still holds a tensor as a plain attribute"),
    (saving_forward, tuple_backward, "unpack it with `x, = ctx.saved_tensors`"),
    (saving_forward, lambda ctx, grad_output: 2 * ctx.saved_tensors[0] * grad_output,
     "the gradient of x ** 3 at [1, 2, -1] with an incoming gradient [1, 10, 100] came out as"),
])
def test_nb05_turn1_explains_mistakes(forward, backward, message, capsys):
    ok, out = verdict(nb05.your_turn_1, cube(forward, backward), capsys)
    assert not ok
    assert message in out, out


def test_nb05_turn1_rejects_a_non_function(capsys):
    ok, out = verdict(nb05.your_turn_1, object, capsys)
    assert not ok and "is not a class derived from torch.autograd.Function" in out


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


def test_nb05_turn2_accepts_the_worked_solution(capsys):
    ok, out = verdict(nb05.your_turn_2, saved_bytes, capsys)
    assert ok, out


@pytest.mark.parametrize("answer, message", [
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
])
def test_nb05_turn2_explains_mistakes(answer, message, capsys):
    ok, out = verdict(nb05.your_turn_2, answer, capsys)
    assert not ok
    assert message in out, out


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


# =========================================================================== 04, Your turn 3
def scale_shift(unpack_all=True, slots=3, use_grad=True, keep_scale=True):
    """A ScaleShift in the separate style, right or with one of the mistakes students make."""
    def forward(tensor, scale=2.0, shift=0.0):
        return tensor * scale + shift

    def setup_context(ctx, inputs, output):
        if unpack_all:
            tensor, scale, shift = inputs
        else:
            tensor, scale = inputs          # the starter: forgets that defaults are filled in
        ctx.scale = scale if keep_scale else 2.0

    def backward(ctx, grad_output):
        grad = grad_output * ctx.scale if use_grad else torch.ones(3) * ctx.scale
        return (grad, None, None)[:slots] if slots > 1 else grad

    return type("ScaleShift", (torch.autograd.Function,),
                {"forward": staticmethod(forward), "setup_context": staticmethod(setup_context),
                 "backward": staticmethod(backward)})


def test_nb04_turn3_accepts_the_solution(capsys):
    ok, out = verdict(nb04.your_turn_3, scale_shift(), capsys)
    assert ok, out
    assert out == "✓ Your turn 3: keyword arguments and defaults — correct.\n"


@pytest.mark.parametrize("answer, message", [
    (scale_shift(unpack_all=False), "setup_context failed: ValueError: too many values to unpack"),
    (scale_shift(slots=1), "returned an incorrect number of gradients (expected 3, got 1)"),
    (scale_shift(slots=2), "returned an incorrect number of gradients (expected 3, got 2)"),
    (scale_shift(use_grad=False), "so backward ignores grad_output"),
    (scale_shift(keep_scale=False), "ScaleShift.apply(x, 3.0, shift=1.0): with an incoming gradient"),
])
def test_nb04_turn3_explains_mistakes(answer, message, capsys):
    ok, out = verdict(nb04.your_turn_3, answer, capsys)
    assert not ok
    assert message in out, out


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


def test_nb05_turn3_accepts_retain_graph_on_the_first_pass_only(capsys):
    ok, out = verdict(nb05.your_turn_3, two_backwards_with(True, None), capsys)
    assert ok, out


@pytest.mark.parametrize("answer, message", [
    (two_backwards_with(None, None), "the first backward freed the saved tensors, so the second one failed"),
    (two_backwards_with(True, True), "retain_graph=True on the last pass keeps them for nothing"),
    (two_backwards_with(True, None, passes=("first",)), "= 2x: only the first backward added to it"),
    (two_backwards_with(True, None, passes=("second",)), "= 6x: only the second backward added to it"),
    (lambda x: None, "two_backwards returned NoneType"),
])
def test_nb05_turn3_explains_mistakes(answer, message, capsys):
    ok, out = verdict(nb05.your_turn_3, answer, capsys)
    assert not ok
    assert message in out, out


def test_nb04_turn1_rejects_a_backward_that_ignores_grad_output(capsys):
    answer = add_constant_variant(backward=lambda ctx, grad: (torch.ones_like(grad), None))
    ok, out = verdict(nb04.your_turn_1, answer, capsys)
    assert not ok
    assert "with an incoming gradient [1, 10, 100], x.grad is [1.0, 1.0, 1.0]" in out, out
