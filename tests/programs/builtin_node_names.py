"""The backward node of every builtin operation, and where its next_functions point."""
import torch
import torch.nn.functional as F


def describe(t):
    node = t.grad_fn
    edges = [(None if n is None else n.name(), i) for n, i in node.next_functions]
    return f"{type(node).__name__:<22} {edges}"


x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
w = torch.tensor([0.5, -1.0], requires_grad=True)
c = torch.tensor([[1.0, -1.0], [2.0, 0.5], [0.0, 3.0]])
idx = torch.tensor([0, 2])

cases = {
    "x + w": lambda: x + w, "x + c": lambda: x + c, "x + 1": lambda: x + 1, "1 + x": lambda: 1 + x,
    "x - w": lambda: x - w, "1 - x": lambda: 1 - x, "x * 2": lambda: x * 2, "2 * x": lambda: 2 * x,
    "x / w": lambda: x / w, "1 / x": lambda: 1 / x, "-x": lambda: -x, "x ** 2": lambda: x ** 2,
    "x ** w": lambda: x ** w, "2 ** x": lambda: 2 ** x, "x.add(w, alpha=2)": lambda: x.add(w, alpha=2),
    "exp": lambda: x.exp(), "log": lambda: x.log(), "sin": lambda: x.sin(), "cos": lambda: x.cos(),
    "tanh": lambda: x.tanh(), "sigmoid": lambda: x.sigmoid(), "relu": lambda: x.relu(), "sqrt": lambda: x.sqrt(),
    "abs": lambda: x.abs(), "clamp": lambda: x.clamp(0, 1), "clamp(min)": lambda: x.clamp(min=0),
    "sum": lambda: x.sum(), "sum(0)": lambda: x.sum(0), "sum((0, 1))": lambda: x.sum((0, 1)),
    "mean": lambda: x.mean(), "mean(1)": lambda: x.mean(1), "max": lambda: x.max(), "max(0)": lambda: x.max(0)[0],
    "min(1)": lambda: x.min(1).values, "sort": lambda: x.sort()[0], "softmax": lambda: x.softmax(0),
    "log_softmax": lambda: x.log_softmax(1), "w @ w": lambda: w @ w, "x @ w": lambda: x @ w,
    "vector @ x": lambda: torch.ones(3) @ x, "x.mm(x.t())": lambda: x.mm(x.t()), "x @ x.T": lambda: x @ x.T,
    "t": lambda: x.t(), "T": lambda: x.T, "transpose": lambda: x.transpose(0, 1), "permute": lambda: x.permute(1, 0),
    "view": lambda: x.view(6), "reshape": lambda: x.reshape(2, 3), "flatten": lambda: x.flatten(),
    "unsqueeze": lambda: x.unsqueeze(0), "squeeze": lambda: x.unsqueeze(0).squeeze(),
    "squeeze(0)": lambda: x.unsqueeze(0).squeeze(0), "expand": lambda: w.expand(3, 2), "expand_as": lambda: w.expand_as(x),
    "clone": lambda: x.clone(), "x[0]": lambda: x[0], "x[0, 1]": lambda: x[0, 1], "x[1:]": lambda: x[1:],
    "x[:, 1:]": lambda: x[:, 1:], "x[:, :]": lambda: x[:, :], "x[None]": lambda: x[None], "x[..., 0]": lambda: x[..., 0],
    "x[idx]": lambda: x[idx], "x[idx, 1]": lambda: x[idx, 1], "x[x > 2]": lambda: x[x > 2],
    "cat": lambda: torch.cat([x, c, x]), "stack": lambda: torch.stack([x, c]), "where": lambda: torch.where(c > 0, x, c),
    "to(float64)": lambda: x.to(torch.float64), "double": lambda: x.double(),
    "linear": lambda: F.linear(x, torch.ones(4, 2, requires_grad=True), torch.ones(4, requires_grad=True)),
    "linear, no bias": lambda: F.linear(x, torch.ones(4, 2, requires_grad=True)),
    "linear of a vector": lambda: F.linear(w, torch.ones(4, 2, requires_grad=True), torch.ones(4, requires_grad=True)),
    "mse_loss": lambda: F.mse_loss(x, c), "cross_entropy": lambda: F.cross_entropy(x, torch.tensor([0, 1, 1])),
    "relu()": lambda: F.relu(x),
}
for label, make in cases.items():
    print(f"{label:<20}", describe(make()))

print("in place on a non-leaf:")


def in_place(step):
    y = x * 1
    step(y)
    return y


steps = {
    "mul_(w)": lambda y: y.mul_(w), "add_(w)": lambda y: y.add_(w), "+= 1": lambda y: y.__iadd__(1),
    "sub_(w)": lambda y: y.sub_(w), "div_(w)": lambda y: y.div_(w), "zero_()": lambda y: y.zero_(),
    "fill_(2)": lambda y: y.fill_(2), "copy_(c)": lambda y: y.copy_(c), "copy_(w)": lambda y: y.copy_(w),
    "[0] = w": lambda y: y.__setitem__(0, w), "[idx] = 0.0": lambda y: y.__setitem__(idx, 0.0),
    "[:] = 2.0": lambda y: y.__setitem__(slice(None), 2.0),
    "index_add_": lambda y: y.index_add_(0, torch.tensor([0]), torch.ones(1, 2, requires_grad=True)),
}
for label, step in steps.items():
    y = in_place(step)
    print(f"{label:<20}", describe(y), "| name():", y.grad_fn.name(), "| version:", y._version)
