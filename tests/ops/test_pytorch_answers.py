"""Corner cases of many ops, in the form the differential fuzzer (tests/fidelity/) writes its programs.

Each case is an expression and what PyTorch 2.13 gave for it, copied from a run of real PyTorch:
the result's ``repr`` followed by the names of the nodes below its ``grad_fn`` (depth first), or the
exception's type and message. Here the same expression runs on minigrad, without PyTorch.

The names in the expressions: ``x`` a 0-dim tensor, ``v`` a vector of 3, ``w`` a 2 x 3 matrix,
``m`` a 3 x 4 matrix, ``a`` a 2 x 2 x 3 and ``b`` a 2 x 3 x 4 stack of matrices, all ones (``x`` is
2.5) and all requiring grad.
"""
import warnings

import pytest

import minigrad as torch
import minigrad.nn.functional as F
import numpy as np
from helpers import node_names, sample_leaf


def outcome(code: str) -> str:
    namespace = {"torch": torch, "x": torch.tensor(2.5, requires_grad=True),
                 "a": torch.ones(2, 2, 3, requires_grad=True), "b": torch.ones(2, 3, 4, requires_grad=True),
                 "m": torch.ones(3, 4, requires_grad=True), "v": torch.ones(3, requires_grad=True),
                 "w": torch.ones(2, 3, requires_grad=True)}
    try:
        result = eval(code, namespace)
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    if isinstance(result, torch.Tensor):
        return repr(result) + (" " + str(node_names(result)) if result.grad_fn is not None else "")
    return repr(result)


CASES = [
    ('x.sum(0)',
     "tensor(2.5000, grad_fn=<SumBackward1>) ['SumBackward1', 'AccumulateGrad']"),
    ('x.sum(-1, keepdim=True)',
     "tensor(2.5000, grad_fn=<SumBackward1>) ['SumBackward1', 'AccumulateGrad']"),
    ('x.mean(0)',
     "tensor(2.5000, grad_fn=<MeanBackward1>) ['MeanBackward1', 'AccumulateGrad']"),
    ('x.min(dim=-1)',
     'torch.return_types.min(\nvalues=tensor(2.5000, grad_fn=<MinBackward0>),\nindices=tensor(0))'),
    ('x.max(0)',
     'torch.return_types.max(\nvalues=tensor(2.5000, grad_fn=<MaxBackward0>),\nindices=tensor(0))'),
    ('x.argmax(0)',
     'tensor(0)'),
    ('x.sort(0)',
     'torch.return_types.sort(\nvalues=tensor(2.5000, grad_fn=<SortBackward0>),\nindices=tensor(0))'),
    ('x.softmax(0)',
     "tensor(1., grad_fn=<SoftmaxBackward0>) ['SoftmaxBackward0', 'AccumulateGrad']"),
    ('x.log_softmax(-1)',
     "tensor(0., grad_fn=<LogSoftmaxBackward0>) ['LogSoftmaxBackward0', 'AccumulateGrad']"),
    ('x.transpose(0, -1)',
     "tensor(2.5000, grad_fn=<TransposeBackward0>) ['TransposeBackward0', 'AccumulateGrad']"),
    ('x.unsqueeze(-1)',
     "tensor([2.5000], grad_fn=<UnsqueezeBackward0>) ['UnsqueezeBackward0', 'AccumulateGrad']"),
    ('x.squeeze(0)',
     "tensor(2.5000, grad_fn=<SqueezeBackward1>) ['SqueezeBackward1', 'AccumulateGrad']"),
    ('x.flatten()',
     "tensor([2.5000], grad_fn=<ViewBackward0>) ['ViewBackward0', 'AccumulateGrad']"),
    ('x[None]',
     "tensor([2.5000], grad_fn=<UnsqueezeBackward0>) ['UnsqueezeBackward0', 'AccumulateGrad']"),
    ('x[x > 0]',
     "tensor([2.5000], grad_fn=<IndexBackward0>) ['IndexBackward0', 'UnsqueezeBackward0', 'AccumulateGrad']"),
    ('x[0]',
     'IndexError: invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number'),
    ('x[1]',
     'IndexError: index 1 is out of bounds for dimension 0 with size 0'),
    ('x[0:]',
     'IndexError: slice() cannot be applied to a 0-dim tensor.'),
    ('x.size(0)',
     'IndexError: Dimension specified as 0 but tensor has no dimensions'),
    ('torch.cat([x, x])',
     'RuntimeError: zero-dimensional tensor (at position 0) cannot be concatenated'),
    ('torch.cat([w, x])',
     'RuntimeError: zero-dimensional tensor (at position 1) cannot be concatenated'),
    ('torch.stack([x, x], 2)',
     'IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 2)'),
    ('x @ v',
     'RuntimeError: both arguments to matmul need to be at least 1D, but they are 0D and 1D'),
    ('v @ x',
     'RuntimeError: both arguments to matmul need to be at least 1D, but they are 1D and 0D'),
    ('x @ x',
     'RuntimeError: both arguments to matmul need to be at least 1D, but they are 0D and 0D'),
    ('torch.mm(v, m)',
     'RuntimeError: self must be a matrix'),
    ('torch.mm(w, v)',
     'RuntimeError: mat2 must be a matrix'),
    ('w @ m.t()',
     'RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x3)'),
    ('v @ torch.ones(4, 2)',
     'RuntimeError: mat1 and mat2 shapes cannot be multiplied (1x3 and 4x2)'),
    ('w @ torch.ones(4)',
     'RuntimeError: size mismatch, got input (2), mat (2x3), vec (4)'),
    ('v @ torch.ones(4)',
     'RuntimeError: inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but got 3 and 4 elements respectively'),
    ('a @ torch.ones(2, 4, 4)',
     'RuntimeError: Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4].'),
    ('a @ torch.ones(4, 4)',
     'RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x3 and 4x4)'),
    ('w @ torch.ones(2, 4, 4)',
     'RuntimeError: mat1 and mat2 shapes cannot be multiplied (8x4 and 3x2)'),
    ('v @ torch.ones(2, 4, 4)',
     'RuntimeError: size mismatch, got input (8), mat (8x4), vec (3)'),
    ('a @ torch.ones(3, 3, 4)',
     'RuntimeError: The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0'),
    ('v @ v.double()',
     'RuntimeError: dot : expected both vectors to have same dtype, but found Float and Double'),
    ('w @ v.double()',
     'RuntimeError: addmv input tensors must have the same dtype, but got Double, Float, and Double'),
    ('w.double() @ v',
     'RuntimeError: addmv input tensors must have the same dtype, but got Float, Double, and Float'),
    ('w @ m.double()',
     'RuntimeError: expected m1 and m2 to have the same dtype, but got: float != double'),
    ('a @ b.double()',
     'RuntimeError: expected scalar type Float but found Double'),
    # one stack of one matrix: squeezed and folded only if that stack requires grad, else a bmm
    ('torch.ones(2, 3, 1) @ torch.ones(1, 1, 2).double()',
     'RuntimeError: expected scalar type Float but found Double'),
    ('torch.ones(2, 3, 1) @ torch.ones(1, 1, 2, requires_grad=True).double()',
     'RuntimeError: expected m1 and m2 to have the same dtype, but got: float != double'),
    ('torch.ones(2, 3, 4) @ torch.ones(1, 5, 2)',
     'RuntimeError: Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 5].'),
    ('torch.ones(2, 1, 3) @ torch.ones(1, 4, 3, requires_grad=True)',
     'RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x3)'),
    ('torch.ones(1, 3, 4, requires_grad=True) @ torch.ones(2, 5, 2)',
     'RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x5 and 4x3)'),
    ('torch.ones(2, 3, dtype=torch.long) @ m',
     'RuntimeError: expected m1 and m2 to have the same dtype, but got: long int != float'),
    ('(a @ b).sum()',
     "tensor(48., grad_fn=<SumBackward0>) ['SumBackward0', 'UnsafeViewBackward0', 'BmmBackward0', 'ViewBackward0', 'ExpandBackward0', 'AccumulateGrad', 'ViewBackward0', 'ExpandBackward0', 'AccumulateGrad']"),
    ('a @ b',
     "tensor([[[3., 3., 3., 3.],\n         [3., 3., 3., 3.]],\n\n        [[3., 3., 3., 3.],\n         [3., 3., 3., 3.]]], grad_fn=<UnsafeViewBackward0>) ['UnsafeViewBackward0', 'BmmBackward0', 'ViewBackward0', 'ExpandBackward0', 'AccumulateGrad', 'ViewBackward0', 'ExpandBackward0', 'AccumulateGrad']"),
    ('a @ m',
     "tensor([[[3., 3., 3., 3.],\n         [3., 3., 3., 3.]],\n\n        [[3., 3., 3., 3.],\n         [3., 3., 3., 3.]]], grad_fn=<UnsafeViewBackward0>) ['UnsafeViewBackward0', 'MmBackward0', 'ViewBackward0', 'AccumulateGrad', 'AccumulateGrad']"),
    ('w @ b',
     "tensor([[[3., 3., 3., 3.],\n         [3., 3., 3., 3.]],\n\n        [[3., 3., 3., 3.],\n         [3., 3., 3., 3.]]], grad_fn=<CloneBackward0>) ['CloneBackward0', 'TransposeBackward0', 'UnsafeViewBackward0', 'MmBackward0', 'UnsafeViewBackward0', 'CloneBackward0', 'TransposeBackward0', 'AccumulateGrad', 'TBackward0', 'AccumulateGrad']"),
    ('v @ b',
     "tensor([[3., 3., 3., 3.],\n        [3., 3., 3., 3.]], grad_fn=<UnsafeViewBackward0>) ['UnsafeViewBackward0', 'MvBackward0', 'UnsafeViewBackward0', 'CloneBackward0', 'TransposeBackward0', 'AccumulateGrad', 'AccumulateGrad']"),
    ('a @ v',
     "tensor([[3., 3.],\n        [3., 3.]], grad_fn=<UnsafeViewBackward0>) ['UnsafeViewBackward0', 'MvBackward0', 'ViewBackward0', 'AccumulateGrad', 'AccumulateGrad']"),
    ('torch.ones(2, 1, 2, 3, requires_grad=True) @ torch.ones(3, 3, 2, requires_grad=True)',
     "tensor([[[[3., 3.],\n          [3., 3.]],\n\n         [[3., 3.],\n          [3., 3.]],\n\n         [[3., 3.],\n          [3., 3.]]],\n\n\n        [[[3., 3.],\n          [3., 3.]],\n\n         [[3., 3.],\n          [3., 3.]],\n\n         [[3., 3.],\n          [3., 3.]]]], grad_fn=<UnsafeViewBackward0>) ['UnsafeViewBackward0', 'BmmBackward0', 'UnsafeViewBackward0', 'CloneBackward0', 'ExpandBackward0', 'AccumulateGrad', 'UnsafeViewBackward0', 'CloneBackward0', 'ExpandBackward0', 'AccumulateGrad']"),
    ('torch.ones(3, 2, 2, requires_grad=True) @ torch.ones(1, 2, 3, requires_grad=True)',
     "tensor([[[2., 2., 2.],\n         [2., 2., 2.]],\n\n        [[2., 2., 2.],\n         [2., 2., 2.]],\n\n        [[2., 2., 2.],\n         [2., 2., 2.]]], grad_fn=<UnsafeViewBackward0>) ['UnsafeViewBackward0', 'MmBackward0', 'ViewBackward0', 'AccumulateGrad', 'SqueezeBackward1', 'AccumulateGrad']"),
    ('torch.ones(2, 3) @ b',
     "tensor([[[3., 3., 3., 3.],\n         [3., 3., 3., 3.]],\n\n        [[3., 3., 3., 3.],\n         [3., 3., 3., 3.]]], grad_fn=<UnsafeViewBackward0>) ['UnsafeViewBackward0', 'BmmBackward0', 'ViewBackward0', 'ExpandBackward0', 'AccumulateGrad']"),
    ('w.sum(2)',
     'IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)'),
    ('w.softmax(3)',
     'IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 3)'),
    ('w.transpose(0, 5)',
     'IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 5)'),
    ('w.unsqueeze(3)',
     'IndexError: Dimension out of range (expected to be in range of [-3, 2], but got 3)'),
    ('w.size(-3)',
     'IndexError: Dimension out of range (expected to be in range of [-2, 1], but got -3)'),
    ('w.sum((0, 0))',
     'RuntimeError: dim 0 appears multiple times in the list of dims'),
    ('torch.cat([w, w], 2)',
     'IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)'),
    ('w.t().reshape(3, 2)',
     "tensor([[1., 1.],\n        [1., 1.],\n        [1., 1.]], grad_fn=<ReshapeAliasBackward0>) ['ReshapeAliasBackward0', 'TBackward0', 'AccumulateGrad']"),
    ('w.t().reshape(-1)',
     "tensor([1., 1., 1., 1., 1., 1.], grad_fn=<UnsafeViewBackward0>) ['UnsafeViewBackward0', 'CloneBackward0', 'TBackward0', 'AccumulateGrad']"),
    ('w.reshape(-1)',
     "tensor([1., 1., 1., 1., 1., 1.], grad_fn=<ViewBackward0>) ['ViewBackward0', 'AccumulateGrad']"),
    ('w.t().flatten()',
     "tensor([1., 1., 1., 1., 1., 1.], grad_fn=<UnsafeViewBackward0>) ['UnsafeViewBackward0', 'CloneBackward0', 'TBackward0', 'AccumulateGrad']"),
    ('torch.ones(3).flatten() is not None',
     'True'),
    ('torch.ones(0, 3).max(0)',
     'IndexError: max(): Expected reduction dim 0 to have non-zero size.'),
    ('torch.ones(2, 3, dtype=torch.long).softmax(-1)',
     'NotImplementedError: "softmax_lastdim_kernel_impl" not implemented for \'Long\''),
    ('torch.ones(2, 3, dtype=torch.long).log_softmax(0)',
     'NotImplementedError: "log_softmax_kernel_impl" not implemented for \'Long\''),
    ('torch.ones(2, 3, dtype=torch.long).mean(0)',
     'RuntimeError: mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Long'),
    ('torch.tensor([True, False]).pow(2)',
     'tensor([1, 0])'),
    ('torch.tensor([True, False]).relu()',
     'RuntimeError: Boolean inputs not supported for relu'),
    ('-torch.tensor([True, False])',
     'RuntimeError: Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.'),
    ('torch.tensor([True, False]).abs()',
     'NotImplementedError: "abs_cpu" not implemented for \'Bool\''),
    ('torch.tensor([3.0])',
     'tensor([3.])'),
    ('torch.tensor([3.0]) * 1.0000001',
     'tensor([3.0000])'),
    ('torch.tensor([1.1, 1.9, 6.0]).mean()',
     'tensor(3.)'),
    ('torch.tensor([[1.5, -0.0], [2.0, 100.0]])',
     'tensor([[  1.5000,  -0.0000],\n        [  2.0000, 100.0000]])'),
    ('torch.tensor([1.0, 0.0]) / torch.tensor([0.0, 0.0])',
     'tensor([inf, nan])'),
    ('torch.tensor([True]) - 1',
     'RuntimeError: Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.'),
    ('torch.tensor([True]) - torch.tensor([True])',
     'RuntimeError: Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.'),
    ('1 - torch.tensor([True])',
     'RuntimeError: Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.'),
    ('torch.ones(0)[torch.tensor([5])]',
     'IndexError: index is out of bounds for dimension with size 0'),
    ('torch.ones(0, 2).mean(0)',
     'tensor([nan, nan])'),
    ('torch.ones(2, 2)[..., 2]',
     'IndexError: index 2 is out of bounds for dimension 1 with size 2'),
    ('torch.ones(2, 1, 1)[..., 1]',
     'IndexError: index 1 is out of bounds for dimension 1 with size 1'),
    ('torch.ones(2, 1, 1)[1:, None, 1]',
     'IndexError: index 1 is out of bounds for dimension 2 with size 1'),
    ('torch.tensor([True]).argmax()',
     'RuntimeError: argmax(): does not support bool input'),
    ('torch.tensor([2, 1]).clamp_(min=0.5)',
     "RuntimeError: result type Float can't be cast to the desired output type long int"),
    ('torch.ones(2, 3).permute(0, 0)',
     'RuntimeError: permute(): duplicate dims are not allowed.'),
    ('torch.ones(2, 3).permute(0)',
     'RuntimeError: permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = 2 is not equal to len(dims) = 1'),
    ('(torch.tensor([0.0, 2.0], requires_grad=True) ** torch.tensor([0.0, 1.0], requires_grad=True)).sum()',
     "tensor(3., grad_fn=<SumBackward0>) ['SumBackward0', 'PowBackward1', 'AccumulateGrad', 'AccumulateGrad']"),
    # PyTorch counts NaN as the largest value: last in ascending order, first in descending order
    ("torch.tensor([0.5, float('nan'), 2.0, float('inf'), float('nan'), -1.0]).sort(descending=True)",
     'torch.return_types.sort(\nvalues=tensor([    nan,     nan,     inf,  2.0000,  0.5000, -1.0000]),\n'
     'indices=tensor([1, 4, 3, 2, 0, 5]))'),
    ("torch.tensor([0.5, float('nan'), 2.0, float('inf'), float('nan'), -1.0]).sort()",
     'torch.return_types.sort(\nvalues=tensor([-1.0000,  0.5000,  2.0000,     inf,     nan,     nan]),\n'
     'indices=tensor([5, 0, 2, 3, 1, 4]))'),
]


@pytest.mark.parametrize("code, expected", CASES, ids=[code for code, _ in CASES])
def test_minigrad_gives_what_pytorch_gave(code, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # PyTorch printed no warning for any of these
        assert outcome(code) == expected


def test_backward_formulas_make_inf_and_nan_without_numpy_warnings_as_in_pytorch():
    # |x| ** x at x = 0: the exponent's formula multiplies 0 by log(0) = -inf inside backward.
    x = torch.tensor([[0.5, -1.5, 0.0], [-0.001, 2.5, 0.0]], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # a numpy RuntimeWarning would fail the test
        (x.abs() ** x).backward(torch.ones(2, 3))
    # PyTorch 2.13 gives these values, and no warning
    expected = [0.2170, 0.7650, 0.0, -5.9487, 18.9370, 0.0]
    assert x.grad.reshape(-1).tolist() == pytest.approx(expected, abs=1e-4)


# --------------------------------------------------------------------------- node names and values
def test_each_op_has_pytorchs_node_name_and_values():
    x = sample_leaf()
    index = torch.tensor([[0, 0], [1, 2]])
    cases = [
        (x.sign(), "SignBackward0", [[1.0, -1.0, 1.0], [-1.0, 1.0, -1.0]]),
        (x.flip(0), "FlipBackward0", [[-0.25, 3.0, -1.0], [1.5, -2.0, 0.5]]),
        (x.masked_select(x > 0), "MaskedSelectBackward0", [1.5, 0.5, 3.0]),
        (x.index_select(1, torch.tensor([2, 0])), "IndexSelectBackward0", [[0.5, 1.5], [-1.0, -0.25]]),
        (torch.addmm(torch.zeros(3), x.t(), x, beta=0.5, alpha=2), "AddmmBackward0",
         [[4.625, -7.5, 2.0], [-7.5, 26.0, -8.0], [2.0, -8.0, 2.5]]),
        (x.cumsum(1), "CumsumBackward0", [[1.5, -0.5, 0.0], [-0.25, 2.75, 1.75]]),
        (x.norm(1), "LinalgVectorNormBackward0", 8.25),
        (x.norm(float("inf")), "LinalgVectorNormBackward0", 3.0),
        (x.topk(2).values, "TopkBackward0", [[1.5, 0.5], [3.0, -0.25]]),
        (x.gather(1, index), "GatherBackward0", [[1.5, 1.5], [3.0, -1.0]]),
        (torch.zeros(2, 3).scatter_add(1, index, x[:, :2]), "ScatterAddBackward0", [[-0.5, 0.0, 0.0], [0.0, -0.25, 3.0]]),
        (F.embedding(torch.tensor([1, 0]), x), "EmbeddingBackward0", [[-0.25, 3.0, -1.0], [1.5, -2.0, 0.5]]),
        (torch.var_mean(x, 1)[0], "VarMeanBackward0", [3.25, 4.520833492279053]),
        (torch.std_mean(x, 0)[1], "StdMeanBackward0", [0.625, 0.5, -0.25]),
        (x.unbind(1)[2], "UnbindBackward0", [0.5, -1.0]),
        (x.split_with_sizes([1, 2], 1)[1], "SplitWithSizesBackward0", [[-2.0, 0.5], [3.0, -1.0]]),
        (F.hardtanh(x), "HardtanhBackward0", [[1.0, -1.0, 0.5], [-0.25, 1.0, -1.0]]),
        (torch.einsum("ij,ij->i", x, x), "ViewBackward0", [6.5, 10.0625]),
        (torch.einsum("ij,ij->ij", x, x), "MulBackward0", [[2.25, 4.0, 0.25], [0.0625, 9.0, 1.0]]),
    ]
    for value, node, expected in cases:
        assert value.grad_fn.name() == node
        assert np.allclose(value.tolist(), expected), node
    assert x.norm(dim=1).tolist() == pytest.approx([2.5495097, 3.1721444])
    assert torch.norm(x, 3).item() == pytest.approx(3.4061, abs=1e-4) and x.norm(0).item() == 6.0
    assert x.norm("fro").item() == pytest.approx(4.0697, abs=1e-4)
