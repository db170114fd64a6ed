"""LinearFunction from the "Extending PyTorch" note: needs_input_grad decides which gradients to compute."""
import torch
from torch.autograd import Function


class LinearFunction(Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        LinearFunction.last_ctx = ctx   # only to show below that ctx becomes y.grad_fn
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        print("  needs_input_grad:", ctx.needs_input_grad)
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


x = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], requires_grad=True)
w = torch.tensor([[0.5, -1.0, 0.25], [2.0, 0.0, -0.5]], requires_grad=True)
b = torch.tensor([0.1, -0.2], requires_grad=True)

y = LinearFunction.apply(x, w, b)
print("output:", y)
print("grad_fn:", type(y.grad_fn).__name__, "is ctx:", y.grad_fn is LinearFunction.last_ctx)
print("next_functions:", [(type(n).__name__, i) for n, i in y.grad_fn.next_functions])
print("saved:", [None if s is None else tuple(s.shape) for s in y.grad_fn.saved_tensors])
print("backward with every input requiring grad:")
(y * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
print("x.grad:", x.grad)
print("w.grad:", w.grad)
print("b.grad:", b.grad)

print("backward with a constant input and no bias:")
x2 = torch.tensor([[1.0, 2.0, 3.0]])
y2 = LinearFunction.apply(x2, w)
print("next_functions:", [(type(n).__name__ if n is not None else None, i) for n, i in y2.grad_fn.next_functions])
w.grad = None
y2.sum().backward()
print("w.grad:", w.grad)

# the builtin equivalent gives the same numbers
x.grad = None
w.grad = None
torch.nn.functional.linear(x, w, b).mul(torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
print("builtin linear x.grad:", x.grad)

xd = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], dtype=torch.double, requires_grad=True)
wd = torch.tensor([[0.5, -1.0, 0.25], [2.0, 0.0, -0.5]], dtype=torch.double, requires_grad=True)
import contextlib, io
with contextlib.redirect_stdout(io.StringIO()):   # backward prints; gradcheck calls it many times
    ok = torch.autograd.gradcheck(LinearFunction.apply, (xd, wd), eps=1e-6, atol=1e-4)
print("gradcheck:", ok)
