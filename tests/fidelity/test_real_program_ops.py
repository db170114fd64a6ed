"""The operations real programs by other authors reach for (issue 21), run on minigrad and on PyTorch.

Each program below is plain PyTorch code; every statement is run on both libraries and what it
leaves (values, dtype, ``repr``, the ``grad_fn`` graph with its edges, warnings, the exception type
and message) must agree. A line ending in ``# observe: EXPR`` compares EXPR; a line ``name = ...``
compares ``name``; any other line compares nothing but its error, if it raises.
"""
import pytest

import minigrad

torch = pytest.importorskip("torch", reason="the fidelity tests compare with real PyTorch: run `make fidelity`")
from compare import compare, report  # noqa: E402  (after the skip)
from programs import Program  # noqa: E402

X = "x = torch.tensor([[1.5, -2.0, 0.5], [-0.25, 3.0, -1.0]], requires_grad=True)"
D = "d = torch.tensor([[1.5, -2.0, 0.5], [-0.25, 3.0, -1.0]], dtype=torch.float64, requires_grad=True)"

PROGRAMS = {
    "sign": [X, "y = x.sign()", "z = torch.sign(x * 2)", "(y * x).sum().backward()  # observe: x.grad",
             "i = torch.tensor([-2, 0, 3]).sign()", "b = torch.tensor([True, False]).sign()"],
    "isclose and allclose": [
        X, "c = torch.isclose(x, x + 1e-9)", "c = x.isclose(torch.tensor(1.5))",
        "c = torch.isclose(torch.tensor([float('nan'), float('inf')]), torch.tensor([float('nan'), float('inf')]), equal_nan=True)",
        "c = torch.allclose(x, x.detach() * (1 + 1e-7))  # observe: c", "c = x.allclose(x + 1)  # observe: c",
        "c = torch.isclose(x, x.double())", "c = torch.allclose(x, torch.ones(4))", "c = torch.isclose(x, 1.5)",
        "c = torch.isclose(x, x, rtol=-1)", "c = torch.isclose(torch.tensor([1, 2]), torch.tensor([1, 3]))"],
    "flip": [X, "y = x.flip(0)", "y = torch.flip(x, [0, 1])", "y = x.flip(-1, 0)", "y = x.flip([])",
             "(x.flip(1) * torch.tensor([1.0, 2.0, 3.0])).sum().backward()  # observe: x.grad",
             "y = torch.flip(x, 0)", "y = x.flip(0, 0)", "y = x.flip(2)", "y = torch.tensor(1.0).flip(0)"],
    "masked_select": [
        X, "y = x.masked_select(x > 0)", "y = torch.masked_select(x, torch.tensor([True, False, True]))",
        "(y * 3).sum().backward()  # observe: x.grad",
        "y = torch.tensor([1.0, 2.0, 3.0], requires_grad=True).masked_select(torch.tensor([[True, False, True], [False, False, True]]))",
        "y = x.masked_select(torch.ones(2, 3, dtype=torch.long))", "y = x.masked_select(torch.tensor([True, False]))"],
    "index_select": [
        X, "y = x.index_select(1, torch.tensor([2, 0, 2]))", "y.pow(2).sum().backward()  # observe: x.grad",
        "y = torch.index_select(x, 0, torch.tensor(1))", "y = x.index_select(-1, torch.tensor([1], dtype=torch.int32))",
        "y = x.index_select(1, torch.tensor([0.0]))", "y = x.index_select(1, torch.tensor([[0]]))",
        "y = x.index_select(1, torch.tensor([5]))", "y = x.index_select(3, torch.tensor([0]))",
        "y = x.index_select(1, [0])", "y = torch.tensor(5.0).index_select(0, torch.tensor([0]))"],
    "masked_fill_": [
        X, "y = x * 1", "y.masked_fill_(y > 0, 0.5)  # observe: y", "y.sum().backward()  # observe: x.grad",
        "v = torch.tensor(2.0, requires_grad=True)", "z = (x * 1).masked_fill_(x < 0, v)",
        "z.sum().backward()  # observe: v.grad", "w = (x * 1).masked_fill_(torch.tensor([True, False, True]), -1)",
        "x.masked_fill_(x > 0, 0)", "(x * 1).masked_fill_(torch.ones(2, 3, dtype=torch.long), 0)",
        "(x * 1).masked_fill_(torch.ones(2, 2, 3, dtype=torch.bool), 0)",
        "i = torch.tensor([1, 2, 3]).masked_fill_(torch.tensor([True, False, True]), 7)  # observe: i"],
    "addmm": [
        X, "b = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)", "y = torch.addmm(b, x.t(), x)",
        "y.sum().backward()  # observe: (x.grad, b.grad)", "y = torch.addmm(b, x.t(), x, beta=0.5, alpha=2)",
        "y.pow(2).sum().backward()  # observe: (x.grad, b.grad)", "y = b.addmm(x.t(), x, alpha=-1)",
        "y = torch.addmm(torch.tensor(1.0), x, x.t(), beta=0)", "y = torch.addmm(torch.ones(2, 1), x, x.t())",
        "y = torch.addmm(torch.ones(3), x, x.t())", "y = torch.addmm(b, x, x)"],
    "einsum": [
        X, "a = torch.tensor([[0.5, 1.0], [2.0, -1.0], [1.5, 0.25]], requires_grad=True)",
        "v = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)",
        "y = torch.einsum('ij,jk->ik', x, a)", "y.pow(2).sum().backward()  # observe: (x.grad, a.grad)",
        "y = torch.einsum('ij,jk', x, a)", "y = torch.einsum('ij,ij->i', x, x)", "y = torch.einsum('ij,ij->ij', x, x)",
        "y = torch.einsum('i,j->ij', v, v)", "y = torch.einsum('ij,j->i', x, v)", "y = torch.einsum('ij,ij->', x, x)",
        "y = torch.einsum('ij->ji', x)", "y = torch.einsum('ij->', x)", "y = torch.einsum('ij,kj->ik', x, x)",
        "y = torch.einsum('bij,bjk->bik', x.unsqueeze(0), a.unsqueeze(0))", "y = torch.einsum('...j,jk->...k', x, a)",
        "y = torch.einsum('bij,jk->bik', torch.stack([x, x]), a)", "y = torch.einsum('ij,jk->ik', [x, a])",
        "y.sum().backward()  # observe: (x.grad, a.grad, v.grad)",
        "y = torch.einsum('ij,jk->ik', x, x)", "y = torch.einsum('ij,jk->ik', x)", "y = torch.einsum('ij->k', x)",
        "y = torch.einsum('i$,j->ij', v, v)", "y = torch.einsum('ij->ii', x)", "y = torch.einsum('ij,jk->ik', x, a.double())"],
    "norm": [
        X, "n = x.norm()", "n = x.norm(1)", "n = x.norm(dim=1)", "n = x.norm(p=1, dim=1)", "n = x.norm(float('inf'))",
        "n = x.norm(float('-inf'))", "n = x.norm(0)", "n = x.norm(3)", "n = x.norm(0.5)", "n = torch.norm(x, dim=1)",
        "n = x.norm('fro')", "n = x.norm(2, 1, True)", "n = x.norm(dim=(0, 1))", "n = x.norm(dtype=torch.float64)",
        "(x.norm() + x.norm(1) + x.norm(3, dim=0).sum() + x.norm(0.5)).backward()  # observe: x.grad",
        "w = torch.tensor([1.0, -3.0, 3.0], requires_grad=True)", "w.norm(float('inf')).backward()  # observe: w.grad",
        "z = torch.zeros(3, requires_grad=True)", "(z.norm() + z.norm(1) + z.norm(3)).backward()  # observe: z.grad",
        "n = torch.tensor([3, 4]).norm()", "n = x.norm('abc')"],
    "cumsum": [
        X, "y = x.cumsum(1)", "y = torch.cumsum(x, dim=0)", "(y * torch.tensor([1.0, 2.0, 3.0])).sum().backward()  # observe: x.grad",
        "y = x.cumsum(1, dtype=torch.float64)", "y.sum().backward()  # observe: x.grad",
        "i = torch.tensor([1, 2]).cumsum(0)", "i = torch.tensor([True, True]).cumsum(0)",
        "i = torch.tensor([1, 2], dtype=torch.int32).cumsum(0)", "s = torch.tensor(2.0, requires_grad=True).cumsum(0)",
        "y = x.cumsum(2)", "y = x.cumsum()"],
    "topk": [
        X, "t = x.topk(2)", "t = x.topk(1, dim=0)", "t = x.topk(2, largest=False)", "t = torch.topk(x, 3)",
        "t.values.pow(2).sum().backward()  # observe: x.grad", "t = torch.tensor([1.0, 2.0, 2.0, 1.0]).topk(2)",
        "t = torch.tensor([1.0, float('nan'), 2.0]).topk(2)", "t = torch.tensor([3, 1, 2]).topk(2)",
        "t = torch.tensor(3.0).topk(1)", "t = x.topk(4)", "t = x.topk(-1)", "t = x.topk(1, dim=3)"],
    "gather and scatter_add": [
        X, "g = x.gather(1, torch.tensor([[0, 0], [1, 2]]))", "g = torch.gather(x, 0, torch.tensor([[1, 0, 1]]))",
        "(g * 2).sum().backward()  # observe: x.grad", "g = x.gather(1, torch.tensor([[0]]))",
        "s = torch.zeros(2, 3).scatter_add(1, torch.tensor([[0, 0], [1, 2]]), x[:, :2])",
        "s.pow(2).sum().backward()  # observe: x.grad", "s = torch.scatter_add(x, 0, torch.tensor([[1, 0]]), x)",
        "y = x * 1", "y.scatter_add_(1, torch.tensor([[0, 0], [1, 2]]), x[:, :2])  # observe: y",
        "y.sum().backward()  # observe: x.grad", "g = torch.tensor(5.0).gather(0, torch.tensor([0, 0]))",
        "g = x.gather(1, torch.tensor([[0.0]]))", "g = x.gather(1, torch.tensor([0]))", "g = x.gather(1, torch.tensor([[5]]))",
        "g = x.gather(1, torch.tensor([[0], [0], [0]]))", "s = torch.zeros(2, 3).scatter_add_(1, torch.tensor([[5]]), x.detach())",
        "s = torch.zeros(2, 3).scatter_add_(1, torch.tensor([[0]]), x.double())",
        "s = torch.zeros(2, 3).scatter_add_(1, torch.tensor([[0, 1, 2]]), torch.ones(1, 2))",
        "s = torch.zeros(2, 3).scatter_add_(1, torch.tensor([0]), torch.ones(1))"],
    "embedding": [
        "w = torch.tensor([[1.5, -2.0, 0.5], [-0.25, 3.0, -1.0], [0.5, 0.5, 0.5]], requires_grad=True)",
        "F = torch.nn.functional  # observe: None",
        "e = F.embedding(torch.tensor([[0, 2], [2, 2]]), w)", "e.pow(2).sum().backward()  # observe: w.grad",
        "e = F.embedding(torch.tensor([0, 1, 1, 2]), w, padding_idx=1)", "e.sum().backward()  # observe: w.grad",
        "e = F.embedding(torch.tensor([0, 1, 1, 0, 0]), w, scale_grad_by_freq=True)", "e.sum().backward()  # observe: w.grad",
        "e = F.embedding(torch.tensor(1), w)", "e = F.embedding(torch.tensor([0], dtype=torch.int32), w, padding_idx=-1)",
        "m = w.detach().clone().requires_grad_()", "e = F.embedding(torch.tensor([0, 1]), m, max_norm=1.0)  # observe: (e, m, m._version)",
        "e = F.embedding(torch.tensor([0.0]), w)", "e = F.embedding(torch.tensor([3]), w)", "e = F.embedding(torch.tensor([-1]), w)",
        "e = F.embedding(torch.tensor([0]), torch.ones(3))", "e = F.embedding(torch.tensor([0]), w, padding_idx=5)",
        "table = torch.nn.Embedding(10, 3, padding_idx=0)  # observe: (repr(table), table.weight.shape, table.weight[0])",
        "table = torch.nn.Embedding(10, 3, max_norm=1.0, scale_grad_by_freq=True, sparse=True)  # observe: repr(table)",
        "table = torch.nn.Embedding(10, 3, padding_idx=-1)  # observe: table.padding_idx",
        "table = torch.nn.Embedding(10, 3, padding_idx=10)",
        "table = torch.nn.Embedding.from_pretrained(w.detach())  # observe: (repr(table), table.weight.requires_grad, table(torch.tensor([1])))",
        "table = torch.nn.Embedding.from_pretrained(w.detach(), freeze=False)  # observe: table.weight.requires_grad",
        "table = torch.nn.Embedding.from_pretrained(torch.ones(3))"],
    "var_mean and std_mean": [
        X, "vm = torch.var_mean(x, 1)", "vm = torch.var_mean(x)", "vm = torch.var_mean(x, dim=1, keepdim=True, correction=0)",
        "vm = torch.var_mean(x, 0, False)", "(vm[0].sum() + 2 * vm[1].sum()).backward()  # observe: x.grad",
        "vm = torch.std_mean(x, 0)", "(vm[0] * vm[1]).sum().backward()  # observe: x.grad",
        "vm = torch.var_mean(x, 1)", "vm[1].sum().backward()  # observe: x.grad",
        "vm = torch.var_mean(torch.ones(1), 0)", "vm = torch.var_mean(torch.tensor([1, 2]))"],
    "unbind and split_with_sizes": [
        X, "u = x.unbind(1)", "u = torch.unbind(x)", "a, b, c = x.unbind(-1)", "(a * 2 + c).sum().backward()  # observe: x.grad",
        "p = x.split_with_sizes([1, 2], 1)", "p = torch.split_with_sizes(x, [2, 0, 1], dim=1)",
        "(p[0] * 3).sum().backward()  # observe: x.grad", "u = torch.tensor(1.0).unbind()", "u = x.unbind(2)",
        "p = x.split_with_sizes([1, 1], 1)", "p = x.split_with_sizes([4, -1], 1)", "p = torch.split_with_sizes(x, 3, 1)"],
    "in-place unary functions": [
        "x = torch.tensor([0.5, 1.5, -0.3], requires_grad=True)",
        "y = x * 1", "y.exp_()  # observe: y", "y.sum().backward()  # observe: x.grad",
        "y = x * 1", "y.log_()  # observe: y", "y.sum().backward()  # observe: x.grad",
        "y = x * 1", "y.sin_().cos_()  # observe: y", "y.sum().backward()  # observe: x.grad",
        "y = x * 1", "y.tanh_().sigmoid_()  # observe: y", "y.sum().backward()  # observe: x.grad",
        "y = x * 1", "y.relu_().sqrt_()  # observe: y", "y.sum().backward()  # observe: x.grad",
        "y = x * 1", "y.abs_().neg_()  # observe: y", "y.sum().backward()  # observe: x.grad",
        "y = x * 1", "y.sign_()  # observe: y", "y.sum().backward()  # observe: x.grad",
        "y = x * 1", "y.clamp_(-0.1, 0.8)  # observe: y", "y.sum().backward()  # observe: x.grad",
        "y = x * 1", "y.clip_(min=0.0)  # observe: y", "torch.exp_(y)  # observe: y",
        "y = x * 1", "y.sqrt_()", "y.add_(1)", "y.sum().backward()",
        "y = x * 1", "y.log_()", "y.add_(1)", "y.sum().backward()  # observe: x.grad",
        "y = x * 1", "z = y[1:]", "z.exp_()  # observe: (y, z)", "y.sum().backward()  # observe: x.grad",
        "x.exp_()", "with torch.no_grad():\n    w = torch.ones(2, requires_grad=True).exp_()  # observe: w",
        "e = torch.ones(1).expand(3).exp_()", "i = torch.tensor([1, 2]).exp_()", "i = torch.tensor([True]).sqrt_()",
        "i = torch.tensor([1, -2]).abs_()  # observe: i", "i = torch.tensor([1, -2]).neg_()  # observe: i",
        "i = torch.tensor([True, False]).neg_()", "i = torch.tensor([True, False]).relu_()",
        "i = torch.tensor([True, False]).abs_()", "i = torch.tensor([1, 2]).clamp_(0.5, 1.5)",
        "i = torch.tensor([1.0, 2.0]).clamp_()", "i = torch.tensor([1, 2]).sign_()  # observe: i",
        "F = torch.nn.functional  # observe: None", "r = F.relu(x * 1, inplace=True)", "r = F.relu_(x * 1)",
        "r = torch.nn.ReLU(inplace=True)  # observe: (repr(r), r(x * 1))", "r = F.relu(x, inplace=True)"],
    "random fills": [
        "x = torch.zeros(3, requires_grad=True)", "x.uniform_()", "y = (x * 1).uniform_(-1, 1)  # observe: (y.shape, y.grad_fn.name())",
        "y = (x * 1).normal_(0, 2)  # observe: (y.shape, y.grad_fn.name())", "torch.zeros(3, dtype=torch.long).uniform_()",
        "torch.zeros(3).uniform_(2, 1)", "torch.zeros(3).normal_(0, -1)", "torch.zeros(2, dtype=torch.bool).normal_()",
        "w = torch.zeros(2, 3)", "w.uniform_(-0.5, 0.5)  # observe: (w.shape, bool((w.abs() <= 0.5).all()), w._version)"],
    "new tensors": [
        X, "n = x.new(2, 3)  # observe: (n.shape, n.dtype, n.requires_grad)", "n = x.new([1, 2])", "n = x.new()",
        "n = torch.tensor([1, 2]).new([1.5, 2.5])", "n = x.new(torch.Size([2]))  # observe: n.shape",
        "n = x.new_zeros(2, 3)", "n = x.new_zeros((2,))", "n = x.new_zeros(2, dtype=torch.long)",
        "n = x.new_zeros(2, requires_grad=True)", "n = x.new_ones(2)", "n = x.new_full((2,), 3)",
        "n = x.new_empty(2)  # observe: n.shape", "n = x.new_tensor([1, 2])", "n = x.double().new_ones(1)",
        "n = x.new(torch.tensor([1, 2]))", "n = x.new(2, dtype=torch.long)"],
    "legacy sparse and spmm": [
        "i = torch.tensor([[0, 1], [1, 0]])", "v = torch.tensor([1.0, 2.0], requires_grad=True)",
        "a = torch.sparse.FloatTensor(i, v, torch.Size([2, 2]))", "a = torch.sparse.FloatTensor(i, v.detach().double(), (2, 2))",
        "a = torch.sparse.FloatTensor(i, v)", "a = torch.sparse.DoubleTensor(i, v.detach().double(), torch.Size([2, 2]))",
        "a = torch.sparse.LongTensor(i, torch.tensor([1, 2]), torch.Size([2, 2]))", "e = torch.sparse.FloatTensor(2, 3)",
        "c = isinstance(torch.sparse.FloatTensor(i, v), torch.sparse.FloatTensor)  # observe: c",
        "b = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)",
        "y = torch.spmm(torch.sparse.FloatTensor(i, v, torch.Size([2, 2])), b)", "y.sum().backward()  # observe: (v.grad, b.grad)",
        "y = torch.spmm(b, b)", "y = torch.spmm(torch.sparse.FloatTensor(i, v, torch.Size([2, 2])), torch.ones(3, 2))",
        "y = torch.spmm(torch.ones(2), torch.ones(2, 2))"],
    "nn.utils": [
        "p = torch.nn.Parameter(torch.tensor([3.0, 4.0]))", "p.grad = torch.tensor([3.0, 4.0])",
        "q = torch.nn.Parameter(torch.tensor([1.0]))", "q.grad = torch.tensor([12.0])",
        "n = torch.nn.utils.clip_grad_norm_([p, q], 1.0)  # observe: (n, p.grad, q.grad)",
        "n = torch.nn.utils.clip_grad_norm_([], 1.0)", "p.grad = torch.tensor([3.0, -4.0])",
        "n = torch.nn.utils.clip_grad_norm_(p, 10.0, norm_type='inf')  # observe: (n, p.grad)",
        "n = torch.nn.utils.clip_grad_value_(p, 2.0)  # observe: (n, p.grad)",
        "v = torch.nn.utils.parameters_to_vector([p, q])",
        "torch.nn.utils.vector_to_parameters(torch.tensor([7.0, 8.0, 9.0]), [p, q])  # observe: (p, q)",
        "torch.nn.utils.vector_to_parameters([1.0], [p])", "p.grad = torch.tensor([float('inf'), 1.0])",
        "torch.nn.utils.clip_grad_norm_(p, 1.0, error_if_nonfinite=True)"],
    "data": [
        "data = torch.utils.data  # observe: None",
        "DataLoader, Dataset, TensorDataset, Subset = data.DataLoader, data.Dataset, data.TensorDataset, data.Subset  # observe: None",
        "ds = TensorDataset(torch.arange(10.0).view(5, 2), torch.arange(5))  # observe: (ds[1], len(ds))",
        "batches = list(DataLoader(ds, batch_size=2))  # observe: batches",
        "n = len(DataLoader(ds, batch_size=2, drop_last=True))  # observe: n",
        "b = next(iter(DataLoader([(1, 2.0), (3, 4.0)], batch_size=2)))  # observe: b",
        "b = next(iter(DataLoader([{'a': 1}, {'a': 2}], batch_size=2)))  # observe: b['a']",
        "b = next(iter(DataLoader(['x', 'y'], batch_size=2)))  # observe: b",
        "b = next(iter(DataLoader(ds, batch_size=None)))  # observe: b",
        "s = sorted(t.item() for _, t in DataLoader(ds, batch_size=1, shuffle=True))  # observe: s",
        "s = Subset(ds, [4, 0])  # observe: (len(s), s[0])",
        "TensorDataset(torch.ones(2), torch.ones(3))", "DataLoader(ds, shuffle=True, sampler=[0, 1])",
        "len(Dataset())", "Dataset()[0]"],
}


@pytest.mark.parametrize("name", PROGRAMS, ids=list(PROGRAMS))
def test_program_behaves_the_same_on_minigrad_and_pytorch(name):
    program = Program.from_lines(PROGRAMS[name])
    found = compare(program, torch, minigrad)
    assert not found, report(program, found)
