"""A graph attention network (Veličković et al., "Graph Attention Networks", ICLR 2018) written over an
edge list, the way code without a sparse library writes it: attention logits per edge from the two
end points, a softmax over each node's incoming edges with ``index_add_`` (and ``scatter_add``), messages
gathered by indexing with the edge list, self-loops added with ``repeat_interleave`` and ``torch.cat``,
multi-head outputs concatenated, ELU between layers. Trained with Adam on a small graph of two
communities; the weights come from numpy so that both libraries compute the same numbers."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class EdgeGATLayer(nn.Module):
    def __init__(self, in_features, out_features, heads=1, alpha=0.2, concat=True):
        super().__init__()
        self.heads, self.out_features, self.concat = heads, out_features, concat
        self.W = nn.Parameter(torch.empty(heads, in_features, out_features))
        self.a_src = nn.Parameter(torch.empty(heads, out_features))
        self.a_dst = nn.Parameter(torch.empty(heads, out_features))
        self.leakyrelu = nn.LeakyReLU(alpha)

    def forward(self, x, edge_index):
        n = x.size(0)
        h = torch.einsum("ni,hio->hno", x, self.W)                      # (heads, N, out)
        src, dst = edge_index[0], edge_index[1]
        score_src = (h * self.a_src.unsqueeze(1)).sum(-1)               # (heads, N)
        score_dst = (h * self.a_dst.unsqueeze(1)).sum(-1)
        e = self.leakyrelu(score_src[:, src] + score_dst[:, dst])       # (heads, E)
        e = e - e.max(dim=1, keepdim=True)[0]
        w = e.exp()
        denominator = torch.zeros(self.heads, n).index_add_(1, dst, w)
        attention = w / denominator[:, dst]
        messages = attention.unsqueeze(-1) * h[:, src, :]               # (heads, E, out)
        index = dst.view(1, -1, 1).expand_as(messages)
        out = torch.zeros_like(h).scatter_add(1, index, messages)
        if self.concat:
            return out.permute(1, 0, 2).reshape(n, self.heads * self.out_features)
        return out.mean(0)


class GAT(nn.Module):
    def __init__(self, nfeat, nhid, nclass, heads):
        super().__init__()
        self.layer1 = EdgeGATLayer(nfeat, nhid, heads=heads)
        self.layer2 = EdgeGATLayer(nhid * heads, nclass, heads=1, concat=False)

    def forward(self, x, edge_index):
        x = F.elu(self.layer1(x, edge_index))
        return F.log_softmax(self.layer2(x, edge_index), dim=1)


def with_self_loops(edge_index, n):
    loops = torch.arange(n).repeat_interleave(2).view(n, 2).t()
    return torch.cat([edge_index, loops], dim=1)


rng = np.random.default_rng(11)
n = 12
pairs = [(i, j) for i in range(n) for j in range(n) if i < j and ((i < 6) == (j < 6)) and rng.random() < 0.5]
pairs += [(2, 8), (5, 11)]
edges = torch.tensor(pairs, dtype=torch.long).t()
edge_index = with_self_loops(torch.cat([edges, edges.flip(0)], dim=1), n)
labels = torch.tensor([0] * 6 + [1] * 6)
features = torch.tensor(rng.normal(size=(n, 5)) + np.repeat([[0.5], [-0.5]], 6, axis=0), dtype=torch.float32)
print("edges with self-loops:", edge_index.shape[1], "in-degree of node 0:", int((edge_index[1] == 0).sum()))

model = GAT(5, 4, 2, heads=2)
with torch.no_grad():
    for name, p in model.named_parameters():
        p.copy_(torch.tensor(rng.normal(scale=0.5, size=tuple(p.shape)), dtype=torch.float32))
print([(name, tuple(p.shape)) for name, p in model.named_parameters()])

optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
train = torch.tensor([0, 1, 6, 7])
for epoch in range(30):
    optimizer.zero_grad()
    output = model(features, edge_index)
    loss = F.nll_loss(output[train], labels[train])
    loss.backward()
    optimizer.step()
    if epoch % 10 == 0:
        print(f"epoch {epoch}: loss {loss.item():.4f}, |grad W1| {model.layer1.W.grad.norm().item():.4f}")

model.eval()
with torch.no_grad():
    predicted = model(features, edge_index).argmax(1)
print("predicted:", predicted.tolist())
print(f"accuracy: {(predicted == labels).float().mean().item():.4f}")
print("graph of the loss:", loss.grad_fn.name(), [f.name() for f, _ in loss.grad_fn.next_functions if f is not None])
