"""The forum question "Where does the ctx variable come from?": print ctx inside setup_context."""
import torch
from torch.autograd import Function


class MulConstant(Function):
    def forward(tensor, constant):
        return tensor * constant

    def setup_context(ctx, inputs, output):
        # ctx is a context object that can be used to stash information
        # for backward computation
        tensor, constant = inputs
        print(ctx, type(ctx), ctx.__class__.__name__, sep="\n")
        MulConstant.seen.append(ctx)
        ctx.constant = constant

    def backward(ctx, grad_output):
        # We return as many input gradients as there were arguments.
        # Gradients of non-Tensor arguments to forward must be None.
        return grad_output * ctx.constant, None


MulConstant.seen = []


def mul_constant(tensor, c=1):
    return MulConstant.apply(tensor, c)


tensor = torch.ones((5, 1), requires_grad=True)
result = mul_constant(tensor, c=10)
ctx = MulConstant.seen[0]
print("ctx is result.grad_fn:", ctx is result.grad_fn)
print("the class is made from MulConstant:", type(ctx)._forward_cls is MulConstant)
print("base class:", type(ctx).__mro__[1].__name__)
print("name():", ctx.name(), "| constant:", ctx.constant, "| metadata:", ctx.metadata)
result.sum().backward()
print("tensor.grad:", tensor.grad.view(-1))
mul_constant(tensor, c=2)
print("a fresh ctx per call:", MulConstant.seen[1] is not ctx, type(MulConstant.seen[1]) is type(ctx))
