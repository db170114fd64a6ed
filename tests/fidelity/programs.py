"""Random PyTorch programs, and an interpreter that runs one against a given ``torch`` module.

A program is a list of ``Step``s. Each step is one Python statement (``x2 = x0 @ x1``) and the
expression to look at afterwards (``x2``). ``Program.source()`` is plain, runnable PyTorch code,
so a program on which minigrad and PyTorch disagree prints as something to paste and debug.

``generate(choose, torch)`` builds a program one step at a time. It runs every step on real
PyTorch as it goes, so it knows the shapes, dtypes and flags of every variable and can pick
operands that fit most of the time (and, on purpose, some that do not: those must raise the
same error on both sides). ``choose`` supplies the random choices (hypothesis or ``random``).

``run(program, torch)`` executes it with ``torch`` bound to either module and returns one
``observe``-d record per step: values, dtype, shape, ``repr``, the ``grad_fn`` graph with its
``next_functions`` edges, warnings, and the exception type and message when a step raises.
"""
from __future__ import annotations

import os
import random
import re
import textwrap
import warnings
from dataclasses import dataclass, field

import numpy as np

# In-place changes through views (``x[0].mul_(2)``, ``y.view(-1).add_(1)``) are generated only
# when this is set: minigrad gains them in a separate piece of work.
VIEWS_INPLACE = os.environ.get("MINIGRAD_FUZZ_VIEWS_INPLACE") == "1"

# Custom Functions a program may use, written as in PyTorch's "Extending PyTorch" notes.
FUNCTIONS = {
    "MulConstant": '''
        class MulConstant(Function):
            @staticmethod
            def forward(ctx, tensor, constant):
                ctx.constant = constant
                return tensor * constant

            @staticmethod
            def backward(ctx, grad_output):
                return grad_output * ctx.constant, None
        ''',
    "Cube": '''
        class Cube(Function):
            @staticmethod
            def forward(x):
                return x ** 3, 3 * x ** 2

            @staticmethod
            def setup_context(ctx, inputs, output):
                x, = inputs
                ctx.save_for_backward(x)

            @staticmethod
            def backward(ctx, grad_out, grad_dx):
                x, = ctx.saved_tensors
                return grad_out * 3 * x ** 2 + grad_dx * 6 * x
        ''',
    "MyExp": '''
        class MyExp(Function):
            @staticmethod
            def forward(ctx, x):
                result = x.exp()
                ctx.save_for_backward(result)
                return result

            @staticmethod
            def backward(ctx, grad_output):
                result, = ctx.saved_tensors
                return grad_output * result
        ''',
    "SquareToo": '''
        class SquareToo(Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x, x * x

            @staticmethod
            def backward(ctx, grad_x, grad_square):
                x, = ctx.saved_tensors
                return grad_x + 2 * x * grad_square
        ''',
    "KeepIt": '''
        class KeepIt(Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x

            @staticmethod
            def backward(ctx, grad):
                x, = ctx.saved_tensors
                return grad * (x * 0 + 1)
        ''',
    "Halve": '''
        class Halve(Function):
            @staticmethod
            def forward(ctx, x, y):
                ctx.mark_non_differentiable(y)
                return x / 2, y

            @staticmethod
            def backward(ctx, grad_x, grad_y):
                return grad_x / 2, None
        ''',
}

HEADER = "import torch\nfrom torch.autograd import Function\n"
TRIGGERED = re.compile(r" \(Triggered internally at [^)]*\.\)$")


@dataclass
class Step:
    code: str                  # one Python statement (may span lines, e.g. a ``with`` block)
    observe: str               # the expression whose value is compared after the statement ran
    raises: str | None = None  # the exception PyTorch raised here, if any (steps that must fail)

    def source(self) -> str:
        notes = [f"observe: {self.observe}"] if self.observe not in self.code else []
        if self.raises:
            notes.append(f"PyTorch raises {self.raises}")
        return self.code + (f"  # {'; '.join(notes)}" if notes else "")


@dataclass
class Program:
    steps: list = field(default_factory=list)

    def functions_used(self) -> list:
        return [name for name in FUNCTIONS if any(f"{name}.apply" in s.code for s in self.steps)]

    def source(self) -> str:
        """The program as runnable PyTorch code (with ``# observe:`` comments)."""
        parts = [HEADER]
        parts += [textwrap.dedent(FUNCTIONS[name]).strip() + "\n" for name in self.functions_used()]
        parts += [step.source() for step in self.steps]
        return "\n".join(parts) + "\n"

    @classmethod
    def from_lines(cls, lines: list) -> "Program":
        """A program written line by line: a line ending in ``# observe: EXPR`` observes EXPR, a line
        ``name = ...`` observes ``name``, any other line nothing (but its error, if it raises)."""
        steps = []
        for line in lines:
            code, _, observe = line.partition("  # observe: ")
            if not observe:
                head = code.split(" = ", 1)[0]
                observe = head if " = " in code and head.isidentifier() else "None"
            steps.append(Step(code, observe))
        return cls(steps)


# ---------------------------------------------------------------------------------------- running

def namespace_for(program: Program, torch) -> dict:
    """Globals for running ``program``: ``torch``, ``Function`` and its custom Functions."""
    namespace = {"torch": torch, "Function": torch.autograd.Function}
    for name in program.functions_used():
        exec(textwrap.dedent(FUNCTIONS[name]), namespace)
    return namespace


def run_step(step: Step, namespace: dict, torch) -> dict:
    """Execute one step and observe it (or the exception it raised)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(step.code, namespace)
            result = observe(eval(step.observe, namespace), torch)
        except Exception as error:   # the error itself is what we compare
            result = {"raises": type(error).__name__, "message": str(error)}
        finally:
            torch.set_grad_enabled(True)
    # PyTorch's C++ warnings end with where its build was made; minigrad leaves that out
    shown = [TRIGGERED.sub("", f"{w.category.__name__}: {w.message}") for w in caught]
    if shown:
        result["warnings"] = shown
    return result


def warm_up(torch) -> None:
    """Trigger the warnings each module shows only once per process (PyTorch's TORCH_WARN_ONCE), so
    that the one PyTorch showed while a program was generated does not count as a difference."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.tensor(1.0).T, torch.ones(2).T
        torch.sparse_coo_tensor([[0]], [1.0], (1,))   # PyTorch: "Sparse invariant checks are implicitly disabled"


def run(program: Program, torch) -> list:
    """One observation per step of ``program``, with ``torch`` as the module under test."""
    namespace = namespace_for(program, torch)
    return [run_step(step, namespace, torch) for step in program.steps]


def observe(value, torch):
    """What is compared about a value: plain data only, so both sides' records compare with ==."""
    if isinstance(value, torch.Tensor):
        return observe_tensor(value)
    if isinstance(value, (tuple, list)):
        record = {"type": type(value).__name__, "items": [observe(v, torch) for v in value]}
        if hasattr(value, "values") and hasattr(value, "indices"):   # torch.return_types.max and friends
            record["repr"] = repr(value)
        return record
    if isinstance(value, float):   # float32 sums may differ in the last bits
        return {"float": value}
    if value is None or isinstance(value, (bool, int, float, str)):
        return {"python": repr(value)}
    return {"type": type(value).__name__, "repr": repr(value)}


def observe_tensor(t) -> dict:
    if t.is_sparse:   # its dense values, and what makes it sparse: dimensions, entries, coalesced flag
        return {"repr": repr(t), "str": str(t), "dtype": str(t.dtype), "shape": tuple(t.shape),
                "requires_grad": t.requires_grad, "is_leaf": t.is_leaf, "graph": graph_of(t.grad_fn),
                "values": t.detach().to_dense().numpy().copy(),
                "sparse": (str(t.layout), t.sparse_dim(), t.dense_dim(), t._nnz(), t.is_coalesced())}
    try:
        data = t.detach().numpy().copy()
    except RuntimeError:   # PyTorch's ZeroTensor gradients refuse numpy() unless forced
        data = t.detach().numpy(force=True).copy()
    return {"repr": repr(t), "str": str(t), "dtype": str(t.dtype), "shape": tuple(t.shape),
            "requires_grad": t.requires_grad, "is_leaf": t.is_leaf, "graph": graph_of(t.grad_fn),
            "values": data}


def graph_of(node, limit: int = 60) -> list:
    """The graph below ``node`` in depth-first order: ``[name, [edges]]``, where each edge is
    ``(child, input_nr)``; a node met before is written ``"#k"`` (its position in the walk)."""
    seen = {}

    def walk(n):
        if n is None:
            return None
        if id(n) in seen:
            return f"#{seen[id(n)]}"
        seen[id(n)] = len(seen)
        if len(seen) > limit:
            return "..."
        return [n.name(), [(walk(child), nr) for child, nr in n.next_functions]]

    return walk(node)


# ------------------------------------------------------------------------------------- generating

class RandomChooser:
    """Choices from Python's ``random`` (for counting runs); ``HypothesisChooser`` shrinks."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)

    def pick(self, options):
        options = list(options)
        return options[self.integer(0, len(options) - 1)]

    def chance(self, percent: int) -> bool:
        return self.integer(0, 99) < percent


class HypothesisChooser(RandomChooser):
    def __init__(self, data):
        from hypothesis import strategies
        self.data, self.strategies = data, strategies

    def integer(self, low: int, high: int) -> int:
        return self.data.draw(self.strategies.integers(low, high))


SHAPES = [(), (1,), (3,), (4,), (2, 3), (3, 2), (3, 1), (1, 3), (2, 2), (2, 2, 3), (2, 3, 2), (2, 1, 3), (1, 2, 2)]
NICE_VALUES = [-3.0, -2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
ODD_VALUES = [0.1, -0.25, 0.3333, 1e-05, 123456.0, 2.7182, -0.001]


def literal(choose, shape: tuple, kind: str):
    """A nested Python list (or a number) of the given shape."""
    if not shape:
        if kind == "int":
            return choose.integer(-3, 3)
        if kind == "bool":
            return choose.chance(50)
        return choose.pick(NICE_VALUES) if choose.chance(90) else choose.pick(ODD_VALUES)
    return [literal(choose, shape[1:], kind) for _ in range(shape[0])]


class Generator:
    """Builds one program; ``env`` holds the PyTorch value of every variable made so far."""

    def __init__(self, choose, torch):
        self.choose, self.torch = choose, torch
        self.program = Program()
        self.namespace = {"torch": torch, "Function": torch.autograd.Function}
        for name in FUNCTIONS:
            exec(textwrap.dedent(FUNCTIONS[name]), self.namespace)
        self.names = []   # tensor variables, in order of creation

    # -- bookkeeping
    def add(self, code: str, observe: str) -> None:
        step = Step(code, observe)
        grads = self.grads()
        self.program.steps.append(step)
        step.raises = run_step(step, self.namespace, self.torch).get("raises")
        if step.raises and self.grads() != grads:
            # A backward that failed half-way after PyTorch had written some .grad: minigrad leaves every
            # .grad as it was, a difference the README lists. The step is left out of the program.
            self.program.steps.pop()

    def grads(self) -> list:
        """What every leaf's and retain_grad() tensor's ``.grad`` is now (in PyTorch)."""
        tensors = [self.value(n) for n in self.names if isinstance(self.namespace.get(n), self.torch.Tensor)]
        return [(id(t.grad), t.grad.detach().numpy().tobytes()) if t.grad is not None else None
                for t in tensors if t.is_leaf or t.retains_grad]

    def new_name(self) -> str:
        return f"x{len(self.names)}"

    def assign(self, expression: str) -> None:
        """``xN = expression``; the name is kept only if PyTorch made a tensor of it."""
        name = self.new_name()
        self.add(f"{name} = {expression}", name)
        if isinstance(self.namespace.get(name), self.torch.Tensor):
            self.names.append(name)

    def value(self, name: str):
        return self.namespace[name]

    def tensor(self, floating: bool | None = None, grad: bool | None = None) -> str:
        names = [n for n in self.names
                 if (floating is None or self.value(n).is_floating_point() == floating)
                 and (grad is None or self.value(n).requires_grad == grad)]
        return self.choose.pick(names) if names else self.leaf(floating=floating is not False)

    def dim(self, t, extra: int = 0) -> int:
        n = t.dim() + extra
        return self.choose.integer(-n, n - 1) if n else self.choose.pick([0, -1])

    # -- leaves
    def leaf(self, shape: tuple | None = None, floating: bool = True) -> str:
        choose = self.choose
        shape = choose.pick(SHAPES) if shape is None else shape
        if floating:
            dtype = "" if choose.chance(80) else ", dtype=torch.float64"
            grad = ", requires_grad=True" if choose.chance(75) else ""
            data = literal(choose, shape, "float")
        else:
            kind = choose.pick(["int", "int", "bool"])
            dtype, grad, data = "", "", literal(choose, shape, kind)
        if floating and shape and choose.chance(15):   # a factory instead of a literal
            sizes = ", ".join(map(str, shape))
            expression = choose.pick([f"torch.ones({sizes}{dtype}{grad})", f"torch.zeros({sizes}{dtype}{grad})",
                                      f"torch.full({tuple(shape)}, {choose.pick(NICE_VALUES)}{dtype}{grad})"])
        else:
            expression = f"torch.tensor({data!r}{dtype}{grad})"
        name = self.new_name()
        self.assign(expression)
        return name

    # -- one random step
    def step(self) -> None:
        kind = self.choose.pick(["leaf", "unary", "unary", "binary", "binary", "matmul", "matmul", "reduce",
                                 "reduce", "shape", "shape", "index", "index", "join", "where", "custom",
                                 "inplace", "backward", "backward", "grad", "bad", "query", "issue21", "issue21"]
                                + EDGE_AND_WRITE_STEPS + CORNER_STEPS + ISSUE19_STEPS)
        getattr(self, f"make_{kind}")()

    def make_leaf(self) -> None:
        self.leaf(floating=self.choose.chance(85))

    def make_unary(self) -> None:
        a = self.tensor(floating=self.choose.chance(90))
        op = self.choose.pick(["exp()", "sin()", "cos()", "tanh()", "sigmoid()", "relu()", "abs()", "neg()",
                               "sqrt()", "log()", "clamp(-1.0, 1.0)", "clamp(min=0.5)", "clone()", "detach()",
                               "float()", "double()", "pow(2)"])
        if self.choose.chance(20) and op.endswith("()") and op[:-2] in ("exp", "sin", "tanh", "relu", "abs"):
            self.assign(f"torch.{op[:-2]}({a})")
        else:
            self.assign(f"{a}.{op}")

    def make_binary(self) -> None:
        choose = self.choose
        a = self.tensor()
        op = choose.pick(["+", "-", "*", "/", "**"])
        if choose.chance(40):
            number = choose.pick([2, 0.5, -1.5, 3, 2.0])
            self.assign(f"{a} {op} {number}" if choose.chance(60) else f"{number} {op} {a}")
        else:
            b = self.tensor() if choose.chance(60) else self.leaf(self.broadcast_partner(self.value(a)))
            if op == "**":
                a, b = f"{a}.abs()", f"{b}"
            self.assign(f"{a} {op} {b}")

    def broadcast_partner(self, t) -> tuple:
        shape = list(t.shape)
        if shape and self.choose.chance(50):
            shape[self.choose.integer(0, len(shape) - 1)] = 1
        if shape and self.choose.chance(40):
            shape = shape[self.choose.integer(1, len(shape)):]
        return tuple(shape)

    def make_matmul(self) -> None:
        choose = self.choose
        a = self.tensor(floating=True)
        shape = tuple(self.value(a).shape)
        if choose.chance(70) and shape:
            n, k, batch = shape[-1], choose.integer(1, 3), choose.integer(1, 2)
            other = choose.pick([(n,), (n, k), (batch, n, k), (shape[0], n, k) if len(shape) == 3 else (n, k)])
            if choose.chance(10):
                other = (n + 1,) + other[1:] if len(other) == 1 else other[:-2] + (n + 1, other[-1])
            b = self.leaf(other)
        else:
            b = self.tensor(floating=choose.chance(95))
        form = choose.pick(["{} @ {}", "torch.matmul({}, {})", "{}.matmul({})", "torch.mm({}, {})", "{}.mm({})"])
        self.assign(form.format(a, b))

    def make_reduce(self) -> None:
        choose = self.choose
        a = self.tensor()
        t = self.value(a)
        d = self.dim(t)
        op = choose.pick(["sum()", f"sum({d})", f"sum({d}, keepdim=True)", f"sum(dim={d})", "mean()", f"mean({d})",
                          f"mean({d}, keepdim=True)", "max()", f"max({d})", f"min(dim={d})", "min()",
                          f"max({d}, keepdim=True)", f"argmax({d})", "argmax()", f"softmax({d})",
                          f"log_softmax(dim={d})", f"sort({d})", f"sort({d}, descending=True)"])
        if choose.chance(15) and t.dim() >= 2:
            op = choose.pick(["sum((0, 1))", "mean((0, -1))", "sum((-1, 0), keepdim=True)"])
        if choose.chance(15):
            self.assign(f"torch.{op.split('(')[0]}({a}{', ' if not op.endswith('()') else ''}{op.split('(', 1)[1]}")
        else:
            self.assign(f"{a}.{op}")

    def make_shape(self) -> None:
        choose = self.choose
        a = self.tensor()
        t = self.value(a)
        n = t.numel()
        views = [f"view({n})", "view(-1)", f"reshape({n}, 1)", f"reshape(1, {n})", "reshape(-1)", "flatten()"]
        if n % 2 == 0:
            views += [f"view(2, {n // 2})", f"reshape(-1, 2)", f"view(2, -1, 1)"]
        ops = views + [f"unsqueeze({self.dim(t, extra=1)})", "squeeze()", f"squeeze({self.dim(t)})", "t()",
                       f"transpose({self.dim(t)}, {self.dim(t)})", "clone()", f"expand(2, {', '.join(['-1'] * t.dim())})",
                       f"permute({', '.join(map(str, reversed(range(t.dim()))))})", "view(5, 7)"]
        if t.dim() == 2:
            ops.append("T")
        self.assign(f"{a}.{choose.pick(ops)}".replace("expand(2, )", "expand(2)"))

    def make_index(self) -> None:
        choose = self.choose
        a = self.tensor()
        t = self.value(a)
        size = t.shape[0] if t.dim() else 1
        i = choose.integer(-size, size)
        keys = [f"{i}", f"{choose.integer(0, size)}:", f":{choose.integer(-1, size)}", "::2", "None", "...",
                f"..., {i}", f"[0, {size - 1}]", f"torch.tensor([{size - 1}, 0, 0])", f"{a} > 0", f"{a} > 1",
                f"0, {choose.integer(-1, 1)}", ":, 0", f"1:, None, {choose.integer(-1, 1)}", "0, 0, 0, 0"]
        self.assign(f"{a}[{choose.pick(keys)}]")

    def make_join(self) -> None:
        choose = self.choose
        a = self.tensor()
        t = self.value(a)
        b = a if choose.chance(50) else self.tensor()
        function = choose.pick(["cat", "stack"])
        dim = self.dim(t, extra=1 if function == "stack" else 0)
        self.assign(f"torch.{function}([{a}, {b}]{'' if choose.chance(30) else f', dim={dim}'})")

    def make_where(self) -> None:
        a = self.tensor(floating=True)
        b = self.tensor() if self.choose.chance(50) else self.leaf(self.broadcast_partner(self.value(a)))
        other = self.choose.pick([b, "0.0", b])
        self.assign(f"torch.where({a} > {self.choose.pick([0, 1])}, {a}, {other})")

    def make_custom(self) -> None:
        choose = self.choose
        a = self.tensor(floating=True)
        call = choose.pick([f"MulConstant.apply({a}, {choose.pick([2.0, -0.5, 3])})", f"Cube.apply({a})",
                            f"MyExp.apply({a})", f"Halve.apply({a}, {a}.detach())"])
        self.assign(call)

    def can_change_in_place(self, name: str) -> bool:
        """In-place changes of views (and of tensors other variables view) wait for VIEWS_INPLACE."""
        if VIEWS_INPLACE:
            return True
        t = self.value(name)
        return t._base is None and not any(self.value(n)._base is t for n in self.names)

    def make_inplace(self) -> None:
        choose = self.choose
        candidates = [n for n in self.names if self.can_change_in_place(n)]
        if choose.chance(50):   # clamp_ is recorded for backward only by PyTorch
            candidates = [n for n in candidates if self.value(n).is_leaf]
        if not candidates:
            return self.make_unary()
        a = choose.pick(candidates)
        op = choose.pick([f"{a}.add_(1.0)", f"{a}.mul_(2)", f"{a}.sub_(0.5)", f"{a}.div_(2.0)", f"{a}.zero_()",
                          f"{a}.fill_(1.5)", f"{a} += 1", f"{a} *= {a}", f"{a}.clamp_(min=0.0)", f"{a}[0] = 1.0"])
        if op.endswith("clamp_(min=0.0)") and not self.value(a).is_leaf:
            op = f"{a}.add_(1.0)"
        if op.endswith("[0] = 1.0") and not VIEWS_INPLACE:
            op = f"{a}.add_(1.0)"
        if choose.chance(30):
            op = f"with torch.no_grad():\n    {op}"
        self.add(op, a)

    def make_backward(self) -> None:
        choose = self.choose
        y = self.tensor(grad=True)
        retain = ", retain_graph=True" if choose.chance(30) else ""
        call = choose.pick([f"{y}.sum().backward({retain[2:]})", f"{y}.backward(torch.ones_like({y}){retain})",
                            f"{y}.backward()", f"({y} * {y}).mean().backward({retain[2:]})"])
        self.add(call, self.leaf_grads())

    def leaf_grads(self) -> str:
        """An expression for the ``.grad`` of every leaf that requires grad, e.g. ``(x0.grad, x3.grad)``."""
        leaves = [n for n in self.names if self.value(n).is_leaf and self.value(n).requires_grad]
        return f"({', '.join(f'{n}.grad' for n in leaves)},)" if leaves else "None"

    def make_grad(self) -> None:
        choose = self.choose
        leaves = [n for n in self.names if self.value(n).is_leaf and self.value(n).requires_grad]
        if not leaves:
            return self.make_backward()
        y = self.tensor(grad=True)
        x = choose.pick(leaves)
        create = choose.chance(50)
        name = self.new_name()
        # The graph a backward formula builds (create_graph=True) is PyTorch's private business:
        # compare its values here, and its own gradients by a second backward.
        self.add(f"{name}, = torch.autograd.grad({y}.sum(), [{x}]{', create_graph=True' if create else ''})",
                 f"{name}.detach()" if create else name)
        if isinstance(self.namespace.get(name), self.torch.Tensor):
            if not create:
                self.names.append(name)
            elif self.value(name).requires_grad:
                self.add(f"{name}.sum().backward()", self.leaf_grads())

    def make_bad(self) -> None:
        choose = self.choose
        a = self.tensor()
        self.assign(choose.pick([f"{a} @ {a}.double()", "torch.tensor([1, 2], requires_grad=True)",
                                 f"{a} + torch.ones(5)", f"{a}.view(-1, 7)", f"{a}.sum(4)", f"{a}[9]",
                                 f"torch.mm({a}, {a})", f"{a}.expand(3, 4, 5, 6)", f"{a}.transpose(0, 5)",
                                 f"torch.cat([{a}, {a}.unsqueeze(0)])", f"{a}.softmax(3)", f"{a}.item()"]))

    def make_query(self) -> None:
        a = self.tensor()
        self.add("pass", self.choose.pick([f"{a}.shape", f"{a}.size(0)", f"{a}.dim()", f"{a}.numel()", f"{a}.dtype",
                                           f"{a}.tolist()", f"{a}.is_leaf", f"{a}.requires_grad",
                                           f"repr({a}.grad_fn.name() if {a}.grad_fn else None)", f"{a}.T",
                                           f"len({a})", f"float({a}.sum())"]))

    # -- edges of a formula's domain, and writes of values that require grad (issue 21: the fuzzer had
    #    generated neither ``0 ** b`` nor ``y[3] = v`` with ``v`` requiring grad, and both were wrong)
    def make_edge(self) -> None:
        """A leaf holding 0, -0.0, inf or nan, or an operation whose formula has an edge there."""
        choose = self.choose
        if choose.chance(35):
            return self.edge_leaf()
        a = self.tensor(floating=True)
        number = choose.pick(EDGE_BASES)
        op = choose.pick([f"{number} ** {a}", f"torch.tensor({number}) ** {a}", f"{a} ** {choose.pick(EDGE_EXPONENTS)}",
                          f"{a}.abs() ** {self.tensor(floating=True)}", f"{a} ** torch.tensor(0.0)",
                          f"{a}.sqrt()", f"{a}.log()", f"1 / {a}", f"{a} / 0.0", f"{a} % 1.5", f"{a} % -1.5",
                          f"{a}.relu()", f"torch.nn.functional.elu({a})", f"{a}.clamp(min=0.0)", f"{a}.clamp(max=0.0)",
                          f"torch.where({a} > 0, {a}, 0.0)", f"{a}.max()", f"{a}.min()", f"{a}.abs()", f"{a}.sigmoid()",
                          f"{a}.tanh()", f"{a}.exp()", f"{a}.softmax(-1)" if self.value(a).dim() else f"{a}.sin()"])
        self.assign(op)
        if self.value(a).requires_grad and choose.chance(50):   # and a gradient that is itself at an edge
            y = self.names[-1] if self.names and self.names[-1] == f"x{len(self.names) - 1}" else a
            if self.value(y).requires_grad:
                self.add(f"{y}.backward(torch.full_like({y}, {choose.pick(EDGE_FLOATS)}))", self.leaf_grads())

    def edge_leaf(self) -> str:
        choose = self.choose
        shape = choose.pick([(3,), (4,), (2, 3), (2, 2), ()])
        values = [choose.pick(EDGE_FLOATS) if choose.chance(60) else repr(choose.pick(NICE_VALUES))
                  for _ in range(int(np.prod(shape)))]
        data = values[0] if not shape else \
            "[" + ", ".join("[" + ", ".join(values[i:i + shape[-1]]) + "]" for i in range(0, len(values), shape[-1])) + "]" \
            if len(shape) == 2 else "[" + ", ".join(values) + "]"
        dtype = "" if choose.chance(80) else ", dtype=torch.float64"
        name = self.new_name()
        self.assign(f"torch.tensor({data}{dtype}, requires_grad=True)")
        return name

    def make_write(self) -> None:
        """``y[key] = value`` into a fresh non-leaf (or, with VIEWS_INPLACE, into a view of one), where the
        value often requires grad; then, often, a backward that shows both tensors' gradients."""
        choose = self.choose
        a = self.tensor(floating=True)
        if not self.value(a).dim() or not self.value(a).numel():
            return self.make_inplace()
        target = self.new_name()
        self.assign(choose.pick([f"{a}.clone()", f"{a} * 1", f"{a} + 0"]))
        if VIEWS_INPLACE and self.value(target).dim() > 1 and choose.chance(30):
            base, target = target, self.new_name()
            self.assign(f"{base}[0]")
        shape = tuple(self.value(target).shape)
        n, last = shape[0], shape[-1]
        key = choose.pick([str(choose.integer(-n, n - 1)), f"{choose.integer(0, n - 1)}:", "...", "None", ":",
                           f"torch.tensor([{n - 1}, 0])" if n > 1 else "torch.tensor([0])", f"{target} > 0",
                           f"..., {choose.integer(0, last - 1)}", f"0, {choose.integer(0, shape[1] - 1)}"
                           if len(shape) > 1 else "-1"])
        try:
            selected = tuple(eval(f"{target}[{key}]", self.namespace).shape)
        except Exception:   # a key PyTorch refuses: the write must fail the same way on both sides
            selected = None
        form = choose.pick(["number", "0-dim", "0-dim", "same", "last", "leading ones"])
        if form == "number" or (selected is None and form != "0-dim"):
            source = repr(choose.pick(NICE_VALUES))
        else:
            source = self.leaf({"0-dim": (), "same": selected, "last": selected[-1:],
                                "leading ones": (1, 1) + selected}[form])
        self.add(f"{target}[{key}] = {source}", target)
        if self.value(target).requires_grad and choose.chance(60):
            weights = f"torch.arange(1.0, {self.value(target).numel() + 1}).view({list(shape)})"
            self.add(f"({target} * {weights}).sum().backward()", self.leaf_grads())


# Added to the step kinds (twice each: these two caught silently wrong gradients).
EDGE_AND_WRITE_STEPS = ["edge", "edge", "write", "write"]
EDGE_FLOATS = ["0.0", "-0.0", "float('inf')", "float('-inf')", "float('nan')", "1.0", "-1.0", "0.5"]
EDGE_BASES = ["0", "0.0", "-0.0", "1", "-1", "-2.0", "0.5", "2", "float('inf')"]
EDGE_EXPONENTS = ["0", "0.0", "0.5", "-0.5", "-1", "2", "3", "-2", "1.5", "1"]


# ------------------------------------------------------------ ops real programs reach for (issue 21)

def _issue21_expressions(g: Generator, a: str, t) -> list:
    """Calls of the ops added for real programs (issue 21) on the tensor ``a`` (PyTorch value ``t``)."""
    choose, n = g.choose, t.dim()
    d = g.dim(t)
    size = t.shape[d] if n else 1
    index = f"torch.tensor([{choose.integer(0, max(size - 1, 0))}, 0])"
    p = choose.pick(["3", "0.5", "float('inf')", "0"])
    expressions = [
        f"{a}.sign()", f"torch.sign({a})", f"{a}.flip({d})", f"torch.flip({a}, [{d}])", f"{a}.cumsum({d})",
        f"torch.cumsum({a}, dim={d})", f"{a}.norm()", f"{a}.norm(1)", f"{a}.norm(dim={d})",
        f"{a}.norm({p})", f"torch.norm({a}, dim={d}, keepdim=True)",
        f"{a}.topk({choose.integer(0, min(size, 3))}, dim={d})", f"{a}.topk(1, largest=False)",
        f"{a}.index_select({d}, {index})", f"{a}.masked_select({a} > 0)", f"torch.var_mean({a}, {d})",
        f"torch.var_mean({a})", f"torch.std_mean({a}, dim={d}, keepdim=True)", f"{a}.unbind({d})",
        f"torch.isclose({a}, {a} * 1.0000001)", f"torch.allclose({a}, {a} + 1)",
    ]
    if n:
        if n == 1:
            expressions.append(f"{a}.gather(0, torch.tensor([{choose.integer(0, max(t.shape[0] - 1, 0))}, 0]))")
        else:
            rows = [[choose.integer(0, max(t.shape[-1] - 1, 0))] for _ in range(t.shape[0])]
            expressions.append(f"{a}.reshape({t.shape[0]}, -1).gather(1, torch.tensor({rows}))")
        sizes = [t.shape[d] // 2, t.shape[d] - t.shape[d] // 2]
        expressions += [f"{a}.split_with_sizes({sizes}, {d})", f"torch.einsum('i...,i...->...', {a}, {a})"]
    if n == 2:
        other = g.tensor(floating=True)
        expressions += [f"torch.einsum('ij,jk->ik', {a}, {a}.t())", f"torch.einsum('ij,ij->i', {a}, {a})",
                        f"torch.einsum('ij,kj', {a}, {a})", f"torch.einsum('ij,{choose.pick(['jk', 'kj'])}->ik', {a}, {other})",
                        f"torch.addmm(torch.zeros({t.shape[1]}), {a}.t(), {a}, beta={choose.pick([0, 0.5, 1])}, "
                        f"alpha={choose.pick([1, -2.0])})", f"torch.addmm({a}, {a}, torch.eye({t.shape[1]}))",
                        f"torch.nn.functional.embedding(torch.tensor([[0, {t.shape[0] - 1}]]), {a})"]
    if n == 1:
        expressions.append(f"torch.einsum('i,j->ij', {a}, {a})")
    return expressions


def _issue21_in_place(g: Generator, a: str) -> str:
    """An in-place op added for real programs (issue 21), applied to ``a``."""
    choose = g.choose
    return choose.pick([f"{a}.exp_()", f"{a}.log_()", f"{a}.sin_()", f"{a}.cos_()", f"{a}.tanh_()",
                        f"{a}.sigmoid_()", f"{a}.relu_()", f"{a}.sqrt_()", f"{a}.abs_()", f"{a}.neg_()",
                        f"{a}.sign_()", f"{a}.clamp_(-0.5, 1.0)", f"{a}.clamp_(min=0.0)", f"torch.relu_({a})",
                        f"{a}.masked_fill_({a} > 0, 0.5)", f"{a}.masked_fill_({a} < 1, torch.tensor(2.0))"])


def make_issue21(g: Generator) -> None:
    """One step using the ops of issue 21: most often a new value, sometimes an in-place change."""
    candidates = [n for n in g.names if g.can_change_in_place(n) and not g.value(n).is_leaf]
    if candidates and g.choose.chance(30):
        a = g.choose.pick(candidates)
        op = _issue21_in_place(g, a)
        if g.choose.chance(20):
            op = f"with torch.no_grad():\n    {op}"
        return g.add(op, a)
    a = g.tensor()
    g.assign(g.choose.pick(_issue21_expressions(g, a, g.value(a))))


Generator.make_issue21 = make_issue21

# ------------------------------------------------------------ corners that differed silently (issue 21, part 3)
# Each kind of step below makes a class of corner likely that random programs met too rarely: a mask
# or a constant meeting an inf or nan gradient, an operand saved by a binary op and then changed in
# place, integer powers and divisions, detach_() after the graph was made, and the methods students
# reach for (ops/everyday.py).
CORNER_STEPS = ["mask", "mask", "saved", "integer", "detach", "everyday", "everyday"]


def edge_gradient(g: Generator, t) -> str:
    """A gradient for ``t`` (a torch tensor) made of edge values: inf, -inf, nan, 0, -0.0, 1..."""
    values = [g.choose.pick(EDGE_FLOATS) for _ in range(max(t.numel(), 1))]
    def nested(shape, flat):
        if not shape:
            return flat[0]
        step = len(flat) // shape[0] if shape[0] else 0
        return "[" + ", ".join(nested(shape[1:], flat[i * step:(i + 1) * step]) for i in range(shape[0])) + "]"
    dtype = ", dtype=torch.float64" if t.dtype == g.torch.float64 else ""
    return f"torch.tensor({nested(tuple(t.shape), values)}{dtype})"


def masking_expressions(g: Generator, a: str, t) -> list:
    """Ops whose backward keeps or zeroes the gradient, or is constant, on the tensor ``a``."""
    d, n = g.dim(t), t.dim()
    expressions = [f"torch.where({a} > 0, {a}, 0.0)", f"{a}.clamp(-0.5, 0.5)", f"{a}.relu()", f"{a}.abs()", f"{a} ** 0",
                   f"{a}.max()", f"{a}.min()", f"{a}.masked_fill({a} > 0, 1.0)", f"{a}.var()", f"{a}.std()",
                   f"{a}.var(correction={g.choose.pick([0, 2, 3])})", f"{a}.std({d}, correction={g.choose.pick([0, 1, 2])})",
                   f"{a}.var({d})", f"{a} % 1.5", f"{a}.amax()", f"{a}.amin({d})", f"{a}.median()",
                   f"{a}.median({d}).values", f"torch.nn.functional.leaky_relu({a})", f"{a}.max({d})[0]",
                   f"{a}.sort({d})[0]", f"{a}[{a} > 0]", f"{a}.div(2, rounding_mode='floor')"]
    if t.numel():
        index = f"torch.zeros({[1] * n}, dtype=torch.long)"
        expressions.append(f"{a}.scatter({d}, {index}, {g.choose.pick(['0.0', '2.5'])})")
    return expressions


def writes_in_place(g: Generator, y: str, t) -> list:
    """In-place writes into the fresh non-leaf ``y`` whose backward zeroes what they overwrote."""
    writes = [f"{y}.fill_(2.0)", f"{y}.zero_()", f"{y}.copy_({y}.detach() * 2)", f"{y}.pow_(0)", f"{y}.pow_(2)"]
    if t.dim():
        writes += [f"{y}[0] = 1.0", f"{y}[{y} > 0] = 0.0", f"{y}[torch.tensor([0])] = 5.0",
                   f"{y}.scatter_(0, torch.zeros({[1] * t.dim()}, dtype=torch.long), -1.0)"]
    return writes


def make_mask(g: Generator) -> None:
    """A masking op (or an in-place write into a copy), then a backward with inf and nan in its gradient."""
    choose = g.choose
    a = g.tensor(floating=True, grad=True) if choose.chance(70) else g.edge_leaf()
    t = g.value(a)
    if choose.chance(30) and t.numel():
        y = g.new_name()
        g.assign(f"{a} * 1")
        g.add(choose.pick(writes_in_place(g, y, g.value(y))), y)
    else:
        y = g.new_name()
        g.assign(choose.pick(masking_expressions(g, a, t)))
    if y in g.names and g.value(y).requires_grad:
        g.add(f"{y}.backward({edge_gradient(g, g.value(y))})", g.leaf_grads())


SAVED_BINARY = ["{p} + {q}", "{p} - {q}", "{p} * {q}", "{p} / {q}", "{p}.abs() ** {q}", "{p} % {q}", "{p} // {q}",
                "torch.where({p} > 0, {p}, {q})", "torch.div({p}, {q}, rounding_mode='trunc')", "{p}.remainder({q})"]


def make_saved(g: Generator) -> None:
    """``r = p op q`` on fresh non-leaves, one operand changed in place afterwards, then a backward:
    PyTorch refuses it exactly when op saved that operand."""
    choose = g.choose
    a = g.tensor(floating=True, grad=True)
    b = g.tensor(floating=True) if choose.chance(50) else g.leaf(g.broadcast_partner(g.value(a)))
    p, q = g.new_name(), None
    g.assign(f"{a} * 1")
    q = g.new_name()
    g.assign(f"{b} * 1")
    if p not in g.names or q not in g.names:
        return
    form = choose.pick(SAVED_BINARY + (["{p} @ {q}.t()"] if g.value(p).dim() == 2 and g.value(q).dim() == 2 else []))
    r = g.new_name()
    g.assign(form.format(p=p, q=q))
    changed = choose.pick([p, q])
    change = choose.pick([f"{changed}.add_(1.0)", f"{changed}.mul_(2)", f"{changed}.zero_()"])
    g.add(f"with torch.no_grad():\n    {change}" if choose.chance(60) else change, changed)
    if r in g.names and g.value(r).requires_grad:
        g.add(f"{r}.sum().backward()", g.leaf_grads())


def make_integer(g: Generator) -> None:
    """Integer powers and divisions: negative exponents, zero divisors, rounding modes."""
    choose = g.choose
    i = g.tensor(floating=False)
    j = g.tensor(floating=False) if choose.chance(50) else g.leaf(tuple(g.value(i).shape), floating=False)
    g.assign(choose.pick([f"{i} ** -1", f"{i}.pow(-2)", f"{i} ** {j}", f"2 ** {j}", f"(-1) ** {j}", f"{i} ** 0.5",
                          f"{i} % {j}", f"{i} // {j}", f"{i} % 0", f"{i} // 2", f"torch.floor_divide({i}, {j})",
                          f"torch.remainder(-7, {j})", f"{i}.div({j}, rounding_mode='floor')",
                          f"{i}.div(2, rounding_mode='trunc')", f"torch.div(7, {j}, rounding_mode='trunc')",
                          f"{i}.abs() ** {j}.abs()", f"torch.tensor(2) ** {j}"]))


DIRTY_FRESH = '''
        class DirtyFresh(Function):
            @staticmethod
            def forward(ctx, x):
                y = x * 2
                ctx.mark_dirty(y)
                return y

            @staticmethod
            def backward(ctx, grad):
                return grad
        '''
FUNCTIONS["DirtyFresh"] = DIRTY_FRESH


def make_detach(g: Generator) -> None:
    """detach_() (or requires_grad_(False) on a leaf) after the graph was made, then a backward; or a
    custom Function that marks dirty a tensor that is not an input."""
    choose = g.choose
    if choose.chance(20):
        a, name = g.tensor(floating=True), g.new_name()
        call = f"DirtyFresh.apply({a})"
        return g.add(f"with torch.no_grad():\n    {name} = {call}" if choose.chance(30) else f"{name} = {call}", name)
    a = g.tensor(floating=True, grad=True)
    if choose.chance(40):
        leaf = g.leaf(tuple(g.value(a).shape))
        if not g.value(leaf).requires_grad:
            return
        w = g.new_name()
        g.assign(choose.pick([f"{leaf} * {leaf}", f"{leaf}.exp()", f"{leaf} + 1"]))
        g.add(choose.pick([f"{leaf}.detach_()", f"{leaf}.requires_grad_(False)"]), leaf)
        if w in g.names:
            g.add(f"{w}.sum().backward()", f"({leaf}.grad, {g.leaf_grads()})")
        return
    else:
        y, w = g.new_name(), None
        g.assign(choose.pick([f"{a} * 1", f"{a}.exp()", f"{a}.sigmoid()"]))
        w = g.new_name()
        g.assign(choose.pick([f"{y} * {y}", f"{y}.sin()", f"{y} + 1", f"{y}.exp()"]))
        g.add(f"{y}.detach_()", y)
    if w in g.names and g.value(w).requires_grad:
        g.add(f"{w}.sum().backward()", g.leaf_grads())


def everyday_expressions(g: Generator, a: str, t) -> list:
    """Calls of the methods of ops/everyday.py (and the grad-mode and division forms) on ``a``."""
    choose = g.choose
    d, n = g.dim(t), t.dim()
    expressions = [f"{a}.argsort()", f"torch.argsort({a}, {d}, descending=True)", f"{a}.amax()", f"{a}.amin({d})",
                   f"torch.amax({a}, {d}, keepdim=True)", f"{a}.median()", f"{a}.median({d})", f"torch.median({a}, {d}, True)",
                   f"{a}.stride()", f"{a}.t().stride()" if n == 2 else f"{a}.stride(0)" if n else f"{a}.stride()",
                   f"{a}.remainder(1.5)", f"{a}.floor_divide(2)", f"torch.div({a}, 2, rounding_mode='floor')",
                   f"{a} ** torch.tensor(2.0)"]
    if t.numel():
        index = f"torch.tensor({choose.integer(0, t.shape[d] - 1) if n else 0}).view({[1] * n})"
        src = choose.pick(["3.5", f"torch.ones({[1] * n}, dtype={a}.dtype)", f"{a}.detach() * 0 + 9", f"{a} * 2"])
        expressions += [f"{a}.scatter({d}, {index}, {src})", f"torch.scatter({a}, {d}, {index}, value=-1.0)"]
    return expressions


def make_everyday(g: Generator) -> None:
    """One of the methods students reach for, sometimes in place on a fresh copy, sometimes under
    inference_mode."""
    choose = g.choose
    a = g.tensor(floating=choose.chance(85))
    t = g.value(a)
    if choose.chance(25) and t.is_floating_point():
        y = g.new_name()
        g.assign(f"{a} * 1")
        exponent = choose.pick(["2", "0.5", "-1", "0", f"torch.full({list(t.shape)}, 2.0, dtype={a}.dtype)"])
        op = f"{y}.pow_({exponent})"
        if t.dim() and t.shape[0]:
            index = f"torch.zeros({[1] * t.dim()}, dtype=torch.long)"
            op = choose.pick([op, f"{y}.scatter_(0, {index}, 4.0)"])
        return g.add(f"with torch.no_grad():\n    {op}" if choose.chance(20) else op, y)
    expression = choose.pick(everyday_expressions(g, a, t))
    if choose.chance(15):
        mode = choose.pick(["torch.inference_mode()", "torch.inference_mode(False)"])
        name = g.new_name()
        g.add(f"with {mode}:\n    {name} = {expression}\n    {name}_mode = torch.is_inference_mode_enabled()",
              f"({name}_mode, torch.is_grad_enabled())")
        return
    g.assign(expression)


for _kind in ("mask", "saved", "integer", "detach", "everyday"):
    setattr(Generator, f"make_{_kind}", globals()[f"make_{_kind}"])


def generate(choose, torch, min_steps: int = 3, max_steps: int = 10) -> Program:
    """A random program, built by running it on ``torch`` (real PyTorch) as it grows."""
    generator = Generator(choose, torch)
    generator.leaf()
    for _ in range(choose.integer(min_steps, max_steps)):
        generator.step()
    return generator.program


# ------------------------------------------- backward's arguments, saved inputs, inputs= on non-leaves (issue 19)
# The three kinds of program the fuzzer had not generated, each of which minigrad got silently wrong:
# fewer gradients than tensors (one tensor was dropped), a custom Function that saves an input and
# returns it among several outputs (the returned alias was saved instead), and backward(inputs=...)
# on a non-leaf that retains its grad (its gradient was added twice).
ISSUE19_STEPS = ["root_gradients", "saved_input", "inputs_nonleaf", "inputs_nonleaf"]


def make_root_gradients(g: Generator) -> None:
    """backward / autograd.grad with as many gradients as tensors, one fewer or one more, one tensor
    instead of a list, an empty list, or the deprecated ``grad_variables``."""
    choose = g.choose
    ys = [g.tensor(grad=True) for _ in range(choose.integer(1, 2))]
    grads = [choose.pick([f"torch.ones_like({y})", f"torch.full_like({y}, 2.0)", "None"]) for y in ys]
    grads = choose.pick([grads, grads[:-1], grads + ["torch.ones(())"], grads[:1]])
    grads = choose.pick([f"[{', '.join(grads)}]"] * 3 + [grads[0] if grads else "[]", "[]"])
    if choose.chance(50):
        keyword = "grad_variables=" if choose.chance(15) else ""
        g.add(f"torch.autograd.backward([{', '.join(ys)}], {keyword}{grads}, retain_graph=True)", g.leaf_grads())
        return
    leaves = [n for n in g.names if g.value(n).is_leaf and g.value(n).requires_grad]
    name = g.new_name()
    g.add(f"{name} = torch.autograd.grad([{', '.join(ys)}], [{choose.pick(leaves or ys)}], {grads}, "
          "retain_graph=True, allow_unused=True)", name)


def make_saved_input(g: Generator) -> None:
    """A custom Function that saves its input and returns it (alone or with another output); then the
    saved tensor as backward will see it, and often a backward that uses it (twice differentiated)."""
    choose = g.choose
    a = g.tensor(floating=True)
    first, second = f"same{len(g.names)}", g.new_name()   # first: the input returned, a view of it
    if choose.chance(50):
        g.add(f"{first}, {second} = SquareToo.apply({a})", f"({first}, {second})")
        made = [first, second]
    else:
        g.add(f"{first} = KeepIt.apply({a})", first)
        made = [first]
    made = [n for n in made if isinstance(g.namespace.get(n), g.torch.Tensor)]
    # The first output is a view of the input: later steps do not get it (an in-place change of it,
    # or of its input, is a case of its own, PyTorch's "function that returns multiple views").
    g.names += [n for n in made if n == second]
    if not made or not g.value(first).requires_grad:
        return
    g.add("pass", f"{first}.grad_fn.saved_tensors[0]")
    leaves = [n for n in g.names if g.value(n).is_leaf and g.value(n).requires_grad]
    if leaves and choose.chance(60):
        total = " + ".join(f"{n}.sum()" for n in made)
        name = g.new_name()
        g.add(f"{name}, = torch.autograd.grad({total}, [{choose.pick(leaves)}], create_graph=True, allow_unused=True)",
              f"{name}.detach() if {name} is not None else None")
        if isinstance(g.namespace.get(name), g.torch.Tensor) and g.value(name).requires_grad:
            g.add(f"{name}.sum().backward()", g.leaf_grads())


def make_inputs_nonleaf(g: Generator) -> None:
    """``backward(inputs=...)`` or ``autograd.grad`` on a non-leaf that may retain its grad and have a
    hook, with an upstream leaf among the inputs or not, once or twice."""
    choose = g.choose
    non_leaves = [n for n in g.names if g.value(n).requires_grad and not g.value(n).is_leaf
                  and g.value(n).is_floating_point()]
    if non_leaves and choose.chance(70):
        y = choose.pick(non_leaves)
    else:
        source = g.tensor(floating=True, grad=True)   # (may make a leaf first: name y after it)
        y = g.new_name()
        g.assign(f"{source} * 2")
        if not isinstance(g.namespace.get(y), g.torch.Tensor) or not g.value(y).requires_grad:
            return
    if choose.chance(60):
        g.add(f"{y}.retain_grad()", f"{y}.retains_grad")
    if choose.chance(30):
        g.add(f"_ = {y}.register_hook(lambda grad: grad * 10)", "None")
    if choose.chance(20):
        g.add(f"_ = {y}.grad_fn.register_prehook(lambda grads: None)", "None")
    z = g.new_name()
    g.assign(f"({y} * {y}).sum()")
    leaves = [n for n in g.names if g.value(n).is_leaf and g.value(n).requires_grad]
    leaf = choose.pick(leaves) if leaves else y
    inputs = choose.pick([f"[{y}]", f"[{y}, {leaf}]", f"[{leaf}, {y}]", f"[{y}, {y}]"])
    for _ in range(choose.pick([1, 1, 2])):
        if choose.chance(60):
            g.add(f"{z}.backward(inputs={inputs}, retain_graph=True)", f"({y}.grad, {g.leaf_grads()})")
        else:
            name = g.new_name()
            g.add(f"{name} = torch.autograd.grad({z}, {inputs}, retain_graph=True)", f"({name}, {y}.grad)")


Generator.make_root_gradients = make_root_gradients
Generator.make_saved_input = make_saved_input
Generator.make_inputs_nonleaf = make_inputs_nonleaf
