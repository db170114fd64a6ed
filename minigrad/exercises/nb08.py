"""Checkers for ``08_gradcheck.ipynb``.

>>> import minigrad as torch
>>> from minigrad.exercises import nb08 as check
>>> class CustomFunction(torch.autograd.Function):
...     @staticmethod
...     def forward(ctx, input):
...         return input * 2
...     @staticmethod
...     def backward(ctx, grad_output):
...         return grad_output * 2
>>> result = check.your_turn_3(CustomFunction)
✓ Your turn 3: spot the bugs in CustomFunction — correct.
>>> result = check.your_turn_2(lambda indices, shape: indices[1] * shape[0] + indices[0])
✓ Your turn 2: positions in the transposed gradient — correct.
"""
from __future__ import annotations

import inspect
import warnings

import numpy as np

import minigrad as torch
from minigrad.autograd import node_info
from minigrad.autograd.function import Function
from minigrad.autograd.gradcheck import gradcheck, gradgradcheck
from minigrad.tensor import Tensor

from ._feedback import _, N_, exercise, expect, expect_freed_with_the_graph
from ._observe import backward_passes, tensors_kept_on

_GRAD_FORMULAS = {"a": N_("grad_a has the shape of a: which product of grad_output and b, transposed or not, has it?"),
                  "b": N_("grad_b has the shape of b: which product of a and grad_output, transposed or not, has it?")}
INPLACE_ERROR = "modified by an inplace operation"
DETACHED_IN_BACKWARD = (N_("gradgradcheck fails for {call}: backward computes its gradients from tensors cut from the "
                           "graph (a .detach() or .data, in forward's save or in backward), so the gradient of the "
                           "gradient is wrong: the second derivatives gradgradcheck checks are lost"),
                        N_("save the inputs as they are with ctx.save_for_backward, and compute backward's gradients "
                           "from grad_output and ctx.saved_tensors with tensor operations only: no .detach() or .data"))
NUMBER_OF_GRADIENTS_HINT = N_("backward returns one gradient per input of forward, in order: return grad_a, grad_b")


def _values(t) -> list:
    return np.asarray(t.detach()._data).tolist()


def _is_function_class(cls) -> bool:
    return isinstance(cls, type) and issubclass(cls, Function)


def _matmul_inputs(shape_a: tuple, shape_b: tuple, needs: str) -> tuple:
    rng = np.random.default_rng(8)
    a = torch.tensor(rng.standard_normal(shape_a), requires_grad="a" in needs)
    b = torch.tensor(rng.standard_normal(shape_b), requires_grad="b" in needs)
    return a, b


def _check_product_backward(product, shapes: list, forward_text: str, expected, sizes_text, gradients) -> None:
    """``product.apply(a, b)`` computes ``expected(a, b)`` (numpy) and passes gradcheck for each input
    alone and for both together, on every pair of ``shapes``; three calls before any backward get
    ``gradients(a, b, grad_output)`` (numpy) whatever the order of their backwards."""
    for shape_a, shape_b in shapes:
        a, b = _matmul_inputs(shape_a, shape_b, "")
        given_a, given_b = np.array(a._data), np.array(b._data)
        out = product.apply(a, b)
        changed = [name for name, t, given in (("a", a, given_a), ("b", b, given_b)) if not np.array_equal(t._data, given)]
        expect(not changed,
               _("{product_name}.apply(a, b) changed the caller's {changed} in place: forward must leave its inputs "
                 "as they were (backward computes from them, and so does the caller)")
               .format(product_name=product.__name__, changed=changed[0] if changed else ''),
               _("compute a new tensor, a.t().mm(b), without in-place methods such as zero_ or mul_ on a or b"))
        expect(isinstance(out, Tensor) and np.allclose(_values(out), expected(given_a, given_b)),
               _("forward does not compute {forward_text} for a {shape_a} and b {shape_b}")
               .format(forward_text=forward_text, shape_a=list(shape_a), shape_b=list(shape_b)),
               _("keep the forward of the starter"))
        expect(out.dtype == a.dtype,
               _("for float64 a and b, forward returns a tensor of dtype {out_dtype}: gradcheck compares backward "
                 "with central differences, which need float64's precision, so in float32 every gradient looks "
                 "wrong, right or not")
               .format(out_dtype=out.dtype), _("keep the inputs' dtype in forward: no .float() or float32 tensors"))
        if (shape_a, shape_b) == shapes[0]:
            _expect_gradients_derived(product, shape_a, shape_b, gradients)
        sizes = sizes_text(list(shape_a), list(shape_b))
        for name in ("a", "b"):
            inputs = _matmul_inputs(shape_a, shape_b, name)
            try:
                passed = gradcheck(product.apply, inputs, raise_exception=False)
            except RuntimeError as error:
                expect("incorrect number of gradients" not in str(error),
                       _("with {sizes}, backward failed: RuntimeError: {error}")
                       .format(sizes=sizes, error=error), NUMBER_OF_GRADIENTS_HINT)
                expect(INPLACE_ERROR not in str(error),
                       _("with {sizes} and only {name} requiring grad, backward failed: RuntimeError: {error}")
                       .format(sizes=sizes, name=name, error=error),
                       _("a tensor saved with save_for_backward was changed in place after it was saved (in "
                         "forward, or by backward itself): leave the saved inputs as they are and compute new "
                         "tensors"))
                expect(False, _("with {sizes} and only {name} requiring grad, backward failed: RuntimeError: {error}")
                              .format(sizes=sizes, name=name, error=error),
                       _GRAD_FORMULAS[name])
            expect(passed, _("gradcheck finds grad_{name} wrong for {sizes}: backward's Jacobian differs from the "
                             "central differences").format(name=name, sizes=sizes), _GRAD_FORMULAS[name])
    a, b = _matmul_inputs(*shapes[-1], "ab")
    expect(gradcheck(product.apply, (a, b), raise_exception=False),
           _("each gradient passes alone, but gradcheck fails with both a and b requiring grad"),
           _("return grad_a, grad_b in the order of forward's arguments"))
    _expect_twice_differentiable(product.apply, (a.detach().requires_grad_(), b.detach().requires_grad_()),
                                 f"{product.__name__}.apply(a, b)")   # code: the same in every language
    _expect_each_call_its_own_inputs(product, *shapes[-1], gradients)


def _expect_twice_differentiable(apply, inputs: tuple, call: str) -> None:
    """gradgradcheck passes: backward's gradients are themselves differentiable, which a
    ``.detach()`` or ``.data`` (of a saved input or of grad_output) breaks while gradcheck passes."""
    try:
        passed = gradgradcheck(apply, inputs, raise_exception=False)
    except RuntimeError:
        passed = False
    problem, hint = DETACHED_IN_BACKWARD
    expect(passed, _(problem).format(call=call), hint)


def _expect_gradients_derived(product, shape_a: tuple, shape_b: tuple, gradients) -> None:
    """Backward, called as the engine calls it, starts no backward pass of its own (no
    ``torch.autograd.grad`` of the forward's operations), returns float64 gradients, and not in
    swapped order: what gradcheck would otherwise blame on the formula of grad_a."""
    a, b = _matmul_inputs(shape_a, shape_b, "ab")
    out = product.apply(a, b)
    upstream = np.random.default_rng(28).standard_normal(tuple(out.shape))
    try:
        with backward_passes() as passes, torch.no_grad():
            returned = product.backward(out.grad_fn, torch.tensor(upstream))
    except RuntimeError:
        return   # gradcheck says what is wrong, with a hint
    expect(not passes,
           _("backward runs a backward pass of its own (torch.autograd.grad or .backward() inside it): it has the "
             "engine differentiate the forward's operations for it, while the exercise is to derive the gradients "
             "and compute them yourself"),
           _("derive them on paper from the shapes: grad_a has a's shape and grad_b has b's; each is a product of "
             "grad_output with the other input, transposed or not"))
    if not (isinstance(returned, (tuple, list)) and len(returned) == 2
            and all(isinstance(g, Tensor) for g in returned)):
        return   # gradcheck says what is wrong
    low = [(name, g.dtype) for name, g in zip(("grad_a", "grad_b"), returned) if g.dtype != a.dtype]
    name, dtype = low[0] if low else ("", None)
    expect(not low,
           _("backward returns {name} of dtype {dtype} for float64 a and b: gradcheck needs float64's precision, so "
             "in float32 every gradient looks wrong, right or not")
           .format(name=name, dtype=dtype), _("keep the dtype of grad_output and the inputs: no .float() in backward"))
    want_a, want_b = gradients(np.asarray(a._data), np.asarray(b._data), upstream)
    got = [np.asarray(g.detach()._data) for g in returned]
    swapped = all(g.shape == w.shape and np.allclose(g, w) for g, w in zip(got, (want_b, want_a)))
    expect(not swapped,
           _("backward returns the right gradients in the wrong order: grad_b first, then grad_a"),
           NUMBER_OF_GRADIENTS_HINT)


def _expect_each_call_its_own_inputs(product, shape_a: tuple, shape_b: tuple, gradients) -> None:
    """Three calls on different a and b before any backward, their backwards in the order second,
    third, first: tensors kept outside ctx (on the class, in a module's list) are another call's."""
    rng = np.random.default_rng(18)
    calls = []
    for call in range(3):
        a = torch.tensor(rng.standard_normal(shape_a), requires_grad=True)
        b = torch.tensor(rng.standard_normal(shape_b), requires_grad=True)
        out = product.apply(a, b)
        calls.append((a, b, out, rng.standard_normal(tuple(out.shape))))
    for i in (1, 2, 0):
        calls[i][2].backward(torch.tensor(calls[i][3]))
    for number, (a, b, out, upstream) in enumerate(calls, start=1):
        want_a, want_b = gradients(np.asarray(a._data), np.asarray(b._data), upstream)
        right = all(t.grad is not None and np.allclose(_values(t.grad), want) for t, want in ((a, want_a), (b, want_b)))
        expect(right,
               _("{product_name}.apply three times on different a and b before any backward, then their backwards "
                 "in the order second, third, first: the gradients of call {number} are wrong, so backward used the "
                 "tensors of another call").format(product_name=product.__name__, number=number),
               _("keep each call's tensors on its own ctx, with ctx.save_for_backward(a, b), and read them back "
                 "from ctx.saved_tensors"))
    expect_freed_with_the_graph(lambda: _product_call(product, shape_a, shape_b),
                                f"{product.__name__}.apply(a, b)", "a")


def _product_call(product, shape_a: tuple, shape_b: tuple) -> list:
    """One call and its backward; its inputs."""
    a, b = _matmul_inputs(shape_a, shape_b, "ab")
    product.apply(a, b).sum().backward()
    return [a, b]


# The backward of a.t() @ b, for a of shape (k, n) and b of shape (k, m): the notebook's worked
# matmul does not answer it. Its gradients are b @ grad_output.t() and a @ grad_output; the
# starter's, copied from the matmul, fail for every shape.
_TRANSPOSED_SHAPES = [((3, 3), (3, 3)), ((4, 2), (4, 3))]


@exercise("Your turn 1: the backward of a.t() @ b",
          deeper_hint=N_("Only one product of b and grad_output has the shape (k, n): b is (k, m) and grad_output "
                         "(n, m), so one of them is transposed. Do the same for grad_b with a and grad_output, "
                         "checking each shape on paper."))
def your_turn_1(TransposedMatMul) -> None:
    """``TransposedMatMul.apply(a, b)`` computes ``a.t() @ b`` and passes ``gradcheck`` for square
    and non-square float64 matrices, for each input alone and for both together."""
    expect(_is_function_class(TransposedMatMul),
           _("{TransposedMatMul!r} is not a class derived from torch.autograd.Function")
           .format(TransposedMatMul=TransposedMatMul),
           _("pass the class itself: check.your_turn_1(TransposedMatMul)"))
    _check_product_backward(TransposedMatMul, _TRANSPOSED_SHAPES, N_("a.t() @ b"), lambda a, b: a.T @ b,
                            lambda a, b: _("a {a}, b {b}").format(a=a, b=b), lambda a, b, g: (b @ g.T, a @ g))


_POSITION_SHAPES = [(4, 4), (2, 3), (3, 5), (5, 2)]


def _positions(positions, indices, shape) -> list:
    given = np.array(indices._data)
    result = positions(indices, shape)
    expect(np.array_equal(indices._data, given),
           _("your function changed indices in place: they were {given} and are now {indices}; they are the sparse "
             "matrix's own coordinates, which the caller still needs")
           .format(given=given.tolist(), indices=np.asarray(indices._data).tolist()), _("compute the positions as a new tensor, without in-place methods or assignments to "
                            "indices"))
    returned = _returned(result)
    if isinstance(result, Tensor):
        result = result.detach()._data
    try:
        array = np.asarray(result)
    except (TypeError, ValueError):
        array = np.asarray(None)
    expect(array.dtype.kind in "iuf",
           _("your function returned {returned}, not numbers").format(returned=returned),
           _("return one whole number per stored entry, an integer tensor"))
    expect(array.dtype.kind != "f",
           _("your function returned positions of dtype {array_dtype}: a position is an index into the flattened "
             "matrix, and an index must be an integer (view(-1)[positions] refuses floats)")
           .format(array_dtype=array.dtype),
           _("keep the positions integers: compute them from indices (int64) with integer arithmetic only"))
    return array.astype(np.int64).tolist()


def _returned(result) -> str:
    """What a function returned, for a message: ``'a tensor of dtype torch.bool'``, ``'str'``."""
    if isinstance(result, Tensor):
        return _("a tensor of dtype {result_dtype}").format(result_dtype=result.dtype)
    if isinstance(result, np.ndarray):
        return _("a numpy array of dtype {result_dtype}").format(result_dtype=result.dtype)
    return type(result).__name__


class _SpmmAtPositions(Function):
    """A @ b for A = sparse (indices, values, shape); backward gathers grad(A) at the learner's
    positions in its transpose, b @ grad_output.t(), flattened."""

    positions = None    # the learner's function, set by the checker

    @staticmethod
    def forward(ctx, indices, values, shape, b):
        a = torch.sparse_coo_tensor(indices, values, shape).to_dense()
        ctx.save_for_backward(a, b)
        ctx.indices, ctx.shape = indices, shape
        return a.mm(b)

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        flat = Tensor._make(np.asarray(_positions(_SpmmAtPositions.positions, ctx.indices, ctx.shape)))
        grad_a = b.mm(grad_output.t())
        return None, grad_a.reshape(-1)[flat], None, a.t().mm(grad_output)


def _check_positions(transposed_positions) -> None:
    """The positions of the stored entries in the flattened transpose of A's gradient (column by
    column in A), then gradcheck of a sparse product that gathers there."""
    rng = np.random.default_rng(11)
    for rows, cols in _POSITION_SHAPES:
        entries = rng.permutation(rows * cols)[:max(3, rows * cols // 2)]
        indices = torch.tensor(np.stack([entries // cols, entries % cols]).astype(np.int64))
        got = _positions(transposed_positions, indices, torch.Size([rows, cols]))
        want = (entries % cols * rows + entries // cols).tolist()
        if got == want:
            continue
        expect(len(got) == len(want), _("for shape ({rows}, {cols}) and {n_want} entries you returned {n_got} "
                                        "positions")
                                      .format(rows=rows, cols=cols, n_want=len(want), n_got=len(got)), _("one position per column of indices"))
        k = next(i for i, (g, w) in enumerate(zip(got, want)) if g != w)
        row, col = int(entries[k] // cols), int(entries[k] % cols)
        expect(got != entries.tolist(),
               _("for shape ({rows}, {cols}) you gave the positions in the gradient flattened row by row, but "
                 "backward flattens its transpose")
               .format(rows=rows, cols=cols), _("in the transpose, entry (row, col) sits at (col, row)"))
        expect(False, _("for shape ({rows}, {cols}), entry ({row}, {col}) of A is at position {want_k} of the "
                        "flattened transpose; you gave {got_k}")
                      .format(rows=rows, cols=cols, row=row, col=col, want_k=want[k], got_k=got[k]),
               _("the transpose has shape (shape[1], shape[0]): how many entries does one of its rows hold?"))
    _SpmmAtPositions.positions = transposed_positions
    indices = torch.tensor([[0, 0, 1, 1], [0, 2, 0, 1]])
    values = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64, requires_grad=True)
    b = torch.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    expect(gradcheck(lambda v, m: _SpmmAtPositions.apply(indices, v, torch.Size([2, 3]), m), (values, b),
                     raise_exception=False),
           _("gradcheck fails for a sparse product whose backward gathers at your positions (A is 2 x 3)"),
           _("the position of each stored entry in the flattened transpose of the gradient"))


@exercise("Your turn 2: positions in the transposed gradient",
          deeper_hint=N_("The transpose of A (rows × cols) has the shape (cols, rows). Flattened row by row, the "
                         "entry (i, j) of a matrix with w columns is at position i * w + j; apply that to the "
                         "transpose, where A's entry (row, col) sits at (col, row)."))
def your_turn_2(transposed_positions) -> None:
    """``transposed_positions(indices, shape)``: the position of each stored entry ``(row, col)`` of
    a ``shape[0] x shape[1]`` matrix A in the flattened transpose of its gradient,
    ``b.mm(grad_output.t()).view(-1)`` (which is ``col * shape[0] + row``); gradcheck passes with a
    2 x 3 matrix."""
    expect(callable(transposed_positions), _("{transposed_positions!r} is not a function")
                                           .format(transposed_positions=transposed_positions),
           _("pass the function itself: check.your_turn_2(transposed_positions)"))
    _check_positions(transposed_positions)


def _is_static(cls, name: str) -> bool:
    return isinstance(inspect.getattr_static(cls, name, None), staticmethod)


@exercise("Your turn 3: spot the bugs in CustomFunction",
          deeper_hint=N_("Once both methods are static: the derivative of input * 2 is the constant 2, so backward "
                         "needs nothing saved; it returns grad_output times that constant."))
def your_turn_3(CustomFunction) -> None:
    """``CustomFunction.apply(x)`` returns ``2 * x`` with static ``forward`` and ``backward``; backward
    returns ``2 * grad_output`` and reads from ``ctx.saved_tensors`` only what forward saved."""
    expect(_is_function_class(CustomFunction),
           _("{CustomFunction!r} is not a class derived from torch.autograd.Function")
           .format(CustomFunction=CustomFunction),
           _("pass the class itself: check.your_turn_3(CustomFunction)"))
    for name in ("forward", "backward"):
        expect(not isinstance(inspect.getattr_static(CustomFunction, name, None), classmethod),
               _("{name} is a class method: Python passes the class CustomFunction as its first argument, so ctx "
                 "would be the class, one object shared by every call, and the real ctx would land in the next "
                 "parameter")
               .format(name=name), _("put @staticmethod, not @classmethod, on the line above def {name}").format(name=name))
        expect(_is_static(CustomFunction, name),
               _("{name} is a plain function in the class body, not a static method: it works through apply, but on "
                 "an instance Python would pass the instance itself as ctx").format(name=name),
               _("put @staticmethod on the line above def {name}").format(name=name))
    x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
    y = CustomFunction.apply(x)
    expect(_values(x) == [1.0, -2.0, 0.5],
           _("CustomFunction.apply(x) changed the caller's x in place: x was [1, -2, 0.5] and is now {values_x}")
           .format(values_x=_values(x)),
           _("forward returns a new tensor, input * 2, and leaves its input as it was: no in-place method such as "
             "mul_"))
    expect(isinstance(y, Tensor) and _values(y) == [2.0, -4.0, 1.0],
           _("CustomFunction.apply([1, -2, 0.5]) gave {y!r}, expected 2 * input").format(y=y),
           _("forward returns input * 2"))
    stashed = [where for _, where in tensors_kept_on(y.grad_fn, node_info.ctx_attributes(y.grad_fn))] \
        if y.grad_fn is not None else []
    expect(not stashed,
           _("forward keeps a tensor as a plain attribute, {stashed}: a tensor kept that way is never checked for "
             "in-place changes (notebook 05), and the gradient of 2 * input does not need it")
           .format(stashed=stashed[0] if stashed else ''), _("either save it with ctx.save_for_backward(input), or keep nothing at all"))
    node_name = CustomFunction._backward_cls.__name__
    expect(type(y.grad_fn) is CustomFunction._backward_cls,
           _("the output's grad_fn is {y_grad_fn!r}, not a {node_name} node")
           .format(y_grad_fn=y.grad_fn, node_name=node_name),
           _("return a new tensor from forward (input * 2), computed from the input"))
    upstream = torch.tensor([1.0, 10.0, 100.0])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y.backward(upstream)
    except ValueError as error:
        expect(False, _("backward unpacks ctx.saved_tensors, which does not hold what it expects: ValueError: "
                        "{error}").format(error=error),
               _("either save in forward what backward reads (ctx.save_for_backward(input)), or, since the gradient "
                 "of 2 * input does not need input, stop reading ctx.saved_tensors"))
    expect(x.grad is not None, _("after backward x.grad is None: backward returned no gradient"),
           _("return grad_output * 2"))
    expected = [2.0 * g for g in _values(upstream)]
    expect(_values(x.grad) == expected,
           _("with an incoming gradient [1, 10, 100], x.grad is {values_x_grad}, expected 2 * grad = {expected}")
           .format(values_x_grad=_values(x.grad), expected=expected),
           _("the derivative of 2 * input is 2, times grad_output (the chain rule)"))
    _expect_twice_differentiable(CustomFunction.apply,
                                 (torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64, requires_grad=True),),
                                 "CustomFunction.apply(input)")
