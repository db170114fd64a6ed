"""The official tutorial "Defining new autograd Functions" (LegendrePolynomial3), shortened to 2000 steps.

Fit y = sin(x) on [-pi, pi] with a + b * P3(c + d * x), where P3 is a custom Function:
P3(x) = 1/2 (5x^3 - 3x) and P3'(x) = 3/2 (5x^2 - 1). The weights are updated by hand inside
no_grad, then their gradients are cleared with ``a.grad = None``.
"""
import math

import torch


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


dtype = torch.float
device = torch.device("cpu")

x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
y = torch.sin(x)

# The tutorial starts from fixed values chosen so the fit converges.
a = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, device=device, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, device=device, dtype=dtype, requires_grad=True)

learning_rate = 5e-6
for t in range(2000):
    P3 = LegendrePolynomial3.apply
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, f"{loss.item():.2f}")
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None

# a and c end near 0 with a sign that depends on rounding: print b and d, and that a, c are small
print(f"Result: y = a + {b.item():.4f} * P3(c + {d.item():.4f} x), a and c near 0:",
      abs(a.item()) < 1e-3 and abs(c.item()) < 1e-3)
print("a is a leaf:", a.is_leaf, "requires_grad:", a.requires_grad, "version:", a._version)
print("node of y_pred:", type(y_pred.grad_fn).__name__)
print("P3 node:", type(y_pred.grad_fn.next_functions[1][0].next_functions[1][0]).__name__)
