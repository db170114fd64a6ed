"""Checkers for ``06_needs_input_grad_and_friends.ipynb``.

>>> import minigrad as torch
>>> from minigrad.exercises import nb06 as check
>>> class MySort(torch.autograd.Function):
...     @staticmethod
...     def forward(ctx, x):
...         values, indices = x.sort()
...         ctx.mark_non_differentiable(indices)
...         ctx.save_for_backward(indices)
...         return values, indices
...     @staticmethod
...     def backward(ctx, grad_values, grad_indices):
...         indices, = ctx.saved_tensors
...         grad_x = torch.zeros_like(grad_values)
...         grad_x.index_add_(0, indices, grad_values)
...         return grad_x
>>> result = check.your_turn_2(MySort)
✓ Your turn 2: a sort that marks its indices — correct.
"""
from __future__ import annotations

import contextlib
from typing import Iterator

import numpy as np

import minigrad as torch
from minigrad.autograd.function import Function, FunctionCtx
from minigrad.tensor import Tensor

from ._feedback import _, N_, exercise, expect, expect_freed_with_the_graph
from ._observe import VIEWS, applying, outputs_of

INPLACE_ERROR = "modified by an inplace operation"

def _values(t) -> list:
    return np.asarray(t.detach()._data).tolist()


def _is_function_class(cls) -> bool:
    return isinstance(cls, type) and issubclass(cls, Function)


class _Watched(np.ndarray):
    """A saved tensor's numbers that note whether a computation used them (a numpy ufunc such as
    matmul or multiply, or a numpy function such as dot or einsum): how the checker sees work done
    for a gradient nobody needs, however the learner spelled it (minigrad, numpy, broadcasting)."""

    used = False
    __array_priority__ = 1000   # so that ndarray.dot(plain, watched) makes its result through this class

    def __array_finalize__(self, obj) -> None:
        if obj is not None and self.base is None:
            _Watched.used = True   # new numbers computed from these (ndarray.dot, a copy), not a view

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        _Watched.used = True
        plain = [np.asarray(value) if isinstance(value, _Watched) else value for value in inputs]
        return getattr(ufunc, method)(*plain, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        result = super().__array_function__(func, (np.ndarray,), args, kwargs)
        if func not in _NOT_COMPUTING and not (isinstance(result, np.ndarray) and result.base is not None):
            _Watched.used = True   # a view (np.transpose, np.reshape) computes nothing
        return result

    def tolist(self):
        _Watched.used = True   # the numbers, taken out to compute with in Python
        return np.asarray(self).tolist()

    def item(self, *args):
        _Watched.used = True
        return np.asarray(self).item(*args)


# Functions that read a shape or a dtype, not the numbers.
_NOT_COMPUTING = {np.shape, np.ndim, np.size, np.result_type, np.zeros_like, np.empty_like, np.ones_like}


@contextlib.contextmanager
def _watching(tensor: Tensor) -> Iterator[None]:
    """While the block runs, ``_Watched.used`` says whether a computation read ``tensor``'s numbers
    (or those of a detached or copied tensor made from it in the block); reset it to start afresh."""
    original = tensor._data
    tensor._data = original.view(_Watched)
    _Watched.used = False
    try:
        yield
    finally:
        tensor._data = original


@contextlib.contextmanager
def _recording_marks(cls) -> Iterator[list]:
    """Record the tensors that ``cls``'s own ctx passes to ``mark_non_differentiable`` while the
    block runs (builtin operations called inside forward, such as ``x.sort()``, mark theirs too)."""
    marked: list = []
    original = FunctionCtx.mark_non_differentiable

    def recording(self, *args):
        if type(self) is cls._backward_cls:
            marked.extend(args)
        return original(self, *args)

    FunctionCtx.mark_non_differentiable = recording
    try:
        yield marked
    finally:
        FunctionCtx.mark_non_differentiable = original


def _linear_case(MyLinear, input_requires_grad: bool, weight_requires_grad: bool):
    """Run MyLinear forward, then its backward by hand (what it returns, and whether it computed
    with the input whose gradient alone needs it), then through the engine.

    Returns (returned gradients, whether the unneeded input was used, x, w, expected gradients)."""
    rng = np.random.default_rng(6)
    x_data, w_data = rng.standard_normal((5, 4)), rng.standard_normal((3, 4))
    upstream_data = rng.standard_normal((5, 3))
    x = torch.tensor(x_data, requires_grad=input_requires_grad)
    w = torch.tensor(w_data, requires_grad=weight_requires_grad)
    # grad_weight is computed from input (and grad_input from weight): when only one gradient is
    # needed, the other tensor's numbers are not needed at all. They are watched from before
    # forward, so that what forward saves of them (the tensor, a detached or copied one) is too.
    unneeded = x if not weight_requires_grad else w if not input_requires_grad else None
    with _watching(unneeded) if unneeded is not None else contextlib.nullcontext():
        return _linear_backward(MyLinear, x, w, x_data, w_data, upstream_data, unneeded)


def _linear_backward(MyLinear, x, w, x_data, w_data, upstream_data, unneeded):
    """The rest of :func:`_linear_case`, while ``unneeded`` (None or x or w) is watched."""
    out = MyLinear.apply(x, w)
    expect(np.array_equal(np.asarray(x._data), x_data) and np.array_equal(np.asarray(w._data), w_data),
           _("MyLinear.apply changed its input or weight in place"),
           _("keep the forward of the starter: input.mm(weight.t()) makes a new tensor"))
    expect(isinstance(out, Tensor), _("MyLinear.apply returned {out_type}, not a tensor")
                                    .format(out_type=type(out).__name__),
           _("forward returns input.mm(weight.t())"))
    expect(np.allclose(_values(out), x_data @ w_data.T), _("forward does not compute input @ weight.T"),
           _("keep the forward of the starter: input.mm(weight.t())"))
    try:
        with torch.no_grad():
            _Watched.used = False
            returned = MyLinear.backward(out.grad_fn, torch.tensor(upstream_data))   # as the engine calls it
            used = unneeded is not None and _Watched.used
    except RuntimeError as error:
        _expect_shapes_fit(error)
        raise
    expect(isinstance(returned, (tuple, list)) and len(returned) == 2,
           _("backward returned {returned_type}, not two gradients (one for input, one for weight)")
           .format(returned_type=type(returned).__name__),
           _("return grad_input, grad_weight"))
    for name, gradient in zip(("input", "weight"), returned):
        expect(gradient is None or isinstance(gradient, Tensor),
               _("backward returned {gradient!r} for {name}: a gradient is a tensor, or None when nobody needs it")
               .format(gradient=gradient, name=name),
               _("return a tensor, or None for a gradient ctx.needs_input_grad does not ask for"))
    try:
        out.backward(torch.tensor(upstream_data))
    except RuntimeError as error:
        _expect_shapes_fit(error)
        raise
    expected = {"x": upstream_data @ w_data, "w": upstream_data.T @ x_data}
    return tuple(returned), used, x, w, expected


def _expect_shapes_fit(error: RuntimeError) -> None:
    """A backward whose products do not fit the shapes gets a hint, not a bare error."""
    expect(not any(text in str(error) for text in ("cannot be multiplied", "invalid gradient")),
           _("backward failed: {error}").format(error=error),
           _("each gradient has the shape of its input: input is [5, 4] and weight [3, 4] here, grad_output [5, 3]; "
             "which product of grad_output with weight (or input), transposed or not, has that shape?"))


def _expect_grad(tensor, returned, expected, name: str, formula: str, case: str) -> None:
    expect(returned is not None and tensor.grad is not None,
           _("{case}: backward returned None for {name}, whose gradient is needed").format(case=case, name=name),
           _("return {formula} in its position when ctx.needs_input_grad says it is needed").format(formula=formula))
    expect(np.allclose(_values(tensor.grad), expected), _("{case}: {name}.grad has wrong values")
                                                        .format(case=case, name=name),
           _("the gradient of input.mm(weight.t()) with respect to {name} is {formula}")
           .format(name=name, formula=formula))


@exercise("Your turn 1: skip the gradients nobody needs",
          deeper_hint=N_("Start both gradients as None; compute each one only inside an if on its own entry of "
                         "ctx.needs_input_grad (0 for input, 1 for weight), then return the pair."))
def your_turn_1(MyLinear) -> None:
    """``MyLinear.apply(input, weight)`` computes ``input @ weight.T``; its backward returns ``None``
    for a gradient ``ctx.needs_input_grad`` does not ask for, and does not compute it (judged by
    what backward returns and by whether it computes with the tensor only that gradient needs)."""
    expect(_is_function_class(MyLinear), _("{MyLinear!r} is not a class derived from torch.autograd.Function")
                                         .format(MyLinear=MyLinear),
           _("pass the class itself: check.your_turn_1(MyLinear)"))
    grad_input, grad_weight = "grad_output.mm(weight)", "grad_output.t().mm(input)"

    returned, unused, x, w, expected = _linear_case(MyLinear, True, True)
    case = N_("with both input and weight requiring grad")
    _expect_grad(x, returned[0], expected["x"], "input", grad_input, case)
    _expect_grad(w, returned[1], expected["w"], "weight", grad_weight, case)

    returned, used, x, w, expected = _linear_case(MyLinear, True, False)
    case = N_("with a frozen weight (needs_input_grad == (True, False))")
    _expect_grad(x, returned[0], expected["x"], "input", grad_input, case)
    _expect_skipped(returned[1], used, case, 1)

    returned, used, x, w, expected = _linear_case(MyLinear, False, True)
    case = N_("with data that needs no gradient (needs_input_grad == (False, True))")
    _expect_grad(w, returned[1], expected["w"], "weight", grad_weight, case)
    _expect_skipped(returned[0], used, case, 0)
    _expect_each_call_its_own_needs(MyLinear)
    expect_freed_with_the_graph(lambda: _linear_call(MyLinear), "MyLinear.apply(input, weight)", "input")


def _linear_call(MyLinear) -> list:
    """One call and its backward; the input and the weight it was given."""
    x = torch.tensor(np.ones((2, 4)), requires_grad=True)
    w = torch.tensor(np.ones((3, 4)), requires_grad=True)
    MyLinear.apply(x, w).sum().backward()
    return [x, w]


def _expect_each_call_its_own_needs(MyLinear) -> None:
    """Three calls before any backward, each needing other gradients, and their backwards (called as
    the engine calls them) in the order second, third, first: what backward reads outside its own
    ctx (needs_input_grad kept on the class, tensors in a list) is another call's."""
    rng = np.random.default_rng(16)
    upstream = torch.tensor(rng.standard_normal((5, 3)))
    calls = []
    for needs in ((True, True), (True, False), (False, True)):
        x = torch.tensor(rng.standard_normal((5, 4)), requires_grad=needs[0])
        w = torch.tensor(rng.standard_normal((3, 4)), requires_grad=needs[1])
        calls.append((needs, x, w, MyLinear.apply(x, w)))
    for i in (1, 2, 0):
        needs, x, w, out = calls[i]
        with torch.no_grad():
            returned = MyLinear.backward(out.grad_fn, upstream)
        up = np.asarray(upstream._data)
        wanted = (up @ np.asarray(w._data), up.T @ np.asarray(x._data))
        for position, (name, needed) in enumerate(zip(("input", "weight"), needs)):
            gradient = returned[position] if isinstance(returned, (tuple, list)) and len(returned) == 2 else None
            if not needed:
                what = None if gradient is None else _("a gradient for {name}, which nobody needs").format(name=name)
            elif gradient is None:
                what = _("None for {name}, whose gradient is needed").format(name=name)
            else:
                right = isinstance(gradient, Tensor) and np.allclose(_values(gradient), wanted[position])
                what = None if right else _("a wrong gradient for {name}").format(name=name)
            expect(what is None,
                   _("MyLinear.apply three times before any backward, with needs_input_grad (True, True), (True, "
                     "False) and (False, True), then their backwards in the order second, third, first: for the "
                     "call with needs_input_grad == {needs}, backward returned {what}: it read what another call "
                     "stored").format(needs=needs, what=what),
                   _("read needs_input_grad and the saved tensors from backward's own ctx, the record of the call "
                     "being differentiated, not from the class or anything several calls share"))


def _expect_skipped(gradient, used: bool, case: str, index: int) -> None:
    """The gradient in position ``index`` (0 input, 1 weight) is not needed: None, and not computed."""
    name, other, grad_name = ("input", "weight", "grad_input") if index == 0 else ("weight", "input", "grad_weight")
    expect(not _zeros(gradient),
           _("{case}, backward returned zeros for {name}, whose gradient nobody needs: the zeros are computed and "
             "passed on for nothing, where None says that there is no gradient").format(case=case, name=name),
           _("return None for a gradient ctx.needs_input_grad does not ask for (check ctx.needs_input_grad[{index}])")
           .format(index=index))
    expect(gradient is None,
           _("{case}, backward returned a {gradient_type} for {name}, whose gradient nobody needs")
           .format(case=case, gradient_type=type(gradient).__name__, name=name),
           _("return None for a gradient ctx.needs_input_grad does not ask for (check ctx.needs_input_grad[{index}])")
           .format(index=index))
    expect(not used,
           _("{case}, backward returned None for {name}, but still computed with {other}, which only {grad_name} "
             "needs: that work is thrown away").format(case=case, name=name, other=other, grad_name=grad_name),
           _("compute {grad_name} only if ctx.needs_input_grad[{index}]").format(grad_name=grad_name, index=index))


def _zeros(value) -> bool:
    """True for a tensor, array or number whose every entry is 0."""
    if isinstance(value, Tensor):
        value = value.detach()._data
    try:
        return value is not None and not np.any(np.asarray(value, dtype=float))
    except (TypeError, ValueError):
        return False


@exercise("Your turn 2: a sort that marks its indices",
          deeper_hint=N_("In forward: sort, pass the indices to ctx.mark_non_differentiable, save them for "
                         "backward, return both. In backward: start from zeros shaped like grad_values and put "
                         "grad_values[j] at position indices[j] (index_add_, or an assignment by index)."))
def your_turn_2(MySort) -> None:
    """``MySort.apply(x)`` returns ``(values, indices)`` like ``x.sort()``; the indices are marked
    non-differentiable and the gradient reaches ``x`` through the values."""
    expect(_is_function_class(MySort), _("{MySort!r} is not a class derived from torch.autograd.Function")
                                       .format(MySort=MySort),
           _("pass the class itself: check.your_turn_2(MySort)"))
    data = [0.3, -1.2, 2.5, 0.0, 1.1]
    order = np.argsort(data, kind="stable")
    x = torch.tensor(np.array(data), requires_grad=True)
    with _recording_marks(MySort) as marked:
        out = MySort.apply(x)
    expect(isinstance(out, tuple) and len(out) == 2,
           _("MySort.apply(x) returned {out_type}, not a pair (values, indices)").format(out_type=type(out).__name__),
           _("return values, indices"))
    values, indices = out
    expect(_values(x) == data,
           _("MySort.apply(x) changed the caller's x in place: x was {data} and is now {values_x}")
           .format(data=data, values_x=_values(x)),
           _("x.sort() returns new tensors: return them, and leave x as it was"))
    expect(isinstance(values, Tensor) and isinstance(indices, Tensor), _("values and indices must both be tensors"),
           _("values, indices = x.sort()"))
    expect(not (_values(values) == order.tolist() and _values(indices) == np.sort(data).tolist()),
           _("MySort.apply(x) returned the pair in the wrong order, (indices, values): the first is {values}, the "
             "positions, and the second {values_indices}, the sorted numbers")
           .format(values=_values(values), values_indices=_values(indices)),
           _("return values, indices: the sorted values first, as x.sort() gives them"))
    expect(_values(values) == np.sort(data).tolist(), _("values are {values}, not sorted ascending")
                                                      .format(values=_values(values)),
           _("values, indices = x.sort()"))
    expect(_values(indices) == order.tolist(), _("indices are {values_indices}, expected {order}")
                                               .format(values_indices=_values(indices), order=order.tolist()),
           _("return the indices x.sort() gives, unchanged"))
    expect(indices.dtype == torch.int64,
           _("the indices have dtype {indices_dtype}, while x.sort() gives torch.int64: an index is a whole number, "
             "and tensors of positions (index_add_, gather, x[indices]) want int64")
           .format(indices_dtype=indices.dtype),
           _("return the indices x.sort() gives, unchanged (no .double() or .float())"))
    expect(any(t is indices for t in marked),
           _("forward never passed the returned indices to ctx.mark_non_differentiable"),
           _("forward has to tell ctx which output is not differentiable, before returning it (the section on "
             "mark_non_differentiable)"))
    expect(not any(t is values for t in marked), _("the values are marked non-differentiable, so no gradient can "
                                                   "flow through them"), _("mark only the indices"))
    expect(not indices.requires_grad and indices.grad_fn is None,
           _("indices has requires_grad={indices_requires_grad} and grad_fn {indices_grad_fn_name}")
           .format(indices_requires_grad=indices.requires_grad, indices_grad_fn_name=indices.grad_fn.name() if indices.grad_fn is not None else None),
           _("ctx.mark_non_differentiable(indices) gives requires_grad=False and grad_fn=None"))
    expect(values.grad_fn is not None, _("values has no grad_fn, so backward can never reach x"),
           _("return the values x.sort() gave, unmarked"))
    weights = [1.0, 10.0, 100.0, 1000.0, 10000.0]
    (values * torch.tensor(np.array(weights))).sum().backward()
    expected = _sorted_gradient(data, weights)
    expect(x.grad is not None, _("after backward x.grad is None: backward returned no gradient for x"),
           _("return a tensor shaped like x: grad_values[j] goes to position indices[j]"))
    expect(np.allclose(_values(x.grad), expected),
           _("for the loss sum(values * {w_weights}), x.grad is {values_x_grad}, expected {expected}")
           .format(w_weights=[int(w) for w in weights], values_x_grad=_values(x.grad), expected=expected.tolist()),
           _("grad_values[j] belongs to x[indices[j]]: start from zeros shaped like x and add each grad_values[j] "
             "at position indices[j] (index_add_ does it in one call)"))
    _expect_each_call_its_own_indices(MySort)


def _sorted_gradient(data: list, weights: list) -> np.ndarray:
    """x.grad for the loss sum(values * weights), values = sorted(x): weight j goes where x's j-th smallest is."""
    gradient = np.zeros(len(data))
    gradient[np.argsort(data, kind="stable")] = weights
    return gradient


def _grad_or_none(x) -> list | None:
    return None if x.grad is None else _values(x.grad)


def _expect_each_call_its_own_indices(MySort) -> None:
    """Three sorts before any backward, their backwards in the order second, third, first; then a
    sort of x, x changed under no_grad and sorted again, and the backward of the first sort. Indices
    kept outside ctx (on the class, in a list, on the input tensor) are another call's."""
    datasets = [[0.3, -1.2, 2.5, 0.0, 1.1], [5.0, 4.0, 3.0, 2.0, 1.0], [2.0, 9.0, -3.0, 7.0, 0.5]]
    weights = torch.tensor(np.array([1.0, 10.0, 100.0, 1000.0, 10000.0]))
    xs = [torch.tensor(np.array(data), requires_grad=True) for data in datasets]
    outputs = [MySort.apply(x)[0] for x in xs]
    for i in (1, 2, 0):
        (outputs[i] * weights).sum().backward()
    for number, (x, data) in enumerate(zip(xs, datasets), start=1):
        got, want = _grad_or_none(x), _sorted_gradient(data, _values(weights))
        expect(got is not None and np.allclose(got, want),
               _("MySort.apply(x1), MySort.apply(x2), MySort.apply(x3) on three different tensors, then their "
                 "backwards in the order second, third, first: x{number}.grad is {got}, expected {want}: backward "
                 "used the indices of another call").format(number=number, got=got, want=want.tolist()),
               _("keep the indices of each call on its own ctx, with ctx.save_for_backward(indices)"))
    x = torch.tensor(np.array(datasets[0]), requires_grad=True)
    first, unused = MySort.apply(x)
    with torch.no_grad():
        x.copy_(torch.tensor(np.array(datasets[1])))
    MySort.apply(x)
    try:
        (first * weights).sum().backward()
    except RuntimeError as error:
        if INPLACE_ERROR in str(error):
            return   # backward reads x itself, which changed: PyTorch refuses too, and nothing is wrong
        raise
    got, want = _grad_or_none(x), _sorted_gradient(datasets[0], _values(weights))
    expect(got is not None and np.allclose(got, want),
           _("MySort.apply(x), then x changed under torch.no_grad() and MySort.apply(x) again, then the backward of "
             "the first sort: x.grad is {got}, expected {want}: backward did not use the indices of the first sort, "
             "so what it read was overwritten or changed by then (indices kept on the input tensor? x kept as a "
             "plain attribute and sorted again?)").format(got=got, want=want.tolist()),
           _("keep the indices of each call on its own ctx, with ctx.save_for_backward(indices)"))
    expect_freed_with_the_graph(lambda: _sort_call(MySort), "MySort.apply(x)", "indices")


def _sort_call(MySort) -> list:
    """One sort and its backward; the indices it returned."""
    x = torch.tensor(np.array([0.3, -1.2, 2.5]), requires_grad=True)
    values, indices = MySort.apply(x)
    values.sum().backward()
    return [indices]


_UPSTREAM = [1.0, 10.0, 100.0]   # not all ones: backward must use grad_output


@exercise("Your turn 3: an in-place Function",
          deeper_hint=N_("After x.add_(1), pass x to ctx.mark_dirty and return x itself, not a copy; backward "
                         "passes grad_output on unchanged, since adding 1 does not change the slope."))
def your_turn_3(AddOne_) -> None:
    """``AddOne_.apply(h)`` adds 1 to ``h`` in place, marks it dirty and returns ``h`` itself, whose
    ``grad_fn`` becomes the node; a leaf that requires grad is refused."""
    expect(_is_function_class(AddOne_), _("{AddOne_!r} is not a class derived from torch.autograd.Function")
                                        .format(AddOne_=AddOne_),
           _("pass the class itself: check.your_turn_3(AddOne_)"))
    node_name = AddOne_._backward_cls.__name__
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = a.clone()
    try:
        out = AddOne_.apply(h)
    except RuntimeError as error:
        expect("marked as dirty" not in str(error), _("AddOne_.apply(h) failed: RuntimeError: {error}")
                                                    .format(error=error),
               _("return x itself, the tensor you changed and marked dirty, not a copy"))
        raise
    expect(isinstance(out, Tensor), _("AddOne_.apply returned {out_type}, not a tensor")
                                    .format(out_type=type(out).__name__), _("return x"))
    expect(_values(h) == [2.0, 3.0, 4.0], _("after AddOne_.apply(h), h is {values_h}; expected [2, 3, 4]")
                                          .format(values_h=_values(h)),
           _("change x in place: x.add_(1)"))
    expect(out is h, _("apply returned a new tensor object, not h: without ctx.mark_dirty(x), apply treats x as an "
                       "input returned unchanged and hands back a new view, while h keeps grad_fn {h_grad_fn_name}, "
                       "a history that no longer matches its values")
                     .format(h_grad_fn_name=h.grad_fn.name() if h.grad_fn is not None else None),
           _("apply does not know that forward changed x: the section on mark_dirty says how forward tells it"))
    expect(h.grad_fn is not None and h.grad_fn.name() == node_name,
           _("h.grad_fn is {h_grad_fn_name}, not {node_name}")
           .format(h_grad_fn_name=h.grad_fn.name() if h.grad_fn is not None else None, node_name=node_name),
           _("mark x dirty and return it: apply then makes the node its grad_fn"))
    out.backward(torch.tensor(_UPSTREAM))
    got = None if a.grad is None else _values(a.grad)
    expect(got != [1.0, 1.0, 1.0], _("with an incoming gradient {_UPSTREAM}, a.grad is {got}: backward ignores "
                                     "grad_output")
                                   .format(_UPSTREAM=_UPSTREAM, got=got), _("the derivative of x + 1 is 1: return grad_output itself"))
    expect(got == _UPSTREAM, _("with an incoming gradient {_UPSTREAM}, a.grad is {got}; expected {_UPSTREAM}")
                             .format(_UPSTREAM=_UPSTREAM, got=got),
           _("the derivative of x + 1 is 1: return grad_output itself"))
    leaf = torch.tensor([1.0, 2.0], requires_grad=True)
    try:
        AddOne_.apply(leaf)
    except RuntimeError as error:
        expect("leaf Variable" in str(error), _("for a leaf that requires grad: RuntimeError: {error}")
                                              .format(error=error))
    else:
        expect(False, _("changing a leaf that requires grad in place was accepted without an error"),
               _("ctx.mark_dirty(x) lets apply refuse it, as PyTorch does"))


# How the check of Your turn 4 sees a term computed for a missing gradient: backward receives None,
# and a learner who turns it into zeros (torch.zeros, zeros_like, np.zeros, a zeros(1) that
# broadcasts, 0 * grad) computes from those zeros. Every operation backward runs is watched, in
# minigrad (each one a Function) and in numpy: one that makes zeros from zeros (zeros * 3, zeros +
# zeros, zeros.sum()), stacks a tensor of zeros with others, or adds a tensor of zeros more than once
# computed a term nobody needs. Adding the present gradients into ONE tensor of zeros (the PyTorch
# documentation's pattern), copying into it or viewing it computes nothing.
_VIEWS_AND_COPIES = VIEWS | {
    "Index", "Clone", "ToCopy", "CopyInplace",
    "IndexPut", "Scatter", "ScatterValue", "MaskedFill", "MaskedFillTensor", "FillInplace", "ZeroInplace",
    "FillTensorInplace", "PutIntoZeros",
    # numpy functions that view, copy, create or read a shape
    "reshape", "ravel", "transpose", "squeeze", "expand_dims", "broadcast_to", "broadcast_arrays", "copy",
    "atleast_1d", "atleast_2d", "atleast_3d", "moveaxis", "swapaxes", "zeros_like", "ones_like", "empty_like",
    "full_like", "shape", "ndim", "size", "result_type", "copyto", "can_cast", "may_share_memory",
    "shares_memory", "positive"}
_STACKING = {"Cat", "Stack", "stack", "concatenate", "vstack", "hstack", "column_stack", "dstack", "block",
             "append", "row_stack", "array", "asarray"}
_SCALING_ADDS = {"AddScaled", "SubScaled", "AddScaledInplace", "SubScaledInplace"}   # (a, b, alpha): a + alpha * b
_ADDING = {"Add", "AddScaled", "Sub", "SubScaled", "Rsub", "AddInplace", "AddScaledInplace", "SubInplace",
           "SubScaledInplace", "IndexAdd", "ScatterAdd", "ScatterAddInto", "add", "subtract"}


def _all_zero(value) -> bool:
    """A tensor or array (not a Python number) whose every entry is 0."""
    if isinstance(value, Tensor):
        if value._wrapped_number:
            return False
        value = value._data
    return isinstance(value, np.ndarray) and value.size > 0 and not _bare(value).any()


def _bare(array: np.ndarray) -> np.ndarray:
    """The same numbers as a plain ndarray (np.asarray is swapped while backward is watched)."""
    return array.view(np.ndarray) if isinstance(array, _Tracked) else array


class _ZeroTerms:
    """What one call of backward computed from tensors or arrays of zeros (see above)."""

    active = None   # the record of the backward call being watched, if one is

    def __init__(self) -> None:
        self.terms: list[str] = []
        self.zero_adds = 0
        self.inside_operation = 0   # numpy work inside a minigrad operation is that operation's

    def note(self, name: str, zero_operand: bool, results: list) -> None:
        if not zero_operand or name in _VIEWS_AND_COPIES:
            return
        if name in _STACKING:
            self.terms.append(name)
        elif results and all(_all_zero(r) for r in results):
            self.terms.append(name)   # zeros in, zeros out: a term computed from zeros
        elif name in _ADDING:
            self.zero_adds += 1
            if self.zero_adds > 1:
                self.terms.append(name)


def _leaves(value, depth: int = 3) -> list:
    """The arrays and tensors in ``value``, inside lists and tuples too."""
    if isinstance(value, (np.ndarray, Tensor)):
        return [value]
    if depth and isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _leaves(item, depth - 1)]
    return []


class _Tracked(np.ndarray):
    """Arrays made while backward runs (np.zeros and friends, the gradients' own numbers): numpy
    tells this class about every computation with them."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        plain = [_bare(value) if isinstance(value, _Tracked) else value for value in inputs]
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = tuple(_bare(o) if isinstance(o, _Tracked) else o for o in out)
        zero_operand = any(_all_zero(value) for value in inputs if isinstance(value, np.ndarray))
        result = getattr(ufunc, method)(*plain, **kwargs)
        return _after(ufunc.__name__, zero_operand, result, out)

    def __array_function__(self, func, types, args, kwargs):
        zero_operand = any(_all_zero(leaf) for leaf in _leaves(args) + _leaves(list(kwargs.values())))
        result = func(*_plain(args), **{key: _plain(value) for key, value in kwargs.items()})
        return _after(func.__name__, zero_operand, result, None)


def _plain(value):
    if isinstance(value, _Tracked):
        return _bare(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(item) for item in value)
    return value


def _after(name: str, zero_operand: bool, result, out):
    tracker = _ZeroTerms.active
    results = list(result) if isinstance(result, tuple) else [result]
    if tracker is None:
        return result
    if not tracker.inside_operation:
        tracker.note(name, zero_operand, [r for r in results if isinstance(r, np.ndarray)])
    if out is not None:
        return out[0] if len(out) == 1 else out
    tracked = [r.view(_Tracked) if type(r) is np.ndarray else r for r in results]
    return tuple(tracked) if isinstance(result, tuple) else tracked[0]


def _tracking_creator(create):
    def tracked(*args, **kwargs):
        zero_operand = any(_all_zero(leaf) for leaf in _leaves(args[:1]))
        result = create(*args, **kwargs)
        if create.__name__ in _STACKING and len(_leaves(args[:1])) > 1:
            return _after(create.__name__, zero_operand, result, None)   # np.array([a, zeros]) stacks
        tracker = _ZeroTerms.active
        if tracker is not None and isinstance(result, np.ndarray) and type(result) is np.ndarray:
            return result.view(_Tracked)
        return result
    return tracked


_CREATORS = ("zeros", "zeros_like", "full", "full_like", "array", "asarray", "asanyarray", "ascontiguousarray",
             "copy")


@contextlib.contextmanager
def _watching_zero_terms(gradients: list) -> Iterator[_ZeroTerms]:
    """While backward runs: minigrad's operations (through Function.apply), numpy's (through the
    arrays numpy creates and the gradients' own numbers) are told to the returned record."""
    tracker = _ZeroTerms()
    originals = {name: getattr(np, name) for name in _CREATORS}
    kept = [(g, g._data) for g in gradients if isinstance(g, Tensor)]
    running: list = []   # (args, whether one was all zeros) of the operations running, innermost last

    def starting(cls, args):
        zero_operand = any(_all_zero(arg) for arg in args if isinstance(arg, Tensor))
        if (cls.__name__ in _SCALING_ADDS and len(args) == 3 and not running
                and args[2] != 1 and _all_zero(args[1])):
            tracker.terms.append(cls.__name__)   # add(a, zeros, alpha=3) computes 3 * zeros
        running.append((args, zero_operand))
        tracker.inside_operation = len(running)

    def finished(cls, args, output):
        zero_operand = False
        while running:   # the innermost call with these arguments ends (any above it raised)
            started_with, zero_operand = running.pop()
            if started_with is args:
                break
        tracker.inside_operation = len(running)
        if not running:
            tracker.note(cls.__name__, zero_operand, [t for t in outputs_of(output)])

    for name, create in originals.items():
        setattr(np, name, _tracking_creator(create))
    for g, data in kept:
        g._data = data.view(_Tracked)
    _ZeroTerms.active = tracker
    try:
        with applying(finished, starting):
            yield tracker
    finally:
        _ZeroTerms.active = None
        for g, data in kept:
            g._data = data
        for name, create in originals.items():
            setattr(np, name, create)


@exercise("Your turn 4: None for an unused output",
          deeper_hint=N_("Call ctx.set_materialize_grads(False) in forward; in backward, add the term of an output "
                         "only when its gradient is not None: 2 * grad_double, 3 * grad_triple."))
def your_turn_4(TwoScales) -> None:
    """``TwoScales.apply(x)`` returns ``(2 x, 3 x)``; with ``set_materialize_grads(False)`` its backward
    receives ``None`` for an unused output and skips that term (it computes no term from zeros)."""
    expect(_is_function_class(TwoScales), _("{TwoScales!r} is not a class derived from torch.autograd.Function")
                                          .format(TwoScales=TwoScales),
           _("pass the class itself: check.your_turn_4(TwoScales)"))
    upstream = torch.tensor(_UPSTREAM)
    cases = [(N_("only the first output used"), lambda d, t: d.backward(upstream), [2.0 * g for g in _UPSTREAM], 0),
             (N_("only the second output used"), lambda d, t: t.backward(upstream), [3.0 * g for g in _UPSTREAM], 1),
             (N_("both outputs used"), lambda d, t: (d * upstream + t * upstream).sum().backward(),
              [5.0 * g for g in _UPSTREAM], None)]
    for case, run_backward, want, used in cases:
        x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
        try:
            out = TwoScales.apply(x)
        except TypeError as error:
            expect("set_materialize_grads" not in str(error),
                   _("forward called ctx.set_materialize_grads with something other than True or False: it takes a "
                     "bool, and PyTorch raises TypeError: {error}")
                   .format(error=error), _("ctx.set_materialize_grads(False)"))
            raise
        expect(_values(x) == [1.0, -2.0, 0.5],
               _("TwoScales.apply(x) changed the caller's x in place: x is now {values_x}").format(values_x=_values(x)),
               _("return new tensors, x * 2 and x * 3, and leave x as it was"))
        expect(isinstance(out, tuple) and len(out) == 2, _("TwoScales.apply returned {out_type}, not a pair")
                                                         .format(out_type=type(out).__name__), _("return x * 2, x * 3"))
        expect(all(isinstance(t, Tensor) for t in out),
               _("TwoScales.apply returned ({out_type}, {out_type2}), not two tensors")
               .format(out_type=type(out[0]).__name__, out_type2=type(out[1]).__name__),
               _("return x * 2, x * 3: tensors computed from x"))
        values = [_values(t) for t in out]
        expect(all(np.shape(v) == (3,) for v in values) and np.allclose(values, [[2.0, -4.0, 1.0], [3.0, -6.0, 1.5]]),
               _("for x = [1.0, -2.0, 0.5], TwoScales.apply(x) returned {values}; expected [[2.0, -4.0, 1.0], "
                 "[3.0, -6.0, 1.5]], that is (2 * x, 3 * x): backward's gradients hold only for that forward")
               .format(values=values),
               _("return x * 2, x * 3, in that order"))
        expect(out[0].grad_fn is not None, _("the outputs have no grad_fn, so backward can never reach x"),
               _("return x * 2, x * 3, computed from the input x"))
        materialize = out[0].grad_fn.materialize_grads
        expect(materialize is not True,
               _("ctx.materialize_grads is still True: backward receives zeros, not None, for an unused output"),
               _("the section on set_materialize_grads: forward can ask for None instead of zeros"))
        expect(materialize is False,
               _("ctx.materialize_grads is {materialize!r}, not False: the flag is a bool, which "
                 "ctx.set_materialize_grads(False) sets (PyTorch refuses anything else with a TypeError)")
               .format(materialize=materialize),
               _("call ctx.set_materialize_grads(False) in forward instead of assigning the attribute"))
        if used is not None:
            grads = [None, None]
            grads[used] = torch.tensor(_UPSTREAM)
            with _watching_zero_terms(grads) as from_zeros:
                try:
                    with torch.no_grad():   # as the engine calls it
                        TwoScales.backward(out[0].grad_fn, *grads)
                except TypeError:
                    pass   # the engine's run below reports it
            expect(not from_zeros.terms,
                   _("{case}: backward turned the None it received into zeros and computed that output's term "
                     "anyway: the work set_materialize_grads(False) is there to save").format(case=case),
                   _("test `if grad_double is not None` (and the same for grad_triple), and compute only the terms "
                     "whose gradient is there"))
        try:
            run_backward(*out)
        except TypeError as error:
            expect("NoneType" not in str(error),
                   _("{case}: backward computed with the None it received for the other output: TypeError: {error}")
                   .format(case=case, error=error),
                   _("test `if grad_double is not None` (and the same for grad_triple) before using it"))
            raise
        got = None if x.grad is None else _values(x.grad)
        expect(got == want, _("{case}, with an incoming gradient {_UPSTREAM}: x.grad is {got}; expected {want}")
                            .format(case=case, _UPSTREAM=_UPSTREAM, got=got, want=want),
               _("2 * grad_double + 3 * grad_triple, leaving out the term whose gradient is None"))
