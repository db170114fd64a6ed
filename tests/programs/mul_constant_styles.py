"""MulConstant in both styles from "Extending PyTorch", and set_materialize_grads(False)."""
import torch
from torch.autograd import Function


class MulConstant(Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        # ctx is a context object that can be used to stash information for backward computation
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        # We return as many input gradients as there were arguments.
        # Gradients of non-Tensor arguments to forward must be None.
        return grad_output * ctx.constant, None


class MulConstantSeparate(Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor * constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        tensor, constant = inputs
        ctx.constant = constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


class MulConstantLazy(Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.set_materialize_grads(False)
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        # Here we must handle None grad_output tensor. In this case we can skip unnecessary computations
        # and just return None.
        if grad_output is None:
            return None, None
        return grad_output * ctx.constant, None


for cls in (MulConstant, MulConstantSeparate, MulConstantLazy):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = cls.apply(x, 10)
    z = y * 3
    print(cls.__name__)
    print("  y:", y)
    print("  node:", type(y.grad_fn).__name__, y.grad_fn.name(), "constant:", y.grad_fn.constant)
    print("  needs_input_grad:", y.grad_fn.needs_input_grad)
    print("  z.next_functions:", [(None if n is None else n.name(), i) for n, i in z.grad_fn.next_functions],
          z.grad_fn.next_functions[0][0] is y.grad_fn)
    acc = y.grad_fn.next_functions[0][0]
    print("  y.next_functions:", [(n.name(), i) for n, i in y.grad_fn.next_functions], "acc.variable is x:",
          acc.variable is x)
    z.sum().backward()
    print("  x.grad:", x.grad)

print("keyword argument (separate style binds it):", MulConstantSeparate.apply(torch.ones(2), constant=4))
print("no grad needed: grad_fn =", MulConstant.apply(torch.ones(2), 5).grad_fn)
with torch.no_grad():
    print("inside no_grad: grad_fn =", MulConstant.apply(torch.ones(2, requires_grad=True), 5).grad_fn)


class ScaleTwice(Function):
    """Two outputs; backward shows what arrives for the unused one."""

    @staticmethod
    def forward(ctx, tensor, materialize):
        ctx.set_materialize_grads(materialize)
        return tensor * 2, tensor * 3

    @staticmethod
    def backward(ctx, grad_double, grad_triple):
        print("  backward received:", grad_double, grad_triple)
        grad = grad_double * 2
        if grad_triple is not None:
            grad = grad + grad_triple * 3
        return grad, None


for materialize in (True, False):
    print("set_materialize_grads(" + str(materialize) + "), only the first output used:")
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    double, triple = ScaleTwice.apply(x, materialize)
    double.sum().backward()
    print("  x.grad:", x.grad)
