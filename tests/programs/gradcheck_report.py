"""gradcheck and gradgradcheck on a correct and on a wrong Function: what they return and print."""
import warnings

import torch
from torch.autograd import Function
from torch.autograd.gradcheck import GradcheckError


class Square(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return 2 * x * grad_output


class WrongSquare(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return 3 * x * grad_output   # should be 2x


x = torch.tensor([1.0, -2.0, 0.5], dtype=torch.double, requires_grad=True)
print("Square gradcheck:", torch.autograd.gradcheck(Square.apply, (x,)))
print("Square gradgradcheck:", torch.autograd.gradgradcheck(Square.apply, (x,)))
print("WrongSquare, raise_exception=False:", torch.autograd.gradcheck(WrongSquare.apply, (x,), raise_exception=False))
try:
    torch.autograd.gradcheck(WrongSquare.apply, (x[:2].detach().requires_grad_(),))
except GradcheckError as error:
    print("GradcheckError is a RuntimeError:", isinstance(error, RuntimeError))
    print(error)

try:
    torch.autograd.gradcheck(Square.apply, (torch.ones(2, dtype=torch.double),))
except ValueError as error:
    print("ValueError:", error)

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    result = torch.autograd.gradcheck(Square.apply, (torch.tensor([1.0, 2.0], requires_grad=True),),
                                      raise_exception=False)
print("float32 input:", result, "|", caught[0].category.__name__ + ":", str(caught[0].message).split(". ")[0])

a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.double, requires_grad=True)
b = torch.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=torch.double, requires_grad=True)
print("mm:", torch.autograd.gradcheck(torch.mm, (a, b)), torch.autograd.gradgradcheck(torch.mm, (a, b)))
print("tanh:", torch.autograd.gradcheck(torch.tanh, (x,)), torch.autograd.gradgradcheck(torch.tanh, (x,)))
