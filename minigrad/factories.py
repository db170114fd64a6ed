"""Ways to make tensors: from data, filled with a value, random, or ranges.

>>> import minigrad as torch
>>> torch.tensor([[1, 2], [3, 4]])
tensor([[1, 2],
        [3, 4]])
>>> torch.zeros(2, dtype=torch.float64, requires_grad=True)
tensor([0., 0.], dtype=torch.float64, requires_grad=True)
"""
from __future__ import annotations

import numpy as np

from .tensor import Tensor
from .ops._util import is_size, size_list
from .types import Size, _BY_NUMPY, check_device, dtype as DType, float32, from_numpy_dtype, scalar_as

_DEFAULT_FLOAT = np.dtype(np.float32)
_generator = np.random.default_rng(0)


def manual_seed(seed: int) -> None:
    """Make random tensors reproducible (minigrad's random numbers differ from PyTorch's)."""
    global _generator
    _generator = np.random.default_rng(seed)


def _finish(array: np.ndarray, dtype, device, requires_grad: bool) -> Tensor:
    check_device(device)
    if dtype is not None:
        array = array.astype(dtype.numpy, copy=False)
    t = Tensor._make(array)
    if requires_grad:
        if array.dtype.kind not in "fc":   # the factories' wording differs from requires_grad_()'s
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t.requires_grad = True
    return t


def _default_dtype(array: np.ndarray) -> np.ndarray:
    kind = array.dtype.kind
    if kind == "f":
        return array.astype(_DEFAULT_FLOAT)
    if kind in "iu":
        return array.astype(np.int64)
    return array


def _tensors_to_values(data):
    """Nested lists may hold one-element tensors (``[x, y]``): replace them by their values."""
    if isinstance(data, Tensor):
        if data._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return data._data.item()
    if isinstance(data, (list, tuple)):
        return [_tensors_to_values(x) for x in data]
    return data


def tensor(data, *, dtype: DType | None = None, device=None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of ``data`` (numbers, nested lists, numpy arrays).

    Python floats give float32 and Python ints give int64, as in PyTorch; numpy arrays keep their dtype.
    """
    if isinstance(data, Tensor):
        array = data._data.copy()
    elif isinstance(data, np.ndarray):
        array = data.copy()
    else:
        array = _array_from_data(data)
        if dtype is None:
            array = _default_dtype(array)
    return _finish(array, dtype, device, requires_grad)


def _array_from_data(data) -> np.ndarray:
    """``data`` (numbers, nested sequences) as a numpy array; what PyTorch refuses gets its error."""
    try:
        array = np.array(_tensors_to_values(data))
    except ValueError as error:   # ragged lists
        if "only one element tensors" in str(error):
            raise
        array = None
    if array is None or array.dtype.kind in "OUSc" or array.dtype == np.uint64:
        _refuse_data(data)
    return array


def _refuse_data(data) -> None:
    """Raise PyTorch's error for data numpy could not read as numbers (or read as text): its checks, in
    its order (the shape along the first elements; then every element's type; then every length)."""
    sizes, item = [], data
    while isinstance(item, (list, tuple, range, str)):
        if isinstance(item, str) and sizes:
            raise ValueError("too many dimensions 'str'")
        if isinstance(item, str):
            break
        sizes.append(len(item))
        if not len(item):
            break
        item = item[0]

    def check_type(x) -> None:
        if isinstance(x, (list, tuple, range)):
            for element in x:
                check_type(element)
        elif isinstance(x, str):
            raise TypeError(f"new(): invalid data type '{type(x).__name__}'")
        elif isinstance(x, complex):
            raise NotImplementedError("minigrad does not implement complex tensors")
        elif isinstance(x, int) and not -2 ** 63 <= x < 2 ** 63:
            raise ValueError("Overflow when unpacking long long")
        elif not isinstance(x, (bool, int, float, np.number, Tensor)):
            raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")

    def check_lengths(x, dim: int) -> None:
        if dim == len(sizes):
            return
        if not isinstance(x, (list, tuple, range)):
            raise TypeError("not a sequence")
        if len(x) != sizes[dim]:
            raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(x)})")
        for element in x:
            check_lengths(element, dim + 1)

    check_type(data)
    check_lengths(data, 0)
    raise TypeError(f"minigrad cannot make a tensor of {type(data).__name__}")


def as_tensor(data, dtype: DType | None = None, device=None) -> Tensor:
    """Like ``tensor`` but shares memory with a numpy array or tensor when it can."""
    if isinstance(data, Tensor):
        return data if dtype is None or dtype is data.dtype else data.to(dtype)
    if isinstance(data, np.ndarray):
        return _finish(data, dtype, device, False)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with a numpy array (changes to one show in the other)."""
    from_numpy_dtype(array.dtype)
    return Tensor._make(array)


def _shape(size: tuple, keyword=None, name: str = "") -> tuple:
    """The shape from ``zeros(2, 3)``, ``zeros((2, 3))`` or ``zeros(size=(2, 3))``, with PyTorch's
    argument errors (its parser judges the first size apart: a bool there is no size)."""
    if keyword is not None:
        if size:
            raise TypeError(f"{name}() got multiple values for argument 'size'")
        if not isinstance(keyword, (tuple, list)) or (keyword and not is_size(keyword[0], first=True)):
            raise TypeError(f"{name}(): argument 'size' must be tuple of ints, not {type(keyword).__name__}")
        values = keyword
    elif not size:
        raise _missing_size(name)
    else:
        return _checked_shape(size_list(name, "size", size), name)
    for position, value in enumerate(values, start=1):
        if not is_size(value, first=position == 1):
            raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos {position} with error "
                            f"\"type must be tuple of ints,but got {type(value).__name__}\"")
    return _checked_shape(tuple(int(value) for value in values), name)


def _checked_shape(shape: tuple, name: str = "") -> tuple:
    """``shape`` if a tensor can have it: no negative size, at most 64 dimensions (numpy's limit)."""
    for n in shape:
        if n < 0:
            if name == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {list(shape)}")
    if len(shape) > 64:
        from .ops._util import check_ndim
        check_ndim(len(shape))
    return shape


_SIZE_FORMS = """\
 * (tuple of ints size, *, torch.Generator generator, Tensor out = None, torch.dtype dtype = None, torch.layout \
layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)
 * (tuple of ints size, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device \
device = None, bool pin_memory = False, bool requires_grad = False)
"""


def _missing_size(name: str) -> TypeError:
    if name in ("rand", "randn"):
        return TypeError(f"{name}() received an invalid combination of arguments - got (), but expected one of:\n"
                         f"{_SIZE_FORMS}")
    return TypeError(f'{name}() missing 1 required positional arguments: "size"')


def _numpy_dtype(dtype: DType | None, default=_DEFAULT_FLOAT):
    return default if dtype is None else dtype.numpy


def zeros(*shape, size=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _finish(np.zeros(_shape(shape, size, "zeros"), _numpy_dtype(dtype)), None, device, requires_grad)


def ones(*shape, size=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _finish(np.ones(_shape(shape, size, "ones"), _numpy_dtype(dtype)), None, device, requires_grad)


def empty(*shape, size=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Uninitialised in PyTorch; zeros here (deterministic output is worth more than speed)."""
    return _finish(np.zeros(_shape(shape, size, "empty"), _numpy_dtype(dtype)), None, device, requires_grad)


def full(size, fill_value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}")
    size = _shape((size,), None, "full")
    if not isinstance(fill_value, (bool, int, float, np.number)) and not (
            isinstance(fill_value, Tensor) and fill_value._data.size == 1):
        raise TypeError(f"full(): argument 'fill_value' (position 2) must be Number, not {type(fill_value).__name__}")
    if dtype is None:
        dtype = _BY_NUMPY[np.dtype(np.bool_)] if isinstance(fill_value, bool) else (
            _BY_NUMPY[np.dtype(np.int64)] if isinstance(fill_value, int) else float32)
    return _finish(_filled(tuple(size), fill_value, dtype.numpy), None, device, requires_grad)


def zeros_like(t: Tensor, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    if t.is_sparse:   # a sparse tensor with no entries, as PyTorch's
        from .sparse.coo import zeros_like as sparse_zeros_like
        return sparse_zeros_like(t, dtype, device, requires_grad)
    return _finish(np.zeros(t._data.shape, _numpy_dtype(dtype, t._data.dtype)), None, device, requires_grad)


def ones_like(t: Tensor, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _finish(np.ones(_dense_shape(t, "ones_like"), _numpy_dtype(dtype, t._data.dtype)), None, device,
                   requires_grad)


def full_like(t: Tensor, fill_value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _finish(_filled(_dense_shape(t, "full_like"), fill_value, _numpy_dtype(dtype, t._data.dtype)), None,
                   device, requires_grad)


def _filled(shape: tuple, fill_value, numpy_dtype) -> np.ndarray:
    """``np.full``, with a number converted to the dtype as PyTorch converts it (``types.scalar_as``)."""
    if not isinstance(fill_value, Tensor):
        fill_value = scalar_as(fill_value, numpy_dtype)
    return np.full(shape, fill_value, numpy_dtype)


def _dense_shape(t: Tensor, name: str) -> tuple:
    """``t``'s shape, for a factory that fills every element: a sparse ``t`` is refused, as PyTorch does."""
    if t.is_sparse:
        from .sparse.coo import not_for_sparse
        raise not_for_sparse(f"{name}()")
    return t._data.shape


def randn(*shape, size=None, dtype=None, device=None, requires_grad: bool = False, generator=None) -> Tensor:
    """Standard normal samples (minigrad's own generator: values differ from PyTorch's)."""
    array = _generator.standard_normal(_shape(shape, size, "randn")).astype(_numpy_dtype(dtype))
    return _finish(array, None, device, requires_grad)


def rand(*shape, size=None, dtype=None, device=None, requires_grad: bool = False, generator=None) -> Tensor:
    """Uniform samples in [0, 1)."""
    array = _generator.random(_shape(shape, size, "rand")).astype(_numpy_dtype(dtype))
    return _finish(array, None, device, requires_grad)


def _random_like(t: Tensor, dtype, kernel: str) -> np.dtype:
    numpy_dtype = _numpy_dtype(dtype, t._data.dtype)
    if numpy_dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_BY_NUMPY[numpy_dtype].legacy_name[:-6]}'")
    return numpy_dtype


def rand_like(t: Tensor, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Uniform samples in [0, 1) with ``t``'s shape and dtype."""
    numpy_dtype = _random_like(t, dtype, "check_uniform_bounds")
    return _finish(_generator.random(_dense_shape(t, "rand_like")).astype(numpy_dtype), None, device, requires_grad)


def randn_like(t: Tensor, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Standard normal samples with ``t``'s shape and dtype."""
    numpy_dtype = _random_like(t, dtype, "normal_kernel_cpu")
    return _finish(_generator.standard_normal(_dense_shape(t, "randn_like")).astype(numpy_dtype), None, device,
                   requires_grad)


_RANDINT_FORMS = """\
 * (int high, tuple of ints size, *, torch.Generator generator, Tensor out = None, torch.dtype dtype = None, \
torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)
 * (int high, tuple of ints size, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, \
torch.device device = None, bool pin_memory = False, bool requires_grad = False)
 * (int low, int high, tuple of ints size, *, torch.Generator generator, Tensor out = None, torch.dtype dtype = None, \
torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)
 * (int low, int high, tuple of ints size, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, \
torch.device device = None, bool pin_memory = False, bool requires_grad = False)
"""


def randint(*args, low=None, high=None, size=None, dtype=None, device=None, generator=None,
            requires_grad: bool = False) -> Tensor:
    """Integers drawn uniformly from ``[low, high)``: ``randint(high, size)`` or ``randint(low, high, size)``
    (PyTorch's two forms), any argument also by keyword."""
    if len(args) == 2 and isinstance(args[1], int) and size is None:
        raise TypeError("randint(): argument 'size' (position 2) must be tuple of ints, not int")
    forms = {1: ("high",), 2: ("low", "high") if size is not None else ("high", "size"), 3: ("low", "high", "size")}
    named = {"low": low, "high": high, "size": size}
    named.update(zip(forms.get(len(args), ()), args))
    low, high, size = named["low"], named["high"], named["size"]
    if len(args) > 3 or high is None or not isinstance(size, (tuple, list)):
        raise TypeError(f"randint() received an invalid combination of arguments - got "
                        f"({', '.join(type(a).__name__ for a in args)}), but expected one of:\n{_RANDINT_FORMS}")
    for position, value in enumerate(size):
        if not is_size(value, first=position == 0):
            raise TypeError(f"randint(): argument 'size' (position {len(args)}) must be tuple of ints, but found "
                            f"element of type {type(value).__name__} at pos {position}")
    size = _checked_shape(tuple(int(n) for n in size))
    low = 0 if low is None else low
    for position, (name, value) in enumerate((("low", low), ("high", high)), start=1 if len(args) == 3 else 0):
        if not isinstance(value, int):
            raise TypeError(f"randint(): argument '{name}' (position {position}) must be int, not {type(value).__name__}")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    array = _generator.integers(low, high, size=tuple(size)).astype(_numpy_dtype(dtype, np.dtype(np.int64)))
    return _finish(array, None, device, requires_grad)


def randperm(n: int, *, dtype=None, device=None) -> Tensor:
    """The numbers 0 to n - 1 in a random order."""
    _int_argument("randperm", "n", 1, n)
    _checked_shape((n,))
    return _finish(_generator.permutation(n).astype(_numpy_dtype(dtype, np.dtype(np.int64))), None, device, False)


def _int_argument(function: str, name: str, position: int, value) -> None:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise TypeError(f"{function}(): argument '{name}' (position {position}) must be int, not {type(value).__name__}")


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """start, start + step, ... up to (not including) end; ``arange(end)`` starts at 0."""
    names = ("end",) if end is None and step == 1 else ("start", "end", "step")
    for position, (name, value) in enumerate(zip(names, (start, end, step) if len(names) == 3 else (start,)), 1):
        if not isinstance(value, (int, float, np.number)) and not (isinstance(value, Tensor) and value.numel() == 1):
            raise TypeError(f"arange(): argument '{name}' (position {position}) must be Number, not {type(value).__name__}")
    if end is None:
        start, end = 0, start
    start, end, step = (v.item() if isinstance(v, Tensor) else v for v in (start, end, step))
    for bound in (start, end):
        if not np.isfinite(bound):
            raise RuntimeError(f"unsupported range: {start} -> {end}")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    integral = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
    default = np.dtype(np.int64) if integral else _DEFAULT_FLOAT
    array = np.arange(start, end, step, dtype=np.float64 if not integral else np.int64)
    return _finish(array.astype(_numpy_dtype(dtype, default)), None, device, requires_grad)


_LINSPACE_FORMS = "".join(f""" * ({a} start, {b} end, int steps, *, Tensor out = None, torch.dtype dtype = None, \
torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)
""" for a, b in (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"), ("Number", "Number")))


def linspace(start, end, steps: int, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """``steps`` evenly spaced values from start to end, both included."""
    if not isinstance(steps, (int, np.integer)) or isinstance(steps, bool):
        got = ", ".join(type(v).__name__ for v in (start, end, steps))
        raise TypeError(f"linspace() received an invalid combination of arguments - got ({got}), but expected one "
                        f"of:\n{_LINSPACE_FORMS}")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    for value in (start, end):
        if not isinstance(value, (int, float, np.number, Tensor)):
            got = ", ".join(type(v).__name__ for v in (start, end, steps))
            raise TypeError(f"linspace() received an invalid combination of arguments - got ({got}), but expected one "
                            f"of:\n{_LINSPACE_FORMS}")
    dims = [v.ndim if isinstance(v, Tensor) else 0 for v in (start, end)]
    if any(dims):
        raise RuntimeError(f"linspace only supports 0-dimensional start and end tensors, but got start with {dims[0]} "
                           f"dimension(s) and end with {dims[1]} dimension(s).")
    start, end = (v.item() if isinstance(v, Tensor) else v for v in (start, end))
    array = np.linspace(start, end, steps, dtype=np.float64).astype(_numpy_dtype(dtype))
    return _finish(array, None, device, requires_grad)


def eye(n: int, m: int | None = None, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """The identity matrix, n x n (or n x m)."""
    _int_argument("eye", "n", 1, n)
    if m is not None:
        _int_argument("eye", "m", 2, m)
    for name, value in (("n", n), ("m", m)):
        if value is not None and value < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {value}")
    return _finish(np.eye(n, m, dtype=_numpy_dtype(dtype)), None, device, requires_grad)
