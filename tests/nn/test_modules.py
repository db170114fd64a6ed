"""nn.Module, Linear, Sequential and the optimisers, against PyTorch 2.13.

The optimiser tests start from fixed weights and data; the expected numbers were produced by
running the same three steps with PyTorch and are pasted in as literals.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad as torch
import minigrad.nn as nn
import minigrad.nn.functional as F
from helpers import ROOT, SAMPLE_ROWS, message


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(3, 4)
        self.act = nn.ReLU()
        self.out = nn.Linear(4, 1, bias=False)
        self.scale = nn.Parameter(torch.ones(1))
        self.plain = torch.ones(2)        # a plain tensor is not a parameter

    def forward(self, x):
        return self.out(self.act(self.hidden(x))) * self.scale


# --------------------------------------------------------------------------- Module
def test_module_registers_parameters_and_sub_modules_set_on_self():
    net = Net()
    assert [name for name, _ in net.named_parameters()] == ["scale", "hidden.weight", "hidden.bias", "out.weight"]
    assert list(net.parameters())[1] is net.hidden.weight
    assert [type(m).__name__ for m in net.children()] == ["Linear", "ReLU", "Linear"]
    assert isinstance(net.plain, torch.Tensor) and not isinstance(net.plain, nn.Parameter)
    assert net.out.bias is None


def test_module_repr_matches_pytorch():
    assert repr(Net()) == (
        "Net(\n"
        "  (hidden): Linear(in_features=3, out_features=4, bias=True)\n"
        "  (act): ReLU()\n"
        "  (out): Linear(in_features=4, out_features=1, bias=False)\n"
        ")")
    assert repr(nn.Linear(5, 3)) == "Linear(in_features=5, out_features=3, bias=True)"
    assert repr(nn.ReLU()) == "ReLU()" and repr(nn.Sequential()) == "Sequential()"

    class Empty(nn.Module):
        def forward(self, x):
            return x
    assert repr(Empty()) == "Empty()"

    class Nested(nn.Module):
        def __init__(self):
            super().__init__()
            self.block = nn.Sequential(nn.Linear(1, 1), nn.Sequential(nn.ReLU()))
    assert repr(Nested()) == (
        "Nested(\n"
        "  (block): Sequential(\n"
        "    (0): Linear(in_features=1, out_features=1, bias=True)\n"
        "    (1): Sequential(\n"
        "      (0): ReLU()\n"
        "    )\n"
        "  )\n"
        ")")
    assert [name for name, _ in Nested().named_parameters()] == ["block.0.weight", "block.0.bias"]


def test_sequential_names_and_calls_its_modules_in_order():
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert [name for name, _ in seq.named_parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert repr(seq) == ("Sequential(\n"
                         "  (0): Linear(in_features=2, out_features=3, bias=True)\n"
                         "  (1): ReLU()\n"
                         "  (2): Linear(in_features=3, out_features=1, bias=True)\n"
                         ")")
    assert isinstance(seq[1], nn.ReLU) and len(seq) == 3
    y = seq(torch.ones(4, 2))
    assert y.shape == torch.Size([4, 1])
    assert type(y.grad_fn).__name__ == "AddmmBackward0"
    assert type(y.grad_fn.next_functions[1][0]).__name__ == "ReluBackward0"


def test_calling_a_module_runs_forward():
    class Scale(nn.Module):
        def __init__(self):
            super().__init__()
            self.factor = nn.Parameter(torch.tensor(2.0))

        def forward(self, x):
            return self.factor * x

    model = Scale()
    assert model(torch.tensor(3.0)).item() == 6.0
    assert model.forward(torch.tensor(3.0)).item() == 6.0


def test_self_versus_ctx_linear_module_from_the_seed_article():
    class LinearModule(nn.Module):
        def __init__(self, in_features, out_features):
            super(LinearModule, self).__init__()
            self.linear = nn.Linear(in_features, out_features)

        def forward(self, x):
            return self.linear(x)

    model = LinearModule(5, 3)
    output = model.forward(torch.randn(2, 5))
    assert output.shape == torch.Size([2, 3])
    assert [name for name, _ in model.named_parameters()] == ["linear.weight", "linear.bias"]


def test_train_and_eval_reach_every_sub_module():
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
    assert seq.training and seq[0].training
    assert seq.eval() is seq
    assert not seq.training and not seq[0].training and not seq[1].training
    seq.train()
    assert seq[1].training


def test_parameters_are_leaf_tensors_that_require_grad():
    layer = nn.Linear(3, 2)
    assert type(layer.weight).__name__ == "Parameter" and isinstance(layer.weight, torch.Tensor)
    assert layer.weight.is_leaf and layer.weight.requires_grad
    assert layer.weight.shape == torch.Size([2, 3]) and layer.bias.shape == torch.Size([2])
    assert not nn.Parameter(torch.ones(2), requires_grad=False).requires_grad


def test_module_zero_grad_sets_gradients_to_none():
    net = Net()
    net(torch.ones(2, 3)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


# --------------------------------------------------------------------------- Linear
def test_linear_init_is_uniform_within_one_over_sqrt_fan_in():
    layer = nn.Linear(16, 64)
    bound = 1 / math.sqrt(16)
    weight, bias = layer.weight.detach().numpy(), layer.bias.detach().numpy()
    assert np.all(np.abs(weight) <= bound) and np.all(np.abs(bias) <= bound)
    assert weight.std() > bound / 4                        # spread out, not a constant
    assert weight.min() < -bound / 2 and weight.max() > bound / 2
    assert layer.weight.dtype is torch.float32
    assert np.unique(weight).size == weight.size


def test_linear_computes_x_times_weight_transposed_plus_bias():
    layer = nn.Linear(3, 2)
    x = torch.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 1.0]])
    expected = x.numpy() @ layer.weight.detach().numpy().T + layer.bias.detach().numpy()
    np.testing.assert_allclose(layer(x).detach().numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(layer(x[0]).detach().numpy(), expected[0], rtol=1e-6)


def names(node):
    return [(None if n is None else n.name(), i) for n, i in node.next_functions]


def test_linear_output_node_is_addmm_with_the_same_edges_as_pytorch():
    layer = nn.Linear(3, 2)
    x = torch.ones(4, 3, requires_grad=True)
    y = layer(x)
    node = y.grad_fn
    assert node.name() == "AddmmBackward0"
    assert names(node) == [("torch::autograd::AccumulateGrad", 0), ("torch::autograd::AccumulateGrad", 0),
                           ("TBackward0", 0)]
    assert node.next_functions[0][0].variable is layer.bias
    assert node.next_functions[1][0].variable is x
    transpose = node.next_functions[2][0]
    assert names(transpose) == [("torch::autograd::AccumulateGrad", 0)]
    assert transpose.next_functions[0][0].variable is layer.weight
    assert names(layer(torch.ones(4, 3)).grad_fn) == [("torch::autograd::AccumulateGrad", 0), (None, 0),
                                                      ("TBackward0", 0)]
    no_bias = nn.Linear(3, 2, bias=False)(torch.ones(4, 3))
    assert no_bias.grad_fn.name() == "MmBackward0" and names(no_bias.grad_fn) == [(None, 0), ("TBackward0", 0)]
    one_vector = layer(torch.ones(3))
    assert one_vector.grad_fn.name() == "ViewBackward0"
    assert names(one_vector.grad_fn) == [("AddmmBackward0", 0)]


def test_linear_gradients():
    layer = nn.Linear(3, 2)
    x = torch.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 1.0]])
    layer(x).sum().backward()
    np.testing.assert_allclose(layer.weight.grad.numpy(), [[1.0, 1.0, 4.0], [1.0, 1.0, 4.0]])
    np.testing.assert_allclose(layer.bias.grad.numpy(), [2.0, 2.0])


# --------------------------------------------------------------------------- optimisers
W0 = [[0.5, -0.25, 0.125], [-0.75, 0.3, 0.2]]
B0 = [0.1, -0.2]
X = [[1.0, 2.0, -1.0], [0.5, -1.5, 2.0], [-2.0, 0.25, 1.0], [1.5, 1.0, 0.5]]
TARGET = [[1.0, 0.0], [0.0, 1.0], [0.5, -0.5], [-1.0, 2.0]]


def three_steps(make_optimizer):
    layer = nn.Linear(3, 2)
    with torch.no_grad():
        layer.weight.copy_(torch.tensor(W0))
        layer.bias.copy_(torch.tensor(B0))
    optimizer = make_optimizer(layer.parameters())
    losses = []
    for _ in range(3):
        optimizer.zero_grad()
        loss = F.mse_loss(layer(torch.tensor(X)), torch.tensor(TARGET))
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return layer.weight.detach().numpy(), layer.bias.detach().numpy(), losses


# (weight, bias, losses) after three steps, from PyTorch 2.13
EXPECTED = {
    "SGD": ([[0.2009362429380417, -0.11344397068023682, -0.02612115815281868],
             [-0.141660675406456, 0.33673498034477234, 0.34787067770957947]],
            [0.093258336186409, -0.02377554215490818],
            [2.794804573059082, 1.9739208221435547, 1.4298901557922363]),
    "SGD momentum": ([[-0.07086817175149918, 0.011577148921787739, -0.1651439070701599],
                      [0.4176102578639984, 0.3766448199748993, 0.47992634773254395]],
                     [0.08440510183572769, 0.1408804953098297],
                     [2.794804573059082, 1.9739208221435547, 0.9604706764221191]),
    "Adam": ([[0.4700109660625458, -0.22003993391990662, 0.09505856782197952],
              [-0.7200096845626831, 0.3299107551574707, 0.22998379170894623]],
             [0.07052929699420929, -0.1700344830751419],
             [2.794804573059082, 2.7314422130584717, 2.6696012020111084]),
    "Adam betas": ([[0.3503633737564087, -0.10214178264141083, -0.021593589335680008],
                    [-0.6003236174583435, 0.44298428297042847, 0.3493843972682953]],
                   [0.025108709931373596, -0.051647718995809555],
                   [2.794804573059082, 2.4927735328674316, 2.2276082038879395]),
}
OPTIMIZERS = {
    "SGD": lambda p: torch.optim.SGD(p, lr=0.1),
    "SGD momentum": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
    "Adam": lambda p: torch.optim.Adam(p, lr=0.01),
    "Adam betas": lambda p: torch.optim.Adam(p, lr=0.05, betas=(0.8, 0.9)),
}


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_optimizer_steps_match_pytorch(name):
    weight, bias, losses = three_steps(OPTIMIZERS[name])
    expected_weight, expected_bias, expected_losses = EXPECTED[name]
    np.testing.assert_allclose(weight, expected_weight, atol=1e-6)
    np.testing.assert_allclose(bias, expected_bias, atol=1e-6)
    np.testing.assert_allclose(losses, expected_losses, rtol=1e-6)


def test_optimizer_updates_parameters_in_place_and_zero_grad_forgets_gradients():
    w = nn.Parameter(torch.tensor([1.0, 2.0]))
    optimizer = torch.optim.SGD([w], lr=0.5)
    (w * w).sum().backward()
    optimizer.step()
    assert w.tolist() == [0.0, 0.0] and w.is_leaf and w._version == 1
    optimizer.zero_grad()
    assert w.grad is None
    (w + 1).sum().backward()
    optimizer.zero_grad(set_to_none=False)
    assert w.grad.tolist() == [0.0, 0.0]


def test_optimizer_skips_parameters_without_a_gradient():
    used, unused = nn.Parameter(torch.tensor([1.0])), nn.Parameter(torch.tensor([5.0]))
    optimizer = torch.optim.Adam([used, unused], lr=0.1)
    (used * 2).sum().backward()
    optimizer.step()
    assert unused.tolist() == [5.0] and used.item() == pytest.approx(0.9)


def test_optimizer_refuses_an_empty_parameter_list():
    with pytest.raises(ValueError, match="^optimizer got an empty parameter list$"):
        torch.optim.SGD([], lr=0.1)


def test_a_parameter_or_module_replaces_an_ordinary_attribute_of_the_same_name():
    """As PyTorch's Module.__setattr__ (checked on 2.13): the ordinary attribute would hide the registered one."""
    class Cache(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.cached = None
            self.factor = torch.nn.Parameter(torch.ones(1))
            self.cached = self.factor
            self.sub = 3
            self.sub = torch.nn.Linear(1, 1)
    m = Cache()
    assert m.cached is m.factor and isinstance(m.sub, torch.nn.Linear)
    assert "cached" not in vars(m) and "sub" not in vars(m)
    assert [name for name, _ in m.named_parameters()] == ["factor", "sub.weight", "sub.bias"]


# ------------------------------------------------------------------ register_buffer
class WithBuffers(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(2, 2)
        self.register_buffer("running", torch.zeros(2))
        self.register_buffer("scratch", torch.ones(1), persistent=False)
        self.w = torch.nn.Parameter(torch.ones(1))


def test_buffers_are_state_but_not_parameters():
    m = WithBuffers()
    assert list(m.state_dict()) == ["w", "running", "lin.weight", "lin.bias"]   # PyTorch 2.13's order
    assert [n for n, _ in m.named_buffers()] == ["running", "scratch"]
    assert [n for n, _ in m.named_parameters()] == ["w", "lin.weight", "lin.bias"]
    m.running = torch.ones(2)
    assert m.state_dict()["running"].tolist() == [1.0, 1.0]
    m.double()
    assert m.running.dtype is torch.float64 and m.scratch.dtype is torch.float64
    m.load_state_dict({**m.state_dict(), "running": torch.full((2,), 3.0)})
    assert m.running.tolist() == [3.0, 3.0]
    del m.running
    assert list(m.state_dict()) == ["w", "lin.weight", "lin.bias"]
    assert sorted(vars(torch.nn.Linear(1, 1))) == ["_modules", "_parameters", "in_features", "out_features", "training"]


@pytest.mark.parametrize("call, expected", [
    (lambda m: m.register_buffer(1, torch.ones(1)), "TypeError: buffer name should be a string. Got int"),
    (lambda m: m.register_buffer("a.b", torch.ones(1)), "KeyError: 'buffer name can\\'t contain \".\"'"),
    (lambda m: m.register_buffer("", torch.ones(1)), "KeyError: 'buffer name can\\'t be empty string \"\"'"),
    (lambda m: m.register_buffer("training", torch.ones(1)), "KeyError: \"attribute 'training' already exists\""),
    (lambda m: m.register_buffer("x", 3),
     "TypeError: cannot assign 'int' object to buffer 'x' (torch Tensor or None required)"),
    (lambda m: (m.register_buffer("x", torch.ones(1)), setattr(m, "x", 3)),
     "TypeError: cannot assign 'int' as buffer 'x' (torch.nn.Buffer, torch.Tensor or None expected)"),
    (lambda m: (m.register_buffer("x", torch.ones(1)), m.register_parameter("x", torch.nn.Parameter(torch.ones(1)))),
     "KeyError: \"attribute 'x' already exists\""),
])
def test_register_buffer_refuses_as_pytorch(call, expected):
    assert message(lambda: call(torch.nn.Module())) == expected


def test_module_train_mode_must_be_a_bool():
    layer = torch.nn.Linear(2, 2)
    for mode in ("invalid", 0):
        assert message(lambda: layer.train(mode)) == "ValueError: training mode is expected to be boolean"
    assert layer.training is True


def test_a_module_or_parameter_met_twice_is_listed_once_unless_asked():
    layer = torch.nn.Linear(2, 2)
    twice = torch.nn.Sequential(layer, layer)
    assert [n for n, _ in twice.named_parameters()] == ["0.weight", "0.bias"]
    assert [n for n, _ in twice.named_parameters(remove_duplicate=False)] == ["0.weight", "0.bias", "1.weight", "1.bias"]
    assert len(list(twice.children())) == 1 and len(list(twice.named_children())) == 1
    assert [n for n, _ in twice.named_modules()] == ["", "0"] and len(list(twice.modules())) == 2
    assert [n for n, _ in twice.named_modules(remove_duplicate=False)] == ["", "0", "1"]
    a, b = torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)
    b.weight = a.weight   # tied weights
    tied = torch.nn.Sequential(a, b)
    assert len(list(tied.parameters())) == 3
    assert [n for n, _ in tied.named_parameters(remove_duplicate=False)] == ["0.weight", "0.bias", "1.weight", "1.bias"]


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
    w = torch.tensor(SAMPLE_ROWS + [[0.5, 0.5, 0.5]], requires_grad=True)
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
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    assert not any(isinstance(m, (nn.Conv2d, nn.BatchNorm2d)) for m in model.modules())
    assert issubclass(nn.Conv2d, nn.Module)
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## What minigrad covers, and differences from PyTorch")[1].split("\n## ")[0]
    for layer in ["nn.Conv1d/2d/3d", "nn.MaxPool1d/2d/3d", "nn.BatchNorm1d/2d/3d", "`conv2d`", "`max_pool*d`",
                  "`batch_norm`"]:
        assert layer in section, layer
