"""Checkers for ``07_tracing_special_spmm.ipynb``.

Your turn 1 asks for the gradient of a sparse matrix's values, ``grad_values[k] =
<grad_output[rows[k]], b[cols[k]]>``, without the N x N matrix of pyGAT's backward. Your turn 2
asks which arguments of ``SpecialSpmmFunction.apply`` need a gradient, for the four calls of
:func:`needs_input_grad_calls`.

>>> from minigrad.exercises import nb07 as check
>>> def grad_values(indices, grad_output, b):
...     return (grad_output[indices[0]] * b[indices[1]]).sum(1)
>>> result = check.your_turn_1(grad_values)
✓ Your turn 1: the values' gradient without the N × N matrix — correct.
>>> result = check.your_turn_2([(False, True, False, False), (False, False, False, True),
...                             (False, True, False, True), (False, True, False, True)])
✓ Your turn 2: predict needs_input_grad — correct.
"""
from __future__ import annotations

import contextlib
import tracemalloc
from typing import Any, Callable, Iterator

import numpy as np

import minigrad as torch
from minigrad.autograd.function import Function
from minigrad.tensor import Tensor

from ._feedback import _, N_, exercise, expect
from ._observe import VIEWS, applying, outputs_of

# ---------------------------------------------------------------------------- Your turn 1
FOUR_NODE_INDICES = [[0, 0, 1, 2, 3], [1, 2, 2, 3, 0]]
FOUR_NODE_B = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]
FOUR_NODE_GRAD_VALUES = [15.0, 24.0, 24.0, 33.0, 6.0]   # for the loss out.sum()

MEMORY_N, MEMORY_DEGREE, MEMORY_D = 4000, 4, 8
"""The graph of the memory check: an N x N float32 matrix is 64 MB there, the gradient 77 KB."""

WORK_PER_EDGE_FEATURE = 20
"""How many numbers an answer may compute per edge and feature: gathering, multiplying and summing
computes 1 to 7 (counted twice where a minigrad operation computes in numpy on the counted arrays;
a loop over the edges about 4); the N x N product computes N / (degree x d), about 100 at N = 4,000,
however it is cut into pieces and whatever copies of the numbers it works on."""


def random_graph(n: int, nnz: int, d: int, which: int) -> tuple:
    """``(indices, grad_output, b)`` as minigrad tensors: a random graph on ``n`` nodes whose
    first edges are repeated at the end (so it always has duplicates), float32 features."""
    rng = np.random.default_rng(which)   # which: one graph out of many, the same on every run
    edges = rng.integers(0, n, size=(2, nnz))
    repeats = max(1, nnz // 5)
    edges = np.concatenate([edges, edges[:, :repeats]], axis=1)
    grad_output = rng.standard_normal((n, d)).astype(np.float32)
    b = rng.standard_normal((n, d)).astype(np.float32)
    return torch.from_numpy(edges), torch.from_numpy(grad_output), torch.from_numpy(b)


def dense_reference(indices: Tensor, grad_output: Tensor, b: Tensor) -> np.ndarray:
    """What pyGAT's backward computes: ``(grad_output @ b.T)[rows, cols]``, in float64."""
    rows, cols = np.asarray(indices._data)
    full = grad_output._data.astype(np.float64) @ b._data.astype(np.float64).T
    return full[rows, cols]


def _result_of(grad_values: Callable, indices: Tensor, grad_output: Tensor, b: Tensor) -> np.ndarray:
    """Call the learner's function; its result as a float64 numpy array (tensor, array or list)."""
    result = grad_values(indices, grad_output, b)
    expect(result is not None, _("grad_values returned None"),
           _("return the nnz gradients, one per column of indices"))
    if isinstance(result, Tensor):
        expect(not result.is_sparse, _("grad_values returned a sparse tensor"),
               _("return a dense 1-D tensor with one number per edge"))
        result = result.detach()._data
    try:
        return np.asarray(result, dtype=np.float64)
    except (TypeError, ValueError):
        expect(False, _("grad_values returned {result_type}, not numbers").format(result_type=type(result).__name__),
               _("return a 1-D tensor (or numpy array) with one gradient per edge"))


def _peak_bytes(function: Callable, *args) -> int:
    """The highest memory use tracemalloc sees while ``function(*args)`` runs, above the start."""
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        start, unused = tracemalloc.get_traced_memory()
        function(*args)
        unused, peak = tracemalloc.get_traced_memory()
    finally:
        if not was_tracing:
            tracemalloc.stop()
    return peak - start


class _Counted(np.ndarray):
    """The numbers of grad_output and b, and every array computed or copied from them, noting how
    many numbers numpy computes from them (for a learner who takes ``.numpy()``, or a copy, and
    multiplies in numpy)."""

    computed = 0

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        plain = [value.view(np.ndarray) if isinstance(value, _Counted) else value for value in inputs]
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = tuple(o.view(np.ndarray) if isinstance(o, _Counted) else o for o in out)
        result = getattr(ufunc, method)(*plain, **kwargs)
        _Counted.computed += sum(int(np.size(r)) for r in (result if isinstance(result, tuple) else (result,)))
        if out is not None:
            return out[0] if len(out) == 1 else out
        return _counted(result)

    def __array_function__(self, func, types, args, kwargs):
        result = super().__array_function__(func, (np.ndarray,), args, kwargs)
        if isinstance(result, np.ndarray) and result.base is None and not isinstance(result, _Counted):
            _Counted.computed += result.size   # a new array (np.dot, np.einsum, np.copy), not a view
        return _counted(result)


def _counted(result):
    """``result`` (an array, or a tuple of them) as _Counted arrays, so that what is computed from
    it is counted too."""
    if isinstance(result, tuple):
        return tuple(_counted(r) for r in result)
    return result.view(_Counted) if type(result) is np.ndarray else result


def _holds_counted(value, depth: int = 3) -> bool:
    if isinstance(value, _Counted):
        return True
    if isinstance(value, Tensor):
        return isinstance(value._data, _Counted)
    return bool(depth) and isinstance(value, (list, tuple)) and any(_holds_counted(v, depth - 1) for v in value)


def _propagating(convert: Callable) -> Callable:
    """np.array and friends: a copy of counted numbers is counted too."""
    def copy(value, *args, **kwargs):
        result = convert(value, *args, **kwargs)
        return _counted(result) if _holds_counted(value) else result
    return copy


_CONVERTERS = ("array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray", "copy", "require")


@contextlib.contextmanager
def _counting_work(*tensors: Tensor) -> Iterator[list]:
    """How many numbers the block computes: the elements of every tensor an operation (each one a
    Function) returns, plus what numpy computes from ``tensors``' own arrays and from anything
    copied or computed from them (``.double()``, ``np.array(...)``, ``.numpy()``). Blocks of rows or
    a loop change nothing: forming grad_output @ b.T in any number of pieces computes N x N numbers."""
    count = [0]

    def observe(cls, args, output) -> None:
        results = outputs_of(output)
        if cls.__name__ not in VIEWS:   # a view computes no number
            count[0] += sum(t.numel() for t in results)
        if any(_holds_counted(arg) for arg in args):
            for t in results:
                t._data = _counted(t._data)

    arrays = [t._data for t in tensors]
    converters = {name: getattr(np, name) for name in _CONVERTERS}
    for t in tensors:
        t._data = t._data.view(_Counted)
    for name, convert in converters.items():
        setattr(np, name, _propagating(convert))
    _Counted.computed = 0
    try:
        with applying(observe):
            yield count
    finally:
        for name, convert in converters.items():
            setattr(np, name, convert)
        for t, array in zip(tensors, arrays):
            t._data = array
        count[0] += _Counted.computed


def _size(n_bytes: float) -> str:
    """``'64 MB'``, ``'77 KB'``."""
    return _("{n_bytes:,.0f} MB").format(n_bytes=n_bytes / 1e6) if n_bytes >= 1e6 else _("{n_bytes:,.0f} KB").format(n_bytes=n_bytes / 1e3)


@exercise("Your turn 1: the values' gradient without the N × N matrix",
          deeper_hint=N_("values[k] carries b's row indices[1][k] into the output's row indices[0][k]: its gradient "
                         "is the dot product of grad_output[indices[0][k]] and b[indices[1][k]]. Gather both rows "
                         "for every k at once, multiply them elementwise, and sum each row."))
def your_turn_1(grad_values: Callable) -> None:
    """``grad_values(indices, grad_output, b)`` returns ``(grad_output @ b.T)[rows, cols]`` (one
    number per edge, duplicates included) without allocating anything of N x N size."""
    expect(callable(grad_values), _("{grad_values!r} is not a function").format(grad_values=grad_values),
           _("pass the function itself: check.your_turn_1(grad_values)"))

    indices = torch.tensor(FOUR_NODE_INDICES)
    ones, b = torch.ones(4, 3), torch.tensor(FOUR_NODE_B)
    got = _result_of(grad_values, indices, ones, b)
    expect(got.shape == (5,), _("for the four-node graph (5 edges) grad_values returned shape {got_shape}; expected "
                                "[5], one number per edge").format(got_shape=list(got.shape)),
           _("grad_values[k] is one dot product per edge k: sum over the features of grad_output[row_k] * b[col_k]"))
    expect(not np.allclose(got, dense_reference(torch.tensor(FOUR_NODE_INDICES[::-1]), ones, b)),
           _("for the four-node graph you returned {got}: rows and columns are swapped").format(got=got.tolist()),
           _("grad_output goes with the row of each edge (indices[0]), b with its column (indices[1])"))
    expect(np.allclose(got, FOUR_NODE_GRAD_VALUES),
           _("for the four-node graph and the loss out.sum() (grad_output all ones) you returned {got}; expected "
             "{FOUR_NODE_GRAD_VALUES}").format(got=got.tolist(), FOUR_NODE_GRAD_VALUES=FOUR_NODE_GRAD_VALUES),
           _("edge k = (row_k, col_k) gets the dot product of grad_output[row_k] with b[col_k]"))

    for n, nnz, d, which in [(6, 9, 3, 1), (7, 12, 2, 2), (30, 80, 5, 3)]:
        indices, grad_output, b = random_graph(n, nnz, d, which)
        expected = dense_reference(indices, grad_output, b)
        got = _result_of(grad_values, indices, grad_output, b)
        case = _("on a random graph with {n} nodes and {n_expected} edges (some repeated)").format(n=n, n_expected=len(expected))
        expect(got.shape == expected.shape,
               _("{case} grad_values returned shape {got_shape}; expected [{n_expected}]")
               .format(case=case, got_shape=list(got.shape), n_expected=len(expected)),
               _("one gradient per column of indices, repeated edges included: do not merge them"))
        expect(np.allclose(got, expected, rtol=1e-4, atol=1e-5),
               _("{case} your values differ from (grad_output @ b.T)[rows, cols]").format(case=case),
               _("grad_values[k] = sum over j of grad_output[rows[k], j] * b[cols[k], j], with rows, cols = "
                 "indices[0], indices[1]"))

    n = MEMORY_N
    indices, grad_output, b = random_graph(n, n * MEMORY_DEGREE, MEMORY_D, which=4)
    matrix_bytes = n * n * 4
    peak = _peak_bytes(grad_values, indices, grad_output, b)
    expect(peak < matrix_bytes // 2,
           _("the values are right, but at N = {n:,} ({indices_shape:,} edges, d = {MEMORY_D}) memory use peaked "
             "above {size_matrix_bytes} while it ran: an N x N float32 matrix is {size_matrix_bytes2}, the gradient "
             "itself {size_indices_shape}")
           .format(n=n, indices_shape=indices.shape[1], MEMORY_D=MEMORY_D, size_matrix_bytes=_size(matrix_bytes // 2), size_matrix_bytes2=_size(matrix_bytes), size_indices_shape=_size(indices.shape[1] * 4)),
           _("do not form grad_output @ b.T: gather the rows you need, grad_output[indices[0]] and b[indices[1]] "
             "(each nnz x d), multiply them and sum over the features"))
    nnz = indices.shape[1]
    with _counting_work(grad_output, b) as computed:
        grad_values(indices, grad_output, b)
    expect(computed[0] <= WORK_PER_EDGE_FEATURE * nnz * MEMORY_D,
           _("the values are right, but at N = {n:,} ({nnz:,} edges, d = {MEMORY_D}) your function computed "
             "{computed:,} numbers, where one dot product per edge needs about nnz x d = {nnz_MEMORY_D:,}: it works "
             "out far more pairs of nodes than there are edges (the N x N matrix has {n2:,}), a few rows at a time "
             "or all at once")
           .format(n=n, nnz=nnz, MEMORY_D=MEMORY_D, computed=computed[0], nnz_MEMORY_D=nnz * MEMORY_D, n2=n * n),
           _("do not multiply grad_output by b.T, not even a few rows at a time: gather the rows you need, "
             "grad_output[indices[0]] and b[indices[1]] (each nnz x d), multiply them and sum over the features"))


# ---------------------------------------------------------------------------- Your turn 2
def needs_input_grad_calls(function: type) -> None:
    """The four calls of Your turn 2, in order (the checker runs them with a Function that records
    ``ctx.needs_input_grad``)."""
    indices = torch.tensor([[0, 0, 1, 2, 3], [1, 2, 2, 3, 0]])
    values = torch.ones(5, requires_grad=True)       # attention weights, learned
    features = torch.ones(4, 3)                      # input data
    weight = torch.ones(3, 3, requires_grad=True)    # a layer's parameter
    h = features.mm(weight)
    shape = torch.Size([4, 4])

    function.apply(indices, values, shape, features)            # call 1
    function.apply(indices, values.detach(), shape, h)          # call 2
    function.apply(indices, values * 2, shape, h)               # call 3
    with torch.no_grad():
        function.apply(indices, values, shape, h)               # call 4


ARGUMENTS = ("indices", "values", "shape", "b")

NOT_A_LEAF_H = N_("h = features.mm(weight) requires grad because weight does, although it is not a leaf")
NO_GRAD = (N_("needs_input_grad describes the arguments, whatever the grad mode: no_grad only stops the recording "
              "of a graph (notebook 04)"))
HINTS = {
    0: N_("indices is a tensor of integers: an integer tensor can never require grad"),
    2: N_("shape is a torch.Size, not a tensor: an argument that is not a tensor always gets False"),
    (1, 1): N_("values was created with requires_grad=True"),
    (1, 3): N_("features is plain input data, created without requires_grad=True"),
    (2, 1): N_("values.detach() is a new tensor that does not require grad"),
    (2, 3): NOT_A_LEAF_H,
    (3, 1): N_("values * 2 is not a leaf, but it requires grad because values does (notebook 03)"),
    (3, 3): NOT_A_LEAF_H,
    (4, 1): NO_GRAD,
    (4, 3): NO_GRAD,
}


def observed_needs_input_grad() -> list[tuple]:
    """What ``ctx.needs_input_grad`` is inside forward, for each call of :func:`needs_input_grad_calls`."""
    seen: list[tuple] = []

    class RecordNeeds(Function):
        @staticmethod
        def forward(ctx, indices, values, shape, b):
            seen.append(tuple(ctx.needs_input_grad))
            return b * 1

        @staticmethod
        def backward(ctx, grad_output):
            return None, None, None, grad_output

    needs_input_grad_calls(RecordNeeds)
    return seen


def _is_flag(value: Any) -> bool:
    """True/False, or 1/0 (a tuple (0, 1, 0, 0) equals (False, True, False, False) in Python)."""
    return isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer)) and value in (0, 1))


def _as_lists(value: Any) -> Any:
    """A numpy array or a tensor as the nested lists of its values; anything else unchanged."""
    if isinstance(value, Tensor):
        value = value.detach()._data
    return value.tolist() if isinstance(value, np.ndarray) else value


@exercise("Your turn 2: predict needs_input_grad",
          deeper_hint=N_("For each call, take the four arguments in order: a tensor gets True only if it requires "
                         "grad (an integer tensor never does, detach() makes one that does not, a result computed "
                         "from a tensor that requires grad does, leaf or not); an argument that is not a tensor "
                         "gets False."))
def your_turn_2(predictions: Any) -> None:
    """``predictions``: four tuples of four booleans, ``ctx.needs_input_grad`` for each call (lists,
    numpy or torch bool arrays too)."""
    predictions = _as_lists(predictions)
    expect(isinstance(predictions, (list, tuple)) and len(predictions) == 4,
           _("predictions should be a list of 4 tuples, one per call; got {predictions!r}")
           .format(predictions=predictions),
           _("predictions = [(..., ..., ..., ...), ...] with one tuple for each of the four calls"))
    truth = observed_needs_input_grad()
    for number, (predicted, actual) in enumerate(zip(predictions, truth), start=1):
        predicted = _as_lists(predicted)
        expect(predicted is not ..., _("call {number}: still ... (the starter's placeholder)").format(number=number),
               _("write a tuple of four booleans, one per argument of forward: (indices, values, shape, b)"))
        expect(isinstance(predicted, (tuple, list)) and len(predicted) == 4
               and all(_is_flag(flag) for flag in predicted),
               _("call {number}: {predicted!r} is not four True/False values")
               .format(number=number, predicted=predicted),
               _("needs_input_grad has one True/False per argument of forward: (indices, values, shape, b)"))
        for position, (guess, flag) in enumerate(zip(predicted, actual)):
            expect(bool(guess) == flag,
                   _("call {number}: you predicted {bool_guess} for {ARGUMENTS_position} "
                     "(needs_input_grad[{position}])")
                   .format(number=number, bool_guess=bool(guess), ARGUMENTS_position=ARGUMENTS[position], position=position),
                   HINTS.get(position) or HINTS[number, position])
