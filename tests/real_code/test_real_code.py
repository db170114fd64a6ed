"""The API that real model code (pyGAT and scripts of its age) uses, against PyTorch 2.13.

Expected numbers, node names and error texts were produced by running the same expressions with
PyTorch 2.13 and are pasted in as literals; gradients are also checked against central differences
with ``gradcheck`` on float64 inputs drawn by hypothesis.
"""
from __future__ import annotations

import io
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as torch
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd import Variable, gradcheck

FEW = settings(max_examples=8, deadline=None)

X = [[1.5, -2.0, 0.5], [-0.25, 3.0, -1.0]]
V = [[1.0, 2.0, -1.0], [0.5, -3.0, 2.0]]


def run(f, upstream=V):
    """``f(x)`` on X (float64), backpropagated with ``upstream``: (values, x.grad, node name)."""
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    y = f(x)
    y.backward(torch.tensor(upstream, dtype=torch.float64) if upstream is not None else None)
    return y.detach().tolist(), x.grad.tolist(), y.grad_fn.name()


def away_from_zero(shape=(2, 3)):
    """float64 arrays whose entries stay away from 0 (the kink of leaky_relu and elu)."""
    values = st.floats(0.1, 3.0) | st.floats(-3.0, -0.1)
    return hnp.arrays(np.float64, shape, elements=values)


def leaf(array) -> torch.Tensor:
    return torch.tensor(array, requires_grad=True)


# --------------------------------------------------------------------------- Variable
def test_variable_returns_a_new_tensor_sharing_data_detached_with_requires_grad_as_asked():
    x = torch.ones(2)
    v = Variable(x)
    assert type(v) is torch.Tensor and v is not x and not v.requires_grad
    x.add_(1)
    assert v.tolist() == [2.0, 2.0] and v._version == 1       # same data, same version counter
    w = Variable(x, requires_grad=True)
    assert w.requires_grad and w.is_leaf and not x.requires_grad
    y = torch.ones(2, requires_grad=True) * 2
    assert Variable(y).grad_fn is None and not Variable(y).requires_grad
    assert type(Variable(nn.Parameter(torch.ones(1)))) is torch.Tensor
    assert isinstance(x, Variable) and isinstance(nn.Parameter(torch.ones(1)), Variable)
    assert Variable().shape == torch.Size([0])


def test_variable_volatile_and_errors_as_pytorch():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        v = Variable(torch.ones(1), volatile=True)
    assert not v.requires_grad
    assert [str(w.message) for w in caught] == [
        "volatile was removed and now has no effect. Use `with torch.no_grad():` instead."]
    cases = [
        (lambda: Variable(3), TypeError, "Variable data has to be a tensor, but got int"),
        (lambda: Variable([1.0]), TypeError, "Variable data has to be a tensor, but got list"),
        (lambda: Variable(torch.tensor([1]), requires_grad=True), RuntimeError,
         "Only Tensors of floating point and complex dtype can require gradients"),
        (lambda: Variable(torch.ones(1), foo=1), TypeError, "'foo' is an invalid keyword argument for this function"),
        (lambda: Variable(torch.ones(1), None), TypeError, "'NoneType' object cannot be interpreted as an integer"),
    ]
    for make, error, text in cases:
        with pytest.raises(error) as info:
            make()
        assert str(info.value) == text
    with pytest.raises(ValueError, match="^Variable can't be volatile and require_grad at the same time!$"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            Variable(torch.ones(1), requires_grad=True, volatile=True)


# --------------------------------------------------------------------------- cuda
def test_cuda_is_absent_as_in_a_cpu_only_build():
    assert torch.cuda.is_available() is False and torch.cuda.device_count() == 0
    assert torch.cuda.manual_seed(1) is None and torch.cuda.manual_seed_all(1) is None
    for call, what in [(lambda: torch.ones(2).cuda(), "Tensor.cuda()"), (lambda: nn.Linear(2, 2).cuda(), "Module.cuda()"),
                       (lambda: torch.cuda.current_device(), "torch.cuda.current_device()")]:
        with pytest.raises(NotImplementedError) as info:
            call()
        assert f"CUDA is not available, so {what} cannot run" in str(info.value)
    assert torch.ones(2).is_cuda is False


# --------------------------------------------------------------------------- legacy tensor types
def test_legacy_constructors_convert_data_like_pytorch():
    f = torch.FloatTensor([1, 2])
    assert f.dtype is torch.float32 and f.tolist() == [1.0, 2.0]
    assert torch.LongTensor(range(3)).tolist() == [0, 1, 2] and torch.LongTensor(range(3)).dtype is torch.int64
    assert torch.LongTensor([1.5, 2.7]).tolist() == [1, 2]
    assert torch.LongTensor(np.array([1, 2], dtype=np.int32)).dtype is torch.int64
    assert torch.FloatTensor(np.array([1.5, 2.0])).dtype is torch.float32
    assert torch.FloatTensor((2, 3)).tolist() == [2.0, 3.0]                       # a tuple is data
    assert torch.DoubleTensor([1]).dtype is torch.float64 and torch.BoolTensor([1, 0]).tolist() == [True, False]
    assert torch.IntTensor([1]).dtype is torch.int32 and torch.ByteTensor([1]).dtype is torch.uint8
    shared = np.array([1.0, 2.0], dtype=np.float32)
    torch.FloatTensor(shared)[0] = 9.0
    assert shared[0] == 9.0                                                     # same dtype: memory shared
    assert torch.FloatTensor(2, 3).shape == torch.Size([2, 3])
    assert torch.FloatTensor(torch.Size([2, 3])).shape == torch.Size([2, 3])
    assert torch.FloatTensor(size=(4,)).shape == torch.Size([4])
    assert torch.FloatTensor().shape == torch.Size([0])


def test_legacy_types_isinstance_type_and_errors():
    assert isinstance(torch.ones(2), torch.FloatTensor) and not isinstance(torch.ones(2), torch.LongTensor)
    assert isinstance(torch.ones(2).long(), torch.LongTensor) and not isinstance(3, torch.FloatTensor)
    assert torch.FloatTensor.dtype is torch.float32
    t = torch.tensor([1, 2])
    assert t.type() == "torch.LongTensor"
    assert t.type(torch.FloatTensor).dtype is torch.float32
    assert t.type("torch.DoubleTensor").dtype is torch.float64
    with pytest.raises(ValueError, match=r"^invalid type: 'torch.Foo'$"):
        t.type("torch.Foo")
    with pytest.raises(TypeError, match=r"^new\(\): data must be a sequence \(got float\)$"):
        torch.FloatTensor(2.5)
    with pytest.raises(RuntimeError, match=r"^Trying to create tensor with negative dimension -1: \[-1\]$"):
        torch.FloatTensor(-1)
    with pytest.raises(TypeError) as info:
        torch.FloatTensor(torch.tensor([1, 2]))
    assert str(info.value) == (
        "expected TensorOptions(dtype=float, device=cpu, layout=Strided, requires_grad=false (default), "
        "pinned_memory=false (default), memory_format=(nullopt)) (got TensorOptions(dtype=long int, device=cpu, "
        "layout=Strided, requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))")
    with pytest.raises(TypeError, match=r"^new\(\) received an invalid combination of arguments - got \(list, "
                                        r"requires_grad=bool\)"):
        torch.FloatTensor([1.0], requires_grad=True)


# --------------------------------------------------------------------------- factories
def test_size_keyword_factories_and_random_like():
    assert torch.empty(size=(2, 3)).shape == torch.Size([2, 3])
    assert torch.zeros(size=(2, 3)).tolist() == [[0.0] * 3] * 2
    assert torch.ones(size=(2, 1), device="cpu").tolist() == [[1.0], [1.0]]
    assert torch.randn(size=(4,)).shape == torch.Size([4]) and torch.rand(size=[2]).shape == torch.Size([2])
    with pytest.raises(TypeError, match=r"^zeros\(\) got multiple values for argument 'size'$"):
        torch.zeros(2, size=(2,))
    r = torch.rand_like(torch.ones(500, dtype=torch.float64))
    assert r.dtype is torch.float64 and 0 <= r.min().item() and r.max().item() < 1
    assert torch.randn_like(torch.ones(3, 2)).shape == torch.Size([3, 2])
    assert torch.rand_like(torch.ones(2), requires_grad=True).requires_grad
    with pytest.raises(NotImplementedError, match="^\"normal_kernel_cpu\" not implemented for 'Long'$"):
        torch.randn_like(torch.ones(2, dtype=torch.long))
    with pytest.raises(NotImplementedError, match="^\"check_uniform_bounds\" not implemented for 'Long'$"):
        torch.rand_like(torch.ones(2, dtype=torch.long))


# --------------------------------------------------------------------------- nn.init
def test_init_distributions_have_pytorchs_bounds_and_scales():
    torch.manual_seed(0)
    w = torch.empty(200, 300)
    assert nn.init.xavier_uniform_(w, gain=1.414) is w
    bound = 1.414 * (6 / 500) ** 0.5
    assert w.abs().max().item() <= bound and w.abs().max().item() > 0.95 * bound
    nn.init.xavier_normal_(w, gain=2.0)
    assert abs(w.std().item() - 2.0 * (2 / 500) ** 0.5) < 0.005
    nn.init.kaiming_uniform_(w, a=0.2)
    gain = (2 / (1 + 0.2 ** 2)) ** 0.5
    assert w.abs().max().item() <= 3 ** 0.5 * gain / 300 ** 0.5
    nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
    assert abs(w.std().item() - 2 ** 0.5 / 200 ** 0.5) < 0.003
    nn.init.normal_(w, mean=3.0, std=0.5)
    assert abs(w.mean().item() - 3.0) < 0.01 and abs(w.std().item() - 0.5) < 0.01
    nn.init.uniform_(w, a=-1.0, b=2.0)
    assert -1.0 <= w.min().item() and w.max().item() < 2.0
    assert nn.init.constant_(torch.empty(2), 3).tolist() == [3.0, 3.0]
    assert nn.init.ones_(torch.empty(2, dtype=torch.float64)).dtype is torch.float64
    assert nn.init.eye_(torch.empty(2, 3)).tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    assert nn.init._calculate_fan_in_and_fan_out(torch.empty(4, 3, 5)) == (15, 20)


def test_init_gains_errors_and_in_place_semantics():
    gains = [nn.init.calculate_gain(n) for n in ["linear", "conv1d", "sigmoid", "tanh", "relu", "selu"]]
    assert gains == [1, 1, 1, 1.6666666666666667, 1.4142135623730951, 0.75]
    assert nn.init.calculate_gain("leaky_relu") == 1.4141428569978354
    assert nn.init.calculate_gain("leaky_relu", 0.2) == 1.3867504905630728
    for call, text in [(lambda: nn.init.xavier_uniform_(torch.empty(3)),
                        "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"),
                       (lambda: nn.init.kaiming_uniform_(torch.empty(2, 2), mode="foo"),
                        "Mode foo not supported, please use one of ['fan_in', 'fan_out']"),
                       (lambda: nn.init.kaiming_uniform_(torch.empty(2, 2), nonlinearity="foo"),
                        "Unsupported nonlinearity foo")]:
        with pytest.raises(ValueError) as info:
            call()
        assert str(info.value) == text
    with pytest.raises(NotImplementedError, match="^\"check_uniform_bounds\" not implemented for 'Long'$"):
        nn.init.xavier_uniform_(torch.empty(3, 3, dtype=torch.long))
    with pytest.warns(UserWarning, match="^Initializing zero-element tensors is a no-op$"):
        nn.init.kaiming_uniform_(torch.empty(0, 3))
    p = nn.Parameter(torch.ones(2, 2))
    nn.init.zeros_(p)                           # on a parameter directly: allowed, no graph, version bumped
    assert p.grad_fn is None and p.requires_grad and p._version == 1 and p.tolist() == [[0.0, 0.0]] * 2
    nn.init.xavier_uniform_(p.data, gain=1.414)  # pyGAT's way: through .data, which shares the memory
    assert p.abs().sum().item() > 0


# --------------------------------------------------------------------------- dropout
def test_functional_dropout_train_and_eval():
    torch.manual_seed(1)
    x = torch.ones(2000, requires_grad=True)
    y = F.dropout(x, 0.6)
    assert y.grad_fn.name() == "MulBackward0" and y.grad_fn.next_functions[1] == (None, 0)
    kept = y.detach().numpy() != 0
    assert set(np.round(y.detach().numpy(), 5)) == {0.0, 2.5}
    assert abs(kept.mean() - 0.4) < 0.05
    y.sum().backward()
    assert np.array_equal(x.grad.numpy(), y.detach().numpy())    # gradient is the same scaled mask
    assert F.dropout(x, 0.6, training=False) is x and F.dropout(x, 0.0) is x
    empty = torch.ones(0, requires_grad=True)
    assert F.dropout(empty, 0.5) is empty
    z = F.dropout(x, 1.0)
    assert z.grad_fn.name() == "MulBackward0" and z.abs().sum().item() == 0
    for p in (1.5, -0.1):
        with pytest.raises(ValueError) as info:
            F.dropout(x, p)
        assert str(info.value) == f"dropout probability has to be between 0 and 1, but got {p}"
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        F.dropout(torch.tensor([1, 2]), 0.5)


class TwoDropouts(nn.Module):
    def __init__(self):
        super().__init__()
        self.p = 0.5
        self.inner = nn.Sequential(nn.Dropout(0.5))

    def forward(self, x):
        return F.dropout(self.inner(x), self.p, training=self.training)


def test_train_and_eval_switch_dropout_in_every_sub_module():
    model = TwoDropouts()
    x = torch.ones(1000)
    assert model.training and (model(x) == 0).any().item()
    model.eval()
    assert not model.inner[0].training and model(x) is x
    model.train()
    assert model.inner[0].training and (model(x) == 0).any().item()
    assert repr(nn.Dropout(0.6)) == "Dropout(p=0.6, inplace=False)"
    assert repr(nn.Dropout(0.6, inplace=True)) == "Dropout(p=0.6, inplace=True)"
    with pytest.raises(ValueError, match="^dropout probability has to be between 0 and 1, but got 1.5$"):
        nn.Dropout(1.5)


# --------------------------------------------------------------------------- activations
def test_leaky_relu_and_elu_values_gradients_and_nodes_match_pytorch():
    assert run(lambda t: F.leaky_relu(t, 0.2)) == (
        [[1.5, -0.4, 0.5], [-0.05, 3.0, -0.2]], [[1.0, 0.4, -1.0], [0.1, -3.0, 0.4]], "LeakyReluBackward0")
    values, grad, name = run(lambda t: F.elu(t, alpha=0.5))
    assert name == "EluBackward0"
    np.testing.assert_allclose(values, [[1.5, -0.43233235838169365, 0.5], [-0.11059960846429756, 3.0,
                                                                           -0.31606027941427883]], rtol=1e-12)
    np.testing.assert_allclose(grad, [[1.0, 0.1353352832366127, -1.0], [0.19470019576785122, -3.0,
                                                                         0.36787944117144233]], rtol=1e-12)
    x = torch.tensor([1.0, -1.0], requires_grad=True)
    node = F.leaky_relu(x, 0.2).grad_fn
    assert node._saved_negative_slope == 0.2 and node._saved_self is x
    node = F.elu(x).grad_fn
    assert (node._saved_alpha, node._saved_scale, node._saved_input_scale) == (1.0, 1, 1) and node._saved_self is x
    assert F.leaky_relu(x).tolist() == pytest.approx([1.0, -0.01])
    for f, kernel in [(F.leaky_relu, "leaky_relu_cpu"), (F.elu, "elu_cpu")]:
        with pytest.raises(NotImplementedError, match=f"^\"{kernel}\" not implemented for 'Long'$"):
            f(torch.tensor([1, -1]))


@FEW
@given(away_from_zero())
def test_leaky_relu_and_elu_gradients_and_second_derivatives_match_central_differences(array):
    assert gradcheck(lambda t: F.leaky_relu(t, 0.3), (leaf(array),))
    assert gradcheck(lambda t: F.elu(t, 0.7), (leaf(array),))
    assert torch.autograd.gradgradcheck(lambda t: F.elu(t, 0.7), (leaf(array),))


def test_activation_modules_reprs_and_calls():
    model = nn.Sequential(nn.Dropout(0.5), nn.LeakyReLU(0.2), nn.ELU(), nn.Softmax(dim=1), nn.LogSoftmax(dim=1),
                          nn.Identity())
    assert repr(model) == ("Sequential(\n  (0): Dropout(p=0.5, inplace=False)\n  (1): LeakyReLU(negative_slope=0.2)\n"
                           "  (2): ELU(alpha=1.0)\n  (3): Softmax(dim=1)\n  (4): LogSoftmax(dim=1)\n  (5): Identity()\n)")
    assert repr(nn.LeakyReLU()) == "LeakyReLU(negative_slope=0.01)"
    assert repr(nn.LeakyReLU(0.2, inplace=True)) == "LeakyReLU(negative_slope=0.2, inplace=True)"
    assert repr(nn.ELU(alpha=0.5, inplace=True)) == "ELU(alpha=0.5, inplace=True)"
    assert repr(nn.Softmax()) == "Softmax(dim=None)"
    x = torch.tensor([[1.0, -2.0]])
    assert nn.Identity()(x) is x
    assert nn.ELU()(x)[0].tolist() == pytest.approx([1.0, -0.8646647167633873])
    assert nn.LogSoftmax(dim=1)(x).grad_fn is None and nn.LogSoftmax(dim=1)(x).exp().sum().item() == pytest.approx(1)


def test_softmax_without_dim_warns_like_pytorch():
    x = torch.tensor([[1.0, 2.0], [3.0, 5.0]])
    with pytest.warns(UserWarning, match=r"^Implicit dimension choice for softmax has been deprecated. Change the "
                                         r"call to include dim=X as an argument.$"):
        y = F.softmax(x)
    assert y.sum(1).tolist() == pytest.approx([1.0, 1.0])
    with pytest.warns(UserWarning, match="^Implicit dimension choice for log_softmax"):
        F.log_softmax(x)
    assert F.log_softmax(x, 1, dtype=torch.float64).dtype is torch.float64


# --------------------------------------------------------------------------- masks
def test_masked_fill_values_nodes_gradients_and_errors():
    mask = torch.tensor([[True, False, True], [False, False, True]])
    assert run(lambda t: t.masked_fill(mask, 7.0)) == (
        [[7.0, -2.0, 7.0], [-0.25, 3.0, 7.0]], [[0.0, 2.0, 0.0], [0.5, -3.0, 0.0]], "MaskedFillBackward0")
    x = torch.tensor(X, requires_grad=True)
    y = x.masked_fill(mask, 1.0)
    assert [type(n).__name__ for n, _ in y.grad_fn.next_functions] == ["AccumulateGrad"]   # no entry for the mask
    assert y.grad_fn._saved_mask.tolist() == mask.tolist()
    value = torch.tensor(2.0, requires_grad=True)
    z = torch.masked_fill(x, mask, value)
    assert z.grad_fn.name() == "MaskedFillBackward1" and len(z.grad_fn.next_functions) == 2
    z.sum().backward()
    assert value.grad.item() == 3.0 and x.grad.tolist() == [[0.0, 1.0, 0.0], [1.0, 1.0, 0.0]]
    assert x.masked_fill(torch.tensor([True, False, True]), 0.0).tolist() == [[0.0, -2.0, 0.0], [0.0, 3.0, 0.0]]
    for bad, name in [(mask.float(), "float"), (mask.long(), "long int"), (mask.double(), "double"),
                      (mask.to(torch.uint8), "unsigned char"), (mask.int(), "int")]:
        with pytest.raises(RuntimeError) as info:
            x.masked_fill(bad, 0.0)
        assert str(info.value) == f"masked_fill_ only supports boolean masks, but got mask with dtype {name}"
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(2\) must match the size of tensor b \(3\) at "
                                           r"non-singleton dimension 1$"):
        x.masked_fill(torch.tensor([True, False]), 0.0)
    with pytest.raises(RuntimeError, match=r"^masked_fill_ only supports a 0-dimensional value tensor, but got "
                                           r"tensor with 1 dimension\(s\).$"):
        x.masked_fill(mask, torch.tensor([2.0]))


def test_nonzero_isnan_isinf_isfinite():
    x = torch.tensor([[1.0, 0.0, 3.0], [0.0, 5.0, float("nan")]], requires_grad=True)
    assert x.nonzero().tolist() == [[0, 0], [0, 2], [1, 1], [1, 2]] and x.nonzero().dtype is torch.int64
    rows, cols = torch.nonzero(x, as_tuple=True)
    assert rows.tolist() == [0, 0, 1, 1] and cols.tolist() == [0, 2, 1, 2]
    assert torch.tensor(3.0).nonzero().shape == torch.Size([1, 0])
    assert [t.tolist() for t in torch.tensor(3.0).nonzero(as_tuple=True)] == [[0]]
    assert torch.tensor([True, False]).nonzero().tolist() == [[0]]
    nan = torch.isnan(x)
    assert nan.tolist() == [[False, False, False], [False, False, True]] and not nan.requires_grad
    assert nan.any().item() is True and repr(nan.any()) == "tensor(True)"
    assert torch.isnan(torch.tensor([1, 2])).tolist() == [False, False]
    assert torch.isinf(torch.tensor([1.0, float("inf")])).tolist() == [False, True]
    assert torch.isfinite(torch.tensor([1.0, float("inf"), float("nan")])).tolist() == [True, False, False]


# --------------------------------------------------------------------------- prod, var, std
def test_prod_values_gradients_and_nodes_match_pytorch():
    assert run(lambda t: t.prod(), None) == (
        -1.125, [[-0.75, 0.5625, -2.25], [4.5, -0.375, 1.125]], "ProdBackward0")
    assert run(lambda t: t.prod(1), [1.0, 1.0]) == (
        [-1.5, 0.75], [[-1.0, 0.75, -3.0], [-3.0, 0.25, -0.75]], "ProdBackward1")
    z = torch.tensor([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]], dtype=torch.float64, requires_grad=True)
    z.prod(1).sum().backward()
    assert z.grad.tolist() == [[0.0, 2.0, 0.0], [0.0, 0.0, 0.0]]
    z.grad = None
    (z.prod(0) * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum().backward()
    assert z.grad.tolist() == [[0.0, 0.0, 9.0], [1.0, 0.0, 6.0]]
    assert torch.tensor([1, 2, 3]).prod().item() == 6 and torch.tensor([1, 2, 3]).prod().dtype is torch.int64
    assert torch.prod(z, 0, keepdim=True).shape == torch.Size([1, 3])
    assert z.prod(dtype=torch.float32).dtype is torch.float32
    assert [n for n in ("_saved_self", "_saved_result") if getattr(z.prod().grad_fn, n) is not None] == [
        "_saved_self", "_saved_result"]


def test_var_and_std_values_gradients_and_nodes_match_pytorch():
    values, grad, name = run(lambda t: t.var(), None)
    assert name == "VarBackward0" and values == pytest.approx(3.210416666666667)
    np.testing.assert_allclose(grad, [[0.48333333333333334, -0.9166666666666666, 0.08333333333333333],
                                      [-0.2166666666666667, 1.0833333333333335, -0.5166666666666667]], rtol=1e-12)
    values, grad, _ = run(lambda t: t.var(0, correction=0), [1.0, 1.0, 1.0])
    np.testing.assert_allclose(values, [0.765625, 6.25, 0.5625], rtol=1e-12)
    np.testing.assert_allclose(grad, [[0.875, -2.5, 0.75], [-0.875, 2.5, -0.75]], rtol=1e-12)
    values, grad, name = run(lambda t: t.std(1, keepdim=True), [[1.0], [1.0]])
    assert name == "StdBackward0"
    np.testing.assert_allclose(values, [[1.8027756377319946], [2.126225137028846]], rtol=1e-12)
    np.testing.assert_allclose(grad, [[0.41602514716892186, -0.5547001962252291, 0.1386750490563073],
                                      [-0.19596545041740512, 0.5682998062104748, -0.3723343557930697]], rtol=1e-12)
    x = torch.tensor(X)
    assert x.var(1, False).tolist() == pytest.approx(x.var(1, unbiased=False).tolist())
    assert torch.var(x, 1).tolist() == pytest.approx([3.25, 4.520833333333334])
    assert torch.std(x).item() == pytest.approx(1.7917635632713003)
    with pytest.raises(RuntimeError, match="^std and var only support floating point and complex dtypes$"):
        torch.tensor([1, 2]).var()
    with pytest.warns(UserWarning, match=r"^var\(\): degrees of freedom is <= 0."):
        assert np.isnan(torch.tensor([1.0]).var().item())


@FEW
@given(hnp.arrays(np.float64, (3, 4), elements=st.integers(-20, 20).map(lambda k: k / 10), unique=True),
       st.sampled_from([None, 0, 1, (0, 1)]))
def test_var_std_prod_gradients_match_central_differences(array, dim):
    # distinct values 0.1 apart: std stays away from 0, where its derivative blows up
    x = leaf(array)
    assert gradcheck(lambda t: t.var(dim), (x,))
    assert gradcheck(lambda t: t.std(dim, keepdim=True) if dim is not None else t.std(), (leaf(array + 5),))
    if dim in (0, 1):
        assert gradcheck(lambda t: t.prod(dim), (x,))
    elif dim is None:
        assert gradcheck(lambda t: t.prod(), (x,))


def test_prod_refuses_a_second_derivative_it_cannot_give():
    z = torch.tensor([0.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    with pytest.raises(NotImplementedError, match="second derivative of prod"):
        torch.autograd.grad(z.prod(), z, create_graph=True)
    y = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradgradcheck(lambda t: t.prod(), (y,))


# --------------------------------------------------------------------------- narrow, split, chunk
def test_split_chunk_and_narrow_are_views_with_pytorchs_nodes():
    p = torch.tensor([[1.0, 2.0, 3.0], [4.0, 0.0, 6.0]], requires_grad=True)
    pieces = p.split(2, dim=1)
    assert type(pieces) is tuple and [t.shape for t in pieces] == [torch.Size([2, 2]), torch.Size([2, 1])]
    assert {t.grad_fn.name() for t in pieces} == {"SplitBackward0"} and pieces[0].grad_fn is pieces[1].grad_fn
    assert [t.output_nr for t in p.split(1, dim=1)] == [0, 1, 2]
    assert {t.grad_fn.name() for t in p.split([1, 2], dim=1)} == {"SplitWithSizesBackward0"}
    assert [t.tolist() for t in torch.split(p, 1)] == [[[1.0, 2.0, 3.0]], [[4.0, 0.0, 6.0]]]
    assert [t.tolist() for t in torch.arange(5.0).chunk(3)] == [[0.0, 1.0], [2.0, 3.0], [4.0]]
    assert [t.tolist() for t in torch.arange(5.0).chunk(4)] == [[0.0, 1.0], [2.0, 3.0], [4.0]]
    assert p.chunk(2, dim=1)[0].grad_fn.name() == "SplitBackward0" and len(torch.chunk(p, 3, 0)) == 2
    assert p.narrow(1, 1, 2).tolist() == [[2.0, 3.0], [0.0, 6.0]] and p.narrow(1, 1, 2).grad_fn.name() == "SliceBackward0"
    assert p.narrow(-1, -1, 1).tolist() == [[3.0], [6.0]] and torch.narrow(p, 0, 0, 1).shape == torch.Size([1, 3])
    assert p.narrow(1, torch.tensor(1), 2).shape == torch.Size([2, 2])
    base = torch.zeros(4)
    first, second = base.split(2)
    base.add_(1)
    assert first._version == 1 and first.tolist() == [1.0, 1.0]           # views share data and version
    a, b = p.split(2, dim=1)
    (a.sum() * 2).backward()                                               # b unused: its gradient is zeros
    assert p.grad.tolist() == [[2.0, 2.0, 0.0], [2.0, 2.0, 0.0]]


def test_split_chunk_narrow_errors_match_pytorch():
    p = torch.ones(2, 3)
    cases = [
        (lambda: p.split([1, 1], dim=1), RuntimeError, "split_with_sizes expects split_sizes to sum exactly to 3 "
         "(input tensor's size at dimension 1), but got split_sizes=[1, 1]"),
        (lambda: p.split(0, dim=1), RuntimeError, "split_size can only be 0 if dimension size is 0, but got "
         "dimension size of 3"),
        (lambda: p.split(-1, dim=1), RuntimeError, "split expects split_size be non-negative, but got split_size=-1"),
        (lambda: p.chunk(0), RuntimeError, "chunk expects `chunks` to be greater than 0, got: 0"),
        (lambda: torch.tensor(1.0).split(1), RuntimeError, "split expects at least a 1-dimensional tensor"),
        (lambda: torch.tensor(1.0).chunk(1), RuntimeError, "chunk expects at least a 1-dimensional tensor"),
        (lambda: p.narrow(1, 2, 2), RuntimeError, "start (2) + length (2) exceeds dimension size (3)."),
        (lambda: p.narrow(1, 5, 0), IndexError, "start out of range (expected to be in range of [-3, 3], but got 5)"),
        (lambda: p.narrow(1, 0, -1), RuntimeError, "narrow(): length must be non-negative."),
        (lambda: p.narrow(2, 0, 1), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
        (lambda: torch.tensor(1.0).narrow(0, 0, 1), RuntimeError, "narrow() cannot be applied to a 0-dim tensor."),
    ]
    for call, error, text in cases:
        with pytest.raises(error) as info:
            call()
        assert str(info.value) == text


@FEW
@given(hnp.arrays(np.float64, (5, 3), elements=st.floats(-2.0, 2.0)))
def test_split_and_narrow_gradients_match_central_differences(array):
    assert gradcheck(lambda t: t.split([2, 3])[1] * t.split(2)[0].sum(), (leaf(array),))
    assert gradcheck(lambda t: t.chunk(2, dim=1)[0].narrow(0, 1, 3), (leaf(array),))


# --------------------------------------------------------------------------- small tensor methods
def test_type_as_output_nr_cpu_and_float_conversions():
    x = torch.tensor([1.0], requires_grad=True)
    assert x.type_as(x) is x and x.float() is x and x.cpu() is x
    assert torch.tensor([1, 2]).type_as(x).tolist() == [1.0, 2.0]
    assert x.type_as(torch.tensor([1.0], dtype=torch.float64)).grad_fn.name() == "ToCopyBackward0"
    assert x.double().grad_fn.name() == "ToCopyBackward0"
    m = torch.tensor([[1.0, 3.0], [4.0, 2.0]], requires_grad=True)
    assert (m.output_nr, (m * 2).output_nr, m.max(1)[1].output_nr) == (0, 0, 0)
    with pytest.raises(AttributeError):
        m.output_nr = 1
    labels = torch.LongTensor([1, 0])
    correct = m.max(1)[1].type_as(labels).eq(labels).double().sum()
    assert correct.dtype is torch.float64 and (correct / len(labels)).item() == 1.0


def test_backward_with_inputs_accumulates_only_into_those():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    (a * b).sum().backward(inputs=[a])
    assert a.grad.tolist() == [3.0, 4.0] and b.grad is None
    (a * b).sum().backward(inputs=a)
    assert a.grad.tolist() == [6.0, 8.0] and b.grad is None
    torch.autograd.backward((a * b).sum(), inputs=[b])
    assert b.grad.tolist() == [1.0, 2.0]
    m = a * 2
    m.sum().backward(inputs=[m])
    assert m.retains_grad and m.grad.tolist() == [1.0, 1.0] and a.grad.tolist() == [6.0, 8.0]
    (a * 2).sum().backward(inputs=[b])                       # not on the path: nothing changes
    assert b.grad.tolist() == [1.0, 2.0]
    for inputs, text in [([], "`inputs` argument to `backward()` cannot be empty."),
                         ([torch.tensor([1.0])], "can't retain_grad on Tensor that has requires_grad=False"),
                         ([1], "all inputs have to be Tensors or GradientEdges, but got int")]:
        with pytest.raises(RuntimeError) as info:
            (a * b).sum().backward(inputs=inputs)
        assert str(info.value) == text


# --------------------------------------------------------------------------- nll_loss
LOG_PROBS = [[-0.3350975955161672, -3.8350975955161672, -1.3350975955161672],
             [-3.3055197049033453, -0.0555197049033454, -4.055519704903346]]
NLL_GRAD_SUM = [[0.7152682759694339, 0.021599230379269717, -0.7368675063487037],
                [-0.9633198559687086, 0.9459933827786037, 0.017326473190104986]]


@pytest.mark.parametrize("kwargs, value, grad", [
    (dict(reduction="mean"), 2.320308650209756, np.multiply(NLL_GRAD_SUM, 0.5)),
    (dict(reduction="sum"), 4.640617300419512, NLL_GRAD_SUM),
    (dict(reduction="none"), [1.3350975955161672, 3.3055197049033453], NLL_GRAD_SUM),
    (dict(weight=torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)), 1.8277031228629617,
     [[0.5364512069770754, 0.016199422784452286, -0.5526506297615278],
      [-0.24082996399217715, 0.23649834569465092, 0.0043316182975262464]]),
])
def test_nll_loss_after_log_softmax_matches_pytorch(kwargs, value, grad):
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    log_probs = F.log_softmax(x, 1)
    np.testing.assert_allclose(log_probs.tolist(), LOG_PROBS, rtol=1e-12)
    loss = F.nll_loss(log_probs, torch.tensor([2, 0]), **kwargs)
    assert loss.grad_fn.name() == "NllLossBackward0" and loss.grad_fn.next_functions == ((log_probs.grad_fn, 0),)
    loss.backward(torch.ones_like(loss))
    np.testing.assert_allclose(loss.tolist(), value, rtol=1e-12)
    np.testing.assert_allclose(x.grad.tolist(), grad, rtol=1e-9, atol=1e-15)


def test_nll_loss_module_matches_the_function():
    x = torch.tensor(X, dtype=torch.float64)
    target = torch.tensor([2, 0])
    assert repr(nn.NLLLoss()) == "NLLLoss()"
    assert nn.NLLLoss()(F.log_softmax(x, 1), target).item() == pytest.approx(2.320308650209756)
    assert nn.NLLLoss(reduction="sum")(F.log_softmax(x, 1), target).item() == pytest.approx(4.640617300419512)


def test_nll_loss_ignore_index_one_sample_and_errors():
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    loss = F.nll_loss(F.log_softmax(x, 1), torch.tensor([2, -100]))
    loss.backward()
    assert loss.item() == pytest.approx(1.3350975955161672) and x.grad[1].tolist() == [0.0, 0.0, 0.0]
    assert F.nll_loss(torch.tensor([-1.0, -2.0], requires_grad=True), torch.tensor(1)).item() == 2.0
    lp = F.log_softmax(x, 1)
    for target, error, text in [
        (torch.tensor([0.0, 2.0]), RuntimeError, "expected target dtype to be Long or Byte, but got Float"),
        (torch.tensor([0, 3]), IndexError, "Target 3 is out of bounds."),
        (torch.tensor([0, 1, 2]), ValueError, "Expected input batch_size (2) to match target batch_size (3)."),
    ]:
        with pytest.raises(error) as info:
            F.nll_loss(lp, target)
        assert str(info.value) == text


# --------------------------------------------------------------------------- state dicts, save and load
class Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Parameter(torch.ones(1))
        self.l = nn.Linear(2, 3)


def test_state_dict_is_an_ordered_dict_of_detached_tensors_and_loads_back():
    m = Small()
    sd = m.state_dict()
    assert type(sd).__name__ == "OrderedDict" and list(sd) == ["a", "l.weight", "l.bias"]
    assert type(sd["a"]) is torch.Tensor and not sd["a"].requires_grad and sd["a"] is not m.a
    result = m.load_state_dict({**sd, "a": torch.tensor([2.0], dtype=torch.float64)})
    assert repr(result) == "<All keys matched successfully>" and m.a.tolist() == [2.0]
    assert m.a.dtype is torch.float32 and m.a.requires_grad and m.a._version == 1
    partial = m.load_state_dict({"a": torch.ones(1), "z": torch.ones(1)}, strict=False)
    assert repr(partial) == "_IncompatibleKeys(missing_keys=['l.weight', 'l.bias'], unexpected_keys=['z'])"
    assert partial.missing_keys == ["l.weight", "l.bias"]


def test_load_state_dict_errors_match_pytorch():
    m = Small()
    sd = m.state_dict()
    cases = [
        ({"a": torch.ones(1)}, 'Missing key(s) in state_dict: "l.weight", "l.bias". '),
        ({**sd, "b": torch.ones(1), "c": torch.ones(1)}, 'Unexpected key(s) in state_dict: "b", "c". '),
        ({**sd, "a": torch.ones(2)}, "size mismatch for a: copying a param with shape torch.Size([2]) from "
         "checkpoint, the shape in current model is torch.Size([1])."),
        ({**sd, "a": 3}, "While copying the parameter named \"a\", expected torch.Tensor or Tensor-like object from "
         "checkpoint but received <class 'int'>"),
    ]
    for state, text in cases:
        with pytest.raises(RuntimeError) as info:
            m.load_state_dict(state)
        assert str(info.value) == "Error(s) in loading state_dict for Small:\n\t" + text
    with pytest.raises(TypeError, match=r"^Expected state_dict to be dict-like, got <class 'list'>.$"):
        m.load_state_dict([1])


def test_save_and_load_round_trips_tensors_parameters_and_state_dicts(tmp_path):
    m = Small()
    path = tmp_path / "0.pkl"
    torch.save(m.state_dict(), str(path))
    loaded = torch.load(str(path))
    assert list(loaded) == ["a", "l.weight", "l.bias"] and type(loaded).__name__ == "OrderedDict"
    assert all(torch.equal(loaded[k], v) for k, v in m.state_dict().items())
    other = Small()
    other.load_state_dict(torch.load(path))
    assert torch.equal(other.l.weight, m.l.weight)
    x = torch.ones(2, requires_grad=True)
    assert repr(pickle.loads(pickle.dumps(x * 2))) == "tensor([2., 2.], requires_grad=True)"   # as a leaf
    p = pickle.loads(pickle.dumps(nn.Parameter(torch.ones(1))))
    assert type(p) is nn.Parameter and p.requires_grad
    y = torch.arange(6).view(2, 3).t()                                  # non-contiguous, int64
    buffer = io.BytesIO()
    torch.save([y, y, {"n": 3, "s": "x"}], buffer)
    buffer.seek(0)
    first, second, rest = torch.load(buffer)
    assert first is second and first.tolist() == y.tolist() and first.dtype is torch.int64 and rest == {"n": 3, "s": "x"}


class NotAWeight:
    pass


def test_load_refuses_other_objects_unless_weights_only_is_false():
    buffer = io.BytesIO()
    torch.save({"f": NotAWeight()}, buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError) as info:
        torch.load(buffer)
    assert str(info.value).startswith("Weights only load failed. This file can still be loaded")
    assert f"Unsupported global: GLOBAL {__name__}.NotAWeight was not an allowed global by default." in str(info.value)
    buffer.seek(0)
    assert type(torch.load(buffer, weights_only=False)["f"]) is NotAWeight


def test_module_dtype_and_device_moves():
    m = Small()
    weight = m.l.weight
    assert m.double() is m and m.l.weight is weight and weight.dtype is torch.float64
    assert m.float().a.dtype is torch.float32 and m.to(torch.float64).a.dtype is torch.float64
    assert m.cpu() is m and m.to("cpu") is m
    visited = []
    m.apply(lambda module: visited.append(type(module).__name__))
    assert visited == ["Linear", "Small"]


# --------------------------------------------------------------------------- a GAT-shaped model
class AttentionHead(nn.Module):
    """One graph-attention head written for this test: scores on the edges, softmax per row."""

    def __init__(self, n_in, n_out, dropout, slope, sparse):
        super().__init__()
        self.sparse = sparse
        self.W = nn.Parameter(torch.empty(size=(n_in, n_out)))
        nn.init.xavier_uniform_(self.W.data, gain=1.414)
        self.a = nn.Parameter(torch.zeros(size=(2 * n_out, 1)))
        nn.init.xavier_normal_(self.a.data, gain=1.414)
        self.act = nn.LeakyReLU(slope)
        self.drop = nn.Dropout(dropout)

    def forward(self, h, adj):
        Wh = torch.mm(h, self.W)
        n_out = self.W.shape[1]
        if not self.sparse:
            scores = self.act(Wh.matmul(self.a[:n_out]) + Wh.matmul(self.a[n_out:]).T)
            scores = scores.masked_fill(adj == 0, -9e15)
            attention = self.drop(F.softmax(scores, dim=1))
            return F.elu(attention.matmul(Wh))
        edge = adj.nonzero().t()
        pairs = torch.cat((Wh[edge[0, :], :], Wh[edge[1, :], :]), dim=1)
        weights = torch.exp(-self.act(pairs.mm(self.a).squeeze()))
        assert not torch.isnan(weights).any()
        n = adj.shape[0]
        a = torch.sparse_coo_tensor(edge, weights, torch.Size([n, n]))
        rowsum = torch.matmul(a, torch.ones(size=(n, 1)))
        b = torch.sparse_coo_tensor(edge, self.drop(weights), torch.Size([n, n]))
        return F.elu(torch.matmul(b, Wh).div(rowsum))


class TinyGAT(nn.Module):
    def __init__(self, n_in, n_hidden, n_class, heads, sparse):
        super().__init__()
        self.heads = [AttentionHead(n_in, n_hidden, 0.3, 0.2, sparse) for _ in range(heads)]
        for i, head in enumerate(self.heads):
            self.add_module(f"head_{i}", head)
        self.out = nn.Linear(n_hidden * heads, n_class)

    def forward(self, x, adj):
        x = F.dropout(x, 0.3, training=self.training)
        x = torch.cat([head(x, adj) for head in self.heads], dim=1)
        return F.log_softmax(self.out(x), dim=1)


def accuracy(output, labels):
    preds = output.max(1)[1].type_as(labels)
    return preds.eq(labels).double().sum() / len(labels)


@pytest.mark.parametrize("sparse", [False, True])
def test_a_tiny_gat_trains_saves_and_restores_through_the_real_code_api(sparse, tmp_path):
    torch.manual_seed(3)
    rng = np.random.default_rng(3)
    n, classes = 24, 3
    labels_np = np.arange(n) % classes
    adj_np = (rng.random((n, n)) < 0.1) | (labels_np[:, None] == labels_np[None, :]) & (rng.random((n, n)) < 0.4)
    adj_np = (adj_np | adj_np.T | np.eye(n, dtype=bool)).astype(np.float32)
    features_np = rng.random((n, 6)).astype(np.float32) + np.eye(classes, 6)[labels_np]
    adj, features = Variable(torch.FloatTensor(adj_np)), Variable(torch.FloatTensor(features_np))
    labels, idx_train = Variable(torch.LongTensor(labels_np)), torch.LongTensor(range(12))
    model = TinyGAT(6, 4, classes, heads=2, sparse=sparse)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05, weight_decay=5e-4)
    losses = []
    for epoch in range(60):
        model.train()
        optimizer.zero_grad()
        output = model(features, adj)
        loss = F.nll_loss(output[idx_train], labels[idx_train])
        loss.backward()
        optimizer.step()
        losses.append(loss.data.item())
    assert losses[-1] < 0.6 * losses[0]
    assert all(p.grad is not None for p in model.parameters())
    model.eval()
    first = model(features, adj)
    assert torch.equal(first, model(features, adj))                    # eval mode: no dropout, same output
    assert accuracy(first, labels).item() > 0.6
    torch.save(model.state_dict(), str(tmp_path / "best.pkl"))
    fresh = TinyGAT(6, 4, classes, heads=2, sparse=sparse).eval()
    assert not torch.allclose(fresh(features, adj), first)
    fresh.load_state_dict(torch.load(str(tmp_path / "best.pkl")))
    assert torch.allclose(fresh(features, adj), first)
