"""Every differentiable builtin operation: forward against numpy, backward against central differences.

Each case gives the operation twice: once written with minigrad (``op``), once with numpy
(``reference``). The forward result must match numpy, and the vector-Jacobian product
``autograd.grad(out, inputs, grad_outputs=v)`` must match the central differences of
``sum(reference(...) * v)``, computed here in numpy, independently of minigrad.

Inputs are float64 and drawn by hypothesis; values stay away from kinks and singularities
(``log``/``sqrt`` of positive numbers, ``abs``/``relu``/``clamp`` away from 0 and the bounds,
``max``/``sort`` without ties) so that central differences are exact to ~1e-8.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as torch
import minigrad.nn.functional as F
from helpers import FAST, TEN_EXAMPLES, check, check_float64, distinct_away_from_zero, floats, numerical_vjp, sample_leaf

FEW = settings(max_examples=6, deadline=None)


def check_backward(op, reference, array, seed: int = 0):
    """The same check through ``.backward()`` on a scalar: the gradient lands in ``x.grad``."""
    x = torch.tensor(array, requires_grad=True)
    upstream = np.random.default_rng(seed).standard_normal(np.shape(reference(array)))
    (op(x) * torch.tensor(upstream)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), numerical_vjp(reference, [array], upstream)[0], atol=1e-6, rtol=1e-5)


def away_from(points: tuple, gap: float = 0.05, low: float = -3.0, high: float = 3.0):
    """Floats in [low, high] at least ``gap`` away from every point (kinks of abs, relu, clamp)."""
    return floats(low, high).filter(lambda v: all(abs(v - p) > gap for p in points))


shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)
nonempty_shapes = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3)


def arrays(shape_strategy=shapes, elements=None):
    return shape_strategy.flatmap(lambda s: hnp.arrays(np.float64, s, elements=floats() if elements is None else elements))


@st.composite
def distinct(draw, shape_strategy=nonempty_shapes):
    """An array whose values are all at least 0.25 apart: no ties for max, min and sort."""
    shape = draw(shape_strategy)
    n = int(np.prod(shape))
    order = draw(st.permutations(range(n)))
    offset = draw(floats(-1, 1))
    return (np.array(order, dtype=np.float64) * 0.25 + offset).reshape(shape)


@st.composite
def broadcast_pair(draw, positive_second: bool = False):
    """Two arrays whose shapes broadcast against each other (gradients must be summed back)."""
    shapes_ = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3))
    a = draw(hnp.arrays(np.float64, shapes_.input_shapes[0], elements=floats()))
    second = st.floats(0.5, 3.0) if positive_second else floats()
    b = draw(hnp.arrays(np.float64, shapes_.input_shapes[1], elements=second))
    return a, b


# --------------------------------------------------------------------------- binary arithmetic
@FAST
@given(broadcast_pair())
def test_add_broadcasts_and_sums_gradients_back(pair):
    check(lambda a, b: a + b, np.add, *pair)


@FAST
@given(broadcast_pair())
def test_sub(pair):
    check(lambda a, b: a - b, np.subtract, *pair)


@FAST
@given(broadcast_pair())
def test_mul(pair):
    check(lambda a, b: a * b, np.multiply, *pair)


@FAST
@given(broadcast_pair(positive_second=True))
def test_div(pair):
    check(lambda a, b: a / b, np.divide, *pair)


@FAST
@given(broadcast_pair())
def test_add_and_sub_with_alpha(pair):
    check(lambda a, b: a.add(b, alpha=2.5) - a.sub(b, alpha=-0.5), lambda a, b: (a + 2.5 * b) - (a + 0.5 * b), *pair)


@FAST
@given(arrays(), floats(-2, 2))
def test_reflected_forms_with_a_python_number(x, c):
    check(lambda t: (c + t) * (c - t) + (c * t) / (2.0 + 0 * t) - 1 / (t * t + 1),
          lambda t: (c + t) * (c - t) + (c * t) / 2.0 - 1 / (t * t + 1), x)


@FAST
@given(arrays())
def test_unary_minus(x):
    check(lambda t: -t, np.negative, x)


@FAST
@given(arrays(elements=st.floats(0.2, 3.0)), st.sampled_from([2, 3, 0.5, -1, -1.5, 0, 1]))
def test_tensor_to_a_number_power(x, exponent):
    check(lambda t: t ** exponent, lambda t: t ** exponent, x)
    check(lambda t: t.pow(exponent), lambda t: t ** exponent, x)


@FAST
@given(broadcast_pair())
def test_tensor_to_a_tensor_power(pair):
    base, exponent = pair
    base = np.abs(base) + 0.5   # positive bases: the gradient w.r.t. the exponent needs log(base)
    check(lambda a, b: a ** b, np.power, base, exponent)


@FAST
@given(arrays(), st.sampled_from([0.5, 2.0, 3.0]))
def test_number_to_a_tensor_power(x, base):
    check(lambda t: base ** t, lambda t: base ** t, x)


# --------------------------------------------------------------------------- pointwise functions
POINTWISE = [
    ("exp", floats(-3, 3), np.exp),
    ("log", st.floats(0.1, 5.0), np.log),
    ("sin", floats(), np.sin),
    ("cos", floats(), np.cos),
    ("tanh", floats(), np.tanh),
    ("sigmoid", floats(-5, 5), lambda t: 1 / (1 + np.exp(-t))),
    ("relu", away_from((0.0,)), lambda t: np.maximum(t, 0)),
    ("sqrt", st.floats(0.1, 5.0), np.sqrt),
    ("abs", away_from((0.0,)), np.abs),
]


@pytest.mark.parametrize("name, elements, reference", POINTWISE, ids=[p[0] for p in POINTWISE])
def test_pointwise_method_and_module_function(name, elements, reference):
    @FAST
    @given(arrays(elements=elements))
    def run(x):
        check(lambda t: getattr(t, name)(), reference, x)
        check(lambda t: getattr(torch, name)(t), reference, x)

    run()


@pytest.mark.parametrize("low, high", [(-1.0, 1.0), (-0.5, None), (None, 0.5)])
def test_clamp(low, high):
    @FAST
    @given(arrays(elements=away_from(tuple(b for b in (low, high) if b is not None))))
    def run(x):
        check(lambda t: t.clamp(low, high), lambda t: np.clip(t, low, high), x)
        check(lambda t: torch.clamp(t, min=low, max=high), lambda t: np.clip(t, low, high), x)

    run()


# --------------------------------------------------------------------------- reductions
@st.composite
def array_and_dims(draw, elements=None):
    """An array of at least one dimension, and a dim argument: an int (maybe negative) or a tuple."""
    x = draw(arrays(nonempty_shapes, elements))
    ndim = x.ndim
    single = st.integers(-ndim, ndim - 1)
    several = st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True).map(tuple)
    return x, draw(single | several)


@FAST
@given(arrays())
def test_sum_all(x):
    check(lambda t: t.sum(), np.sum, x)
    check(lambda t: torch.sum(t), np.sum, x)


@FAST
@given(array_and_dims(), st.booleans())
def test_sum_over_dims(x_dims, keepdim):
    x, dims = x_dims
    check(lambda t: t.sum(dims, keepdim=keepdim), lambda t: np.sum(t, axis=dims, keepdims=keepdim), x)


@FAST
@given(arrays())
def test_mean_all(x):
    check(lambda t: t.mean(), np.mean, x)


@FAST
@given(array_and_dims(), st.booleans())
def test_mean_over_dims(x_dims, keepdim):
    x, dims = x_dims
    check(lambda t: t.mean(dim=dims, keepdim=keepdim), lambda t: np.mean(t, axis=dims, keepdims=keepdim), x)


@FAST
@given(distinct())
def test_max_and_min_of_everything(x):
    check(lambda t: t.max(), np.max, x)
    check(lambda t: t.min(), np.min, x)
    check(lambda t: torch.max(t) - torch.min(t), lambda t: np.max(t) - np.min(t), x)


@FAST
@given(distinct(), st.data())
def test_max_and_min_along_a_dim(x, data):
    dim = data.draw(st.integers(-x.ndim, x.ndim - 1))
    keepdim = data.draw(st.booleans())
    check(lambda t: t.max(dim, keepdim=keepdim).values, lambda t: np.max(t, axis=dim, keepdims=keepdim), x)
    check(lambda t: t.min(dim=dim, keepdim=keepdim)[0], lambda t: np.min(t, axis=dim, keepdims=keepdim), x)
    indices = torch.tensor(x).max(dim, keepdim=keepdim).indices
    assert indices.dtype is torch.int64 and not indices.requires_grad
    np.testing.assert_array_equal(indices.numpy(), np.argmax(x, axis=dim).reshape(indices.shape))


@FAST
@given(distinct(), st.data())
def test_sort_values(x, data):
    dim = data.draw(st.integers(-x.ndim, x.ndim - 1))
    descending = data.draw(st.booleans())

    def reference(t):
        s = np.sort(t, axis=dim)
        return np.flip(s, axis=dim) if descending else s

    check(lambda t: t.sort(dim, descending=descending).values, reference, x)
    check(lambda t: torch.sort(t, dim=dim, descending=descending)[0], reference, x)


def _softmax(t, dim):
    e = np.exp(t - t.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


@FAST
@given(arrays(nonempty_shapes), st.data())
def test_softmax_and_log_softmax(x, data):
    dim = data.draw(st.integers(-x.ndim, x.ndim - 1))
    check(lambda t: t.softmax(dim), lambda t: _softmax(t, dim), x)
    check(lambda t: t.log_softmax(dim), lambda t: np.log(_softmax(t, dim)), x)
    check(lambda t: F.softmax(t, dim) * F.log_softmax(t, dim),
          lambda t: _softmax(t, dim) * np.log(_softmax(t, dim)), x)


# --------------------------------------------------------------------------- matrix products
MATMUL_SHAPES = [
    ((3,), (3,)),              # dot
    ((2, 3), (3,)),            # matrix-vector
    ((3,), (3, 2)),            # vector-matrix
    ((2, 3), (3, 4)),          # matrix-matrix
    ((2, 2, 3), (3, 4)),       # batch of matrices times a matrix
    ((3,), (2, 3, 4)),         # vector times a batch
    ((2, 3, 4), (4,)),         # batch times a vector
    ((2, 1, 2, 3), (3, 3, 2)),  # batch dimensions broadcast
    ((1, 2, 3), (2, 3, 1)),
]


@pytest.mark.parametrize("shape_a, shape_b", MATMUL_SHAPES, ids=[f"{a}@{b}" for a, b in MATMUL_SHAPES])
def test_matmul_in_every_rank_combination(shape_a, shape_b):
    @FEW
    @given(hnp.arrays(np.float64, shape_a, elements=floats()), hnp.arrays(np.float64, shape_b, elements=floats()))
    def run(a, b):
        check(lambda x, y: x @ y, np.matmul, a, b)
        check(lambda x, y: torch.matmul(x, y), np.matmul, a, b, wrt=[1])
        check(lambda x, y: x.matmul(y), np.matmul, a, b, wrt=[0])

    run()


@FAST
@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.data())
def test_mm_and_t(n, k, m, data):
    a = data.draw(hnp.arrays(np.float64, (n, k), elements=floats()))
    b = data.draw(hnp.arrays(np.float64, (m, k), elements=floats()))
    check(lambda x, y: x.mm(y.t()), lambda x, y: x @ y.T, a, b)
    check(lambda x, y: torch.mm(x, y.T), lambda x, y: x @ y.T, a, b)


# --------------------------------------------------------------------------- shapes and views
@FAST
@given(arrays(hnp.array_shapes(min_dims=2, max_dims=4, max_side=3)), st.data())
def test_transpose_and_permute(x, data):
    d0, d1 = data.draw(st.integers(-x.ndim, x.ndim - 1)), data.draw(st.integers(-x.ndim, x.ndim - 1))
    check(lambda t: t.transpose(d0, d1), lambda t: np.swapaxes(t, d0, d1), x)
    order = data.draw(st.permutations(range(x.ndim)))
    check(lambda t: t.permute(*order), lambda t: np.transpose(t, order), x)
    check(lambda t: t.permute(order), lambda t: np.transpose(t, order), x)


@FAST
@given(arrays(hnp.array_shapes(min_dims=0, max_dims=2, max_side=3)))
def test_t_on_up_to_two_dims(x):
    check(lambda t: t.t(), lambda t: t.T, x)


@FAST
@given(arrays(nonempty_shapes), st.data())
def test_view_and_reshape(x, data):
    n = x.size
    check(lambda t: t.view(-1), lambda t: t.reshape(-1), x)
    check(lambda t: t.reshape(n, 1), lambda t: t.reshape(n, 1), x)
    check(lambda t: t.view(1, -1, 1), lambda t: t.reshape(1, -1, 1), x)
    check(lambda t: t.reshape((1, n)) * 2, lambda t: t.reshape(1, n) * 2, x)
    check(lambda t: t.flatten(), lambda t: t.reshape(-1), x)


@FAST
@given(arrays(), st.data())
def test_unsqueeze_and_squeeze(x, data):
    dim = data.draw(st.integers(-x.ndim - 1, x.ndim))
    check(lambda t: t.unsqueeze(dim), lambda t: np.expand_dims(t, dim), x)
    check(lambda t: t.unsqueeze(dim).squeeze(dim), lambda t: t, x)
    check(lambda t: t.unsqueeze(dim).squeeze(), lambda t: np.squeeze(t), x)


@FAST
@given(arrays(hnp.array_shapes(min_dims=0, max_dims=2, max_side=3)), st.data())
def test_expand_and_expand_as(x, data):
    lead = data.draw(st.lists(st.integers(1, 3), max_size=2))
    stretched = [data.draw(st.integers(1, 3)) if n == 1 else n for n in x.shape]
    target = tuple(lead) + tuple(stretched)
    if target:   # expand() with no sizes at all is an error in PyTorch
        check(lambda t: t.expand(*target), lambda t: np.broadcast_to(t, target), x)
    check(lambda t: t.expand(target), lambda t: np.broadcast_to(t, target), x)
    other = torch.zeros(target, dtype=torch.float64)
    check(lambda t: t.expand_as(other), lambda t: np.broadcast_to(t, target), x)
    if lead or x.ndim:
        check(lambda t: t.expand(*lead, *([-1] * x.ndim)), lambda t: np.broadcast_to(t, tuple(lead) + x.shape), x)


@FAST
@given(arrays())
def test_clone(x):
    check(lambda t: t.clone() * 3, lambda t: t * 3, x)
    check_backward(lambda t: t.clone(), lambda t: t, x)


def test_to_a_dtype_casts_the_gradient_back():
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    y = x.to(torch.float32)
    assert y.dtype is torch.float32 and type(y.grad_fn).__name__ == "ToCopyBackward0"
    (y * torch.tensor([1.0, 2.0, 4.0])).sum().backward()
    assert x.grad.dtype is torch.float64
    assert x.grad.tolist() == [1.0, 2.0, 4.0]


@FAST
@given(arrays())
def test_to_float64_from_float32(x):
    x32 = torch.tensor(x, dtype=torch.float32, requires_grad=True)
    y = x32.to(torch.float64) * torch.tensor(x)
    y.sum().backward()
    assert x32.grad.dtype is torch.float32
    np.testing.assert_allclose(x32.grad.numpy(), x.astype(np.float32), rtol=1e-6)
    check(lambda t: t.to(torch.float64).double(), lambda t: t, x)


# --------------------------------------------------------------------------- indexing
@FAST
@given(arrays(hnp.array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=4)), st.data())
def test_indexing_with_ints_slices_and_tuples(x, data):
    i = data.draw(st.integers(-x.shape[0], x.shape[0] - 1))
    check(lambda t: t[i], lambda t: t[i], x)
    start = data.draw(st.integers(0, x.shape[0] - 1))
    step = data.draw(st.integers(1, 2))
    check(lambda t: t[start::step], lambda t: t[start::step], x)
    check(lambda t: t[:-1], lambda t: t[:-1], x)
    if x.ndim >= 2:
        j = data.draw(st.integers(0, x.shape[1] - 1))
        check(lambda t: t[i, j], lambda t: t[i, j], x)
        check(lambda t: t[:, j], lambda t: t[:, j], x)
        check(lambda t: t[1:, ::2], lambda t: t[1:, ::2], x)
        check(lambda t: t[..., 0], lambda t: t[..., 0], x)
        check(lambda t: t[None, i], lambda t: t[None, i], x)


@FAST
@given(arrays(hnp.array_shapes(min_dims=1, max_dims=2, min_side=2, max_side=4)), st.data())
def test_indexing_with_an_int_tensor_repeats_add_up(x, data):
    index = data.draw(st.lists(st.integers(0, x.shape[0] - 1), min_size=1, max_size=6))
    idx = torch.tensor(index)
    check(lambda t: t[idx], lambda t: t[np.array(index)], x)
    check(lambda t: t[index], lambda t: t[np.array(index)], x)
    if x.ndim == 2:
        cols = [min(k, x.shape[1] - 1) for k in index]
        check(lambda t: t[idx, torch.tensor(cols)], lambda t: t[np.array(index), np.array(cols)], x)
        check(lambda t: t[:, torch.tensor(cols)], lambda t: t[:, np.array(cols)], x)


@FAST
@given(arrays(nonempty_shapes), st.data())
def test_indexing_with_a_bool_mask(x, data):
    mask = data.draw(hnp.arrays(np.bool_, x.shape))
    check(lambda t: t[torch.tensor(mask)], lambda t: t[mask], x)
    check(lambda t: t[t > 0], lambda t: t[x > 0], x)
    row_mask = mask.reshape(x.shape[0], -1)[:, 0]
    check(lambda t: t[torch.tensor(row_mask)], lambda t: t[row_mask], x)


def _assigned(key):
    def op(t, v):
        y = t.clone()
        y[key] = v
        return y

    def reference(t, v):
        y = t.copy()
        y[key] = v
        return y
    return op, reference


@FAST
@given(arrays(hnp.array_shapes(min_dims=2, max_dims=2, min_side=2, max_side=4)), floats())
def test_index_assignment(x, value):
    op, reference = _assigned((0, slice(None)))
    check(op, reference, x, x[0] * 2 + value)                       # a row from a tensor
    op, reference = _assigned((slice(None), 1))
    check(op, reference, x, np.full(x.shape[0], value))            # a column
    op, reference = _assigned(1)
    check(op, reference, x, np.array(value))                        # a 0-dim value broadcast over a row

    def op_number(t):
        y = t * 1
        y[0, 0] = value                                             # a Python number
        return y

    check(op_number, lambda t: np.concatenate([[[value] + list(t[0, 1:])], t[1:]]), x)


@FAST
@given(arrays(hnp.array_shapes(min_dims=2, max_dims=2, min_side=2, max_side=4)))
def test_index_assignment_with_a_mask_and_an_index_tensor(x):
    mask = x > 0

    def op(t):
        y = t * 2
        y[torch.tensor(mask)] = 0.0
        return y
    check(op, lambda t: np.where(mask, 0.0, t * 2), x)

    def op_rows(t, v):
        y = t.clone()
        y[torch.tensor([1, 0])] = v
        return y

    def ref_rows(t, v):
        y = t.copy()
        y[[1, 0]] = v
        return y
    check(op_rows, ref_rows, x, x[:2][::-1] * 3)


@FAST
@given(st.lists(st.integers(0, 3), min_size=1, max_size=6), st.integers(1, 3), st.data())
def test_index_add_with_repeated_indices(index, columns, data):
    x = data.draw(hnp.arrays(np.float64, (4, columns), elements=floats()))
    source = data.draw(hnp.arrays(np.float64, (len(index), columns), elements=floats()))
    alpha = data.draw(st.sampled_from([1, 2.5]))

    def op(t, s):
        return t.clone().index_add_(0, torch.tensor(index), s, alpha=alpha)

    def reference(t, s):
        y = t.copy()
        np.add.at(y, np.array(index), alpha * s)
        return y
    check(op, reference, x, source)

    def op_columns(t, s):
        y = t.t().clone()
        y.index_add_(1, torch.tensor(index), s.t(), alpha=alpha)
        return y
    check(op_columns, lambda t, s: reference(t, s).T, x, source)


# --------------------------------------------------------------------------- joining and choosing
@FAST
@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.data())
def test_cat(n1, n2, n3, m, data):
    a, b, c = (data.draw(hnp.arrays(np.float64, (n, m), elements=floats())) for n in (n1, n2, n3))
    check(lambda x, y, z: torch.cat([x, y, z]), lambda x, y, z: np.concatenate([x, y, z]), a, b, c)
    check(lambda x, y, z: torch.cat((x.t(), y.t(), z.t()), dim=1), lambda x, y, z: np.concatenate([x.T, y.T, z.T], 1),
          a, b, c)
    check(lambda x, y, z: torch.cat([x, y, z], dim=-2), lambda x, y, z: np.concatenate([x, y, z]), a, b, c, wrt=[1])


@FAST
@given(arrays(hnp.array_shapes(min_dims=0, max_dims=2, max_side=3)), st.data())
def test_stack(x, data):
    dim = data.draw(st.integers(-x.ndim - 1, x.ndim))
    check(lambda a, b: torch.stack([a, b * 2, a], dim), lambda a, b: np.stack([a, b * 2, a], dim), x, x + 1)
    check(lambda a, b: torch.stack((a, b), dim=dim), lambda a, b: np.stack([a, b], dim), x, x * 3, wrt=[0])


@FAST
@given(broadcast_pair(), st.data())
def test_where(pair, data):
    a, b = pair
    shape = np.broadcast_shapes(a.shape, b.shape)
    condition = data.draw(hnp.arrays(np.bool_, shape))
    check(lambda x, y: torch.where(torch.tensor(condition), x, y), lambda x, y: np.where(condition, x, y), a, b)
    check(lambda x: torch.where(torch.tensor(condition), x, 0.0), lambda x: np.where(condition, x, 0.0), a)


# --------------------------------------------------------------------------- nn.functional
@FAST
@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.data())
def test_linear_with_and_without_bias(batch, n_in, n_out, data):
    x = data.draw(hnp.arrays(np.float64, (batch, n_in), elements=floats()))
    w = data.draw(hnp.arrays(np.float64, (n_out, n_in), elements=floats()))
    b = data.draw(hnp.arrays(np.float64, (n_out,), elements=floats()))
    check(F.linear, lambda x_, w_, b_: x_ @ w_.T + b_, x, w, b)
    check(lambda x_, w_: F.linear(x_, w_), lambda x_, w_: x_ @ w_.T, x, w)
    check(F.linear, lambda x_, w_, b_: x_ @ w_.T + b_, x[0], w, b)   # a single vector


@FAST
@given(broadcast_pair().filter(lambda p: p[0].shape == p[1].shape))
def test_mse_loss(pair):
    check(F.mse_loss, lambda a, b: np.mean((a - b) ** 2), *pair)
    check(lambda a, b: F.mse_loss(a, b, reduction="sum"), lambda a, b: np.sum((a - b) ** 2), *pair)
    check(lambda a, b: torch.nn.MSELoss()(a, b), lambda a, b: np.mean((a - b) ** 2), *pair)


@FAST
@given(st.integers(1, 4), st.integers(2, 4), st.data())
def test_cross_entropy(batch, classes, data):
    logits = data.draw(hnp.arrays(np.float64, (batch, classes), elements=floats()))
    labels = np.array(data.draw(st.lists(st.integers(0, classes - 1), min_size=batch, max_size=batch)))

    def reference(z, reduce=np.mean):
        log_p = np.log(_softmax(z, 1))
        return reduce(-log_p[np.arange(batch), labels])

    check(lambda z: F.cross_entropy(z, torch.tensor(labels)), reference, logits)
    check(lambda z: F.cross_entropy(z, torch.tensor(labels), reduction="sum"),
          lambda z: reference(z, np.sum), logits)
    check(lambda z: torch.nn.CrossEntropyLoss()(z, torch.tensor(labels)), reference, logits)


# --------------------------------------------------------------------------- in-place ops on non-leaves
IN_PLACE = [
    ("mul_", lambda y, w: y.mul_(w), np.multiply),
    ("add_", lambda y, w: y.add_(w), np.add),
    ("add_ alpha", lambda y, w: y.add_(w, alpha=-2.0), lambda y, w: y - 2.0 * w),
    ("sub_", lambda y, w: y.sub_(w), np.subtract),
    ("div_", lambda y, w: y.div_(w * w + 1), lambda y, w: y / (w * w + 1)),
]


def _augmented(symbol):
    def op(y, w):
        if symbol == "+=":
            y += w
        elif symbol == "-=":
            y -= w
        elif symbol == "*=":
            y *= w
        else:
            y /= w * w + 1
        return y
    return op


IN_PLACE += [("+=", _augmented("+="), np.add), ("-=", _augmented("-="), np.subtract),
             ("*=", _augmented("*="), np.multiply), ("/=", _augmented("/="), lambda y, w: y / (w * w + 1))]


@pytest.mark.parametrize("name, method, reference", IN_PLACE, ids=[c[0] for c in IN_PLACE])
def test_in_place_op_on_a_non_leaf(name, method, reference):
    @FEW
    @given(broadcast_pair().filter(lambda p: np.broadcast_shapes(p[0].shape, p[1].shape) == p[0].shape))
    def run(pair):
        def op(x, w):
            y = x * 1              # a non-leaf: in-place changes are allowed and recorded
            version = y._version
            out = method(y, w)
            assert out is y and y._version == version + 1
            return out.sin()       # something after it, so the in-place node is in the middle
        check(op, lambda x, w: np.sin(reference(x, w)), *pair)

    run()


def test_in_place_ops_chain_on_one_tensor():
    check(lambda x, w: (x * 1).mul_(w).add_(x).sub_(w, alpha=0.5).div_(2.0),
          lambda x, w: (x * w + x - 0.5 * w) / 2.0, np.array([1.0, -2.0, 3.0]), np.array([0.5, 1.5, -1.0]))


def test_zero_fill_and_copy_on_non_leaves():
    def op_zero_through_a_view(x):
        y = x * 2
        y[0:1].zero_()                 # CopySlices: the zeroed element gets no gradient
        return y * x
    check(op_zero_through_a_view, lambda x: np.concatenate([0.0 * x[:1], 2.0 * x[1:] ** 2]), np.array([1.0, 2.0, 3.0]))

    def op_fill(x):
        y = x * 2
        y.fill_(3.0)
        return y * x
    check(op_fill, lambda x: 3.0 * x, np.array([1.0, 2.0, 3.0]))

    def op_fill_with_a_tensor(x, v):
        y = x * 2
        y.fill_(v)                     # FillBackward3: v gets the sum of the gradient
        return y * x
    check(op_fill_with_a_tensor, lambda x, v: v * x, np.array([1.0, 2.0, 3.0]), np.array(0.5))

    def op_assign_everything(x, v):
        y = x * 2
        y[:] = v                       # a copy from v expanded to y's shape
        return y * x
    check(op_assign_everything, lambda x, v: v * x, np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([0.5, -1.0]))

    def op_copy(x, w):
        y = x * 2
        y.copy_(w * w)
        return y
    check(op_copy, lambda x, w: w * w, np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0]))


# --------------------------------------------------------------------------- second derivatives
SECOND_ORDER = [
    ("tanh", lambda x, w: (x.tanh() * w).sum()),
    ("mul", lambda x, w: (x * x * w).sum()),
    ("pow", lambda x, w: (x ** 3 * w).sum() + (x.abs() ** x).sum()),
    ("exp", lambda x, w: (x.exp() * w).sum()),
    ("sigmoid", lambda x, w: (x.sigmoid() * w).sum()),
    ("mm", lambda x, w: x.view(2, 2).mm(x.view(2, 2).t()).mm(w.view(2, 2)).sum()),
]


@pytest.mark.parametrize("name, f", SECOND_ORDER, ids=[c[0] for c in SECOND_ORDER])
def test_second_derivatives_against_central_differences_of_the_gradient(name, f):
    x0 = np.array([0.3, -0.7, 1.1, 0.9])
    w = torch.tensor([0.5, -1.0, 2.0, 1.5], dtype=torch.float64)
    v = np.array([1.0, -0.5, 0.25, 2.0])

    def first_derivative(values: np.ndarray) -> np.ndarray:
        x = torch.tensor(values, requires_grad=True)
        g, = torch.autograd.grad(f(x, w), x)
        return g.numpy()

    x = torch.tensor(x0, requires_grad=True)
    g, = torch.autograd.grad(f(x, w), x, create_graph=True)
    assert g.requires_grad and g.grad_fn is not None
    hessian_v, = torch.autograd.grad((g * torch.tensor(v)).sum(), x)
    numerical = numerical_vjp(first_derivative, [x0], v)[0]
    np.testing.assert_allclose(hessian_v.numpy(), numerical, atol=1e-6, rtol=1e-5)

    fx = lambda t: f(t, w)   # noqa: E731
    assert torch.autograd.gradcheck(fx, (torch.tensor(x0, requires_grad=True),))
    assert torch.autograd.gradgradcheck(fx, (torch.tensor(x0, requires_grad=True),))


def test_second_derivative_of_mm_with_respect_to_both_factors():
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(torch.mm, (a, b))
    assert torch.autograd.gradgradcheck(torch.mm, (a, b))
    # d/db of sum(d(sum(a@b))/da) = d/db of sum(ones @ b.T) = 2 (each row sums b over columns)
    ga, = torch.autograd.grad(a.mm(b).sum(), a, create_graph=True)
    gb, = torch.autograd.grad(ga.sum(), b)
    assert gb.tolist() == [[2.0, 2.0], [2.0, 2.0]]


@given(hnp.arrays(np.float64, st.sampled_from([(5,), (2, 3)]), elements=floats(), unique=True))
@FAST
def test_amax_median_and_scatter_gradients_match_central_differences(array):
    if np.diff(np.sort(array.reshape(-1))).min() < 0.01:
        return   # nearly equal values: a tie within the central differences' step
    check(lambda x: x.amax(-1), lambda x: x.max(axis=-1), array)
    check(lambda x: x.amin(), lambda x: x.min(), array)
    check(lambda x: x.median(), lambda x: np.sort(x.reshape(-1))[(x.size - 1) // 2], array)
    middle = (array.shape[-1] - 1) // 2
    check(lambda x: x.median(-1).values, lambda x: np.sort(x, axis=-1)[..., middle], array)
    index = np.zeros((1,) * array.ndim, dtype=np.int64)

    def scattered(x, src):
        out = x.copy()
        out[(0,) * x.ndim] = src.reshape(-1)[0]   # index 0 along dim 0, at the first place of the other dims
        return out
    check(lambda x, src: x.scatter(0, torch.tensor(index), src), scattered, array, array.reshape(-1)[:1].reshape(index.shape) * 2)
    check(lambda x: (x * 1).pow_(3), lambda x: x ** 3, array)


# --------------------------------------------------------------------------- gradients
@TEN_EXAMPLES
@given(distinct_away_from_zero())
def test_gradients_of_flip_cumsum_selection_and_statistics_match_central_differences(array):
    index = torch.tensor([2, 0, 2])
    mask = torch.tensor([[True, False, True], [False, True, True]])
    check_float64(lambda t: t.flip(0, 1) * torch.arange(6.0, dtype=torch.float64).view(2, 3), array)
    check_float64(lambda t: t.cumsum(1), array)
    check_float64(lambda t: t.cumsum(0, dtype=torch.float64), array)
    check_float64(lambda t: t.index_select(1, index), array)
    check_float64(lambda t: t.masked_select(mask), array)
    check_float64(lambda t: t.gather(1, torch.tensor([[0, 0], [2, 1]])), array)
    check_float64(lambda t: torch.var_mean(t, 1), array)
    check_float64(lambda t: torch.std_mean(t, 0, keepdim=True), array)
    check_float64(lambda t: t.unbind(1), array)
    check_float64(lambda t: t.split_with_sizes([2, 1], 1), array)
    check_float64(lambda t: t.topk(2, dim=1).values, array)
    check_float64(lambda t: t.topk(1, dim=0, largest=False).values, array)


@TEN_EXAMPLES
@given(distinct_away_from_zero(), st.sampled_from([1, 2, 3, 0.5, float("inf"), float("-inf")]))
def test_norm_gradients_match_central_differences(array, p):
    check_float64(lambda t: t.norm(p), array)
    check_float64(lambda t: t.norm(p, dim=1, keepdim=True), array)


def test_norm_gradient_at_zero_and_for_the_zero_norm_are_pytorchs():
    z = torch.zeros(3, requires_grad=True)
    (z.norm() + z.norm(1) + z.norm(3) + z.norm(float("inf"))).backward()
    assert z.grad.tolist() == [0.0, 0.0, 0.0]
    w = sample_leaf([1.0, -3.0, 3.0])
    w.norm(float("inf")).backward()
    assert w.grad.tolist() == [0.0, -0.5, 0.5]   # shared between the tied maxima
    w.grad = None
    w.norm(0).backward()
    assert w.grad is None   # PyTorch's backward gives no gradient for the count of non-zeros


@TEN_EXAMPLES
@given(distinct_away_from_zero(), distinct_away_from_zero((3, 2)), hnp.arrays(np.float64, (2, 2), elements=st.floats(-2, 2)))
def test_product_gradients_match_central_differences(a, b, bias):
    check_float64(lambda t, u: torch.einsum("ij,jk->ik", t, u), a, b)
    check_float64(lambda t, u: torch.einsum("ij,kj->ik", t, u.t()), a, b)
    check_float64(lambda t: torch.einsum("ij,ij->i", t, t), a)
    check_float64(lambda t, u: torch.einsum("bij,jk->bik", torch.stack([t, 2 * t]), u), a, b)
    check_float64(lambda t, u: torch.einsum("i,j->ij", t[0], u[:, 1]), a, b)
    check_float64(lambda c, t, u: torch.addmm(c, t, u, beta=0.5, alpha=-2.0), bias, a, b)
    check_float64(lambda c, t, u: torch.addmm(c[0], t, u), bias, a, b)


@TEN_EXAMPLES
@given(distinct_away_from_zero((4, 3)))
def test_embedding_and_scatter_add_gradients_match_central_differences(weight):
    indices = torch.tensor([[0, 3], [3, 3]])
    check_float64(lambda w: F.embedding(indices, w), weight)
    check_float64(lambda w, s: w.scatter_add(0, torch.tensor([[1, 0, 1], [1, 3, 3]]), s), weight, weight[:2])
    check_float64(lambda w, s: (w * 1).scatter_add_(1, torch.tensor([[2], [0], [2], [1]]), s), weight, weight[:, :1])
    w, src = torch.tensor(weight, requires_grad=True), torch.tensor(weight, requires_grad=True)
    y = (w * 1).scatter_add_(1, torch.tensor([[2], [0], [2], [1]]), src)   # src larger than index: PyTorch too
    with pytest.raises(RuntimeError, match=r"^Function ScatterAddBackward0 returned an invalid gradient at index 1 - "
                                           r"got \[4, 1\] but expected shape compatible with \[4, 3\]$"):
        y.sum().backward()
