"""Mutation testing of every exercise checker: ``python -m tools.mutants``.

For every "Your turn" of the English notebooks, the reference answer (the cell tagged
``solution``, read from the notebook, so a changed answer is followed) is rewritten many ways by
small AST rewrites: sign flips, swapped operands and transposes, dropped terms and statements,
``detach()``/``.data`` inserted, per-call state moved to a module-level global, None and zeros
swapped, grad mode left off, ``torch.autograd.grad`` substituted for the derivation,
``retain_graph`` replaced, constants changed... Each mutant runs through the real checker, in a
fresh namespace built as the notebook builds it (its set-up cell and the earlier cells that define
what the answer and its check call use), in a forked process with a timeout.

- A mutant the checker rejects is **killed**; one it accepts is a **survivor**: a false verdict,
  unless a rule of :data:`EQUIVALENCE_RULES` shows that it still computes the right thing the right
  way. Such a mutant is **equivalent** and excluded, with the rule's reason.
- **Right rewrites** (:data:`RIGHT_REWRITES`: the answer written another way: a number as a float,
  a 0-d tensor or a 0-d numpy array, the other Function style, numpy inside forward, broadcasting)
  must be accepted.

``python -m tools.mutants`` (``make mutants``) prints a table per exercise and names every
survivor and rejected right rewrite (``--list``: with its code; ``--equivalent``: every excluded
mutant with its rule's reason). It fails on any false verdict that
``tests/exercises/known_false_verdicts.json`` does not list, and on a listed one that is fixed
(``--known`` prints the list as this run finds it). ``tests/exercises/test_mutants.py`` asserts the
same, on a fixed sample in ``make test`` (:func:`sample`).
"""
from __future__ import annotations

import argparse
import ast
import builtins
import contextlib
import copy
import io
import json
import os
import re
import select
import signal
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
TIMEOUT = 10.0          # seconds for one mutant: a mutant that loops forever is rejected by grading too
KNOWN = Path(__file__).resolve().parent.parent / "tests" / "exercises" / "known_false_verdicts.json"


# --------------------------------------------------------------------------- the exercises
@dataclass
class Exercise:
    """One "Your turn": its reference answer, its check call and the code it runs after."""

    key: str            # "06.2": notebook 06, check.your_turn_2
    notebook: str       # "06_needs_input_grad_and_friends"
    call: str           # "check.your_turn_2(MySort)"
    solution: str       # the solution cell without its check call
    context: list[str]  # the notebook's earlier cells the answer and its check need, in order
    starter: str = ""   # the cell tagged exercise: what the learner is given


def _tags(cell) -> list:
    return cell.get("metadata", {}).get("tags", [])


def _source(cell) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _runnable(source: str) -> str:
    """A cell's source without IPython's magics and shell lines (Python cannot run them)."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def bound_and_used(source: str) -> tuple[set, set]:
    """The names a cell binds at any level, and the names it reads that it does not bind."""
    tree = ast.parse(source)
    bound, used = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (used if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
    return bound, used - bound - set(dir(builtins))


def context_cells(code_cells: list[str], needed: set) -> list[str]:
    """The earliest cell (the set-up) and every earlier cell that binds a name the answer needs,
    followed back through what those cells need in turn, in notebook order."""
    chosen, needed = [], set(needed)
    for source in reversed(code_cells[1:]):
        try:
            bound, used = bound_and_used(source)
        except SyntaxError:
            continue
        top_level = {name for name in bound if re.search(rf"^(class |def )?{re.escape(name)}\b", source, re.M)}
        if top_level & needed:
            chosen.append(source)
            needed = (needed - top_level) | used
    return code_cells[:1] + list(reversed(chosen))


def exercises(notebooks: Path = NOTEBOOKS) -> list[Exercise]:
    """Every exercise of the English notebooks, in order."""
    from tools.nbgrader_course import check_call, worked_solution
    found = []
    for path in sorted(notebooks.glob("[0-9][0-9]_*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        code = [(i, _runnable(_source(c))) for i, c in enumerate(cells) if c["cell_type"] == "code"]
        for index, cell in enumerate(cells):
            if "solution" not in _tags(cell):
                continue
            number, call = check_call(_source(cells[index - 1]))
            solution = worked_solution(_source(cell), call)
            earlier = [source for i, source in code if i < index - 2]
            _, needed = bound_and_used(solution + "\n" + call)
            found.append(Exercise(f"{path.name[:2]}.{number}", path.stem, call, solution,
                                  context_cells(earlier, needed), _runnable(_source(cells[index - 2]))))
    return found


# --------------------------------------------------------------------------- rewriting the answer
@dataclass
class Mutant:
    exercise: str
    rewrite: str                 # what was changed, e.g. "sign flip: + -> - (line 3)"
    source: str
    equivalent: str | None = None   # the equivalence rule's reason, when one applies
    verdict: str = ""            # "killed", "survived", "equivalent" (after running)
    output: str = ""
    run_source: str = ""         # what runs: ``source`` with the runner's probes
    whole: bool = False          # a whole-answer rewrite (the mechanism worked around), not a one-site one
    id: str = ""                 # the rewrite, numbered when an exercise has two alike: unique per exercise

    def __post_init__(self):
        self.run_source, self.source = self.source, shown(self.source)


def _parents(tree: ast.AST) -> dict:
    return {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}


def _position(tree: ast.AST, target: ast.AST) -> int:
    return next(i for i, node in enumerate(ast.walk(tree)) if node is target)


def _at(tree: ast.AST, position: int) -> ast.AST:
    return next(node for i, node in enumerate(ast.walk(tree)) if i == position)


def _replace(tree: ast.AST, old: ast.AST, new) -> None:
    """Put ``new`` (a node, a list of statements, or None to delete a statement) where ``old`` is."""
    parent = _parents(tree)[old]
    for name, value in ast.iter_fields(parent):
        if value is old:
            setattr(parent, name, new)
            return
        if isinstance(value, list) and any(item is old for item in value):
            i = next(i for i, item in enumerate(value) if item is old)
            replacement = [] if new is None else new if isinstance(new, list) else [new]
            value[i:i + 1] = replacement
            if not value and name in ("body", "orelse", "finalbody") and name == "body":
                value.append(ast.Pass())
            return
    raise LookupError("node not found in its parent")


def _expr(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def _stmts(text: str) -> list[ast.stmt]:
    return ast.parse(text).body


def _line(node: ast.AST) -> str:
    return f"line {getattr(node, 'lineno', '?')}"


def _enclosing_function(parents: dict, node: ast.AST):
    while node in parents:
        node = parents[node]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return node
    return None


def _enclosing_class(parents: dict, node: ast.AST):
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.ClassDef):
            return node
    return None


def _parameters(function) -> list[str]:
    return [a.arg for a in function.args.posonlyargs + function.args.args] if function else []


ROLE_NAMES = {"ctx", "self", "cls", "function"}   # parameters that hold no tensor


# Each site rewrite takes (tree, node, parents) and yields (description, replacement); a
# replacement is an expression, a statement list, or None (the statement deleted).
BINOP_FLIPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.Pow: ast.Mult}
COMMUTATIVE = (ast.Add, ast.Mult, ast.BitOr, ast.BitAnd)


def _symbol(op) -> str:
    return {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**", ast.MatMult: "@",
            ast.FloorDiv: "//", ast.Mod: "%"}.get(type(op), type(op).__name__)


def binop_rewrites(tree, node, parents):
    if not isinstance(node, ast.BinOp):
        return
    flip = BINOP_FLIPS.get(type(node.op))
    if flip:
        yield (f"operator {_symbol(node.op)} -> {_symbol(flip())} ({_line(node)})",
               ast.BinOp(node.left, flip(), node.right))
    yield f"operands of {_symbol(node.op)} swapped ({_line(node)})", ast.BinOp(node.right, node.op, node.left)
    if isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        yield f"term dropped: {ast.unparse(node.right)} ({_line(node)})", node.left
        yield f"term dropped: {ast.unparse(node.left)} ({_line(node)})", node.right


def unary_rewrites(tree, node, parents):
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        yield f"sign dropped: {ast.unparse(node)} ({_line(node)})", node.operand


def return_rewrites(tree, node, parents):
    if not isinstance(node, ast.Return) or node.value is None:
        return
    values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
    for i, value in enumerate(values):
        if isinstance(value, ast.Constant) and value.value is None:
            continue
        negated = copy.deepcopy(node)
        target = negated.value.elts if isinstance(negated.value, ast.Tuple) else None
        if target is not None:
            target[i] = ast.UnaryOp(ast.USub(), target[i])
        else:
            negated.value = ast.UnaryOp(ast.USub(), negated.value)
        yield f"sign flip: return -({ast.unparse(value)}) ({_line(node)})", negated
    if isinstance(node.value, ast.Tuple) and len(values) >= 2:
        swapped = copy.deepcopy(node)
        swapped.value.elts[0], swapped.value.elts[1] = swapped.value.elts[1], swapped.value.elts[0]
        yield f"returned values swapped ({_line(node)})", swapped


def constant_rewrites(tree, node, parents):
    if not isinstance(node, ast.Constant) or isinstance(parents.get(node), ast.Expr):
        return   # a docstring or a lone constant statement
    value = node.value
    if isinstance(value, bool):
        yield f"constant {value} -> {not value} ({_line(node)})", ast.Constant(not value)
    elif isinstance(value, (int, float)):
        changed = value + 1
        yield f"constant {value!r} -> {changed!r} ({_line(node)})", ast.Constant(changed)
        if value != 0:
            yield f"constant {value!r} -> {-value!r} ({_line(node)})", ast.Constant(-value)
    elif isinstance(value, str) and len(value) == 1 and value.isalpha():
        for other in "ABC":
            if other != value:
                yield f"constant {value!r} -> {other!r} ({_line(node)})", ast.Constant(other)


def sequence_rewrites(tree, node, parents):
    """List and tuple literals of an answer: an element dropped, two neighbours swapped."""
    if not isinstance(node, (ast.List, ast.Tuple)) or not isinstance(node.ctx, ast.Load):
        return
    if isinstance(parents.get(node), ast.Return):
        return   # a returned tuple: return_rewrites
    if len(node.elts) < 2 or any(isinstance(e, ast.Starred) for e in node.elts):
        return
    for i in range(len(node.elts)):
        shorter = copy.deepcopy(node)
        del shorter.elts[i]
        yield f"element dropped: {ast.unparse(node.elts[i])} ({_line(node)})", shorter
    for i in range(len(node.elts) - 1):
        swapped = copy.deepcopy(node)
        swapped.elts[i], swapped.elts[i + 1] = swapped.elts[i + 1], swapped.elts[i]
        yield f"elements {i} and {i + 1} swapped ({_line(node)})", swapped


MATRIX_METHODS = {"mm", "matmul", "dot", "mv", "bmm"}


def call_rewrites(tree, node, parents):
    if not isinstance(node, ast.Call):
        return
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in MATRIX_METHODS and len(node.args) == 1:
        yield (f"operands of .{func.attr} swapped ({_line(node)})",
               ast.Call(ast.Attribute(node.args[0], func.attr, ast.Load()), [func.value], node.keywords))
        yield (f"transpose added: {ast.unparse(func.value)}.t() ({_line(node)})",
               ast.Call(ast.Attribute(_expr(f"({ast.unparse(func.value)}).t()"), func.attr, ast.Load()),
                        node.args, node.keywords))
        yield (f"transpose added: {ast.unparse(node.args[0])}.t() ({_line(node)})",
               ast.Call(func, [_expr(f"({ast.unparse(node.args[0])}).t()")], node.keywords))
    if isinstance(func, ast.Attribute) and func.attr == "popleft" and not node.args:
        yield (f"breadth-first turned depth-first: {ast.unparse(func.value)}.pop() ({_line(node)})",
               ast.Call(ast.Attribute(func.value, "pop", ast.Load()), [], []))
    if isinstance(func, ast.Attribute) and func.attr in ("t", "T") and not node.args:
        yield f"transpose dropped: {ast.unparse(node)} ({_line(node)})", func.value
    positional = [a for a in node.args if not isinstance(a, ast.Starred)]
    if len(positional) == len(node.args) >= 2 and not _is_constructor(node):
        swapped = copy.deepcopy(node)
        swapped.args[0], swapped.args[1] = swapped.args[1], swapped.args[0]
        yield f"arguments swapped: {ast.unparse(swapped)} ({_line(node)})", swapped
    for keyword in node.keywords:
        if keyword.arg == "retain_graph":
            without = copy.deepcopy(node)
            without.keywords = [k for k in without.keywords if k.arg != "retain_graph"]
            create = copy.deepcopy(without)
            create.keywords.append(ast.keyword("create_graph", ast.Constant(True)))
            yield f"retain_graph=True -> create_graph=True ({_line(node)})", create
            yield f"retain_graph dropped ({_line(node)})", without


def _is_constructor(call: ast.Call) -> bool:
    name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    return name in {"tensor", "Tensor", "Parameter", "cat", "stack", "arange", "range", "zip", "isinstance",
                    "setattr", "getattr", "Linear", "rand", "randn", "ones", "zeros", "print", "super", "deque"}


def detach_rewrites(tree, node, parents):
    """A parameter (or ``self.attr``) read through ``.detach()`` or ``.data``."""
    if not isinstance(getattr(node, "ctx", None), ast.Load):
        return
    function = _enclosing_function(parents, node)
    if function is None:
        return
    if isinstance(node, ast.Name):
        if node.id not in _parameters(function) or node.id in ROLE_NAMES:
            return
    elif isinstance(node, ast.Attribute):
        if not (isinstance(node.value, ast.Name) and node.value.id == "self"):
            return
        if isinstance(parents.get(node), ast.Call) and parents[node].func is node:
            return   # a method call
    else:
        return
    parent = parents.get(node)
    if isinstance(parent, ast.Attribute) and parent.attr in ("detach", "data", "shape"):
        return
    text = ast.unparse(node)
    yield f"{text}.detach() ({_line(node)})", _expr(f"{PROBE}({text}).detach()")
    yield f"{text}.data ({_line(node)})", _expr(f"{PROBE}({text}).data")


PROBE = "_mutant_requires_grad_probe"   # records whether the value it passes on requires grad


class _Unprobe(ast.NodeTransformer):
    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == PROBE:
            return node.args[0]
        return node


def shown(source: str) -> str:
    """A mutant's source as a learner would write it (without the probe the runner adds)."""
    return ast.unparse(_Unprobe().visit(ast.parse(source))) if PROBE in source else source


def statement_rewrites(tree, node, parents):
    """A statement of a function's body deleted; an ``if`` run always or never."""
    function = _enclosing_function(parents, node)
    if function is None or not isinstance(node, ast.stmt) or isinstance(node, ast.Return):
        return
    parent = parents.get(node)
    body = getattr(parent, "body", None)
    if isinstance(node, (ast.Assign, ast.Expr, ast.AugAssign, ast.If, ast.For, ast.While, ast.With)) \
            and isinstance(body, list) and node in body:
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
            yield f"statement dropped: {ast.unparse(node).splitlines()[0]} ({_line(node)})", None
    if isinstance(node, ast.If):
        yield f"condition always true: {ast.unparse(node.test)} ({_line(node)})", list(node.body)
    if isinstance(node, ast.With) and "no_grad" in ast.unparse(node.items[0].context_expr):
        yield (f"grad mode left off: torch.set_grad_enabled(False) instead of `with` ({_line(node)})",
               _stmts("torch.set_grad_enabled(False)") + list(node.body))
        yield f"no_grad block removed ({_line(node)})", list(node.body)


def none_rewrites(tree, node, parents):
    """None and zeros swapped: None where a gradient or a value is returned, zeros where None is."""
    function = _enclosing_function(parents, node)
    if function is None:
        return
    tensors = [p for p in _parameters(function) if p not in ROLE_NAMES]
    if isinstance(node, ast.Constant) and node.value is None and tensors:
        model = tensors[0]
        yield f"None -> torch.zeros_like({model}) ({_line(node)})", _expr(f"torch.zeros_like({model})")
        yield f"None -> 0 ({_line(node)})", ast.Constant(0)
    if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("zeros_like"):
        yield f"{ast.unparse(node)} -> None ({_line(node)})", ast.Constant(None)


SITE_REWRITES = [binop_rewrites, unary_rewrites, return_rewrites, constant_rewrites, sequence_rewrites,
                 call_rewrites, detach_rewrites, statement_rewrites, none_rewrites]


def site_mutants(source: str) -> Iterator[tuple[str, str]]:
    """Every one-site rewrite of ``source``: (description, new source)."""
    tree = ast.parse(source)
    parents = _parents(tree)
    for node in list(ast.walk(tree)):
        for rewrite in SITE_REWRITES:
            for description, replacement in rewrite(tree, node, parents):
                mutated = copy.deepcopy(tree)
                _replace(mutated, _at(mutated, _position(tree, node)), copy.deepcopy(replacement))
                try:
                    text = ast.unparse(ast.fix_missing_locations(mutated))
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        compile(text, "<mutant>", "exec")
                except (SyntaxError, ValueError, TypeError):
                    continue
                yield description, text


# ---- whole-answer rewrites: the mechanism the exercise teaches, worked around
class _CtxToGlobal(ast.NodeTransformer):
    """``ctx.name`` -> a module-level global ``_ctx_name``; ``ctx.save_for_backward(...)`` ->
    ``_ctx_saved = (...)`` and ``ctx.saved_tensors`` -> ``_ctx_saved``."""

    def __init__(self):
        self.names = set()

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        stored = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
                  and n.id.startswith("_ctx_")}
        if stored:
            node.body.insert(0, ast.Global(sorted(stored)))
        return node

    def visit_Expr(self, node):
        self.generic_visit(node)
        call = node.value
        if isinstance(call, ast.Call) and ast.unparse(call.func) == "ctx.save_for_backward":
            self.names.add("saved")
            return ast.Assign([ast.Name("_ctx_saved", ast.Store())], ast.Tuple(call.args, ast.Load()))
        return node

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if isinstance(node.value, ast.Name) and node.value.id == "ctx" and not node.attr.startswith(
                ("save_for_backward", "mark_", "set_materialize", "needs_input_grad")):
            name = "saved" if node.attr == "saved_tensors" else node.attr
            self.names.add(name)
            return ast.Name(f"_ctx_{name}", type(node.ctx)())
        return node


class _CtxToList(_CtxToGlobal):
    """The per-call record in a module-level list, with only its index on ctx."""

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        return node

    def visit_Expr(self, node):
        self.generic_visit(node)
        call = node.value
        if isinstance(call, ast.Call) and ast.unparse(call.func) == "ctx.save_for_backward":
            return _stmts(f"_RECORDS.append(({', '.join(ast.unparse(a) for a in call.args)},)); "
                          "ctx.saved_index = len(_RECORDS) - 1")
        return node

    def visit_Assign(self, node):
        self.generic_visit(node)
        target = node.targets[0]
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "ctx":
            return _stmts(f"_RECORDS.append({ast.unparse(node.value)}); ctx.{target.attr}_index = len(_RECORDS) - 1")
        return node

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if isinstance(node.value, ast.Name) and node.value.id == "ctx" and isinstance(node.ctx, ast.Load):
            if node.attr == "saved_tensors":
                return _expr("_RECORDS[ctx.saved_index]")
            if not node.attr.startswith(("save_for_backward", "mark_", "set_materialize", "needs_input_grad")) \
                    and not node.attr.endswith("_index"):
                return _expr(f"_RECORDS[ctx.{node.attr}_index]")
        return node


def _changed(source: str, transformer: ast.NodeTransformer, prologue: str = "") -> str | None:
    tree = ast.parse(source)
    before = ast.dump(tree)
    tree = transformer.visit(tree)
    if ast.dump(tree) == before:
        return None
    return prologue + ast.unparse(ast.fix_missing_locations(tree))


def _functions(tree) -> Iterator[tuple[ast.ClassDef, dict]]:
    """Each autograd Function class of an answer, with its methods by name."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            methods = {m.name: m for m in node.body if isinstance(m, ast.FunctionDef)}
            if "backward" in methods and "forward" in methods:
                yield node, methods


def autograd_grad_backward(source: str) -> str | None:
    """backward replaced by ``torch.autograd.grad`` of forward's expression, recomputed from the
    inputs: the right numbers, and no derivation at all."""
    tree = ast.parse(source)
    done = False
    for klass, methods in _functions(tree):
        forward, backward = methods["forward"], methods["backward"]
        params = _parameters(forward)
        combined = params[:1] == ["ctx"]
        inputs = params[1:] if combined else params
        returns = [n for n in ast.walk(forward) if isinstance(n, ast.Return) and n.value is not None]
        if len(returns) != 1 or isinstance(returns[0].value, ast.Tuple):
            continue
        keep = _stmts(f"ctx.mutant_inputs = ({', '.join(inputs)},)")
        if combined:
            forward.body[:0] = keep
        elif "setup_context" in methods:
            methods["setup_context"].body[:0] = _stmts(f"({', '.join(inputs)},) = inputs") + keep
        else:
            continue
        grads = _parameters(backward)[1]
        recompute = ast.unparse(returns[0].value)
        backward.body = _stmts(
            f"with torch.enable_grad():\n"
            f"    leaves = [t.detach().requires_grad_() if isinstance(t, torch.Tensor) and t.is_floating_point()"
            f" else t for t in ctx.mutant_inputs]\n"
            f"    ({', '.join(inputs)},) = leaves\n"
            f"    output = {recompute}\n"
            f"    wanted = [t for t in leaves if isinstance(t, torch.Tensor) and t.requires_grad]\n"
            f"    found = iter(torch.autograd.grad(output, wanted, {grads}))\n"
            f"grads = tuple(next(found) if isinstance(t, torch.Tensor) and t.requires_grad else None for t in leaves)\n"
            f"return grads if len(grads) > 1 else grads[0]")
        done = True
    return ast.unparse(ast.fix_missing_locations(tree)) if done else None


def shared_instance(source: str) -> Iterator[tuple[str, str]]:
    """A fresh per-call object (``ctx = cls()``, ``Ctx()``, ``cls._backward_cls()``) made once and
    kept in a module-level global: every call shares one record."""
    tree = ast.parse(source)
    parents = _parents(tree)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                and _enclosing_function(parents, node) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            continue
        maker = ast.unparse(node.value.func)
        last = maker.rsplit(".", 1)[-1]
        if not (last[:1].isupper() or last in ("cls", "_backward_cls")):
            continue
        name = node.targets[0].id
        mutated = copy.deepcopy(tree)
        _replace(mutated, _at(mutated, _position(tree, node)), _stmts(
            f"global _SHARED\nif _SHARED is None:\n    _SHARED = {ast.unparse(node.value)}\n{name} = _SHARED"))
        yield (f"one shared {maker}() for every call, in a module-level global ({_line(node)})",
               "_SHARED = None\n" + ast.unparse(ast.fix_missing_locations(mutated)))


def rebuilt_graph(source: str) -> Iterator[tuple[str, str]]:
    """``retain_graph=True`` dropped, and the graph rebuilt before the next backward by running the
    statements that made it again."""
    tree = ast.parse(source)
    for function in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
        for i, statement in enumerate(function.body):
            if "retain_graph" not in ast.unparse(statement):
                continue
            mutated = copy.deepcopy(tree)
            body = next(n for n in ast.walk(mutated) if isinstance(n, ast.FunctionDef)
                        and n.name == function.name).body
            body[i] = _stmts(ast.unparse(statement).replace("retain_graph=True", ""))[0]
            again = [copy.deepcopy(s) for s in body[:i] if isinstance(s, ast.Assign)]
            body[i + 1:i + 1] = again
            yield (f"retain_graph dropped, the graph rebuilt by running {len(again)} statement(s) again",
                   ast.unparse(ast.fix_missing_locations(mutated)))


def whole_mutants(source: str) -> Iterator[tuple[str, str]]:
    globalised = _changed(source, _CtxToGlobal(), "")
    if globalised:
        names = sorted({m for m in re.findall(r"\b_ctx_\w+", globalised)})
        prologue = "".join(f"{name} = None\n" for name in names)
        yield "per-call state moved from ctx to module-level globals", prologue + globalised
    listed = _changed(source, _CtxToList(), "_RECORDS = []\n")
    if listed:
        yield "per-call state in a module-level list, only its index on ctx", listed
    derived = autograd_grad_backward(source)
    if derived:
        yield "backward by torch.autograd.grad of forward recomputed, nothing derived", derived
    yield from shared_instance(source)
    yield from rebuilt_graph(source)
    yield from grad_mode_left_off(source)


def mechanism_mutants(exercise: Exercise) -> Iterator[tuple[str, str]]:
    """The starter as given, and the builtin way around what the exercise asks to write
    (:data:`SUBSTITUTIONS`)."""
    if exercise.starter.strip():
        yield "the starter cell, unchanged", exercise.starter
    for description, rewrite in SUBSTITUTIONS.get(exercise.key, []):
        source = rewrite(exercise.solution)
        if source is not None:
            yield description, source


def grad_mode_left_off(source: str) -> Iterator[tuple[str, str]]:
    """``torch.set_grad_enabled(False)`` at the start of one of the answer's functions, never undone."""
    tree = ast.parse(source)
    for position, node in enumerate(ast.walk(tree)):
        if isinstance(node, ast.FunctionDef):
            mutated = copy.deepcopy(tree)
            function = _at(mutated, position)
            documented = isinstance(function.body[0], ast.Expr) and isinstance(function.body[0].value, ast.Constant)
            function.body[documented:documented] = _stmts("torch.set_grad_enabled(False)")
            yield (f"grad mode switched off in {node.name} and left off ({_line(node)})",
                   ast.unparse(ast.fix_missing_locations(mutated)))


# The builtin way around each exercise's mechanism, as edits of the reference (an edit whose text
# is gone from a changed reference yields no mutant; the starter mutant still runs).
SUBSTITUTIONS: dict[str, list[tuple[str, Callable[[str], str | None]]]] = {}


# --------------------------------------------------------------------------- equivalence rules
def _reads(source: str) -> set:
    """Names and ``obj.attr`` attribute names the source reads."""
    tree = ast.parse(source)
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    attrs = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)}
    return names | attrs


def _dead_store(exercise: Exercise, mutant: Mutant) -> bool:
    """A dropped statement that only stores what nothing reads (the answer nor its check)."""
    match = re.match(r"statement dropped: (.*) \(line", mutant.rewrite)
    if not match:
        return False
    try:
        statement = ast.parse(match.group(1)).body[0]
    except SyntaxError:
        return False
    if not isinstance(statement, ast.Assign):
        return False
    stored = set()
    for target in statement.targets:
        for node in ast.walk(target):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                stored.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                stored.add(node.attr)
    return bool(stored) and not stored & _reads(exercise.solution + "\n" + exercise.call) - \
        {n.id for n in ast.walk(statement.value) if isinstance(n, ast.Name)}


def _detach_in_forward(exercise: Exercise, mutant: Mutant) -> bool:
    """``.detach()``/``.data`` on a value read inside a Function's forward, where it is neither
    saved, marked nor returned as is: forward runs with grad mode off, so nothing changes."""
    match = re.match(r"(.+)\.(detach\(\)|data) \(line (\d+)\)", mutant.rewrite)
    if not match:
        return False
    tree = ast.parse(exercise.solution)
    parents = _parents(tree)
    line = int(match.group(3))
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) == line and ast.unparse(node) == match.group(1):
            function = _enclosing_function(parents, node)
            if function is None or function.name != "forward" or not _enclosing_class(parents, node):
                return False
            statement = node
            while not isinstance(statement, ast.stmt):
                statement = parents[statement]
            text = ast.unparse(statement)
            kept = re.search(r"save_for_backward|mark_dirty|mark_non_differentiable", text)
            returned_as_is = isinstance(statement, ast.Return) and statement.value is node
            return not kept and not returned_as_is
    return False


def _commutative_swap(exercise: Exercise, mutant: Mutant) -> bool:
    """Operands of ``+`` or ``*`` swapped: the same value (the engine's gradients do not depend on
    the order)."""
    return bool(re.match(r"operands of [+*] swapped", mutant.rewrite))


def _function_methods(source: str) -> dict:
    """``{line: method name}`` for every line of an autograd Function's methods."""
    lines = {}
    for klass, methods in _functions(ast.parse(source)):
        for name, method in methods.items():
            lines.update({line: name for line in range(method.lineno, method.end_lineno + 1)})
    return lines


def _rewrite_line(mutant: Mutant) -> int | None:
    match = re.search(r"\(line (\d+)\)$", mutant.rewrite)
    return int(match.group(1)) if match else None


def _guarded_grad_mode(exercise: Exercise, mutant: Mutant) -> bool:
    """Grad mode switched off inside a Function's forward, setup_context or backward."""
    match = re.match(r"grad mode switched off in (forward|setup_context|backward) ", mutant.rewrite)
    return bool(match) and _function_methods(exercise.solution).get(_rewrite_line(mutant)) == match.group(1)


def _unread_ctx_state(exercise: Exercise, mutant: Mutant) -> bool:
    """ctx's per-call state moved elsewhere when backward reads none of it."""
    if not mutant.rewrite.startswith("per-call state"):
        return False
    tree = ast.parse(exercise.solution)
    uses = [node for node in ast.walk(tree) if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name) and node.value.id == "ctx"]
    stored = {n.attr for n in uses if isinstance(n.ctx, ast.Store)}
    read = {n.attr for n in uses if isinstance(n.ctx, ast.Load)}
    return bool(stored) and not stored & read and "save_for_backward" not in read


def _first_order_detach(exercise: Exercise, mutant: Mutant) -> bool:
    """A Function that saves a detached tensor, or detaches inside backward, before notebook 08."""
    if int(exercise.key[:2]) >= 8 or not re.search(r"\.(detach\(\)|data) \(line", mutant.rewrite):
        return False
    method = _function_methods(exercise.solution).get(_rewrite_line(mutant))
    line = exercise.solution.splitlines()[_rewrite_line(mutant) - 1]
    return method == "backward" or (method in ("forward", "setup_context") and "save_for_backward" in line)


def _random_start(exercise: Exercise, mutant: Mutant) -> bool:
    """A rewrite of how a Module's ``__init__`` draws its random initial weights."""
    tree = ast.parse(exercise.solution)
    line = _rewrite_line(mutant)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            drawing = [s for s in node.body if "rand" in ast.unparse(s)]
            read_there = {n.id for s in drawing for n in ast.walk(s) if isinstance(n, ast.Name)}
            helpers = [s for s in node.body if isinstance(s, ast.Assign) and
                       {ast.unparse(t) for t in s.targets} <= read_there]
            lines = {i for s in drawing + helpers for i in range(s.lineno, s.end_lineno + 1)}
            if line in lines and not mutant.rewrite.startswith(("statement dropped", "grad mode")):
                return True
    return False


def _symmetric_transpose(exercise: Exercise, mutant: Mutant) -> bool:
    """The row and column indices of a COO matrix swapped, where the answer builds a symmetric
    matrix (Â = D^-1/2 (A + I) D^-1/2 is its own transpose)."""
    return exercise.key == "09.1" and bool(re.match(r"elements 0 and 1 swapped", mutant.rewrite)) and \
        "indices = torch.stack([cols, rows])" in mutant.source


def _nothing_to_derive(exercise: Exercise, mutant: Mutant) -> bool:
    """autograd.grad substituted in a backward that derives nothing: it returns its gradient as is."""
    if not mutant.rewrite.startswith("backward by torch.autograd.grad"):
        return False
    for klass, methods in _functions(ast.parse(exercise.solution)):
        backward = methods["backward"]
        returns = [n for n in ast.walk(backward) if isinstance(n, ast.Return)]
        grads = _parameters(backward)[1:]
        if not all(isinstance(r.value, ast.Name) and r.value.id in grads for r in returns):
            return False
    return True


EQUIVALENCE_RULES: list[tuple[Callable[[Exercise, Mutant], bool], str]] = [
    (_guarded_grad_mode, "apply and the engine run forward, setup_context and backward inside a guard "
                         "that restores grad mode (PyTorch 2.13 and minigrad alike)"),
    (_unread_ctx_state, "the ctx attributes moved are never read: no per-call state is at stake"),
    (_first_order_detach, "only double backward differs, which notebook 08 (gradgradcheck) first asks for"),
    (_random_start, "only the random initial weights change (range or sign): the layer is right for any weights"),
    (_symmetric_transpose, "Â is symmetric: swapping its rows and columns gives the same matrix"),
    (_nothing_to_derive, "the reference backward derives nothing (it returns its gradient as is)"),
    (_commutative_swap, "+ and * are commutative: swapping their operands changes nothing"),
    (_dead_store, "the dropped statement stores a name or attribute that nothing reads"),
    (_detach_in_forward, "forward runs with grad mode off: detaching a value it neither saves, "
                         "marks nor returns as is changes nothing"),
]


# Rules that need the mutant's run (it was accepted) and the reference answer's run.
VALUE_REWRITES = re.compile(r"(operator|operands|term dropped|constant|element|arguments swapped|transpose|"
                            r"sign|returned values swapped|None -> |\S+zeros_like\(.*\) -> None)")


def _same_values(exercise: Exercise, mutant: Mutant, run: Run, reference: Run) -> bool:
    return bool(VALUE_REWRITES.match(mutant.rewrite)) and run.values == reference.values


def _detached_nothing(exercise: Exercise, mutant: Mutant, run: Run, reference: Run) -> bool:
    """A detach of values that never required grad in the check: integer tensors (which cannot), or
    before notebook 08 any (only a double backward could have made them require grad)."""
    return bool(re.search(r"\.(detach\(\)|data) \(line", mutant.rewrite)) and bool(run.probed) \
        and not any(requires for requires, _ in run.probed) \
        and (int(exercise.key[:2]) < 8 or not any(floating for _, floating in run.probed))


def _same_values_outside_functions(exercise: Exercise, mutant: Mutant, run: Run, reference: Run) -> bool:
    return bool(re.search(r"\.(detach\(\)|data) \(line", mutant.rewrite)) and run.values == reference.values \
        and _rewrite_line(mutant) not in _function_methods(exercise.solution)


RUN_EQUIVALENCE_RULES: list[tuple[Callable[[Exercise, Mutant, Run, Run], bool], str]] = [
    (_same_values, "an arithmetic rewrite under which every value the answer's code returned, on every "
                   "call the checker made, is the reference answer's"),
    (_detached_nothing, "the value detached never required grad when the checker ran it (an integer "
                        "tensor, or before notebook 08 asks for double backward): detach is the identity on it"),
    (_same_values_outside_functions, "a detach in a plain function (no autograd Function's method) under "
                                     "which every value it returned, requires_grad included, is the reference's"),
]


def mutants(exercise: Exercise) -> list[Mutant]:
    """Every mutant of ``exercise``'s reference answer, each with its equivalence reason if one applies."""
    made, seen, ids = [], {ast.dump(ast.parse(exercise.solution))}, set()
    generated = [(d, s, False) for d, s in site_mutants(exercise.solution)] + \
        [(d, s, True) for d, s in whole_mutants(exercise.solution)] + \
        [(d, s, True) for d, s in mechanism_mutants(exercise)]
    for description, source, whole in generated:
        key = ast.dump(ast.parse(source))
        if key in seen:
            continue
        seen.add(key)
        mutant = Mutant(exercise.key, description, source, whole=whole)
        mutant.id = next(f"{description} #{n}" if n > 1 else description for n in range(1, 99)
                         if (f"{description} #{n}" if n > 1 else description) not in ids)
        ids.add(mutant.id)
        mutant.equivalent = next((reason for rule, reason in EQUIVALENCE_RULES if rule(exercise, mutant)), None)
        made.append(mutant)
    return made


# --------------------------------------------------------------------------- right rewrites
def _rewriting(edit: Callable[[ast.Module], bool]) -> Callable[[str], str | None]:
    """A rewrite that edits the reference's tree in place (``edit`` returns whether it applied)."""
    def rewrite(source: str) -> str | None:
        tree = ast.parse(source)
        return "import numpy as np\n" + ast.unparse(tree) if edit(tree) else None
    return rewrite


def _wrap_assignment(name: str, template: str) -> Callable[[str], str | None]:
    """The value assigned to ``name`` at the top level, written ``template.format(value)``."""
    def edit(tree) -> bool:
        nodes = [n for n in tree.body if isinstance(n, ast.Assign) and [ast.unparse(t) for t in n.targets] == [name]]
        for node in nodes:
            node.value = _expr(template.format(ast.unparse(node.value)))
        return bool(nodes)
    return _rewriting(edit)


def _wrap_returns(function: str, template: str) -> Callable[[str], str | None]:
    """Every value ``function`` returns, written ``template.format(value)``."""
    def edit(tree) -> bool:
        returns = [r for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function
                   for r in ast.walk(n) if isinstance(r, ast.Return) and r.value is not None]
        for node in returns:
            node.value = _expr(template.format(ast.unparse(node.value)))
        return bool(returns)
    return _rewriting(edit)


def _replace_text(*pairs: str) -> Callable[[str], str | None]:
    """The reference with each ``old`` text replaced by its ``new`` one (None when one is missing:
    the notebook's answer changed, and the rewrite must follow it)."""
    def rewrite(source: str) -> str | None:
        for old, new in zip(pairs[::2], pairs[1::2]):
            if old not in source:
                return None
            source = source.replace(old, new)
        return "import numpy as np\n" + source
    return rewrite


def _the_source(text: str) -> Callable[[str], str]:
    """An answer written wholly another way (it does not follow the reference)."""
    return lambda source: "import numpy as np\n" + text


def separate_style(source: str) -> str | None:
    """Each Function written in the combined style (``forward(ctx, ...)``) rewritten in the separate
    style: ``forward`` without ctx, and its ctx statements in ``setup_context(ctx, inputs, output)``.
    None when there is none, or when a ctx statement reads a value that is neither an input nor an output."""
    tree, done = ast.parse(source), False
    for klass, methods in _functions(tree):
        forward = methods["forward"]
        inputs = _parameters(forward)[1:]
        if _parameters(forward)[:1] != ["ctx"] or "setup_context" in methods:
            continue
        on_ctx = [s for s in forward.body if any(isinstance(n, ast.Name) and n.id == "ctx" for n in ast.walk(s))]
        kept = [s for s in forward.body if s not in on_ctx]
        if not kept or not isinstance(kept[-1], ast.Return) or kept[-1].value is None:
            return None
        value = kept[-1].value
        outputs = [ast.unparse(e) for e in value.elts] if isinstance(value, ast.Tuple) else [ast.unparse(value)]
        read = {n.id for s in on_ctx for n in ast.walk(s) if isinstance(n, ast.Name)} - {"ctx", "torch"}
        if not read <= set(inputs) | set(outputs) or not all(o.isidentifier() for o in set(outputs) & read):
            return None
        forward.args.args = forward.args.args[1:]
        forward.body = kept
        lines = [f"({', '.join(inputs)},) = inputs"] if inputs else []
        if read & (set(outputs) - set(inputs)):
            lines.append(f"{', '.join(outputs)}{',' if len(outputs) == 1 and isinstance(value, ast.Tuple) else ''} = output")
        lines += [ast.unparse(s) for s in on_ctx] or ["pass"]
        setup = _stmts("@staticmethod\ndef setup_context(ctx, inputs, output):\n" +
                       "\n".join("    " + line for line in "\n".join(lines).splitlines()))[0]
        klass.body.insert(klass.body.index(forward) + 1, setup)
        done = True
    return ast.unparse(ast.fix_missing_locations(tree)) if done else None


QUEUE_AS_LIST = """
def node_names(tensor):
    order, position = [tensor.grad_fn], 0
    while position < len(order):
        node = order[position]
        position += 1
        for next_node, _ in node.next_functions:
            if next_node is not None and next_node not in order:
                order.append(next_node)
    return [node.name() for node in order]
"""

RECURSIVE_BYTES = """
def saved_bytes(tensor):
    seen = set()

    def visit(node):
        if node is None or node in seen:
            return 0
        seen.add(node)
        own = sum(t.numel() * t.element_size() for t in node_info.saved_tensors(node) or () if t is not None)
        return own + sum(visit(n) for n, _ in node.next_functions)
    return visit(tensor.grad_fn)
"""

SUBSTITUTIONS.update({
    "02.1": [("apply and the engine instead of forward and backward by hand", _replace_text(
        "ctx = Ctx()", "x = x.detach().requires_grad_()\n    function.apply(x).backward(grad_output)\n    return x.grad\n    ctx = Ctx()"))],
    "04.2": [("the builtin apply instead of your own", _replace_text(
        "output = cls.forward(ctx, *args)", "output = cls.apply(*args)"))],
    "07.1": [("the N x N dense gradient, indexed", _replace_text(
        "return (grad_output[rows] * b[cols]).sum(1)", "return grad_output.matmul(b.t())[rows, cols]"))],
    "09.1": [("self-loops left out", _replace_text(", loops])", "])"))],
    "09.2": [("a dense Â instead of spmm", _replace_text(
        "spmm(indices, values, shape, h @ self.weight)",
        "torch.sparse_coo_tensor(indices, values, shape).to_dense() @ (h @ self.weight)"))],
    "10.1": [("the Function class itself as the record (no instance)", _replace_text(
        "ctx = cls()", "ctx = cls"))],
})


RIGHT_REWRITES: dict[str, list[tuple[str, Callable[[str], str | None]]]] = {
    "00.1": [("a tensor", _wrap_assignment("prediction", "torch.tensor({})")),
             ("a numpy array", _wrap_assignment("prediction", "np.array({})")),
             ("a tuple of ints", _replace_text("[2.0, 4.0, 6.0]", "(2, 4, 6)"))],
    "01.1": [("register_parameter", _replace_text(
                 "self.factor = torch.nn.Parameter(torch.tensor(1.0))",
                 "self.register_parameter('factor', torch.nn.Parameter(torch.tensor(1.0)))")),
             ("a 0-d tensor from torch.ones(())", _replace_text("torch.tensor(1.0)", "torch.ones(())")),
             ("x * self.factor", _replace_text("self.factor * x", "x * self.factor"))],
    "01.2": [("a tuple", _wrap_assignment("predicted_names", "tuple({})"))],
    "02.1": [("a SimpleNamespace as the record", _replace_text("ctx = Ctx()", "import types\n    ctx = types.SimpleNamespace()")),
             ("keyword arguments", _replace_text("function.backward(ctx, grad_output)",
                                                 "function.backward(ctx=ctx, grad_output=grad_output)"))],
    "02.2": [("the separate style: forward + setup_context", separate_style),
             ("x kept with save_for_backward", _replace_text(
                 "ctx.x = x", "ctx.save_for_backward(x)", "ctx.x **", "ctx.saved_tensors[0] **")),
             ("numpy inside forward", _replace_text("return x ** exponent", "return torch.from_numpy(x.numpy() ** exponent)"))],
    "03.1": [("a list as the queue", _the_source(QUEUE_AS_LIST))],
    "03.2": [("an int", _wrap_assignment("prediction", "int({})")),
             ("a 0-d numpy array", _wrap_assignment("prediction", "np.array({})")),
             ("a 0-d tensor", _wrap_assignment("prediction", "torch.tensor({})")),
             ("a numpy float", _wrap_assignment("prediction", "np.float32({})")),
             ("a 0-d tensor's item()", _wrap_assignment("prediction", "torch.tensor({}).item()"))],
    "04.1": [("torch.add, inputs indexed", _replace_text(
                 "return tensor + constant", "return torch.add(tensor, constant)",
                 "tensor, constant = inputs\n        ctx.constant = constant", "ctx.constant = inputs[1]"))],
    "04.2": [("set_grad_enabled restored in finally", _replace_text(
                 "    with torch.no_grad():                         # as in part 4: forward records nothing\n"
                 "        output = cls.forward(ctx, *args)",
                 "    previous = torch.is_grad_enabled()\n    torch.set_grad_enabled(False)\n    try:\n"
                 "        output = cls.forward(ctx, *args)\n    finally:\n        torch.set_grad_enabled(previous)")),
             ("needs_input_grad from a generator with getattr", _replace_text(
                 "isinstance(arg, torch.Tensor) and arg.requires_grad for arg in args",
                 "bool(getattr(arg, 'requires_grad', False)) for arg in args"))],
    "04.3": [("inputs indexed", _replace_text("tensor, scale, shift = inputs", "scale = inputs[1]")),
             ("the scale as a plain float", _replace_text("ctx.scale = scale", "ctx.scale = float(scale)")),
             ("the scale as a numpy float", _replace_text("ctx.scale = scale", "ctx.scale = np.float64(scale)"))],
    "05.1": [("the separate style: forward + setup_context", separate_style),
             ("numpy inside forward", _replace_text("return x ** 3", "return torch.from_numpy(x.numpy() ** 3)"))],
    "05.2": [("a 0-d tensor", _wrap_returns("saved_bytes", "torch.tensor({})")),
             ("a 0-d numpy array", _wrap_returns("saved_bytes", "np.array({})")),
             ("a float", _wrap_returns("saved_bytes", "float({})")),
             ("recursive", _the_source(RECURSIVE_BYTES))],
    "05.3": [("torch.autograd.backward", _replace_text(
                 "y.sum().backward(retain_graph=True)", "torch.autograd.backward(y.sum(), retain_graph=True)"))],
    "06.1": [("the separate style: forward + setup_context", separate_style),
             ("@ for mm", _replace_text("grad_output.mm(weight)", "grad_output @ weight")),
             ("numpy inside forward", _replace_text(
                 "return input.mm(weight.t())", "return torch.from_numpy(input.numpy() @ weight.numpy().T)"))],
    "06.2": [("the separate style: forward + setup_context", separate_style),
             ("scatter", _replace_text("grad_x.index_add_(0, indices, grad_values)",
                                       "grad_x = grad_x.scatter(0, indices, grad_values)"))],
    "06.3": [("the separate style: forward + setup_context", separate_style),
             ("x += 1", _replace_text("x.add_(1)", "x += 1"))],
    "06.4": [("the separate style: forward + setup_context", separate_style),
             ("a Python 0 broadcast as the start of the sum", _replace_text(
                 "grad = None", "grad = 0",
                 "grad = grad_double * 2", "grad = grad + grad_double * 2",
                 "grad_triple * 3 if grad is None else grad + grad_triple * 3", "grad + grad_triple * 3"))],
    "07.1": [("index_select", _replace_text(
                 "(grad_output[rows] * b[cols]).sum(1)", "(grad_output.index_select(0, rows) * b.index_select(0, cols)).sum(-1)")),
             ("einsum", _replace_text("(grad_output[rows] * b[cols]).sum(1)",
                                      "torch.einsum('ij,ij->i', grad_output[rows], b[cols])")),
             ("a product with a ones vector instead of the sum", _replace_text(
                 "(grad_output[rows] * b[cols]).sum(1)", "(grad_output[rows] * b[cols]) @ torch.ones(b.shape[1])"))],
    "07.2": [("lists instead of tuples", _rewriting(lambda tree: bool([
                 setattr(node, "__class__", ast.List) for node in ast.walk(tree.body[0].value)
                 if isinstance(node, ast.Tuple)])))],
    "08.1": [("the separate style: forward + setup_context", separate_style),
             ("grad_a as a transpose", _replace_text("b.mm(grad_output.t())", "grad_output.mm(b.t()).t()")),
             ("torch.mm", _replace_text("b.mm(grad_output.t())", "torch.mm(b, grad_output.t())")),
             ("numpy inside forward", _replace_text(
                 "return a.t().mm(b)", "return torch.from_numpy(a.numpy().T @ b.numpy())"))],
    "08.2": [("in one line", _replace_text("rows = shape[0]", "pass", "indices[1] * rows", "indices[1] * shape[0]"))],
    "08.3": [("the separate style: forward + setup_context", separate_style),
             ("input saved and read back", _replace_text(
                 "return input * 2", "ctx.save_for_backward(input)\n        return input * 2",
                 "return grad_output * 2", "input, = ctx.saved_tensors\n        return grad_output * 2"))],
    "09.1": [("degree by index_add_", _replace_text(
                 "degree = spmm(indices, torch.ones(rows.shape[0]), shape, torch.ones(num_nodes, 1))[:, 0]",
                 "degree = torch.zeros(num_nodes).index_add_(0, rows, torch.ones(rows.shape[0]))")),
             ("one power of the product", _replace_text(
                 "degree[rows].pow(-0.5) * degree[cols].pow(-0.5)", "(degree[rows] * degree[cols]).pow(-0.5)"))],
    "09.2": [("h.mm(weight)", _replace_text("h @ self.weight)", "h.mm(self.weight))"))],
    "10.1": [("in one line", _replace_text("ctx = cls()", "pass", "return ctx(x, w)", "return cls()(x, w)"))],
}


# --------------------------------------------------------------------------- running
@dataclass
class Run:
    accepted: bool | None    # None: the answer or the checker raised, or timed out
    output: str
    values: str = ""         # a digest of every value the answer's code returned while checked
    probed: list = field(default_factory=list)   # (requires_grad, floating) of each value a probe saw
    grad_enabled: bool = True   # grad mode after the check


def _digest(value, depth: int = 0):
    """A comparable summary of a value: tensors by dtype, shape, rounded values and requires_grad."""
    import numpy as np

    import minigrad as torch
    if depth > 4:
        return "..."
    if isinstance(value, torch.Tensor):
        try:
            data = np.round(np.asarray(value.detach().tolist(), dtype=np.float64), 5).tolist()
        except Exception:   # a sparse tensor or a tensor without data
            data = None
        return ("tensor", str(value.dtype), tuple(value.shape), repr(data), value.requires_grad)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_digest(v, depth + 1) for v in value))
    if isinstance(value, float):
        return round(value, 5)
    if isinstance(value, (int, str, bool, type(None))):
        return value
    if isinstance(value, np.ndarray):
        return ("ndarray", repr(np.round(value.astype(np.float64), 5).tolist()) if value.dtype.kind in "fiub" else "")
    return type(value).__name__


class _ValueRecorder:
    """Every value a function of the answer returns (a profile hook on the answer's code)."""

    def __init__(self, filename: str):
        import hashlib
        self.filename, self.hash = filename, hashlib.sha256()

    def __call__(self, frame, event, arg):
        if event == "return" and frame.f_code.co_filename == self.filename:
            try:
                self.hash.update(repr(_digest(arg)).encode())
            except Exception:
                self.hash.update(b"?")

    def add(self, value) -> None:
        self.hash.update(repr(_digest(value)).encode())


def _check_in_child(exercise: Exercise, source: str, namespace: dict) -> dict:
    import threading
    filename = f"<{exercise.key} answer>"
    out, recorder, probed = io.StringIO(), _ValueRecorder(filename), []

    def probe(value):
        floating = getattr(value, "is_floating_point", None)
        probed.append((bool(getattr(value, "requires_grad", False)), bool(floating and floating())))
        return value

    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scope = dict(namespace, **{PROBE: probe})
        sys.setprofile(recorder)
        threading.setprofile(recorder)
        try:
            exec(compile(source, filename, "exec"), scope)
            for name in _call_arguments(exercise.call):
                if not callable(scope.get(name)):
                    recorder.add(scope.get(name))
            result = eval(compile(exercise.call, f"<{exercise.key} check>", "eval"), scope)
            accepted = bool(result)
        except BaseException as error:   # the answer itself fails: the learner sees it fail
            accepted = None
            print(f"{type(error).__name__}: {error}")
        finally:
            sys.setprofile(None)
            threading.setprofile(None)
        import minigrad as torch
        grad_enabled = torch.is_grad_enabled()
    return {"accepted": accepted, "output": out.getvalue()[-2000:], "values": recorder.hash.hexdigest(),
            "probed": probed[:1000], "grad_enabled": grad_enabled}


def _call_arguments(call: str) -> list[str]:
    return [a.id for a in ast.parse(call, mode="eval").body.args if isinstance(a, ast.Name)]


def _namespace(exercise: Exercise) -> dict:
    """The notebook's namespace before the exercise: its set-up cell and the context cells, run."""
    import minigrad as torch
    torch.set_grad_enabled(True)   # as a fresh kernel has it, whatever the calling process did
    namespace = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for source in exercise.context:
            exec(compile(source, f"<{exercise.notebook}>", "exec"), namespace)
    return namespace


def _run_forked(exercise: Exercise, source: str, namespace: dict, timeout: float) -> dict:
    """Run ``source`` and the check call in a forked copy of ``namespace``, within ``timeout`` seconds."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:   # the child: run the answer, send the verdict, never return
        os.close(read)
        status = 0
        try:
            os.write(write, json.dumps(_check_in_child(exercise, source, namespace)).encode())
        except BaseException:
            status = 1
        finally:
            os._exit(status)
    os.close(write)
    chunks, deadline = [], time.monotonic() + timeout
    while True:
        ready, _, _ = select.select([read], [], [], max(deadline - time.monotonic(), 0))
        if not ready:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(read)
            return {"accepted": None, "output": f"timed out after {timeout:g} s"}
        chunk = os.read(read, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read)
    os.waitpid(pid, 0)
    return json.loads(b"".join(chunks)) if chunks else {"accepted": None, "output": "the answer's process died"}


def _preload() -> None:
    """Import minigrad and every checker once, so that each sandbox forks with them loaded."""
    import importlib
    for name in ["minigrad", "minigrad.viz", *(f"minigrad.exercises.nb{n:02d}" for n in range(11))]:
        importlib.import_module(name)


class Sandbox:
    """A process that holds one exercise's notebook namespace and runs each answer in a fork of it,
    so that neither the notebook's cells nor the answers touch the caller's process."""

    _open: set = set()   # the pipe ends every open sandbox holds: a new one closes its copies of them

    def __init__(self, exercise: Exercise, timeout: float = TIMEOUT):
        self.exercise = exercise
        _preload()
        requests_read, requests_write = os.pipe()
        replies_read, replies_write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(requests_write)
            os.close(replies_read)
            for fd in Sandbox._open:   # else an older sandbox never sees its requests end
                os.close(fd)
            status = 0
            try:
                self._serve(os.fdopen(requests_read, "rb"), os.fdopen(replies_write, "wb"), timeout)
            except BaseException:
                status = 1
            finally:
                os._exit(status)
        os.close(requests_read)
        os.close(replies_write)
        self.requests, self.replies = os.fdopen(requests_write, "wb"), os.fdopen(replies_read, "rb")
        Sandbox._open |= {requests_write, replies_read}

    def _serve(self, requests, replies, timeout: float) -> None:
        try:
            namespace, failure = _namespace(self.exercise), None
        except BaseException as error:
            namespace, failure = None, f"the notebook's cells before the exercise failed: {type(error).__name__}: {error}"
        for line in requests:
            source = json.loads(line)
            reply = {"accepted": None, "output": failure} if failure else \
                _run_forked(self.exercise, source, namespace, timeout)
            replies.write(json.dumps(reply).encode() + b"\n")
            replies.flush()

    def run(self, source: str) -> Run:
        self.requests.write(json.dumps(source).encode() + b"\n")
        self.requests.flush()
        line = self.replies.readline()
        return Run(**json.loads(line)) if line else Run(None, "the sandbox died")

    def close(self) -> None:
        Sandbox._open -= {self.requests.fileno(), self.replies.fileno()}
        self.requests.close()
        self.replies.close()
        os.waitpid(self.pid, 0)

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@dataclass
class Report:
    exercise: Exercise
    mutants: list[Mutant] = field(default_factory=list)
    right: list[tuple[str, Run]] = field(default_factory=list)
    reference: Run | None = None

    @property
    def survivors(self) -> list[Mutant]:
        return [m for m in self.mutants if m.verdict == "survived"]

    @property
    def rejected_right(self) -> list[str]:
        return [name for name, run in self.right if not run.accepted]


def judge(exercise: Exercise, mutant: Mutant, run: Run, reference: Run) -> None:
    """Set ``mutant.verdict``: killed when the checker rejects it; else equivalent when a rule
    excuses it (every rule only excuses an accepted mutant), else survived."""
    mutant.output = run.output
    if not run.accepted:
        mutant.verdict, mutant.equivalent = "killed", None
        return
    mutant.equivalent = mutant.equivalent or next(
        (reason for rule, reason in RUN_EQUIVALENCE_RULES if rule(exercise, mutant, run, reference)), None)
    mutant.verdict = "equivalent" if mutant.equivalent else "survived"


SAMPLE_EVERY = 10   # the sample make test runs: every whole-answer mutant and every 10th one-site rewrite


def sample(made: list[Mutant], also: set = frozenset()) -> list[Mutant]:
    """The fixed sample of an exercise's mutants: those that work around the exercise's mechanism
    (the whole-answer rewrites), every ``SAMPLE_EVERY``-th one-site rewrite, and the ids in ``also``."""
    sites = [m for m in made if not m.whole]
    return [m for m in made if m.whole or m.id in also or (m in sites and sites.index(m) % SAMPLE_EVERY == 0)]


def evaluate(exercise: Exercise, sandbox: Sandbox, sampled: bool = False, right_only: bool = False) -> Report:
    report = Report(exercise)
    report.reference = sandbox.run(exercise.solution)
    made = [] if right_only else mutants(exercise)
    for mutant in sample(made) if sampled else made:
        judge(exercise, mutant, sandbox.run(mutant.run_source), report.reference)
        report.mutants.append(mutant)
    for name, rewrite in RIGHT_REWRITES.get(exercise.key, []):
        report.right.append((name, right_run(sandbox, rewrite, exercise)))
    return report


def right_run(sandbox: Sandbox, rewrite: Callable[[str], str | None], exercise: Exercise) -> Run:
    source = rewrite(exercise.solution)
    if source is None:
        return Run(False, "the rewrite no longer applies to the reference answer: update RIGHT_REWRITES")
    return sandbox.run(source)


def table(reports: list[Report]) -> str:
    rows = [("exercise", "generated", "killed", "equivalent", "survivors", "right accepted")]
    totals = [0, 0, 0, 0, 0, 0]
    for report in reports:
        counts = [len(report.mutants), sum(m.verdict == "killed" for m in report.mutants),
                  sum(m.verdict == "equivalent" for m in report.mutants), len(report.survivors),
                  sum(bool(run.accepted) for _, run in report.right), len(report.right)]
        totals = [a + b for a, b in zip(totals, counts)]
        rows.append((report.exercise.key, *map(str, counts[:4]), f"{counts[4]}/{counts[5]}"))
    rows.append(("total", *map(str, totals[:4]), f"{totals[4]}/{totals[5]}"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.rjust(w) if i else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths)))
             for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def known_false_verdicts(reports: list[Report]) -> dict:
    return {"survivors": {r.exercise.key: [m.id for m in r.survivors] for r in reports if r.survivors},
            "rejected_right": {r.exercise.key: r.rejected_right for r in reports if r.rejected_right}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.mutants", description=__doc__.split("\n\n")[0])
    parser.add_argument("exercises", nargs="*", help="exercise keys such as 06.2 (default: all)")
    parser.add_argument("--list", action="store_true", help="name every survivor and rejected right rewrite, with code")
    parser.add_argument("--equivalent", action="store_true", help="name every equivalent mutant with its rule's reason")
    parser.add_argument("--known", action="store_true",
                        help="print this run's false verdicts as tests/exercises/known_false_verdicts.json holds them")
    parser.add_argument("--right", action="store_true", help="only the right rewrites, no mutant")
    parser.add_argument("--sample", action="store_true", help="only the fixed sample make test runs")
    args = parser.parse_args(argv)
    start, reports = time.monotonic(), []
    for exercise in exercises():
        if args.exercises and exercise.key not in args.exercises:
            continue
        with Sandbox(exercise) as sandbox:
            reports.append(evaluate(exercise, sandbox, args.sample, args.right))
    if args.known:
        print(json.dumps(known_false_verdicts(reports), indent=1, ensure_ascii=False))
        return 0
    print(table(reports))
    known = json.loads(KNOWN.read_text(encoding="utf-8"))
    found = known_false_verdicts(reports)
    failures = 0
    for report in reports:
        key = report.exercise.key
        if not report.reference.accepted:
            failures += 1
            print(f"\n{key}: the reference answer itself is rejected:\n{report.reference.output}")
        for mutant in report.survivors:
            new = mutant.id not in known["survivors"].get(key, [])
            failures += new
            print(f"\n{key} survivor{' (NEW)' if new else ''}: {mutant.id}")
            if args.list:
                print("    " + mutant.source.replace("\n", "\n    "))
        for mutant in report.mutants if args.equivalent else ():
            if mutant.verdict == "equivalent":
                print(f"{key} equivalent: {mutant.id}: {mutant.equivalent}")
        for name in report.rejected_right:
            new = name not in known["rejected_right"].get(key, [])
            failures += new
            print(f"\n{key} right rewrite rejected{' (NEW)' if new else ''}: {name}")
            if args.list:
                print("    " + dict(report.right)[name].output.replace("\n", "\n    "))
    if not (args.sample or args.exercises or args.right):   # a full run: a fixed false verdict leaves the list
        for kind in ("survivors", "rejected_right"):
            for key, names in known[kind].items():
                for name in set(names) - set(found[kind].get(key, [])):
                    failures += 1
                    print(f"\n{key}: no longer a false verdict, remove it from {KNOWN.name}: {name}")
    print(f"\n{time.monotonic() - start:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
