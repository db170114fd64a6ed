"""Memory-efficient activations as custom autograd Functions, in the style of timm's activations_me:
forward and backward helpers compiled with ``@torch.jit.script`` (minigrad runs them as Python),
Swish, Mish (with ``F.softplus``) and hard variants (``clamp``, comparisons joined with ``&``), each
saving only its input, and modules that choose the scripted path with ``torch.jit.is_scripting()``.
Every Function is checked with gradcheck and against the same formula through autograd."""
import torch
import torch.nn.functional as F
from torch import nn


@torch.jit.script
def swish_jit_fwd(x):
    return x.mul(torch.sigmoid(x))


@torch.jit.script
def swish_jit_bwd(x, grad_output):
    x_sigmoid = torch.sigmoid(x)
    return grad_output * (x_sigmoid * (1 + x * (1 - x_sigmoid)))


class SwishJitAutoFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return swish_jit_fwd(x)

    @staticmethod
    def backward(ctx, grad_output):
        x = ctx.saved_tensors[0]
        return swish_jit_bwd(x, grad_output)


@torch.jit.script
def mish_jit_fwd(x):
    return x.mul(torch.tanh(F.softplus(x)))


@torch.jit.script
def mish_jit_bwd(x, grad_output):
    x_sigmoid = torch.sigmoid(x)
    x_tanh_sp = F.softplus(x).tanh()
    return grad_output.mul(x_tanh_sp + x * x_sigmoid * (1 - x_tanh_sp * x_tanh_sp))


class MishJitAutoFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return mish_jit_fwd(x)

    @staticmethod
    def backward(ctx, grad_output):
        x = ctx.saved_tensors[0]
        return mish_jit_bwd(x, grad_output)


@torch.jit.script
def hard_swish_jit_fwd(x):
    return x * (x + 3).clamp(min=0, max=6).div(6.)


@torch.jit.script
def hard_swish_jit_bwd(x, grad_output):
    m = torch.ones_like(x) * (x >= 3.)
    m = torch.where((x >= -3.) & (x <= 3.), x / 3. + .5, m)
    return grad_output * m


class HardSwishJitAutoFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return hard_swish_jit_fwd(x)

    @staticmethod
    def backward(ctx, grad_output):
        x = ctx.saved_tensors[0]
        return hard_swish_jit_bwd(x, grad_output)


@torch.jit.script
def hard_mish_jit_fwd(x):
    return 0.5 * x * (x + 2).clamp(min=0, max=2)


@torch.jit.script
def hard_mish_jit_bwd(x, grad_output):
    m = torch.ones_like(x) * (x >= -2.)
    m = torch.where((x >= -2.) & (x <= 0.), x + 1., m)
    return grad_output * m


class HardMishJitAutoFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return hard_mish_jit_fwd(x)

    @staticmethod
    def backward(ctx, grad_output):
        x = ctx.saved_tensors[0]
        return hard_mish_jit_bwd(x, grad_output)


class MishMe(nn.Module):
    def __init__(self, inplace: bool = False):
        super(MishMe, self).__init__()

    def forward(self, x):
        if torch.jit.is_scripting():
            return mish_jit_fwd(x)
        return MishJitAutoFn.apply(x)


reference = {
    "swish": lambda x: x * torch.sigmoid(x),
    "mish": lambda x: x * torch.tanh(F.softplus(x)),
    "hard_swish": lambda x: x * F.hardtanh(x + 3, 0., 6.) / 6.,
    "hard_mish": lambda x: 0.5 * x * (x + 2).clamp(min=0, max=2),
}
functions = {"swish": SwishJitAutoFn, "mish": MishJitAutoFn, "hard_swish": HardSwishJitAutoFn,
             "hard_mish": HardMishJitAutoFn}
x = torch.tensor([-4.0, -2.5, -1.0, -0.3, 0.4, 1.7, 2.5, 5.0], dtype=torch.float64, requires_grad=True)
for name, function in functions.items():
    y = function.apply(x)
    grad, = torch.autograd.grad(y.sum(), x)
    expected, = torch.autograd.grad(reference[name](x).sum(), x)
    print(f"{name:10s} {y.grad_fn.name():24s} values {[round(v, 4) for v in y.tolist()]}")
    print(f"{'':10s} gradients equal autograd's: {torch.allclose(grad, expected)}, "
          f"gradcheck: {torch.autograd.gradcheck(function.apply, (x,))}")

layer = nn.Sequential(nn.Linear(3, 4), MishMe(), nn.Linear(4, 1))
with torch.no_grad():
    for k, p in enumerate(layer.parameters()):
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).view_as(p) * (k + 1))
out = layer(torch.tensor([[1.0, -2.0, 0.5], [0.0, 0.3, -0.7]]))
out.sum().backward()
print("module output:", [round(v, 4) for v in out.view(-1).tolist()])
print("first weight's gradient:", [round(v, 4) for v in layer[0].weight.grad.view(-1).tolist()])
