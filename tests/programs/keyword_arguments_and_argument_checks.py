"""A combined-style Function called with keyword arguments, and the checks on what ctx methods and
Parameter accept: where each argument's gradient goes, and the exact errors."""
import torch
from torch.autograd import Function


def attempt(label, action):
    try:
        print(f"{label}: {action()}")
    except Exception as error:
        print(f"{label}: {type(error).__name__}: {error}")


class ScaleShift(Function):
    @staticmethod
    def forward(ctx, x, scale, shift=None):
        ctx.seen = ctx.needs_input_grad
        return x * scale + (0 if shift is None else shift)

    @staticmethod
    def backward(ctx, grad_output):
        return (grad_output * 2,) + (None,) * (len(ctx.seen) - 2) + ((grad_output,) if len(ctx.seen) == 3 else ())


x = torch.ones(2, requires_grad=True)
w = torch.ones(2, requires_grad=True)


def call(*args, **kwargs):
    def action():
        y = ScaleShift.apply(*args, **kwargs)
        edges = [None if node is None else node.name() for node, _ in y.grad_fn.next_functions]
        return f"needs_input_grad={y.grad_fn.seen} edges={edges}"
    return action


attempt("positional", call(x, 2.0, w))
attempt("shift by keyword", call(x, 2.0, shift=w))
attempt("scale and shift by keyword", call(x, scale=2.0, shift=w))
attempt("keywords in another order", call(x, shift=w, scale=2.0))
attempt("default left out", call(x, 2.0))
attempt("gap before a keyword", call(x, shift=w))
attempt("twice the same argument", call(x, 2.0, scale=3.0))
attempt("unknown keyword", call(x, 2.0, bias=w))

w.grad = None
ScaleShift.apply(x, 2.0, shift=w).sum().backward()
print("w.grad after a backward through shift=w:", w.grad)


class Materialize(Function):
    @staticmethod
    def forward(ctx, x, value):
        ctx.set_materialize_grads(value)
        return x * 1

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None


attempt("set_materialize_grads(False)", lambda: Materialize.apply(x, False).grad_fn.name())
attempt("set_materialize_grads(0)", lambda: Materialize.apply(x, 0).grad_fn.name())
attempt("set_materialize_grads(1)", lambda: Materialize.apply(x, 1).grad_fn.name())
attempt("Parameter(1.0)", lambda: torch.nn.Parameter(1.0))
attempt("Parameter([1.0])", lambda: torch.nn.Parameter([1.0]))
attempt("integer tensor requires_grad_()", lambda: torch.tensor([1, 2]).requires_grad_())
attempt("integer tensor requires_grad=True", lambda: torch.tensor([1, 2], requires_grad=True))
