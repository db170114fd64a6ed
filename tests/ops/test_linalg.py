"""Matrix products and einsum (``minigrad/ops/linalg.py``) against PyTorch 2.13.
"""
import numpy as np

import minigrad as torch

from helpers import SAMPLE_ROWS, sample_leaf


def test_einsum_records_pytorchs_graph_of_permutes_reshapes_and_one_bmm():
    a, b = sample_leaf(), sample_leaf([[0.5, 1.0], [2.0, -1.0], [1.5, 0.25]])

    def chain(node):
        names = []
        while node is not None:
            names.append(node.name())
            node = node.next_functions[0][0] if node.next_functions else None
        return names

    y = torch.einsum("ij,jk->ik", a, b)
    assert chain(y.grad_fn) == ["ViewBackward0", "PermuteBackward0", "ViewBackward0", "BmmBackward0",
                                "ViewBackward0", "PermuteBackward0", "PermuteBackward0", "UnsqueezeBackward0",
                                "torch::autograd::AccumulateGrad"]
    assert np.allclose(y.tolist(), (np.array(SAMPLE_ROWS) @ np.array(b.tolist())).tolist())
    assert torch.einsum("ij,kj->ik", a, a).grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0] \
        .next_functions[1][0].name() == "ReshapeAliasBackward0"   # PyTorch: the right side is not contiguous
    assert torch.einsum("ij->ji", a).grad_fn.name() == "PermuteBackward0"
    assert torch.einsum("ij->", a).grad_fn.name() == "SumBackward1"


def test_matmul_gradients_flow_through_the_folded_and_batched_chains():
    a = torch.tensor([[[1.0, 2.0], [3.0, 4.0]]], requires_grad=True)           # 1 x 2 x 2
    b = torch.tensor([[[1.0], [0.5]], [[2.0], [-1.0]]], requires_grad=True)     # 2 x 2 x 1
    m = torch.tensor([[1.0, -1.0], [0.0, 2.0]], requires_grad=True)
    (a @ b).sum().backward()
    (m @ b).sum().backward()
    (b.transpose(1, 2) @ m).sum().backward()
    # values PyTorch 2.13 computed for the same three products
    assert a.grad.tolist() == [[[3.0, -0.5], [3.0, -0.5]]]
    assert m.grad.tolist() == [[6.0, 2.5], [2.5, -1.0]]
    assert b.grad.tolist() == [[[5.0], [9.0]], [[5.0], [9.0]]]


def test_matrix_products_with_inf_times_zero_are_silent_as_in_pytorch():
    import warnings
    inf = float("inf")
    a, b = torch.tensor([[inf, 1.0], [0.0, 1.0]]), torch.tensor([[0.0, 1.0], [1.0, 1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # numpy's "invalid value encountered in matmul" would raise here
        products = [a @ b, a[0] @ b[:, 0], a @ b[:, 0], torch.matmul(a.expand(2, 2, 2), b.expand(2, 2, 2)),
                    torch.nn.functional.linear(a, b, torch.tensor([inf, -inf]))]
    assert products[0].tolist()[0][0] != products[0].tolist()[0][0]   # nan, as PyTorch 2.13
    assert str(products[1]) == "tensor(nan)" and str(products[4][0]) == "tensor([nan, nan])"
