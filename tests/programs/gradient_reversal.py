"""A gradient reversal layer, as domain-adversarial training uses it (Ganin & Lempitsky, "Unsupervised
Domain Adaptation by Backpropagation", ICML 2015; the layer as published in fungtion/DANN, ReverseLayerF):
forward is the identity (``x.view_as(x)``), backward multiplies the gradient by ``-alpha``. A feature
extractor feeds a label classifier directly and a domain classifier through the reversal, batches
come from a TensorDataset through a DataLoader, and the losses are printed each epoch."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Function
from torch.utils.data import DataLoader, TensorDataset


class ReverseLayer(Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        output = grad_output.neg() * ctx.alpha
        return output, None


x = torch.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
y = ReverseLayer.apply(x, 0.5)
print(y.grad_fn.name(), y._base is x, y.grad_fn.alpha)
y.sum().backward()
print("reversed gradient:", x.grad)

rng = np.random.default_rng(7)
features = torch.from_numpy(rng.normal(size=(12, 4)).astype(np.float32))
labels = torch.from_numpy((rng.random(12) > 0.5).astype(np.int64))
domains = torch.from_numpy(np.repeat([0, 1], 6).astype(np.int64))


def layer(n_in, n_out):
    linear = nn.Linear(n_in, n_out)
    with torch.no_grad():
        linear.weight.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, size=(n_out, n_in)).astype(np.float32)))
        linear.bias.zero_()
    return linear


class DomainAdversarial(nn.Module):
    def __init__(self):
        super().__init__()
        self.feature = nn.Sequential(layer(4, 8), nn.ReLU(inplace=True))
        self.label_classifier = layer(8, 2)
        self.domain_classifier = nn.Sequential(layer(8, 4), nn.ReLU(), layer(4, 2))

    def forward(self, x, alpha):
        feature = self.feature(x)
        reversed_feature = ReverseLayer.apply(feature, alpha)
        return F.log_softmax(self.label_classifier(feature), dim=1), \
            F.log_softmax(self.domain_classifier(reversed_feature), dim=1)


model = DomainAdversarial()
print(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(features, labels, domains), batch_size=4)
print("batches per epoch:", len(loader))
for epoch in range(5):
    alpha = 2.0 / (1.0 + np.exp(-10 * epoch / 5)) - 1
    total = 0.0
    for x_batch, y_batch, d_batch in loader:
        class_output, domain_output = model(x_batch, alpha)
        loss = F.nll_loss(class_output, y_batch) + F.nll_loss(domain_output, d_batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
    print(f"epoch {epoch}: alpha {alpha:.4f} loss {total / len(loader):.4f}")
print("feature grad_fn chain:", model(features[:2], 1.0)[1].grad_fn.name())
