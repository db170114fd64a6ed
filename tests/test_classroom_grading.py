"""Grades no notebook code can forge (tools/sealed_grading.py), without nbgrader: the scan of
students' cells, the cells the grading process runs, and a red team of attacks, each graded in its
own fresh process. None may earn a point the unchanged starter does not earn (0), and a right
answer that warns or writes to stderr still earns its point.

tests/test_classroom.py runs the same grading through nbgrader on a real hub (`make classroom-test`).
"""
from __future__ import annotations

import ast
import copy
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

from tools import nbgrader_course, sealed_grading
from tools.course import editions, notebook_paths, read_notebook, tags

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
ALL = [(language, path) for language, folder in editions(NOTEBOOKS).items() for path in notebook_paths(folder)]


def solution_and_starter(cell_source: str) -> tuple[str, str]:
    """The worked solution and the starter of an nbgrader solution cell."""
    before, rest = cell_source.split(nbgrader_course.BEGIN_SOLUTION + "\n")
    return rest.split("\n" + nbgrader_course.END_SOLUTION)[0], before


def submission(source: nbformat.NotebookNode, answers: dict[int, str] | str) -> nbformat.NotebookNode:
    """The source notebook as a student would submit it: each answer cell holds ``answers[N]``,
    or the worked solution (``"solutions"``) or the starter (``"starters"``)."""
    nb = copy.deepcopy(source)
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution"):
            number = int(meta["grade_id"].rsplit("_", 1)[1])
            solution, starter = solution_and_starter(cell.source)
            if isinstance(answers, str):
                cell.source = solution if answers == "solutions" else starter
            else:
                cell.source = answers.get(number, starter)
    return nb


def small_source(notebook: str, exercise: int) -> nbformat.NotebookNode:
    """One exercise of a course notebook, as nbgrader's source: the set-up cell, the answer cell
    and the check cell only (fast to grade)."""
    graded, _ = nbgrader_course.source_notebook(read_notebook(NOTEBOOKS / notebook))
    keep = [cell for cell in graded.cells if cell.metadata.get("nbgrader", {}).get("grade_id")
            in ("setup", f"your_turn_{exercise}", f"your_turn_{exercise}_check")]
    return nbformat.v4.new_notebook(cells=keep, metadata=graded.metadata)


# ------------------------------------------------------------------------------------ the scan
@pytest.mark.parametrize("language, path", ALL, ids=[f"{lang}/{p.stem}" for lang, p in ALL])
def test_no_worked_solution_or_starter_is_flagged(language, path):
    for cell in read_notebook(path).cells:
        if {"solution", "exercise"} & set(tags(cell)):
            assert sealed_grading.scan(cell.source) == [], cell.source


def test_no_wrong_answer_of_the_checkers_tests_is_flagged():
    """The 400-odd answers, right and wrong, that the checkers' tests give them: honest code, none
    flagged (a flag costs the student the point until the teacher reviews it)."""
    answers = 0
    for path in sorted((ROOT / "tests" / "exercises").glob("*.py")):
        text = path.read_text()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and not node.name.startswith(("test_", "given_")):
                answers += 1
                assert sealed_grading.scan(ast.get_source_segment(text, node)) == [], (path.name, node.name)
    assert answers > 300, answers


# Each attack, and what the scan must say about it (a word of the reason).
ATTACKS = {
    "the one-line forgery": ("import minigrad.exercises._feedback as _fb; _fb._nbgrader_execution = ''", "checkers"),
    "monkeypatching the checker": ("check.your_turn_1 = lambda *a, **k: None", "checker module"),
    "a stub check": ("class Stub:\n    def __getattr__(self, name):\n        return lambda *a, **k: self\n"
                     "    def for_nbgrader(self):\n        pass\ncheck = Stub()", "checker module"),
    "redefining the verdict class": ("from minigrad.exercises import _feedback\n_feedback.Result.__bool__ = lambda self: True",
                                     "checkers"),
    "the checker's own classes": ("MyLinear = type('MyLinear', (check._Watched,), {})", "checker module"),
    "sys.modules": ("import sys\nsys.modules['minigrad.exercises.nb06'] = None", "sys"),
    "builtins": ("import builtins\nbuiltins.isinstance = lambda *a: True", "builtins"),
    "numpy": ("np.allclose = lambda *a, **k: True\nnp.array_equal = lambda *a, **k: True", "changes np.allclose"),
    "minigrad's engine": ("torch.autograd.Function.apply = classmethod(lambda cls, *a: a[0])", "changes torch"),
    "the garbage collector": ("import gc\nfound = [o for o in gc.get_objects() if type(o).__name__ == 'Result']", "gc"),
    "frames": ("import sys\nframe = sys._getframe()\nwhile frame.f_back:\n    frame = frame.f_back", "sys"),
    "exec of a string": ("exec(bytes.fromhex('696d706f7274206763').decode())", "exec"),
    "getattr and __import__": ("getattr(__import__('minigrad.exercises._feedback', fromlist=['x']), 'Result')", "__import__"),
    "a forged verdict, then exit": ("import os\nfor fd in range(3, 30):\n    try:\n        os.write(fd, b'{\"body\": "
                                    "{\"exercise\": 1, \"ok\": true, \"lines\": [\"\\\\u2713\"], \"flags\": []}, \"mac\": \"0\"}\\n')\n"
                                    "    except OSError:\n        pass\nos._exit(0)", "os"),
    "printing a tick and exiting": ("print('✓ Your turn 1: skip the gradients nobody needs — correct.')\nraise SystemExit(0)", None),
    "a thread": ("import threading\nthreading.Thread(target=lambda: None).start()", "threading"),
    "a signal handler": ("import signal\nsignal.signal(signal.SIGALRM, lambda *a: None)", "signal"),
    "the teacher's files": ("secrets = open('/etc/passwd').read()", "open"),
    "a shell": ("import subprocess\nsubprocess.run(['true'])", "subprocess"),
    "pickle": ("import pickle\npickle.loads(b'cbuiltins\\nprint\\n.')", "pickle"),
    "ctypes": ("import ctypes\nctypes.string_at(id(1), 8)", "ctypes"),
    "a trace function": ("import sys\nsys.settrace(lambda *a: None)", "sys"),
    "code objects": ("MyLinear.backward.__code__ = (lambda ctx, g: (g, g)).__code__", "__code__"),
}
# Attacks that hide from the scan: the grading process itself must catch them.
HIDDEN = {
    "gc through a course import": "found = [o for o in torch.autograd.engine.__dict__.values()]",
    "exec through the course's own names": "torch.nn.Module.__init__.__globals__['__builtins__']['exec']('import gc')",
    "numpy through an alias": "n = np\nn.allclose = lambda *a, **k: True",
    "the checker through an alias": "c = check\nc.your_turn_1 = lambda *a, **k: None",
}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_the_scan_flags_each_attack(attack):
    source, word = ATTACKS[attack]
    reasons = sealed_grading.scan(source)
    if word is None:   # nothing to refuse in the source: the grading process must catch it (tests below)
        assert reasons == [], reasons
        return
    assert reasons and any(word in reason for reason in reasons), reasons


def test_the_cells_run_are_the_courses_with_the_students_answers(tmp_path):
    """An edited demonstration, an edited set-up cell and a deleted check change nothing; a cell
    the student added runs where they put it."""
    source, _ = nbgrader_course.source_notebook(read_notebook(NOTEBOOKS / "06_needs_input_grad_and_friends.ipynb"))
    nb = submission(source, {1: "MyLinear = 1"})
    setup = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "setup")
    setup.source = "check = None"
    demo = next(c for c in nb.cells if c.cell_type == "code" and not c.metadata.get("nbgrader"))
    demo.source = "import gc"
    nb.cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") != "your_turn_1_check"]
    added = nbformat.v4.new_code_cell("helper = 2")
    answer_at = next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == "your_turn_1")
    nb.cells.insert(answer_at, added)
    cells = sealed_grading.grading_cells(source, nb)
    kinds = [(c["kind"], c.get("exercise")) for c in cells]
    assert kinds.count(("check", 1)) == 1 and kinds[0] == ("setup", None)
    assert cells[0]["source"] == next(c.source for c in source.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "setup")
    assert "import gc" not in [c.get("source") for c in cells]
    position = kinds.index(("answer", 1))
    assert cells[position - 1] == {"kind": "added", "source": "helper = 2"}
    assert cells[position]["source"] == "MyLinear = 1"


# ------------------------------------------------------------------------ the red team, graded
def grade(notebook: str, exercise: int, answer: str, budget: float = 60) -> sealed_grading.Grading:
    source = small_source(notebook, exercise)
    return sealed_grading.grade_notebook(source, submission(source, {exercise: answer}), budget=budget)


NB06 = "06_needs_input_grad_and_friends.ipynb"
# `make classroom-test` also grades each attack after the right answer (twice the processes).
FULL = bool(os.environ.get("MINIGRAD_REQUIRE_CLASSROOM"))


@pytest.fixture(scope="module")
def nb06_answers():
    source, _ = nbgrader_course.source_notebook(read_notebook(NOTEBOOKS / NB06))
    cell = next(c for c in source.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "your_turn_1")
    return solution_and_starter(cell.source)


@pytest.fixture(scope="module")
def red_team(nb06_answers):
    """Every attack (scanned or hidden), after the starter and after the right answer, graded."""
    solution, starter = nb06_answers
    work = {}
    for name, attack in [*((n, a) for n, (a, _) in ATTACKS.items()), *HIDDEN.items()]:
        work[(name, "starter")] = starter + "\n" + attack
        if FULL:
            work[(name, "solution")] = solution + "\n" + attack
    work[("none", "starter")] = starter
    work[("none", "solution")] = solution
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(zip(work, pool.map(lambda answer: grade(NB06, 1, answer), work.values())))
    return results


def test_the_starter_earns_nothing_and_the_solution_its_point(red_team):
    assert not red_team[("none", "starter")].verdict(1).ok
    right = red_team[("none", "solution")]
    assert right.verdict(1).ok and not right.flags and not right.verdict(1).flags, right


@pytest.mark.parametrize("attack", [*ATTACKS, *HIDDEN])
def test_no_attack_earns_a_point(red_team, attack):
    verdict = red_team[(attack, "starter")].verdict(1)
    assert not verdict.ok, (attack, verdict)
    # After a right answer the attack is flagged, for the teacher, and earns nothing until reviewed
    # (printing a tick and stopping is no attack on the grader: a right answer stays right).
    if (attack, "solution") in red_team and attack != "printing a tick and exiting":
        graded = red_team[(attack, "solution")]
        assert not graded.verdict(1).ok and (graded.verdict(1).flags or graded.flags), (attack, graded)


def test_an_infinite_loop_costs_one_budget():
    grading = grade(NB06, 1, "while True:\n    pass", budget=8)
    assert grading.timed_out and not grading.verdict(1).ok and grading.seconds < 15
    assert "did not finish within" in grading.verdict(1).lines[0]


def test_a_memory_hog_is_stopped_and_graded_wrong():
    grading = grade(NB06, 1, "hog = bytearray(8 * 1024 ** 3)")
    assert not grading.verdict(1).ok and not grading.timed_out, grading


def test_a_right_answer_that_warns_earns_its_point():
    """nbgrader scores 0 for any stderr in a check cell: a deprecated name and a warning of the
    learner's own in backward must not cost a right answer its point."""
    answer = '''import warnings as w
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_variables                   # deprecated: warns
        w.warn("a warning of the learner's own")
        return 3 * x ** 2 * grad_output
'''
    grading = grade("05_save_for_backward.ipynb", 1, answer)
    verdict = grading.verdict(1)
    assert verdict.ok, verdict
    printed = grading.outputs
    assert all(o["name"] == "stdout" for outputs in printed.values() for o in outputs if o["output_type"] == "stream")


# ------------------------------------------------------------------ who submitted (nbgrader's exchange)
def test_collect_refuses_a_submission_another_account_made_or_a_link(tmp_path):
    """tools/nbgrader_exchange.py's owner check, without a hub: a folder named for alice but made
    by another account, a symbolic link, a link inside, and one that is hers."""
    exchange = pytest.importorskip("tools.nbgrader_exchange", reason="needs nbgrader (.venv-classroom)")
    me = exchange.account_name(os.getuid())
    mine = tmp_path / f"{me}+06+2026-11-28 10:00:00.000000 UTC+a"
    mine.mkdir()
    (mine / "06.ipynb").write_text("{}")
    assert exchange.refusal(str(mine), me) is None
    assert exchange.refusal(str(mine), "alice") == f"it names alice but was made by the account {me}"
    link = tmp_path / "alice+06+2026-11-28 10:00:00.000000 UTC+b"
    link.symlink_to(mine)
    assert exchange.refusal(str(link), me) == "it is a symbolic link"
    (mine / "other.ipynb").symlink_to(tmp_path / "elsewhere.ipynb")
    assert exchange.refusal(str(mine), me) == "other.ipynb is a symbolic link"
    if os.geteuid() == 0:
        (mine / "other.ipynb").unlink()
        os.chown(mine / "06.ipynb", 65534, 65534)
        assert exchange.refusal(str(mine), me) == f"06.ipynb belongs to the account {exchange.account_name(65534)}"


def test_the_course_folder_grades_in_a_fresh_process_and_checks_owners(tmp_path):
    """The nbgrader_config.py that `make classroom` writes puts the grading and the exchange in place."""
    from traitlets.config import Config

    nbgrader_course.build(NOTEBOOKS, tmp_path / "course", languages=("en",))
    namespace = {"get_config": Config}
    exec(compile((tmp_path / "course" / "nbgrader_config.py").read_text(), "nbgrader_config.py", "exec"), namespace)
    c = namespace["c"]
    steps = list(c.Autograde.autograde_preprocessors)
    assert steps[0] == "tools.nbgrader_grading.GradeInFreshProcess" and "nbgrader.preprocessors.Execute" not in steps
    assert steps.index("tools.nbgrader_grading.FlagForReview") == steps.index("nbgrader.preprocessors.SaveAutoGrades") + 1
    assert c.ExchangeFactory.collect == "tools.nbgrader_exchange.OwnerCheckedCollect"
    assert c.GradeInFreshProcess.budget == sealed_grading.BUDGET
