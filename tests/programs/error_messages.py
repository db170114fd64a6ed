"""The errors a learner meets while writing custom Functions, caught and printed."""
import torch
from torch.autograd import Function


def attempt(label, action):
    try:
        action()
        print(f"{label}: no error")
    except Exception as error:
        print(f"{label}: {type(error).__name__}: {error}")


class TooFew(Function):
    @staticmethod
    def forward(ctx, a, b):
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


class WrongShape(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, grad_output):
        return torch.ones(7)


class GradForConstant(Function):
    @staticmethod
    def forward(ctx, a, c):
        return a * c

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 2, grad_output


class NumberGrad(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, grad_output):
        return 2.0


class SavesInput(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * 2

    @staticmethod
    def backward(ctx, grad_output):
        a, = ctx.saved_tensors
        return grad_output * 2


class SavesANumber(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a, 3)
        return a * 2

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


class DirtyLeaf(Function):
    @staticmethod
    def forward(ctx, a):
        a.add_(1)
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


class DirtyNotReturned(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.mark_dirty(a)
        return a * 2

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


class BothStyles(Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        return tensor * constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None


class NoForward(Function):
    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


class NoBackward(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
attempt("too few gradients", lambda: TooFew.apply(x, x).sum().backward())
attempt("wrong shape", lambda: WrongShape.apply(x).sum().backward())
attempt("gradient for a constant", lambda: GradForConstant.apply(x, 2).sum().backward())
attempt("a number as gradient", lambda: NumberGrad.apply(x).sum().backward())


def twice():
    y = SavesInput.apply(x).sum()
    y.backward()
    y.backward()


attempt("backward twice", twice)


def modified_then_backward():
    h = x * 3
    y = SavesInput.apply(h)
    h.mul_(2)
    y.sum().backward()


attempt("saved tensor modified", modified_then_backward)


def leaf_modified():
    y = x.sin()
    with torch.no_grad():
        x.mul_(1)
    y.sum().backward()


attempt("saved leaf modified", leaf_modified)
attempt("save a number", lambda: SavesANumber.apply(x))
attempt("mark_dirty on a leaf", lambda: DirtyLeaf.apply(x))
attempt("dirty input not returned", lambda: DirtyNotReturned.apply(x * 1))
attempt("both styles", lambda: BothStyles.apply(x, 2))
attempt("no forward", lambda: NoForward.apply(x))
attempt("no backward", lambda: NoBackward.apply(x).sum().backward())
attempt("non-scalar backward", lambda: (x * 2).backward())
attempt("gradient of the wrong shape", lambda: (x[:2] * 2).backward(torch.ones(3)))
attempt("nothing requires grad", lambda: torch.ones(2).sum().backward())
attempt("in place on a leaf", lambda: x.add_(1))
attempt("in place on a view of a leaf", lambda: x[0:2].mul_(2))
attempt("integer tensor requiring grad", lambda: torch.tensor([1, 2], requires_grad=True))
attempt("view of a bad shape", lambda: torch.ones(6).view(4, 2))
attempt("mm of bad shapes", lambda: torch.ones(2, 3).mm(torch.ones(2, 3)))
attempt("broadcasting", lambda: torch.ones(2, 3) + torch.ones(2))
attempt("item of three", lambda: torch.ones(3).item())
attempt("index out of range", lambda: torch.ones(3, 2)[1, 5])
attempt("numpy of a leaf requiring grad", lambda: x.numpy())
attempt("unused input", lambda: torch.autograd.grad((x * 2).sum(), [x, torch.ones(1, requires_grad=True)]))
attempt("replace a builtin node's next_functions", lambda: setattr((x * 2).grad_fn, "next_functions", ()))
attempt("delete a builtin node's metadata", lambda: delattr((x * 2).grad_fn, "metadata"))
attempt("rename a builtin node", lambda: setattr((x * 2).grad_fn, "name", None))
attempt("replace a custom node's next_functions", lambda: setattr(WrongShape.apply(x).grad_fn, "next_functions", ()))
attempt("delete a custom node's metadata", lambda: delattr(WrongShape.apply(x).grad_fn, "metadata"))
attempt("set a tensor's shape", lambda: setattr(x * 2, "shape", (3,)))
attempt("set a tensor's is_sparse", lambda: setattr(x * 2, "is_sparse", True))
attempt("set a tensor's device", lambda: setattr(x * 2, "device", "cpu"))
attempt("set a tensor's _base", lambda: setattr(x * 2, "_base", None))
attempt("delete a tensor's _base", lambda: delattr(x * 2, "_base"))
attempt("delete a tensor's is_leaf", lambda: delattr(x * 2, "is_leaf"))
attempt("set a tensor's _grad_fn to a node", lambda: setattr(x * 2, "_grad_fn", (x * 3).grad_fn))
attempt("delete a tensor's _grad_fn", lambda: delattr(x * 2, "_grad_fn"))
attempt("delete a tensor's _backward_hooks", lambda: delattr(x * 2, "_backward_hooks"))
attempt("detach a view by _grad_fn = None", lambda: setattr((x * 2)[1:], "_grad_fn", None))
attempt("copy_ a string", lambda: torch.ones(2).copy_("s"))
attempt("fill_ with a vector", lambda: torch.ones(2).fill_(torch.ones(2)))
attempt("fill_ a leaf with a vector", lambda: x.fill_(torch.ones(2)))
attempt("add_ a string", lambda: torch.ones(2).add_("s"))


def grad_fn_set_to_none():
    y = x * 2
    y._grad_fn = None   # PyTorch's detach_(): y becomes a leaf that does not require grad
    z = x.detach().requires_grad_()
    z._grad_fn = None   # a leaf: it stops requiring grad
    return y.grad_fn, y.requires_grad, y.is_leaf, z.requires_grad


print("_grad_fn = None:", grad_fn_set_to_none())
print("x after all that:", x, "| x.grad:", x.grad)
