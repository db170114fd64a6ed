"""Sparsemax as a custom Function (Martins & Astudillo, "From Softmax to Sparsemax", ICML 2016), in
the form of the entmax package's SparsemaxFunction (deep-spin/entmax): sort, cumsum, an arange of
ranks, gather of the threshold, clamp; backward zeroes the gradient off the support by boolean
indexing and re-centres it on the support with where. As entmax's top-k variant does, the support
can be searched among the k largest scores only (topk), here where it is smaller than k."""
import torch
import torch.nn as nn
from torch.autograd import Function


def ranks_like(input, dim):
    d = input.size(dim)
    rho = torch.arange(1, d + 1, device=input.device, dtype=input.dtype)
    view = [1] * input.dim()
    view[0] = -1
    return rho.view(view).transpose(0, dim)


def threshold_and_support(input, dim, k=None):
    if k is None or k >= input.shape[dim]:
        ordered, _ = torch.sort(input, descending=True, dim=dim)
    else:
        ordered, _ = torch.topk(input, k=k, dim=dim)
    cumulative = ordered.cumsum(dim) - 1
    support = ranks_like(ordered, dim) * ordered > cumulative
    support_size = support.sum(dim=dim).unsqueeze(dim)
    tau = cumulative.gather(dim, support_size - 1)
    tau /= support_size.to(input.dtype)
    return tau, support_size


class Sparsemax(Function):
    @staticmethod
    def forward(ctx, input, dim=-1, k=None):
        ctx.dim = dim
        max_val, _ = input.max(dim=dim, keepdim=True)
        input = input - max_val
        tau, support_size = threshold_and_support(input, dim, k)
        output = torch.clamp(input - tau, min=0)
        ctx.save_for_backward(support_size, output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        support_size, output = ctx.saved_tensors
        dim = ctx.dim
        grad_input = grad_output.clone()
        grad_input[output == 0] = 0
        v_hat = grad_input.sum(dim=dim) / support_size.to(output.dtype).squeeze()
        v_hat = v_hat.unsqueeze(dim)
        grad_input = torch.where(output != 0, grad_input - v_hat, grad_input)
        return grad_input, None, None


class SparsemaxLayer(nn.Module):
    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return Sparsemax.apply(input, self.dim)


scores = torch.tensor([[0.8, 0.5, 0.1, -1.0], [0.5, 0.4, 0.45, 0.9], [1.0, 1.0, 1.0, 1.0]], requires_grad=True)
probabilities = SparsemaxLayer(dim=1)(scores)
print(probabilities)
print("rows sum to", probabilities.sum(1))
print("support sizes", (probabilities > 0).sum(1))
weights = torch.tensor([1.0, -2.0, 0.5, 3.0])
(probabilities * weights).sum().backward()
print("gradient:", scores.grad)

columns = Sparsemax.apply(scores.detach().t(), 0)
print("along dim 0:", columns)
print("support found by topk(3):", Sparsemax.apply(scores.detach()[:1], 1, 3))   # a support smaller than k

x = torch.tensor([[0.3, -0.2, 0.9], [1.2, 1.1, -0.5]], dtype=torch.float64, requires_grad=True)
print("gradcheck:", torch.autograd.gradcheck(lambda t: Sparsemax.apply(t, 1), (x,)))
