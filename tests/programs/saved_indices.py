"""Index, mask and label tensors that a builtin's backward reads are saved for backward.

For each operation: its node and next_functions (an index gets no entry), the saved tensor under
PyTorch's name, the gradient; then the same forward, the index changed in place before backward:
backward refuses with the version error, and x.grad keeps what it had. Then the cases where PyTorch
does not refuse (the gradient that would read the index is not needed), and double backward.
"""
import torch
import torch.nn.functional as F

MASK = [[True, False, True], [False, True, False]]


def names(node):
    return [n.name() if n is not None else None for n, _ in node.next_functions]


def rounded(t):
    return [[round(v, 4) for v in row] for row in t.tolist()]


def show(title, operation, make_index, saved):
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    index = make_index()
    y = operation(x, index)
    node = y.grad_fn
    kept = getattr(node, saved)
    is_index = kept is index if isinstance(kept, torch.Tensor) else any(t is index for t in kept)
    print(f"{title}: {node.name()} {names(node)} {saved} is the index: {is_index}")
    y.backward(torch.arange(1.0, y.numel() + 1).reshape(y.shape))
    print("  x.grad:", rounded(x.grad))
    y = operation(x, index)
    index.zero_()   # an in-place change: the index's version goes from 0 to 1
    try:
        y.backward(torch.ones(y.shape))
        print("  changed in place: no error")
    except RuntimeError as error:
        print("  changed in place:", error)
    print("  x.grad kept:", rounded(x.grad))


def clone_then(method):
    def operation(x, index):
        y = x.clone()
        method(y, index)
        return y
    return operation


src = torch.tensor([[10.0, 20.0], [30.0, 40.0]], requires_grad=True)
show("gather", lambda x, i: x.gather(1, i), lambda: torch.tensor([[0, 1], [2, 0]]), "_saved_index")
show("gather (int32)", lambda x, i: x.gather(1, i), lambda: torch.tensor([[0, 1], [2, 0]], dtype=torch.int32),
     "_saved_index")
show("scatter", lambda x, i: x.scatter(1, i, src), lambda: torch.tensor([[0, 1], [2, 0]]), "_saved_index")
show("scatter value", lambda x, i: x.scatter(1, i, 7.0), lambda: torch.tensor([[0, 1], [2, 0]]), "_saved_index")
show("scatter_", clone_then(lambda y, i: y.scatter_(1, i, src)), lambda: torch.tensor([[0, 1], [2, 0]]),
     "_saved_index")
show("scatter_add", lambda x, i: x.scatter_add(1, i, src), lambda: torch.tensor([[0, 1], [2, 0]]), "_saved_index")
show("scatter_add_", clone_then(lambda y, i: y.scatter_add_(1, i, src)), lambda: torch.tensor([[0, 1], [2, 0]]),
     "_saved_index")
show("index_select", lambda x, i: x.index_select(1, i), lambda: torch.tensor([2, 0, 2]), "_saved_index")
show("index_add_", clone_then(lambda y, i: y.index_add_(1, i, src)), lambda: torch.tensor([2, 0]), "_saved_index")
show("masked_fill", lambda x, m: x.masked_fill(m, 0.0), lambda: torch.tensor(MASK), "_saved_mask")
show("masked_fill (row mask)", lambda x, m: x.masked_fill(m, 0.0), lambda: torch.tensor([True, False, True]),
     "_saved_mask")
show("masked_fill (tensor value)", lambda x, m: x.masked_fill(m, torch.tensor(5.0, requires_grad=True)),
     lambda: torch.tensor(MASK), "_saved_mask")
show("masked_fill_", clone_then(lambda y, m: y.masked_fill_(m, 0.0)), lambda: torch.tensor(MASK), "_saved_mask")
show("masked_select", lambda x, m: x.masked_select(m), lambda: torch.tensor(MASK), "_saved_mask")
show("masked_select (row mask)", lambda x, m: x.masked_select(m), lambda: torch.tensor([True, False, True]),
     "_saved_mask")
show("where", lambda x, m: torch.where(m, x, torch.zeros(2, 3)), lambda: torch.tensor(MASK), "_saved_condition")
show("where (number)", lambda x, m: torch.where(m, x, 0.0), lambda: torch.tensor(MASK), "_saved_condition")
show("x[index]", lambda x, i: x[i], lambda: torch.tensor([1, 0, 1]), "_saved_indices")
show("x[:, index]", lambda x, i: x[:, i], lambda: torch.tensor([2, 0]), "_saved_indices")
show("x[1:, index]", lambda x, i: x[1:, i], lambda: torch.tensor([2, 0]), "_saved_indices")
show("x[rows, index]", lambda x, i: x[torch.tensor([1, 0]), i], lambda: torch.tensor([2, 0]), "_saved_indices")
show("x[mask]", lambda x, m: x[m], lambda: torch.tensor(MASK), "_saved_indices")
show("x[index] = v", clone_then(lambda y, i: y.__setitem__(i, torch.ones(3, requires_grad=True))),
     lambda: torch.tensor([1]), "_saved_indices")
show("x[:, index] = v", clone_then(lambda y, i: y.__setitem__((slice(None), i), torch.zeros(2, 2))),
     lambda: torch.tensor([2, 0]), "_saved_indices")
show("x[mask] = 0", clone_then(lambda y, m: y.__setitem__(m, 0.0)), lambda: torch.tensor(MASK), "_saved_indices")
show("embedding", lambda w, i: F.embedding(i, w), lambda: torch.tensor([[1, 0], [1, 1]]), "_saved_indices")
show("nll_loss", lambda x, t: F.nll_loss(x, t), lambda: torch.tensor([2, 1]), "_saved_target")
show("nll_loss (uint8 target)", lambda x, t: F.nll_loss(x, t), lambda: torch.tensor([2, 1], dtype=torch.uint8),
     "_saved_target")
show("nll_loss (one sample)", lambda x, t: F.nll_loss(x[0], t), lambda: torch.tensor(2), "_saved_target")
show("cross_entropy", lambda x, t: F.cross_entropy(x, t), lambda: torch.tensor([2, 1]), "_saved_target")
show("nll_loss weight", lambda x, w: F.nll_loss(x, torch.tensor([2, 1]), weight=w),
     lambda: torch.tensor([1.0, 2.0, 3.0]), "_saved_weight")

print("indices a node computed itself (max, sort, topk, median), changed in place:")
for name, operation in [("max", lambda x: x.max(1)), ("sort", lambda x: x.sort(1)), ("topk", lambda x: x.topk(2)),
                        ("median", lambda x: x.median(1))]:
    x = torch.tensor([[1.0, 3.0, 2.0], [6.0, 4.0, 5.0]], requires_grad=True)
    values, indices = operation(x)
    print(f"  {name}: _saved_indices is indices: {values.grad_fn._saved_indices is indices}")
    indices.zero_()
    try:
        values.sum().backward()
    except RuntimeError as error:
        print("   ", error)

print("when no gradient reads the index, PyTorch does not check it:")
x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
index = torch.tensor([[0, 1], [2, 0]])
y = x.scatter_add(1, index, torch.ones(2, 2))
print("  scatter_add, src needs no gradient:", names(y.grad_fn))
index.zero_()
y.sum().backward(retain_graph=False)
y.sum().backward()
print("  changed, then two backwards: x.grad", x.grad.tolist())
x.grad = None
index = torch.tensor([2, 0])
y = x.clone().index_add_(1, index, torch.ones(2, 2))
print("  index_add_, source needs no gradient:", names(y.grad_fn))
index.zero_()
y.sum().backward()
print("  changed: x.grad", x.grad.tolist())

print("a 0-dim mask and a 0-dim integer index:")
x0 = torch.tensor(3.0, requires_grad=True)
mask0 = torch.tensor(True)
y = x0[mask0]
print("  x0[mask0]:", y.grad_fn.name(), names(y.grad_fn), y.grad_fn._saved_indices)
mask0.fill_(False)
y.sum().backward()
print("  mask0 changed: no error, x0.grad", x0.grad.item())
x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
y = x[torch.tensor(True)]
print("  x[tensor(True)]:", tuple(y.shape), y.grad_fn.name(), names(y.grad_fn))
y = x[torch.tensor(1)]
print("  x[tensor(1)]:", y.grad_fn.name(), "a view of x:", y._base is x)

print("a mask that is a view: changing its base changes it")
base = torch.tensor(MASK)
y = x.masked_fill(base[0], 0.0)
base[1, 0] = True
try:
    y.sum().backward()
except RuntimeError as error:
    print("  ", error)

print("saved, so freed by backward:")
index = torch.tensor([[0, 1], [2, 0]])
y = x.gather(1, index)
y.sum().backward(retain_graph=True)
print("  retain_graph=True, then _saved_index is index:", y.grad_fn._saved_index is index)
y.sum().backward()
try:
    y.grad_fn._saved_index
except RuntimeError as error:
    print("  after a backward without it:", error)
try:
    y.sum().backward()
except RuntimeError as error:
    print("  a second backward:", error)

print("double backward: the backward's own nodes read the index too")
for name, operation, make_index in [
        ("gather", lambda x, i: x.gather(1, i), lambda: torch.tensor([[0, 1], [2, 0]])),
        ("masked_fill", lambda x, m: x.masked_fill(m, 0.0), lambda: torch.tensor(MASK)),
        ("where", lambda x, m: torch.where(m, x, 0.0), lambda: torch.tensor(MASK)),
        ("x[index]", lambda x, i: x[i], lambda: torch.tensor([1, 0])),
        ("x[mask]", lambda x, m: x[m], lambda: torch.tensor(MASK)),
        ("index_select", lambda x, i: x.index_select(1, i), lambda: torch.tensor([2, 0])),
        ("masked_select", lambda x, m: x.masked_select(m), lambda: torch.tensor(MASK)),
        ("embedding", lambda w, i: F.embedding(i, w), lambda: torch.tensor([1, 0])),
        ("nll_loss", lambda x, t: F.nll_loss(x, t, reduction="none"), lambda: torch.tensor([1, 2]))]:
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    index = make_index()
    y = operation(x, index)
    w = torch.ones(y.shape, requires_grad=True)
    g, = torch.autograd.grad(y, x, w, create_graph=True)
    index.zero_()
    try:
        (g * torch.arange(6.0).reshape(2, 3)).sum().backward()
        print(f"  {name}: no error, w.grad", w.grad.tolist())
    except RuntimeError as error:
        print(f"  {name}:", str(error)[:140])

print("where and nll_loss check their arguments:")
for condition in [torch.tensor([1, 0]), torch.tensor([1.0, 0.0])]:
    try:
        torch.where(condition, torch.ones(2), torch.zeros(2))
    except RuntimeError as error:
        print("  ", error)
try:
    F.nll_loss(torch.zeros(2, 3, requires_grad=True), torch.tensor([1, 0]), weight=torch.ones(3, requires_grad=True))
except RuntimeError as error:
    print("  ", error)
with torch.no_grad():
    print("   under no_grad:", F.nll_loss(torch.zeros(2, 3), torch.tensor([1, 0]), weight=torch.ones(3, requires_grad=True)))
