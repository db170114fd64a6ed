"""A categorical VAE with the Gumbel-softmax trick (Jang, Gu & Poole, ICLR 2017), in the style of the
widely copied YongfeiYan/Gumbel_Softmax_VAE: an MLP encoder to latent_dim x categorical_dim logits,
Gumbel noise ``-log(-log(U + eps) + eps)``, a softmax at a temperature, the straight-through hard
sample with ``scatter_`` and ``(y_hard - y).detach() + y``, a sigmoid decoder, and the loss
``F.binary_cross_entropy(recon, x, size_average=False) / batch`` plus the KL term to the uniform prior.
The uniform draws U come from numpy, so that both libraries see the same noise."""
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn, optim

latent_dim, categorical_dim, pixels = 3, 4, 16
rng = np.random.default_rng(3)


def sample_gumbel(shape, eps=1e-20):
    U = torch.tensor(rng.random(shape), dtype=torch.float32)
    return -torch.log(-torch.log(U + eps) + eps)


def gumbel_softmax_sample(logits, temperature):
    y = logits + sample_gumbel(logits.size())
    return F.softmax(y / temperature, dim=-1)


def gumbel_softmax(logits, temperature, hard=False):
    y = gumbel_softmax_sample(logits, temperature)
    if not hard:
        return y.view(-1, latent_dim * categorical_dim)
    shape = y.size()
    _, ind = y.max(dim=-1)
    y_hard = torch.zeros_like(y).view(-1, shape[-1])
    y_hard.scatter_(1, ind.view(-1, 1), 1)
    y_hard = y_hard.view(*shape)
    y_hard = (y_hard - y).detach() + y
    return y_hard.view(-1, latent_dim * categorical_dim)


class VAE_gumbel(nn.Module):
    def __init__(self, temp):
        super(VAE_gumbel, self).__init__()
        self.fc1 = nn.Linear(pixels, 12)
        self.fc2 = nn.Linear(12, latent_dim * categorical_dim)
        self.fc3 = nn.Linear(latent_dim * categorical_dim, 12)
        self.fc4 = nn.Linear(12, pixels)
        self.relu = nn.ReLU()
        self.sigmoid = nn.Sigmoid()

    def encode(self, x):
        return self.fc2(self.relu(self.fc1(x)))

    def decode(self, z):
        return self.sigmoid(self.fc4(self.relu(self.fc3(z))))

    def forward(self, x, temp, hard):
        q = self.encode(x.view(-1, pixels))
        q_y = q.view(q.size(0), latent_dim, categorical_dim)
        z = gumbel_softmax(q_y, temp, hard)
        return self.decode(z), F.softmax(q_y, dim=-1).reshape(*q.size())


def loss_function(recon_x, x, qy):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, pixels), size_average=False) / x.shape[0]
    log_ratio = torch.log(qy * categorical_dim + 1e-20)
    KLD = torch.sum(qy * log_ratio, dim=-1).mean()
    return BCE + KLD


images = torch.tensor((rng.random((8, pixels)) < 0.4).astype(np.float32))
model = VAE_gumbel(1.0)
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.normal(scale=0.3, size=tuple(p.shape)), dtype=torch.float32))
optimizer = optim.Adam(model.parameters(), lr=1e-2)
temp, temp_min, anneal_rate = 1.0, 0.5, 0.05
for step in range(12):
    hard = step >= 6
    optimizer.zero_grad()
    recon_batch, qy = model(images, temp, hard)
    loss = loss_function(recon_batch, images, qy)
    loss.backward()
    optimizer.step()
    temp = np.maximum(temp * np.exp(-anneal_rate * step), temp_min)
    if step % 3 == 0 or step == 11:
        print(f"step {step:2d} hard={hard!s:5} temp {float(temp):.4f} loss {loss.item():.4f}")
print("graph of the hard sample:", gumbel_softmax(model.encode(images).view(-1, latent_dim, categorical_dim), 0.5,
                                                  True).grad_fn.name())
print("reconstruction of the first image:", [round(v, 3) for v in recon_batch[0, :6].tolist()])
