"""From PyTorch's test_autograd: post-accumulate-grad hooks, increment_version, accumulating into a
.grad that someone else holds, deleting attributes of tensors and nodes; as PyTorch 2.13 behaves."""
import pytest

import minigrad as torch
from helpers import Double, message


# ------------------------------------------------------------------ post accumulate grad hooks
def test_a_post_accumulate_grad_hook_sees_the_leaf_after_each_backward():
    hits = []
    p = torch.ones(2, requires_grad=True)
    handle = p.register_post_accumulate_grad_hook(lambda t: hits.append((t is p, t.grad.tolist())))
    (p * 3).sum().backward()
    (p * 3).sum().backward()
    assert hits == [(True, [3.0, 3.0]), (True, [6.0, 6.0])]
    handle.remove()
    (p * 3).sum().backward()
    assert len(hits) == 2


def test_post_accumulate_grad_hooks_order_and_autograd_grad():
    order = []
    p = torch.ones(2, requires_grad=True)
    p.register_hook(lambda g: order.append("pre"))
    p.register_post_accumulate_grad_hook(lambda t: order.append("post"))
    (p * 1).sum().backward()
    torch.autograd.grad((p * 3).sum(), p)   # fills no .grad: no post hook
    assert order == ["pre", "post", "pre"]


def test_post_accumulate_grad_hook_refusals():
    assert message(lambda: (torch.ones(2, requires_grad=True) * 2).register_post_accumulate_grad_hook(lambda t: None)) \
        == "RuntimeError: post accumulate grad hooks cannot be registered on non-leaf tensors"
    assert message(lambda: torch.ones(2).register_post_accumulate_grad_hook(lambda t: None)) == (
        "RuntimeError: cannot register a hook on a tensor that doesn't require gradient")
    p = torch.ones(2, requires_grad=True)
    p.register_post_accumulate_grad_hook(lambda t: t * 2)
    assert message(lambda: (p * 3).sum().backward()) == "RuntimeError: Tensor post accumulate grad hooks should return None."


# ------------------------------------------------------------------ increment_version
def test_increment_version():
    a = torch.ones(2)
    torch.autograd.graph.increment_version(a)
    torch.autograd.graph.increment_version([a, a])
    assert a._version == 3
    b = torch.ones(2, requires_grad=True)
    d = (b * 1).exp()
    torch.autograd.graph.increment_version(d)
    text = message(lambda: d.sum().backward())
    assert text.startswith("RuntimeError: one of the variables needed for gradient computation has been modified by an "
                           "inplace operation: [torch.FloatTensor [2]], which is output 0 of ")
    assert "is at version 1; expected version 0 instead." in text
    assert message(lambda: torch.autograd.graph.increment_version(3)) == (
        "RuntimeError: increment_version expect a Iterable[Tensor] as input")


# ------------------------------------------------------------------ a .grad someone else holds
def test_dense_gradients_accumulate_in_place_unless_create_graph():
    for create_graph, keeps in ((False, True), (True, False)):
        params = torch.tensor([1.5, 1.5]).requires_grad_()
        params.grad = torch.tensor([1.5, 1.5])
        saved = params.grad
        params.backward(torch.tensor([1.5, 1.5]), create_graph=create_graph)
        assert (saved is params.grad) == keeps and params.grad.tolist() == [3.0, 3.0]


def test_a_grad_that_is_a_view_of_someone_elses_tensor_is_written_through():
    x = torch.ones(3, requires_grad=True)
    g = torch.ones(3)
    x.grad = g[None].expand(2, 3)[0]   # a view of an expanded tensor: numpy's view is read-only
    (x * 2).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0] and g.tolist() == [3.0, 3.0, 3.0]
    base = torch.zeros(2, 3)
    x.grad = base[0]
    (x * 2).sum().backward()
    assert base.tolist() == [[2.0, 2.0, 2.0], [0.0, 0.0, 0.0]]


def test_a_grad_that_requires_grad_is_accumulated_in_place():
    x = torch.ones(3, requires_grad=True)
    held = torch.ones(3, requires_grad=True)
    x.grad = held
    (x * 2).sum().backward()
    assert x.grad is held and held.tolist() == [3.0, 3.0, 3.0] and held.requires_grad and held.grad_fn is None


# ------------------------------------------------------------------ deleting attributes
@pytest.mark.parametrize("name, expected", [
    ("data", "RuntimeError: Deleting tensor data is not allowed. Delete tensor instead!"),
    ("requires_grad", "RuntimeError: requires_grad must be a bool"),
    ("_grad_fn", "RuntimeError: Deletion of _grad_fn not allowed. Detach tensor instead!"),
    ("_backward_hooks", "RuntimeError: Deletion of _backwards_hooks not allowed!"),
    ("grad_fn", "AttributeError: attribute 'grad_fn' of 'torch._C.TensorBase' objects is not writable"),
    ("shape", "AttributeError: attribute 'shape' of 'torch._C.TensorBase' objects is not writable"),
    ("_base", "AttributeError: attribute '_base' of 'torch._C.TensorBase' objects is not writable"),
    ("_version", "AttributeError: attribute '_version' of 'torch._C.TensorBase' objects is not writable"),
    ("name", "AttributeError: attribute 'name' of 'torch._C.TensorBase' objects is not writable"),
    ("is_cpu", "AttributeError: attribute 'is_cpu' of 'torch._C.TensorBase' objects is not writable"),
    ("foo", "AttributeError: 'Tensor' object has no attribute 'foo'"),
])
def test_deleting_attributes_of_a_tensor(name, expected):
    x = torch.ones(5, 5, requires_grad=True)
    assert message(lambda: delattr(x, name)).startswith(expected)


def test_setting_grad_fn_to_none_detaches_as_pytorch_does():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    assert y._grad_fn is y.grad_fn and y._base is None
    y._grad_fn = None
    assert (y.grad_fn, y.requires_grad, y.is_leaf) == (None, False, True)
    assert message(lambda: setattr(x * 2, "_grad_fn", y)) == "RuntimeError: _grad_fn can be only set to None"
    assert message(lambda: setattr(x * 2, "is_leaf", True)).startswith(
        "AttributeError: attribute 'is_leaf' of 'torch._C.TensorBase' objects is not writable")


@pytest.mark.parametrize("name, expected", [
    ("is_sparse", "AttributeError: attribute 'is_sparse' of 'torch._C.TensorBase' objects is not writable"),
    ("layout", "AttributeError: attribute 'layout' of 'torch._C.TensorBase' objects is not writable"),
    ("T", "AttributeError: attribute 'T' of 'torch._C.TensorBase' objects is not writable"),
])
def test_a_sparse_tensor_refuses_as_a_dense_one_does(name, expected):
    s = torch.ones(2, 2).to_sparse()
    assert message(lambda: setattr(s, name, False)).startswith(expected)
    assert message(lambda: delattr(s, name)).startswith(expected)
    assert s.is_sparse and s.layout == torch.sparse_coo and not torch.ones(2).is_sparse
    assert message(lambda: delattr(s, "data")) == "RuntimeError: Deleting tensor data is not allowed. Delete tensor instead!"


def test_a_tensor_class_stores_its_attributes_the_fast_way():
    """A __getattr__, __setattr__ or __delattr__ on a tensor or node class makes CPython 3.11 read or
    store every attribute of its instances by its slow path (CONTRIBUTING.md, "Speed")."""
    from minigrad.autograd.function import BackwardCFunction
    from minigrad.ops._util import BuiltinNode
    for cls in (torch.Tensor, torch.nn.Parameter, BackwardCFunction, BuiltinNode, type((torch.ones(1) * 1).grad_fn)):
        assert type.__getattribute__(cls, "__setattr__") is object.__setattr__, cls
        assert type.__getattribute__(cls, "__delattr__") is object.__delattr__, cls
        assert not hasattr(cls, "__getattr__"), cls


def test_deleting_grad_and_an_own_attribute():
    x = torch.ones(2, requires_grad=True)
    (x * 2).sum().backward()
    del x.grad
    assert x.grad is None
    x.foo = 1
    del x.foo
    assert not hasattr(x, "foo")
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got NoneType"):
        x.data = None


@pytest.mark.parametrize("name, expected", [
    ("metadata", "attribute 'metadata' of 'MulBackward0' objects is not writable"),
    ("next_functions", "attribute 'next_functions' of 'MulBackward0' objects is not writable"),
    ("_saved_self", "attribute '_saved_self' of 'MulBackward0' objects is not writable"),
    ("_raw_saved_self", "attribute '_raw_saved_self' of 'MulBackward0' objects is not writable"),
    ("name", "'MulBackward0' object attribute 'name' is read-only"),
    ("bar", "'MulBackward0' object has no attribute 'bar'"),
])
def test_deleting_attributes_of_a_builtin_node(name, expected):
    x = torch.ones(2, requires_grad=True)
    node = (x * torch.ones(2, requires_grad=True)).grad_fn
    assert message(lambda: delattr(node, name)) == f"AttributeError: {expected}"
    assert node.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"   # nothing was lost


def test_deleting_attributes_of_accumulate_grad():
    node = (torch.ones(2, requires_grad=True) * 2).grad_fn.next_functions[0][0]
    assert message(lambda: delattr(node, "variable")) == (
        "AttributeError: attribute 'variable' of 'AccumulateGrad' objects is not writable")
    assert message(lambda: delattr(node, "metadata")) == (
        "AttributeError: attribute 'metadata' of 'AccumulateGrad' objects is not writable")


def test_a_custom_functions_ctx_keeps_its_own_attributes_deletable():
    ctx = Double.apply(torch.ones(2, requires_grad=True)).grad_fn
    ctx.foo = 1
    del ctx.foo
    del ctx.needs_input_grad
    with pytest.raises(AttributeError):
        del ctx.saved_tensors


# ------------------------------------------------------------------ in place on a view of a saved output
@pytest.mark.parametrize("op", [lambda v: torch.nn.functional.relu(v, inplace=True), lambda v: v.exp_(),
                                lambda v: v.sigmoid_(), lambda v: v[0:3].sqrt_()])
def test_in_place_on_a_view_that_saves_its_output_leaves_no_reference_cycle(op):
    freed = []

    class NoteWhenFreed:
        def __call__(self, grad_inputs, grad_outputs):
            return None

        def __del__(self):
            freed.append(True)

    def run():
        root = torch.ones(3, 3, requires_grad=True)
        copy = root.clone()
        copy.grad_fn.register_hook(NoteWhenFreed())
        op(copy.view(9))

    run()
    assert freed == [True]   # freed when run() returned, without waiting for the cycle collector


def test_the_saved_output_of_an_in_place_change_of_a_view_names_its_node():
    root = torch.ones(2, requires_grad=True)
    e = root.clone()[:].exp_()
    e.mul_(2)
    text = message(lambda: e.sum().backward())
    assert "[torch.FloatTensor [2]], which is output 0 of Exp, is at version 2; expected version 1 instead." in text
    root = torch.ones(3, 3, requires_grad=True)
    copy = root.clone()
    torch.nn.functional.relu(copy.view(9), inplace=True).sum().backward()
    assert root.grad.tolist() == [[1.0] * 3] * 3 and copy.grad_fn.name() == "torch::autograd::CopySlices"


def test_a_node_s_public_attributes_cannot_be_replaced_either():
    x = torch.ones(2, requires_grad=True)
    node = (x * torch.ones(2, requires_grad=True)).grad_fn
    edges = node.next_functions
    for name in ("next_functions", "metadata", "_saved_self", "_raw_saved_self"):
        assert message(lambda: setattr(node, name, ())) == (
            f"AttributeError: attribute '{name}' of 'MulBackward0' objects is not writable")
    assert message(lambda: setattr(node, "name", None)) == (
        "AttributeError: 'MulBackward0' object attribute 'name' is read-only")
    assert node.next_functions is edges and node.name() == "MulBackward0"


def test_raw_saved_tensors_are_refused_with_what_to_use_instead():
    x = torch.ones(2, requires_grad=True)
    node = (x * torch.ones(2, requires_grad=True)).grad_fn
    with pytest.raises(NotImplementedError, match=r"^minigrad does not implement _raw_saved_self .* Instead: _saved_self$"):
        node._raw_saved_self
    assert node._saved_self is x


def test_a_custom_function_s_node_names_pytorch_s_base_class_when_refusing():
    """PyTorch's texts name torch._C._FunctionBase for a Function you write, the node's class for a builtin."""
    node = Double.apply(torch.ones(2, requires_grad=True)).grad_fn
    for name in ("next_functions", "metadata"):
        for change in (lambda: setattr(node, name, ()), lambda: delattr(node, name)):
            assert message(change) == (
                f"AttributeError: attribute '{name}' of 'torch._C._FunctionBase' objects is not writable")
    assert node.name() == "DoubleBackward" and node.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"
