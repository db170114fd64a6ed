"""What real programs by other authors reach for (issue 21), against PyTorch 2.13.

Expected numbers, node names and error texts were produced by running the same expressions with
PyTorch 2.13 and are pasted in as literals; gradients are also checked against central differences
with ``gradcheck`` on float64 inputs drawn by hypothesis. ``tests/fidelity/test_real_program_ops.py``
runs the same kind of programs against PyTorch itself (``make fidelity``).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as torch
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd import gradcheck

FEW = settings(max_examples=10, deadline=None)
X = [[1.5, -2.0, 0.5], [-0.25, 3.0, -1.0]]


def leaf(values=X, dtype=None):
    return torch.tensor(values, dtype=dtype, requires_grad=True)


def distinct(shape=(2, 3)):
    """float64 arrays with distinct entries away from 0 (no ties for topk or the inf-norm, no kinks)."""
    size = int(np.prod(shape))
    return st.permutations(list(range(1, size + 1))).flatmap(lambda order: hnp.arrays(
        np.float64, shape, elements=st.floats(0.0, 0.3)).map(
        lambda noise: (np.array(order, dtype=np.float64).reshape(shape) + noise) * np.where(
            np.arange(size).reshape(shape) % 2, 1.0, -1.0)))


def check(function, *arrays):
    inputs = tuple(torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays)
    assert gradcheck(function, inputs)


# --------------------------------------------------------------------------- node names and values
def test_each_op_has_pytorchs_node_name_and_values():
    x = leaf()
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


def test_einsum_records_pytorchs_graph_of_permutes_reshapes_and_one_bmm():
    a, b = leaf(), leaf([[0.5, 1.0], [2.0, -1.0], [1.5, 0.25]])

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
    assert np.allclose(y.tolist(), (np.array(X) @ np.array(b.tolist())).tolist())
    assert torch.einsum("ij,kj->ik", a, a).grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0] \
        .next_functions[1][0].name() == "ReshapeAliasBackward0"   # PyTorch: the right side is not contiguous
    assert torch.einsum("ij->ji", a).grad_fn.name() == "PermuteBackward0"
    assert torch.einsum("ij->", a).grad_fn.name() == "SumBackward1"


def test_in_place_unary_ops_keep_the_out_of_place_node_and_the_right_gradient():
    expected = {   # name: (node, values after, x.grad), from PyTorch 2.13 with x = [0.5, 1.5, -0.3]
        "exp_": ("ExpBackward0", [1.6487, 4.4817, 0.7408], [1.6487, 4.4817, 0.7408]),
        "log_": ("LogBackward0", [-0.6931, 0.4055, float("nan")], [2.0, 0.6667, -3.3333]),
        "sin_": ("SinBackward0", [0.4794, 0.9975, -0.2955], [0.8776, 0.0707, 0.9553]),
        "cos_": ("CosBackward0", [0.8776, 0.0707, 0.9553], [-0.4794, -0.9975, 0.2955]),
        "tanh_": ("TanhBackward0", [0.4621, 0.9051, -0.2913], [0.7864, 0.1807, 0.9151]),
        "sigmoid_": ("SigmoidBackward0", [0.6225, 0.8176, 0.4256], [0.2350, 0.1491, 0.2445]),
        "relu_": ("ReluBackward0", [0.5, 1.5, 0.0], [1.0, 1.0, 0.0]),
        "abs_": ("AbsBackward0", [0.5, 1.5, 0.3], [1.0, 1.0, -1.0]),
        "neg_": ("NegBackward0", [-0.5, -1.5, 0.3], [-1.0, -1.0, -1.0]),
        "sign_": ("SignBackward0", [1.0, 1.0, -1.0], [0.0, 0.0, 0.0]),
    }
    for name, (node, values, grad) in expected.items():
        x = leaf([0.5, 1.5, -0.3])
        y = x * 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert getattr(y, name)() is y
        assert y.grad_fn.name() == node and y._version == 1
        assert np.allclose(y.tolist(), values, atol=1e-4, equal_nan=True), name
        y.sum().backward()
        assert np.allclose(x.grad.tolist(), grad, atol=1e-4), name
    x = leaf([0.5, 1.5, 4.0])
    y = x * 1
    y.sqrt_()
    y.add_(1)   # sqrt_ saved its output, which was changed again: PyTorch refuses at backward
    with pytest.raises(RuntimeError, match="output 0 of Sqrt, is at version 2; expected version 1"):
        y.sum().backward()
    y = x * 1
    y.log_()
    y.add_(1)   # log_ saved a copy of its input: the later change does not matter
    y.sum().backward()
    assert np.allclose(x.grad.tolist(), [2.0, 0.6667, 0.25], atol=1e-4)


def test_in_place_unary_ops_through_a_view_rewrite_the_base_and_keep_pytorchs_errors():
    x = leaf([0.5, 1.5, 4.0])
    y = x * 1
    z = y[1:]
    z.exp_()
    assert y.grad_fn.name() == "torch::autograd::CopySlices" and z.grad_fn.name() == "AsStridedBackward0"
    y.sum().backward()
    assert np.allclose(x.grad.tolist(), [1.0, 4.4817, 54.5981], atol=1e-4)
    errors = [
        (lambda: x.exp_(), RuntimeError, "a leaf Variable that requires grad is being used in an in-place operation."),
        (lambda: torch.ones(1).expand(3).exp_(), RuntimeError,
         "unsupported operation: more than one element of the written-to tensor refers to a single memory location. "
         "Please clone() the tensor before performing the operation."),
        (lambda: torch.tensor([1, 2]).exp_(), RuntimeError, "result type Float can't be cast to the desired output type Long"),
        (lambda: torch.tensor([True]).sqrt_(), RuntimeError, "result type Float can't be cast to the desired output type Bool"),
        (lambda: torch.tensor([True]).neg_(), RuntimeError,
         "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the "
         "`~` or `logical_not()` operator instead."),
        (lambda: torch.tensor([True]).abs_(), NotImplementedError, "\"abs_cpu\" not implemented for 'Bool'"),
        (lambda: torch.tensor([1, 2]).clamp_(0.5, 1.5), RuntimeError,
         "result type Float can't be cast to the desired output type long int"),
        (lambda: torch.ones(2).clamp_(), RuntimeError, "torch.clamp: At least one of 'min' or 'max' must not be None"),
    ]
    for call, error, text in errors:
        with pytest.raises(error) as info:
            call()
        assert str(info.value) == text
    assert torch.tensor([1, -2]).abs_().tolist() == [1, 2] and torch.tensor([1, -2]).sign_().tolist() == [1, -1]
    with torch.no_grad():
        w = torch.ones(2, requires_grad=True)
        assert w.exp_() is w and w._version == 1 and w.requires_grad
    assert torch.exp_(torch.zeros(2)).tolist() == [1.0, 1.0]


def test_relu_inplace_forms_and_hardtanh_match_pytorch():
    x = leaf([-2.0, -1.0, 0.0, 1.0, 2.0])
    for make in (lambda t: F.relu(t, inplace=True), F.relu_, torch.relu_, nn.ReLU(inplace=True)):
        y = x * 1
        assert make(y) is y and y.grad_fn.name() == "ReluBackward0"
    assert repr(nn.ReLU(inplace=True)) == "ReLU(inplace=True)" and repr(nn.ReLU()) == "ReLU()"
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        F.relu(x, inplace=True)
    y = F.hardtanh(x)
    y.sum().backward()
    assert y.tolist() == [-1.0, -1.0, 0.0, 1.0, 1.0] and x.grad.tolist() == [0.0, 0.0, 1.0, 0.0, 0.0]
    assert F.hardtanh(x * 1, inplace=True).grad_fn.name() == "HardtanhBackward0"
    assert repr(nn.Hardtanh()) == "Hardtanh(min_val=-1.0, max_val=1.0)"
    assert repr(nn.Hardtanh(-2, 2, inplace=True)) == "Hardtanh(min_val=-2, max_val=2, inplace=True)"
    assert F.hardtanh(torch.tensor([1, 5]), 0, 2).tolist() == [1, 2]
    with pytest.raises(ValueError, match="^min_val cannot be greater than max_val$"):
        F.hardtanh(x, 2, 1)
    with pytest.raises(RuntimeError, match="^Bool inputs not supported for hardtanh$"):
        F.hardtanh(torch.tensor([True]))


# --------------------------------------------------------------------------- gradients
@FEW
@given(distinct())
def test_gradients_of_flip_cumsum_selection_and_statistics_match_central_differences(array):
    index = torch.tensor([2, 0, 2])
    mask = torch.tensor([[True, False, True], [False, True, True]])
    check(lambda t: t.flip(0, 1) * torch.arange(6.0, dtype=torch.float64).view(2, 3), array)
    check(lambda t: t.cumsum(1), array)
    check(lambda t: t.cumsum(0, dtype=torch.float64), array)
    check(lambda t: t.index_select(1, index), array)
    check(lambda t: t.masked_select(mask), array)
    check(lambda t: t.gather(1, torch.tensor([[0, 0], [2, 1]])), array)
    check(lambda t: torch.var_mean(t, 1), array)
    check(lambda t: torch.std_mean(t, 0, keepdim=True), array)
    check(lambda t: t.unbind(1), array)
    check(lambda t: t.split_with_sizes([2, 1], 1), array)
    check(lambda t: t.topk(2, dim=1).values, array)
    check(lambda t: t.topk(1, dim=0, largest=False).values, array)


@FEW
@given(distinct(), st.sampled_from([1, 2, 3, 0.5, float("inf"), float("-inf")]))
def test_norm_gradients_match_central_differences(array, p):
    check(lambda t: t.norm(p), array)
    check(lambda t: t.norm(p, dim=1, keepdim=True), array)


def test_norm_gradient_at_zero_and_for_the_zero_norm_are_pytorchs():
    z = torch.zeros(3, requires_grad=True)
    (z.norm() + z.norm(1) + z.norm(3) + z.norm(float("inf"))).backward()
    assert z.grad.tolist() == [0.0, 0.0, 0.0]
    w = leaf([1.0, -3.0, 3.0])
    w.norm(float("inf")).backward()
    assert w.grad.tolist() == [0.0, -0.5, 0.5]   # shared between the tied maxima
    w.grad = None
    w.norm(0).backward()
    assert w.grad is None   # PyTorch's backward gives no gradient for the count of non-zeros


@FEW
@given(distinct(), distinct((3, 2)), hnp.arrays(np.float64, (2, 2), elements=st.floats(-2, 2)))
def test_product_gradients_match_central_differences(a, b, bias):
    check(lambda t, u: torch.einsum("ij,jk->ik", t, u), a, b)
    check(lambda t, u: torch.einsum("ij,kj->ik", t, u.t()), a, b)
    check(lambda t: torch.einsum("ij,ij->i", t, t), a)
    check(lambda t, u: torch.einsum("bij,jk->bik", torch.stack([t, 2 * t]), u), a, b)
    check(lambda t, u: torch.einsum("i,j->ij", t[0], u[:, 1]), a, b)
    check(lambda c, t, u: torch.addmm(c, t, u, beta=0.5, alpha=-2.0), bias, a, b)
    check(lambda c, t, u: torch.addmm(c[0], t, u), bias, a, b)


@FEW
@given(distinct((4, 3)))
def test_embedding_and_scatter_add_gradients_match_central_differences(weight):
    indices = torch.tensor([[0, 3], [3, 3]])
    check(lambda w: F.embedding(indices, w), weight)
    check(lambda w, s: w.scatter_add(0, torch.tensor([[1, 0, 1], [1, 3, 3]]), s), weight, weight[:2])
    check(lambda w, s: (w * 1).scatter_add_(1, torch.tensor([[2], [0], [2], [1]]), s), weight, weight[:, :1])
    w, src = torch.tensor(weight, requires_grad=True), torch.tensor(weight, requires_grad=True)
    y = (w * 1).scatter_add_(1, torch.tensor([[2], [0], [2], [1]]), src)   # src larger than index: PyTorch too
    with pytest.raises(RuntimeError, match=r"^Function ScatterAddBackward0 returned an invalid gradient at index 1 - "
                                           r"got \[4, 1\] but expected shape compatible with \[4, 3\]$"):
        y.sum().backward()


@FEW
@given(distinct((5,)))
def test_in_place_unary_gradients_match_central_differences(array):
    positive = np.abs(array) + 0.5
    for name in ["exp_", "sin_", "cos_", "tanh_", "sigmoid_", "neg_"]:
        check(lambda t: getattr(t * 1, name)(), array)
    for name in ["log_", "sqrt_"]:
        check(lambda t: getattr(t * 1, name)(), positive)
    check(lambda t: (t * 1).abs_(), array)
    check(lambda t: (t * 1).clamp_(-2.5, 2.5), array)   # (distinct() never comes near +-2.5: no kink)
    check(lambda t: (t * 1).masked_fill_(t > 0, 0.5), array)
    check(lambda t: F.hardtanh(t * 1, -2.5, 2.5, inplace=True), array)


# --------------------------------------------------------------------------- error texts
def test_error_texts_match_pytorch():
    x = leaf()
    cases = [
        (lambda: torch.flip(x, 0), TypeError, "flip(): argument 'dims' (position 2) must be tuple of ints, not int"),
        (lambda: x.flip(0, 0), RuntimeError, "dim 0 appears multiple times in the list of dims"),
        (lambda: x.flip(2), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
        (lambda: torch.isclose(x, x.double()), RuntimeError, "Float did not match Double"),
        (lambda: torch.isclose(x, 1.5), TypeError, "isclose(): argument 'other' (position 2) must be Tensor, not float"),
        (lambda: torch.isclose(x, x, rtol=-1), RuntimeError, "rtol must be greater than or equal to zero, but got -1"),
        (lambda: torch.allclose(x, torch.ones(4)), RuntimeError,
         "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"),
        (lambda: x.masked_select(torch.ones(2, 3, dtype=torch.long)), RuntimeError,
         "masked_select: expected BoolTensor for mask"),
        (lambda: x.masked_select(torch.tensor([True, False])), RuntimeError,
         "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1"),
        (lambda: x.index_select(1, torch.tensor([0.0])), RuntimeError, "index_select(): Expected dtype int32 or int64 for index"),
        (lambda: x.index_select(1, torch.tensor([[0]])), IndexError, "index_select(): Index is supposed to be a vector"),
        (lambda: x.index_select(1, torch.tensor([5])), RuntimeError, "INDICES element is out of DATA bounds, id=5 axis_dim=3"),
        (lambda: x.index_select(1, [0]), TypeError, "index_select(): argument 'index' (position 2) must be Tensor, not list"),
        (lambda: (x * 1).masked_fill_(torch.ones(2, 3, dtype=torch.long), 0), RuntimeError,
         "masked_fill_ only supports boolean masks, but got mask with dtype long int"),
        (lambda: (x * 1).masked_fill_(torch.ones(2, 2, 3, dtype=torch.bool), 0), RuntimeError,
         "output with shape [2, 3] doesn't match the broadcast shape [2, 2, 3]"),
        (lambda: torch.addmm(torch.ones(3), x, x.t()), RuntimeError,
         "The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 1.  "
         "Target sizes: [2, 2].  Tensor sizes: [3]"),
        (lambda: torch.einsum("ij,jk->ik", x), RuntimeError,
         "einsum(): fewer operands were provided than specified in the equation"),
        (lambda: torch.einsum("ij->k", x), RuntimeError,
         "einsum(): output subscript k does not appear in the equation for any input operand"),
        (lambda: torch.einsum("ij->ii", x), RuntimeError, "einsum(): output subscript i appears more than once in the output"),
        (lambda: torch.einsum("i$,j->ij", x, x), RuntimeError,
         "einsum(): invalid subscript given at index 1 in the equation string, subscripts must be in [a-zA-Z]"),
        (lambda: torch.einsum("ii->i", torch.ones(2, 2)), NotImplementedError,
         "minigrad: einsum with a subscript repeated within one operand (a diagonal, e.g. 'ii->i') is not implemented"),
        (lambda: torch.tensor([3, 4]).norm(), RuntimeError,
         "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"),
        (lambda: x.norm("abc"), RuntimeError, "linalg.matrix_norm: Order abc not supported."),
        (lambda: torch.ones(0, 2).norm(float("-inf")), RuntimeError,
         "linalg.vector_norm cannot compute the -inf norm on an empty tensor because the operation does not have an "
         "identity"),
        (lambda: torch.ones(0, 2).norm(float("inf"), dim=0), RuntimeError,
         "linalg.vector_norm cannot compute the inf norm on the dimension 0because this dimension is empty and the "
         "operation does not have an identity"),
        (lambda: x.cumsum(), TypeError, 'cumsum() missing 1 required positional arguments: "dim"'),
        (lambda: x.topk(4), RuntimeError, "selected index k out of range"),
        (lambda: x.gather(1, torch.tensor([[0.0]])), RuntimeError, "gather(): Expected dtype int32/int64 for index"),
        (lambda: x.gather(1, torch.tensor([0])), RuntimeError,
         "Index tensor must have the same number of dimensions as input tensor"),
        (lambda: x.gather(1, torch.tensor([[5]])), RuntimeError, "index 5 is out of bounds for dimension 1 with size 3"),
        (lambda: x.gather(1, torch.tensor([[0], [0], [0]])), RuntimeError,
         "Size does not match at dimension 0 expected index [3, 1] to be no larger than self [2, 3] apart from dimension 1"),
        (lambda: torch.zeros(2, 3).scatter_add_(1, torch.tensor([[0]]), x.double()), RuntimeError,
         "scatter(): Expected self.dtype to be equal to src.dtype"),
        (lambda: torch.zeros(2, 3).scatter_add_(1, torch.tensor([[0, 1, 2]]), torch.ones(1, 2)), RuntimeError,
         "Expected index [1, 3] to be no larger than self [2, 3] apart from dimension 1 and to be no larger size than "
         "src [1, 2]"),
        (lambda: F.embedding(torch.tensor([0.0]), x), RuntimeError,
         "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got "
         "torch.FloatTensor instead (while checking arguments for embedding)"),
        (lambda: F.embedding(torch.tensor([3]), x), IndexError, "index out of range in self"),
        (lambda: F.embedding(torch.tensor([0]), torch.ones(3)), RuntimeError, "'weight' must be 2-D"),
        (lambda: F.embedding(torch.tensor([0]), x, padding_idx=5), AssertionError, "Padding_idx must be within num_embeddings"),
        (lambda: torch.var_mean(torch.tensor([1, 2])), RuntimeError, "var_mean only support floating point and complex dtypes"),
        (lambda: torch.tensor(1.0).unbind(), IndexError, "Dimension specified as 0 but tensor has no dimensions"),
        (lambda: x.split_with_sizes([1, 1], 1), RuntimeError,
         "split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's size at dimension 1), but got "
         "split_sizes=[1, 1]"),
        (lambda: x.split_with_sizes([4, -1], 1), RuntimeError,
         "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=[4, -1]"),
        (lambda: torch.split_with_sizes(x, 3, 1), TypeError,
         "split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, not int"),
        (lambda: torch.zeros(3, dtype=torch.long).uniform_(), NotImplementedError,
         "\"check_uniform_bounds\" not implemented for 'Long'"),
        (lambda: torch.zeros(3).uniform_(2, 1), RuntimeError,
         "uniform_ expects to return a [from, to) range, but found from=2 > to=1"),
        (lambda: torch.zeros(3).normal_(0, -1), RuntimeError, "normal expects std >= 0.0, but found std -1"),
        (lambda: torch.zeros(2, requires_grad=True).uniform_(), RuntimeError,
         "a leaf Variable that requires grad is being used in an in-place operation."),
    ]
    for call, error, text in cases:
        with pytest.raises(error) as info:
            call()
        assert str(info.value) == text, text


def test_var_mean_warns_about_degrees_of_freedom_like_pytorch():
    with pytest.warns(UserWarning, match=r"^var_mean\(\): degrees of freedom is <= 0\. Correction should be strictly "
                                         r"less than the reduction factor \(input numel divided by output numel\)\.$"):
        torch.var_mean(torch.ones(1), 0)


# --------------------------------------------------------------------------- tensors like others, random fills
def test_new_tensors_take_this_tensors_dtype():
    x = leaf()
    assert x.new(2, 3).shape == torch.Size([2, 3]) and x.new(2, 3).dtype is torch.float32 and not x.new(2).requires_grad
    assert x.new([1, 2]).tolist() == [1.0, 2.0] and x.new().shape == torch.Size([0])
    assert torch.tensor([1, 2]).new([1.5, 2.5]).tolist() == [1, 2]
    assert x.new_zeros(2, 3).tolist() == [[0.0] * 3] * 2 and x.new_zeros((2,)).shape == torch.Size([2])
    assert x.new_zeros(2, dtype=torch.long).dtype is torch.int64 and x.new_zeros(2, requires_grad=True).requires_grad
    assert x.new_ones(2).tolist() == [1.0, 1.0] and x.new_full((2,), 3).tolist() == [3.0, 3.0]
    assert x.double().new_tensor([1, 2]).dtype is torch.float64 and x.new_empty(2).shape == torch.Size([2])
    with pytest.raises(TypeError) as info:
        x.new(2, dtype=torch.long)
    assert str(info.value).startswith("new() received an invalid combination of arguments - got (int, dtype=torch.dtype)")


def test_uniform_and_normal_fill_in_place_and_record_a_zero_gradient_node():
    torch.manual_seed(0)
    w = torch.zeros(1000)
    assert w.uniform_(-0.5, 0.5) is w and w._version == 1
    assert -0.5 <= w.min().item() and w.max().item() < 0.5 and abs(w.mean().item()) < 0.05
    assert abs(torch.zeros(1000).normal_(2.0, 0.5).mean().item() - 2.0) < 0.1
    x = torch.ones(3, requires_grad=True)
    y = (x * 2).uniform_()
    assert y.grad_fn.name() == "UniformBackward0" and (x * 1).normal_().grad_fn.name() == "NormalBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


# --------------------------------------------------------------------------- module paths, utils, data
def test_pytorchs_module_paths_lead_to_minigrads_classes():
    from minigrad.nn.modules.container import Sequential
    from minigrad.nn.modules.linear import Linear
    from minigrad.nn.modules.module import Module
    from minigrad.nn.modules.sparse import Embedding
    from minigrad.nn.parameter import Parameter
    from minigrad.autograd.function import Function
    assert (Module, Parameter, Linear, Sequential, Embedding, Function) == (
        nn.Module, nn.Parameter, nn.Linear, nn.Sequential, nn.Embedding, torch.autograd.Function)
    assert torch.nn.modules.loss.NLLLoss is nn.NLLLoss and torch.nn.modules.activation.ReLU is nn.ReLU
    assert torch.utils.data.DataLoader is not None and torch.nn.utils.clip_grad_norm_ is not None


def test_clip_grad_norm_value_and_parameter_vectors_match_pytorch():
    p, q = nn.Parameter(torch.tensor([3.0, 4.0])), nn.Parameter(torch.tensor([1.0]))
    p.grad, q.grad = torch.tensor([3.0, 4.0]), torch.tensor([12.0])
    total = nn.utils.clip_grad_norm_([p, q], 1.0)
    assert total.item() == 13.0 and np.allclose(p.grad.tolist(), [0.2308, 0.3077], atol=1e-4)
    assert np.allclose(q.grad.tolist(), [0.9231], atol=1e-4)
    assert nn.utils.clip_grad_norm_([], 1.0).item() == 0.0
    p.grad = torch.tensor([3.0, -4.0])
    assert nn.utils.clip_grad_norm_(p, 10.0, norm_type="inf").item() == 4.0 and p.grad.tolist() == [3.0, -4.0]
    assert nn.utils.clip_grad_value_(p, 2.0) is None and p.grad.tolist() == [2.0, -2.0]
    vector = nn.utils.parameters_to_vector([p, q])
    assert vector.tolist() == [3.0, 4.0, 1.0] and vector.grad_fn.name() == "CatBackward0"
    nn.utils.vector_to_parameters(torch.tensor([7.0, 8.0, 9.0]), [p, q])
    assert p.tolist() == [7.0, 8.0] and q.tolist() == [9.0]
    p.grad = torch.tensor([float("inf"), 1.0])
    with pytest.raises(RuntimeError, match="^The total norm of order 2.0 for gradients from `parameters` is non-finite"):
        nn.utils.clip_grad_norm_(p, 1.0, error_if_nonfinite=True)
    with pytest.raises(TypeError, match="^expected torch.Tensor, but got: list$"):
        nn.utils.vector_to_parameters([1.0], [p])


def test_datasets_and_the_data_loader_batch_like_pytorch():
    from minigrad.utils.data import ConcatDataset, DataLoader, Dataset, Subset, TensorDataset, random_split
    data = TensorDataset(torch.arange(10.0).view(5, 2), torch.arange(5))
    assert len(data) == 5 and repr(data[1]) == "(tensor([2., 3.]), tensor(1))"
    batches = list(DataLoader(data, batch_size=2))
    assert len(batches) == 3 and repr(batches[-1]) == "[tensor([[8., 9.]]), tensor([4])]"
    assert len(DataLoader(data, batch_size=2, drop_last=True)) == 2
    assert repr(next(iter(DataLoader([(1, 2.0), (3, 4.0)], batch_size=2)))) == \
        "[tensor([1, 3]), tensor([2., 4.], dtype=torch.float64)]"
    assert next(iter(DataLoader([{"a": 1}, {"a": 2}], batch_size=2)))["a"].tolist() == [1, 2]
    assert next(iter(DataLoader(["x", "y"], batch_size=2))) == ["x", "y"]
    assert repr(next(iter(DataLoader(data, batch_size=None)))) == "[tensor([0., 1.]), tensor(0)]"
    torch.manual_seed(0)
    shuffled = [int(t) for _, t in DataLoader(data, batch_size=1, shuffle=True)]
    assert sorted(shuffled) == [0, 1, 2, 3, 4] and shuffled != [0, 1, 2, 3, 4]
    first, second = random_split(data, [3, 2])
    assert (len(first), len(second), type(first)) == (3, 2, Subset)
    assert sorted(first.indices + second.indices) == [0, 1, 2, 3, 4]
    assert len(ConcatDataset([data, data])) == 10 and ConcatDataset([data, data])[7][1].item() == 2
    for call, error, text in [
            (lambda: TensorDataset(torch.ones(2), torch.ones(3)), AssertionError, "Size mismatch between tensors"),
            (lambda: DataLoader(data, shuffle=True, sampler=[0, 1]), ValueError,
             "sampler option is mutually exclusive with shuffle"),
            (lambda: random_split(data, [3, 3]), ValueError,
             "Sum of input lengths does not equal the length of the input dataset!"),
            (lambda: len(Dataset()), TypeError, "object of type 'Dataset' has no len()"),
            (lambda: Dataset()[0], NotImplementedError, "Subclasses of Dataset should implement __getitem__.")]:
        with pytest.raises(error) as info:
            call()
        assert str(info.value) == text


# --------------------------------------------------------------------------- legacy sparse, spmm
def test_legacy_sparse_constructors_warn_once_and_build_coo_tensors():
    from minigrad.tensor import _warned
    i, v = torch.tensor([[0, 1], [1, 0]]), torch.tensor([1.0, 2.0], requires_grad=True)
    message = ("torch.sparse.SparseTensor(indices, values, shape, *, device=) is deprecated.  Please use "
               "torch.sparse_coo_tensor(indices, values, shape, dtype=, device=).")
    _warned.discard(message)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a = torch.sparse.FloatTensor(i, v, torch.Size([2, 2]))
        torch.sparse.FloatTensor(i, v, (2, 2))
    assert [str(w.message) for w in caught] == [message]   # once per process, as PyTorch's TORCH_WARN_ONCE
    assert a.to_dense().tolist() == [[0.0, 1.0], [2.0, 0.0]] and a.grad_fn.name() == \
        "SparseCooTensorWithDimsAndTensorsBackward0"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert torch.sparse.FloatTensor(i, v.detach().double(), (2, 2)).dtype is torch.float64   # values keep their dtype
        assert torch.sparse.LongTensor(i, torch.tensor([1, 2]), torch.Size([2, 2])).dtype is torch.int64
        empty = torch.sparse.FloatTensor(2, 3)
    assert empty.shape == torch.Size([2, 3]) and empty._nnz() == 0 and empty.dtype is torch.float32
    assert isinstance(a, torch.sparse.FloatTensor) and not isinstance(a, torch.sparse.DoubleTensor)
    assert not isinstance(torch.ones(2), torch.sparse.FloatTensor)
    b = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = torch.spmm(a, b)
    y.sum().backward()
    assert y.grad_fn.name() == "MmBackward0" and y.tolist() == [[3.0, 4.0], [2.0, 4.0]]
    assert v.grad.tolist() == [7.0, 3.0] and b.grad.tolist() == [[2.0, 2.0], [1.0, 1.0]]
    assert torch.spmm(b, b).grad_fn.name() == "MmBackward0"


# --------------------------------------------------------------------------- embedding layer
def test_embedding_layer_matches_pytorch():
    torch.manual_seed(0)
    table = nn.Embedding(10, 3, padding_idx=0)
    assert repr(table) == "Embedding(10, 3, padding_idx=0)" and table.weight[0].tolist() == [0.0, 0.0, 0.0]
    assert 0.5 < table.weight[1:].std().item() < 1.5   # N(0, 1), as in PyTorch
    assert repr(nn.Embedding(10, 3, max_norm=1.0, scale_grad_by_freq=True, sparse=True)) == \
        "Embedding(10, 3, max_norm=1.0, scale_grad_by_freq=True, sparse=True)"
    assert nn.Embedding(10, 3, padding_idx=-1).padding_idx == 9
    out = table(torch.tensor([[0, 2], [4, 4]]))
    out.sum().backward()
    assert out.shape == torch.Size([2, 2, 3]) and table.weight.grad[0].tolist() == [0.0, 0.0, 0.0]
    assert table.weight.grad[4].tolist() == [2.0, 2.0, 2.0]
    w = torch.ones(3, 3, requires_grad=True)
    F.embedding(torch.tensor([0, 1, 1, 2]), w, padding_idx=1).sum().backward()   # not the derivative, by design
    assert w.grad.tolist() == [[1.0] * 3, [0.0] * 3, [1.0] * 3]
    w.grad = None
    F.embedding(torch.tensor([0, 1, 1, 0, 0]), w, scale_grad_by_freq=True).sum().backward()
    assert w.grad.tolist() == [[1.0] * 3, [1.0] * 3, [0.0] * 3]
    frozen = nn.Embedding.from_pretrained(torch.ones(2, 3))
    assert repr(frozen) == "Embedding(2, 3)" and not frozen.weight.requires_grad
    assert nn.Embedding.from_pretrained(torch.ones(2, 3), freeze=False).weight.requires_grad
    w = torch.tensor(X + [[0.5, 0.5, 0.5]], requires_grad=True)
    rows = F.embedding(torch.tensor([0, 1]), w, max_norm=1.0)
    assert np.allclose(rows.tolist(), [[0.5883, -0.7845, 0.1961], [-0.0788, 0.9457, -0.3152]], atol=1e-4)
    assert w._version == 1 and w[2].tolist() == [0.5, 0.5, 0.5]   # renormalised in place, as in PyTorch
    for call, text in [(lambda: nn.Embedding(10, 3, padding_idx=10), "Padding_idx must be within num_embeddings"),
                       (lambda: nn.Embedding.from_pretrained(torch.ones(3)),
                        "Embeddings parameter is expected to be 2-dimensional")]:
        with pytest.raises(AssertionError) as info:
            call()
        assert str(info.value) == text
    with pytest.raises(NotImplementedError, match="embedding\\(sparse=True\\) is not implemented"):
        nn.Embedding(4, 2, sparse=True)(torch.tensor([1]))


# --------------------------------------------------------------------------- outside the subset
@pytest.mark.parametrize("make, name", [
    (lambda: nn.Conv2d(3, 8, kernel_size=3), "nn.Conv2d (convolution)"),
    (lambda: nn.ConvTranspose1d(3, 8, 2), "nn.ConvTranspose1d (convolution)"),
    (lambda: nn.MaxPool2d(2), "nn.MaxPool2d (pooling)"),
    (lambda: nn.AdaptiveAvgPool2d(1), "nn.AdaptiveAvgPool2d (pooling)"),
    (lambda: nn.BatchNorm1d(4), "nn.BatchNorm1d (batch normalization)"),
    (lambda: nn.BatchNorm2d(4), "nn.BatchNorm2d (batch normalization)"),
    (lambda: F.conv2d(torch.ones(1, 1, 3, 3), torch.ones(1, 1, 2, 2)), "nn.functional.conv2d (convolution)"),
    (lambda: F.max_pool2d(torch.ones(1, 1, 2, 2), 2), "nn.functional.max_pool2d (pooling)"),
    (lambda: F.avg_pool1d(torch.ones(1, 1, 2), 2), "nn.functional.avg_pool1d (pooling)"),
    (lambda: F.batch_norm(torch.ones(2, 3), None, None), "nn.functional.batch_norm (batch normalization)"),
    (lambda: torch.conv2d(torch.ones(1, 1, 3, 3), torch.ones(1, 1, 2, 2)), "torch.conv2d (convolution)"),
    (lambda: torch.batch_norm(torch.ones(2, 3)), "torch.batch_norm (batch normalization)"),
])
def test_convolution_pooling_and_batch_norm_refuse_at_first_use_and_point_to_the_readme(make, name):
    with pytest.raises(NotImplementedError) as info:
        make()
    assert str(info.value) == (
        f"minigrad does not implement {name}. Convolution, pooling and batch normalization are outside minigrad's "
        "subset: the README's section 'What minigrad covers, and differences from PyTorch' lists them.")


def test_layers_outside_the_subset_still_work_in_isinstance_checks_and_the_readme_lists_them():
    from pathlib import Path
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    assert not any(isinstance(m, (nn.Conv2d, nn.BatchNorm2d)) for m in model.modules())
    assert issubclass(nn.Conv2d, nn.Module)
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    section = readme.split("## What minigrad covers, and differences from PyTorch")[1].split("\n## ")[0]
    for layer in ["nn.Conv1d/2d/3d", "nn.MaxPool1d/2d/3d", "nn.BatchNorm1d/2d/3d", "`conv2d`", "`max_pool*d`",
                  "`batch_norm`"]:
        assert layer in section, layer


@pytest.mark.parametrize("function, data, dim, expected", [
    # PyTorch 2.13: (var or std).sum() + 0.5 * mean.sum(), backpropagated
    ("var_mean", [1.0], None, [float("nan")]),
    ("var_mean", [[1.0, 2.0, 3.0]], 0, [[float("nan")] * 3]),
    ("std_mean", [2.0, 2.0, 2.0], None, [0.1666666716337204] * 3),
    ("std_mean", [[2.0, 2.0], [3.0, 5.0]], 1, [[0.25, 0.25], [-0.4571067690849304, 0.9571067690849304]]),
    ("var_mean", [[2.0, 2.0], [3.0, 5.0]], 1, [[0.25, 0.25], [-1.75, 2.25]]),
])
def test_var_mean_and_std_mean_follow_pytorchs_var_and_std_backward_at_the_edges(function, data, dim, expected):
    """No ZeroDivisionError for N - correction <= 0, and std of equal values has the mean's gradient only."""
    x = torch.tensor(data, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # "degrees of freedom is <= 0", as PyTorch warns
        spread, mean = getattr(torch, function)(x) if dim is None else getattr(torch, function)(x, dim)
    (spread.sum() + mean.sum() * 0.5).backward()
    np.testing.assert_allclose(x.grad.tolist(), expected, rtol=1e-6)
