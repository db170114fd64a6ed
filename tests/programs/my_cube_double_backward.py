"""MyCube from "Extending PyTorch": a Function that is differentiable twice because backward
uses saved tensors and differentiable operations."""
import torch
from torch.autograd import Function


class MyCube(Function):
    @staticmethod
    def forward(x):
        # We wish to save dx for backward. In order to do so, it must be returned as an output.
        dx = 3 * x ** 2
        result = x ** 3
        return result, dx

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        # In order for the autograd.Function to work with higher-order gradients, we must add the gradient
        # contribution of `dx`, which is grad_dx * 6 * x.
        result = grad_output * dx + grad_dx * 6 * x
        return result


def my_cube(x):
    result, dx = MyCube.apply(x)
    return result


x = torch.tensor(2.0, requires_grad=True)
result, dx = MyCube.apply(x)
print("result:", result, "dx:", dx)
print("both outputs share the node:", result.grad_fn is dx.grad_fn, type(result.grad_fn).__name__)
saved_x, saved_dx = result.grad_fn.saved_tensors
print("saved x is x:", saved_x is x, "saved dx is dx:", saved_dx is dx, "saved dx's grad_fn is the node:",
      saved_dx.grad_fn is result.grad_fn)

y = my_cube(x)
grad, = torch.autograd.grad(y, x, create_graph=True)
print("grad:", grad)
grad_of_grad, = torch.autograd.grad(grad, x)
print("grad of grad:", grad_of_grad)

x64 = torch.tensor([0.5, -1.5, 2.0], dtype=torch.double, requires_grad=True)
print("gradcheck:", torch.autograd.gradcheck(my_cube, (x64,)))
print("gradgradcheck:", torch.autograd.gradgradcheck(my_cube, (x64,)))


class CubeStash(Function):
    """The same with dx stashed on ctx: the second derivative is silently lost."""

    @staticmethod
    def forward(ctx, x):
        ctx.dx = 3 * x ** 2
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.dx


g, = torch.autograd.grad(CubeStash.apply(x), x, create_graph=True)
print("stashed: grad", g, "requires_grad:", g.requires_grad)
print("stashed gradgradcheck:", torch.autograd.gradgradcheck(CubeStash.apply, (x64,), raise_exception=False))
