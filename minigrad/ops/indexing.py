"""Reading and writing parts of a tensor by a key: ``x[0]``, ``x[1:3]``, ``x[mask]``, ``x[idx] = v``,
``masked_select``, ``masked_fill`` and ``nonzero``. Reads by ints and slices return views; the others
copy. (Indexing along one dimension with an index tensor, ``gather``/``scatter``, ``index_select``
and ``index_add_``, is in ``gather_scatter.py``.)

>>> import minigrad as torch
>>> x = torch.tensor([[1.0, -2.0], [3.0, -4.0]], requires_grad=True)
>>> x.masked_select(x > 0)
tensor([1., 3.], grad_fn=<MaskedSelectBackward0>)
>>> x.masked_fill(x < 0, 0.0)
tensor([[1., 0.],
        [3., 0.]], grad_fn=<MaskedFillBackward0>)
"""
from __future__ import annotations

import warnings

import numpy as np

from ..autograd.views import check_inplace, writeable_memory
from ..tensor import Tensor, _operand
from ..types import scalar_as
from ._util import Builtin, NoEdge, _CPP_NAMES, _argument_error, binary_arrays, check_broadcast, view_of, wrap
from .pointwise import _keep_gradient
from .shape import Unsqueeze, ViewFunction, expand, view


def _numpy_key(key):
    """Turn tensors inside an index into numpy arrays, and lists into arrays."""
    if isinstance(key, Tensor):
        return key._data
    if isinstance(key, list):
        return np.asarray([_numpy_key(k) for k in key])
    if isinstance(key, tuple):
        return tuple(_numpy_key(k) for k in key)
    return key


STRING_KEY_WARNING = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in pytorch 2.9; use "
    "x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as tensor index, x[torch.tensor(seq)], "
    "which will result either in an error or a different result (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/python_variable_indexing.cpp:349.)")


def _tensor_key(key):
    """The index as PyTorch reads it: a 0-dim integer tensor is an int (it selects, as an int does),
    and a list, a numpy array or a bool becomes a tensor. Other tensors stay themselves: the operation
    saves the very tensor it indexed with, so that changing it in place before backward is refused."""
    if type(key) is Tensor:
        return key if key._data.ndim or key._data.dtype.kind != "i" else int(key._data)
    if isinstance(key, tuple):   # one item per dimension; a tuple inside is a list of indices, as PyTorch reads it
        return tuple([_tensor_key(list(k) if isinstance(k, tuple) else k) for k in key])
    if isinstance(key, (list, np.ndarray, bool, np.bool_)):
        array = np.asarray(_numpy_key(key))
        return wrap(array if array.size else array.astype(np.int64))   # no index at all: an empty integer index
    return key


def _save_key(ctx, key: tuple) -> tuple:
    """Save the index tensors of ``key`` for backward, as PyTorch does, with None in place of each
    other item (PyTorch's ``_saved_indices``: None for a whole dimension); ``_saved_key`` gives the
    key back. Returns the key as numpy reads it."""
    ctx.save_for_backward(*[k if isinstance(k, Tensor) else None for k in key])
    ctx._key = tuple([None if isinstance(k, Tensor) else k for k in key])
    return tuple([k._data if isinstance(k, Tensor) else k for k in key])


def _saved_key(ctx) -> tuple:
    """In backward: the key ``_save_key`` kept, its index tensors unpacked from ``ctx.saved_tensors``
    (so a key changed in place since forward, or freed by an earlier backward, raises)."""
    saved = ctx.saved_tensors
    if not saved:
        return ctx._key
    return tuple([k if t is None else t for k, t in zip(ctx._key, saved)])


def _saved_indices(node) -> tuple:
    """PyTorch's ``node._saved_indices`` of the nodes of ``x[indices]`` and ``x[indices] = v``: for each
    indexed dimension its index tensor, or None (the whole dimension)."""
    return node.saved_tensors


def _is_basic(key: tuple) -> bool:
    return all(isinstance(k, (int, np.integer, slice)) or k is None or k is Ellipsis for k in key)


def _pytorch_index_error(error: IndexError) -> IndexError:
    """numpy's out-of-bounds message in PyTorch's words ("axis" is "dimension"; an empty one has no index)."""
    message = str(error).replace(" for axis ", " for dimension ")
    if message.endswith(" with size 0"):
        message = "index is out of bounds for dimension with size 0"
    return IndexError(message)


class PutIntoZeros(Builtin):
    """Backward of reading ``x[key]``, as one operation that can itself be differentiated.

    f(g) = zeros shaped like x, with g added at key (repeated indices add up)
    ∂L/∂g = grad[key]
    Saves the index tensors in key, as PyTorch's node (``_saved_indices``), since backward reads them;
    keeps the rest of key and x's shape. Node: IndexPutImplBackward0, the node PyTorch records for
    the backward of ``x[index]`` (SelectBackward and SliceBackward rename it for ints and slices).
    """

    _node_name = "IndexPutImplBackward0"

    @staticmethod
    def forward(ctx, grad, shape, key):
        out = np.zeros(shape, dtype=grad._data.dtype)
        if _is_basic(key):   # ints and slices (Select's and Slice's backward): nothing to save
            ctx._key = key
            out[key] = grad._data
        else:
            np.add.at(out, _save_key(ctx, key), grad._data)
        return wrap(out)

    @staticmethod
    def backward(ctx, grad):
        return getitem(grad, _saved_key(ctx)), None, None


class SelectBackward(PutIntoZeros):
    """Select's backward as an operation (PyTorch's ``select_backward``): PutIntoZeros, with its
    derivative, under PyTorch's node name."""


class SliceBackward(PutIntoZeros):
    """Slice's backward as an operation (PyTorch's ``slice_backward``): PutIntoZeros, with its
    derivative, under PyTorch's node name."""


class Select(ViewFunction):
    """f(a) = a[..., i] along one dimension: a view (``key`` is ``(slice(None),) * dim + (i,)``)

    ∂L/∂a = zeros shaped like a, with grad at [..., i] (SelectBackward, a Function: differentiable again)
    Saves nothing: keeps a's shape and the key.
    """

    _put = SelectBackward

    @staticmethod
    def forward(ctx, a, key):
        ctx._shape, ctx._key = a.shape, key
        return view_of(a, a._data[key + (Ellipsis,)])   # with ..., numpy returns a view even for one element

    @staticmethod
    def backward(ctx, grad):
        return ctx._forward_cls._put.apply(grad, ctx._shape, ctx._key), None


class Slice(Select):
    """f(a) = a[..., start:stop:step] along one dimension: a view

    ∂L/∂a = zeros shaped like a, with grad in the slice (Select's backward, with SliceBackward)
    Saves nothing: keeps a's shape and the key.
    """

    _put = SliceBackward


class Alias(ViewFunction):
    """f(a) = a: ``x[:, :]`` or ``x[...]``, a new view of all of x

    ∂L/∂a = grad
    Saves nothing: the derivative is 1.
    """

    @staticmethod
    def forward(ctx, a):
        return view_of(a, a._data)

    @staticmethod
    def backward(ctx, grad):
        return grad


class Index(Builtin):
    """f(a) = a[key], where key holds, for the leading dimensions of a, integer tensors, boolean masks
    and whole dimensions (``slice(None)``): a copy

    ∂L/∂a = zeros shaped like a, with grad added at key (an index that repeats gets the sum)
    Saves the index tensors, as PyTorch's node (``_saved_indices``, None for a whole dimension):
    backward reads them, so an in-place change of one before backward, or a second backward, is
    refused. Keeps a's shape. The key is a tuple, which apply does not look into: no next_functions
    entries for the index tensors, as in PyTorch.
    """

    @staticmethod
    def forward(ctx, a, key):
        ctx._shape = a.shape
        key = _save_key(ctx, key)
        try:
            return wrap(a._data[key])
        except IndexError as error:
            raise _pytorch_index_error(error) from None

    @staticmethod
    def backward(ctx, grad):
        return PutIntoZeros.apply(grad, ctx._shape, _saved_key(ctx)), None


def _dims_used(k) -> int:
    """How many dimensions of the tensor an index item consumes (a boolean mask: all of its own)."""
    if k is None or k is Ellipsis:
        return 0
    if isinstance(k, Tensor) and k._data.dtype == np.bool_:
        return k._data.ndim
    return 1


def _check_zero_dim_key(key) -> None:
    """PyTorch's errors for ints and slices used on a 0-dim tensor."""
    first = key
    if isinstance(first, slice):
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if isinstance(first, (int, np.integer)) and not isinstance(first, (bool, np.bool_)):
        if first == 0:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                             "in C++ to convert a 0-dim tensor to a number")
        raise IndexError(f"index {first} is out of bounds for dimension 0 with size 0")


def _check_index_tensor(k: Tensor, indexed: Tensor, dim: int) -> None:
    """PyTorch's checks of a tensor in a key: an integer or bool dtype, and a mask shaped like the
    dimensions it covers (``dim`` onwards)."""
    kind = k._data.dtype.kind
    if kind not in "biu":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if kind == "b":
        for j, (m, n) in enumerate(zip(k._data.shape, indexed._data.shape[dim:])):
            if m != n:
                raise IndexError(f"The shape of the mask {list(k._data.shape)} at index {j} does not match the shape "
                                 f"of the indexed tensor {list(indexed._data.shape)} at index {dim + j}")


def getitem(a: Tensor, key) -> Tensor:
    """``a[key]`` the way PyTorch builds it: ints select, slices slice, None unsqueezes, one node
    each and in order (views); then integer tensors and masks index what is left (a copy)."""
    if isinstance(key, str):   # PyTorch reads a string as a sequence of indices, and refuses its items
        warnings.warn(STRING_KEY_WARNING, UserWarning, stacklevel=3)
        raise TypeError("new(): invalid data type 'str'")
    if a.ndim == 0 and not isinstance(key, tuple):
        _check_zero_dim_key(key)
    key = _tensor_key(key)
    if not isinstance(key, tuple):
        if isinstance(key, slice):          # a single slice always makes a SliceBackward0 node
            return Slice.apply(a, (key,))
        if key is Ellipsis:
            return Alias.apply(a)
        key = (key,)
    used = sum(_dims_used(k) for k in key)
    if used > a.ndim:
        raise IndexError(f"too many indices for tensor of dimension {a.ndim}")
    result, dim, advanced = a, 0, []
    for position, k in enumerate(key):   # PyTorch's errors name the item's place in the key
        if k is Ellipsis:
            skip = a.ndim - used
            advanced.extend([slice(None)] * skip)
            dim += skip
        elif k is None:
            result = Unsqueeze.apply(result, dim)
            advanced.append(slice(None))
            dim += 1
        elif isinstance(k, (int, np.integer)):
            size = result.shape[dim]
            if not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for dimension {position} with size {size}")
            result = Select.apply(result, (slice(None),) * dim + (k,))
        elif isinstance(k, slice):
            if k != slice(None):
                result = Slice.apply(result, (slice(None),) * dim + (k,))
            advanced.append(slice(None))
            dim += 1
        elif isinstance(k, Tensor) and k._data.ndim == 0 and k._data.dtype == np.bool_:   # a new dimension, as PyTorch
            result = Unsqueeze.apply(result, dim)
            advanced.append(wrap(np.flatnonzero(k._data)))
            dim += 1
        elif isinstance(k, Tensor):           # an integer tensor or a boolean mask
            _check_index_tensor(k, result, dim)
            advanced.append(k)
            dim += _dims_used(k)
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                             f"valid indices (got {type(k).__name__})")
    if any(not isinstance(k, slice) for k in advanced):
        while advanced and isinstance(advanced[-1], slice):
            advanced.pop()
        return Index.apply(result, tuple(advanced))
    return result if result is not a else Alias.apply(a)


class IndexPut(Builtin):
    """f(a, v) = a with a[key] = v, in place (key holds integer tensors or masks)

    ∂L/∂a = grad, with 0 at key (the overwritten values no longer count: 0 even for an inf or nan grad);
    ∂L/∂v = grad[key]
    (summed to v's shape by the engine if v was broadcast)
    Saves the index tensors, which both gradients read, as PyTorch's node (``_saved_indices``; see
    Index); keeps the rest of key.
    """

    @staticmethod
    def forward(ctx, a, value, key):
        key = _save_key(ctx, key)
        try:
            writeable_memory(a._data)[key] = value._data
        except IndexError as error:
            raise _pytorch_index_error(error) from None
        except ValueError:   # numpy's words for a value that does not broadcast to the indexed part
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(value.shape)} cannot be broadcast to "
                               f"indexing result of shape {list(a._data[key].shape)}") from None
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        key = _saved_key(ctx)
        keep = np.ones(grad.shape, dtype=bool)
        keep[_numpy_key(key)] = False
        return _keep_gradient(wrap(keep), grad), getitem(grad, key), None

for _function in (Index, IndexPut, PutIntoZeros):
    _function._backward_cls._saved_indices = property(_saved_indices)


def _split_key(a: Tensor, key: tuple) -> tuple:
    """``a[key]`` as PyTorch writes into it: the view that ints, slices and None make, and what is
    left for integer tensors and masks to index in that view (None if nothing)."""
    used = sum(_dims_used(k) for k in key)
    basic, advanced, skip = [], [], a.ndim - used
    for k in key:
        if k is Ellipsis:
            basic.append(k)
            advanced.extend([slice(None)] * skip)
        elif k is None or isinstance(k, (slice, int, np.integer)):
            basic.append(k)
            if not isinstance(k, (int, np.integer)):
                advanced.append(slice(None))
        else:
            basic.append(slice(None))
            advanced.append(k)
    while advanced and isinstance(advanced[-1], slice):
        advanced.pop()
    return tuple(basic), (tuple(advanced) if advanced else None)


def setitem(a: Tensor, key, value) -> None:
    """``a[key] = value``: an in-place change of the view ``a[key]`` (PyTorch's CopySlices), or
    ``index_put_`` where integer tensors or masks take part."""
    if a.ndim == 0 and not isinstance(key, tuple):
        _check_zero_dim_key(key)
    key = _tensor_key(key)
    key = key if isinstance(key, tuple) else (key,)
    value = _operand(value)
    basic, advanced = _split_key(a, key)
    target = a if _selects_everything(a, basic) else getitem(a, basic)
    if advanced is not None and _overlaps(target):   # PyTorch still writes, and warns
        check_inplace(target, value, overlap_allowed=True)
        _warn_expanded(advanced, value)
    else:
        check_inplace(target, value)
    if advanced is None:
        _copy_to(target, value)
        return
    if value._data.dtype != target._data.dtype and not value._wrapped_number:
        _check_index_put_dtype(target, value, advanced)
    if value._data.shape != _without_leading_ones(value._data.shape):
        value = view(value, (_without_leading_ones(value._data.shape),))
    IndexPut.apply(target, value, advanced)


def _check_index_put_dtype(target: Tensor, value: Tensor, advanced: tuple) -> None:
    """PyTorch casts one value written through one boolean mask (it runs ``masked_fill_``); other
    writes through index tensors need the same dtype (after the shape check)."""
    if _runs_masked_fill(advanced, value):
        return
    selected = target._data[_numpy_key(advanced)].shape
    try:
        if np.broadcast_shapes(_without_leading_ones(value._data.shape), selected) != selected:
            return   # IndexPut reports the shape mismatch first
    except ValueError:
        return
    raise RuntimeError(f"Index put requires the source and destination dtypes match, got {_short_name(target)} "
                       f"for the destination and {_short_name(value)} for the source.")


def _overlaps(t: Tensor) -> bool:
    """Several elements share one memory cell (an expanded tensor)."""
    return any(stride == 0 and size > 1 for stride, size in zip(t._data.strides, t._data.shape))


def _runs_masked_fill(advanced: tuple, value: Tensor) -> bool:
    """PyTorch's index_put_ runs masked_fill_ for one value written through one boolean mask."""
    tensors = [k for k in advanced if not isinstance(k, slice)]
    return len(tensors) == 1 and tensors[0]._data.dtype == np.bool_ and value._data.size == 1


def _warn_expanded(advanced: tuple, value: Tensor) -> None:
    if _runs_masked_fill(advanced, value):
        operation, example = "masked_fill_", "tensor[mask] = scalar"
    else:
        operation, example = "index_put_", "tensor[indices] = tensor"
    warnings.warn(f"Use of {operation} on expanded tensors is deprecated. Please clone() the tensor before performing "
                  f"this operation. This also applies to advanced indexing e.g. {example}", UserWarning, stacklevel=4)


def _short_name(t: Tensor) -> str:
    return t.dtype.legacy_name[:-len("Tensor")]   # FloatTensor -> Float


def _selects_everything(a: Tensor, basic: tuple) -> bool:
    """True when ``a[basic]`` is all of ``a`` as PyTorch's setitem sees it: ``...`` and slices that start
    at 0 (as written), step 1 and reach the end (``x[:]``, ``x[0:]``, ``x[0:9, ...]``). Then
    ``x[key] = v`` writes into ``x`` itself (and ``x[mask] = v`` too): no view, no CopySlices."""
    dim = 0
    for k in basic:
        if k is Ellipsis:
            dim = a.ndim - sum(1 for j in basic if j is not Ellipsis and j is not None) + dim
            continue
        if not isinstance(k, slice) or k.start not in (None, 0) or k.step not in (None, 1) or \
                (k.stop is not None and k.stop < a._data.shape[dim]):
            return False
        dim += 1
    return True


def _without_leading_ones(shape: tuple) -> tuple:
    """PyTorch's ``slicePrefix1sSize``: a value ``[1, 1, 3]`` may be written into 3 elements."""
    start = 0
    while start < len(shape) and shape[start] == 1:
        start += 1
    return shape[start:]


def _copy_to(target: Tensor, value: Tensor) -> None:
    """``target[...] = value`` as PyTorch's ``copy_to`` writes it (``x[0] = v``, ``x[1:] = v``): a copy
    of a value of the same shape, a fill with a 0-dim value, else a view without leading ones expanded
    to the target's shape (each step a node of the graph, as in PyTorch)."""
    from .inplace import CopyInplace, FillTensorInplace
    if value._data.shape == target._data.shape:
        CopyInplace.apply(target, value)
    elif value._data.ndim == 0:
        FillTensorInplace.apply(target, value)
    else:
        value = view(value, (_without_leading_ones(value._data.shape),))
        if value._data.shape != target._data.shape:
            value = expand(value, (target._data.shape,))
        CopyInplace.apply(target, value)


class MaskedSelect(Builtin):
    """``x.masked_select(mask)``: f(x) = the elements of x where ``mask`` is True, as a 1-D tensor
    (x and mask broadcast against each other first).

    ∂L/∂x = zeros of the broadcast shape with ``grad`` put back where ``mask`` is True, summed
    back to x's shape. Saves x and the mask, as PyTorch's node: backward reads the mask, so an
    in-place change of either before backward is refused. The mask comes in a ``NoEdge``: no
    next_functions entry for it, as in PyTorch.
    """

    _saved_names = ("self", "mask")

    @staticmethod
    def forward(ctx, a, mask):
        mask = mask.tensor
        ctx._shape = check_broadcast(mask.shape, a._data.shape)
        ctx.save_for_backward(a, mask)
        return wrap(np.broadcast_to(a._data, ctx._shape)[np.broadcast_to(mask._data, ctx._shape)])

    @staticmethod
    def backward(ctx, grad):
        a, mask = ctx.saved_tensors
        if mask.shape != ctx._shape:   # a view of the mask, broadcast (it shares the mask's version counter)
            mask = view_of(mask, np.broadcast_to(mask._data, ctx._shape))
        spread = PutIntoZeros.apply(grad, ctx._shape, (mask,))
        return spread.sum_to_size(a.shape), None


def masked_select(a: Tensor, mask: Tensor) -> Tensor:
    if not isinstance(mask, Tensor):
        raise _argument_error("masked_select", "mask", 2, "Tensor", mask)
    if mask._data.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    return MaskedSelect.apply(a, NoEdge(mask))


def _check_mask(mask: Tensor, a: Tensor) -> tuple:
    """PyTorch's checks of a mask for ``masked_fill``; returns the shape mask and a broadcast to."""
    if mask._data.dtype != np.bool_:
        name = _CPP_NAMES.get(mask._data.dtype.name, mask._data.dtype.name)
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {name}")
    return check_broadcast(mask._data.shape, a._data.shape)


class MaskedFill(Builtin):
    """f(a) = value where mask, else a (value a number)

    ∂L/∂a = grad, with 0 where mask
    Saves the mask (``_saved_mask``), which backward reads, as PyTorch's node: an in-place change of
    it before backward, or a second backward, is refused. It comes in a ``NoEdge``: like PyTorch's
    node, this one has no next_functions entry for it.
    """

    _saved_names = ("mask",)

    @staticmethod
    def forward(ctx, a, mask, value):
        mask = mask.tensor
        ctx.save_for_backward(mask)
        x = a._data
        return wrap(np.where(mask._data, scalar_as(value, x.dtype), x))

    @staticmethod
    def backward(ctx, grad):
        mask, = ctx.saved_tensors
        return grad.masked_fill(mask, 0), None, None


class MaskedFillTensor(Builtin):
    """f(a, value) = value where mask, else a (value a 0-dim tensor)

    ∂L/∂a = grad, with 0 where mask;  ∂L/∂value = the sum of grad where mask
    Saves the mask (``_saved_mask``), which both gradients read, as MaskedFill (in a ``NoEdge``).
    Node: MaskedFillBackward1.
    """

    _node_name = "MaskedFillBackward1"
    _saved_names = ("mask",)

    @staticmethod
    def forward(ctx, a, mask, value):
        mask = mask.tensor
        ctx.save_for_backward(mask)
        x, v = binary_arrays(a, value)
        return wrap(np.where(mask._data, v.astype(x.dtype, copy=False), a._data))

    @staticmethod
    def backward(ctx, grad):
        mask, = ctx.saved_tensors
        grad_value = grad.masked_fill(~mask, 0).sum() if ctx.needs_input_grad[2] else None
        return grad.masked_fill(mask, 0), None, grad_value


def masked_fill(a: Tensor, mask: Tensor, value) -> Tensor:
    """``a`` with ``value`` written where ``mask`` (a bool tensor broadcastable to ``a``) is True."""
    _check_mask(mask, a)
    if _is_tensor_value(value):
        return MaskedFillTensor.apply(a, NoEdge(mask), value)
    return MaskedFill.apply(a, NoEdge(mask), value)


def _is_tensor_value(value) -> bool:
    """True for a 0-dim tensor value (its gradient flows), False for a number; PyTorch's error otherwise."""
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.ndim} dimension(s).")
    return isinstance(value, Tensor)


def nonzero(a: Tensor, as_tuple: bool = False):
    """Indices of the non-zero elements: one row per element (int64), or one tensor per dimension."""
    x = a._data if a._data.dtype == np.bool_ else a._data != 0   # numpy finds True values fastest
    if as_tuple:
        return tuple(wrap(i.astype(np.int64)) for i in np.nonzero(np.atleast_1d(x)))
    if x.ndim == 0:
        return wrap(np.zeros((1 if x else 0, 0), dtype=np.int64))
    return wrap(np.argwhere(x).astype(np.int64))


def select(a: Tensor, dim: int, index: int) -> Tensor:
    """``a.select(dim, index)``: the view ``a[..., index, ...]`` with ``index`` along ``dim`` (SelectBackward0)."""
    if a.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    from ._util import int_argument, wrap_dim
    int_argument("select", "index", 2, index)
    dim = wrap_dim(dim, a.ndim)
    size = a._data.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(a.shape)} at dimension {dim}")
    return Select.apply(a, (slice(None),) * dim + (int(index),))
