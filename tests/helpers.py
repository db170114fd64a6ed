"""What several test files share: exact error texts, values with nan and signed zeros, gradient checks
against central differences, and hypothesis settings. (``conftest.py`` puts this folder on the path.)
"""
import contextlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings, strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as torch
from minigrad.autograd import gradcheck, listeners


ROOT = Path(__file__).resolve().parents[1]   # the repository
INF, NAN = float("inf"), float("nan")


def message(call) -> str:
    """What ``call`` raises, as ``"TypeName: text"``."""
    with pytest.raises(Exception) as caught:
        call()
    return f"{type(caught.value).__name__}: {caught.value}"


def error_text(error_type, call) -> str:
    """The text of the error ``call`` raises, which must be exactly ``error_type`` (no subclass)."""
    with pytest.raises(error_type) as caught:
        call()
    assert type(caught.value) is error_type
    return str(caught.value)


def node_names(t) -> list:
    """The names of the nodes reachable from ``t.grad_fn``, depth first, PyTorch's C++ prefix
    (``torch::autograd::``) dropped."""
    names = []

    def walk(node):
        if node is not None:
            names.append(node.name().replace("torch::autograd::", ""))
            for child, _ in node.next_functions:
                walk(child)

    walk(t.grad_fn)
    return names


def values(t) -> list:
    """``t.tolist()`` with nan written as the string 'nan' (nan != nan)."""
    data = t.detach().numpy()
    return np.where(np.isnan(data), "nan", data.astype(str)).tolist() if t.is_floating_point() else t.tolist()


def same(t, expected) -> bool:
    """Values equal to PyTorch's, nan where it has nan, and the same sign of every zero."""
    a, b = np.asarray(t.detach().numpy(), np.float64), np.asarray(expected, np.float64)
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=True) and \
        np.array_equal(np.signbit(a) & ~np.isnan(a), np.signbit(b) & ~np.isnan(b))   # a nan's sign never shows


def close(t, expected) -> bool:
    """PyTorch's values: nan, infinities and signs of zero exactly, the rest within float32 rounding."""
    a, b = np.asarray(t.detach().numpy(), np.float64), np.asarray(expected, np.float64)
    exact = ~np.isfinite(b) | (b == 0)
    return a.shape == b.shape and same(torch.tensor(a[exact]), b[exact]) and np.allclose(a[~exact], b[~exact], rtol=1e-6)


TEN_EXAMPLES = settings(max_examples=10, deadline=None)


SAMPLE_ROWS = [[1.5, -2.0, 0.5], [-0.25, 3.0, -1.0]]


def sample_leaf(values=SAMPLE_ROWS, dtype=None):
    return torch.tensor(values, dtype=dtype, requires_grad=True)


def distinct_away_from_zero(shape=(2, 3)):
    """float64 arrays with distinct entries away from 0 (no ties for topk or the inf-norm, no kinks)."""
    size = int(np.prod(shape))
    return st.permutations(list(range(1, size + 1))).flatmap(lambda order: hnp.arrays(
        np.float64, shape, elements=st.floats(0.0, 0.3)).map(
        lambda noise: (np.array(order, dtype=np.float64).reshape(shape) + noise) * np.where(
            np.arange(size).reshape(shape) % 2, 1.0, -1.0)))


def check_float64(function, *arrays):
    inputs = tuple(torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays)
    assert gradcheck(function, inputs)


EPS = 1e-6


FAST = settings(max_examples=12, deadline=None)


# --------------------------------------------------------------------------- helpers
def numerical_vjp(reference, arrays: list, upstream: np.ndarray, wrt=None) -> list:
    """Central differences of ``sum(reference(*arrays) * upstream)`` with respect to each array."""
    wrt = range(len(arrays)) if wrt is None else wrt
    grads = []
    for k in wrt:
        grad = np.zeros_like(arrays[k])
        for index in np.ndindex(arrays[k].shape):
            values = []
            for step in (EPS, -EPS):
                moved = [a.copy() for a in arrays]
                moved[k][index] += step
                values.append(float(np.sum(np.asarray(reference(*moved)) * upstream)))
            grad[index] = (values[0] - values[1]) / (2 * EPS)
        grads.append(grad)
    return grads


def check(op, reference, *arrays, wrt=None, seed: int = 0, atol: float = 1e-6, rtol: float = 1e-5):
    """Forward of ``op`` equals ``reference``; its gradients equal central differences."""
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    wrt = list(range(len(arrays))) if wrt is None else wrt
    inputs = [torch.tensor(a, requires_grad=k in wrt) for k, a in enumerate(arrays)]
    out = op(*inputs)
    expected = np.asarray(reference(*arrays))
    assert tuple(out.shape) == expected.shape
    assert out.dtype is torch.float64
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-12, atol=1e-12)

    upstream = np.random.default_rng(seed).standard_normal(expected.shape)
    grads = torch.autograd.grad(out, [inputs[k] for k in wrt], grad_outputs=torch.tensor(upstream))
    numerical = numerical_vjp(reference, arrays, upstream, wrt)
    for k, grad, num in zip(wrt, grads, numerical):
        assert tuple(grad.shape) == arrays[k].shape, f"gradient of input {k} has the wrong shape"
        assert grad.dtype is torch.float64
        np.testing.assert_allclose(grad.numpy(), num, atol=atol, rtol=rtol, err_msg=f"input {k}")


def floats(low: float = -3.0, high: float = 3.0):
    return st.floats(low, high, allow_nan=False, allow_infinity=False)


# --------------------------------------------------------------------------- small custom Functions
class Double(torch.autograd.Function):
    """y = 2x; ∂L/∂x = 2 grad. It saves nothing, so its graph can be backpropagated twice."""

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class ReturnsItsInput(torch.autograd.Function):
    """y = x, the input object itself returned (apply hands back a view of it); ∂L/∂x = grad."""

    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad


class TwoOutputs(torch.autograd.Function):
    """(2x, 3x); ∂L/∂x = 2 grad_1 + 3 grad_2."""

    @staticmethod
    def forward(ctx, x):
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, grad_1, grad_2):
        return grad_1 * 2 + grad_2 * 3


class AddOneInPlace(torch.autograd.Function):
    """x += 1 in place, marked dirty; ∂L/∂x = grad."""

    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad


class WrongShape(torch.autograd.Function):
    """y = 2x, whose backward returns a gradient of the wrong shape, [7]."""

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return torch.ones(7)


@contextlib.contextmanager
def builtins_return_no_unmarked_input():
    """Check a promise ``Function.apply`` relies on while the block runs: a builtin's forward returns
    new tensors or views, never an input it did not mark dirty. ``apply`` passes a builtin's outputs
    on without looking for its inputs among them (its no-grad shortcut, and ``_wrap_outputs`` for a
    single output), so such an input would come back as itself, where PyTorch (and a custom Function
    in minigrad) gives a new tensor. An input that a builtin returns must have changed version during
    the call.

    It listens to ``Function.apply`` (``autograd.listeners``). A registered listener turns ``apply``'s
    no-grad shortcut off, so inside the block every operation takes the common path, which passes
    the same outputs on; the tests that run without it exercise the shortcut (tests/conftest.py).
    """
    versions_before: dict = {}   # id(args) -> [(input, its version)], while the call runs

    def started(function, args):
        versions_before[id(args)] = [(arg, arg._version) for arg in args if isinstance(arg, torch.Tensor)]

    def ended(function, ctx, args, outputs):
        versions = versions_before.pop(id(args), ())
        if not function._is_builtin:
            return
        for out in outputs if isinstance(outputs, tuple) else (outputs,):
            for arg, version in versions:
                assert out is not arg or arg._version != version, (
                    f"{function.__name__}.forward returned its input without ctx.mark_dirty: return a new tensor")

    with listeners.on_apply_start(started), listeners.on_apply_end(ended):
        yield
