"""In-place changes through views: the base gets CopySlices, the view AsStridedBackward0, and PyTorch's refusals."""
import torch
from torch.autograd import Function


def names(t):
    """The node names reachable from t.grad_fn, depth first."""
    found = []

    def walk(node):
        if node is not None:
            found.append(node.name().replace("torch::autograd::", ""))
            for next_node, _ in node.next_functions:
                walk(next_node)
    walk(t.grad_fn)
    return found


def edges(node):
    return [(None if n is None else n.name().replace("torch::autograd::", ""), i) for n, i in node.next_functions]


def attempt(label, call):
    try:
        print(label, "->", call())
    except Exception as error:
        print(label, "->", type(error).__name__ + ":", error)


def fresh():
    return torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)


print("== a view shares its base's version counter and is rewritten by an in-place op")
x = fresh()
y = x.clone()
v = y[0]
print(y.grad_fn.name(), v.grad_fn.name(), y._version, v._version, v._base is y, v._is_view(), y._is_view())
v.mul_(2)
print(y.grad_fn.name(), v.grad_fn.name(), y._version, v._version)
print(names(y), names(v), edges(y.grad_fn), edges(v.grad_fn))
y.sum().backward()
print(x.grad)

x = fresh()
z = x.clone()
zv = z[1]
z.add_(1)
print("base changed, view follows:", z._version, zv._version, names(zv))
y = x.clone()
v = y.view(-1)
v2 = v[1:]
v2.add_(1)
print("chain:", names(y), names(v), names(v2), y._version, v._version, v2._version, v2._base is y)
y = x.clone()
y.t().add_(1)
print("t():", names(y))
y.sum().backward()
print(x.grad)

x = fresh()
w = torch.tensor([10., 20.], requires_grad=True)
y = x.clone()
y[0].add_(w)
print("add_(w):", edges(y.grad_fn))
(y * y).sum().backward()
print(x.grad, w.grad)

print("== index assignment is the same mechanism")
x = fresh()
y = x.clone()
y[0] = 5.0
print(y.grad_fn.name(), names(y), y._version, edges(y.grad_fn))
(y * y).sum().backward()
print(x.grad)
x = fresh()
w = torch.tensor([10., 20.], requires_grad=True)
y3 = x.clone()
y3[0] = w
print(edges(y3.grad_fn))
print(y3)
(y3 * y3).sum().backward()
print(x.grad, w.grad)
x = fresh()
for label, key, value in [("[:, 1]", (slice(None), 1), torch.tensor([7., 8.])), ("[0, 1]", (0, 1), 5.0),
                          ("[:]", slice(None), 5.0), ("[tensor([0])]", torch.tensor([0]), 5.0)]:
    y = x.clone()
    y[key] = value
    print(label, names(y))
y = x.clone()
y[0][1] = 5.0
print("[0][1]", names(y))
y = x.clone()
y[0] += w
print("[0] +=", names(y))
(y * y).sum().backward()
print(x.grad, w.grad)

print("== siblings and bases that did not require grad")
x = fresh()
y = x.clone()
v, u = y[0], y[1]
y.mul_(2)
print(names(v), names(u))
y = x.clone()
v, u = y[0], y[1]
v.mul_(2)
print(names(u), edges(u.grad_fn))
a = torch.zeros(2, 2)
v, u = a[0], a[1]
print(u.requires_grad, u.grad_fn)
v.mul_(w)
print(names(a), names(v), names(u), u.requires_grad)
a = torch.tensor([2., 5.])
b = torch.tensor([3.], requires_grad=True)
res = a[1:].mul_(b)
res.sum().backward()
print(b.grad, a.requires_grad, a.is_leaf)

print("== retain_grad follows the tensor to its new grad_fn")
x = fresh()
y = x.clone()
y.retain_grad()
y.mul_(2)
y.sum().backward()
print(y.grad, x.grad)
x = fresh()
y = x.clone()
v = y[0]
v.retain_grad()
v.mul_(3)
y.sum().backward()
print(v.grad, x.grad)
x = fresh()
y = x.clone()
v = y[0]
v.retain_grad()
y.mul_(3)
(v * 1).sum().backward()
print(v.grad, x.grad)

print("== refused")
x = fresh()
attempt("leaf", lambda: x.mul_(2))
attempt("view of a leaf", lambda: x[0].mul_(2))
attempt("x[0] = 1.0 on a leaf", lambda: x.__setitem__(0, 1.0))
attempt("x[tensor([0])] = 1.0 on a leaf", lambda: x.__setitem__(torch.tensor([0]), 1.0))
y = x.clone()
with torch.no_grad():
    nv = y[0]
print("no_grad view:", nv.requires_grad, nv.grad_fn, nv.is_leaf)
attempt("no_grad view modified", lambda: nv.mul_(2))
with torch.no_grad():
    lv = x[0]
attempt("no_grad view of a leaf modified", lambda: lv.mul_(2))
y = x.clone()
with torch.no_grad():
    nv = y[0]
y.mul_(2)
attempt("no_grad view after its base changed", lambda: nv.grad_fn)
attempt("the same, used", lambda: (nv * 2).sum().backward())
plain = torch.zeros(2, 2)
with torch.no_grad():
    pv = plain[0]
attempt("no_grad view of a plain tensor, add_(1)", lambda: names(pv.add_(1)))
attempt("no_grad view of a plain tensor, mul_(w)", lambda: pv.mul_(w))
y = x.clone()
e = y[0].expand(3, 2)
attempt("expanded view", lambda: e.mul_(2))
a = torch.tensor([1., 2.], requires_grad=True)
y = a.exp()
y[:1].mul_(2)
attempt("saved tensor changed through a view", lambda: y.sum().backward())
print(a.grad)


class Id(Function):
    @staticmethod
    def forward(ctx, t):
        return t.view_as(t)

    @staticmethod
    def backward(ctx, grad):
        return grad


class Same(Function):
    @staticmethod
    def forward(ctx, t):
        return t

    @staticmethod
    def backward(ctx, grad):
        return grad


print("== custom Functions that return views")
x = fresh()
out = Id.apply(x)
print(out._is_view(), out._base is x, names(out))
attempt("Id output modified", lambda: out.mul_(2))
out = Same.apply(x.clone())
print(out._is_view(), names(out))
attempt("Same output modified", lambda: out.mul_(2))
out2 = Id.apply(x.clone())[1:]
print(names(out2))
attempt("a view of Id's output modified", lambda: out2.mul_(2))
y = x.clone()
out = Id.apply(y)
y.mul_(2)
attempt("Id output after its base changed", lambda: out.grad_fn)
with torch.no_grad():
    out = Id.apply(x)
print(out._is_view(), out.requires_grad, out.grad_fn)
attempt("Id output made under no_grad, modified", lambda: out.mul_(2))
out = Id.apply(torch.ones(2))
print(out._is_view(), out.requires_grad)
attempt("Id output of a plain tensor, mul_(w)", lambda: out.mul_(w))


class Dirty(Function):
    @staticmethod
    def forward(ctx, t):
        t.mul_(2)
        ctx.mark_dirty(t)
        return t

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class DirtyTwo(Function):
    @staticmethod
    def forward(ctx, t):
        t.mul_(2)
        ctx.mark_dirty(t)
        return t, t * 3

    @staticmethod
    def backward(ctx, grad, other):
        return grad * 2 + other * 6


print("== mark_dirty on a view")
a = torch.ones(3, requires_grad=True)
y = a * 1
v = y[:2]
out = Dirty.apply(v)
print(out is v, v.grad_fn.name(), y.grad_fn.name(), names(y))
y.sum().backward()
print(a.grad)
attempt("mark_dirty on a view of a leaf", lambda: Dirty.apply(a[:2]))
attempt("mark_dirty on a view, two outputs", lambda: DirtyTwo.apply((a * 1)[:2]))

print("== reshape and contiguous")
x = fresh()
print(names(x.reshape(-1)), names(x.t().reshape(-1)), names(x.t().contiguous().view(-1)))
print(x.contiguous() is x, x.t().is_contiguous(), x.t().reshape(-1)._is_view(), x.reshape(-1)._is_view())
attempt("view of a transposed tensor", lambda: x.t().view(-1))
print(x.detach()._is_view(), x.clone()._is_view(), x[0][1]._base is x, x.t().t()._base is x)
