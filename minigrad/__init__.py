"""minigrad: a small autograd package that behaves like PyTorch, for learning how it works.

Write PyTorch code, swap the import, get the same numbers, node names and error messages:

>>> import minigrad as torch
>>> x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
>>> y = (x * x).sum()
>>> y.backward()
>>> x.grad
tensor([2., 4., 6.])

Layers, in the order the course opens them: ``nn/module.py`` (``self``), ``autograd/function.py``
(Function, ctx, apply), ``tensor.py`` + ``autograd/graph.py`` + ``autograd/engine.py`` (the graph
and backward), ``autograd/saved.py`` (save_for_backward), ``sparse/``, ``autograd/gradcheck.py``.
"""
from __future__ import annotations

import builtins

from .tensor import Tensor  # noqa: I001  (Tensor first: everything else builds on it)
from . import autograd, ops
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled
from .factories import (arange, as_tensor, empty, eye, from_numpy, full, full_like, linspace, manual_seed,
                        ones, ones_like, rand, rand_like, randint, randn, randn_like, randperm, tensor, zeros,
                        zeros_like)
from . import cuda
from .ops import chunk, isfinite, isinf, isnan, masked_fill, narrow, nonzero, split
from .serialization import load, save
from .tensor_types import BoolTensor, ByteTensor, DoubleTensor, FloatTensor, HalfTensor, IntTensor, LongTensor
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .ops import cat, einsum, flip, stack, std_mean, var_mean, where
from .types import (Size, bool_ as bool, cpu, device, double, dtype, float, float16, float32, float64, half,  # noqa: A004
                    int, int32, int64, layout, long, sparse_coo, strided, uint8)
from .doctor import doctor


# Functions with several signatures in PyTorch: its error for arguments fitting none of them.
_OVERLOADED = {"pow", "remainder", "clamp", "all", "any", "var", "std", "scatter", "clip"}
# Functions PyTorch also takes with two numbers (torch.add(1, 2) is tensor(3)).
_NUMBERS_TOO = {"add", "sub", "mul", "div"}


def _unary(name: str):
    def function(input: Tensor, *args, **kwargs) -> Tensor:
        if type(input) is not Tensor and not isinstance(input, Tensor):
            input = _not_a_tensor(name, input, args)
        return getattr(input, name)(*args, **kwargs)
    function.__name__ = name
    function.__doc__ = f"``torch.{name}(x)`` is ``x.{name}()``."
    return function


def _not_a_tensor(name: str, input, args: tuple) -> Tensor:
    """``input`` as a tensor for functions that take a number there, else PyTorch's TypeError."""
    if name in _NUMBERS_TOO and isinstance(input, (builtins.int, builtins.float)):
        return tensor(input)
    if name in _OVERLOADED:
        got = ", ".join(type(v).__name__ for v in (input,) + args)
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:")
    raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")


sin, cos, exp, log, tanh, sigmoid, relu, sqrt, abs, neg = map(_unary, ["sin", "cos", "exp", "log", "tanh",  # noqa: A001
                                                                       "sigmoid", "relu", "sqrt", "abs", "neg"])
sum, mean, argmax, argmin, sort, clamp, all, any = map(_unary, [  # noqa: A001
    "sum", "mean", "argmax", "argmin", "sort", "clamp", "all", "any"])
matmul, mm, t, transpose, reshape, flatten, squeeze, unsqueeze, permute = map(
    _unary, ["matmul", "mm", "t", "transpose", "reshape", "flatten", "squeeze", "unsqueeze", "permute"])
softmax, log_softmax, clone, detach, numel, pow, add, sub, mul = map(
    _unary, ["softmax", "log_softmax", "clone", "detach", "numel", "pow", "add", "sub", "mul"])
prod, var, std = map(_unary, ["prod", "var", "std"])
# What students and real programs reach for; div, remainder and floor_divide take a number first too
argsort, scatter, amax, amin, median = map(_unary, ["argsort", "scatter", "amax", "amin", "median"])
from .ops import div, floor_divide, remainder  # noqa: E402
from .ops.arithmetic import (bitwise_and, bitwise_left_shift, bitwise_not, bitwise_or, bitwise_right_shift,  # noqa: E402
                             bitwise_xor, logical_and, logical_not, logical_or, logical_xor, rsub)
from .grad_mode import inference_mode, is_inference_mode_enabled  # noqa: E402
clip = clamp
# What real programs by other authors reach for: in-place functions, selection, scans...
exp_, log_, sin_, cos_, tanh_, sigmoid_, relu_, sqrt_, abs_, neg_, clamp_ = map(_unary, [  # noqa: A001
    "exp_", "log_", "sin_", "cos_", "tanh_", "sigmoid_", "relu_", "sqrt_", "abs_", "neg_", "clamp_"])
clip_ = clamp_
sign, masked_select, index_select, cumsum, norm, topk, gather, scatter_add, unbind = map(_unary, [
    "sign", "masked_select", "index_select", "cumsum", "norm", "topk", "gather", "scatter_add", "unbind"])
split_with_sizes, isclose, allclose, addmm = map(_unary, ["split_with_sizes", "isclose", "allclose", "addmm"])
spmm = mm   # torch.spmm(sparse, dense): the product of a sparse (or dense) matrix with a dense one


def max(input: Tensor, dim=None, keepdim: bool = False):  # noqa: A001
    """The largest element; along ``dim``, the largest values and their indices (``values, indices``);
    ``torch.max(a, b)`` with a tensor b: the element-wise maximum (``torch.maximum``)."""
    _check_extreme_arguments("max", input, dim, keepdim)
    return ops.max(input, dim, keepdim)


def min(input: Tensor, dim=None, keepdim: bool = False):  # noqa: A001
    """The smallest element; along ``dim``, the smallest values and their indices; ``torch.min(a, b)``
    with a tensor b: the element-wise minimum (``torch.minimum``)."""
    _check_extreme_arguments("min", input, dim, keepdim)
    return ops.min(input, dim, keepdim)


def _check_extreme_arguments(name: str, input, dim, keepdim) -> None:
    """PyTorch's error for ``torch.max(1, t)`` or ``torch.max(a, b, 0)``: no signature fits."""
    if not isinstance(input, Tensor) or (isinstance(dim, Tensor) and keepdim is not False):
        got = ", ".join(type(v).__name__ for v in ((input, dim) if keepdim is False else (input, dim, keepdim)))
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                        " * (Tensor input, *, Tensor out = None)\n * (Tensor input, Tensor other, *, Tensor out = None)\n"
                        " * (Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)\n")


from .ops.pointwise import maximum, minimum  # noqa: E402


def _comparison(name: str, method: str):
    """``torch.gt(input, other)`` and friends: the comparison of a tensor with a tensor or a number."""
    def function(input, other):
        if not isinstance(input, Tensor) or not isinstance(other, (Tensor, builtins.int, builtins.float)):
            got = ", ".join(type(v).__name__ for v in (input, other))
            raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one "
                            "of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number "
                            "other, *, Tensor out = None)\n")
        return getattr(input, method)(other)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input, other)`` is ``input.{method}(other)``: a bool tensor."
    return function


gt, ge, lt, le, eq, ne = (_comparison(n, n) for n in ("gt", "ge", "lt", "le", "eq", "ne"))
greater, greater_equal, less, less_equal, not_equal = (_comparison(n, m) for n, m in (
    ("greater", "gt"), ("greater_equal", "ge"), ("less", "lt"), ("less_equal", "le"), ("not_equal", "ne")))


from .ops import fill  # noqa: E402


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    """``input`` with ``alpha * source`` added at ``index`` along ``dim``, as a new tensor."""
    return input.index_add(dim, index, source, alpha=alpha)


def select(input: Tensor, dim: int, index: int) -> Tensor:
    """``input.select(dim, index)``: the slice at ``index`` along ``dim``, a view."""
    return input.select(dim, index)


def repeat_interleave(input: Tensor, repeats=None, dim=None, *, output_size=None) -> Tensor:
    """Each element (or slice along ``dim``) repeated ``repeats`` times in a row; with one tensor of
    counts, the positions 0, 1... each repeated its count."""
    return ops.gather_scatter.repeat_interleave(input, repeats, dim, output_size)


def is_inference(input: Tensor) -> bool:
    """Whether ``input`` is an inference tensor (minigrad makes none: False)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"is_inference(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input.is_inference()


def embedding(weight: Tensor, indices: Tensor, padding_idx: builtins.int = -1, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """``torch.embedding(weight, indices)``: the rows of ``weight`` at ``indices`` (note the order:
    ``torch.nn.functional.embedding`` takes the indices first). A negative padding_idx means none."""
    return ops.embedding(indices, weight, padding_idx if padding_idx >= 0 else None, None, 2.0, scale_grad_by_freq,
                         sparse)


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def get_default_dtype():
    return float32


def equal(a: Tensor, b: Tensor):
    """True when ``a`` and ``b`` have the same shape and the same elements."""
    return a.shape == b.shape and builtins.bool((a._data == b._data).all())


def __getattr__(name: str):
    # The subpackages below import the whole of minigrad, so they are loaded on first use.
    if name in ("nn", "optim", "sparse", "viz", "exercises", "utils", "jit"):
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    from .nn.unsupported import TOP_LEVEL_FUNCTIONS
    if name in TOP_LEVEL_FUNCTIONS:   # torch.conv2d, torch.batch_norm...: outside the subset, calling raises
        return TOP_LEVEL_FUNCTIONS[name]
    if name == "sparse_coo_tensor":
        from .sparse import sparse_coo_tensor
        return sparse_coo_tensor
    from .inventory import Unsupported, unsupported
    error = unsupported("torch", name, "module 'minigrad'")   # a PyTorch name: why minigrad lacks it, and what instead
    if isinstance(error, Unsupported):
        raise error
    raise AttributeError(f"minigrad has no attribute '{name}'. minigrad implements a subset of PyTorch: "
                         "the README's section 'What minigrad covers' lists what is there.")


__version__ = "0.1.0"
