"""What real programs reach for, run statement by statement on PyTorch and on minigrad, as in
``test_real_program_ops.py``: values, dtypes, ``repr``, the ``grad_fn`` graph with its edges, warnings,
and each exception's type and message must agree. A line ending in ``# observe: EXPR`` compares EXPR;
a line ``name = ...`` compares ``name``; any other line compares nothing but its error, if it raises.
"""
import pytest

import minigrad

torch = pytest.importorskip("torch", reason="the fidelity tests compare with real PyTorch: run `make fidelity`")
from compare import compare, report  # noqa: E402  (after the skip)
from programs import Program, Step  # noqa: E402

X = "x = torch.tensor([[1.5, -2.0, 0.5], [-0.25, 3.0, -1.0]], requires_grad=True)"
Y = "y = torch.tensor([[0.5, -2.0, 1.0], [2.0, 3.0, -3.0]], requires_grad=True)"
I = "i = torch.tensor([[3, 5, -2], [0, 7, 1]])"

PROGRAMS = {
    "rsub and reflected operators": [
        X, Y, "r = x.__rsub__(y)", "r.sum().backward()  # observe: (x.grad, y.grad)", "r = torch.rsub(x, y, alpha=2)",
        "r = torch.rsub(x, 2)", "r = 1 - x", "r = 2 / x", "r = 2 ** x", "r = x.__rtruediv__(y)", "r = x + 'a'",
        "r = [1] - x", "r = x @ 3", "b = x == 'a'  # observe: b"],
    "bitwise and logical": [
        I, "r = i & 6", "r = i | i.t().t()", "r = i ^ 3", "r = ~i", "r = i << 2", "r = i >> 1", "r = 1 << i.abs()",
        "r = i >> 70", "b = i > 0", "r = b & (i < 5)", "r = b ^ True", "r = torch.logical_xor(i, b)",
        "r = torch.bitwise_and(i, 3)", "r = i.float() & 1", "r = ~i.float()", "i &= 5  # observe: (i, i._version)",
        "b &= i"],
    "maximum and comparisons": [
        X, Y, "m = torch.max(x, y)", "m.sum().backward()  # observe: (x.grad, y.grad)", "m = torch.minimum(x, y.detach())",
        "m = x.max(y)", "m = torch.max(x, 1.0)", "g = torch.gt(x, 0)", "g = torch.le(x, y)", "g = torch.not_equal(x, y)",
        "g = torch.gt(1, x)", "m = torch.maximum(x, torch.tensor(0.0))"],
    "softplus and binary cross-entropy": [
        X, "s = torch.nn.functional.softplus(x, beta=2, threshold=3)", "s.sum().backward()  # observe: x.grad",
        "p = torch.tensor([0.1, 0.9, 0.5, 1.0, 0.0], requires_grad=True)", "t = torch.tensor([0.0, 1.0, 1.0, 1.0, 0.0])",
        "l = torch.nn.functional.binary_cross_entropy(p, t, reduction='none')",
        "l = torch.nn.functional.binary_cross_entropy(p, t, weight=torch.arange(5.0))",
        "l.backward()  # observe: p.grad", "l = torch.nn.functional.binary_cross_entropy(p, t, size_average=False)",
        "z = torch.tensor([-2.0, 0.0, 3.0, 50.0, -50.0], requires_grad=True)",
        "l = torch.nn.functional.binary_cross_entropy_with_logits(z, t, pos_weight=torch.tensor(2.0))",
        "l.backward()  # observe: z.grad", "l = torch.nn.BCEWithLogitsLoss(reduction='sum')(z, t)",
        "l = torch.nn.functional.binary_cross_entropy(p, t[:2])", "l = torch.nn.functional.binary_cross_entropy(p * 2, t)"],
    "cross_entropy options": [
        X, "t = torch.tensor([2, 0])", "w = torch.tensor([1.0, 2.0, 0.5])",
        "l = torch.nn.functional.cross_entropy(x, t, weight=w, label_smoothing=0.1)",
        "l.backward()  # observe: x.grad", "l = torch.nn.functional.cross_entropy(x, t, ignore_index=0)",
        "q = torch.tensor([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]])", "l = torch.nn.functional.cross_entropy(x, q)",
        "l = torch.nn.functional.cross_entropy(x, q, reduction='none', label_smoothing=0.2)",
        "l = torch.nn.CrossEntropyLoss(weight=w, label_smoothing=0.05)(x, t)",
        "l = torch.nn.functional.cross_entropy(x, q, ignore_index=1)"],
    "nll_loss over more dimensions": [
        "x = torch.tensor([[[0.5, -1.0, 2.0], [0.25, 1.5, -0.5]], [[1.0, 2.0, 3.0], [-1.0, -2.0, 0.5]]], requires_grad=True)",
        "t = torch.tensor([[0, 1, -100], [1, 0, 1]])", "l = torch.nn.functional.nll_loss(x, t)",
        "l.backward()  # observe: x.grad", "l = torch.nn.functional.nll_loss(x, t, reduction='none')",
        "l = torch.nn.functional.nll_loss(x.unsqueeze(-1), t.unsqueeze(-1), weight=torch.tensor([2.0, 0.5]))",
        "l = torch.nn.functional.nll_loss(x, t[:, :2])", "l = torch.nn.functional.nll_loss(x, t, weight=torch.ones(3))"],
    "repeat, select, transpose_, index_add, fill": [
        X, "r = x.repeat(2, 1, 3)", "r.sum().backward()  # observe: x.grad", "r = x.repeat_interleave(2, dim=1)",
        "r = x.repeat_interleave(torch.tensor([1, 3]), dim=0)", "r = x.select(1, -1)", "r = torch.select(x, 0, 1)",
        "z = x * 1", "z.transpose_(0, 1)  # observe: z", "s = torch.ones(2, 2, requires_grad=True)",
        "r = torch.index_add(x, 1, torch.tensor([0, 2]), s, alpha=2)", "r.sum().backward()  # observe: (x.grad, s.grad)",
        "r = torch.fill(x, 2.5)", "r = torch.fill(x, torch.tensor(1.0, requires_grad=True))",
        "r = x.narrow(1, torch.tensor(1), 2)", "r = x.narrow(1, 1.0, 2)", "r = x.repeat(2)"],
    "modules": [
        "m = torch.nn.Module()", "m.register_buffer('b', torch.ones(2))  # observe: list(m.state_dict())",
        "m.c = torch.nn.Buffer(torch.zeros(1), persistent=False)  # observe: [n for n, _ in m.named_buffers()]",
        "l = torch.nn.Linear(2, 2)", "l.weight = torch.ones(2, 2)", "l.add_module('a.b', torch.nn.ReLU())",
        "s = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Tanh(), torch.nn.Sigmoid())",
        "del s[1]  # observe: [type(k).__name__ for k in s]", "s.insert(0, torch.nn.Tanh())  # observe: len(s)",
        "k = s.pop(-1)  # observe: type(k).__name__", "s[5] = torch.nn.ReLU()"],
}


@pytest.mark.parametrize("name", PROGRAMS, ids=list(PROGRAMS))
def test_program_behaves_the_same_on_minigrad_and_pytorch(name):
    steps = []
    for line in PROGRAMS[name]:
        code, _, observe = line.partition("  # observe: ")
        if not observe:
            head = code.split(" = ", 1)[0]
            observe = head if " = " in code and head.isidentifier() else "None"
        steps.append(Step(code, observe))
    program = Program(steps)
    found = compare(program, torch, minigrad)
    assert not found, report(program, found)
