"""Operations that change the shape, not the values: view and reshape, t, transpose, permute, squeeze,
unsqueeze, expand, flip, and also clone and to (a dtype copy). Most return *views*: tensors that share
memory and the version counter with their input. (``cat``, ``stack`` and the pieces of a tensor are
in ``joining.py``.)

>>> import minigrad as torch
>>> x = torch.tensor([[1.0, -2.0], [3.0, -4.0]], requires_grad=True)
>>> x.flip(0)
tensor([[ 3., -4.],
        [ 1., -2.]], grad_fn=<FlipBackward0>)
"""
from __future__ import annotations

import numpy as np

from .. import grad_mode
from ..autograd import views
from ..tensor import Tensor
from ._util import Builtin, _argument_error, check_ndim, normalize_dims, size_list, view_of, wrap, wrap_dim


class ViewFunction(Builtin):
    """Base of the operations whose output is a *view*: it shows its input's memory, shares its version
    counter and has it as ``_base``. ``apply`` also records how the view was made (under no_grad or
    not), which decides whether it may later be changed in place (see ``autograd/views.py``)."""

    @classmethod
    def apply(cls, a: Tensor, *args):
        in_no_grad = not grad_mode.state.enabled
        out = super().apply(a, *args)
        views.remember_creation(out, a, in_no_grad)
        return out


class MultiViewFunction(Builtin):
    """Base of the operations that return *several* views of their input (split, chunk, unbind). As
    in PyTorch, none of them may later be changed in place while a graph is recorded: one node made
    all the pieces, and it cannot be rewritten for one piece alone (see ``autograd/views.py``)."""

    @classmethod
    def apply(cls, a: Tensor, *args):
        in_no_grad = not grad_mode.state.enabled
        pieces = super().apply(a, *args)
        for piece in pieces:
            views.remember_creation(piece, a, in_no_grad, multi_output=True)
        return pieces


_VIEW_SIGNATURES = ("view() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                    " * (torch.dtype dtype)\n * (tuple of ints size)\n")


def _shape_arg(shape: tuple, function: str = "view", argument: str = "size") -> tuple:
    """``x.view(2, 3)`` or ``x.view((2, 3))`` as a tuple of ints, or PyTorch's TypeError (``size_list``)."""
    nested = len(shape) == 1 and isinstance(shape[0], (tuple, list))   # x.view((2, 3)), x.expand(y.shape)
    if nested:
        shape = tuple(shape[0])
    for s in shape:
        if type(s) is not int:
            if nested:
                return size_list(function, argument, (shape,))
            return size_list(function, argument, shape, _VIEW_SIGNATURES if function == "view" else None)
    return shape   # a tuple of Python ints (the common case)


def _infer_shape(shape: tuple, numel: int) -> tuple:
    """``shape`` with its -1 worked out, or PyTorch's error."""
    for index, s in enumerate(shape):
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s} at index {index} of shape [{', '.join(map(str, shape))}]")
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    check_ndim(len(shape))
    if shape.count(-1) == 1:
        known = int(np.prod([s for s in shape if s != -1]))
        if not known and not numel:   # 0 elements and another dimension 0: -1 could be anything
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape [{', '.join(str(s) for s in shape)}] "
                               "because the unspecified dimension size -1 can be any value and is ambiguous")
        if known and numel % known == 0:
            shape = tuple(numel // known if s == -1 else s for s in shape)
    if int(np.prod(shape)) != numel or any(s < 0 for s in shape):
        raise RuntimeError(f"shape '[{', '.join(str(s) for s in shape)}]' is invalid for input of size {numel}")
    return shape


class View(ViewFunction):
    """f(a) = a seen in another shape, the same elements in the same order: a view

    ∂L/∂a = grad.reshape(a's shape)
    Saves nothing: keeps a's shape.
    """

    @staticmethod
    def forward(ctx, a, shape):
        ctx._shape = a.shape
        return view_of(a, np.reshape(a._data, shape, copy=False))

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx._shape), None


class UnsafeView(Builtin):
    """f(a) = a in another shape: the reshape of a fresh copy, inside ``reshape`` of a tensor that
    cannot be viewed (so not a view)

    ∂L/∂a = grad.reshape(a's shape)
    Saves nothing: keeps a's shape.
    """

    @staticmethod
    def forward(ctx, a, shape):
        ctx._shape = a.shape
        return wrap(a._data.reshape(shape))

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx._shape), None


class ReshapeAlias(ViewFunction):
    """f(a) = a in another shape: ``reshape`` of a non-contiguous tensor whose memory allows a
    view, a view with new strides

    ∂L/∂a = grad.reshape(a's shape)
    Saves nothing: keeps a's shape.
    """

    @staticmethod
    def forward(ctx, a, shape):
        ctx._shape = a.shape
        return view_of(a, a._data.reshape(shape, copy=False))

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx._shape), None


def _viewable(array: np.ndarray, shape: tuple) -> bool:
    """Can ``array`` be shown in ``shape`` without copying (PyTorch's test for ``view``)?"""
    try:
        np.reshape(array, shape, copy=False)
    except ValueError:
        return False
    return True


def view(a: Tensor, shape: tuple, reshape: bool = False) -> Tensor:
    """``a.view(shape)`` (a view, or an error if the memory layout does not allow one); with
    ``reshape=True``, ``a.reshape(shape)``: a view when possible (ViewBackward0 for a contiguous tensor,
    ReshapeAliasBackward0 otherwise), else a contiguous copy (CloneBackward0, UnsafeViewBackward0)."""
    shape = _infer_shape(_shape_arg(shape, "reshape" if reshape else "view", "shape" if reshape else "size"), a._data.size)
    if a._data.flags.c_contiguous:
        return View.apply(a, shape)
    if _viewable(a._data, shape):
        return ReshapeAlias.apply(a, shape) if reshape else View.apply(a, shape)
    if reshape:
        return UnsafeView.apply(Clone.apply(a), shape)
    raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one dimension "
                       "spans across two contiguous subspaces). Use .reshape(...) instead.")


def reshape(a: Tensor, shape: tuple) -> Tensor:
    """PyTorch's ``reshape`` (see ``view``)."""
    return view(a, shape, reshape=True)


def flatten(a: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    start, end = wrap_dim(start_dim, a.ndim), wrap_dim(end_dim, a.ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if a.ndim == 0:
        return reshape(a, (1,))
    if start == end:   # nothing to flatten: PyTorch returns the tensor itself
        return a
    shape = a.shape[:start] + (int(np.prod(a.shape[start:end + 1])),) + a.shape[end + 1:]
    return reshape(a, shape)


class T(ViewFunction):
    """f(a) = a.T, for at most 2 dimensions: a view

    ∂L/∂a = grad.t()
    Saves nothing.
    """

    @staticmethod
    def forward(ctx, a):
        return view_of(a, a._data.T)

    @staticmethod
    def backward(ctx, grad):
        return grad.t()


def t(a: Tensor) -> Tensor:
    if a._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    return T.apply(a)


class Transpose(ViewFunction):
    """f(a) = a with dims d0 and d1 swapped: a view

    ∂L/∂a = grad.transpose(d0, d1): the swap undoes itself
    Saves nothing: keeps (d0, d1).
    """

    @staticmethod
    def forward(ctx, a, dim0, dim1):
        dim0, dim1 = wrap_dim(dim0, a.ndim), wrap_dim(dim1, a.ndim)
        ctx._dims = (dim0, dim1)
        return view_of(a, np.swapaxes(a._data, dim0, dim1) if a.ndim else a._data)

    @staticmethod
    def backward(ctx, grad):
        return grad.transpose(*ctx._dims), None, None


class TransposeInplace(Builtin):
    """f(a) = a with dims d0 and d1 swapped, in place (``a.transpose_(d0, d1)``): only the way a's
    memory is read changes

    ∂L/∂a = grad.transpose(d0, d1), as Transpose's
    Saves nothing: keeps (d0, d1). Node: TransposeBackward1.
    """

    _node_name = "TransposeBackward1"

    @staticmethod
    def forward(ctx, a, dim0, dim1):
        ctx._dims = (dim0, dim1)
        if a._data.ndim:   # (a 0-dim tensor stays as it is)
            a._data = np.swapaxes(a._data, dim0, dim1)
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        return grad.transpose(*ctx._dims), None, None


def transpose_(a: Tensor, dim0: int, dim1: int) -> Tensor:
    dim0, dim1 = wrap_dim(dim0, a.ndim), wrap_dim(dim1, a.ndim)
    views.check_inplace(a)
    if a._view_base is not None and grad_mode.state.enabled and a.requires_grad:
        raise NotImplementedError("minigrad does not implement transpose_() of a view that requires grad; use "
                                  "transpose(), which returns a new view")
    return TransposeInplace.apply(a, dim0, dim1)


class Permute(ViewFunction):
    """f(a) = a.permute(dims): a view

    ∂L/∂a = grad.permute(the inverse of dims)
    Saves nothing: keeps the inverse permutation.
    """

    @staticmethod
    def forward(ctx, a, dims):
        ctx._inverse = tuple(np.argsort(dims))
        return view_of(a, np.transpose(a._data, dims))

    @staticmethod
    def backward(ctx, grad):
        return grad.permute(ctx._inverse), None


def permute(a: Tensor, dims: tuple) -> Tensor:
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    dims = tuple(wrap_dim(d, a.ndim) for d in _shape_arg(dims, "permute", "dims"))
    if len(dims) != a.ndim:   # (PyTorch's text names sparse_coo even for a dense tensor)
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match the length "
                           f"of the desired ordering of dimensions i.e. input.dim() = {a.ndim} is not equal to "
                           f"len(dims) = {len(dims)}")
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return Permute.apply(a, dims)


class Unsqueeze(ViewFunction):
    """f(a) = a with a new dimension of size 1 at dim: a view

    ∂L/∂a = grad.squeeze(dim)
    Saves nothing: keeps dim.
    """

    @staticmethod
    def forward(ctx, a, dim):
        dim = wrap_dim(dim, a.ndim + 1)
        check_ndim(a.ndim + 1)
        ctx._dim = dim
        return view_of(a, np.expand_dims(a._data, dim))

    @staticmethod
    def backward(ctx, grad):
        return grad.squeeze(ctx._dim), None


class Squeeze(ViewFunction):
    """f(a) = a without its dimensions of size 1 (all, or those listed): a view

    ∂L/∂a = grad.reshape(a's shape)
    Saves nothing: keeps a's shape.
    """

    @staticmethod
    def forward(ctx, a, dims):
        ctx._shape = a.shape
        return view_of(a, np.squeeze(a._data, axis=dims))

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx._shape), None


class SqueezeDim(Squeeze):
    _node_name = "SqueezeBackward1"


class SqueezeInplaceDim(Squeeze):
    """The squeeze inside ``vector @ matrix``. PyTorch squeezes its temporary product in place there
    (hence another name), so the result is that product itself, not a view of it.

    ∂L/∂a = grad.reshape(a's shape), as Squeeze's. Node: SqueezeBackward4.
    """

    _node_name = "SqueezeBackward4"

    @classmethod
    def apply(cls, a: Tensor, *args):
        out = super().apply(a, *args)
        out._view_base = None   # nothing else can see the temporary product: the result is no view
        out._version_counter.value += 1   # squeeze_ is an in-place change: PyTorch's result is at version 1
        return out


def squeeze(a: Tensor, dim=None) -> Tensor:
    if dim is None:
        return Squeeze.apply(a, tuple(i for i, n in enumerate(a.shape) if n == 1))
    if not isinstance(dim, (int, np.integer, tuple, list)):
        raise TypeError(f"squeeze(): argument 'dim' (position 1) must be int, not {type(dim).__name__}")
    dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    dims = tuple(wrap_dim(d, a.ndim) for d in dims)
    dims = tuple(d for d in dims if a.ndim and a.shape[d] == 1)
    return SqueezeDim.apply(a, dims)


class Expand(ViewFunction):
    """f(a) = a broadcast to a larger shape, without copying: a view

    ∂L/∂a = grad summed over the expanded dimensions (``sum_to_size``): each element of a was used
    in several places, and their gradients add up
    Saves nothing: keeps a's shape.
    """

    @staticmethod
    def forward(ctx, a, shape):
        ctx._shape = a.shape
        return view_of(a, _broadcast(a._data, shape))

    @staticmethod
    def backward(ctx, grad):
        return grad.sum_to_size(ctx._shape), None


def _broadcast(x: np.ndarray, shape: tuple) -> np.ndarray:
    """``np.broadcast_to(x, shape)``: a read-only view. For a 0-dim x (the gradient of a sum or a
    mean) it is made directly, every stride 0, which costs a third of np.broadcast_to."""
    if x.ndim:
        return np.broadcast_to(x, shape)
    view = np.ndarray(shape, x.dtype, buffer=x, strides=(0,) * len(shape))
    view.flags.writeable = False
    return view


def expand(a: Tensor, sizes: tuple) -> Tensor:
    sizes = _shape_arg(sizes, "expand")
    own = a._data.shape
    lead = len(sizes) - len(own)
    if lead < 0:
        shown = f"[{', '.join(map(str, sizes))}]"
        raise RuntimeError(f"expand(torch.{a.dtype.legacy_name}{{[{', '.join(map(str, a.shape))}]}}, size={shown}): "
                           f"the number of sizes provided ({len(sizes)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({a.ndim})")
    for i in range(lead):
        if sizes[i] == -1:
            raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                               f"dimension {i}")
    shape = sizes if -1 not in sizes else tuple(own[i - lead] if s == -1 else s for i, s in enumerate(sizes))
    check_ndim(len(shape))
    for i in reversed(range(len(own))):   # PyTorch reports the last clashing dimension
        s = own[i]
        if s != 1 and s != shape[lead + i]:
            shown = f"[{', '.join(map(str, sizes))}]"
            raise RuntimeError(f"The expanded size of the tensor ({shape[lead + i]}) must match the existing size "
                               f"({s}) at non-singleton dimension {lead + i}.  Target sizes: {shown}.  "
                               f"Tensor sizes: [{', '.join(map(str, a.shape))}]")
    return Expand.apply(a, shape)


class Repeat(Builtin):
    """f(a) = a tiled: repeats[i] copies along each dimension i (more repeats than dimensions add
    leading dimensions)

    ∂L/∂a = the sum of grad over the copies: grad seen as (r0, s0, r1, s1, ...) summed over the r axes
    Saves nothing: keeps the repeats and a's shape. Node: RepeatBackward0.
    """

    @staticmethod
    def forward(ctx, a, repeats):
        ctx._saved_repeats, ctx._saved_self_sym_sizes = repeats, tuple(a.shape)
        return wrap(np.tile(a._data, repeats))

    @staticmethod
    def backward(ctx, grad):
        repeats, shape = ctx._saved_repeats, ctx._saved_self_sym_sizes
        padded = (1,) * (len(repeats) - len(shape)) + shape
        split = [n for pair in zip(repeats, padded) for n in pair]   # r0, s0, r1, s1...
        summed = grad.reshape(split).sum(tuple(range(0, len(split), 2)))
        return summed.reshape(shape), None


def repeat(a: Tensor, repeats: tuple) -> Tensor:
    """``a.repeat(r0, r1, ...)``: a tiled, ``r_i`` copies along dimension i."""
    if not repeats:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    repeats = _shape_arg(repeats, "repeat", "repeats")
    if len(repeats) < a.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    padded = (1,) * (len(repeats) - a.ndim) + tuple(a.shape)
    target = [n * r for n, r in zip(padded, repeats)]
    for n in target:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {target}")
    check_ndim(len(repeats))
    return Repeat.apply(a, repeats)


class Clone(Builtin):
    """f(a) = a copy of a

    ∂L/∂a = grad
    Saves nothing: the derivative is 1.
    """

    @staticmethod
    def forward(ctx, a):
        return wrap(a._data.copy())

    @staticmethod
    def backward(ctx, grad):
        return grad


class ToCopy(Builtin):
    """f(a) = a converted to another dtype (``a.to(dtype)``, ``a.double()``...)

    ∂L/∂a = grad converted back to a's dtype
    Saves nothing: keeps a's dtype.
    """

    @staticmethod
    def forward(ctx, a, dtype):
        ctx._dtype = a.dtype
        return wrap(a._data.astype(dtype.numpy))

    @staticmethod
    def backward(ctx, grad):
        return grad.to(ctx._dtype), None


class Flip(Builtin):
    """``x.flip(dims)``: f(x) = x with the order of the elements reversed along each of ``dims``.

    ∂L/∂x = grad flipped along the same dims. Nothing is saved (flipping is its own inverse).
    """

    @staticmethod
    def forward(ctx, a, dims):
        ctx._saved_dims = dims
        return wrap(np.flip(a._data, dims).copy() if dims else a._data.copy())   # a copy, as in PyTorch

    @staticmethod
    def backward(ctx, grad):
        return Flip.apply(grad, ctx._saved_dims), None


def flip(a: Tensor, dims) -> Tensor:
    if isinstance(dims, int):
        raise _argument_error("flip", "dims", 2, "tuple of ints", dims)
    return Flip.apply(a, normalize_dims(tuple(dims), a.ndim))


# ------------------------------------------------------------------------------------ stride
def stride(a: Tensor, dim=None):
    """The step, in elements, between neighbours along each dimension (0 along an expanded one): the
    numpy array's strides, which minigrad's operations keep as PyTorch's do. numpy gives a tensor
    with no element all-zero strides; PyTorch gives it the strides of a contiguous tensor, counting
    each dimension of size 0 as 1.

    >>> import minigrad as torch
    >>> torch.zeros(2, 3).t().stride(), torch.zeros(1, 0, 3).stride()
    ((1, 3), (3, 3, 1))
    """
    x = a._data
    strides = [s // x.itemsize for s in x.strides] if x.size else _contiguous_strides(x.shape)
    if dim is None:
        return tuple(strides)
    if not strides:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return strides[wrap_dim(dim, x.ndim)]


def _contiguous_strides(shape: tuple) -> list:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return strides[::-1]
