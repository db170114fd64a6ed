"""Tensor hooks, node hooks, retain_grad, accumulation, retain_graph and autograd.grad."""
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
y.register_hook(lambda g: print("  hook on y sees", g) or g * 10)
x.register_hook(lambda g: print("  hook on x sees", g))
y.retain_grad()
print("backward through y * y:")
(y * y).sum().backward()
print("x.grad:", x.grad, "| y.grad:", y.grad, "| y.is_leaf:", y.is_leaf, "| y.retains_grad:", y.retains_grad)

print("node hooks:")
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 3
b.grad_fn.register_prehook(lambda grad_outputs: print("  prehook:", grad_outputs))
b.grad_fn.register_hook(lambda grad_inputs, grad_outputs: print("  hook:", grad_inputs, grad_outputs))
b.sum().backward()
print("a.grad:", a.grad)

print("accumulation:")
a.grad = None
loss = (a * a).sum()
loss.backward(retain_graph=True)
print("  after one backward:", a.grad)
loss.backward()
print("  after two:", a.grad)
try:
    loss.backward()
except RuntimeError as error:
    print("  a third:", str(error)[:60])

print("reused intermediate:")
p = torch.tensor([3.0], requires_grad=True)
q = p * p
r = q * 2 + q * 5 + q
r.backward()
print("  p.grad:", p.grad)

print("autograd.grad:")
g, = torch.autograd.grad((p ** 3).sum(), p, create_graph=True)
print("  first:", g)
g2, = torch.autograd.grad(g.sum(), p)
print("  second:", g2, "| p.grad untouched:", p.grad)
v = torch.tensor([1.0, 2.0], requires_grad=True)
u = torch.tensor([5.0], requires_grad=True)
print("  with grad_outputs:", torch.autograd.grad(v * v, v, grad_outputs=torch.tensor([1.0, 10.0])))
print("  allow_unused:", torch.autograd.grad((v * 2).sum(), [v, u], allow_unused=True))

print("grad mode:")
with torch.no_grad():
    print("  inside no_grad:", (v * 2).requires_grad, torch.is_grad_enabled())
    with torch.enable_grad():
        print("  enable_grad inside:", (v * 2).requires_grad)


@torch.no_grad()
def doubled(t):
    return t * 2


print("  decorated:", doubled(v).requires_grad)
with torch.set_grad_enabled(False):
    print("  set_grad_enabled(False):", (v * 2).requires_grad)
print("  after:", torch.is_grad_enabled())

print("detach and .data:")
w = torch.tensor([1.0, 2.0], requires_grad=True)
d = w.detach()
with torch.no_grad():
    w.add_(1)
print("  detached sees the change:", d, "| versions:", d._version, w._version)
data = w.data
data.add_(1)
print("  .data has its own version:", data._version, w._version, w)
