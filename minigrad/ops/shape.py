"""Operations that change the shape, not the values: view and reshape, t, transpose, permute, squeeze,
unsqueeze, expand, and also clone, to (a dtype copy), cat and stack. Most return *views*: tensors
that share memory and the version counter with their input."""
from __future__ import annotations

import numpy as np

from .. import grad_mode
from ..autograd import views
from ..tensor import Tensor
from ..types import Size, promote_types
from ._util import Builtin, view_of, wrap, wrap_dim


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


def _shape_arg(shape: tuple) -> tuple:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    for s in shape:
        if type(s) is not int:
            return tuple(int(s) for s in shape)
    return shape   # already a tuple of Python ints (the common case)


def _infer_shape(shape: tuple, numel: int) -> tuple:
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

    _node_name = "ViewBackward0"

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

    _node_name = "UnsafeViewBackward0"

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

    _node_name = "ReshapeAliasBackward0"

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
    shape = _infer_shape(_shape_arg(shape), a._data.size)
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

    _node_name = "TBackward0"

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

    _node_name = "TransposeBackward0"

    @staticmethod
    def forward(ctx, a, dim0, dim1):
        dim0, dim1 = wrap_dim(dim0, a.ndim), wrap_dim(dim1, a.ndim)
        ctx._dims = (dim0, dim1)
        return view_of(a, np.swapaxes(a._data, dim0, dim1) if a.ndim else a._data)

    @staticmethod
    def backward(ctx, grad):
        return grad.transpose(*ctx._dims), None, None


class Permute(ViewFunction):
    """f(a) = a.permute(dims): a view

    ∂L/∂a = grad.permute(the inverse of dims)
    Saves nothing: keeps the inverse permutation.
    """

    _node_name = "PermuteBackward0"

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
    dims = tuple(wrap_dim(d, a.ndim) for d in _shape_arg(dims))
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

    _node_name = "UnsqueezeBackward0"

    @staticmethod
    def forward(ctx, a, dim):
        dim = wrap_dim(dim, a.ndim + 1)
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

    _node_name = "SqueezeBackward0"

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
        out._base = None   # nothing else can see the temporary product: the result is no view
        out._version_counter.value += 1   # squeeze_ is an in-place change: PyTorch's result is at version 1
        return out


def squeeze(a: Tensor, dim=None) -> Tensor:
    if dim is None:
        return Squeeze.apply(a, tuple(i for i, n in enumerate(a.shape) if n == 1))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    dims = tuple(wrap_dim(d, a.ndim) for d in dims)
    dims = tuple(d for d in dims if a.ndim and a.shape[d] == 1)
    return SqueezeDim.apply(a, dims)


class Expand(ViewFunction):
    """f(a) = a broadcast to a larger shape, without copying: a view

    ∂L/∂a = grad summed over the expanded dimensions (``sum_to_size``): each element of a was used
    in several places, and their gradients add up
    Saves nothing: keeps a's shape.
    """

    _node_name = "ExpandBackward0"

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
    sizes = _shape_arg(sizes)
    own = a._data.shape
    lead = len(sizes) - len(own)
    if lead < 0:
        shown = f"[{', '.join(map(str, sizes))}]"
        raise RuntimeError(f"expand(torch.{a.dtype.legacy_name}{{[{', '.join(map(str, a.shape))}]}}, size={shown}): "
                           f"the number of sizes provided ({len(sizes)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({a.ndim})")
    shape = sizes if -1 not in sizes else tuple(own[i - lead] if s == -1 else s for i, s in enumerate(sizes))
    for i in reversed(range(len(own))):   # PyTorch reports the last clashing dimension
        s = own[i]
        if s != 1 and s != shape[lead + i]:
            shown = f"[{', '.join(map(str, sizes))}]"
            raise RuntimeError(f"The expanded size of the tensor ({shape[lead + i]}) must match the existing size "
                               f"({s}) at non-singleton dimension {lead + i}.  Target sizes: {shown}.  "
                               f"Tensor sizes: [{', '.join(map(str, a.shape))}]")
    return Expand.apply(a, shape)


class Clone(Builtin):
    """f(a) = a copy of a

    ∂L/∂a = grad
    Saves nothing: the derivative is 1.
    """

    _node_name = "CloneBackward0"

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

    _node_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, a, dtype):
        ctx._dtype = a.dtype
        return wrap(a._data.astype(dtype.numpy))

    @staticmethod
    def backward(ctx, grad):
        return grad.to(ctx._dtype), None


def _same_dtype(tensors) -> list:
    """The tensors' arrays, cast to PyTorch's common dtype (int64 and float32 give float32, not float64)."""
    target = tensors[0].dtype
    for t in tensors[1:]:
        target = promote_types(target, t.dtype)
    return [t._data if t._data.dtype == target.numpy else t._data.astype(target.numpy) for t in tensors]


class Cat(Builtin):
    """f(t1, t2, ...) = the tensors joined along dim (``cat``)

    ∂L/∂ti = the slice of grad along dim where ti was placed (None for dim, the first argument)
    Saves nothing: keeps dim and each tensor's size along it. PyTorch's legacy rule: a 1-D empty
    tensor (shape ``(0,)``) is skipped, whatever the other tensors' shapes, and gets an empty gradient.
    """

    _node_name = "CatBackward0"

    @staticmethod
    def forward(ctx, dim, *tensors):
        ctx._dim = dim
        arrays = _same_dtype(tensors)   # the dtype counts every tensor, even a skipped one
        ctx._sizes = [None if _skipped_in_cat(t) else t.shape[dim] for t in tensors]
        joined = [array for size, array in zip(ctx._sizes, arrays) if size is not None] or arrays[:1]
        # numpy keeps its inputs' memory order (a transposed input gives a transposed result); PyTorch's is contiguous
        return wrap(np.ascontiguousarray(np.concatenate(joined, axis=dim)))

    @staticmethod
    def backward(ctx, grad):
        grads, start = [None], 0
        index = [slice(None)] * grad.ndim
        for size in ctx._sizes:
            if size is None:   # a skipped empty tensor gets an empty gradient
                grads.append(wrap(np.zeros(0, grad._data.dtype)))
                continue
            index[ctx._dim] = slice(start, start + size)
            grads.append(grad[tuple(index)])
            start += size
        return tuple(grads)


def _skipped_in_cat(t: Tensor) -> bool:
    """PyTorch's cat skips a 1-D empty tensor (shape ``(0,)``), whatever the other tensors' shapes:
    an old rule, kept so that ``cat([torch.tensor([]), x])`` works."""
    return t._data.shape == (0,)


class Stack(Builtin):
    """f(t1, t2, ...) = the tensors joined along a new dimension dim (``stack``)

    ∂L/∂ti = grad[..., i] along dim (None for dim, the first argument)
    Saves nothing: keeps dim.
    """

    _node_name = "StackBackward0"

    @staticmethod
    def forward(ctx, dim, *tensors):
        ctx._dim = dim
        return wrap(np.ascontiguousarray(np.stack(_same_dtype(tensors), axis=dim)))

    @staticmethod
    def backward(ctx, grad):
        index = [slice(None)] * grad.ndim
        grads = [None]
        for i in range(grad.shape[ctx._dim]):
            index[ctx._dim] = i
            grads.append(grad[tuple(index)])
        return tuple(grads)


def cat(tensors, dim: int = 0) -> Tensor:
    """Join tensors along an existing dimension."""
    tensors = list(tensors)
    for position, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {position}) cannot be concatenated")
    joined = [(number, t) for number, t in enumerate(tensors) if not _skipped_in_cat(t)] or [(0, tensors[0])]
    dim = wrap_dim(dim, joined[0][1].ndim)
    first = joined[0][1].shape
    for number, t in joined[1:]:
        if t.ndim != len(first):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(first)} and {t.ndim}")
        for d, (expected, got) in enumerate(zip(first, t.shape)):
            if d != dim and expected != got:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. Expected size {expected} "
                                   f"but got size {got} for tensor number {number} in the list.")
    return Cat.apply(dim, *tensors)


def stack(tensors, dim: int = 0) -> Tensor:
    """Join tensors along a new dimension."""
    tensors = list(tensors)
    for entry, t in enumerate(tensors[1:], start=1):
        if t.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(tensors[0].shape)} at "
                               f"entry 0 and {list(t.shape)} at entry {entry}")
    return Stack.apply(wrap_dim(dim, tensors[0].ndim + 1), *tensors)
