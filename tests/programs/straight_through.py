"""A straight-through estimator: binarize in forward, pass the gradient through in backward where
|x| <= 1 (Bengio, Léonard & Courville 2013; Hubara et al., "Binarized Neural Networks", NeurIPS 2016,
whose published PyTorch code binarizes weights with ``sign()`` and clamps the real-valued weights
in place after each step). A tiny binarized layer is trained on a separable problem."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Function


class BinarizeSTE(Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input.sign()

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input.masked_fill_(input.abs() > 1, 0)
        return grad_input


class ThresholdSTE(Function):
    """The other common form: (x > 0) as a float in forward, hardtanh's gradient in backward."""

    @staticmethod
    def forward(ctx, input):
        return (input > 0).float()

    @staticmethod
    def backward(ctx, grad_output):
        return F.hardtanh(grad_output)


x = torch.tensor([-1.5, -0.5, 0.0, 0.25, 2.0], requires_grad=True)
b = BinarizeSTE.apply(x)
print(b, b.grad_fn.name())
(b * torch.arange(5.0)).sum().backward()
print("gradient through sign:", x.grad)
x.grad = None
t = ThresholdSTE.apply(x * 3)
print(t)
t.sum().backward()
print("gradient through (x > 0):", x.grad)


class BinaryLinear(nn.Linear):
    def forward(self, input):
        return F.linear(input, BinarizeSTE.apply(self.weight), self.bias)


rng = np.random.default_rng(3)
points = torch.from_numpy(rng.normal(size=(32, 3)).astype(np.float32))
labels = (points @ torch.tensor([1.0, -1.0, 0.5]) > 0).long()
layer = BinaryLinear(3, 2)
with torch.no_grad():
    layer.weight.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, size=(2, 3)).astype(np.float32)))
    layer.bias.zero_()
optimizer = torch.optim.Adam(layer.parameters(), lr=0.05)
for step in range(30):
    loss = F.cross_entropy(layer(points), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        layer.weight.clamp_(-1, 1)   # BNN: the real-valued weights stay in [-1, 1]
    if step % 10 == 9:
        accuracy = (layer(points).argmax(1) == labels).float().mean().item()
        print(f"step {step + 1}: loss {loss.item():.4f} accuracy {accuracy:.4f}")
print("binary weights:", layer.weight.sign())
