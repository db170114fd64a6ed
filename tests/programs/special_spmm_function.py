"""pyGAT's SpecialSpmmFunction (Velickovic et al.'s GAT, sparse version by Diego999): a sparse
matrix times a dense one, with the gradient of the values taken on the sparsity pattern only."""
import torch


class SpecialSpmmFunction(torch.autograd.Function):
    """Special function for only sparse region backpropataion layer."""

    @staticmethod
    def forward(ctx, indices, values, shape, b):
        assert indices.requires_grad == False
        a = torch.sparse_coo_tensor(indices, values, shape)
        ctx.save_for_backward(a, b)
        ctx.N = shape[0]
        return torch.matmul(a, b)

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        print("  needs_input_grad:", ctx.needs_input_grad)
        grad_values = grad_b = None
        if ctx.needs_input_grad[1]:
            grad_a_dense = grad_output.matmul(b.t())
            print("  dense gradient of a:", tuple(grad_a_dense.shape))
            edge_idx = a._indices()[0, :] * ctx.N + a._indices()[1, :]
            grad_values = grad_a_dense.view(-1)[edge_idx]
        if ctx.needs_input_grad[3]:
            grad_b = a.t().matmul(grad_output)
        return None, grad_values, None, grad_b


class SpecialSpmm(torch.nn.Module):
    def forward(self, indices, values, shape, b):
        return SpecialSpmmFunction.apply(indices, values, shape, b)


indices = torch.tensor([[0, 0, 1, 2, 3], [1, 2, 2, 3, 0]])
values = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True)
b = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]], requires_grad=True)

a = torch.sparse_coo_tensor(indices, values.detach(), (4, 4))
print("a is sparse:", a.is_sparse, "| nnz:", a._nnz(), "| shape:", a.shape)
print("a dense:", a.to_dense())

out = SpecialSpmm()(indices, values, torch.Size([4, 4]), b)
print("out:", out)
print("node:", type(out.grad_fn).__name__, "| next_functions:",
      [(None if n is None else n.name(), i) for n, i in out.grad_fn.next_functions])
out.sum().backward()
print("values.grad:", values.grad)
print("b.grad:", b.grad)

# duplicate entries are kept, not merged, and both get their gradient
dup = torch.tensor([[0, 0, 1], [1, 1, 0]])
v = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b2 = torch.tensor([[1.0], [10.0]])
out2 = SpecialSpmmFunction.apply(dup, v, (2, 2), b2)
print("with a duplicate:", out2.view(-1), "| indices kept:", torch.sparse_coo_tensor(dup, v.detach(), (2, 2))._indices().tolist())
out2.sum().backward()
print("v.grad:", v.grad)

try:
    torch.sparse_coo_tensor(indices, torch.tensor([1.0, 2.0, 3.0]), (4, 4))
except RuntimeError as error:
    print("nnz mismatch:", error)
