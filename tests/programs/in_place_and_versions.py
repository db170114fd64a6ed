"""Version counters: every in-place change bumps them, and saved tensors check them."""
import torch
from torch.autograd import Function

x = torch.zeros(3)
print("new tensor:", x._version)
x.add_(1)
x.mul_(2)
x += 1
x[0] = 5.0
x.zero_()
print("after five in-place changes:", x._version)
view = x[1:]
view.add_(1)
print("a view shares the counter:", view._version, x._version, x)
detached = x.detach()
detached.add_(1)
print("so does detach():", detached._version, x._version)


class AddOneInPlace(Function):
    @staticmethod
    def forward(ctx, t):
        t.add_(1)
        ctx.mark_dirty(t)
        return t

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


leaf = torch.ones(2, requires_grad=True)
h = leaf * 1
print("before:", h._version, type(h.grad_fn).__name__)
out = AddOneInPlace.apply(h)
print("mark_dirty returns the same tensor:", out is h, "| version:", h._version, "| grad_fn:", type(h.grad_fn).__name__)
print("its next function:", h.grad_fn.next_functions[0][0].name())
(h * h).sum().backward()
print("leaf.grad:", leaf.grad)

plain = torch.ones(2)
AddOneInPlace.apply(plain)
print("without a graph:", plain, plain._version, plain.grad_fn)

print("manual SGD on a leaf:")
a = torch.full((), 0.5, requires_grad=True)
for step in range(3):
    loss = (a * 3 - 2) ** 2
    loss.backward()
    with torch.no_grad():
        a -= 0.05 * a.grad
    print(f"  step {step}: loss {loss.item():.4f}, a {a.item():.4f}, version {a._version}, leaf {a.is_leaf}")
    a.grad = None

m = torch.tensor([1.0, 2.0], requires_grad=True)
s = m.exp()
s2 = s * 1
s2.mul_(2)
print("in place on a copy of a saved output is fine:", type(s2.grad_fn).__name__, s2._version)
s2.sum().backward()
print("m.grad:", m.grad)
