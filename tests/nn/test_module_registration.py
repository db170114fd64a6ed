"""Module attribute assignment, add_module, register_parameter, nn.Buffer, and Sequential changed like
a list, as PyTorch 2.13 behaves (error texts observed on it)."""
from collections import OrderedDict

import pytest

import minigrad as torch
from minigrad import nn
from helpers import message


# ------------------------------------------------------------------ a parameter only takes a Parameter
def test_a_tensor_assigned_over_a_parameter_is_refused_so_that_an_optimizer_trains_what_forward_uses():
    l1, l2 = nn.Linear(2, 2), nn.Linear(2, 2)
    assert message(lambda: setattr(l2, "weight", l1.weight + 2)) == (
        "TypeError: cannot assign 'torch.FloatTensor' as parameter 'weight' (torch.nn.Parameter or None expected)")
    assert message(lambda: setattr(l2, "bias", 3)) == (
        "TypeError: cannot assign 'int' as parameter 'bias' (torch.nn.Parameter or None expected)")
    weight = nn.Parameter(torch.ones(2, 2))
    l2.weight = weight
    assert l2.weight is weight and list(l2.parameters())[0] is weight
    l2.weight = None
    assert l2.weight is None and [name for name, _ in l2.named_parameters()] == ["bias"]


def test_a_child_module_only_takes_a_module():
    m = nn.Module()
    m.lin = nn.Linear(1, 1)
    assert message(lambda: setattr(m, "lin", 3)) == (
        "TypeError: cannot assign 'int' as child module 'lin' (torch.nn.Module or None expected)")
    assert message(lambda: setattr(m, "lin", torch.ones(1))) == (
        "TypeError: cannot assign 'torch.FloatTensor' as child module 'lin' (torch.nn.Module or None expected)")
    m.lin = None
    assert m._modules == {"lin": None}


@pytest.mark.parametrize("name, module, expected", [
    ("", nn.ReLU(), "KeyError: 'module name can\\'t be empty string \"\"'"),
    ("a.b", nn.ReLU(), "KeyError: 'module name can\\'t contain \".\", got: a.b'"),
    ("weight", nn.ReLU(), "KeyError: \"attribute 'weight' already exists\""),
    ("training", nn.ReLU(), "KeyError: \"attribute 'training' already exists\""),
    ("in_features", nn.ReLU(), "KeyError: \"attribute 'in_features' already exists\""),
    (3, nn.ReLU(), "TypeError: module name should be a string. Got int"),
    ("x", 3, "TypeError: int is not a Module subclass"),
])
def test_add_module_refusals(name, module, expected):
    assert message(lambda: nn.Linear(2, 2).add_module(name, module)) == expected


@pytest.mark.parametrize("name, param, expected", [
    (1, nn.Parameter(torch.ones(1)), "TypeError: parameter name should be a string. Got int"),
    ("", nn.Parameter(torch.ones(1)), "KeyError: 'parameter name can\\'t be empty string \"\"'"),
    ("a.b", nn.Parameter(torch.ones(1)), "KeyError: 'parameter name can\\'t contain \".\"'"),
    ("in_features", nn.Parameter(torch.ones(1)), "KeyError: \"attribute 'in_features' already exists\""),
    ("q", torch.ones(1), "TypeError: cannot assign 'torch.FloatTensor' object to parameter 'q' (torch.nn.Parameter "
                         "or None required)"),
    ("q", 3, "TypeError: cannot assign 'int' object to parameter 'q' (torch.nn.Parameter or None required)"),
])
def test_register_parameter_refusals(name, param, expected):
    assert message(lambda: nn.Linear(2, 2).register_parameter(name, param)) == expected


def test_add_module_and_register_parameter_accept_none():
    m = nn.Linear(2, 2)
    m.add_module("extra", None)
    m.register_parameter("scale", None)
    assert m._modules["extra"] is None and m._parameters["scale"] is None


# ------------------------------------------------------------------ nn.Buffer
def test_a_buffer_is_the_detached_tensor_itself_marked():
    b = nn.Buffer(torch.ones(2))
    assert type(b) is torch.Tensor and isinstance(b, nn.Buffer) and not isinstance(torch.ones(2), nn.Buffer)
    m = nn.Module()
    m.b = b
    m.c = nn.Buffer(torch.zeros(1), persistent=False)
    assert m.b is b and list(m.state_dict()) == ["b"] and [name for name, _ in m.named_buffers()] == ["b", "c"]
    m.b = torch.zeros(3)            # a buffer takes any tensor, or None
    assert m.b.tolist() == [0.0, 0.0, 0.0]
    assert message(lambda: setattr(m, "b", 3)) == (
        "TypeError: cannot assign 'int' as buffer 'b' (torch.nn.Buffer, torch.Tensor or None expected)")
    m.b = None
    assert [name for name, _ in m.named_buffers()] == ["c"]


def test_buffer_construction():
    assert nn.Buffer(torch.ones(2, requires_grad=True)).requires_grad
    assert nn.Buffer().shape == (0,)
    assert message(lambda: nn.Buffer([1, 2])) == "AttributeError: 'list' object has no attribute 'detach'"
    leaf = torch.ones(2, requires_grad=True)
    assert nn.Buffer(leaf * 2).grad_fn is None


def test_register_buffer_keeps_its_own_persistent_flag_and_a_buffer_does_not_replace_a_parameter():
    m = nn.Module()
    m.register_buffer("d", nn.Buffer(torch.ones(1), persistent=False))
    assert list(m.state_dict()) == ["d"]
    m.p = nn.Parameter(torch.ones(1))
    assert message(lambda: setattr(m, "p", nn.Buffer(torch.ones(1)))) == (
        "TypeError: cannot assign 'torch.FloatTensor' as parameter 'p' (torch.nn.Parameter or None expected)")


# ------------------------------------------------------------------ Sequential changed like a list
def layers():
    return nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))


def kinds(sequential) -> list:
    return [(name, type(module).__name__) for name, module in sequential._modules.items()]


def test_item_assignment_and_deletion_renumber():
    s = layers()
    s[0] = nn.Linear(2, 4)
    s[-1] = nn.Tanh()
    assert kinds(s) == [("0", "Linear"), ("1", "ReLU"), ("2", "Tanh")] and s[0].out_features == 4
    assert message(lambda: s.__setitem__(5, nn.Tanh())) == "IndexError: index 5 is out of range"
    assert message(lambda: s.__setitem__(0, 3)) == (
        "TypeError: cannot assign 'int' as child module '0' (torch.nn.Module or None expected)")
    del s[1]
    assert kinds(s) == [("0", "Linear"), ("1", "Tanh")]
    s = layers()
    del s[0:2]
    assert kinds(s) == [("0", "Linear")] and [n for n, _ in s.named_parameters()] == ["0.weight", "0.bias"]


def test_slices_are_sequentials_that_keep_the_names():
    s = layers()
    assert type(s[1:]) is nn.Sequential and kinds(s[::2]) == [("0", "Linear"), ("2", "Linear")]
    assert message(lambda: s[3]) == "IndexError: index 3 is out of range"
    assert message(lambda: s["0"]) == "TypeError: 'str' object cannot be interpreted as an integer"


def test_append_insert_extend_pop():
    s = layers()
    assert s.append(nn.Sigmoid()) is s and kinds(s)[-1] == ("3", "Sigmoid")
    assert message(lambda: s.append(3)) == "TypeError: int is not a Module subclass"
    assert type(s.pop(1)).__name__ == "ReLU" and kinds(s) == [("0", "Linear"), ("1", "Linear"), ("2", "Sigmoid")]
    s.insert(1, nn.ReLU())
    s.insert(-1, nn.Tanh())
    assert [kind for _, kind in kinds(s)] == ["Linear", "ReLU", "Linear", "Tanh", "Sigmoid"]
    assert message(lambda: s.insert(10, nn.Tanh())) == "IndexError: Index out of range: 10"
    assert message(lambda: s.insert(1, 3)).startswith("AssertionError: module should be of type: <class ")
    s.extend([nn.ReLU()]).extend(nn.Sequential(nn.Tanh()))
    assert len(s) == 7 and kinds(s)[-1] == ("6", "Tanh")
    assert message(lambda: nn.Sequential().pop(0)) == "IndexError: index 0 is out of range"


def test_add_and_multiply():
    t = nn.Sequential(nn.ReLU())
    t += nn.Sequential(nn.Tanh())
    both = t + nn.Sequential(nn.Sigmoid())
    assert [kind for _, kind in kinds(both)] == ["ReLU", "Tanh", "Sigmoid"] and len(t) == 2
    assert message(lambda: t + [nn.ReLU()]) == (
        "ValueError: add operator supports only objects of Sequential class, but <class 'list'> is given.")
    assert [kind for _, kind in kinds(2 * t)] == ["ReLU", "Tanh", "ReLU", "Tanh"] == [k for _, k in kinds(t * 2)]
    t *= 2
    assert len(t) == 4 and t[2] is t[0]
    assert message(lambda: t * 0).startswith("ValueError: Non-positive multiplication factor 0 for <class ")


def test_an_ordered_dict_names_the_modules():
    q = nn.Sequential(OrderedDict([("a", nn.ReLU()), ("b", nn.Tanh())]))
    assert q.a is q[0] and kinds(q) == [("a", "ReLU"), ("b", "Tanh")]
    del q[0]
    q.append(nn.ReLU())
    assert kinds(q) == [("0", "Tanh"), ("1", "ReLU")]


def test_a_changed_sequential_computes_with_its_new_modules():
    s = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    s[1] = nn.Tanh()
    s.append(nn.Linear(2, 1))
    x = torch.tensor([[1.0, -1.0]])
    expected = s[2](s[0](x).tanh())
    assert s(x).tolist() == expected.tolist() and s(x).grad_fn.name() == "AddmmBackward0"
    assert "0" not in dir(s) and "append" in dir(s)
