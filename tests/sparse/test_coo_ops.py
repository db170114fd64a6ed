"""Sparse COO operations: node names, gradient layouts, error texts and refusals, as PyTorch 2.13 gives
them (each case run on PyTorch first; ``tests/fidelity/test_sparse_programs.py`` compares whole
programs with PyTorch under ``make fidelity``). Values are checked against numpy.
"""
from __future__ import annotations

import pickle

import pytest

import minigrad as torch
from helpers import message

I = [[1, 0, 1], [2, 0, 2]]   # (1, 2) twice: uncoalesced


def leaf():
    return torch.sparse_coo_tensor(I, torch.tensor([3.0, 4.0, 5.0], dtype=torch.float64), (2, 3), requires_grad=True)


def parts(t) -> tuple:
    return t.layout, t._indices().tolist(), t._values().tolist()


@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta state")   # sparse @ sparse: PyTorch's too
def test_each_operation_has_pytorchs_node():
    s, d = leaf(), torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
    b = torch.ones(3, 2, dtype=torch.float64)
    nodes = {
        "CoalesceBackward0": s.coalesce(), "ToDenseBackward0": s.to_dense(), "TBackward0": s.t(),
        "TransposeBackward0": s.transpose(0, 1), "AddBackward0": s + s, "SubBackward0": s - s,
        "MulBackward0": s * 2, "DivBackward0": s / 2, "DivBackward2": s.div(2, rounding_mode="floor"),
        "NegBackward0": -s, "PowBackward0": s ** 2, "SumBackward0": torch.sparse.sum(s),
        "SparseSumBackward0": torch.sparse.sum(s, 0), "SumBackward1": s.sum(0),
        "SparseAddmmBackward0": torch.sparse.mm(s, b), "AddmmBackward0": torch.addmm(torch.ones(2, 2), s.float(), b.float()),
        "MmBackward0": s @ b, "MvBackward0": s.mv(torch.ones(3, dtype=torch.float64)),
        "NormBackward1": s.norm(), "ValuesBackward0": s.coalesce().values(), "CloneBackward0": s.clone(),
        "ToCopyBackward0": s.float(), "ToSparseBackward1": d.to_sparse(), "ToSparseBackward0": d.to_sparse(1),
        "SparseMaskBackward0": d.sparse_mask(s), "AbsBackward0": s.abs(), "SinBackward0": s.sin(),
        "ReluBackward0": s.relu(), "SparseSparseMatmulBackward0": torch.sparse.mm(s, s.t()),
    }
    for name, out in nodes.items():
        assert out.grad_fn.name() == name
    assert torch.add(torch.ones(2, 3, dtype=torch.float64), s, alpha=2).grad_fn.name() == "AddBackward0"
    assert torch.sparse_coo_tensor(I, torch.ones(3, requires_grad=True), (2, 3)).grad_fn.name() == \
        "SparseCooTensorWithDimsAndTensorsBackward0"
    assert s._values().grad_fn is None and not s._values().requires_grad


def test_gradient_layouts_follow_pytorch():
    """Which backward gives a sparse input a sparse (masked) gradient, and which a dense one."""
    b = torch.ones(3, 2, dtype=torch.float64)
    for f, layout in [(lambda s: s.to_dense().sum(), torch.sparse_coo), (lambda s: torch.sparse.sum(s), torch.sparse_coo),
                      (lambda s: s.sum(), torch.strided), (lambda s: (s @ b).sum(), torch.strided),
                      (lambda s: torch.sparse.mm(s, b).sum(), torch.sparse_coo),
                      (lambda s: torch.addmm(torch.ones(2, 2, dtype=torch.float64), s, b).sum(), torch.strided),
                      (lambda s: s.mv(b[:, 0]).sum(), torch.strided), (lambda s: (torch.ones(2, 3) + s).sum(), torch.strided)]:
        s = leaf()
        f(s).backward()
        assert s.grad.layout is layout
    s = leaf()
    s.to_dense().sum().backward()   # masked: the stored coordinates, each once
    assert parts(s.grad) == (torch.sparse_coo, [[0, 1], [0, 2]], [1.0, 1.0])
    s.grad = None
    s.to_dense(masked_grad=False).sum().backward()   # everywhere the gradient is not zero
    assert parts(s.grad) == (torch.sparse_coo, [[0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2]], [1.0] * 6)


def test_a_sparse_and_a_dense_gradient_add_up_dense():
    s = leaf()
    (s.to_dense() + torch.mm(s, torch.ones(3, 3, dtype=torch.float64))).sum().backward()   # in the engine's buffer
    assert s.grad.layout is torch.strided and s.grad.tolist() == [[4.0, 3.0, 3.0], [3.0, 3.0, 4.0]]
    s = leaf()
    s.to_dense().sum().backward()
    torch.mm(s, torch.ones(3, 1, dtype=torch.float64)).sum().backward()   # into .grad
    assert s.grad.layout is torch.strided and s.grad.tolist() == [[2.0, 1.0, 1.0], [1.0, 1.0, 2.0]]
    s = leaf()
    s.to_dense().sum().backward()
    s.to_dense().sum().backward()   # sparse + sparse stays sparse
    assert s.grad.is_sparse and s.grad.to_dense().tolist() == [[2.0, 0.0, 0.0], [0.0, 0.0, 2.0]]


def test_the_values_gradient_reads_the_gradient_at_each_entry():
    v = torch.tensor([3.0, 4.0, 5.0], dtype=torch.float64, requires_grad=True)
    s = torch.sparse_coo_tensor(I, v, (2, 3))
    s.backward(torch.sparse_coo_tensor([[1, 1, 0], [2, 2, 1]], torch.tensor([1.0, 10.0, 100.0], dtype=torch.float64),
                                       (2, 3)))
    assert v.grad.tolist() == [11.0, 0.0, 11.0]   # a repeated coordinate gets the full gradient at each repeat
    v.grad = None
    torch.sparse_coo_tensor(I, v, (2, 3)).backward(torch.arange(6.0, dtype=torch.float64).reshape(2, 3))
    assert v.grad.tolist() == [5.0, 0.0, 5.0]


def test_products_with_a_repeated_coordinate():
    s = leaf()
    d = torch.arange(6.0, dtype=torch.float64).reshape(2, 3).requires_grad_()
    (s * d).to_dense().sum().backward()
    assert s.grad.to_dense().tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 5.0]] and s.grad._nnz() == 2   # d, masked
    assert d.grad.is_sparse and d.grad.to_dense().tolist() == [[4.0, 0.0, 0.0], [0.0, 0.0, 8.0]]
    s = leaf()
    (s * s).to_dense().sum().backward()   # d(x^2)/dx at (1, 2), where x = 3 + 5
    assert s.grad.to_dense().tolist() == [[8.0, 0.0, 0.0], [0.0, 0.0, 16.0]]
    p = leaf() ** 3   # coalesced first: (3 + 5) ** 3
    assert parts(p) == (torch.sparse_coo, [[0, 1], [0, 2]], [64.0, 512.0]) and p.is_coalesced()


def test_sum_of_two_sparse_tensors_walks_the_entries_as_pytorch():
    s = torch.sparse_coo_tensor(I, [3.0, 4.0, 5.0], (2, 3))
    other = torch.sparse_coo_tensor([[0, 1], [1, 2]], [7.0, 8.0], (2, 3))
    assert parts(s + other) == (torch.sparse_coo, [[0, 1, 0, 1], [1, 2, 0, 2]], [7.0, 11.0, 4.0, 5.0])
    assert parts(s + s) == (torch.sparse_coo, I, [6.0, 8.0, 10.0]) and not (s + s).is_coalesced()
    both = s.coalesce() + other.coalesce()
    assert parts(both) == (torch.sparse_coo, [[0, 0, 1], [0, 1, 2]], [4.0, 7.0, 16.0]) and both.is_coalesced()
    assert parts(torch.add(s, s, alpha=2)) == (torch.sparse_coo, I, [9.0, 12.0, 15.0])


@pytest.mark.parametrize("call, error, text", [
    (lambda: torch.sparse_coo_tensor([[0, 1]], [[1.0], [2.0]], (2, 2)), RuntimeError,
     "values has incorrect size, expected [2, 2], got [2, 1]"),
    (lambda: torch.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (2, 3)), RuntimeError,
     "'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = 2, sparse_dim = 1, dense_dim = 0"),
    (lambda: torch.sparse_coo_tensor([[0]], [1.0, 2.0], (2,)), RuntimeError,
     "indices and values must have same nnz, but got nnz from indices: 1, nnz from values: 2"),
    (lambda: torch.sparse_coo_tensor([[[0, 1]]], [1.0, 2.0], (2,)), RuntimeError,
     "indices must be sparse_dim x nnz, but got: [1, 1, 2]"),
    (lambda: torch.sparse_coo_tensor([[0, 3]], [1.0, 2.0], (2,)), RuntimeError,
     "size is inconsistent with indices: for dim 0, size is 2 but found index 3"),
    (lambda: torch.sparse_coo_tensor([[-1, 0]], [1.0, 2.0]), RuntimeError, "found negative index -1 for dim 0"),
    (lambda: torch.sparse_coo_tensor([[0, 0]], [1.0, 2.0], (2,), is_coalesced=True, check_invariants=True),
     RuntimeError, "cannot set is_coalesced to true if indices correspond to uncoalesced COO tensor"),
    (lambda: torch.sparse_coo_tensor([[0]], [1], (2,), requires_grad=True), RuntimeError,
     "Only Tensors of floating point and complex dtype can require gradients"),
    (lambda: torch.sparse_coo_tensor([[100000, 99999]] * 4, [1.0, 2.0], (100001,) * 4), RuntimeError,
     "numel: integer multiplication overflow"),
    (lambda: torch.sparse_coo_tensor([[0]], None, (2,)), RuntimeError, "Could not infer dtype of NoneType"),
    (lambda: torch.tensor([[1.0, 0.0]]).to_sparse(3), RuntimeError,
     "dense_to_sparse: sparse_dim argument must be in [0,2] range, but 3 is given"),
    (lambda: torch.tensor([1.0, 0.0]).to_sparse(0), RuntimeError,
     "dense_to_sparse: sparse_dim argument must be in >0 when self.dim()>0"),
    (lambda: leaf().transpose(0, 2), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda: torch.sparse_coo_tensor([[0, 1]], [[1.0, 2.0], [3.0, 4.0]]).t(), RuntimeError,
     "t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got 1 sparse and 1 dense dimensions"),
    (lambda: torch.sparse_coo_tensor([[0, 1]], [[1.0, 2.0], [3.0, 4.0]]).transpose(0, 1), RuntimeError,
     "sparse transpose: transposed dimensions must be sparse Got sparse_dim: 1, d0: 0, d1: 1"),
    (lambda: leaf() + torch.ones(2, 3), RuntimeError, "add(sparse, dense) is not supported. Use add(dense, sparse) instead."),
    (lambda: 1 - leaf(), RuntimeError, "add: expected 'self' and 'other' to have same size, but self has size [] while "
     "other has size [2, 3] (FYI: dense-sparse addition does not currently support broadcasting)"),
    (lambda: leaf() + torch.sparse_coo_tensor([[0]], [3.0], (2,)), RuntimeError,
     "add: expected sizes of 'self' and 'other' to match, but [2, 3] != [2]"),
    (lambda: torch.add(torch.ones(2, 3, dtype=torch.int64), torch.sparse_coo_tensor([[0], [0]], [3], (2, 3)), alpha=1.5),
     RuntimeError, "For integral input tensors, argument alpha must not be a floating point number."),
    (lambda: leaf() * torch.sparse_coo_tensor([[0]], [3.0], (2,)), RuntimeError,
     "sparse_binary_op_intersection_cpu(): expects sparse inputs with equal dimensionality, number of sparse "
     "dimensions, and shape of sparse dimensions"),
    (lambda: leaf() * torch.ones(3, 3), RuntimeError,
     "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"),
    (lambda: leaf() / leaf(), RuntimeError,
     "Sparse division requires a scalar or zero-dim dense tensor divisor (got shape [2, 3] for divisor)"),
    (lambda: leaf() ** 0, RuntimeError,
     "pow: cannot raise to zeroth power on sparse tensor; it would make the result tensor dense"),
    (lambda: torch.sparse.sum(leaf(), [0, 0]), RuntimeError, "dim 0 appears multiple times in the list of dims"),
    (lambda: leaf().mv(torch.ones(2, dtype=torch.float64)), RuntimeError, "mv: expected self.size(-1) == vec.size(-1)"),
    (lambda: leaf().mv(torch.ones(3)), RuntimeError, "expected scalar type Double but found Float"),
    (lambda: leaf() @ torch.ones(2, 2), RuntimeError, "addmm: Argument #3 (dense): Expected dim 0 size 3, got 2"),
    (lambda: torch.ones(2, 3, dtype=torch.float64) @ leaf(), RuntimeError,
     "addmm: Argument #3 (dense): Expected dim 0 size 2, got 3"),
    (lambda: torch.sparse.mm(leaf(), torch.ones(3)), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda: torch.sparse.addmm(torch.ones(3, 3, dtype=torch.float64), leaf(), torch.ones(3, 2, dtype=torch.float64)),
     RuntimeError, "The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 1.  "
     "Target sizes: [2, 2].  Tensor sizes: [3, 3]"),
    (lambda: torch.sparse.mm(leaf(), leaf().t().float()), RuntimeError, "mat1 dtype Double does not match mat2 dtype Float"),
    (lambda: leaf().norm(keepdim=True), RuntimeError, "norm_sparse currently does not support keepdim=True"),
    (lambda: torch.sparse_coo_tensor([[0]], [3], (2,)).norm(), RuntimeError,
     "norm(): input dtype should be either floating point or complex. Got Long instead."),
    (lambda: torch.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (2,)).is_nonzero(), RuntimeError,
     "Boolean value of Tensor with more than one value is ambiguous"),
    (lambda: torch.ones(3).sparse_mask(torch.sparse_coo_tensor([[0]], [1.0], (4,))), RuntimeError,
     "sparse_mask(): operands have incompatible sizes; self has size [3] but mask has size [4]"),
    (lambda: leaf().numpy(), TypeError, "can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first."),
    (lambda: leaf().__setitem__(0, 1.0), TypeError, "Cannot assign to a sparse tensor"),
    (lambda: leaf().mul_(2), RuntimeError, "a leaf Variable that requires grad is being used in an in-place operation."),
    (lambda: torch.sparse_coo_tensor([[0]], [1], (2,)).mul_(2.5), RuntimeError,
     "dtype of values (Float) must match dtype of sparse tensor (Long)"),
    (lambda: torch.sparse_coo_tensor([[0]], [3], (2,)).div_(2), RuntimeError,
     "result type Float can't be cast to the desired output type Long"),
    (lambda: leaf().new([6]), TypeError, "SparseTensor.new(sequence) only accepts sizes.  Please use "
     "torch.sparse_coo_tensor() or construct a strided tensor and convert it to sparse via to_sparse."),
])
def test_error_texts_are_pytorchs(call, error, text):
    assert message(call) == f"{error.__name__}: {text}"


def test_what_pytorch_cannot_differentiate_is_refused_at_backward():
    with pytest.raises(NotImplementedError, match=r"^minigrad: the gradient of norm\(\) of a sparse tensor is not "
                                                  r"implemented \(PyTorch 2\.13 cannot compute it either\)"):
        leaf().norm().backward()
    s = leaf()
    with pytest.raises(RuntimeError, match="^expand is unsupported for Sparse tensors$"):
        s.sum(0).to_dense().sum().backward()   # PyTorch's SumBackward1 of a sparse sum cannot expand it either
    assert s.grad is None   # a failed backward leaves .grad untouched


@pytest.mark.parametrize("call, what", [
    (lambda s: s.exp(), "exp()"), (lambda s: s[0], "indexing (s[...])"), (lambda s: s > 0, "comparison (s > ...)"),
    (lambda s: s.view(6), "view()"), (lambda s: torch.cat([s, s]), "cat()"), (lambda s: torch.where(torch.ones(2, 3) > 0, s, s), "where()"),
    (lambda s: torch.ones_like(s), "ones_like()"), (lambda s: float(s), "float(s)"), (lambda s: list(s), "iterating over s"),
    (lambda s: torch.sparse.sum(torch.ones(2, 3), 0), "torch.sparse.sum(x, dim) needs a sparse x"),
    (lambda s: torch.ones(2, 2).to_sparse(layout=torch.sparse_coo.__class__("sparse_csr")), "to_sparse(layout=")])
def test_what_is_not_implemented_says_so_by_name(call, what):
    with pytest.raises(NotImplementedError, match="^minigrad: " + __import__("re").escape(what)):
        call(leaf())


def test_dense_only_methods_of_a_sparse_tensor_are_all_named():
    """Every public method of Tensor is implemented for sparse tensors, inherited knowingly, or refused
    with its own name: none reaches numpy with the shape-only stand-in."""
    from minigrad.sparse.coo import SparseTensor
    s = leaf().detach()
    for name in dir(torch.Tensor):
        method = getattr(SparseTensor, name, None)
        if name.startswith("_") or not callable(method) or name in SparseTensor.__dict__ and \
                "Not implemented for sparse tensors" not in (method.__doc__ or ""):
            continue
        if "Not implemented for sparse tensors" in (method.__doc__ or ""):
            with pytest.raises(NotImplementedError, match=rf"^minigrad: {name}\(\) is not implemented for sparse COO"):
                getattr(s, name)()


def test_printing_hybrid_and_scalar_tensors_as_pytorch():
    h = torch.sparse_coo_tensor([[0, 1]], [[1.5, -2.25], [3.0, 4.0]], (3, 2), dtype=torch.float64)
    assert repr(h) == ("tensor(indices=tensor([[0, 1]]),\n       values=tensor([[ 1.5000, -2.2500],\n"
                       "                      [ 3.0000,  4.0000]]),\n       size=(3, 2), nnz=2, dtype=torch.float64, "
                       "layout=torch.sparse_coo)")
    z = torch.sparse_coo_tensor(torch.zeros(0, 1, dtype=torch.int64), 12.3, [])
    assert repr(z) == ("tensor(indices=tensor([], size=(0, 1)),\n       values=tensor([12.3000]),\n       size=(), "
                       "nnz=1, layout=torch.sparse_coo)")


def test_pickling_keeps_the_parts_the_flag_and_requires_grad():
    s = leaf().detach().coalesce().requires_grad_()
    loaded = pickle.loads(pickle.dumps(s))
    assert parts(loaded) == parts(s) and loaded.is_coalesced() and loaded.requires_grad and loaded.is_leaf


def test_double_backward_through_sparse_operations():
    """The backwards are written with Functions: create_graph=True records them."""
    v = torch.tensor([3.0, 4.0, 5.0], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([[1.0, 2.0], [0.5, -1.0], [2.0, 3.0]], dtype=torch.float64, requires_grad=True)
    for f in (lambda v, b: torch.sparse.mm(torch.sparse_coo_tensor(I, v, (2, 3)), b),
              lambda v, b: torch.sparse.sum(torch.sparse_coo_tensor(I, v, (2, 3)) ** 3, 1).to_dense() * b[:2, 0],
              lambda v, b: torch.sparse_coo_tensor(I, v, (2, 3)).sin().to_dense() @ b):
        assert torch.autograd.gradgradcheck(f, (v, b))


def test_gradcheck_masked_and_not():
    s = leaf()
    assert torch.autograd.gradcheck(lambda t: t.to_dense(masked_grad=True), (s,), masked=True)
    assert torch.autograd.gradcheck(lambda t: t.to_dense(masked_grad=False), (s,))
    # unmasked, the gradient must be right at the elements s does not store too
    assert not torch.autograd.gradcheck(lambda t: t.to_dense(masked_grad=True), (s,), raise_exception=False)
    assert torch.autograd.gradcheck(lambda t: t.to_dense(masked_grad=True), (s,), masked=True, fast_mode=True)
    with pytest.raises(ValueError, match=r"^Sparse output is not supported at gradcheck yet\. Please call "
                                         r"to_dense\(masked_grad=\.\.\.\) on the output of fn for gradcheck\.$"):
        torch.autograd.gradcheck(lambda t: t * 2, (s,))


def test_gradcheck_catches_a_wrong_sparse_gradient():
    class Wrong(torch.autograd.Function):
        @staticmethod
        def forward(ctx, s):
            return s.to_dense() * 2

        @staticmethod
        def backward(ctx, grad):
            return grad.sparse_mask(torch.sparse_coo_tensor(I, torch.ones(3), (2, 3)).double())   # forgets the 2

    with pytest.raises(torch.autograd.gradcheck.__globals__["GradcheckError"], match="^Jacobian mismatch"):
        torch.autograd.gradcheck(Wrong.apply, (leaf(),), masked=True)

    class WrongLayout(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return (grad * 2).to_sparse()

    with pytest.raises(torch.autograd.gradcheck.__globals__["GradcheckError"],
                       match=r"^grad is incorrect layout \(torch\.sparse_coo is not torch\.strided\)$"):
        torch.autograd.gradcheck(WrongLayout.apply, (torch.ones(2, dtype=torch.float64, requires_grad=True),))


def test_batch_and_vector_products_build_pytorchs_nodes():
    s = leaf()
    assert (torch.ones(2, dtype=torch.float64) @ s).grad_fn.name() == "SqueezeBackward4"
    batch = torch.ones(3, 2, 2, dtype=torch.float64) @ s
    assert batch.grad_fn.name() == "UnsafeViewBackward0" and tuple(batch.shape) == (3, 2, 3)
    folded = s @ torch.ones(2, 3, 2, dtype=torch.float64)   # s requires grad: folded into one product
    assert folded.grad_fn.name() == "CloneBackward0" and folded.tolist() == [[[4.0, 4.0], [8.0, 8.0]]] * 2
    with pytest.raises(RuntimeError, match="^expand is unsupported for Sparse tensors$"):
        s.detach() @ torch.ones(2, 3, 2, dtype=torch.float64)


def test_dense_side_methods():
    d = torch.tensor([[1.0, 0.0], [0.0, 2.0]])
    assert (d.sparse_dim(), d.dense_dim()) == (0, 2)
    assert torch.Tensor.to_dense(d.to_sparse()).tolist() == d.tolist()   # called on the class, as PyTorch's tests do
    assert torch.zeros_like(d.to_sparse()).is_sparse and torch.zeros_like(d.to_sparse())._nnz() == 0
    for method, layout in (("is_coalesced", "sparse coordinate"), ("coalesce", "sparse coordinate"),
                           ("indices", "sparse coordinate"), ("values", "sparse")):
        assert message(getattr(d, method)) == f"RuntimeError: {method} expected {layout} tensor layout but got Strided"


# ------------------------------------------------------------------ the dtype of element-wise functions
# PyTorch 2.13 (the recorded sparse OpInfo samples of other dtypes, their first stored values): sin, sqrt
# and tanh of integer or bool values are float32, as the dense functions; sign keeps the dtype, bool too.
@pytest.mark.parametrize("function, dtype, values, expected", [
    (torch.sin, torch.int32, [-8, 6, 9, 5], [-0.9893582463264465, -0.279415488243103, 0.41211849451065063,
                                             -0.9589242935180664]),
    (torch.sqrt, torch.uint8, [5, 1, 6, 5], [2.2360680103302, 1.0, 2.4494898319244385, 2.2360680103302]),
    (torch.tanh, torch.bool, [True, True], [0.7615941762924194, 0.7615941762924194]),
    (lambda s: s.sin(), torch.bool, [True, True], [0.8414709568023682, 0.8414709568023682]),
])
def test_sin_sqrt_and_tanh_of_integer_or_bool_values_are_float32(function, dtype, values, expected):
    s = torch.sparse_coo_tensor([[0] * len(values), list(range(len(values)))], values, (20, 20), dtype=dtype)
    out = function(s)
    assert out.is_sparse and out.dtype is torch.float32 and out._values().dtype is torch.float32
    # to torch.testing's float32 tolerance: PyTorch's float32 sin may differ from numpy's in the last bit
    assert out._values().tolist() == pytest.approx(expected, rel=1.3e-6, abs=1e-5)
    assert out.to_dense().dtype is torch.float32


def test_sign_of_a_bool_sparse_tensor_is_itself_in_bool():
    s = torch.sparse_coo_tensor([[0, 0], [0, 1]], [True, True], (20, 20))
    out = s.sign()
    assert out.dtype is torch.bool and out._values().tolist() == [True, True]
