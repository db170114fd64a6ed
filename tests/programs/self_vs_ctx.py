"""Self vs ctx, as the forum question asks it: a Module keeps state on self; a Function gets a ctx per call.

The article's CustomFunction reads ctx.saved_tensors without saving anything and lacks
@staticmethod; the fixed version below saves its input. Random inputs are only used for shapes.
"""
import torch


class LinearModule(torch.nn.Module):
    def __init__(self, in_features, out_features):
        super(LinearModule, self).__init__()
        self.linear = torch.nn.Linear(in_features, out_features)

    def forward(self, x):
        # Accessing the `linear` attribute (part of the class instance)
        return self.linear(x)


model = LinearModule(5, 3)
output = model.forward(torch.randn(2, 5))
print(model)
print("output shape:", output.shape, "| node:", type(output.grad_fn).__name__)
print("parameters on self:", [name for name, _ in model.named_parameters()])
print("model(x) calls forward:", model(torch.zeros(1, 5)).shape)


class CustomFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)   # the article forgot this line
        output = input * 2
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output * 2
        return grad_input


x = torch.tensor([1.0], requires_grad=True)
custom_function = CustomFunction.apply
y = custom_function(x)
z = y * 3
print("ctx is y.grad_fn, a", type(y.grad_fn).__name__, "| saved input is x:", y.grad_fn.saved_tensors[0] is x)
z.backward()
print("y:", y, "| z:", z)
print("x.grad:", x.grad)


class Broken(torch.autograd.Function):
    """The article's version: nothing saved, so backward finds an empty tuple."""

    def forward(ctx, input):
        return input * 2

    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 2


try:
    Broken.apply(torch.tensor([1.0], requires_grad=True)).backward()
except ValueError as error:
    print("the article's version fails:", type(error).__name__, error)

import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    instance = CustomFunction()
print("making an instance warns:", caught[0].category.__name__, str(caught[0].message).split(". ")[0])
try:
    instance(x)
except RuntimeError as error:
    print("calling an instance:", error)
