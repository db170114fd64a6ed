"""Tensors outside autograd: factories, dtypes and promotion, printing, Size, device, indexing,
comparisons, version counters. Expected values and texts come from PyTorch 2.13.
(Printing itself is tested in depth in test_printing.py.)"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad as torch
from helpers import AddOneInPlace, message, sample_leaf

IS_MINIGRAD = torch.__name__ == "minigrad"

i = torch.tensor([1, 2])
f = torch.tensor([1.0, 2.0])
d = torch.tensor([1.0, 2.0], dtype=torch.float64)
b = torch.tensor([True, False])
f0 = torch.tensor(2.0)
d0 = torch.tensor(2.0, dtype=torch.float64)
i0 = torch.tensor(3)

PROMOTION = [
    ("int64 * float32", lambda: i * f, torch.float32, [1.0, 4.0]),
    ("int64 * python float", lambda: i * 2.5, torch.float32, [2.5, 5.0]),
    ("float32 * python float stays float32", lambda: f * 2.5, torch.float32, [2.5, 5.0]),
    ("float64 * float32", lambda: d * f, torch.float64, [1.0, 4.0]),
    ("float32 * 0-dim float64: the dimensioned tensor wins", lambda: f * d0, torch.float32, [2.0, 4.0]),
    ("float64 * 0-dim float32", lambda: d * f0, torch.float64, [2.0, 4.0]),
    ("int64 * 0-dim float64: a higher kind wins", lambda: i * d0, torch.float64, [2.0, 4.0]),
    ("int / int is true division", lambda: i / i, torch.float32, [1.0, 1.0]),
    ("int / python int", lambda: i / 2, torch.float32, [0.5, 1.0]),
    ("int + python bool", lambda: i + True, torch.int64, [2, 3]),
    ("bool * python int", lambda: b * 2, torch.int64, [2, 0]),
    ("bool * python float", lambda: b * 2.5, torch.float32, [2.5, 0.0]),
    ("0-dim float32 * int64", lambda: f0 * i, torch.float32, [2.0, 4.0]),
    ("0-dim int64 * float32", lambda: i0 * f, torch.float32, [3.0, 6.0]),
    ("int ** python int", lambda: i ** 2, torch.int64, [1, 4]),
    ("int ** python float", lambda: i ** 0.5, torch.float32, [1.0, 2 ** 0.5]),
    ("python float - int", lambda: 2.5 - i, torch.float32, [1.5, 0.5]),
    ("python int / int", lambda: 1 / i, torch.float32, [1.0, 0.5]),
    ("python float ** int", lambda: 2.0 ** i, torch.float32, [2.0, 4.0]),
    ("int.sum()", lambda: i.sum(), torch.int64, 3),
    ("bool.sum()", lambda: b.sum(), torch.int64, 1),
    ("int.exp()", lambda: i.exp(), torch.float32, [np.float32(np.e), np.float32(np.e ** 2)]),
    ("int.sqrt()", lambda: i.sqrt(), torch.float32, [1.0, np.float32(2 ** 0.5)]),
    ("int.abs()", lambda: i.abs(), torch.int64, [1, 2]),
    ("-int", lambda: -i, torch.int64, [-1, -2]),
    ("cat of int64 and float32", lambda: torch.cat([i, f]), torch.float32, [1.0, 2.0, 1.0, 2.0]),
    ("cat of float32 and float64", lambda: torch.cat([f, d]), torch.float64, [1.0, 2.0, 1.0, 2.0]),
    ("stack of int64 and float32", lambda: torch.stack([i, f]).view(-1), torch.float32, [1.0, 2.0, 1.0, 2.0]),
    ("where of int64 and float32", lambda: torch.where(i > 1, i, f), torch.float32, [1.0, 2.0]),
    ("int clamped by floats", lambda: i.clamp(0.5, 1.5), torch.float32, [1.0, 1.5]),
    ("int clamped by ints", lambda: i.clamp(0, 1), torch.int64, [1, 1]),
]


@pytest.mark.parametrize("name, compute, dtype, values", PROMOTION, ids=[p[0] for p in PROMOTION])
def test_type_promotion(name, compute, dtype, values):
    result = compute()
    assert result.dtype is dtype
    assert result.tolist() == pytest.approx(values)


def test_comparisons_give_bool_tensors():
    assert (i > 1).dtype is torch.bool and (i > 1).tolist() == [False, True]
    assert (f == i).tolist() == [True, True]
    assert (f >= 1.5).tolist() == [False, True]
    assert (f != 1.0).tolist() == [False, True]
    assert (f < d).tolist() == [False, False]
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    mask = x > 1
    assert not mask.requires_grad and mask.grad_fn is None
    assert repr(i > 1) == "tensor([False,  True])"


# --------------------------------------------------------------------------- factories
def test_factories_defaults():
    assert torch.zeros(2, 3).dtype is torch.float32 and torch.zeros(2, 3).shape == (2, 3)
    assert torch.zeros((2, 3)).shape == torch.Size([2, 3])
    assert torch.ones(2, dtype=torch.int64).tolist() == [1, 1]
    assert torch.tensor([[1, 2], [3, 4]]).dtype is torch.int64
    assert torch.tensor([1, 2.5]).dtype is torch.float32
    assert torch.tensor([True]).dtype is torch.bool
    assert torch.tensor(3.5).shape == torch.Size([]) and torch.tensor(3.5).item() == 3.5
    assert torch.full((2,), 7).dtype is torch.int64
    assert torch.full((2,), 7.0).dtype is torch.float32
    assert torch.full((2,), True).dtype is torch.bool
    assert torch.arange(5).tolist() == [0, 1, 2, 3, 4] and torch.arange(5).dtype is torch.int64
    assert torch.arange(1, 4).tolist() == [1, 2, 3]
    assert torch.arange(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert torch.arange(0, 1, 0.25).dtype is torch.float32
    assert torch.linspace(-1, 1, 5).tolist() == [-1.0, -0.5, 0.0, 0.5, 1.0]
    assert torch.eye(2, 3).tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    assert torch.zeros_like(d).dtype is torch.float64
    assert torch.ones_like(i, dtype=torch.float32).dtype is torch.float32
    assert torch.full_like(f, 3).tolist() == [3.0, 3.0] and torch.full_like(f, 3).dtype is torch.float32
    assert torch.as_tensor([1, 2]).dtype is torch.int64
    assert torch.empty(2, 3).shape == (2, 3)


def test_full_with_every_keyword_as_in_the_legendre_tutorial():
    a = torch.full((), 0.0, dtype=torch.float32, device=torch.device("cpu"), requires_grad=True)
    assert a.shape == torch.Size([]) and a.requires_grad and a.is_leaf
    assert repr(a) == "tensor(0., requires_grad=True)"


def test_dtype_aliases():
    assert torch.float is torch.float32 and torch.double is torch.float64 and torch.long is torch.int64
    assert repr(torch.float32) == "torch.float32" and str(torch.int64) == "torch.int64"
    assert f.dtype is torch.float32 and d.dtype is torch.float64
    assert f.is_floating_point() and not i.is_floating_point()


def test_conversions():
    assert i.float().dtype is torch.float32 and i.double().dtype is torch.float64
    assert (f * 1.7).long().tolist() == [1, 3]
    assert d.to(torch.float32).dtype is torch.float32
    assert b.int().tolist() == [1, 0] and b.int().dtype is torch.int32
    assert f.to(torch.float32) is f          # nothing to do: the same tensor
    assert d.tolist() == [1.0, 2.0] and type(d.tolist()[0]) is float
    assert i0.item() == 3 and type(i0.item()) is int
    assert f0.item() == 2.0 and type(f0.item()) is float
    assert float(f0) == 2.0 and int(i0) == 3


def test_tensor_copies_while_from_numpy_and_numpy_share_memory():
    array = np.array([1.0, 2.0])
    copied, shared = torch.tensor(array), torch.from_numpy(array)
    array[0] = 100.0
    assert copied.tolist() == [1.0, 2.0] and shared.tolist() == [100.0, 2.0]
    assert shared.dtype is torch.float64
    shared.numpy()[1] = 7.0
    assert array[1] == 7.0


def test_size_shape_and_counts():
    t = torch.ones(2, 3)
    assert t.shape == torch.Size([2, 3]) == (2, 3)
    assert repr(t.shape) == "torch.Size([2, 3])" and str(t.size()) == "torch.Size([2, 3])"
    assert repr(torch.tensor(1.0).shape) == "torch.Size([])"
    assert t.size(1) == 3 and t.size(-1) == 3
    assert t.numel() == 6 and t.dim() == 2 and torch.ones(2, 3, 1).ndim == 3
    assert t.shape.numel() == 6
    assert isinstance(t.shape[1:], torch.Size) and t.shape[1:] == (3,)
    assert len(t) == 2


def test_device():
    assert str(f.device) == "cpu" and repr(torch.device("cpu")) == "device(type='cpu')"
    assert f.device == torch.device("cpu")
    assert torch.zeros(2, device="cpu").device == torch.device("cpu")
    assert f.to("cpu") is f and f.cpu() is f


@pytest.mark.skipif(not IS_MINIGRAD, reason="PyTorch without CUDA fails later, with an AssertionError")
def test_cuda_is_refused_clearly():
    with pytest.raises(NotImplementedError, match=r"^minigrad runs on the CPU only \(numpy\); device 'cuda' is not "
                                                  r"available\. Use device='cpu' or leave the argument out\.$"):
        torch.device("cuda")
    with pytest.raises(NotImplementedError, match="device 'cuda:0'"):
        torch.zeros(2, device="cuda:0")
    with pytest.raises(NotImplementedError, match="device 'cuda'"):
        f.to("cuda")


# --------------------------------------------------------------------------- printing (a few cases)
@pytest.mark.parametrize("make, text", [
    (lambda: torch.ones(2, requires_grad=True), "tensor([1., 1.], requires_grad=True)"),
    (lambda: torch.ones(2, requires_grad=True) * 2, "tensor([2., 2.], grad_fn=<MulBackward0>)"),
    (lambda: torch.ones(2, dtype=torch.float64) / 3, "tensor([0.3333, 0.3333], dtype=torch.float64)"),
    (lambda: torch.tensor([1e10, 1.0]), "tensor([1.0000e+10, 1.0000e+00])"),
    (lambda: torch.tensor([[1, 2], [3, 4]]), "tensor([[1, 2],\n        [3, 4]])"),
    (lambda: torch.tensor(2.5, requires_grad=True).exp(), "tensor(12.1825, grad_fn=<ExpBackward0>)"),
    (lambda: torch.tensor([[1.0, 5.0], [7.0, 2.0]]).max(1),
     "torch.return_types.max(\nvalues=tensor([5., 7.]),\nindices=tensor([1, 0]))"),
    (lambda: torch.tensor([3.0, 1.0, 2.0]).sort(descending=True),
     "torch.return_types.sort(\nvalues=tensor([3., 2., 1.]),\nindices=tensor([0, 2, 1]))"),
    (lambda: torch.nn.Parameter(torch.ones(2)), "Parameter containing:\ntensor([1., 1.], requires_grad=True)"),
])
def test_printing(make, text):
    assert repr(make()) == text


def test_format_of_a_zero_dim_tensor():
    assert f"{torch.tensor(3.14159):.2f}" == "3.14"


# --------------------------------------------------------------------------- indexing
def test_indexing_results():
    m = torch.arange(6).view(2, 3)
    assert m[1].tolist() == [3, 4, 5]
    assert m[-1, -1].tolist() == 5 and m[-1, -1].shape == torch.Size([])
    assert m[:, 1:].tolist() == [[1, 2], [4, 5]]
    assert m[torch.tensor([1, 1, 0])].tolist() == [[3, 4, 5], [3, 4, 5], [0, 1, 2]]
    assert m[m > 2].tolist() == [3, 4, 5]
    assert m[[0, 1], [2, 0]].tolist() == [2, 3]
    assert m[None, ..., 1].tolist() == [[1, 4]]
    assert m.T.tolist() == [[0, 3], [1, 4], [2, 5]]


def test_mixed_int_and_index_tensor_follows_pytorch_not_numpy():
    # PyTorch applies the int first (a view), then the list: numpy would move the list's dimension first
    y = torch.arange(24).view(2, 3, 4)
    assert y[1, :, [0, 1]].shape == torch.Size([3, 2])
    assert y[1, :, [0, 1]].tolist() == [[12, 13], [16, 17], [20, 21]]
    assert y[:, [0, 1], 1].shape == torch.Size([2, 2])
    assert y[[0, 1], :, 1].shape == torch.Size([2, 3])
    assert y[1, torch.tensor([True, False, True])].shape == torch.Size([2, 4])


def test_ints_and_slices_give_views_index_tensors_give_copies():
    x = torch.zeros(3, 2)
    row, part, picked = x[0], x[1:], x[torch.tensor([0, 1])]
    x.add_(1)
    assert row.tolist() == [1.0, 1.0] and part.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert picked.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert row._version == x._version == 1


def test_index_assignment_on_a_plain_tensor():
    x = torch.zeros(2, 3)
    x[0] = 1.0
    x[1, 1:] = torch.tensor([5.0, 6.0])
    x[x == 0] = -1.0
    assert x.tolist() == [[1.0, 1.0, 1.0], [-1.0, 5.0, 6.0]]
    assert x._version == 3


def test_index_assignment_node_names():
    x = torch.ones(3, 2, requires_grad=True)
    for key, name in [(0, "CopySlices"), ((slice(None), 1), "CopySlices"), (torch.tensor([0, 2]), "IndexPutBackward0"),
                      (slice(None), "FillBackward3")]:
        y = x * 1
        y[key] = 2.0
        assert type(y.grad_fn).__name__ == name
    y = x * 1
    y[0] = 2.0
    assert y.grad_fn.name() == "torch::autograd::CopySlices"


def test_indexing_node_chains_as_in_pytorch():
    x = torch.ones(3, 2, requires_grad=True)

    def chain(t):
        names = []
        node = t.grad_fn
        while node is not None:
            names.append(node.name())
            node = node.next_functions[0][0] if node.next_functions else None
        return names
    assert chain(x[0]) == ["SelectBackward0", "torch::autograd::AccumulateGrad"]
    assert chain(x[0, 1]) == ["SelectBackward0", "SelectBackward0", "torch::autograd::AccumulateGrad"]
    assert chain(x[1:, 0]) == ["SelectBackward0", "SliceBackward0", "torch::autograd::AccumulateGrad"]
    assert chain(x[:]) == ["SliceBackward0", "torch::autograd::AccumulateGrad"]
    assert chain(x[:, :]) == ["AliasBackward0", "torch::autograd::AccumulateGrad"]
    assert chain(x[None]) == ["UnsqueezeBackward0", "torch::autograd::AccumulateGrad"]
    assert chain(x[torch.tensor([0, 2]), 1]) == ["IndexBackward0", "SelectBackward0",
                                                   "torch::autograd::AccumulateGrad"]


# --------------------------------------------------------------------------- versions and in-place
def test_every_in_place_operation_bumps_the_version():
    x = torch.zeros(3)
    steps = [lambda: x.add_(1), lambda: x.sub_(1, alpha=2), lambda: x.mul_(2), lambda: x.div_(2),
             lambda: x.zero_(), lambda: x.fill_(3), lambda: x.copy_(torch.ones(3)),
             lambda: x.index_add_(0, torch.tensor([0, 0]), torch.ones(2)), lambda: x.__setitem__(0, 5.0),
             lambda: x.__iadd__(1), lambda: x.__isub__(1), lambda: x.__imul__(2), lambda: x.__itruediv__(2)]
    for expected, step in enumerate(steps, start=1):
        assert step() is None or True
        assert x._version == expected
    assert x.tolist() == [5.0, 1.0, 1.0]


def test_in_place_operators_return_the_same_tensor():
    x = torch.zeros(2)
    y = x
    y += 1
    y *= 3
    assert y is x and x.tolist() == [3.0, 3.0]
    assert x.add_(1) is x and x.mul_(2) is x and x.zero_() is x


def test_leaf_in_place_error_builtin_is_being_used_custom_has_been_used():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError) as builtin:
        x.add_(1)
    with pytest.raises(RuntimeError) as custom:
        AddOneInPlace.apply(x)
    assert str(builtin.value) == "a leaf Variable that requires grad is being used in an in-place operation."
    assert str(custom.value) == "a leaf Variable that requires grad has been used in an in-place operation."


def test_manual_gradient_descent_on_a_leaf_inside_no_grad():
    a = torch.full((), 0.5, dtype=torch.float32, requires_grad=True)
    x = torch.linspace(-1, 1, 5)
    for _ in range(3):
        loss = ((a * x - torch.sin(x)) ** 2).sum()
        loss.backward()
        with torch.no_grad():
            a -= 0.1 * a.grad
        a.grad = None
    assert a.is_leaf and a.requires_grad and a._version == 3
    assert a.item() == pytest.approx(0.8193286, abs=1e-6)   # PyTorch: 0.8193286061286926


def test_requires_grad_propagates():
    x = torch.ones(2, requires_grad=True)
    c = torch.ones(2)
    assert (x * c).requires_grad and not (c * 2).requires_grad
    assert x.is_leaf and c.is_leaf and not (x * c).is_leaf
    assert x.requires_grad_(False) is x and not x.requires_grad
    assert (c * 2).is_leaf


def test_allclose_and_equal():
    assert torch.allclose(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0 + 1e-9]))
    assert not torch.allclose(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.1]))
    assert torch.equal(torch.tensor([1, 2]), torch.tensor([1, 2]))
    assert not torch.equal(torch.tensor([1, 2]), torch.tensor([1, 3]))
    assert not torch.equal(torch.tensor([1, 2]), torch.tensor([[1, 2]]))


def test_floor_division_and_remainder_follow_pytorch():
    assert (torch.tensor([7, -7]) // 2).tolist() == [3, -4]
    assert (7 // torch.tensor([2, 3])).tolist() == [3, 2]
    assert (torch.tensor([7, -7]) % 3).tolist() == [1, 2]
    assert (torch.tensor([7.5, -7.5]) % 2).tolist() == [1.5, 0.5]
    x = torch.tensor([3.0, -2.5], requires_grad=True)
    quotient = x // 2
    assert quotient.grad_fn.name() == "torch::autograd::NotImplemented"   # PyTorch 2.13
    assert repr(quotient) == "tensor([ 1., -2.], grad_fn=<NotImplemented>)"
    with pytest.raises(RuntimeError) as error:
        quotient.sum().backward()
    assert str(error.value) == "derivative for aten::floor_divide is not implemented"


def test_remainder_gradients():
    a = torch.tensor([3.0, 7.5], requires_grad=True)
    b = torch.tensor([2.0, -2.0], requires_grad=True)
    remainder = a % b
    assert remainder.grad_fn.name() == "RemainderBackward1"   # PyTorch 2.13 (tensor % number: RemainderBackward0)
    remainder.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0]
    assert b.grad.tolist() == [-1.0, 4.0]   # -floor(a / b)


def test_clamp_in_place_works_on_a_parameter_under_no_grad_and_is_recorded_on_a_non_leaf():
    w = torch.tensor([-2.0, 0.5, 3.0], requires_grad=True)
    with torch.no_grad():
        w.clamp_(-1, 1)
    assert w.tolist() == [-1.0, 0.5, 1.0] and w._version == 1
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        w.clamp_(0, 1)   # PyTorch's refusal for a leaf comes first
    y = w * 1
    assert y.clamp_(0, 1) is y and y.grad_fn.name() == "ClampBackward1"   # as in PyTorch 2.13
    y.sum().backward()
    assert w.grad.tolist() == [0.0, 1.0, 1.0]


# ------------------------------------------------------------------ misuse PyTorch refuses (its types and texts)
GRAD_DTYPE_TAIL = (
    "The gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's "
    "grad_dtype attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the "
    "dtypes of a tensor and its gradient may break downstream systems that assume they match.")


def test_assigning_data_checks_what_pytorch_checks():
    x = torch.ones(2, requires_grad=True)
    x.data = torch.ones(3, dtype=torch.float64)   # another float dtype and shape: allowed, as in PyTorch 2.13
    assert x.dtype == torch.float64 and x.shape == (3,) and x.requires_grad
    assert message(lambda: setattr(x, "data", torch.ones(2, dtype=torch.int64))) == (
        "RuntimeError: data set to a tensor that requires gradients must be floating point or complex dtype")
    y = torch.ones(2)
    y.data = torch.ones(3, dtype=torch.int64)   # no gradient required: any dtype
    assert y.tolist() == [1, 1, 1]
    assert message(lambda: setattr(y, "data", [1.0, 2.0])) == "TypeError: Variable data has to be a tensor, but got list"
    sparse = torch.sparse_coo_tensor(torch.tensor([[0, 1], [1, 0]]), torch.tensor([1., 2.]), (2, 2))
    incompatible = ("RuntimeError: Attempted to call `variable.set_data(tensor)`, but `variable` and `tensor` have "
                    "incompatible tensor type.")
    assert message(lambda: setattr(torch.ones(2, 2, requires_grad=True), "data", sparse)) == incompatible
    assert message(lambda: setattr(sparse, "data", torch.ones(2, 2))) == incompatible


def test_assigning_grad_checks_what_pytorch_checks():
    x = torch.ones(2, requires_grad=True)
    assert message(lambda: setattr(x, "grad", x)) == "RuntimeError: can't assign Variable as its own grad"
    assert message(lambda: setattr(x, "grad", 0)) == (
        "TypeError: assigned grad expected to be a Tensor or None but got grad of type int")
    assert message(lambda: setattr(x, "grad", [1.0, 2.0])) == (
        "TypeError: assigned grad expected to be a Tensor or None but got grad of type list")
    assert message(lambda: setattr(x, "grad", torch.ones(3, dtype=torch.float64))) == (   # dtype is checked first
        "RuntimeError: attempting to assign a gradient with dtype 'double' to a tensor with grad_dtype 'Float'. "
        + GRAD_DTYPE_TAIL)
    assert message(lambda: setattr(torch.ones(2, dtype=torch.int64), "grad", torch.ones(2))) == (
        "RuntimeError: attempting to assign a gradient with dtype 'float' to a tensor with grad_dtype 'Long'. "
        + GRAD_DTYPE_TAIL)
    assert message(lambda: setattr(x, "grad", torch.ones(3))) == (
        "RuntimeError: attempting to assign a gradient of size '[3]' to a tensor of size '[2]'. Please ensure that the "
        "gradient and the tensor are the same size")
    x.grad = x.detach()
    assert x.grad is not x and x.grad.tolist() == [1.0, 1.0]
    y = x * 2
    y.grad = torch.ones(2)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # PyTorch warns about a non-leaf's .grad only while it is None
        assert y.grad.tolist() == [1.0, 1.0]


def test_deleting_attributes_answers_as_pytorch():
    x = torch.ones(2, requires_grad=True)
    x.grad = torch.ones(2)
    del x.grad
    assert x.grad is None
    assert message(lambda: delattr(x, "data")) == "RuntimeError: Deleting tensor data is not allowed. Delete tensor instead!"
    assert message(lambda: delattr(x, "requires_grad")) == "RuntimeError: requires_grad must be a bool"
    for name in ("grad_fn", "shape", "is_leaf", "_version"):
        assert message(lambda: delattr(x, name)) == (
            f"AttributeError: attribute '{name}' of 'torch._C.TensorBase' objects is not writable")
    x.note = 1
    del x.note
    assert not hasattr(x, "note")


def test_requires_grad_on_a_non_leaf():
    y = torch.ones(2, requires_grad=True) * 2
    assert y.requires_grad_() is y and y.requires_grad   # PyTorch returns the tensor
    assert message(lambda: y.requires_grad_(False)) == (
        "RuntimeError: you can only change requires_grad flags of leaf variables. If you want to use a computed "
        "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
    assert message(lambda: setattr(y, "requires_grad", True)) == (
        "RuntimeError: you can only change requires_grad flags of leaf variables.")


def test_randint_has_both_of_pytorchs_forms():
    torch.manual_seed(0)
    for made in (torch.randint(5, (3,)), torch.randint(2, 5, (3,)), torch.randint(high=5, size=(3,)),
                 torch.randint(low=2, high=5, size=[3]), torch.randint(5, size=(3,))):
        assert made.shape == (3,) and made.dtype == torch.int64 and 0 <= made.min().item() and made.max().item() < 5
    assert torch.randint(5, ()).shape == () and torch.randint(5, (3,), dtype=torch.float32).dtype == torch.float32
    assert torch.randint(5, (2,), dtype=torch.float32, requires_grad=True).requires_grad
    assert message(lambda: torch.randint(5, 2)) == (
        "TypeError: randint(): argument 'size' (position 2) must be tuple of ints, not int")
    assert message(lambda: torch.randint(5, 2, (3,))) == (
        "RuntimeError: random_ expects 'from' to be less than 'to', but got from=5 >= to=2")
    assert message(lambda: torch.randint(2.5, (3,))) == (
        "TypeError: randint(): argument 'high' (position 1) must be int, not float")
    assert message(lambda: torch.randint(5, (3,), requires_grad=True)) == (
        "RuntimeError: Only Tensors of floating point and complex dtype can require gradients")
    assert message(lambda: torch.randint(5)).startswith(
        "TypeError: randint() received an invalid combination of arguments - got (int), but expected one of:\n"
        " * (int high, tuple of ints size, *, torch.Generator generator, Tensor out = None, torch.dtype dtype = None, "
        "torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n")


# --------------------------------------------------------------------------- tensors like others, random fills
def test_new_tensors_take_this_tensors_dtype():
    x = sample_leaf()
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


@pytest.mark.parametrize("make, expected", [   # PyTorch 2.13 (uint8 full_like -9: the recorded OpInfo sample 7)
    (lambda: torch.full_like(torch.tensor([5, 1, 6], dtype=torch.uint8), -9), [247, 247, 247]),
    (lambda: torch.full_like(torch.tensor([5], dtype=torch.uint8), -255), [1]),
    (lambda: torch.full((2,), -1, dtype=torch.uint8), [255, 255]),
    (lambda: torch.full((1,), 2.5, dtype=torch.uint8), [2]),
    (lambda: torch.full((1,), -1, dtype=torch.bool), [True]),
])
def test_a_fill_value_is_converted_to_the_dtype_as_pytorch_converts_a_number(make, expected):
    out = make()
    assert out.tolist() == expected and type(expected[0]) is type(out.tolist()[0])


@pytest.mark.parametrize("make, text", [   # PyTorch 2.13's texts
    (lambda: torch.full_like(torch.tensor([5], dtype=torch.uint8), -256), "uint8_t"),
    (lambda: torch.full_like(torch.tensor([5], dtype=torch.uint8), 256), "uint8_t"),
    (lambda: torch.full((1,), -2.5, dtype=torch.uint8), "uint8_t"),
    (lambda: torch.full((1,), 2 ** 31, dtype=torch.int32), "int"),
    (lambda: torch.full((1,), 2 ** 63, dtype=torch.int64), "int64_t"),
    (lambda: torch.full((1,), 1e10, dtype=torch.float16), "c10::Half"),
])
def test_a_fill_value_out_of_the_dtypes_range_is_pytorchs_error(make, text):
    assert message(make) == f"RuntimeError: value cannot be converted to type {text} without overflow"
