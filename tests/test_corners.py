"""Corner cases the differential fuzzer (tests/fidelity/) found where minigrad differed from PyTorch.

Each case is an expression and what PyTorch 2.13 gave for it, copied from a run of real PyTorch:
the result's ``repr`` followed by the names of the nodes below its ``grad_fn`` (depth first), or the
exception's type and message. Here the same expression runs on minigrad, without PyTorch.

The names in the expressions: ``x`` a 0-dim tensor, ``v`` a vector of 3, ``w`` a 2 x 3 matrix,
``m`` a 3 x 4 matrix, ``a`` a 2 x 2 x 3 and ``b`` a 2 x 3 x 4 stack of matrices, all ones (``x`` is
2.5) and all requiring grad.
"""
import math
import re
import warnings

import pytest

import minigrad as torch


def node_names(t) -> list:
    """Names of the nodes reachable from ``t.grad_fn``, depth first (PyTorch's C++ prefix dropped)."""
    names = []

    def walk(node):
        if node is None:
            return
        names.append(node.name().replace("torch::autograd::", ""))
        for child, _ in node.next_functions:
            walk(child)

    walk(t.grad_fn)
    return names


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


def test_a_second_backward_through_where_is_refused_because_where_saved_its_condition():
    x = torch.tensor([2.5, -1.0], requires_grad=True)
    y = torch.where(x > 0, x, torch.tensor(1.0))
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        (y * y).sum().backward()


def test_flatten_of_a_vector_is_the_vector_itself():
    v = torch.ones(3, requires_grad=True)
    assert v.flatten() is v


def test_tensor_power_gradients_are_zero_where_pytorch_masks_them():
    a = torch.tensor([0.0, 2.0], requires_grad=True)
    b = torch.tensor([0.0, 1.0], requires_grad=True)
    (a ** b).sum().backward()
    # PyTorch 2.13: d/da is 0 where b == 0 (not 0 * 0 ** -1 = nan); d/db is 0 where a == 0 (not 1 * log 0)
    assert a.grad.tolist() == [0.0, 1.0]
    assert b.grad.tolist()[0] == 0.0 and abs(b.grad.tolist()[1] - 1.3862943649291992) < 1e-6


def test_max_of_all_elements_saves_its_input_so_an_in_place_change_is_caught():
    x = torch.tensor([1.5, 0.5], requires_grad=True)
    y = x * 1
    m = y.max()
    with torch.no_grad():
        y.mul_(2)
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation has been modified"):
        m.backward()


@pytest.mark.parametrize("key, message", [
    (0, "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a "
        "0-dim tensor to a number"),
    (1, "index 1 is out of bounds for dimension 0 with size 0"),
    (slice(0, None), "slice() cannot be applied to a 0-dim tensor."),
])
def test_assigning_into_a_0_dim_tensor_by_int_or_slice_is_refused_as_in_pytorch(key, message):
    x = torch.tensor(2.0)
    with pytest.raises(IndexError) as caught:
        x[key] = 1.0
    assert str(caught.value) == message and x.item() == 2.0
    x[...] = 1.0   # what works in PyTorch works here
    assert x.item() == 1.0


def test_comparing_a_tensor_with_none_gives_false_or_true_as_in_pytorch():
    t = torch.ones(2)
    assert (t == None) is False and (t != None) is True   # noqa: E711 - the comparison is the point
    assert (None == t) is False and (None != t) is True   # noqa: E711


def test_backward_formulas_make_inf_and_nan_without_numpy_warnings_as_in_pytorch():
    # |x| ** x at x = 0: the exponent's formula multiplies 0 by log(0) = -inf inside backward.
    x = torch.tensor([[0.5, -1.5, 0.0], [-0.001, 2.5, 0.0]], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # a numpy RuntimeWarning would fail the test
        (x.abs() ** x).backward(torch.ones(2, 3))
    # PyTorch 2.13 gives these values, and no warning
    expected = [0.2170, 0.7650, 0.0, -5.9487, 18.9370, 0.0]
    assert x.grad.reshape(-1).tolist() == pytest.approx(expected, abs=1e-4)


def test_cat_skips_one_dimensional_empty_tensors_as_in_pytorch():
    empty = torch.zeros(0, requires_grad=True)
    matrix = torch.ones(2, 3, requires_grad=True)
    joined = torch.cat([empty, matrix], dim=1)
    assert joined.shape == (2, 3)
    joined.sum().backward()
    assert empty.grad.shape == (0,) and matrix.grad.tolist() == [[1.0] * 3] * 2
    assert torch.cat([empty, empty]).shape == (0,) and torch.cat([matrix, empty, matrix]).shape == (4, 3)
    assert torch.cat([empty.double(), matrix]).dtype is torch.float64   # the skipped tensor still counts here
    with pytest.raises(RuntimeError, match="^Sizes of tensors must match except in dimension 1. Expected size 2 "
                                           "but got size 3 for tensor number 2 in the list.$"):
        torch.cat([empty, matrix, torch.ones(3, 2)], dim=1)


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


@pytest.mark.parametrize("values, mean", [
    ([1.0, -math.inf], -math.inf), ([-math.inf, 1.0], math.nan), ([-math.inf, -math.inf], math.nan),
    ([1.0, 2.0, math.inf], math.inf), ([math.inf, 1.0, 2.0], math.nan), ([1.0, 2.0, 3.0], 2.0),
])
def test_var_mean_with_an_infinity_gives_pytorchs_running_mean(values, mean):
    """Found by the fuzzer (seed 1000): PyTorch's var_mean updates its mean element by element, so an
    infinity followed by a finite value gives nan (x.mean() gives the infinity). Values from PyTorch 2.13."""
    var, got = torch.var_mean(torch.tensor(values))
    assert (math.isnan(got.item()) and math.isnan(mean)) or got.item() == mean
    _, by_rows = torch.var_mean(torch.tensor([values, values[::-1]]), dim=1)
    assert by_rows.shape == (2,)


@pytest.mark.parametrize("bounds, edges, grads", [
    ({"min": "lo"}, ["AccumulateGrad", "AccumulateGrad", None], ([0.0, 10.0, 100.0], [1.0, 0.0, 0.0], None)),
    ({"min": "lo", "max": "hi"}, ["AccumulateGrad"] * 3, ([0.0, 10.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 100.0])),
    ({"max": "hi"}, ["AccumulateGrad", None, "AccumulateGrad"], ([1.0, 10.0, 0.0], None, [0.0, 0.0, 100.0])),
])
def test_clamp_with_tensor_bounds_sends_each_gradient_where_its_value_came_from(bounds, edges, grads):
    """PyTorch's clamp.Tensor overload (values, node and edges from PyTorch 2.13): a bound that requires
    grad gets the gradient of the elements it clamped; a missing bound still has its (None, 0) edge."""
    x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    lo, hi = torch.zeros(3, requires_grad=True), torch.ones(3, requires_grad=True)
    y = torch.clamp(x, **{k: {"lo": lo, "hi": hi}[v] for k, v in bounds.items()})
    assert y.grad_fn.name() == "ClampBackward0"
    assert [n if n is None else n.name().split("::")[-1] for n, _ in y.grad_fn.next_functions] == edges
    y.backward(torch.tensor([1.0, 10.0, 100.0]))
    assert [None if t.grad is None else t.grad.tolist() for t in (x, lo, hi)] == list(grads)


def test_clamp_refuses_a_tensor_bound_with_a_number_bound():
    with pytest.raises(TypeError, match=r"^clamp\(\) received an invalid combination of arguments"):
        torch.clamp(torch.ones(3), min=torch.zeros(3), max=1.0)


@pytest.mark.parametrize("shape", [(0, -1), (-1, 0), (2, 0, -1)])
def test_reshaping_zero_elements_with_minus_one_next_to_a_zero_is_ambiguous(shape):
    """Found by the fuzzer (seed 1000); PyTorch 2.13's text."""
    dims = ", ".join(str(s) for s in shape)
    with pytest.raises(RuntimeError, match=re.escape(f"cannot reshape tensor of 0 elements into shape [{dims}] because "
                                                     "the unspecified dimension size -1 can be any value and is ambiguous")):
        torch.ones(0).reshape(*shape)
    assert torch.ones(0, 3).view(-1, 3).shape == (0, 3)


def test_clamp_in_place_with_a_tensor_bound_is_the_same_node():
    """x.clamp_(min=lo) on PyTorch 2.13: ClampBackward0, and lo gets the gradient of what it clamped."""
    x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    lo = torch.zeros(3, requires_grad=True)
    y = x * 1
    assert y.clamp_(min=lo) is y and y.grad_fn.name() == "ClampBackward0" and y._version == 1
    y.backward(torch.tensor([1.0, 10.0, 100.0]))
    assert x.grad.tolist() == [0.0, 10.0, 100.0] and lo.grad.tolist() == [1.0, 0.0, 0.0]
