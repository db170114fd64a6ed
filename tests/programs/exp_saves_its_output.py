"""Exp from "Extending PyTorch": save the output, because exp's derivative is exp itself."""
import torch
from torch.autograd import Function


class Exp(Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result


x = torch.tensor([0.0, 1.0, -1.0], requires_grad=True)
y = Exp.apply(x)
print("y:", y)
saved, = y.grad_fn.saved_tensors
print("saved output is y:", saved is y, "| same values:", saved.tolist() == y.tolist(),
      "| its grad_fn is the node:", saved.grad_fn is y.grad_fn)
print("saved_tensors inside backward come back fresh each time:", y.grad_fn.saved_tensors[0] is not saved)
y.sum().backward()
print("x.grad:", x.grad)

try:
    y.grad_fn.saved_tensors
except RuntimeError as error:
    print("after backward:", str(error)[:80])

# the builtin does the same: ExpBackward0 keeps its result
z = x.exp()
print("builtin:", type(z.grad_fn).__name__, "| _saved_result:", z.grad_fn._saved_result,
      "| is z:", z.grad_fn._saved_result is z)

# changing the output in place breaks the saved copy
w = Exp.apply(x)
with torch.no_grad():
    w.add_(1)
try:
    w.sum().backward()
except RuntimeError as error:
    print("modified output:", str(error).split(" Hint:")[0])
print("version of w:", w._version)
