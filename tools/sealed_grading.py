"""Grade a submitted notebook in a fresh process, where only the student's cells are student code.

nbgrader grades a test cell by the outputs it left in the kernel that ran the whole notebook, so a
line of the student's own code in that kernel could make every check pass. Here the grade comes
from a fresh Python process (one per notebook) that the student's cells cannot reach beforehand:

1. **The course's cells, restored.** It runs the course's own version of every cell (the set-up
   cell, the demonstrations, the check calls) from the teacher's source notebook. Student code is
   only what the student wrote: each answer cell (found by its nbgrader id, wherever it moved) and
   each cell the student added, in their places. An edited demonstration, a deleted check or a
   changed set-up cell changes nothing.
2. **The checker is the grader's.** After the set-up cell, before any student code runs, the grader
   keeps its own reference to each ``check.your_turn_N`` and to the Result class, and takes a
   snapshot of what the checkers rely on: every module's functions and classes (builtins, numpy,
   minigrad, the checkers' own data included), ``sys.modules``. It then calls the checker itself
   with the arguments named by the course's check call; rebinding ``check`` or stubbing its
   functions in a notebook changes nothing.
3. **Tampering voids the verdict.** A verdict counts only when nothing the snapshot holds changed,
   no thread, signal handler or trace function of the student's is left, the answer is not the
   checker's own code (:func:`borrowed_code`), and the student's cells contain none of the
   constructs that reach the checker, the interpreter or the process (:func:`scan`). An audit hook
   (:pep:`578`), installed before any student code, refuses what student code must never do while
   it is graded (open files outside the Python installation, start processes, walk frames, read the
   garbage collector, use ctypes, replace code objects...) and reports it at once. An exercise so
   flagged scores 0, with the reason, for the teacher to review.
4. **The verdict travels signed.** Each verdict reaches the grading process through a pipe, signed
   with a key the student's code never sees (HMAC-SHA256): a line printed or written there by the
   notebook is refused and flagged.
5. **One budget per notebook.** The process has ``budget`` seconds in all (an infinite loop costs
   one notebook's budget, not a budget per cell) and a memory limit; exercises not reached by then
   score 0, those graded before stand.

The grading process needs the course's Python (minigrad and the checkers), nothing of nbgrader's:
``tools/nbgrader_grading.py`` plugs it into ``nbgrader autograde``.

>>> import nbformat
>>> source = nbformat.v4.new_notebook(cells=[
...     nbformat.v4.new_code_cell("from minigrad.exercises import nb00 as check",
...                               metadata={"nbgrader": {"grade_id": "setup", "locked": True}}),
...     nbformat.v4.new_code_cell("prediction = [0.0, 0.0, 0.0]",
...                               metadata={"nbgrader": {"grade_id": "your_turn_1", "solution": True}}),
...     nbformat.v4.new_code_cell("check.your_turn_1(prediction).for_nbgrader()",
...                               metadata={"nbgrader": {"grade_id": "your_turn_1_check", "grade": True,
...                                                      "points": 1}})])
>>> [(c["kind"], c.get("exercise")) for c in grading_cells(source, source)]
[('setup', None), ('answer', 1), ('check', 1)]
>>> scan("import minigrad.exercises._feedback as _fb; _fb._nbgrader_execution = ''")
['imports the checkers (minigrad.exercises._feedback)']
>>> scan("class MyLinear(torch.autograd.Function):\\n    pass")
[]
"""
from __future__ import annotations

import ast
import hashlib
import hmac
import json
import os
import secrets
import select
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

BUDGET = 120                     # seconds for one notebook, every cell and check included
MEMORY = 2 * 1024 ** 3           # bytes of data one grading process may allocate (RLIMIT_DATA)
OUTPUT_LIMIT = 20_000            # characters of output kept per cell for the feedback
CHECK_CALL = "check.your_turn_{}"

# ------------------------------------------------------------------------------------------ the scan
# Names a student's cell never needs, each reaching the checker, the interpreter or the process.
_CHECKER_MODULES = {"exercises", "_feedback", "_observe"} | {f"nb{n:02d}" for n in range(100)}
_FORBIDDEN_NAMES = {
    "__import__": "imports by name", "importlib": "imports by name", "exec": "runs code from a string",
    "eval": "runs code from a string", "compile": "compiles code from a string", "globals": "reads the notebook's namespace",
    "vars": "reads a namespace", "locals": "reads a namespace", "builtins": "reaches Python's builtins",
    "__builtins__": "reaches Python's builtins", "get_ipython": "reaches the notebook's shell", "breakpoint": "starts a debugger",
    "open": "opens a file", "setattr": "sets an attribute by name", "delattr": "deletes an attribute by name",
    "getattr": "reads an attribute by name",
}
_FORBIDDEN_MODULES = {"sys", "os", "gc", "ctypes", "inspect", "importlib", "builtins", "subprocess", "signal",
                      "threading", "_thread", "multiprocessing", "pickle", "marshal", "shelve", "sqlite3", "socket",
                      "types", "traceback", "linecache", "atexit", "faulthandler", "tracemalloc", "code", "codeop",
                      "runpy", "pty", "fcntl", "mmap", "resource", "shutil", "pathlib", "io", "tempfile",
                      "dis", "asyncio", "concurrent", "unittest", "pdb", "bdb", "copyreg", "dill", "cloudpickle"}
_FORBIDDEN_ATTRIBUTES = {"f_back", "f_locals", "f_globals", "f_code", "tb_frame", "tb_next", "gi_frame", "cr_frame",
                         "ag_frame", "cell_contents", "modules", "meta_path", "path_hooks", "settrace", "setprofile",
                         "addaudithook", "_getframe", "_current_frames", "get_objects", "get_referrers",
                         "get_referents", "for_nbgrader", "ctypeslib", "load", "loads"}
# Dunder attributes a student's answer may use; any other reaches the interpreter's machinery.
_PLAIN_DUNDERS = {"__init__", "__name__", "__qualname__", "__doc__", "__class__", "__len__", "__call__",
                  "__getitem__", "__setitem__", "__iter__", "__next__", "__repr__", "__str__", "__eq__", "__hash__",
                  "__add__", "__mul__", "__matmul__", "__sub__", "__neg__", "__truediv__", "__pow__", "__enter__",
                  "__exit__", "__contains__", "__bool__", "__float__", "__int__", "__index__", "__array__",
                  "__version__", "__module__", "__slots__", "__new__", "__setattr__", "__getattr__", "__post_init__"}


def _dotted(node: ast.AST) -> str:
    """``a.b.c`` for a chain of names and attributes, else ''."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def scan(source: str) -> list[str]:
    """What in a student's cell reaches the checker, the interpreter or the process: one reason
    per construct found, in English, for the teacher (empty for an honest answer).

    A cell may call its check the way the notebook does (``check.your_turn_2(MySort)``); any other
    use of ``check``, and every construct below, flags the cell.

    >>> scan("check.your_turn_1 = lambda *a: None")
    ['changes check.your_turn_1, which the checker relies on', 'uses the checker module itself (check.your_turn_1)']
    >>> scan("check.your_turn_2(MySort)")
    []
    >>> scan("x = getattr(torch, 'na' + 'me')")
    ['reads an attribute by name (getattr)']
    >>> scan("f.__code__ = g.__code__")
    ['uses f.__code__', 'uses g.__code__']
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []            # it cannot run: the check says so
    reasons: list[str] = []

    def flag(reason: str) -> None:
        if reason not in reasons:
            reasons.append(reason)

    allowed_calls = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "check"
                and node.func.attr.startswith("your_turn_")):
            allowed_calls.add(id(node.func.value))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [alias.name for alias in node.names]
            modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else names
            for module in modules + ([f"{node.module}.{n}" for n in names] if isinstance(node, ast.ImportFrom) else []):
                parts = module.split(".")
                if _CHECKER_MODULES & set(parts):
                    flag(f"imports the checkers ({module})")
                elif parts[0] in _FORBIDDEN_MODULES:
                    flag(f"imports {parts[0]}")
        elif isinstance(node, ast.Name):
            if node.id == "check" and id(node) not in allowed_calls:
                parent = _parent_attribute(tree, node)
                flag(f"uses the checker module itself ({_dotted(parent) if parent else 'check'})")
            elif node.id in _FORBIDDEN_NAMES:
                flag(f"{_FORBIDDEN_NAMES[node.id]} ({node.id})")
            elif node.id in _FORBIDDEN_MODULES and isinstance(node.ctx, ast.Load):
                flag(f"uses the module {node.id}")
            elif node.id.startswith("__") and node.id.endswith("__") and node.id not in _PLAIN_DUNDERS | {"__name__"}:
                flag(f"uses {node.id}")
        elif isinstance(node, ast.Attribute):
            dotted = _dotted(node) or f"….{node.attr}"
            if node.attr.startswith("__") and node.attr.endswith("__") and node.attr not in _PLAIN_DUNDERS:
                flag(f"uses {dotted}")
            elif node.attr in _FORBIDDEN_ATTRIBUTES or node.attr in _CHECKER_MODULES:
                flag(f"uses {dotted}")
            elif node.attr in _FORBIDDEN_MODULES and node.attr not in {"io", "code", "types"}:
                flag(f"reaches the module {node.attr} ({dotted})")
            if isinstance(node.ctx, (ast.Store, ast.Del)):
                root = dotted.split(".")[0]
                if root in {"torch", "np", "numpy", "minigrad", "math", "check", "viz", "engine", "function",
                            "graph", "node_info", "kernels", "spmm", "Spmm", "FunctionCtx", "warnings"}:
                    flag(f"changes {dotted}, which the checker relies on")
    return reasons


def _parent_attribute(tree: ast.AST, name: ast.Name) -> ast.AST | None:
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.value is name:
            return node
    return None


# ------------------------------------------------------------------------- the cells to run, in order
def _nbgrader(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def _source(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def check_arguments(call: str) -> tuple[int, list[str]]:
    """The exercise number and the argument expressions of a check call.

    >>> check_arguments("check.your_turn_10(ReentrantMul, VarA).for_nbgrader()")
    (10, ['ReentrantMul', 'VarA'])
    """
    expression = ast.parse(call.strip().rstrip(";"), mode="eval").body
    if isinstance(expression, ast.Call) and isinstance(expression.func, ast.Attribute) \
            and expression.func.attr == "for_nbgrader":
        expression = expression.func.value
    name = _dotted(expression.func) if isinstance(expression, ast.Call) else ""
    if not name.startswith("check.your_turn_") or expression.keywords:
        raise ValueError(f"not a check call: {call!r}")
    return int(name.rsplit("_", 1)[1]), [ast.unparse(arg) for arg in expression.args]


def grading_cells(source_nb, submitted_nb) -> list[dict]:
    """The code cells the grading process runs: the source notebook's, in its order, with each
    answer cell (nbgrader's ``your_turn_N`` solution cell) taken from the submission, and each cell
    the student added (a cell id the source does not have) where the student put it."""
    answers = {_nbgrader(c).get("grade_id"): _source(c) for c in submitted_nb["cells"]
               if _nbgrader(c).get("solution")}
    known = {c.get("id") for c in source_nb["cells"]} - {None}
    added_after: dict = {}
    previous = None
    for cell in submitted_nb["cells"]:
        if cell.get("id") in known or _nbgrader(cell):
            previous = cell.get("id")
        elif cell.get("cell_type") == "code" and cell.get("id") and _source(cell).strip():
            added_after.setdefault(previous, []).append(_source(cell))
    cells: list[dict] = [{"kind": "added", "source": s} for s in added_after.get(None, [])]
    for index, cell in enumerate(source_nb["cells"]):
        meta = _nbgrader(cell)
        if cell.get("cell_type") == "code":
            grade_id = meta.get("grade_id", "")
            if grade_id == "setup":
                cells.append({"kind": "setup", "source": _source(cell), "index": index})
            elif meta.get("solution") and grade_id.startswith("your_turn_"):
                cells.append({"kind": "answer", "exercise": int(grade_id.rsplit("_", 1)[1]),
                              "source": answers.get(grade_id, ""), "index": index, "grade_id": grade_id})
            elif meta.get("grade"):
                number, arguments = check_arguments(_source(cell))
                cells.append({"kind": "check", "exercise": number, "arguments": arguments, "index": index,
                              "grade_id": grade_id})
            else:
                cells.append({"kind": "course", "source": _source(cell), "index": index})
        cells += [{"kind": "added", "source": s} for s in added_after.get(cell.get("id"), [])]
    return cells


# ---------------------------------------------------------------------------------- the parent side
@dataclass
class Verdict:
    exercise: int
    ok: bool
    lines: list[str]
    flags: list[str] = field(default_factory=list)


@dataclass
class Grading:
    """What the grading process reported for one notebook."""

    verdicts: dict[int, Verdict]
    outputs: dict[int, list[dict]]           # source cell index -> nbformat outputs, for the feedback
    flags: list[str]                         # every tampering reason, for the teacher
    seconds: float
    timed_out: bool = False
    exercises: list[int] = field(default_factory=list)

    def verdict(self, exercise: int) -> Verdict:
        """The verdict of ``exercise``; an exercise never graded is not correct, and says why."""
        if exercise in self.verdicts:
            return self.verdicts[exercise]
        if self.timed_out:
            why = (f"not graded: the notebook did not finish within its {self.seconds:.0f} s (a cell that "
                   "never ends, such as an infinite loop?); exercises graded before that keep their verdict.")
        else:
            why = "not graded: the notebook stopped before this check ran."
        return Verdict(exercise, False, [f"✗ Your turn {exercise} — {why}"], [])

    def to_json(self) -> dict:
        return {"verdicts": {str(k): vars(v) for k, v in self.verdicts.items()},
                "outputs": {str(k): v for k, v in self.outputs.items()}, "flags": self.flags,
                "seconds": self.seconds, "timed_out": self.timed_out, "exercises": self.exercises}

    @classmethod
    def from_json(cls, data: dict) -> "Grading":
        return cls({int(k): Verdict(**v) for k, v in data["verdicts"].items()},
                   {int(k): v for k, v in data["outputs"].items()}, data["flags"], data["seconds"],
                   data["timed_out"], data["exercises"])


def _limits(memory: int, budget: float):
    import resource

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_DATA, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CPU, (int(budget) + 10, int(budget) + 10))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_FSIZE, (50 * 1024 ** 2, 50 * 1024 ** 2))
    return apply


def grade_notebook(source_nb, submitted_nb, *, budget: float = BUDGET, memory: int = MEMORY,
                   python: str | None = None) -> Grading:
    """Run ``submitted_nb``'s answers in a fresh grading process against ``source_nb`` (the
    teacher's version, with nbgrader's metadata) and return its verdicts. Run as root, the process
    runs as the account ``nobody``."""
    cells = grading_cells(source_nb, submitted_nb)
    exercises = [c["exercise"] for c in cells if c["kind"] == "check"]
    key = secrets.token_bytes(32)
    read_end, write_end = os.pipe()
    workdir = tempfile.mkdtemp(prefix="minigrad-grading-")
    python = python or sys.executable
    as_nobody = os.geteuid() == 0 and _others_can_run(python) and _others_can_run(__file__)
    if as_nobody:
        os.chmod(workdir, 0o777)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": workdir, "PYTHONHASHSEED": "0",
           "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "PYDEVD_DISABLE_FILE_VALIDATION": "1", "LANG": "C.UTF-8"}
    start = time.monotonic()
    process = subprocess.Popen(
        [python, "-I", os.path.abspath(__file__), "child", str(write_end)],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, cwd=workdir, env=env,
        stderr=None if os.environ.get("MINIGRAD_GRADING_DEBUG") else subprocess.DEVNULL,
        pass_fds=(write_end,), start_new_session=True, preexec_fn=_limits(memory, budget),
        **({"user": "nobody"} if as_nobody else {}))
    os.close(write_end)
    verdicts: dict[int, Verdict] = {}
    outputs: dict[int, list[dict]] = {}
    flags: list[str] = []
    timed_out = done = False
    try:
        process.stdin.write(json.dumps({"cells": cells, "key": key.hex()}).encode())
        process.stdin.close()
    except BrokenPipeError:
        pass
    buffer = b""
    with os.fdopen(read_end, "rb", buffering=0) as report:
        while True:
            left = budget - (time.monotonic() - start)
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([report], [], [], left)
            if not ready:
                continue
            chunk = report.read(65536)
            if not chunk:
                break
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                done = _receive(line, key, verdicts, outputs, flags) or done
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()
    import shutil
    shutil.rmtree(workdir, ignore_errors=True)
    if not done and not timed_out:
        flags.append("the grading process ended before it finished (the notebook's code stopped it, or it ran out of memory)")
    flags[:0] = edited_read_only_cells(source_nb, submitted_nb)
    return Grading(verdicts, outputs, flags, round(time.monotonic() - start, 2), timed_out, exercises)


def edited_read_only_cells(source_nb, submitted_nb) -> list[str]:
    """The course's read-only cells (the set-up cell, the checks) that the submission deleted or
    changed. The grade does not depend on them (the course's own cells run), but the teacher is told.

    >>> import nbformat
    >>> cell = nbformat.v4.new_code_cell("check.your_turn_1(x).for_nbgrader()",
    ...                                  metadata={"nbgrader": {"grade_id": "your_turn_1_check", "locked": True}})
    >>> edited_read_only_cells({"cells": [cell]}, {"cells": []})
    ['the read-only cell your_turn_1_check was deleted']
    """
    submitted = {_nbgrader(c).get("grade_id"): _source(c) for c in submitted_nb["cells"] if _nbgrader(c)}
    found = []
    for cell in source_nb["cells"]:
        meta = _nbgrader(cell)
        if not (meta.get("locked") or meta.get("grade")) or meta.get("solution"):
            continue
        grade_id = meta.get("grade_id")
        if grade_id not in submitted:
            found.append(f"the read-only cell {grade_id} was deleted")
        elif submitted[grade_id].strip() != _source(cell).strip():
            found.append(f"the read-only cell {grade_id} was changed")
    return found


def _others_can_run(path: str) -> bool:
    """Whether every account can read ``path`` (a program or a script) and reach it: run as root,
    the grading process then runs as ``nobody``, which cannot read the teacher's files."""
    path = os.path.realpath(path)
    parents = [os.path.dirname(path)]
    while parents[-1] != os.path.dirname(parents[-1]):
        parents.append(os.path.dirname(parents[-1]))
    return os.stat(path).st_mode & 0o005 == 0o005 and all(os.stat(p).st_mode & 0o001 for p in parents)


def _receive(line: bytes, key: bytes, verdicts: dict, outputs: dict, flags: list) -> bool:
    """Take one message of the grading process; True for its signed last message."""
    try:
        message = json.loads(line)
        body, mac = message["body"], message.get("mac", "")
    except (ValueError, KeyError, TypeError):
        flags.append("the notebook wrote to the grader's channel")
        return False
    if "flag" in body:                       # unsigned: a flag can only cost the student
        reason = str(body["flag"])
        if reason not in flags:
            flags.append(reason)
        return False
    expected = hmac.new(key, json.dumps(body, sort_keys=True).encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, str(mac)):
        flags.append("the notebook wrote to the grader's channel")
        return False
    if "cell" in body:
        outputs[int(body["cell"])] = body["outputs"]
    elif "exercise" in body:
        number = int(body["exercise"])
        if number in verdicts:
            flags.append(f"two verdicts for Your turn {number}")
            verdicts[number] = Verdict(number, False, verdicts[number].lines[:1], ["two verdicts"])
        else:
            verdicts[number] = Verdict(number, bool(body["ok"]), list(body["lines"]), list(body["flags"]))
    return bool(body.get("done"))


# ---------------------------------------------------------------------------------- the child side
def _child(report_fd: int) -> None:
    """The grading process: read the cells and the key from stdin, run them, report on the fd."""
    import builtins
    import io
    import linecache
    import types

    request = json.loads(sys.stdin.buffer.read())
    key = bytes.fromhex(request.pop("key"))
    cells = request["cells"]
    _write, _dumps, _new, _sha = os.write, json.dumps, hmac.new, hashlib.sha256
    _type, _vars, _isinstance, _id, _len = type, vars, isinstance, id, len

    def send(body: dict, signed: bool = True) -> None:
        line = {"body": body}
        if signed:
            line["mac"] = _new(key, _dumps(body, sort_keys=True).encode(), _sha).hexdigest()
        data = (_dumps(line) + "\n").encode()
        while data:
            data = data[_write(report_fd, data):]

    main = types.ModuleType("__main__")
    main.__dict__["__builtins__"] = builtins
    sys.modules["__main__"] = main
    namespace = main.__dict__
    student_files: dict[str, int | None] = {}       # filename -> exercise it counts for
    course_files: set[str] = set()
    here = os.path.abspath(__file__)
    exercises_dir = None
    runtime_flags: list[tuple[int | None, str]] = []
    current = {"exercise": None}

    def run(source: str, filename: str) -> list[dict]:
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        out, err = io.StringIO(), io.StringIO()
        outputs: list[dict] = []
        stdout, stderr = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = out, err
        try:
            exec(compile(source, filename, "exec"), namespace)
        except BaseException as error:   # noqa: BLE001 (SystemExit and KeyboardInterrupt included)
            outputs.append({"output_type": "error", "ename": _type(error).__name__, "evalue": str(error)[:2000],
                            "traceback": [f"{_type(error).__name__}: {str(error)[:2000]}"]})
        finally:
            sys.stdout, sys.stderr = stdout, stderr
        streams = [{"output_type": "stream", "name": name, "text": text.getvalue()[:OUTPUT_LIMIT]}
                   for name, text in (("stdout", out), ("stderr", err)) if text.getvalue()]
        return streams + outputs

    # The set-up cell first: it imports the checker as `check`.
    setup = next(c for c in cells if c["kind"] == "setup")
    setup_file = f"<course cell {setup['index']}>"
    course_files.add(setup_file)
    send({"cell": setup["index"], "outputs": run(setup["source"], setup_file)})
    check_module = namespace.get("check")
    if not _isinstance(check_module, types.ModuleType) or not check_module.__name__.startswith("minigrad.exercises."):
        send({"flag": "the set-up cell did not import the checker"}, signed=False)
        return
    exercises_dir = os.path.dirname(os.path.abspath(check_module.__file__))
    from minigrad.exercises import _feedback
    Result = _feedback.Result
    checkers = {int(name.rsplit("_", 1)[1]): getattr(check_module, name) for name in dir(check_module)
                if name.startswith("your_turn_")}
    baseline = _Snapshot(exercises_dir)
    allowed_roots = tuple({os.path.dirname(os.__file__), sys.prefix, sys.base_prefix, sys.exec_prefix,
                           os.path.dirname(exercises_dir), os.getcwd(), "/dev/null", "/usr/share/zoneinfo"})

    # ---- the audit hook: attribute each event to the code that caused it
    def who(frame) -> str:
        """'student', 'checker' or '' (the course, the grader, libraries) for the first frame on
        the stack, innermost first, that is student code or checker code."""
        while frame is not None:
            filename = frame.f_code.co_filename
            if filename in student_files:
                return "student"
            if filename.startswith(exercises_dir):
                return "checker"
            if filename in course_files or filename == here:
                return ""
            if filename.startswith("<") and not filename.startswith("<frozen"):
                return "student"        # code the student made from a string
            frame = frame.f_back
        return ""

    def innermost(frame) -> str:
        while frame is not None and frame.f_code.co_filename.startswith("<frozen"):
            frame = frame.f_back
        if frame is None:
            return ""
        filename = frame.f_code.co_filename
        if filename in student_files or (filename.startswith("<") and filename not in course_files):
            return "student"
        return ""

    dangerous = {"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
                 "os.kill", "os.killpg", "os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.symlink", "os.link",
                 "os.chmod", "os.chown", "os.truncate", "os.utime", "os.chdir", "os.putenv", "os.unsetenv",
                 "os.listdir", "os.scandir", "os.walk", "glob.glob", "shutil.rmtree", "shutil.copyfile",
                 "sys.addaudithook", "sys.settrace", "sys.setprofile", "sys._getframe", "sys._current_frames",
                 "gc.get_objects", "gc.get_referrers", "gc.get_referents", "pickle.find_class", "marshal.loads",
                 "code.__new__", "function.__new__", "sqlite3.connect", "socket.connect", "socket.bind",
                 "socket.__new__", "mmap.__new__", "os.openpty", "pty.spawn", "resource.setrlimit",
                 "resource.prlimit", "sys.setrecursionlimit", "syslog.openlog", "webbrowser.open",
                 "urllib.Request", "cpython.run_command", "builtins.input", "os.startfile", "os.add_dll_directory"}
    frame_names = {"tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back", "__globals__", "__closure__"}
    forbidden_imports = _FORBIDDEN_MODULES - {"types", "io", "traceback", "linecache", "weakref", "inspect",
                                              "dis", "tracemalloc", "pathlib", "tempfile", "shutil", "code", "weakref",
                                              "codeop", "unittest", "asyncio", "concurrent", "copyreg", "threading"}
    guard = {"busy": False}

    def audit(event: str, args: tuple) -> None:
        if guard["busy"]:
            return
        if not (event in dangerous or event.startswith("ctypes.") or event in
                ("open", "import", "exec", "compile", "object.__setattr__", "object.__delattr__", "object.__getattr__")):
            return
        guard["busy"] = True
        try:
            frame = sys._getframe(1)
            reason = None
            if event == "open":
                path, mode, flags = str(args[0]), str(args[1] or "r"), args[2] if _len(args) > 2 else 0
                writes = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
                if who(frame) == "student" and (any(c in mode for c in "wax+") or (flags or 0) & writes
                                                or _isinstance(args[0], int)
                                                or not os.path.abspath(path).startswith(allowed_roots)):
                    reason = f"opened {path!r}"
            elif event == "import":
                if args[0].split(".")[0] in forbidden_imports and who(frame) == "student":
                    reason = f"imported {args[0]}"
            elif event in ("exec", "compile"):
                if innermost(frame) == "student":
                    reason = "ran code from a string (exec, eval or compile)"
            elif event in ("object.__setattr__", "object.__delattr__"):
                target = args[0]
                if who(frame) == "student" and not _made_by_student(target, student_files):
                    reason = f"changed {getattr(target, '__qualname__', _type(target).__name__)}.{args[1]}"
            elif event == "object.__getattr__":
                if args[1] in frame_names and who(frame) == "student":
                    reason = f"read .{args[1]} (the interpreter's frames or a function's globals)"
            elif who(frame) == "student":
                reason = f"used {event}"
        finally:
            guard["busy"] = False
        if reason:
            runtime_flags.append((current["exercise"], reason))
            send({"flag": f"Your turn {current['exercise'] or '?'}: {reason}"}, signed=False)
            raise PermissionError(f"not allowed while the notebook is graded: {reason}")

    sys.addaudithook(audit)
    threads, handlers = len(sys._current_frames()), {s: signal.getsignal(s) for s in _signals()}
    static_flags: dict[int | None, list[str]] = {}   # an answer's flags count against its exercise,
    # an added cell's against every exercise after it (it may define what they use)
    for cell in cells:
        kind = cell["kind"]
        if kind == "setup":
            continue
        if kind in ("course",):
            filename = f"<course cell {cell['index']}>"
            course_files.add(filename)
            run(cell["source"], filename)          # the course's outputs are the source notebook's
            continue
        if kind in ("answer", "added"):
            number = cell.get("exercise")
            filename = f"<answer {number}>" if kind == "answer" else f"<added cell {_len(student_files)}>"
            student_files[filename] = number
            where = f"Your turn {number}" if kind == "answer" else "a cell you added"
            static_flags.setdefault(number, []).extend(f"{where}: {r}" for r in scan(cell["source"]))
            current["exercise"] = number
            outputs = run(cell["source"], filename)
            if kind == "answer":
                send({"cell": cell["index"], "outputs": outputs})
            continue
        # kind == "check": the grader calls its own reference to the checker
        number = cell["exercise"]
        current["exercise"] = number
        out = io.StringIO()
        stdout, stderr = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = out
        try:
            arguments = [eval(compile(expression, "<check call>", "eval"), dict(namespace))
                         for expression in cell["arguments"]]
            result = checkers[number](*arguments)
        except BaseException as error:   # noqa: BLE001
            arguments, result = [], None
            problem = f"{_type(error).__name__}: {error}"
        finally:
            sys.stdout, sys.stderr = stdout, stderr
        flags = static_flags.get(number, []) + static_flags.get(None, [])
        flags += [reason for exercise, reason in runtime_flags if exercise in (number, None)]
        flags += baseline.changes()
        flags += borrowed_code(arguments, exercises_dir)
        if len(sys._current_frames()) != threads:      # threading's threads and _thread's alike
            flags.append("a thread of the notebook's is running")
        if {s: signal.getsignal(s) for s in _signals()} != handlers or signal.getitimer(signal.ITIMER_REAL)[0]:
            flags.append("the notebook changed a signal handler or set a timer")
        if sys.gettrace() is not None or sys.getprofile() is not None:
            flags.append("the notebook left a trace or profile function")
        if result is None or _type(result) is not Result:
            ok, lines = False, [f"✗ Your turn {number} — the check did not run: {problem if result is None else 'no verdict'}"]
        else:
            state = _vars(result)
            ok, lines = state["ok"] is True, [str(line) for line in state["lines"]]
        if flags:
            ok = False
            lines = [f"✗ Your turn {number} — not graded automatically: your teacher will review this answer.",
                     *(f"  Reason: {reason}" for reason in dict.fromkeys(flags))]
        send({"cell": cell["index"], "outputs": [{"output_type": "stream", "name": "stdout",
                                                   "text": out.getvalue()[:OUTPUT_LIMIT]}]})
        send({"exercise": number, "ok": ok, "lines": lines, "flags": list(dict.fromkeys(flags))})
    send({"done": True})


def _signals() -> list:
    return [s for s in signal.valid_signals() if s not in (signal.SIGKILL, signal.SIGSTOP)]


def _made_by_student(target, student_files: dict) -> bool:
    code = getattr(target, "__code__", None)
    if code is not None:
        return code.co_filename in student_files
    module = getattr(target, "__module__", None)
    return module == "__main__"


def borrowed_code(arguments: list, exercises_dir: str) -> list[str]:
    """Reasons when an answer handed to the checker is (or holds, or inherits) the checker's own
    code: a class or function of ``minigrad/exercises/``, such as a reference answer."""
    import types
    seen, found = set(), []

    def visit(value, depth: int) -> None:
        if id(value) in seen or depth > 3:
            return
        seen.add(id(value))
        code = getattr(value, "__code__", None) if isinstance(value, (types.FunctionType, types.MethodType)) else None
        if isinstance(value, types.MethodType):
            code = value.__func__.__code__
        if code is not None and code.co_filename.startswith(exercises_dir):
            found.append(f"the answer is the checker's own code ({code.co_qualname})")
        if isinstance(value, type):
            for klass in value.__mro__:
                module = sys.modules.get(klass.__module__)
                if getattr(module, "__file__", "") and module.__file__.startswith(exercises_dir):
                    found.append(f"the answer is or inherits a class of the checker ({klass.__qualname__})")
            for item in vars(value).values():
                visit(getattr(item, "__func__", item), depth + 1)
        elif isinstance(value, (list, tuple)):
            for item in value:
                visit(item, depth + 1)

    for argument in arguments:
        visit(argument, 0)
    return list(dict.fromkeys(found))


class _Snapshot:
    """What the checkers rely on, as it was before any student code ran: every loaded module's
    functions, classes and submodules (all names for the checkers' own modules, their data by
    value), each class's attributes, each function's code and defaults, and ``sys.modules``."""

    def __init__(self, exercises_dir: str) -> None:
        import types
        self.exercises_dir = exercises_dir
        self.modules = {name: module for name, module in sys.modules.items() if isinstance(module, types.ModuleType)}
        self.globals: dict = {}
        self.data: dict = {}
        self.classes: dict = {}
        self.functions: dict = {}
        for name, module in self.modules.items():
            strict = self._strict(module)
            for key, value in list(getattr(module, "__dict__", {}).items()):
                if strict or callable(value) or isinstance(value, types.ModuleType):
                    self.globals[(name, key)] = value
                if strict and isinstance(value, (list, dict, set, tuple)) and key not in _CACHES:
                    self.data[(name, key)] = self._fingerprint(value)
                if isinstance(value, type) and id(value) not in self.classes and not _checker_helper(value):
                    self.classes[id(value)] = (value, dict(value.__dict__))
                if isinstance(value, types.FunctionType) and id(value) not in self.functions:
                    self.functions[id(value)] = (value, value.__code__, value.__defaults__, value.__kwdefaults__,
                                                 self._cells(value) if strict else None)

    def _strict(self, module) -> bool:
        return (getattr(module, "__file__", None) or "").startswith(self.exercises_dir)

    @staticmethod
    def _fingerprint(value) -> str:
        try:
            return repr(value)
        except Exception:   # noqa: BLE001
            return ""

    @staticmethod
    def _cells(function) -> tuple:
        return tuple(id(cell.cell_contents) if _has_contents(cell) else None for cell in function.__closure__ or ())

    def changes(self) -> list[str]:
        """What differs now: one reason per change, named."""
        found = []
        for name, module in self.modules.items():
            if sys.modules.get(name) is not module:
                found.append(f"sys.modules[{name!r}] was replaced")
        for (name, key), value in self.globals.items():
            module = self.modules[name]
            if module.__dict__.get(key, _MISSING) is not value:
                found.append(f"{name}.{key} was replaced")
        for (name, key), fingerprint in self.data.items():
            if self._fingerprint(self.modules[name].__dict__.get(key)) != fingerprint:
                found.append(f"{name}.{key} was changed")
        for klass, attributes in self.classes.values():
            now = klass.__dict__
            for key, value in attributes.items():
                if now.get(key, _MISSING) is not value and _behaves(value, now.get(key)):
                    found.append(f"{klass.__module__}.{klass.__qualname__}.{key} was replaced")
            for key in set(now) - set(attributes):
                if not key.startswith("_abc_") and key not in ("__annotations__",) and _is_override(klass, key):
                    found.append(f"{klass.__module__}.{klass.__qualname__}.{key} was added")
        for function, code, defaults, kwdefaults, cells in self.functions.values():
            if (function.__code__ is not code or function.__defaults__ is not defaults
                    or function.__kwdefaults__ is not kwdefaults
                    or (cells is not None and self._cells(function) != cells)):
                found.append(f"{function.__module__}.{function.__qualname__} was changed")
        return found[:20]


_MISSING = object()
_CACHES = {"_catalogs"}      # the checkers' caches, filled as they run (translations built on first use)


def _has_contents(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _behaves(*values) -> bool:
    """Whether replacing a class attribute changes behaviour: a method, a descriptor or a class
    was involved (a class's own counters and caches change as it runs)."""
    return any(callable(value) or hasattr(type(value), "__get__") for value in values
               if value is not None and value is not _MISSING)


def _is_override(klass, key: str) -> bool:
    """A name added to a class after the snapshot matters when it changes behaviour: a method or
    a descriptor (a cache a library adds for itself, such as copyreg's ``__slotnames__``, does not)."""
    return _behaves(klass.__dict__[key])


def _checker_helper(klass: type) -> bool:
    """A checker's own helper class (in ``nbNN.py``), whose attributes the checker sets as it runs."""
    return str(getattr(klass, "__module__", "")).startswith("minigrad.exercises.nb")


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "child":
    _child(int(sys.argv[2]))
