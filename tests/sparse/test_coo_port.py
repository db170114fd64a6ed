"""PyTorch's own catalogue of COO behaviour, ``test/test_sparse.py`` (PyTorch 2.13), rewritten for minigrad.

Each test here is named after the PyTorch test it ports and checks the same behaviour, on float64
(minigrad has no complex, half or bfloat16 dtypes, and no CUDA). The expected numbers come from numpy
(``dense``, below, builds the dense array from the parts independently of minigrad); the error texts
are those PyTorch 2.13 gives for the same calls. Where PyTorch's test exercises something minigrad
does not implement, the test checks that minigrad refuses it with a NotImplementedError naming it:
those are listed in ``REFUSED`` and counted apart.
"""
from __future__ import annotations

import itertools
import pickle
import re
import sys
import warnings

import numpy as np
import pytest

import minigrad as torch

coalescedonoff = pytest.mark.parametrize("coalesced", [True, False], ids=["coalesced", "uncoalesced"])


# ---------------------------------------------------------------------- helpers
def gen_sparse(sparse_dim, nnz, size, coalesced, dtype=torch.float64, seed=0):
    """A random sparse tensor as PyTorch's genSparseTensor makes it: ``nnz`` random coordinates in the
    sparse dimensions, random values; uncoalesced, the first half of the coordinates appears twice."""
    size = [size] * sparse_dim if isinstance(size, int) else list(size)
    rng = np.random.default_rng(seed)
    values = rng.standard_normal([nnz] + size[sparse_dim:])
    indices = (rng.random((sparse_dim, nnz)) * np.array(size[:sparse_dim])[:, None]).astype(np.int64)
    if not coalesced:
        indices = np.concatenate([indices[:, :nnz // 2], indices[:, :(nnz + 1) // 2]], axis=1)
    x = torch.sparse_coo_tensor(torch.tensor(indices), torch.tensor(values, dtype=dtype), size)
    x = x.coalesce() if coalesced else x._coalesced_(False)   # flagged uncoalesced even with fewer than 2 entries
    return x, x._indices().clone(), x._values().clone()


def dense(x) -> np.ndarray:
    """The dense array of a sparse tensor, from its parts, with numpy only (repeats add up)."""
    if not x.is_sparse:
        return x.detach().numpy()
    indices, values = x._indices().numpy(), x._values().numpy()
    out = np.zeros(tuple(x.shape), values.dtype)
    if indices.shape[0] == 0:
        out[...] = values.sum(axis=0)
    else:
        np.add.at(out, tuple(indices), values)
    return out


def assert_dense(actual, expected, **tolerance):
    np.testing.assert_allclose(dense(actual), dense(expected) if isinstance(expected, torch.Tensor) else expected,
                               **(tolerance or dict(rtol=1e-12, atol=1e-12)))


def assert_parts(x, indices, values):
    np.testing.assert_array_equal(x._indices().numpy(), np.asarray(indices))
    np.testing.assert_allclose(x._values().numpy(), np.asarray(values, dtype=float))


def truly_coalesced(x) -> bool:
    positions = [tuple(c) for c in x._indices().numpy().T]
    return positions == sorted(set(positions))


# ---------------------------------------------------------------------- TestSparseLegacyAndDeprecation
def test_legacy_warnings(monkeypatch):
    monkeypatch.setattr(sys.modules["minigrad.tensor"], "_warned", set())   # warned once per process: none yet
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        with pytest.warns(UserWarning, match=r"torch\.sparse\.SparseTensor\(indices, values, shape, \*, device=\) is "
                                             r"deprecated\.  Please use torch\.sparse_coo_tensor\(indices, values, "
                                             r"shape, dtype=, device=\)\."):
            x = torch.sparse.DoubleTensor(torch.tensor([[0, 0, 1, 1], [0, 1, 0, 1]]),
                                          torch.tensor([1, 2, 3, 4], dtype=torch.float64), (2, 3))
    assert x.dtype == torch.float64 and tuple(x.shape) == (2, 3)
    assert_dense(x, np.array([[1.0, 2.0, 0.0], [3.0, 4.0, 0.0]]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.sparse.DoubleTensor(2, 3)
        torch.sparse.DoubleTensor(2, 3)
    assert len([w for w in caught if "SparseTensor(shape" in str(w.message)]) == 1   # warned once


# ---------------------------------------------------------------------- TestSparse
@coalescedonoff
def test_basic(coalesced):
    for sparse_dims, nnz, with_size in [(3, 10, 100), (3, 10, [100, 100, 100]), (3, 10, [100, 100, 100, 5, 5, 5, 0]),
                                        (3, 0, [0, 0, 100, 5, 5, 5, 0])]:
        with_size = [with_size] * sparse_dims if isinstance(with_size, int) else with_size
        x, i, v = gen_sparse(sparse_dims, nnz, with_size, coalesced)
        assert np.array_equal(i.numpy(), x._indices().numpy()) and np.array_equal(v.numpy(), x._values().numpy())
        assert x.ndimension() == len(with_size) and list(x.size()) == with_size
        assert x.coalesce()._nnz() == (nnz if x.is_coalesced() else nnz // 2)
        if not coalesced:
            with pytest.raises(RuntimeError, match="^Cannot get indices on an uncoalesced tensor"):
                x.indices()
            with pytest.raises(RuntimeError, match="^Cannot get values on an uncoalesced tensor"):
                x.values()
        else:
            assert np.array_equal(x.indices().numpy(), x._indices().numpy())
            assert np.array_equal(x.values().numpy(), x._values().numpy())
    # coalesce handles repeated coordinates of a hybrid tensor
    i = torch.tensor([[9, 0, 0, 0, 8, 1, 1, 1, 2, 7, 2, 2, 3, 4, 6, 9]])
    v = torch.tensor([[idx ** 2, idx] for idx in range(i.size(1))], dtype=torch.float64)
    assert torch.sparse_coo_tensor(i, v, torch.Size([10, 2])).coalesce()._nnz() == 9


@coalescedonoff
def test_coalesce(coalesced):
    for empty_i, empty_v, empty_nnz in itertools.product([True, False], repeat=3):
        sparse_size = [] if empty_i else [2, 1]
        dense_size = [1, 0, 2] if empty_v else [1, 2]
        nnz = 0 if empty_nnz else 5
        t, _, _ = gen_sparse(len(sparse_size), nnz, sparse_size + dense_size, coalesced)
        tc = t.coalesce()
        assert tc.is_coalesced() and truly_coalesced(tc)
        assert_dense(tc, dense(t))
        expected = {}
        for idx, val in zip(t._indices().numpy().T, t._values().numpy()):
            expected[tuple(idx)] = expected.get(tuple(idx), 0) + val
        keys = sorted(expected)
        assert [tuple(c) for c in tc._indices().numpy().T] == keys
        if keys:
            np.testing.assert_allclose(tc._values().numpy(), np.stack([expected[k] for k in keys]))
        if t.is_coalesced():
            assert np.array_equal(tc._indices().numpy(), t._indices().numpy())


def test_coalesce_reference_cycle():
    import gc
    import weakref
    s = torch.sparse_coo_tensor(torch.tensor([[0], [4]]), torch.tensor([[[-0.4567, -1.8797, 0.0380, 1.4316]]],
                                                                       dtype=torch.float64)).coalesce()
    s.requires_grad_(True)
    s2 = s.coalesce()
    assert s2.is_coalesced()
    ref = weakref.ref(s2)
    del s2
    gc.collect()
    assert ref() is None or ref() is s   # coalesce() of a coalesced tensor is the tensor itself


def test_ctor_large_sizes():
    n = 100000
    with pytest.raises(RuntimeError):
        torch.sparse_coo_tensor(torch.tensor([[n, n - 1]] * 4), torch.tensor([1.0, 2.0], dtype=torch.float64),
                                (n + 1,) * 4)


def test_ctor_size_checks():
    indices = torch.tensor([[0, 0, 0], [0, 3, 0], [0, 0, 0], [0, 0, 0]])
    with pytest.raises(RuntimeError, match=r"'len\(size\) == sparse_dim \+ dense_dim' is not satisfied: len\(size\) "
                                           r"= 3, sparse_dim = 4, dense_dim = 0"):
        torch.sparse_coo_tensor(indices, torch.tensor([2.0, 1, 3, 4]), torch.Size([2, 1, 1]))
    with pytest.raises(RuntimeError, match=r"len\(size\) = 4, sparse_dim = 4, dense_dim = 1"):
        torch.sparse_coo_tensor(indices, torch.tensor([[2.0, 1, 2, 1], [1, 0, 5, 2]]), torch.Size([2, 4, 2, 1]))


@coalescedonoff
def test_ctor_is_coalesced_with_gradcheck(coalesced):
    for sparse_size, nnz in (((3, 3), 5), ((2, 3, 1, 5), 11)):
        t, _, _ = gen_sparse(len(sparse_size), nnz, sparse_size, coalesced)
        assert t.is_coalesced() == coalesced

        def func(indices, values, shape, is_coalesced):
            s = torch.sparse_coo_tensor(indices, values, shape, check_invariants=True, is_coalesced=is_coalesced)
            assert s.is_coalesced() == is_coalesced
            return s.to_dense(masked_grad=False)

        for shape in {tuple(t.shape), None}:
            values = t._values().requires_grad_(True)
            assert torch.autograd.gradcheck(func, (t._indices(), values, shape, False))
            if coalesced:
                assert torch.autograd.gradcheck(func, (t._indices(), values, shape, True))
            else:
                with pytest.raises(RuntimeError, match="^cannot set is_coalesced to true if indices correspond to "
                                                       "uncoalesced COO tensor$"):
                    torch.autograd.gradcheck(func, (t._indices(), values, shape, True))


@pytest.mark.parametrize("masked", [False, True], ids=["sparse", "masked"])
def test_to_dense_with_gradcheck(masked):
    i = torch.tensor([[0, 1, 2, 2], [0, 0, 0, 3], [0, 0, 1, 4]])
    x = torch.sparse_coo_tensor(i, torch.tensor([2.0, 1, 3, 4], dtype=torch.float64), torch.Size([3, 4, 5]))
    expected = np.zeros((3, 4, 5))
    expected[0, 0, 0], expected[1, 0, 0], expected[2, 0, 1], expected[2, 3, 4] = 2, 1, 3, 4
    for _ in range(3):
        x.to_dense()   # converting again and again gives the same
    np.testing.assert_array_equal(x.to_dense().numpy(), expected)
    x.requires_grad_(True)
    assert torch.autograd.gradcheck(lambda t: t.to_dense(masked_grad=masked), (x,), masked=masked)
    empty = torch.sparse_coo_tensor(i, torch.empty(4, 0, dtype=torch.float64), torch.Size([3, 4, 5, 0]))
    assert tuple(empty.to_dense().shape) == (3, 4, 5, 0)


@coalescedonoff
def test_to_sparse(coalesced):
    shape = [5, 2, 10, 4]
    max_nnz = 1
    for dim, dim_size in enumerate(shape, 1):
        max_nnz *= dim_size
        for nnz in [0, 1, max_nnz // 2]:
            expected, _, _ = gen_sparse(dim, nnz, shape, coalesced)
            d = expected.to_dense()
            result = d.to_sparse(dim)
            np.testing.assert_array_equal(dense(result), d.numpy())
            assert result.size() == expected.size() and result.sparse_dim() == dim and truly_coalesced(result)


def test_sparse_bool():
    a = torch.tensor([True, False])
    b = a.to_sparse().to_dense()
    assert b.dtype == torch.bool and b.tolist() == [True, False]


def test_scalar():
    a = torch.sparse_coo_tensor(torch.tensor([], dtype=torch.int64).unsqueeze(1), 12.3, [], dtype=torch.float64)
    assert a._values().numel() == 1 and a.coalesce().is_coalesced()
    assert_dense(a.clone(), a)
    assert a.to_dense().item() == pytest.approx(12.3)
    assert_dense(a.to_dense().to_sparse(), a)
    two = torch.sparse_coo_tensor(torch.zeros(0, 2, dtype=torch.int64), [12.3, 12.3], [], dtype=torch.float64)
    assert two._values().numel() == 2 and two.coalesce().is_coalesced()
    assert two.to_dense().item() == pytest.approx(24.6)
    assert_dense(two.coalesce().to_dense().to_sparse(), two)
    empty = torch.sparse_coo_tensor((), dtype=torch.float64)
    assert empty._values().numel() == 0 and empty.coalesce().is_coalesced()
    assert empty.to_dense().item() == 0
    assert empty.to_dense().to_sparse()._nnz() == 0


def test_shared():
    i = torch.tensor([[2]])
    v = torch.tensor([5.0], dtype=torch.float64)
    x = torch.sparse_coo_tensor(i, v, torch.Size([3]))
    v[0] = 6
    assert x.to_dense().tolist() == [0.0, 0.0, 6.0]
    i[0][0] = 0
    assert x.to_dense().tolist() == [6.0, 0.0, 0.0]
    x = torch.sparse_coo_tensor(i, torch.empty(1, 0, dtype=torch.float64), torch.Size([3, 0]))
    assert tuple(x.to_dense().shape) == (3, 0)


@pytest.mark.parametrize("masked", [False, True], ids=["sparse", "masked"])
def test_to_dense_hybrid(masked):
    i = torch.tensor([[0, 1, 2, 2], [0, 0, 0, 3]])
    v = torch.tensor([[2.0, 3], [1, 2], [3, 4], [4, 5]], dtype=torch.float64)
    x = torch.sparse_coo_tensor(i, v, torch.Size([3, 4, 2]))
    expected = np.zeros((3, 4, 2))
    expected[0, 0], expected[1, 0], expected[2, 0], expected[2, 3] = [2, 3], [1, 2], [3, 4], [4, 5]
    np.testing.assert_array_equal(x.to_dense().numpy(), expected)
    x.requires_grad_(True)
    assert torch.autograd.gradcheck(lambda t: t.to_dense(masked_grad=masked), (x,), masked=masked)
    empty = torch.sparse_coo_tensor(i, torch.empty(4, 2, 0, dtype=torch.float64), torch.Size([3, 4, 2, 0]))
    assert tuple(empty.to_dense().shape) == (3, 4, 2, 0)


def test_contig():
    cases = [
        ([[1, 0, 35, 14, 39, 6, 71, 66, 40, 27], [92, 31, 62, 50, 22, 65, 89, 74, 56, 34]], list(range(1, 11)),
         [100, 100], [[0, 1, 6, 14, 27, 35, 39, 40, 66, 71], [31, 92, 65, 50, 34, 62, 22, 56, 74, 89]],
         [2, 1, 6, 4, 10, 3, 5, 9, 8, 7]),
        ([[2, 0, 2, 1], [0, 0, 3, 0], [1, 0, 4, 0]], [3, 2, 4, 1], [3, 4, 5],
         [[0, 1, 2, 2], [0, 0, 0, 3], [0, 0, 1, 4]], [2, 1, 3, 4]),
        ([[0, 0, 2, 0], [0, 0, 3, 0], [0, 0, 4, 0]], [3, 2, 4, 1], [3, 4, 5], [[0, 2], [0, 3], [0, 4]], [6, 4]),
    ]
    for i, v, size, exp_i, exp_v in cases:
        x = torch.sparse_coo_tensor(torch.tensor(i), torch.tensor(v, dtype=torch.float64), size).coalesce()
        assert_parts(x, exp_i, exp_v)
        empty = torch.sparse_coo_tensor(torch.tensor(i), torch.empty(len(v), 0, dtype=torch.float64), size + [0])
        empty = empty.coalesce()
        assert_parts(empty, exp_i, np.empty((len(exp_v), 0)))


def test_contig_hybrid():
    i = [[2, 0, 2, 1], [0, 0, 3, 0], [1, 0, 4, 0]]
    x = torch.sparse_coo_tensor(torch.tensor(i), torch.tensor([[3.0, 3, 3], [2, 2, 2], [4, 4, 4], [1, 1, 1]]),
                                [3, 4, 5, 3]).coalesce()
    assert_parts(x, [[0, 1, 2, 2], [0, 0, 0, 3], [0, 0, 1, 4]], [[2, 2, 2], [1, 1, 1], [3, 3, 3], [4, 4, 4]])
    dup = [[0, 0, 2, 0], [0, 0, 3, 0], [0, 0, 4, 0]]
    x = torch.sparse_coo_tensor(torch.tensor(dup), torch.tensor([[3.0, 2, 3], [2, 1, 1], [4, 3, 4], [1, 1, 1]]),
                                [3, 4, 5, 3]).coalesce()
    assert_parts(x, [[0, 2], [0, 3], [0, 4]], [[6, 4, 5], [4, 3, 4]])
    x = torch.sparse_coo_tensor(torch.tensor(dup), torch.empty(4, 3, 0), [3, 4, 5, 3, 0]).coalesce()
    assert tuple(x._values().shape) == (2, 3, 0)


@coalescedonoff
def test_clone(coalesced):
    for sparse_dims, nnz, with_size in [(4, 20, 5), (3, 10, [100, 100, 100, 5, 5, 5, 0]),
                                        (3, 0, [0, 0, 100, 5, 5, 5, 0])]:
        x = gen_sparse(sparse_dims, nnz, with_size, coalesced)[0]
        if not coalesced:
            assert not x.is_coalesced() and not x.clone().is_coalesced()
        x = x.coalesce()
        assert x.is_coalesced() and x.clone().is_coalesced()


@coalescedonoff
def test_transpose(coalesced):
    for sparse_dims, nnz, with_size in [(4, 6, 3), (4, 3, [7, 7, 7, 3, 3, 3, 0]), (4, 0, [0, 0, 7, 3, 3, 3, 0])]:
        x = gen_sparse(sparse_dims, nnz, with_size, coalesced)[0]
        y = dense(x)
        for i, j in itertools.combinations(range(4), 2):
            x = x.transpose_(i, j)
            y = y.swapaxes(i, j)
            assert_dense(x, y)
            x = x.transpose(i, j)
            y = y.swapaxes(i, j)
            assert_dense(x, y)


@coalescedonoff
def test_coalesce_transpose_mm(coalesced):
    rng = np.random.default_rng(1)
    for di, dj, dk, nnz in [(10, 20, 30, 20), (0, 20, 30, 0), (10, 0, 30, 0), (10, 20, 0, 0), (10, 20, 0, 20)]:
        x, _, _ = gen_sparse(2, nnz, [dj, di], coalesced)
        y = torch.tensor(rng.standard_normal((dj, dk)))
        xc = x.coalesce()
        assert xc.is_coalesced()
        xt = xc.t()
        assert xt.is_coalesced() == (di * nnz == 0)   # coalesced only when there is nothing to sort
        np.testing.assert_allclose(torch.mm(xt, y).numpy(), dense(xt) @ y.numpy(), atol=1e-12)


def test_t_empty():
    for shape in [(2, 3), (2, 0)]:
        x = torch.sparse_coo_tensor(shape, dtype=torch.float64)
        y = x.t()
        assert tuple(y.size()) == shape[::-1] and y._indices().numel() == 0 and y._values().numel() == 0
        x.t_()
        assert tuple(x.size()) == shape[::-1] and x.sparse_dim() == 2 and x.dense_dim() == 0


@coalescedonoff
def test_add_zeros(coalesced):
    for sparse_dims, nnz, sizes in [(1, 20, [1]), (4, 20, [3, 17, 19, 5]), (2, 20, [3, 17, 19, 5]),
                                    (2, 20, [3, 17, 19, 0])]:
        x, _, _ = gen_sparse(sparse_dims, nnz, sizes, coalesced)
        zeros = torch.sparse_coo_tensor(x._indices()[:, :0], x._values()[:0], sizes)
        assert_dense(zeros + x, x)
        assert_dense(x + zeros, x)


def test_add_sub_nnz():
    x = torch.tensor(np.random.default_rng(2).standard_normal(10)).to_sparse()
    x.add_(x)
    x.add_(x)
    assert x._nnz() <= 10
    x.sub_(2 * x)
    x.sub_(2 * x)
    assert x._nnz() <= 10


@coalescedonoff
def test_mm(coalesced):
    rng = np.random.default_rng(3)
    for di, dj, dk, nnz in [(10, 100, 100, 20), (100, 1000, 200, 20), (64, 10000, 300, 20), (0, 100, 100, 0),
                            (10, 0, 100, 0), (10, 100, 0, 0), (10, 100, 0, 20)]:
        x, _, _ = gen_sparse(2, nnz, [di, dj], coalesced)
        t = torch.tensor(rng.standard_normal((di, dk)))
        y = torch.tensor(rng.standard_normal((dj, dk)))
        alpha, beta = rng.random(), rng.random()
        expected = beta * t.numpy() + alpha * dense(x) @ y.numpy()
        np.testing.assert_allclose(torch.addmm(t, x, y, beta=beta, alpha=alpha).numpy(), expected, atol=1e-12)
        np.testing.assert_allclose(torch.addmm(t, x, y).numpy(), t.numpy() + dense(x) @ y.numpy(), atol=1e-12)
        np.testing.assert_allclose(torch.mm(x, y).numpy(), dense(x) @ y.numpy(), atol=1e-12)


@coalescedonoff
def test_sparse_addmm(coalesced):
    rng = np.random.default_rng(4)
    for m, n, p, nnz, broadcast, alpha_beta in [(7, 8, 9, 20, False, None), (7, 8, 9, 20, True, None),
                                                (7, 8, 9, 20, False, (1, 0)), (7, 8, 9, 20, True, (1, 0)),
                                                (7, 8, 9, 20, False, (1, 1)), (7, 8, 9, 20, True, (1, 1))]:
        alpha, beta = alpha_beta if alpha_beta else (rng.random(), rng.random())
        d1 = torch.tensor(rng.standard_normal(() if broadcast else (n, p)), requires_grad=True)
        d2 = torch.tensor(rng.standard_normal((m, p)), requires_grad=True)
        s = gen_sparse(2, nnz, [n, m], coalesced)[0].requires_grad_(True)
        y = torch.sparse.addmm(d1, s, d2, beta=beta, alpha=alpha)
        np.testing.assert_allclose(y.detach().numpy(), beta * d1.detach().numpy() + alpha * dense(s) @ d2.detach().numpy(),
                                   atol=1e-12)
        assert torch.autograd.gradcheck(lambda s, d1, d2: torch.sparse.addmm(d1, s, d2, beta=beta, alpha=alpha),
                                        (s, d1, d2), masked=True)


@coalescedonoff
@pytest.mark.parametrize("transposed", [False, True])
def test_sparse_mm(coalesced, transposed):
    rng = np.random.default_rng(5)
    d1, d2, d3, nnz = 7, 8, 9, 20
    if transposed:
        d = torch.tensor(rng.standard_normal((d3, d2))).t().detach().requires_grad_(True)
    else:
        d = torch.tensor(rng.standard_normal((d2, d3))).requires_grad_(True)
    s = gen_sparse(2, nnz, [d1, d2], coalesced)[0].requires_grad_(True)
    np.testing.assert_allclose(torch.sparse.mm(s, d).detach().numpy(), dense(s) @ d.detach().numpy(), atol=1e-12)
    assert torch.autograd.gradcheck(lambda s, d: torch.sparse.mm(s, d), (s, d), masked=True)


@coalescedonoff
@pytest.mark.parametrize("masked", [False, True], ids=["sparse", "masked"])
def test_sparse_mul(coalesced, masked):
    a = torch.tensor([[0.0, 1]], dtype=torch.float64).to_sparse().requires_grad_(True)
    b = torch.tensor([[0.0, 1]], dtype=torch.float64).to_sparse().requires_grad_(True)
    assert torch.autograd.gradcheck(lambda x, y: torch.sparse.sum(x * y).to_dense(masked_grad=masked), [a, b],
                                    eps=1e-4, masked=masked)


@coalescedonoff
def test_spadd(coalesced):
    rng = np.random.default_rng(6)
    shapes = [(10, [5, 6], []), (10, [10, 10, 10], []), (10, [50, 30, 20], []), (10, [5, 5, 5, 5, 5, 5], []),
              (0, [0, 30, 20], []), (0, [50, 0, 20], []), (0, [50, 30, 0], []),
              (10, [5, 6], [2, 3]), (10, [10, 10, 10], [3]), (10, [50, 30, 20], [2]), (10, [5, 5, 5, 5, 5, 5], [2]),
              (0, [0, 30, 20], [2, 0]), (0, [50, 0, 20], [2, 0]), (0, [50, 30, 0], [2, 0]), (10, [50, 30, 20], [2, 0])]
    for nnz, shape_i, shape_v in shapes:
        shape = shape_i + shape_v
        x, i, v = gen_sparse(len(shape_i), nnz, shape, coalesced)
        y = torch.tensor(rng.standard_normal(shape))
        r = rng.random()
        np.testing.assert_allclose(torch.add(y, x, alpha=r).numpy(), y.numpy() + r * dense(x), atol=1e-12)
        transposed = list(shape)
        transposed[0], transposed[-1] = shape[-1], shape[0]
        y = torch.tensor(rng.standard_normal(transposed)).transpose(0, len(shape) - 1)   # not contiguous
        np.testing.assert_allclose(torch.add(y, x, alpha=r).numpy(), y.numpy() + r * dense(x), atol=1e-12)
        n = i.size(1)
        for part in (torch.sparse_coo_tensor(i[:, ::2], v[:(n + 1) // 2], x.shape),    # strided indices
                     torch.sparse_coo_tensor(i[:, :(n + 1) // 2], v[::2], x.shape),    # strided values
                     torch.sparse_coo_tensor(i[:, 1::2], v[1::2], x.shape)):
            np.testing.assert_allclose(torch.add(y, part, alpha=r).numpy(), y.numpy() + r * dense(part), atol=1e-12)


@coalescedonoff
def test_norm(coalesced):
    for sparse_dims, nnz, with_size in [(3, 10, 100), (4, 10, [100, 100, 100, 5, 5, 5, 0]),
                                        (4, 0, [0, 0, 100, 5, 5, 5, 0])]:
        x, _, _ = gen_sparse(sparse_dims, nnz, with_size, coalesced)
        assert x.norm().item() == pytest.approx(float(np.linalg.norm(x.coalesce()._values().numpy())))
    x = gen_sparse(3, 10, 100, coalesced)[0]
    for kwargs, error, message in [
            ({"keepdim": True}, RuntimeError, r"^norm_sparse currently does not support keepdim=True$"),
            ({"dim": 0}, RuntimeError, r"^norm_sparse currently only supports full reductions, so 'dim' must either "
                                       r"be empty or contain all dimensions of the input$"),
            ({"dtype": torch.double, "p": "fro"}, ValueError, r"^dtype argument is not supported in frobenius norm$"),
            ({"dtype": torch.double, "p": 0}, RuntimeError, r"^norm_sparse currently does not support 'dtype' "
                                                            r"argument$")]:
        with pytest.raises(error, match=message):
            x.norm(**kwargs)


@coalescedonoff
def test_sparse_sum(coalesced):
    x = torch.tensor([[1.0, 0, 0, 1], [0, 1, 0, 0], [0, 1, 1, 0], [0, 1, 0, 2]], dtype=torch.float64).to_sparse()
    assert_dense(torch.sparse.sum(x, dim=0), dense(torch.sparse.sum(x, dim=-2)))
    assert_dense(torch.sparse.sum(x, dim=0), dense(x).sum(0))
    with_size = [5, 5, 1, 4]   # a dense dimension of 1, which a sum squeezes
    s = gen_sparse(2, 10, with_size, coalesced)[0]
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-4, 3\], but got 5\)"):
        torch.sparse.sum(s, 5)
    with pytest.raises(RuntimeError, match=r"^dim 0 appears multiple times in the list of dims$"):
        torch.sparse.sum(s, [0, 0])
    empty = torch.sparse_coo_tensor(size=with_size, dtype=torch.float64)
    assert_dense(torch.sparse.sum(empty, [0]), np.zeros((5, 1, 4)))
    assert torch.sparse.sum(empty).item() == 0
    empty.requires_grad_(True)
    torch.sparse.sum(empty).backward()
    assert empty.grad.is_sparse and np.array_equal(dense(empty.grad), np.zeros(with_size))
    s = gen_sparse(2, 10, with_size, coalesced)[0].requires_grad_(True)
    assert torch.sparse.sum(s).item() == pytest.approx(float(dense(s).sum()))
    assert torch.autograd.gradcheck(lambda t: torch.sparse.sum(t), (s,), masked=True)
    for k in range(1, 5):
        for dims in itertools.combinations(range(len(with_size)), k):
            s = gen_sparse(2, 10, with_size, coalesced)[0].requires_grad_(True)
            result = torch.sparse.sum(s, dims)
            np.testing.assert_allclose(dense(result), dense(s).sum(axis=dims), atol=1e-12)
            assert torch.autograd.gradcheck(lambda t: torch.sparse.sum(t, dims).to_dense(masked_grad=True), (s,),
                                            masked=True)


def _basic_ops(nnz_x1, nnz_x2, shape_i, shape_v, coalesced):
    shape = shape_i + shape_v
    x1, _, _ = gen_sparse(len(shape_i), nnz_x1, shape, coalesced, seed=7)
    x2, _, _ = gen_sparse(len(shape_i), nnz_x2, shape, coalesced, seed=8)
    d1, d2 = dense(x1), dense(x2)
    for out, in_place, expected in [(x1 + x2, lambda y: y.add_(x2), d1 + d2), (x1 - x2, lambda y: y.sub_(x2), d1 - d2),
                                    (x1 * x2, lambda y: y.mul_(x2), d1 * d2),
                                    (x1 * 37.5, lambda y: y.mul_(37.5), d1 * 37.5),
                                    (x1 / 37.5, lambda y: y.div_(37.5), d1 / 37.5),
                                    (x1 // 37.5, None, np.floor_divide(d1, 37.5)), (x1 ** 2, None, d1 ** 2)]:
        assert_dense(out, expected)
        if in_place is not None:
            assert_dense(in_place(x1.clone()), expected)
    y = x1.clone()
    y.zero_()
    assert_dense(y, np.zeros(shape))
    assert x1.is_coalesced() == coalesced
    y, z = x1.coalesce(), x1.coalesce()
    assert x1.is_coalesced() == coalesced and y.is_coalesced()
    y._values().add_(1)
    if not x1.is_coalesced():   # coalesce() of an uncoalesced tensor copies...
        np.testing.assert_allclose(z._values().numpy() + 1, y._values().numpy())
    else:                       # ...and of a coalesced one is the tensor itself
        np.testing.assert_allclose(z._values().numpy(), y._values().numpy())


@coalescedonoff
def test_basic_ops(coalesced):
    for args in [(9, 12, [5, 6], []), (9, 12, [10, 10, 10], []), (9, 12, [50, 30, 20], []),
                 (9, 12, [5, 5, 5, 5, 5, 5], []), (0, 12, [10, 10, 10], []), (9, 0, [10, 10, 10], []),
                 (0, 0, [10, 10, 10], []), (0, 0, [10, 10, 0], []), (0, 0, [], []),
                 (9, 12, [5, 6], [2, 3]), (9, 12, [10, 10, 10], [3]), (9, 12, [50, 30, 20], [2]),
                 (9, 12, [5, 5, 5, 5, 5, 5], [2]), (0, 12, [10, 10, 10], [2]), (9, 0, [10, 10, 10], [2]),
                 (0, 0, [10, 10, 10], [2]), (9, 12, [10, 10, 10], [2, 0]), (0, 12, [10, 10, 10], [2, 0]),
                 (9, 0, [10, 10, 10], [2, 0]), (0, 0, [10, 10, 10], [2, 0]), (0, 0, [10, 10, 0], [2, 0])]:
        _basic_ops(*args, coalesced)


def test_add_dense_sparse_mismatch():
    rng = np.random.default_rng(9)
    for dense_size, sparse_dims_shape, dense_dims_shape, sparse_size in [([3, 4], [1, 4], [4, 4, 4], [3, 4, 4]),
                                                                         ([3, 4, 0], [1, 4], [4, 4, 4, 0],
                                                                          [3, 4, 4, 0])]:
        x = torch.zeros(dense_size, dtype=torch.float64)
        y = torch.sparse_coo_tensor(torch.zeros(sparse_dims_shape, dtype=torch.int64),
                                    torch.tensor(rng.standard_normal(dense_dims_shape)), torch.Size(sparse_size))
        with pytest.raises(RuntimeError, match=r"^add: expected 'self' and 'other' to have same size, but self has "
                                               rf"size {dense_size} while other has size {sparse_size} \(FYI: "
                                               r"dense-sparse addition does not currently support broadcasting\)$"
                                               .replace("[", r"\[").replace("]", r"\]")):
            x + y


def test_add_noncontiguous():
    indices = torch.tensor([[1, 2], [0, 2]])
    values = torch.tensor([1.0], dtype=torch.float64).expand(2, 3, 4, 5)
    x = torch.sparse_coo_tensor(indices, values)
    assert not x._values().is_contiguous()
    assert_dense(x + x, 2 * dense(x))


@coalescedonoff
def test_neg_negative(coalesced):
    inputs = []
    if coalesced:
        inputs += [torch.sparse_coo_tensor(torch.tensor([[0, 1, 2]]), torch.tensor([3.0, -4.0, 5.0]), [3],
                                           dtype=torch.float64).coalesce(),
                   torch.sparse_coo_tensor(torch.tensor([[1, 3], [2, 4]]), torch.tensor([[-1.0, 3.0], [-5.0, 7.0]]),
                                           [4, 5, 2], dtype=torch.float64).coalesce()]
    else:
        inputs += [torch.sparse_coo_tensor(torch.tensor([[0], [1], [2], [0], [1], [2]]).transpose(1, 0),
                                           torch.tensor([2.0, -3.0, -4.0, 1.0, -1.0, 1.5]), [3], dtype=torch.float64),
                   torch.sparse_coo_tensor(torch.zeros([2, 0]), torch.zeros([0, 5, 5, 5, 5, 5, 5, 0]),
                                           [0, 0, 5, 5, 5, 5, 5, 5, 0], dtype=torch.float64)]
    for s in inputs:
        expected = -dense(s)
        for op in (torch.neg, lambda t: t.neg(), lambda t: t.neg_(), lambda t: t.negative(), lambda t: -t):
            assert_dense(op(s.clone()), expected)


@coalescedonoff
def test_mv(coalesced):
    rng = np.random.default_rng(10)
    for di, dj, dk, nnz in [(10, 100, 100, 20), (100, 1000, 1000, 20), (64, 10000, 10000, 20), (0, 100, 100, 0),
                            (10, 0, 0, 0), (10, 100, 100, 0), (10, 100, 100, 20)]:
        x, _, _ = gen_sparse(2, nnz, [di, dj], coalesced)
        t = torch.tensor(rng.standard_normal(dk))
        np.testing.assert_allclose(x.matmul(t).numpy(), dense(x) @ t.numpy(), atol=1e-12)
    x, _, _ = gen_sparse(2, 20, [10, 100], coalesced)
    with pytest.raises(RuntimeError, match=r"^mv: expected self\.size\(-1\) == vec\.size\(-1\)$"):
        x.matmul(torch.ones(10, dtype=torch.float64))
    y, _, _ = gen_sparse(2, 20, [10, 100], coalesced)
    with pytest.raises(RuntimeError, match=r"^mv: two tensor dim should be 2 and 1"):
        x.mv(y)


def test_sparse_add_coalesce():
    for v in (torch.tensor([3.0, 4, 5], dtype=torch.float64), torch.empty(3, 0, dtype=torch.float64)):
        i = torch.tensor([[1, 2, 1]])
        x = torch.sparse_coo_tensor(i, v, torch.Size([3] + list(v.shape[1:])))
        y = torch.sparse_coo_tensor(i, v, torch.Size([3] + list(v.shape[1:])))
        z = x + y
        assert not (z._indices().numel() != 2 and z.is_coalesced())   # flagged coalesced only when it is


@coalescedonoff
def test_new(coalesced):
    for sparse_dims, nnz, with_size in [(3, 10, 100), (3, 0, [100, 100, 0])]:
        x, indices, values = gen_sparse(sparse_dims, nnz, with_size, coalesced)
        out = x.new(indices, values).coalesce()
        x_c = x.coalesce()
        assert np.array_equal(out.indices().numpy(), x_c.indices().numpy())
        np.testing.assert_array_equal(out.values().numpy(), x_c.values().numpy())
        assert_dense(x.new(indices, values, x.size()), x)


def test_factory():
    for empty_values in [True, False]:
        default_size, size = (torch.Size([1, 3, 0]), torch.Size([3, 3, 0])) if empty_values else \
            (torch.Size([1, 3]), torch.Size([3, 3]))
        for include_size, use_tensor_idx, use_tensor_val in itertools.product([True, False], repeat=3):
            indices = torch.tensor(([0], [2])) if use_tensor_idx else ([0], [2])
            values = torch.empty(1, 0) if empty_values else (torch.tensor([1.0]) if use_tensor_val else 1.0)
            args = (indices, values, size) if include_size else (indices, values)
            t = torch.sparse_coo_tensor(*args, dtype=torch.float64, requires_grad=True)
            assert t._indices().tolist() == [[0], [2]]
            assert t.size() == (size if include_size else default_size)
            assert t.dtype == torch.float64 and t.requires_grad


def test_factory_size_check():
    indices = torch.tensor([[1, 2], [0, 2]])
    with pytest.raises(RuntimeError, match="^size is inconsistent with indices"):
        torch.sparse_coo_tensor(indices, torch.tensor([0.5, 0.5]), torch.Size([2, 3]))
    with pytest.raises(RuntimeError, match="^found negative index"):
        torch.sparse_coo_tensor(torch.full((2, 2), -1), torch.tensor([0.5, 0.5]), torch.Size([2, 3]))
    with pytest.raises(RuntimeError, match="^size is inconsistent with indices"):
        torch.sparse_coo_tensor(indices, torch.empty(2, 1, 0), torch.Size([2, 3, 1, 0]))
    with pytest.raises(RuntimeError, match="^size is inconsistent with indices"):
        torch.sparse_coo_tensor(indices, torch.empty(2, 2, 2), torch.Size([0, 0, 2, 2]))
    with pytest.raises(RuntimeError, match=r"^values has incorrect size, expected \[2, 2\], got \[2, 3\]$"):
        torch.sparse_coo_tensor(indices, torch.ones(2, 3), torch.Size([3, 3, 2]))
    with pytest.raises(RuntimeError, match=r"^values has incorrect size, expected \[2, 2, 0\], got \[2, 1, 0\]$"):
        torch.sparse_coo_tensor(indices, torch.empty(2, 1, 0), torch.Size([3, 3, 2, 0]))


def test_factory_empty_indices():
    for size, n in [([2, 0], 2), ([2, 2, 0], 3), ([2, 2, 0, 0], 4)]:
        t = torch.sparse_coo_tensor(torch.Size(size))
        assert tuple(t._indices().shape) == (n, 0) and t._indices().dtype == torch.int64


def test_factory_nnz():
    for values, size in [(torch.ones(2, 2), [2, 2]), (torch.empty(2, 0), [2, 0])]:
        with pytest.raises(RuntimeError, match=r"^indices and values must have same nnz, but got nnz from indices: 1, "
                                               r"nnz from values: 2$"):
            torch.sparse_coo_tensor(torch.tensor([[0]]), values, torch.Size(size))


def test_factory_nnz_zero():
    for i_shape, v_shape, size, expected in [([1, 0], [0, 2, 4, 0], None, [0, 2, 4, 0]),
                                             ([3, 0], [0, 2, 4, 0], None, [0, 0, 0, 2, 4, 0]),
                                             ([1, 0], [0, 2, 4, 0], [0, 2, 4, 0], [0, 2, 4, 0]),
                                             ([3, 0], [0, 2, 4, 0], [0, 0, 0, 2, 4, 0], [0, 0, 0, 2, 4, 0]),
                                             ([3, 0], [0, 2, 4, 0], [1, 2, 3, 2, 4, 0], [1, 2, 3, 2, 4, 0])]:
        args = (torch.empty(i_shape), torch.empty(v_shape)) + ((torch.Size(size),) if size else ())
        t = torch.sparse_coo_tensor(*args, dtype=torch.float64)
        assert tuple(t._indices().shape) == tuple(i_shape) and t._indices().dtype == torch.int64
        assert tuple(t._values().shape) == tuple(v_shape) and list(t.size()) == expected


def test_factory_dense_dim():
    with pytest.raises(RuntimeError, match=r"^values has incorrect size, expected \[1, 3, 4\], got \[1, 2, 3\]$"):
        torch.sparse_coo_tensor(torch.tensor([[0]]), torch.ones(1, 2, 3), torch.Size([1, 3, 4]))
    with pytest.raises(RuntimeError, match=r"^values has incorrect size"):
        torch.sparse_coo_tensor(torch.tensor([[0]]), torch.empty(1, 2, 3, 0), torch.Size([1, 3, 4, 0]))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64])
def test_factory_type_inference(dtype):
    assert torch.sparse_coo_tensor(torch.tensor(([0], [2])), torch.tensor([1], dtype=dtype)).dtype == dtype
    assert torch.sparse_coo_tensor(torch.tensor(([0], [2])), torch.tensor([1])).dtype == torch.int64
    for legacy, expected in [(torch.FloatTensor, torch.float32), (torch.DoubleTensor, torch.float64),
                             (torch.LongTensor, torch.int64)]:
        assert torch.sparse_coo_tensor(torch.tensor(([0], [2])), legacy(1, 0)).dtype == expected


def test_factory_copy():
    def shares(indices, values):
        t = torch.sparse_coo_tensor(indices, values, dtype=torch.float64)
        return (indices.data_ptr() == t._indices().data_ptr(), values.data_ptr() == t._values().data_ptr())
    assert shares(torch.tensor(([0], [2])), torch.tensor([1.0], dtype=torch.float64)) == (True, True)
    assert shares(torch.tensor(([0], [2])), torch.tensor([1.0], dtype=torch.float32)) == (True, False)
    assert shares(torch.tensor(([0], [2]), dtype=torch.int32), torch.tensor([1.0], dtype=torch.float64)) == \
        (False, True)
    assert shares(torch.tensor(([0], [2]), dtype=torch.int32), torch.tensor([1.0])) == (False, False)


def test_legacy_new_device():
    s = torch.sparse_coo_tensor(torch.tensor([[0, 1, 1], [2, 0, 2]]), torch.tensor([3.0, 4.0, 5.0]), (2, 3))
    for call in (lambda: s.new(device="cuda"), lambda: s.new(s._indices(), s._values(), device="cuda"),
                 lambda: s.new(torch.Size([2, 3, 4]), device="cuda")):
        with pytest.raises(RuntimeError):
            call()


def test_legacy_new():
    i, v = torch.tensor([[0, 1, 1], [2, 0, 2]]), torch.tensor([3.0, 4.0, 5.0])
    s = torch.sparse_coo_tensor(i, v, torch.Size([2, 3]))
    assert s.new(device="cpu").layout == torch.sparse_coo
    with pytest.raises(TypeError, match=r"^new\(\) received an invalid combination of arguments - got \(Tensor\)"):
        s.new(v)
    assert s.new(torch.Size([2, 3])).layout == torch.sparse_coo
    with pytest.raises(TypeError, match=r"^SparseTensor\.new\(sequence\) only accepts sizes\."):
        s.new([6])


def test_empty_full():
    for requires_grad in (True, False):
        v = torch.sparse_coo_tensor((2, 3), dtype=torch.float64, requires_grad=requires_grad)
        assert tuple(v.shape) == (2, 3) and v.dtype is torch.float64 and v.layout is torch.sparse_coo
        assert v.requires_grad == requires_grad
        zeros = torch.zeros_like(v)
        assert zeros.layout is torch.sparse_coo and not zeros.requires_grad and zeros.dtype is torch.float64
        assert torch.zeros_like(v, dtype=torch.int64).dtype is torch.int64


def test_is_sparse():
    assert not torch.randn(3, 3).is_sparse and not torch.randn(3, 3, 0).is_sparse
    assert torch.sparse_coo_tensor((1, 0)).is_sparse


def test_is_nonzero():
    assert torch.sparse_coo_tensor(([0],), 1.0, (1,)).is_nonzero()
    assert not torch.sparse_coo_tensor(([0],), 0.0, (1,)).is_nonzero()
    assert not torch.sparse_coo_tensor(([0], [0]), 0.0, (1, 1)).is_nonzero()
    assert not torch.sparse_coo_tensor(([0, 0],), (0.0, 0.0), (1,)).is_nonzero()
    assert not torch.sparse_coo_tensor(([0, 0],), (-1.0, 1.0), (1,)).is_nonzero()   # repeats add up to 0
    assert torch.sparse_coo_tensor(torch.zeros(0, 1), 12.3, []).is_nonzero()
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with no values is ambiguous$"):
        torch.sparse_coo_tensor(([0, 1],), torch.empty(2, 0), (4, 0)).is_nonzero()


@coalescedonoff
def test_pickle(coalesced):
    for shape, sparse_dim, nnz in [((), 0, 2), ((0,), 0, 10), ((2,), 0, 3), ((100, 3), 1, 3), ((100, 20, 3), 2, 0),
                                   ((10, 0, 3), 0, 3), ((10, 0, 3), 0, 0)]:
        indices = np.arange(sparse_dim * nnz, dtype=np.int64).reshape(sparse_dim, nnz)
        for d in range(sparse_dim):
            indices[d] = np.minimum(indices[d], shape[d] - 1)
        if not coalesced and indices.size:
            indices[:, -1] = indices[:, 0]
        values_shape = (nnz,) + shape[sparse_dim:]
        values = np.arange(int(np.prod(values_shape)), dtype=np.float64).reshape(values_shape)
        t = torch.sparse_coo_tensor(torch.tensor(indices), torch.tensor(values), shape)
        loaded = pickle.loads(pickle.dumps(t))
        assert loaded.is_sparse and loaded.shape == t.shape and loaded.is_coalesced() == t.is_coalesced()
        assert_parts(loaded, t._indices().numpy(), t._values().numpy())


def test_any():
    t = torch.sparse_coo_tensor(torch.tensor(([0, 0], [2, 0])), torch.tensor([False, False]))
    assert torch.any(t).item() is False
    t = torch.sparse_coo_tensor(torch.tensor(([0, 0], [2, 0])), torch.tensor([True, False]))
    assert torch.any(t).item() is True


@coalescedonoff
def test_div_rounding_mode(coalesced):
    sparse, _, _ = gen_sparse(2, 10, (10, 10), coalesced)
    d = dense(sparse)
    for mode, expected in [(None, d / -2), ("floor", np.floor_divide(d, -2)), ("trunc", np.trunc(d / -2))]:
        assert_dense(sparse.div(-2, rounding_mode=mode), expected)
        assert_dense(sparse.clone().div_(-2, rounding_mode=mode), expected)


def test_div_by_sparse_error():
    with pytest.raises(RuntimeError, match=r"^Sparse division requires a scalar or zero-dim dense tensor divisor "
                                           r"\(got a sparse divisor\)$"):
        torch.tensor(1.0).to_sparse() / torch.tensor(1.0).to_sparse()


def test_floor_divide_by_sparse_error():
    with pytest.raises(RuntimeError, match=r"^Sparse floor division requires a scalar or zero-dim dense tensor "
                                           r"divisor \(got a sparse divisor\)$"):
        torch.tensor(1.0).to_sparse() // torch.tensor(1.0).to_sparse()


def test_sparse_to_numpy():
    t = torch.sparse_coo_tensor(torch.tensor(([0, 0], [2, 0])), torch.tensor([1, 4]))
    with pytest.raises(TypeError, match=r"^can't convert Sparse layout tensor to numpy\. Use Tensor\.to_dense\(\) "
                                        r"first\.$"):
        t.numpy()


@coalescedonoff
@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta state")   # PyTorch's, once per process
def test_sparse_matmul(coalesced):
    for n, m, p in [(2, 3, 4), (4, 2, 7), (3, 7, 2)]:
        a = gen_sparse(2, 10, [n, m], coalesced, seed=11)[0]
        b = gen_sparse(2, 10, [m, p], coalesced, seed=12)[0]
        product = torch.sparse.mm(a, b)
        np.testing.assert_allclose(dense(product), dense(a) @ dense(b), atol=1e-12)
        assert product.is_coalesced() and truly_coalesced(product)
        a.requires_grad_(True)
        b.requires_grad_(True)
        assert torch.autograd.gradcheck(lambda x, y: torch.sparse.mm(x, y).to_dense(), (a, b), masked=True)
    for shapes in ([0, 0], [0, 0]), ([0, 10], [10, 0]):
        a, b = gen_sparse(2, 0, shapes[0], coalesced)[0], gen_sparse(2, 0, shapes[1], coalesced)[0]
        assert tuple(torch.sparse.mm(a, b).shape) == (shapes[0][0], shapes[1][1])
    with pytest.raises(RuntimeError):
        torch.sparse.mm(gen_sparse(3, 4, [2, 2, 2], coalesced)[0], gen_sparse(3, 4, [2, 2, 2], coalesced)[0])
    with pytest.raises(RuntimeError, match=r"^mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x2\)$"):
        torch.sparse.mm(gen_sparse(2, 10, [2, 3], coalesced)[0], gen_sparse(2, 10, [4, 2], coalesced)[0])
    a = gen_sparse(2, 10, [2, 2], coalesced)[0]
    with pytest.raises(RuntimeError, match=r"^mat1 dtype Double does not match mat2 dtype Float$"):
        torch.sparse.mm(a, a.to(torch.float32))
    for _ in range(3):   # a non-contiguous incoming gradient
        eye = torch.tensor(np.eye(5)).to_sparse().requires_grad_(True)
        out = torch.sparse.mm(eye, torch.tensor(np.eye(5)).to_sparse())
        out.coalesce().values().sum().backward()
        assert_dense(eye.grad, np.eye(5))


def test_assign():
    a = gen_sparse(2, 5, [2, 3], True)[0]
    with pytest.raises(TypeError, match="^Cannot assign to a sparse tensor$"):
        a[0] = 100


def test_small_nnz_coalesced():
    assert torch.sparse_coo_tensor([[], []], [], (2, 2)).is_coalesced()
    assert torch.sparse_coo_tensor([[0], [0]], [1], (2, 2)).is_coalesced()
    assert not torch.sparse_coo_tensor([[0, 0], [0, 0]], [1, 2], (2, 2)).is_coalesced()
    assert not torch.sparse_coo_tensor([[0, 1], [0, 1]], [1, 2], (2, 2)).is_coalesced()


@coalescedonoff
def test_sum(coalesced):
    for shape in [(10, 5), (10, 10)]:
        for nnz in (0, max(shape), shape[0] * shape[1]):
            a = gen_sparse(2, nnz, shape, coalesced)[0]
            assert a.sum().item() == pytest.approx(float(a._values().numpy().sum()))
            a.requires_grad_(True)
            total = a.sum()
            total.abs().backward()
            np.testing.assert_allclose(dense(a.grad), np.ones(shape) * np.sign(total.item()))


@coalescedonoff
def test_sparse_dense_mul(coalesced):
    shape = (2, 3, 4, 10)
    rng = np.random.default_rng(13)
    for dim in range(len(shape) + 1):
        sub_shape = shape[dim:]
        sparse_dim = len(sub_shape) // 2
        s = gen_sparse(sparse_dim, 10, sub_shape, coalesced)[0]
        for scalar in (True, 1, 1.0):
            right, left = s * scalar, scalar * s
            assert right.dtype == left.dtype == torch.float64
            assert_dense(right, dense(s) * scalar)
            assert_dense(left, dense(s) * scalar)
            sscalar = torch.tensor(scalar).to_sparse()
            assert_dense(s * sscalar, dense(s) * scalar)
            assert_dense(sscalar * s, dense(s) * scalar)
        for scalar_type in (int, float):   # an uncoalesced 0-dim sparse tensor
            sscalar = torch.sparse_coo_tensor(torch.tensor([]).reshape(0, 2), torch.tensor([scalar_type(1)] * 2), ())
            assert_dense(s * sscalar, dense(s) * 2)
            assert_dense(sscalar * s, dense(s) * 2)
        # the dense tensor broadcasts over the sparse one
        s = gen_sparse(3, 10, shape, coalesced)[0]
        d = torch.tensor(rng.standard_normal(sub_shape))
        assert_dense(d * s, dense(s) * d.numpy())
        assert_dense(s * d, dense(s) * d.numpy())
        sc = s.clone()
        assert_dense(sc.mul_(d), dense(s) * d.numpy())


@coalescedonoff
def test_sparse_mask(coalesced):
    i = torch.tensor([[1, 3, 0, 4], [2, 1, 2, 3]])
    x = torch.sparse_coo_tensor(i, torch.tensor([1.0, 2, 3, 4], dtype=torch.float64), torch.Size([5, 4])).coalesce()
    d = torch.tensor(np.arange(1.0, 21.0).reshape(5, 4))
    expected = torch.sparse_coo_tensor(i, torch.tensor([7.0, 14, 3, 20], dtype=torch.float64), torch.Size([5, 4]))
    assert_dense(d.sparse_mask(x), expected)
    sparse = d.to_sparse()
    assert_dense(sparse.sparse_mask(x), expected)
    assert sparse.is_coalesced()   # no side effect on the coalesced flag
    empty = torch.sparse_coo_tensor(i, torch.empty(4, 0), torch.Size([5, 4, 0])).coalesce()
    assert tuple(torch.empty(5, 4, 0).sparse_mask(empty)._values().shape) == (4, 0)
    for nnz_x1, nnz_x2, shape_i in [(9, 12, [5, 6]), (9, 12, [10, 10, 10]), (9, 12, [50, 30, 20]),
                                    (9, 12, [5, 5, 5, 5, 5, 5]), (0, 12, [10, 10, 10]), (9, 0, [10, 10, 10]),
                                    (0, 0, [10, 10, 10]), (0, 0, [10, 10, 0])]:
        x1, _, _ = gen_sparse(len(shape_i), nnz_x1, shape_i, coalesced, seed=14)
        x2, _, _ = gen_sparse(len(shape_i), nnz_x2, shape_i, coalesced, seed=15)
        y = x1.clone()
        y.add_(x2)
        assert_dense(x1 + x2, dense(x1) + dense(x2))
        assert_dense(y, dense(x1) + dense(x2))
    lhs = torch.tensor(np.random.default_rng(16).integers(0, 5, 100).astype(np.float64))
    rhs = torch.tensor(np.random.default_rng(17).integers(0, 5, 100).astype(np.float64)).to_sparse()
    assert_dense(lhs.to_sparse().sparse_mask(rhs), dense(lhs.sparse_mask(rhs)))
    sparse_c = torch.tensor(np.random.default_rng(18).random((3, 3))).to_sparse()
    sparse_unc = torch.tensor(np.random.default_rng(19).random((3, 3))).to_sparse()._coalesced_(False)
    for lhs, rhs in [(sparse_c, sparse_unc), (sparse_unc, sparse_c)]:
        assert_dense(lhs.sparse_mask(rhs), dense(lhs.to_dense().sparse_mask(rhs)))
        assert lhs.sparse_mask(rhs).is_coalesced() == rhs.is_coalesced()


@coalescedonoff
def test_sparse_mask_hybrid(coalesced):
    i = torch.tensor([[1, 3, 0, 4], [2, 1, 2, 3]])
    x = torch.sparse_coo_tensor(i, torch.tensor([[1, 2], [2, 3], [3, 4], [4, 5]]), torch.Size([5, 4, 2])).coalesce()
    d = torch.tensor([[[1, 3], [2, 2], [3, 3], [4, 2]], [[5, 7], [6, 7], [7, 9], [8, 9]],
                      [[9, 2], [10, 4], [11, 1], [12, 3]], [[13, 5], [14, 1], [15, 1], [16, 6]],
                      [[17, 7], [18, 2], [19, 7], [20, 1]]])
    expected = torch.sparse_coo_tensor(i, torch.tensor([[7, 9], [14, 1], [3, 3], [20, 1]]), torch.Size([5, 4, 2]))
    assert_dense(d.sparse_mask(x), expected)
    sparse = d.to_sparse(2)
    assert_dense(sparse.sparse_mask(x), expected)
    assert sparse.is_coalesced()


def test_sparse_mask_backward():
    lhs_data = torch.tensor(np.arange(1.0, 26.0).reshape(5, 5)).to_sparse(2)
    for nnz in (0, 5, 15, 25):
        for lhs_coalesced, rhs_coalesced in itertools.product((True, False), repeat=2):
            lhs = torch.sparse_coo_tensor(lhs_data._indices()[:, :nnz], lhs_data._values()[:nnz], lhs_data.shape)
            lhs = lhs.clone()._coalesced_(lhs_coalesced).requires_grad_(True)
            rhs = torch.sparse_coo_tensor(lhs_data._indices()[:, 25 - nnz:], lhs_data._values()[25 - nnz:],
                                          lhs_data.shape).clone()._coalesced_(rhs_coalesced)
            lhs_mask = lhs.detach().clone()
            assert torch.autograd.gradcheck(lambda x: x.sparse_mask(lhs_mask).sparse_mask(rhs).to_dense(masked_grad=True),
                                            (lhs,), masked=True)
            assert torch.autograd.gradcheck(lambda x: x.sparse_mask(rhs).to_dense(masked_grad=False), (lhs,),
                                            masked=False)


# ---------------------------------------------------------------------- TestSparseUnaryUfuncs, TestSparseAny
UNARY = {"abs": np.abs, "sign": np.sign, "sin": np.sin, "sqrt": np.sqrt, "tanh": np.tanh, "neg": np.negative,
         "relu": lambda a: np.maximum(a, 0), "isnan": np.isnan, "isinf": np.isinf}
SAMPLES = [np.array([0.5, -2.0, 0.0, 3.0]), np.array([[0.0, 1.5], [-0.25, 0.0]]), np.array(2.0),
           np.arange(12.0).reshape(2, 3, 2) / 7, np.zeros((0, 3))]


@pytest.mark.parametrize("name", sorted(UNARY))
def test_sparse_consistency(name):
    for sample in SAMPLES:
        d = np.asarray(np.abs(sample) if name == "sqrt" else sample)
        result = getattr(torch, name)(torch.tensor(d).to_sparse())
        assert result.is_sparse
        np.testing.assert_array_equal(dense(result), UNARY[name](d))


@pytest.mark.parametrize("name", sorted(UNARY))
def test_sparse_zero_dims(name):
    sparse_0x0 = torch.sparse_coo_tensor(torch.empty(2, 0, dtype=torch.int64), torch.empty(0, dtype=torch.float64),
                                         (0, 0))
    result = getattr(torch, name)(sparse_0x0)
    assert result.is_sparse and tuple(result.shape) == (0, 0) and result._nnz() == 0


@pytest.mark.parametrize("name", sorted(UNARY))
def test_sparse_zeros(name):
    result = getattr(torch, name)(torch.sparse_coo_tensor((), dtype=torch.float64))
    assert dense(result).item() == UNARY[name](np.zeros(()))


@pytest.mark.parametrize("name", sorted(n for n in UNARY if not n.startswith("is")))
def test_sparse_fn_grad(name):
    for sample in SAMPLES[:4]:
        d = np.asarray(np.abs(sample) + 0.5 if name == "sqrt" else sample)
        x = torch.tensor(d).to_sparse().detach().requires_grad_(True)
        assert torch.autograd.gradcheck(lambda t: getattr(torch, name)(t).to_dense(masked_grad=True), (x,),
                                        masked=True)


@pytest.mark.parametrize("keepdim", [False, True])
def test_reductions(keepdim):
    """OpInfo's sum samples on sparse inputs: the sum of a sparse tensor is the sum of its dense form."""
    for sparse_dims, size in [(1, [2]), (2, [3, 4]), (2, [3, 4, 2]), (3, [2, 2, 3])]:
        for coalesced in (True, False):
            s = gen_sparse(sparse_dims, 6, size, coalesced)[0]
            np.testing.assert_allclose(s.sum().item(), dense(s).sum())
            for dim in range(len(size)):
                np.testing.assert_allclose(dense(s.sum(dim, keepdim=keepdim)), dense(s).sum(dim, keepdims=keepdim),
                                           atol=1e-12)


def test_reductions_backward():
    for sparse_dims, size in [(1, [2]), (2, [3, 4]), (2, [3, 4, 2])]:
        s = gen_sparse(sparse_dims, 6, size, True)[0].requires_grad_(True)
        r = s.sum()
        r.abs().backward()
        np.testing.assert_allclose(dense(s.grad), np.ones(size) * np.sign(r.item()))


# ---------------------------------------------------------------------- TestSparseAny (the COO layout)
@pytest.mark.parametrize("masked", [False, True], ids=["sparse", "masked"])
def test_gradcheck_to_dense(masked):
    for t in _simple_inputs():
        t = t.detach().clone().requires_grad_(True)
        assert torch.autograd.gradcheck(lambda x: torch.Tensor.to_dense(x, masked_grad=masked), t, masked=masked)


def _simple_inputs():
    """A few COO tensors of the kinds PyTorch's generate_simple_inputs makes: plain, hybrid, uncoalesced,
    with non-contiguous values, empty."""
    yield torch.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64), (2, 3))
    yield torch.sparse_coo_tensor([[0, 1]], torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64), (3, 2))
    yield torch.sparse_coo_tensor([[1, 1, 0], [0, 0, 1]], torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64), (2, 2))
    yield torch.sparse_coo_tensor([[0, 1]], torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64).t(), (2, 2))
    yield torch.sparse_coo_tensor(torch.zeros(2, 0, dtype=torch.int64), torch.zeros(0, dtype=torch.float64), (2, 3))


def test_to_sparse_any():
    for t in _simple_inputs():
        r = t.to_dense().to_sparse()
        assert r.layout is torch.sparse_coo and r._indices().dtype == torch.int64 and r._values().dtype == t.dtype
        assert r.is_coalesced() and truly_coalesced(r)
        assert_dense(r, t)
        assert t.to_sparse() is t   # already COO with as many sparse dimensions
    with pytest.raises(RuntimeError, match=r"^to_sparse: conversion from Sparse to Sparse with sparse_dim argument "
                                           r"!=self\.sparse_dim\(\) is not supported$"):
        torch.tensor([[1.0, 0.0]]).to_sparse().to_sparse(1)


@pytest.mark.parametrize("method, supported, message", [
    ("is_coalesced", {"coo"}, "is_coalesced expected sparse coordinate tensor layout but got Strided"),
    ("coalesce", {"coo"}, "coalesce expected sparse coordinate tensor layout but got Strided"),
    ("indices", {"coo"}, "indices expected sparse coordinate tensor layout but got Strided"),
    ("values", {"coo"}, "values expected sparse tensor layout but got Strided")])
def test_unsupported_backend_error_message(method, supported, message):
    inp = torch.tensor([[1, 2], [3, 4]])
    with pytest.raises(RuntimeError, match=f"^{message}$"):
        getattr(inp, method)()
    getattr(inp.to_sparse().coalesce(), method)()


def test_constructor_autograd():
    for t in _simple_inputs():
        for requires_grad in (False, True):
            values = t._values().detach().requires_grad_(requires_grad)
            sparse = torch.sparse_coo_tensor(t._indices(), values, t.shape)
            assert sparse.requires_grad == requires_grad
            if requires_grad:
                for masked in (False, True):
                    assert torch.autograd.gradcheck(
                        lambda i, v: torch.sparse_coo_tensor(i, v, t.shape).to_dense(masked_grad=masked),
                        (t._indices(), values), masked=masked)


# ---------------------------------------------------------------------- what minigrad refuses
def _sparse():
    return gen_sparse(2, 5, [3, 4], True)[0]


def _inventory(qualified: str) -> str:
    """The start of the inventory's refusal of a name minigrad does not have at all."""
    return rf"(minigrad does not implement {qualified} |{qualified} is out of scope for minigrad )".replace(".", r"\.")


def _named(what: str) -> str:
    """The start of a refusal of something minigrad has for dense tensors only."""
    return "minigrad: " + re.escape(what) + " is not implemented"


REFUSED = {
    # PyTorch's test: a call it makes, and the start of minigrad's NotImplementedError
    "test_Sparse_to_Sparse_copy_": (lambda: _sparse().copy_(_sparse()), _named("copy_()")),
    "test_permute": (lambda: _sparse().permute(1, 0), _named("permute()")),
    "test_cat": (lambda: torch.cat([_sparse(), _sparse()]), _named("cat()")),
    "test_unsqueeze": (lambda: torch.unsqueeze(_sparse(), 0), _named("unsqueeze()")),
    "test_select": (lambda: _sparse()[0], _named("indexing (s[...])")),
    "test_index_select": (lambda: _sparse().index_select(0, torch.tensor([0])), _named("index_select()")),
    "test_narrow": (lambda: _sparse().narrow(0, 0, 1), _named("narrow()")),
    "test_sparse_broadcast_to": (lambda: _sparse().expand(2, 3, 4), _named("expand()")),
    "test_zeros": (lambda: torch.ones_like(_sparse()), _named("ones_like()")),
    "test_bmm": (lambda: _sparse().bmm(torch.ones(1)), _inventory("torch.Tensor.bmm")),
    "test_saddmm": (lambda: torch.saddmm(_sparse(), _sparse(), torch.ones(4, 4)), _inventory("torch.saddmm")),
    "test_sspaddmm": (lambda: _sparse().sspaddmm(_sparse(), torch.ones(4, 4)), _inventory("torch.Tensor.sspaddmm")),
    "test_dsmm": (lambda: torch.dsmm(_sparse(), torch.ones(4, 4)), _inventory("torch.dsmm")),
    "test_hsmm": (lambda: torch.hsmm(_sparse(), torch.ones(4, 4)), _inventory("torch.hsmm")),
    "test_log1p": (lambda: _sparse().log1p(), _inventory("torch.Tensor.log1p")),
    "test_asin_arcsin": (lambda: _sparse().asin(), _inventory("torch.Tensor.asin")),
    "test_softmax": (lambda: torch.sparse.softmax(_sparse(), 0), _inventory("torch.sparse.softmax")),
    "test_log_softmax_float": (lambda: torch.sparse.log_softmax(_sparse(), 0), _inventory("torch.sparse.log_softmax")),
    "test_resize": (lambda: _sparse().resize_as_(_sparse()), _inventory("torch.Tensor.resize_as_")),
    "test_sparse_spdiags": (lambda: torch.sparse.spdiags(torch.ones(1, 3), torch.tensor([0]), (3, 3)),
                            _inventory("torch.sparse.spdiags")),
    "test_check_sparse_tensor_invariants": (lambda: torch.sparse.check_sparse_tensor_invariants(),
                                            _inventory("torch.sparse.check_sparse_tensor_invariants")),
    "test_to_sparse (CSR)": (lambda: torch.ones(2, 2).to_sparse(layout=torch.sparse_coo.__class__("sparse_csr")),
                             r"minigrad: to_sparse\(layout=torch\.sparse_csr\) is not implemented: minigrad "
                             r"implements one sparse layout, COO"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused(name):
    call, message = REFUSED[name]
    with pytest.raises(NotImplementedError, match="^" + message):
        call()
