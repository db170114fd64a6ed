"""Sort with mark_non_differentiable, from "Extending PyTorch": the indices carry no gradient."""
import torch
from torch.autograd import Function


class Func(Function):
    @staticmethod
    def forward(ctx, x):
        sorted, idx = x.sort()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(x, idx)
        return sorted, idx

    @staticmethod
    def backward(ctx, g1, g2):  # still need to accept g2
        print("  g2 arrives as:", g2)
        x, idx = ctx.saved_tensors
        grad_input = torch.zeros_like(x)
        grad_input.index_add_(0, idx, g1)
        return grad_input


x = torch.tensor([3.0, 1.0, 2.0, 5.0], requires_grad=True)
values, idx = Func.apply(x)
print("values:", values)
print("idx:", idx, "| requires_grad:", idx.requires_grad, "| grad_fn:", idx.grad_fn)
print("values.grad_fn:", type(values.grad_fn).__name__)
(values * torch.tensor([1.0, 10.0, 100.0, 1000.0])).sum().backward()
print("x.grad:", x.grad)

# the builtin sort: same values, indices without a graph, node SortBackward0
x.grad = None
v, i = x.sort(descending=True)
print("builtin:", v, i, type(v.grad_fn).__name__, i.requires_grad)
v[0].backward()
print("x.grad:", x.grad)
m = x.max(0)
print("max:", m.values, m.indices, type(m.values.grad_fn).__name__)
