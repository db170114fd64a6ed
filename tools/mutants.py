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

``python -m tools.mutants`` prints a table per exercise; ``--list`` names every survivor and
rejected right rewrite with its code; ``--sample`` runs the fixed sample ``make test`` runs.
``tests/exercises/test_mutants.py`` fails on any survivor or rejected right rewrite that
``tests/exercises/known_false_verdicts.json`` does not list.
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
CHECK_CALL = re.compile(r"check\.your_turn_(\d+)\(")


# --------------------------------------------------------------------------- the exercises
@dataclass
class Exercise:
    """One "Your turn": its reference answer, its check call and the code it runs after."""

    key: str            # "06.2": notebook 06, check.your_turn_2
    notebook: str       # "06_needs_input_grad_and_friends"
    call: str           # "check.your_turn_2(MySort)"
    solution: str       # the solution cell without its check call
    context: list[str]  # the notebook's earlier cells the answer and its check need, in order


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
                                  context_cells(earlier, needed)))
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


def grad_mode_left_off(source: str) -> Iterator[tuple[str, str]]:
    """``torch.set_grad_enabled(False)`` at the start of one of the answer's functions, never undone."""
    tree = ast.parse(source)
    for position, node in enumerate(ast.walk(tree)):
        if isinstance(node, ast.FunctionDef):
            mutated = copy.deepcopy(tree)
            function = _at(mutated, position)
            function.body[:0] = _stmts("torch.set_grad_enabled(False)")
            yield (f"grad mode switched off in {node.name} and left off ({_line(node)})",
                   ast.unparse(ast.fix_missing_locations(mutated)))


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


def _ones_exponent(exercise: Exercise, mutant: Mutant) -> bool:
    return False


EQUIVALENCE_RULES: list[tuple[Callable[[Exercise, Mutant], bool], str]] = [
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
    return bool(re.search(r"\.(detach\(\)|data) \(line", mutant.rewrite)) and bool(run.probed) \
        and not any(run.probed)


def _guarded_grad_mode(exercise: Exercise, mutant: Mutant, run: Run, reference: Run) -> bool:
    match = re.match(r"grad mode switched off in (forward|backward) ", mutant.rewrite)
    return bool(match) and run.grad_enabled and any(True for _ in _functions(ast.parse(exercise.solution)))


RUN_EQUIVALENCE_RULES: list[tuple[Callable[[Exercise, Mutant, Run, Run], bool], str]] = [
    (_same_values, "an arithmetic rewrite under which every value the answer's code returned, on every "
                   "call the checker made, is the reference answer's"),
    (_detached_nothing, "the value detached never required grad when the checker ran it: detach is the "
                        "identity on it"),
    (_guarded_grad_mode, "a Function's forward and backward run inside apply's and the engine's grad-mode "
                         "guard, which restored the mode after the check"),
]


def mutants(exercise: Exercise) -> list[Mutant]:
    """Every mutant of ``exercise``'s reference answer, each with its equivalence reason if one applies."""
    made, seen = [], {ast.dump(ast.parse(exercise.solution))}
    generated = list(site_mutants(exercise.solution)) + list(whole_mutants(exercise.solution))
    for description, source in generated:
        key = ast.dump(ast.parse(source))
        if key in seen:
            continue
        seen.add(key)
        mutant = Mutant(exercise.key, description, source)
        mutant.equivalent = next((reason for rule, reason in EQUIVALENCE_RULES if rule(exercise, mutant)), None)
        made.append(mutant)
    return made


# --------------------------------------------------------------------------- right rewrites
def _wrap_assignment(name: str, template: str) -> Callable[[str], str | None]:
    """The value assigned to ``name`` at the top level, written ``template.format(value)``."""
    def rewrite(source: str) -> str | None:
        tree = ast.parse(source)
        for node in tree.body:
            if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == [name]:
                node.value = _expr(template.format(ast.unparse(node.value)))
                return "import numpy as np\n" + ast.unparse(tree)
        return None
    return rewrite


def _wrap_returns(function: str, template: str) -> Callable[[str], str | None]:
    """Every value ``function`` returns, written ``template.format(value)``."""
    def rewrite(source: str) -> str | None:
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == function:
                for ret in ast.walk(node):
                    if isinstance(ret, ast.Return) and ret.value is not None:
                        ret.value = _expr(template.format(ast.unparse(ret.value)))
                return "import numpy as np\n" + ast.unparse(tree)
        return None
    return rewrite


def _replace_text(old: str, new: str) -> Callable[[str], str | None]:
    def rewrite(source: str) -> str | None:
        return source.replace(old, new) if old in source else None
    return rewrite


def _the_source(text: str) -> Callable[[str], str]:
    return lambda source: text


RIGHT_REWRITES: dict[str, list[tuple[str, Callable[[str], str | None]]]] = {}


# --------------------------------------------------------------------------- running
@dataclass
class Run:
    accepted: bool | None    # None: the answer or the checker raised, or timed out
    output: str
    values: str = ""         # a digest of every value the answer's code returned while checked
    probed: list = field(default_factory=list)   # requires_grad of each value a probe saw
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
        probed.append(bool(getattr(value, "requires_grad", False)))
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


def _namespaces(exercise: Exercise, cache: dict) -> dict:
    """The notebook's namespace before the exercise (its context cells run once, then copied)."""
    if exercise.key not in cache:
        namespace = {"__name__": "__main__"}
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for source in exercise.context:
                exec(compile(source, f"<{exercise.notebook}>", "exec"), namespace)
        cache[exercise.key] = namespace
    return cache[exercise.key]


def run_answer(exercise: Exercise, source: str, cache: dict, timeout: float = TIMEOUT) -> Run:
    """Run ``source`` and the exercise's check call in a forked copy of the notebook's namespace."""
    namespace = _namespaces(exercise, cache)
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
            return Run(None, f"timed out after {timeout:g} s")
        chunk = os.read(read, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read)
    os.waitpid(pid, 0)
    if not chunks:
        return Run(None, "the answer's process died")
    return Run(**json.loads(b"".join(chunks)))


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


def evaluate(exercise: Exercise, cache: dict, sample: int | None = None) -> Report:
    report = Report(exercise)
    report.reference = run_answer(exercise, exercise.solution, cache)
    made = mutants(exercise)
    if sample is not None:
        made = made[::max(1, len(made) // sample)][:sample]
    for mutant in made:
        if not mutant.equivalent:
            run = run_answer(exercise, mutant.run_source, cache)
            mutant.output = run.output
            if run.accepted:
                mutant.equivalent = next((reason for rule, reason in RUN_EQUIVALENCE_RULES
                                          if rule(exercise, mutant, run, report.reference)), None)
            else:
                mutant.verdict = "killed"
        if not mutant.verdict:
            mutant.verdict = "equivalent" if mutant.equivalent else "survived"
        report.mutants.append(mutant)
    for name, rewrite in RIGHT_REWRITES.get(exercise.key, []):
        source = rewrite(exercise.solution)
        if source is None:
            report.right.append((name, Run(False, "the rewrite no longer applies to the reference answer")))
            continue
        report.right.append((name, run_answer(exercise, source, cache)))
    return report


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.mutants", description=__doc__.split("\n\n")[0])
    parser.add_argument("exercises", nargs="*", help="exercise keys such as 06.2 (default: all)")
    parser.add_argument("--list", action="store_true", help="name every survivor and rejected right rewrite, with code")
    parser.add_argument("--sample", type=int, default=None, help="at most this many mutants per exercise")
    args = parser.parse_args(argv)
    start, cache, reports = time.monotonic(), {}, []
    for exercise in exercises():
        if args.exercises and exercise.key not in args.exercises:
            continue
        reports.append(evaluate(exercise, cache, args.sample))
    print(table(reports))
    failures = 0
    for report in reports:
        if not report.reference.accepted:
            failures += 1
            print(f"\n{report.exercise.key}: the reference answer itself is rejected:\n{report.reference.output}")
        for mutant in report.survivors:
            failures += 1
            print(f"\n{report.exercise.key} survivor: {mutant.rewrite}")
            if args.list:
                print("    " + mutant.source.replace("\n", "\n    "))
        for name in report.rejected_right:
            failures += 1
            print(f"\n{report.exercise.key} right rewrite rejected: {name}")
            if args.list:
                print("    " + dict(report.right)[name].output.replace("\n", "\n    "))
    print(f"\n{time.monotonic() - start:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
