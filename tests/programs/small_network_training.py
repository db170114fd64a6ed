"""A two-layer network trained with SGD (momentum) and Adam from fixed weights: same losses as PyTorch."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(2, 4)
        self.out = nn.Linear(4, 1)

    def forward(self, x):
        return self.out(torch.tanh(self.hidden(x)))


def fixed_model():
    model = TwoLayer()
    with torch.no_grad():   # fixed weights: PyTorch's and minigrad's random numbers differ
        model.hidden.weight.copy_(torch.tensor([[0.5, -0.3], [0.8, 0.2], [-0.6, 0.4], [0.1, 0.9]]))
        model.hidden.bias.copy_(torch.tensor([0.1, -0.1, 0.05, 0.0]))
        model.out.weight.copy_(torch.tensor([[0.3, -0.5, 0.7, 0.2]]))
        model.out.bias.copy_(torch.tensor([0.05]))
    return model


x = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
y = torch.tensor([[0.0], [1.0], [1.0], [0.0]])

model = fixed_model()
print(model)
print("parameters:", [(name, tuple(p.shape)) for name, p in model.named_parameters()])
out = model(x)
print("output node:", type(out.grad_fn).__name__, [(None if n is None else n.name(), i) for n, i in out.grad_fn.next_functions])

for name, make in [("SGD", lambda p: torch.optim.SGD(p, lr=0.5, momentum=0.9)), ("Adam", lambda p: torch.optim.Adam(p, lr=0.05))]:
    model = fixed_model()
    optimizer = make(model.parameters())
    for step in range(200):
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        if step % 40 == 0:
            print(f"{name} step {step:3d}: loss {loss.item():.4f}")
    print(f"{name} predictions:", [round(v, 2) + 0.0 for v in model(x).detach().view(-1).tolist()])

print("cross entropy on fixed scores:")
scores = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 0.3]], requires_grad=True)
loss = F.cross_entropy(scores, torch.tensor([0, 2]))
loss.backward()
print(" ", loss, "|", type(loss.grad_fn).__name__)
print(" ", scores.grad)
