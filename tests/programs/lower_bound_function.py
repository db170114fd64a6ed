"""The lower-bound Function and the non-negative reparametrization of a learned-compression library
(in the style of CompressAI's ``ops/bound_ops.py`` and ``ops/parametrizers.py``): ``LowerBoundFunction``
returns ``torch.max(input, bound)`` and lets the gradient through where it would push the input back
above the bound; ``LowerBound`` keeps the bound as a buffer made with ``torch.Tensor([float(bound)])``,
marks its helper ``@torch.jit.unused`` and asks ``torch.jit.is_scripting()``. A GDN-like normalisation
over channels (``y = x / sqrt(beta + gamma @ x ** 2)``, without the convolution) uses them."""
import torch
import torch.nn as nn
from torch import Tensor


class LowerBoundFunction(torch.autograd.Function):
    """Autograd function for the `LowerBound` operator."""

    @staticmethod
    def forward(ctx, input_, bound):
        ctx.save_for_backward(input_, bound)
        return torch.max(input_, bound)

    @staticmethod
    def backward(ctx, grad_output):
        input_, bound = ctx.saved_tensors
        pass_through_1 = input_ >= bound
        pass_through_2 = grad_output < 0
        pass_through = pass_through_1 | pass_through_2
        return pass_through.type(grad_output.dtype) * grad_output, None


class LowerBound(nn.Module):
    bound: Tensor

    def __init__(self, bound: float):
        super().__init__()
        self.register_buffer("bound", torch.Tensor([float(bound)]))

    @torch.jit.unused
    def lower_bound(self, x):
        return LowerBoundFunction.apply(x, self.bound)

    def forward(self, x):
        if torch.jit.is_scripting():
            return torch.max(x, self.bound)
        return self.lower_bound(x)


class NonNegativeParametrizer(nn.Module):
    pedestal: Tensor

    def __init__(self, minimum: float = 0, reparam_offset: float = 2 ** -18):
        super().__init__()
        self.minimum = float(minimum)
        self.reparam_offset = float(reparam_offset)
        pedestal = self.reparam_offset ** 2
        self.register_buffer("pedestal", torch.Tensor([pedestal]))
        bound = (self.minimum + self.reparam_offset ** 2) ** 0.5
        self.lower_bound = LowerBound(bound)

    def init(self, x: Tensor) -> Tensor:
        return torch.sqrt(torch.max(x + self.pedestal, self.pedestal))

    def forward(self, x: Tensor) -> Tensor:
        out = self.lower_bound(x)
        out = out ** 2 - self.pedestal
        return out


class ChannelGDN(nn.Module):
    def __init__(self, channels, beta_min=1e-6, gamma_init=0.1):
        super().__init__()
        self.beta_reparam = NonNegativeParametrizer(minimum=beta_min)
        self.beta = nn.Parameter(self.beta_reparam.init(torch.ones(channels)))
        self.gamma_reparam = NonNegativeParametrizer()
        self.gamma = nn.Parameter(self.gamma_reparam.init(gamma_init * torch.eye(channels)))

    def forward(self, x):
        beta = self.beta_reparam(self.beta)
        gamma = self.gamma_reparam(self.gamma)
        norm = torch.sqrt(beta + (x ** 2) @ gamma.t())
        return x / norm


bound = LowerBound(0.5)
print("buffers:", [(name, b.tolist(), b.dtype) for name, b in bound.named_buffers()])
x = torch.tensor([-1.0, 0.25, 0.5, 0.75, 2.0], requires_grad=True)
y = bound(x)
print("forward:", y.tolist(), y.grad_fn.name())
y.backward(torch.tensor([1.0, -1.0, 1.0, -1.0, 1.0]))
print("gradient:", x.grad.tolist())

gdn = ChannelGDN(3)
print("parameters:", [(name, tuple(p.shape)) for name, p in gdn.named_parameters()])
print("state_dict keys:", list(gdn.state_dict()))
signal = torch.tensor([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0], [2.0, 2.0, 2.0]])
optimizer = torch.optim.SGD(gdn.parameters(), lr=0.1)
for step in range(5):
    optimizer.zero_grad()
    out = gdn(signal)
    loss = ((out - signal / 2) ** 2).mean()
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.5f}, beta {[round(v, 4) for v in gdn.beta.tolist()]}")
print("gamma stays non-negative:", bool((gdn.gamma_reparam(gdn.gamma) >= 0).all()))
