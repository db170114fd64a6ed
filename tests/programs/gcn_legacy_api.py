"""A two-layer graph convolutional network written the way tkipf's pygcn (Kipf & Welling, "Semi-Supervised
Classification with Graph Convolutional Networks", ICLR 2017; github.com/tkipf/pygcn, MIT licence) writes
it, with the same PyTorch calls: the layer imports Parameter and Module from their module paths, makes
its weights with the legacy ``torch.FloatTensor(n, m)`` and ``.data.uniform_``, multiplies by a sparse
adjacency with ``torch.spmm``; the data is read from text in pygcn's Cora format (``<id> <features...>
<label>`` and ``<cited> <citing>`` lines) and turned into tensors with ``torch.FloatTensor``,
``torch.LongTensor`` and ``torch.sparse.FloatTensor(indices, values, shape)``. The graph is small and
made here: three groups of papers that cite mostly within their group. The weights are re-drawn from
numpy after ``reset_parameters`` and dropout is 0, so that both libraries compute the same numbers."""
import io
import math
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.nn.modules.module import Module
from torch.nn.parameter import Parameter


class GraphConvolution(Module):
    def __init__(self, in_features, out_features, bias=True):
        super(GraphConvolution, self).__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(torch.FloatTensor(in_features, out_features))
        if bias:
            self.bias = Parameter(torch.FloatTensor(out_features))
        else:
            self.register_parameter('bias', None)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1. / math.sqrt(self.weight.size(1))
        self.weight.data.uniform_(-stdv, stdv)
        if self.bias is not None:
            self.bias.data.uniform_(-stdv, stdv)

    def forward(self, input, adj):
        support = torch.mm(input, self.weight)
        output = torch.spmm(adj, support)
        if self.bias is not None:
            return output + self.bias
        return output

    def __repr__(self):
        return self.__class__.__name__ + ' (' + str(self.in_features) + ' -> ' + str(self.out_features) + ')'


class GCN(nn.Module):
    def __init__(self, nfeat, nhid, nclass, dropout):
        super(GCN, self).__init__()
        self.gc1 = GraphConvolution(nfeat, nhid)
        self.gc2 = GraphConvolution(nhid, nclass)
        self.dropout = dropout

    def forward(self, x, adj):
        x = F.relu(self.gc1(x, adj))
        x = F.dropout(x, self.dropout, training=self.training)
        x = self.gc2(x, adj)
        return F.log_softmax(x, dim=1)


# ---- a small citation graph in pygcn's file format
rng = np.random.default_rng(5)
groups = ["Theory", "Neural_Networks", "Rule_Learning"]
content, cites = [], []
for paper in range(30):
    group = paper % 3
    words = (rng.random(12) < 0.15).astype(int)
    words[group * 4:(group + 1) * 4] |= (rng.random(4) < 0.6).astype(int)
    content.append("\t".join([str(1000 + paper)] + [str(w) for w in words] + [groups[group]]))
for paper in range(30):
    for other in rng.choice(30, size=3, replace=False):
        if other != paper and (other % 3 == paper % 3 or rng.random() < 0.2):
            cites.append(f"{1000 + other}\t{1000 + paper}")

idx_features_labels = np.genfromtxt(io.StringIO("\n".join(content)), dtype=np.dtype(str))
features = idx_features_labels[:, 1:-1].astype(np.float32)
classes = sorted(set(idx_features_labels[:, -1]))
labels_onehot = np.array([[c == label for c in classes] for label in idx_features_labels[:, -1]], dtype=np.int32)
idx = np.array(idx_features_labels[:, 0], dtype=np.int32)
idx_map = {j: i for i, j in enumerate(idx)}
edges_unordered = np.genfromtxt(io.StringIO("\n".join(cites)), dtype=np.int32)
edges = np.array(list(map(idx_map.get, edges_unordered.flatten())), dtype=np.int32).reshape(edges_unordered.shape)
adj = np.zeros((30, 30), dtype=np.float32)
adj[edges[:, 0], edges[:, 1]] = 1
adj = np.maximum(adj, adj.T) + np.eye(30, dtype=np.float32)   # symmetric, with self-loops


def normalize(mx):
    """Row-normalize a matrix."""
    rowsum = mx.sum(1)
    r_inv = np.power(rowsum, -1.0)
    r_inv[np.isinf(r_inv)] = 0.
    return r_inv[:, None] * mx


features = normalize(features)
adj = normalize(adj)
rows, cols = np.nonzero(adj)
indices = torch.from_numpy(np.vstack((rows, cols)).astype(np.int64))
values = torch.from_numpy(adj[rows, cols].astype(np.float32))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")   # the legacy constructor's deprecation warning (pygcn's code shows it)
    adj = torch.sparse.FloatTensor(indices, values, torch.Size(adj.shape))
features = torch.FloatTensor(np.array(features))
labels = torch.LongTensor(np.where(labels_onehot)[1])
idx_train, idx_val, idx_test = torch.LongTensor(range(12)), torch.LongTensor(range(12, 21)), torch.LongTensor(range(21, 30))
print("graph:", features.shape, adj.shape, adj._nnz(), "edges, classes", [str(c) for c in classes])


def accuracy(output, labels):
    preds = output.max(1)[1].type_as(labels)
    correct = preds.eq(labels).double()
    correct = correct.sum()
    return correct / len(labels)


model = GCN(nfeat=features.shape[1], nhid=8, nclass=labels.max().item() + 1, dropout=0.0)
print(model)
print("uniform_ init within bounds:",
      all(bool((p.abs() <= 1 / math.sqrt(model.gc1.weight.size(1))).all()) for p in model.gc1.parameters()))
weights = np.random.default_rng(0)
for p in model.parameters():
    p.data = torch.from_numpy(weights.uniform(-0.4, 0.4, size=tuple(p.shape)).astype(np.float32))
optimizer = optim.Adam(model.parameters(), lr=0.05, weight_decay=5e-4)

for epoch in range(40):
    model.train()
    optimizer.zero_grad()
    output = model(features, adj)
    loss_train = F.nll_loss(output[idx_train], labels[idx_train])
    acc_train = accuracy(output[idx_train], labels[idx_train])
    loss_train.backward()
    optimizer.step()
    model.eval()
    output = model(features, adj)
    loss_val = F.nll_loss(output[idx_val], labels[idx_val])
    acc_val = accuracy(output[idx_val], labels[idx_val])
    if epoch % 5 == 0 or epoch == 39:
        print('Epoch: {:04d}'.format(epoch + 1), 'loss_train: {:.4f}'.format(loss_train.item()),
              'acc_train: {:.4f}'.format(acc_train.item()), 'loss_val: {:.4f}'.format(loss_val.item()),
              'acc_val: {:.4f}'.format(acc_val.item()))

model.eval()
output = model(features, adj)
print("Test set results:", "loss= {:.4f}".format(F.nll_loss(output[idx_test], labels[idx_test]).item()),
      "accuracy= {:.4f}".format(accuracy(output[idx_test], labels[idx_test]).item()))
print(output.grad_fn.name(), output.grad_fn.next_functions[0][0].name())
