"""What every checker does beyond its own exercise: its messages read as Chinese in the Chinese
edition, and what it watches while the learner's code runs (minigrad/exercises/_feedback.py and
_observe.py)."""
from __future__ import annotations

import importlib
import inspect
import linecache
import re
import types
import warnings
from pathlib import Path

import pytest

import minigrad as torch
from minigrad.exercises import _feedback, _observe, nb02, nb05, nb06, nb08
from tools.checker_messages import messages

from exercise_helpers import dirty_but_returns_a_copy, english_left_in, function, transposed
from test_nb05 import SquareSaved, saving_forward


@pytest.mark.parametrize("verdict_text, english", [
    ("backward 返回了 tuple of length 3：forward 的每个参数都需要一个梯度", ["tuple of length"]),
    ("apply(x, w) 返回了 a ReentrantMul，不是 VarA", ["a ReentrantMul"]),
    ("第二次 apply 返回了 a tuple", ["a tuple"]),
    ("问题：Scale() 抛出了 AttributeError：'float' object has no attribute '_data'。torch.nn.Parameter 包装的是张量", []),
    ("提示：a [2, 3] @ b [3, 4] 时，用 `if grad_output is not None`", []),
])
def test_the_english_detector_finds_english_prose_and_spares_code(verdict_text, english):
    assert english_left_in(verdict_text) == english


# --------------------------------------------------------------------------- the Chinese, point by point
@pytest.mark.parametrize("checker, answer, chinese", [
    (nb08.your_turn_2, lambda indices, shape: indices[0] > 0, "你的函数返回了 dtype 为 torch.bool 的张量，不是数值"),
    (nb08.your_turn_1, transposed(lambda ctx, a, b: (ctx.save_for_backward(a, b), a.t().mm(b))[1],
                                  lambda ctx, g: (ctx.saved_tensors[1].mm(g), ctx.saved_tensors[0].mm(g))),
     "在 a 为 [3, 3]、b 为 [3, 3] 时"),
    (nb02.your_turn_2, function("FixedPower", lambda ctx, x, n: (setattr(ctx, "n", n), x ** n)[1],
                                lambda ctx, g: g * ctx.n),
     "反向传播失败：function FixedPowerBackward returned an incorrect number of gradients"),
    (nb06.your_turn_3, function("AddOne_", dirty_but_returns_a_copy, lambda ctx, g: g),
     "AddOne_.apply(h) 失败了：RuntimeError: Some elements marked as dirty"),
])
def test_the_chinese_messages_read_as_chinese(checker, answer, chinese, verdict):
    result, out = verdict(checker, answer, "zh")
    assert not result and chinese in out, out


def test_a_python_error_keeps_its_own_colon_in_chinese():
    framed = [text for text in messages("zh").values() if "Error：" in text]
    assert not framed, framed


# --------------------------------------------------------------------------- what the checkers watch
def test_backward_passes_sees_every_way_into_the_engine_and_restores_it():
    from minigrad.autograd import backward as imported_backward
    x = torch.ones(2, requires_grad=True)
    with _observe.backward_passes(lambda: None if x.grad is None else x.grad.tolist()) as passes:
        (x * 2).sum().backward(retain_graph=True)
        torch.autograd.grad((x * 3).sum(), x)
        imported_backward([(x * 4).sum()])
    assert [(p.retain_graph, p.returns_gradients) for p in passes] == [(True, False), (False, True), (False, False)]
    assert [(p.before, p.after) for p in passes] == [(None, [2.0, 2.0]), ([2.0, 2.0], [2.0, 2.0]),
                                                     ([2.0, 2.0], [6.0, 6.0])]
    (x * 2).sum().backward()   # the engine works as before, and the block's listeners are gone
    assert x.grad.tolist() == [8.0, 8.0] and len(passes) == 3


def test_minigrad_graph_walks_names_the_helpers_and_ignores_building_a_graph():
    from minigrad.autograd import node_info
    x = torch.ones(2, requires_grad=True)
    y = (x * 2).sum()
    with _observe.minigrad_graph_walks() as walks:
        (x * 3).exp().sum()   # building a graph reads no edges to walk them
    assert walks == []
    with _observe.minigrad_graph_walks() as walks:
        node_info.reachable_nodes(y.grad_fn)
    assert walks == ["node_info.reachable_nodes"]


def test_tensors_kept_on_ctx_are_found_inside_containers():
    t = torch.ones(1)
    found = _observe.tensors_kept_on(None, {"scale": 2.0, "inputs": (t, 3.0), "keep": {"x": [t]},
                                            "ns": types.SimpleNamespace(x=t), "plain": t, "numbers": [1, 2]})
    assert found == [("inputs", "ctx.inputs[0]"), ("keep", "ctx.keep['x'][0]"), ("ns", "ctx.ns.x"),
                     ("plain", "ctx.plain")]


# --------------------------------------------------------------------------- warnings: on stdout, where the learner wrote them
def cube_backward_by_a_deprecated_name(ctx, grad_output):
    x, = ctx.saved_variables
    return 3 * x ** 2 * grad_output


@pytest.mark.parametrize("language, where", [
    ("en", "  Warning from your code, line {line} of test_checkers.py: `x, = ctx.saved_variables`"),
    ("zh", "  你的代码在 test_checkers.py 第 {line} 行发出警告：`x, = ctx.saved_variables`"),
])
def test_a_right_answer_that_warns_gets_its_tick_and_the_warning_on_stdout(language, where, capsys):
    lines, start = inspect.getsourcelines(cube_backward_by_a_deprecated_name)
    line = start + next(i for i, text in enumerate(lines) if "saved_variables" in text)
    _feedback.set_language(language)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            result = nb05.your_turn_1(function("Cube", saving_forward, cube_backward_by_a_deprecated_name))
    finally:
        _feedback.set_language("en")
    out, err = capsys.readouterr()
    assert result and err == "", (out, err)
    assert out.splitlines()[1:] == [where.format(line=line),
                                    "    DeprecationWarning: 'saved_variables' is deprecated; use 'saved_tensors'"]


def test_a_warning_in_a_notebook_cell_is_placed_in_the_cell(capsys):
    source = "def two_backwards(x):\n    y = SquareSaved.apply(x)\n    y.sum().backward(retain_graph=True)\n" \
             "    (3 * y).sum().backward()\n    y.grad\n    return y\n"
    filename = "/tmp/ipykernel_1/2501563478.py"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"SquareSaved": SquareSaved}
    exec(compile(source, filename, "exec"), namespace)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        result = nb05.your_turn_3(namespace["two_backwards"])
    out, err = capsys.readouterr()
    assert result and err == "", (out, err)
    assert out.splitlines()[1] == "  Warning from your code, line 5 of your cell: `y.grad`"
    assert out.splitlines()[2].startswith("    UserWarning: The .grad attribute of a Tensor that is not a leaf"), out


def test_a_warning_of_the_checkers_own_is_not_reported(capsys):
    check = _feedback.exercise("Your turn 0: the number two")(warnings.warn)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        assert check("careful")
    out, err = capsys.readouterr()
    assert (out, err) == ("✓ Your turn 0: the number two — correct.\n", "")


# The right answers of every notebook's CASES.
ACCEPTED = [(checker, answer) for number in range(11)
            for checker, answer, problem in importlib.import_module(f"test_nb{number:02d}").CASES if problem is None]


@pytest.mark.parametrize("checker, answer", ACCEPTED)
def test_a_right_answer_writes_nothing_to_stderr_with_every_warning_on(checker, answer, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        result = checker(answer)
    out, err = capsys.readouterr()
    assert result and err == "" and "Warning" not in out, (out, err)


# --------------------------------------------------------------------------- the deeper hint the student edition folds
CHECKERS = [getattr(importlib.import_module(f"minigrad.exercises.nb{number:02d}"), name)
            for number in range(11) for name in dir(importlib.import_module(f"minigrad.exercises.nb{number:02d}"))
            if name.startswith("your_turn_")]


@pytest.mark.parametrize("checker", CHECKERS, ids=[f"{c.__module__.rsplit('.', 1)[1]}.{c.__name__}" for c in CHECKERS])
def test_every_checker_has_a_deeper_hint_in_both_languages(checker):
    assert len(checker.deeper_hint.split()) >= 8, checker.title
    assert re.search(r"[\u4e00-\u9fff]", _feedback.translate(checker.deeper_hint, "zh")), checker.title


def test_the_chinese_student_edition_folds_the_chinese_deeper_hint():
    from tools import student_edition
    from tools.course import read_notebook
    notebook = read_notebook(Path(__file__).resolve().parents[2] / "notebooks" / "zh" / "05_save_for_backward.ipynb")
    student, titles = student_edition.student_notebook(notebook, "zh")
    folds = [cell.source for cell in student.cells if "hint" in cell.metadata.get("tags", [])]
    assert len(folds) == len(titles) == 3
    assert student_edition.escape_markdown(_feedback.translate(nb05.your_turn_3.deeper_hint, "zh")) in folds[2]


def node_names_leaving_grad_mode_off(tensor):
    from test_nb03 import bfs_names
    torch.set_grad_enabled(False)
    return bfs_names(tensor)


@pytest.mark.parametrize("language, problem", [
    ("en", "after your code ran, grad mode is off, and it was on before the check: your code turned it off"),
    ("zh", "你的代码运行之后，梯度模式是关闭的，而检查开始前它是开启的")])
def test_code_that_leaves_grad_mode_off_is_refused_and_grad_mode_restored(language, problem, capsys):
    from minigrad.exercises import nb03
    _feedback.set_language(language)
    try:
        result = nb03.your_turn_1(node_names_leaving_grad_mode_off)
    finally:
        _feedback.set_language("en")
    out = capsys.readouterr().out
    assert not result and problem in out, out
    assert torch.is_grad_enabled()   # the learner's next cells run as before the check


def test_code_that_turns_grad_mode_off_inside_no_grad_is_accepted(capsys):
    from minigrad.exercises import nb03
    from test_nb03 import bfs_names

    def node_names(tensor):
        with torch.no_grad():
            return bfs_names(tensor)
    assert nb03.your_turn_1(node_names), capsys.readouterr().out
    assert torch.is_grad_enabled()
