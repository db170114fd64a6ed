"""Vector quantization with a straight-through gradient, as in VQ-VAE (van den Oord, Vinyals &
Kavukcuoglu, "Neural Discrete Representation Learning", NeurIPS 2017), in the form of the custom
Functions of ritheshkumar95/pytorch-vqvae: distances by one addmm (alpha=-2, beta=1), the nearest
code by torch.min, indices marked non-differentiable, codes by index_select; the codebook's
gradient is accumulated with index_add_ into zeros_like. The codebook is an nn.Embedding
initialised with uniform_, as there."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Function


class VectorQuantization(Function):
    @staticmethod
    def forward(ctx, inputs, codebook):
        with torch.no_grad():
            embedding_size = codebook.size(1)
            inputs_size = inputs.size()
            inputs_flatten = inputs.view(-1, embedding_size)
            codebook_sqr = torch.sum(codebook ** 2, dim=1)
            inputs_sqr = torch.sum(inputs_flatten ** 2, dim=1, keepdim=True)
            distances = torch.addmm(codebook_sqr + inputs_sqr, inputs_flatten, codebook.t(), alpha=-2.0, beta=1.0)
            _, indices_flatten = torch.min(distances, dim=1)
            indices = indices_flatten.view(*inputs_size[:-1])
            ctx.mark_non_differentiable(indices)
            return indices

    @staticmethod
    def backward(ctx, grad_output):
        raise RuntimeError("VectorQuantization is not differentiable: use VectorQuantizationStraightThrough")


class VectorQuantizationStraightThrough(Function):
    @staticmethod
    def forward(ctx, inputs, codebook):
        indices = VectorQuantization.apply(inputs, codebook)
        indices_flatten = indices.view(-1)
        ctx.save_for_backward(indices_flatten, codebook)
        codes_flatten = torch.index_select(codebook, dim=0, index=indices_flatten)
        codes = codes_flatten.view_as(inputs)
        return codes, indices_flatten

    @staticmethod
    def backward(ctx, grad_output, grad_indices):
        grad_inputs, grad_codebook = None, None
        if ctx.needs_input_grad[0]:
            grad_inputs = grad_output.clone()   # straight through
        if ctx.needs_input_grad[1]:
            indices, codebook = ctx.saved_tensors
            embedding_size = codebook.size(1)
            grad_output_flatten = grad_output.contiguous().view(-1, embedding_size)
            grad_codebook = torch.zeros_like(codebook)
            grad_codebook.index_add_(0, indices, grad_output_flatten)
        return grad_inputs, grad_codebook


class VQEmbedding(nn.Module):
    def __init__(self, K, D):
        super().__init__()
        self.embedding = nn.Embedding(K, D)
        self.embedding.weight.data.uniform_(-1.0 / K, 1.0 / K)

    def forward(self, z_e_x):
        return VectorQuantization.apply(z_e_x, self.embedding.weight)

    def straight_through(self, z_e_x):
        z_q_x, indices = VectorQuantizationStraightThrough.apply(z_e_x, self.embedding.weight.detach())
        z_q_x_bar = torch.index_select(self.embedding.weight, dim=0, index=indices).view_as(z_e_x)
        return z_q_x, z_q_x_bar


torch.manual_seed(0)
vq = VQEmbedding(4, 3)
print(vq, "codebook within bounds:", bool((vq.embedding.weight.abs() <= 0.25).all()))
rng = np.random.default_rng(1)
with torch.no_grad():
    vq.embedding.weight.copy_(torch.from_numpy(rng.normal(size=(4, 3)).astype(np.float32)))
encoder = nn.Linear(2, 3)
with torch.no_grad():
    encoder.weight.copy_(torch.from_numpy(rng.normal(size=(3, 2)).astype(np.float32)))
    encoder.bias.zero_()
x = torch.from_numpy(rng.normal(size=(2, 5, 2)).astype(np.float32))
z_e_x = encoder(x)
indices = vq(z_e_x)
print("indices:", indices, indices.requires_grad)
z_q_x, z_q_x_bar = vq.straight_through(z_e_x)
print(z_q_x.grad_fn.name(), z_q_x_bar.grad_fn.name())

optimizer = torch.optim.Adam(list(encoder.parameters()) + list(vq.parameters()), lr=0.05)
for step in range(20):
    z_e_x = encoder(x)
    z_q_x, z_q_x_bar = vq.straight_through(z_e_x)
    loss_recons = F.mse_loss(z_q_x, torch.zeros_like(z_q_x) + 0.5)
    loss_vq = F.mse_loss(z_q_x_bar, z_e_x.detach())
    loss_commit = F.mse_loss(z_e_x, z_q_x_bar.detach())
    loss = loss_recons + loss_vq + 0.25 * loss_commit
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 5 == 4:
        print(f"step {step + 1}: recons {loss_recons.item():.4f} vq {loss_vq.item():.4f} commit {loss_commit.item():.4f}")
print("codes used:", sorted(set(vq(encoder(x)).view(-1).tolist())))
