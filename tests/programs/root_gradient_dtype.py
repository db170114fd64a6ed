"""The gradient backward starts with takes the output's dtype, as PyTorch's engine casts it at the
root (validate_outputs): hooks, leaves and the first node all see the output's dtype."""
import torch

x = torch.ones(2, 2, requires_grad=True)
w = torch.ones(2, 2, requires_grad=True)
(x @ w).backward(torch.ones(2, 2, dtype=torch.float64))
print("mm with a float64 gradient:", x.grad.dtype, w.grad.dtype, x.grad)

leaf = torch.ones(2, requires_grad=True)
leaf.backward(torch.ones(2, dtype=torch.float64))
print("a leaf's own backward:", leaf.grad.dtype, leaf.grad)

y = leaf * 2
y.register_hook(lambda g: print("  the hook on y sees", g.dtype))
y.backward(torch.ones(2, dtype=torch.int64))
print("an integer gradient:", leaf.grad)

half = torch.ones(2, dtype=torch.float16, requires_grad=True)
(half * 3).backward(torch.tensor([True, False]))
print("float16 output, bool gradient:", half.grad.dtype, half.grad)

a = torch.ones(3, requires_grad=True)
print("autograd.grad:", torch.autograd.grad(a.exp(), a, torch.ones(3, dtype=torch.float64))[0].dtype)
torch.autograd.backward([a * 2, a * 3], [torch.ones(3, dtype=torch.float64), torch.ones(3, dtype=torch.int32)])
print("two roots:", a.grad.dtype, a.grad)
