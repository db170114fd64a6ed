"""Sparsemax (Martins & Astudillo, "From Softmax to Sparsemax", ICML 2016) as an nn.Module in the style
of KrisKorrel/sparsemax-pytorch: forward sorts, builds a range with ``torch.arange(start=..., end=...,
dtype=...)``, compares with ``torch.gt`` and casts with ``.type(input.type())``, takes the element-wise
``torch.max`` of zeros and the shifted input; the module also has a hand-written ``backward`` that
gives the Jacobian-vector product, which code calls itself. Autograd's gradient (through sort, cumsum
and max) is compared with it."""
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Sparsemax(nn.Module):
    def __init__(self, dim=None):
        super(Sparsemax, self).__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, input):
        input = input.transpose(0, self.dim)
        original_size = input.size()
        input = input.reshape(input.size(0), -1)
        input = input.transpose(0, 1)
        dim = 1
        number_of_logits = input.size(dim)

        input = input - torch.max(input, dim=dim, keepdim=True)[0].expand_as(input)
        zs = torch.sort(input=input, dim=dim, descending=True)[0]
        range = torch.arange(start=1, end=number_of_logits + 1, step=1, device=device, dtype=input.dtype).view(1, -1)
        range = range.expand_as(zs)

        bound = 1 + range * zs
        cumulative_sum_zs = torch.cumsum(zs, dim)
        is_gt = torch.gt(bound, cumulative_sum_zs).type(input.type())
        k = torch.max(is_gt * range, dim, keepdim=True)[0]

        zs_sparse = is_gt * zs
        taus = (torch.sum(zs_sparse, dim, keepdim=True) - 1) / k
        taus = taus.expand_as(input)

        self.output = torch.max(torch.zeros_like(input), input - taus)
        output = self.output.transpose(0, 1)
        output = output.reshape(original_size)
        output = output.transpose(0, self.dim)
        return output

    def backward(self, grad_output):
        dim = 1
        nonzeros = torch.ne(self.output, 0)
        sum = torch.sum(grad_output * nonzeros, dim=dim, keepdim=True) / torch.sum(nonzeros, dim=dim, keepdim=True)
        self.grad_input = nonzeros * (grad_output - sum.expand_as(grad_output))
        return self.grad_input


scores = torch.tensor([[2.0, 1.0, 0.1, -1.0], [0.5, 0.4, 0.3, 0.2], [3.0, -2.0, 0.0, 2.9]], requires_grad=True)
sparsemax = Sparsemax(dim=1)
probabilities = sparsemax(scores)
print("sparsemax:")
for row in probabilities.tolist():
    print("  " + "  ".join(f"{p:.4f}" for p in row))
print("rows sum to one:", [round(s, 6) for s in probabilities.sum(1).tolist()])
print("graph:", probabilities.grad_fn.name(), probabilities.grad_fn.next_functions[0][0].name())

weights = torch.tensor([[1.0, -1.0, 0.5, 2.0], [0.0, 1.0, 2.0, 3.0], [1.0, 1.0, -1.0, 0.5]])
(probabilities * weights).sum().backward()
by_hand = sparsemax.backward(weights)
print("autograd:", [[round(g, 4) for g in row] for row in scores.grad.tolist()])
print("by hand: ", [[round(g, 4) for g in row] for row in by_hand.tolist()])
print("equal:", torch.allclose(scores.grad, by_hand))
