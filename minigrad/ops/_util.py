"""Shared pieces of the builtin operations: the Builtin base class, wrapping, type promotion."""
from __future__ import annotations

import numpy as np

from ..autograd.function import BackwardCFunction, Function
from ..tensor import Tensor, VersionCounter
from ..types import _BY_NUMPY, category, float32, int64, promote_types, scalar_as
from ..types import broadcast_shapes as check_broadcast  # noqa: F401 - the ops' name for it


class ReadOnlyMethod:
    """A method of a builtin node that cannot be replaced or deleted, as on PyTorch's C++ nodes."""

    def __init__(self, function, name: str) -> None:
        self.function, self.name = function, name

    def __get__(self, node, owner=None):
        return self if node is None else self.function.__get__(node, owner)

    def __set__(self, node, value=None) -> None:
        raise AttributeError(f"'{type(node).__name__}' object attribute '{self.name}' is read-only")

    __delete__ = __set__


class BuiltinNode(BackwardCFunction):
    """The class of the builtin ops' nodes. As on PyTorch's C++ nodes, the attributes PyTorch shows
    cannot be replaced or deleted: ``name``, ``next_functions``, ``metadata`` and the saved tensors."""

    name = ReadOnlyMethod(BackwardCFunction.name, "name")
    _class_in_errors = None   # a C++ node: PyTorch's texts name its own class, MulBackward0


class Builtin(Function):
    """Base of minigrad's own operations. They are ordinary Functions with PyTorch's node names."""

    _is_builtin = True
    _node_base = BuiltinNode


class NoEdge:
    """A tensor argument that no gradient can flow to: an index, a mask, a condition, a label.

    ``apply`` gives every Tensor argument an entry of ``next_functions``, ``(None, 0)`` when it does
    not require grad. PyTorch's builtin nodes have entries only for the inputs a gradient can flow
    to, so an op hands such a tensor to forward in this box, which apply does not look into: no
    edge, and ``needs_input_grad`` is False for it. Forward takes the tensor out (``.tensor``) and,
    when backward reads it, saves it with ``ctx.save_for_backward`` like any other tensor, so that
    an in-place change of it before backward is refused and backward frees it. (The key of
    ``x[i, j]`` is a tuple, which apply does not look into either: ``Index`` saves the tensors in it.)

    >>> import minigrad as torch
    >>> x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    >>> index = torch.tensor([[1], [0]])
    >>> y = x.gather(1, index)            # the op passes NoEdge(index) to GatherBackward0's apply
    >>> [node.name() for node, _ in y.grad_fn.next_functions]   # one entry: x's
    ['torch::autograd::AccumulateGrad']
    >>> y.grad_fn._saved_index is index
    True
    """

    __slots__ = ("tensor",)

    def __init__(self, tensor: Tensor) -> None:
        self.tensor = tensor


_new_tensor = object.__new__


def zero_gradient(grad: Tensor) -> Tensor:
    """The gradient through something constant: zeros shaped like ``grad``, as PyTorch's ``zeros_like(grad)``.

    Never ``grad * 0``, which is nan where the incoming gradient is inf or nan (masks that keep some
    elements and zero the others: ``pointwise._keep_gradient``).
    """
    return wrap(np.zeros_like(grad._data))


def qualify_node_name(function: type, name: str) -> None:
    """Give a Function's node PyTorch's C++ spelling of ``name()``, e.g. ``torch::autograd::CopySlices``
    (the class itself keeps the short name, as PyTorch's does)."""
    function._backward_cls.name = ReadOnlyMethod(lambda self: name, "name")


def wrap(array) -> Tensor:
    """A new tensor over a numpy result (numpy returns scalars for 0-dim results: make them arrays)."""
    t = _new_tensor(Tensor)   # what Tensor._make does, without its call overhead
    t._data = np.asarray(array)   # (the array itself when it is one)
    t._version_counter = VersionCounter()
    return t


def view_of(base: Tensor, array: np.ndarray) -> Tensor:
    """A tensor that views ``base``'s memory: it shares the version counter, as PyTorch views do."""
    t = _new_tensor(Tensor)
    t._data = array
    t._version_counter = base._version_counter
    t._view_base = base._view_base if base._view_base is not None else base
    return t


def result_dtype(a: Tensor, b: Tensor):
    """PyTorch's promotion: a Python number or 0-dim tensor only wins when it is of a higher kind
    (bool < integer < floating point); ``int_tensor * 2.5`` is float32, ``float32 * 2.5`` stays float32."""
    da, db = a.dtype, b.dtype
    if da is db:
        return da
    rank_a = 0 if a._wrapped_number else (1 if a._data.ndim == 0 else 2)
    rank_b = 0 if b._wrapped_number else (1 if b._data.ndim == 0 else 2)
    if rank_a == rank_b:
        return promote_types(da, db)
    high, low = (a, b) if rank_a > rank_b else (b, a)
    if category(low.dtype) > category(high.dtype):
        if low._wrapped_number:
            return float32 if low.dtype.is_floating_point else int64
        return low.dtype
    return high.dtype


def times_alpha(alpha, y: np.ndarray) -> np.ndarray:
    """``alpha * y`` for the ``alpha`` of add, sub and rsub, with y already in the result's dtype, which
    the product keeps: PyTorch refuses a float alpha for an integer result and a bool alpha for a
    non-bool one, and converts alpha to the dtype as any Scalar (``scalar_as``: -3 is 253 for uint8).

    >>> times_alpha(-3, np.array([1, 2], np.uint8))
    array([253, 250], dtype=uint8)
    """
    if isinstance(alpha, (bool, np.bool_)) and y.dtype.kind != "b":
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, (float, np.floating)) and y.dtype.kind in "biu":
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    return scalar_as(alpha, y.dtype) * y


def binary_arrays(a: Tensor, b: Tensor, elementwise: bool = True) -> tuple:
    """The two numpy operands of ``a op b``, cast to the result dtype.

    For element-wise operations the shapes must broadcast (matrix products pass ``elementwise=False``).
    """
    x, y = a._data, b._data
    if b._wrapped_number and x.dtype.kind == "f" and y.dtype.kind in "biuf" and not a._wrapped_number:
        return x, y.astype(x.dtype, copy=False)   # ``0.01 * grad``: the number takes the tensor's dtype
    if x.shape != y.shape and elementwise and y.ndim:   # (a number broadcasts to anything)
        check_broadcast(x.shape, y.shape)
    if x.dtype == y.dtype:
        return x, y
    # Shortcuts for what result_dtype would say in the common cases: a float tensor against a
    # Python number (``0.01 * grad``) or against an integer or bool tensor (``grad * (x > 0)``).
    kx, ky = x.dtype.kind, y.dtype.kind
    if kx == "f" and not a._wrapped_number and (ky in "biu" or (ky == "f" and b._wrapped_number)):
        return x, y.astype(x.dtype)
    if ky == "f" and not b._wrapped_number and (kx in "biu" or (kx == "f" and a._wrapped_number)):
        return x.astype(y.dtype), y
    target = result_dtype(a, b).numpy
    return x.astype(target, copy=False), y.astype(target, copy=False)


def wrap_dim(dim: int, ndim: int) -> int:
    """``dim`` as a non-negative axis, or PyTorch's IndexError. A 0-dim tensor accepts 0 and -1
    (as if it had one dimension), and so does every reduction over it. A dimension is an int (or a
    one-element integer tensor); a bool, a float or anything else is refused, as PyTorch's argument
    parser does, never read as a number.

    >>> wrap_dim(-1, 3), wrap_dim(-1, 0)
    (2, 0)
    """
    if type(dim) is not int:
        dim = _dim_argument(dim)
    high = ndim if ndim else 1
    if not -high <= dim < high:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-high}, {high - 1}], but got {dim})")
    return dim % high


def _dim_argument(dim) -> int:
    """A dimension given as something other than a plain int: an integer numpy scalar or a one-element
    integer tensor counts as its number; anything else is PyTorch's TypeError."""
    from ..tensor import Tensor
    if isinstance(dim, np.integer) or (isinstance(dim, Tensor) and dim._data.dtype.kind in "iu" and dim._data.size == 1):
        return int(dim)
    raise TypeError(f"argument 'dim' must be int, not {type(dim).__name__}")


def reduced_dims(dim, ndim: int) -> tuple:
    """The dims a reduction (sum, mean, var, std) runs over: ``dim`` as ``normalize_dims`` gives it, but an
    empty list or tuple means every dimension, as PyTorch's old rule says (``x.sum(())`` is ``x.sum()``)."""
    if dim is None or isinstance(dim, (tuple, list)) and not dim:
        return tuple(range(ndim))
    return normalize_dims(dim, ndim)


def is_size(value, first: bool) -> bool:
    """Does PyTorch's parser take ``value`` as one size of a list of sizes? An int or a one-element integer
    tensor; a bool too, except as the first (which picks the signature)."""
    from ..tensor import Tensor
    if isinstance(value, Tensor):
        return value._data.dtype.kind in "iu" and value._data.size == 1
    if isinstance(value, (bool, np.bool_)):
        return not first
    return isinstance(value, (int, np.integer))


def size_list(function: str, argument: str, args: tuple, several: str | None = None) -> tuple:
    """Sizes given as several ints (``view(2, 3)``) or one sequence (``view((2, 3))``), as a tuple of
    ints, or PyTorch's TypeError: its parser judges the first size apart (``several``: its text when
    that one is wrong and there are more, for a function with another signature, as ``view``)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        values = args[0]
        if values and not is_size(values[0], first=True):
            raise TypeError(f"{function}(): argument '{argument}' (position 1) must be tuple of ints, but found element "
                            f"of type {type(values[0]).__name__} at pos 0")
    else:
        values = args
        if values and not is_size(values[0], first=True):
            if len(values) > 1 or several:
                got = ", ".join(type(v).__name__ for v in values)
                raise TypeError(several.format(got=got) if several else
                                f"{function}() takes 1 positional argument but {len(values)} were given")
            raise TypeError(f"{function}(): argument '{argument}' (position 1) must be tuple of ints, not "
                            f"{type(values[0]).__name__}")
    for position, value in enumerate(values, start=1):
        if not is_size(value, first=position == 1):
            raise TypeError(f"{function}(): argument '{argument}' failed to unpack the object at pos {position} with "
                            f"error \"type must be tuple of ints,but got {type(value).__name__}\"")
    return tuple(int(value) for value in values)


def int_argument(function: str, name: str, position: int, value) -> None:
    """PyTorch's argument parser: an int parameter takes an int (or a one-element integer tensor), never
    a bool, a float or anything else."""
    if type(value) is not int and not _accepts("int", value):
        raise TypeError(f"{function}(): argument '{name}' (position {position}) must be int, not {type(value).__name__}")


def check_keepdim(function: str, keepdim, position: int = 2) -> None:
    """``keepdim`` must be a bool, as PyTorch's argument parser says (an int is not read as one)."""
    if keepdim is not False and keepdim is not True:
        raise TypeError(f"{function}(): argument 'keepdim' (position {position}) must be bool, not "
                        f"{type(keepdim).__name__}")


def normalize_dims(dim, ndim: int) -> tuple:
    """``dim`` as a sorted tuple of non-negative axes (None means all; a 0-dim tensor has none)."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (tuple, list)):
        dims = tuple(dim)
    elif isinstance(dim, bool) or not _accepts("int", dim):
        raise TypeError(f"argument 'dim' must be tuple of ints, not {type(dim).__name__}")
    else:
        dims = (dim,)
    axes = [wrap_dim(d, ndim) for d in dims]
    for axis in axes:
        if axes.count(axis) > 1:
            raise RuntimeError(f"dim {axis} appears multiple times in the list of dims")
    return tuple(sorted(axes)) if ndim else ()


def dtype_of(array: np.ndarray):
    return _BY_NUMPY[array.dtype]


def accumulation_dtype(x: np.ndarray, dtype=None) -> np.dtype:
    """The numpy dtype a sum or product of ``x`` (``sum``, ``prod``, ``cumsum``) is computed and returned
    in, by PyTorch's rule: ``dtype`` when one is given, int64 for an integer or bool input, else x's own.
    Pass it to numpy's reduction as ``dtype=``: numpy's own rule would widen int32 and bool to int64 even
    when ``dtype`` asks for them, and uint8 to uint64, which no tensor holds.

    >>> accumulation_dtype(np.zeros(2, np.uint8)), accumulation_dtype(np.zeros(2, np.float32))
    (dtype('int64'), dtype('float32'))
    """
    if dtype is not None:
        return np.dtype(dtype.numpy)
    return np.dtype(np.int64) if x.dtype.kind in "biu" else x.dtype


def accumulate(reduction, x: np.ndarray, dtype=None, **axes) -> np.ndarray:
    """``reduction(x, **axes)`` (``np.add.reduce``, ``np.multiply.reduce``, ``np.cumsum``) computed and
    returned in ``accumulation_dtype(x, dtype)``; a float16 one is accumulated in float32 and rounded
    once at the end, as PyTorch does (each float16 addition would round).

    >>> x = np.array([[-8.4765625, -4.32421875], [3.611328125, -0.57373046875], [5.10546875, 4.94921875]], np.float16)
    >>> accumulate(np.add.reduce, x, axis=0).tolist(), np.add.reduce(x, axis=0).tolist()   # rounded once, or twice
    ([0.240234375, 0.05126953125], [0.23828125, 0.05078125])
    """
    result = accumulation_dtype(x, dtype)
    if result == np.float16:
        return np.asarray(reduction(x, dtype=np.float32, **axes)).astype(np.float16)
    return reduction(x, dtype=result, **axes)


# The C++ names of the dtypes, which some of PyTorch's error messages print.
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
              "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


def _argument_error(function: str, name: str, position: int, expected: str, value) -> TypeError:
    """PyTorch's error for an argument of the wrong type, e.g. ``isclose(): argument 'other' (position 2)
    must be Tensor, not float``."""
    return TypeError(f"{function}(): argument '{name}' (position {position}) must be {expected}, "
                     f"not {type(value).__name__}")


def _accepts(kind: str, value) -> bool:
    """Does PyTorch's argument parser take ``value`` for a parameter of type ``kind`` ('int', 'Tensor')?"""
    from ..tensor import Tensor
    if kind == "Tensor":
        return isinstance(value, Tensor)
    if kind == "int":   # a bool is no int there; a one-element integer tensor is
        if isinstance(value, Tensor):
            return value._data.dtype.kind in "iu" and value._data.size == 1
        return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    raise ValueError(kind)


def invalid_arguments(function: str, signatures: list, args: tuple) -> TypeError:
    """PyTorch's error for arguments that fit none of a function's signatures, e.g. ``narrow()
    received an invalid combination of arguments - got (int, float, int), but expected one of: ...``.
    Each signature is a list of ``(type, name)`` pairs; the types that do not fit are marked ``!type!``."""
    got = ", ".join(type(a).__name__ for a in args)
    lines = [f"{function}() received an invalid combination of arguments - got ({got}), but expected one of:"]
    for signature in signatures:
        lines.append(" * (" + ", ".join(f"{kind} {name}" for kind, name in signature) + ")")
        marked = [type(a).__name__ if _accepts(kind, a) else f"!{type(a).__name__}!"
                  for (kind, _), a in zip(signature, args)]
        lines.append("      didn't match because some of the arguments have invalid types: (" + ", ".join(marked) + ")")
    return TypeError("\n".join(lines) + "\n")


def check_ndim(ndim: int) -> None:
    """numpy's arrays, and so minigrad's tensors, have at most 64 dimensions (PyTorch's have more)."""
    if ndim > 64:
        raise NotImplementedError(f"minigrad does not implement tensors of more than 64 dimensions (numpy's limit); "
                                  f"this one would have {ndim}")
