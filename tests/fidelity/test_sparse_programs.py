"""Sparse COO programs, run on minigrad and on PyTorch: the same values, repr (indices and values as
stored), dimensions, coalesced flags, node graphs, warnings and errors.

Each program is plain PyTorch code; a line ending in ``# observe: EXPR`` compares EXPR; a line
``name = ...`` compares ``name``; any other line compares nothing but its error, if it raises.
Gradients of sparse leaves are observed coalesced: minigrad flags its masked gradients coalesced
(their coordinates are sorted and unique) where PyTorch's ``.grad`` often is not (README).

Refusals are not compared here where PyTorch's own is a NotImplementedError from its dispatcher
("Could not run 'aten::exp' with arguments from the 'SparseCPU' backend"): minigrad's names the
operation instead (``tests/sparse/``).
"""
import pytest

import minigrad

torch = pytest.importorskip("torch", reason="the fidelity tests compare with real PyTorch: run `make fidelity`")
from compare import compare, report  # noqa: E402  (after the skip)
from programs import Program  # noqa: E402

S = "s = torch.sparse_coo_tensor([[1, 0, 1], [2, 0, 2]], [3.0, 4.0, 5.0], (2, 3))"
L = ("l = torch.sparse_coo_tensor([[1, 0, 1], [2, 0, 2]], torch.tensor([3.0, 4.0, 5.0], dtype=torch.float64), "
     "(2, 3), requires_grad=True)")
H = "h = torch.sparse_coo_tensor([[0, 2, 0]], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], (3, 2))"
D = "d = torch.tensor([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]], dtype=torch.float64, requires_grad=True)"
V = "v = torch.tensor([3.0, 4.0, 5.0], dtype=torch.float64, requires_grad=True)"
I = "i = torch.tensor([[1, 0, 1], [2, 0, 2]])"
B = "b = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 4.0]], dtype=torch.float64, requires_grad=True)"

PROGRAMS = {
    "construction": [
        S, H, "z = torch.sparse_coo_tensor([[0, 2]], [1, 2])", "z = torch.sparse_coo_tensor((2, 3))",
        "z = torch.sparse_coo_tensor(size=(2, 3, 0), dtype=torch.float64)", "z = torch.sparse_coo_tensor(())",
        "z = torch.sparse_coo_tensor(torch.zeros(0, 2, dtype=torch.long), [1.5, 2.0], [])",
        "z = torch.sparse_coo_tensor([[0, 1]], 2.0, (3,))", "z = torch.sparse_coo_tensor([[0]], [1], (2,), dtype=torch.float64)",
        "z = torch.sparse_coo_tensor(torch.empty(3, 0), torch.empty(0, 2, 4, 0))",
        "z = torch.sparse_coo_tensor([[0, 1]], [[1.0], [2.0]], (2, 2))",
        "z = torch.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (2, 3))",
        "z = torch.sparse_coo_tensor([[0]], [1.0, 2.0], (2,))",
        "z = torch.sparse_coo_tensor([[[0, 1]]], [1.0, 2.0], (2,))",
        "z = torch.sparse_coo_tensor([[0, 3]], [1.0, 2.0], (2,), check_invariants=True)",
        "z = torch.sparse_coo_tensor([[-1, 0]], [1.0, 2.0])",
        "z = torch.sparse_coo_tensor([[0, 0]], [1.0, 2.0], (2,), is_coalesced=True, check_invariants=True)",
        "z = torch.sparse_coo_tensor([[0]], [1], (2,), requires_grad=True)",
        "z = torch.sparse_coo_tensor([[100000, 99999]] * 4, [1.0, 2.0], (100001,) * 4)",
        V, I, "z = torch.sparse_coo_tensor(i, v, (2, 3))  # observe: (z, z.requires_grad, z.is_leaf)",
        "z = torch.sparse_coo_tensor(i, v.detach(), (2, 3), requires_grad=True)  # observe: (z, z.is_leaf)"],
    "parts and flags": [
        S, "p = (s._indices(), s._values(), s._nnz(), s.sparse_dim(), s.dense_dim(), s.is_coalesced())",
        "p = s.indices()", "p = s.values()", "c = s.coalesce()  # observe: (c, c.indices(), c.values())",
        "p = (s.ndimension(), s.dim(), s.shape, s.size(1), s.numel(), s.is_sparse, s.layout)",
        H, "c = h.coalesce()  # observe: (c, c.sparse_dim(), c.dense_dim())",
        "p = torch.sparse_coo_tensor([[0], [0]], [1.0], (2, 2)).is_coalesced()",
        "p = torch.tensor([[1.0, 0.0]]).is_coalesced()", "p = torch.tensor([[1.0, 0.0]]).indices()",
        "p = torch.tensor([[1.0, 0.0]]).values()", "p = torch.tensor([[1.0, 0.0]]).coalesce()",
        "p = (torch.tensor([[1.0, 0.0]]).sparse_dim(), torch.tensor([[1.0, 0.0]]).dense_dim())",
        "p = s.numpy()", "p = s.type()", "p = s.double().type()"],
    "conversions": [
        S, H, "t = s.to_dense()", "t = h.to_dense()", "t = torch.tensor([[1.0, 0.0], [0.0, 0.0], [0.0, 2.0]]).to_sparse()",
        "t = torch.tensor([[1.0, 0.0], [0.0, 0.0], [0.0, 2.0]]).to_sparse(1)", "t = torch.tensor(3.0).to_sparse()",
        "t = torch.tensor(0.0).to_sparse()", "t = torch.tensor([[1.0, 0.0]]).to_sparse(3)",
        "t = torch.tensor([1.0, 0.0]).to_sparse(0)", "t = s.to_sparse()", "t = s.to_sparse(1)",
        "t = torch.empty(5, 4, 0).to_sparse(2)", "t = torch.tensor([[1, 0], [0, 3]]).to_sparse()",
        "t = torch.tensor([True, False]).to_sparse()", "t = s.clone()  # observe: (t, t.is_coalesced())",
        "t = s.coalesce().clone()  # observe: (t, t.is_coalesced())", "t = s.double()", "t = s.to(torch.float64)",
        "t = s.to('cpu')", "t = s.float()", "t = s.new(s._indices(), s._values())", "t = s.new(torch.Size([2, 3]))",
        "t = s.new()", "t = s.new(s._values())", "t = s.new([6])", "t = torch.zeros_like(s)"],
    "transposes": [
        S, "t = s.t()", "t = s.T", "t = s.transpose(0, 1)", "t = s.transpose(0, -1)",
        "t = s.coalesce().t()  # observe: (t, t.is_coalesced())", "t = s.transpose(0, 2)", H, "t = h.t()",
        "t = h.transpose(0, 1)", "t = torch.sparse_coo_tensor([[0]], [1.0], (2,)).t()",
        "t = torch.sparse_coo_tensor([[0], [1], [2]], [1.0], (3, 3, 3)).transpose(0, 2)",
        "t = torch.sparse_coo_tensor([[0], [1], [2]], [1.0], (3, 3, 3)).t()",
        "t = s.clone()", "t.t_()  # observe: t", "t.transpose_(1, 0)  # observe: t"],
    "sums of two tensors": [
        S, "t = s + s", "t = s - s", "t = s.coalesce() + s.coalesce()", "t = torch.add(s, s, alpha=2)",
        "t = s.sub(s, alpha=3)", "t = torch.ones(2, 3) + s", "t = torch.add(torch.ones(2, 3), s, alpha=2)",
        "t = torch.ones(2, 3) - s", "t = torch.ones(2, 3, dtype=torch.int64) + s", "t = s + torch.ones(2, 3)",
        "t = s + 1", "t = 1 + s", "t = 1 - s", "t = s - 1",
        "t = s + torch.sparse_coo_tensor([[0]], [3.0], (2,))", H,
        "t = h + torch.sparse_coo_tensor([[0, 1], [0, 1]], [1.0, 2.0], (3, 2))",
        "t = torch.ones(3, 2) + torch.sparse_coo_tensor([[0]], [[1.0, 2.0, 3.0]], (3, 3))",
        "t = s + torch.sparse_coo_tensor([[0], [0]], [3], (2, 3))",
        "t = torch.add(torch.ones(2, 3, dtype=torch.int64), torch.sparse_coo_tensor([[0], [0]], [3], (2, 3)), alpha=1.5)"],
    "products and division": [
        S, "t = s * 2", "t = 2 * s", "t = s * 2.5", "t = s * True", "t = s * torch.tensor(2.0)",
        "t = s * torch.tensor([2.0, 3.0, 4.0])", "t = torch.tensor([2.0, 3.0, 4.0]) * s",
        "t = s * torch.ones(2, 3)", "t = s * torch.ones(3, 3)", "t = s * s", "t = s * s.coalesce()",
        "t = s * torch.sparse_coo_tensor([[0]], [3.0], (2,))", "t = s * torch.tensor(3.0).to_sparse()",
        "t = s / 2", "t = s / torch.tensor(2.0)", "t = s / s", "t = s / torch.ones(2, 3)",
        "t = s.div(-2, rounding_mode='floor')", "t = s.div(-2, rounding_mode='trunc')", "t = s // 2",
        "t = torch.tensor(1.0).to_sparse() / torch.tensor(1.0).to_sparse()",
        "t = torch.tensor(1.0).to_sparse() // torch.tensor(1.0).to_sparse()",
        "t = torch.sparse_coo_tensor([[0]], [3], (2,)) / 2", "t = torch.sparse_coo_tensor([[0]], [3], (2,)) // 2",
        "t = torch.sparse_coo_tensor([[0]], [3], (2,)) * 2.5", "t = -s", "t = s.neg()", "t = s ** 2", "t = s ** 3",
        "t = s ** 0", "t = s.pow(-1)"],
    "in place": [
        S, "t = s.clone()", "t.mul_(2)  # observe: t", "t.div_(4)  # observe: t", "t.add_(s)  # observe: t",
        "t.sub_(s, alpha=2)  # observe: t", "t.neg_()  # observe: t", "t.zero_()  # observe: t",
        "t = torch.sparse_coo_tensor([[0]], [1], (2,))", "t.mul_(2.5)", "t.div_(2)", L, "l.mul_(2)", "l.zero_()"],
    "element-wise functions": [
        "s = torch.sparse_coo_tensor([[0, 1, 1, 3]], [0.5, 2.0, -1.0, 4.0], (5,))", "t = s.abs()", "t = s.sign()",
        "t = s.sin()", "t = s.sqrt()", "t = s.tanh()", "t = s.relu()", "t = torch.nn.functional.relu(s)",
        "t = torch.abs(s)", "t = torch.isnan(torch.sparse_coo_tensor([[0, 1]], [1.0, float('nan')], (3,)))",
        "t = torch.isinf(torch.sparse_coo_tensor([[0, 1]], [1.0, float('inf')], (3,)))", "t = s.any()",
        "t = torch.any(torch.sparse_coo_tensor([[0, 1]], [False, False], (3,)))"],
    "gradients of element-wise functions": [
        "l = torch.sparse_coo_tensor([[0, 1, 1, 3]], torch.tensor([0.5, 2.0, -1.0, 4.0], dtype=torch.float64), (5,), requires_grad=True)",
        "t = l.abs()", "t.to_dense().sum().backward()  # observe: l.grad.coalesce()", "l.grad = None",
        "t = l.relu()", "t.to_dense().sum().backward()  # observe: l.grad.coalesce()", "l.grad = None",
        "t = l.sign()", "t.to_dense().sum().backward()  # observe: l.grad.coalesce().to_dense()", "l.grad = None",
        "t = l ** 3", "t.to_dense().sum().backward()  # observe: l.grad.coalesce()"],
    "sums": [
        S, "t = torch.sparse.sum(s)", "t = torch.sparse.sum(s, 0)", "t = torch.sparse.sum(s, 1)",
        "t = torch.sparse.sum(s, (0, 1))", "t = torch.sparse.sum(s, -1)", "t = torch.sparse.sum(s, 5)",
        "t = torch.sparse.sum(s, [0, 0])", "t = torch.sparse.sum(s, dtype=torch.float64)", "t = s.sum()",
        "t = s.sum(0)", "t = s.sum(1, keepdim=True)", "t = s.sum((0, 1), keepdim=True)", "t = s.sum(dtype=torch.float64)",
        H, "t = torch.sparse.sum(h, 1)", "t = torch.sparse.sum(h, 0)", "t = torch.sparse.sum(h)",
        "t = torch.sparse.sum(torch.sparse_coo_tensor([[0, 1]], [True, True], (2,)))",
        "t = torch.sparse.sum(torch.sparse_coo_tensor(size=(3, 3)), 0)",
        "t = torch.sparse.sum(torch.tensor([[1.0, 2.0]]))"],
    "norm": [
        S, "t = s.norm()", "t = s.norm(p=1)", "t = s.norm(p=float('inf'))", "t = s.norm(p=0)", "t = torch.norm(s)",
        "t = torch.sparse_coo_tensor([[0, 0]], [3.0, 4.0], (2,)).norm()", "t = s.norm(keepdim=True)",
        "t = s.norm(dim=0)", "t = s.norm(dtype=torch.double, p='fro')", "t = s.norm(dtype=torch.double, p=0)",
        "t = torch.sparse_coo_tensor([[0]], [3], (2,)).norm()"],
    "gradients of sparse leaves": [
        L, D, "l.to_dense().sum().backward()  # observe: l.grad.coalesce()", "l.grad = None",
        "l.to_dense(masked_grad=False).sum().backward()  # observe: l.grad.coalesce()", "l.grad = None",
        "(l * 2).to_dense().sum().backward()  # observe: l.grad.coalesce()", "l.grad = None",
        "(l + l).to_dense().sum().backward()  # observe: l.grad.coalesce()", "l.grad = None",
        "(l * d).to_dense().sum().backward()  # observe: (l.grad.coalesce(), d.grad.coalesce())", "l.grad = None",
        "(l * l).to_dense().sum().backward()  # observe: l.grad.coalesce()", "l.grad = None",
        "torch.sparse.sum(l).backward()  # observe: l.grad.coalesce()", "l.grad = None",
        "torch.sparse.sum(l, 0).to_dense().sum().backward()  # observe: l.grad.coalesce()", "l.grad = None",
        "l.sum().backward()  # observe: l.grad", "l.grad = None",
        "l.t().to_dense().sum().backward()  # observe: l.grad.coalesce()", "l.grad = None",
        "l.coalesce().values().sum().backward()  # observe: l.grad.coalesce()", "l.grad = None",
        "l.double().to_dense().sum().backward()  # observe: l.grad.coalesce()", "l.grad = None",
        "l.sum(0).to_dense().sum().backward()",
        "l.to_dense().sum().backward()", "torch.mm(l, torch.ones(3, 1, dtype=torch.float64)).sum().backward()  # observe: l.grad",
        "l.grad = None", "torch.mm(l, torch.ones(3, 1, dtype=torch.float64)).sum().backward()",
        "l.to_dense().sum().backward()  # observe: l.grad",
        "l.grad = None", "(l.to_dense() + torch.mm(l, torch.ones(3, 3, dtype=torch.float64))).sum().backward()  # observe: l.grad",
        "l.grad = None"],
    "gradients of values": [
        V, I, "s = torch.sparse_coo_tensor(i, v, (2, 3))", "s.to_dense().sum().backward()  # observe: v.grad",
        "v.grad = None", "s = torch.sparse_coo_tensor(i, v, (2, 3))",
        "s.backward(torch.sparse_coo_tensor([[1, 1, 0], [2, 2, 1]], torch.tensor([1.0, 10.0, 100.0], dtype=torch.float64), (2, 3)))  # observe: v.grad",
        "v.grad = None", "s = torch.sparse_coo_tensor(i, v, (2, 3))",
        "s.backward(torch.arange(6.0, dtype=torch.float64).reshape(2, 3))  # observe: v.grad",
        "v.grad = None", "t = torch.sparse_coo_tensor(i, v, (2, 3)).coalesce().values()  # observe: (t, t.grad_fn.name())",
        "t.sum().backward()  # observe: v.grad"],
    "matrix products": [
        L, B, "t = l @ b", "t = l.mm(b)", "t = torch.mm(l, b)", "t = torch.sparse.mm(l, b)", "t = l.matmul(b)",
        "t = l @ b[:, 0]", "t = l.mv(b[:, 0])", "t = l.mv(b)", "t = l.mv(torch.ones(2))",
        "t = l @ torch.ones(2, 2)", "t = torch.ones(2, 2, dtype=torch.float64) @ l", "t = torch.ones(2, dtype=torch.float64) @ l",
        "t = torch.ones(2, 3, dtype=torch.float64) @ l", "t = torch.ones(3, 2, 2, dtype=torch.float64) @ l",
        "t = l @ torch.ones(2, 3, 2, dtype=torch.float64)", "t = l @ torch.ones(3, 2)",
        "t = torch.sparse.mm(l, torch.ones(3))", "t = torch.sparse.mm(torch.ones(2, 3), torch.ones(3, 2))",
        "t = torch.addmm(torch.ones(2, 2, dtype=torch.float64), l, b)", "t = torch.addmm(torch.ones(2, dtype=torch.float64), l, b, beta=0.5, alpha=2)",
        "t = torch.sparse.addmm(torch.ones(2, 2, dtype=torch.float64), l, b, beta=0.5, alpha=2)",
        "t = torch.sparse.addmm(torch.tensor(1.0, dtype=torch.float64), l, b)", "t = torch.sparse.addmm(torch.ones(3, 3, dtype=torch.float64), l, b)",
        "t = torch.addmm(torch.ones(3, 3, dtype=torch.float64), l, b)", "t = torch.sparse.addmm(torch.ones(2, 2), l, b)",
        "t = torch.sparse.addmm(l, l, b)", "t = l.t() @ l", "t = torch.sparse.mm(l, l.t())",
        "t = torch.sparse.mm(l, l.t().float())", "t = torch.sparse.mm(l, torch.sparse_coo_tensor([[0]], [1.0], (4, 2)).double())",
        H, "t = h @ torch.ones(2, 2)"],
    "gradients of matrix products": [
        L, B, "(l @ b).sum().backward()  # observe: (l.grad, b.grad)", "l.grad = b.grad = None",
        "torch.sparse.mm(l, b).sum().backward()  # observe: (l.grad.coalesce(), b.grad)", "l.grad = b.grad = None",
        "torch.sparse.addmm(torch.ones(2, 2, dtype=torch.float64), l, b, alpha=3).sum().backward()  # observe: (l.grad.coalesce(), b.grad)",
        "l.grad = b.grad = None", "torch.addmm(torch.ones(2, 2, dtype=torch.float64), l, b, alpha=3).sum().backward()  # observe: (l.grad, b.grad)",
        "l.grad = b.grad = None", "l.mv(b[:, 0]).sum().backward()  # observe: (l.grad, b.grad)",
        "l.grad = b.grad = None", "(b.t() @ l.t()).sum().backward()  # observe: (l.grad, b.grad)"],
    "sparse_mask": [
        S, "m = torch.sparse_coo_tensor([[0, 0, 1]], [1.0, 2.0, 3.0], (3,))", D,
        "t = torch.tensor([10.0, 20.0, 30.0], requires_grad=True)", "u = t.sparse_mask(m)",
        "u.to_dense().sum().backward()  # observe: t.grad", "u = torch.sparse_coo_tensor([[0, 0]], [1.0, 2.0], (3,)).sparse_mask(m)",
        "u = d.sparse_mask(s)", "u = torch.ones(3).sparse_mask(torch.sparse_coo_tensor([[0]], [1.0], (4,)))"],
    "printing": [
        "t = torch.sparse_coo_tensor([[0, 1]], [[1.5, -2.25], [3.0, 4.0]], (3, 2), dtype=torch.float64)",
        "t = torch.sparse_coo_tensor(torch.arange(24).reshape(2, 12) % 5, torch.arange(12.0), (5, 5))",
        "t = torch.sparse_coo_tensor([[0]], [1], (3,), dtype=torch.int32)",
        "t = torch.sparse_coo_tensor(torch.zeros(2, 0, dtype=torch.long), torch.zeros(0, 3), (2, 2, 3))",
        "t = torch.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (3,), requires_grad=True)",
        "t = torch.sparse_coo_tensor([[0, 1]], torch.tensor([1.0, 2.0], requires_grad=True), (3,))",
        "t = torch.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (3,), requires_grad=True) * 2"],
    "legacy constructors": [
        "t = torch.sparse.FloatTensor(torch.tensor([[0, 1]]), torch.tensor([1.0, 2.0]), torch.Size([3]))",
        "t = torch.sparse.DoubleTensor(2, 3)", "t = torch.sparse.LongTensor(torch.tensor([[0]]), torch.tensor([5]))",
        "p = isinstance(torch.sparse_coo_tensor([[0]], [1.0], (2,)), torch.sparse.FloatTensor)"],
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_sparse_program_behaves_the_same_on_minigrad_and_pytorch(name):
    program = Program.from_lines(PROGRAMS[name])
    found = compare(program, torch, minigrad)
    assert not found, report(program, found)
