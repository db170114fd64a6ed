"""Every read-only attribute of PyTorch's tensors, found in the wheel (its C++ getset descriptors),
refuses assignment and deletion in minigrad with PyTorch's text, whether minigrad implements it
(a property) or lacks it (an ``inventory.MissingAttribute``)."""
import types

import pytest

torch = pytest.importorskip("torch", reason="the fidelity tests compare with real PyTorch: run `make fidelity`")
import minigrad  # noqa: E402  (after the skip)

# Deleting these crashes PyTorch 2.13 itself (a segmentation fault), so they are not compared.
CRASH_PYTORCH = {"grad_dtype", "real", "imag"}
# minigrad's own code sets grad_fn (rebasing a view, moving a retained gradient); PyTorch refuses it.
KNOWN = {("grad_fn", "set")}
GETSETS = sorted(name for name in dir(torch._C.TensorBase)
                 if isinstance(getattr(torch._C.TensorBase, name, None), types.GetSetDescriptorType))


def outcome(action) -> str:
    try:
        action()
        return "ok"
    except Exception as error:  # noqa: BLE001 - the outcome is the comparison
        return f"{type(error).__name__}: {error}"


def test_the_wheel_lists_the_getset_attributes():
    assert {"shape", "grad_fn", "is_leaf", "is_cpu", "_base"} <= set(GETSETS)


# Every public one, and the private ones minigrad has (PyTorch's internals such as _cdata are out of scope).
COMPARED = [n for n in GETSETS if n not in CRASH_PYTORCH and (not n.startswith("_") or hasattr(minigrad.Tensor, n))]


@pytest.mark.parametrize("name", COMPARED)
def test_a_read_only_attribute_is_refused_as_pytorch_refuses_it(name):
    theirs = outcome(lambda: delattr(torch.ones(2, requires_grad=True) * 2, name))
    if "is not writable" not in theirs:
        pytest.skip(f"PyTorch lets {name} be deleted or answers otherwise: {theirs[:60]}")
    for what, action in (("delete", delattr), ("set", lambda t, n: setattr(t, n, 0))):
        theirs = outcome(lambda: action(torch.ones(2, requires_grad=True) * 2, name))
        ours = outcome(lambda: action(minigrad.ones(2, requires_grad=True) * 2, name))
        if (name, what) not in KNOWN:
            assert ours == theirs, f"{what} {name}"
