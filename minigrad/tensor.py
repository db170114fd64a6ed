"""Tensor: a numpy array plus what autograd needs to know about it.

What a tensor carries for autograd:

- ``requires_grad``: whether gradients should flow to it;
- ``grad_fn``: the backward node that made it (``None`` for a *leaf*, a tensor you created);
- ``grad``: where backward accumulates the gradient of a leaf;
- a **version counter**, bumped by every in-place change, so that saved tensors can be checked.

Every method that computes something (``x * y``, ``x.sum()``, ``x[0]``) calls a ``Function``
from ``minigrad.ops`` through ``.apply``: the same machinery a custom Function uses.

>>> import minigrad as torch
>>> x = torch.tensor([1.0, 2.0], requires_grad=True)
>>> y = (x * x).sum()
>>> x.is_leaf, y.is_leaf, y.grad_fn.name()
(True, False, 'SumBackward0')
"""
from __future__ import annotations

import operator
import warnings
import weakref
from typing import Any, Callable

import numpy as np

from . import grad_mode
from .types import Size, _BY_NUMPY, cpu, dtype as DType, strided

_grad_state = grad_mode.state

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
    "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
    "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor "
    "by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 "
    "for more information.")

T_NOT_2D_WARNING = (
    "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it will throw an "
    "error in a future release. Consider `x.mT` to transpose batches of matrices or "
    "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.")
T_0D_WARNING = "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases."
_warned: set = set()


def _warn_once(message: str) -> None:
    """A UserWarning shown once per process, like PyTorch's TORCH_WARN_ONCE."""
    if message not in _warned:
        _warned.add(message)
        warnings.warn(message, UserWarning, stacklevel=3)


class VersionCounter:
    """Counts in-place changes. Views of a tensor share their base's counter."""

    value = 0   # a class default, so that making a counter runs no Python code (tensors make many)


class Tensor:
    """An n-dimensional array that can record the operations applied to it.

    Create tensors with ``minigrad.tensor``, ``minigrad.ones``, ``minigrad.randn`` and friends.
    """

    # Class-level defaults keep tensor creation cheap: an instance stores only what differs.
    _node = None               # the node that made this tensor: what grad_fn returns (PyTorch's grad_fn_)
    _requires_grad = False
    _output_nr = 0
    _grad = None
    _retains_grad = False
    _acc_ref = None
    _hooks = None              # register_hook's hooks on a leaf (PyTorch's _backward_hooks)
    _post_accumulate_grad_hooks = None
    _view_base = None          # for a view: the tensor whose memory it shows, its _base (autograd/views.py)
    _grad_fn_version = 0       # for a view: the version counter's value when its grad_fn was set
    _view_creation = "default"  # for a view: how it was made (no_grad, custom Function...)
    _wrapped_number = False   # a Python number promoted to a tensor for one operation
    _class_in_errors = "torch._C.TensorBase"   # the C++ class PyTorch's "not writable" texts name
    # Read-only in PyTorch, so properties here, whose setters and deleters refuse (refuse_writes, at the
    # end of the module). Each getter is C code reading a class constant: reading one runs no Python.
    _is_sparse, _layout, _device, _is_cuda = False, strided, cpu, False
    is_sparse = property(operator.attrgetter("_is_sparse"))
    layout = property(operator.attrgetter("_layout"))
    device = property(operator.attrgetter("_device"))
    is_cuda = property(operator.attrgetter("_is_cuda"))

    __hash__ = object.__hash__

    def __new__(cls, *args, **kwargs) -> "Tensor":
        """The legacy constructor ``torch.Tensor(...)``: ``torch.Tensor(2, 3)`` is a float32 tensor of that
        shape (zeros here; PyTorch leaves it uninitialised), ``torch.Tensor([1, 2])`` float32 data, and
        ``torch.Tensor(t)`` the tensor ``t`` itself, detached. Prefer ``torch.tensor`` and ``torch.zeros``.

        >>> import minigrad as torch
        >>> torch.Tensor([1, 2]), torch.Tensor(2, 3).shape
        (tensor([1., 2.]), torch.Size([2, 3]))
        """
        if cls is not Tensor:   # a subclass (Parameter, Buffer) makes its own instances
            return object.__new__(cls)
        if len(args) == 1 and not kwargs and isinstance(args[0], Tensor):
            return args[0].detach()
        from .tensor_types import FloatTensor
        return FloatTensor(*args, **kwargs)

    def __init__(self, *args, **kwargs) -> None:
        pass   # __new__ made the tensor

    @classmethod
    def _make(cls, data: np.ndarray, requires_grad: bool = False) -> "Tensor":
        """Wrap a numpy array without copying it (internal constructor)."""
        t = object.__new__(cls)
        t._data = data
        t._version_counter = VersionCounter()
        if requires_grad:
            t._requires_grad = True
        return t

    @classmethod
    def _zeros(cls, shape: tuple, dtype: DType) -> "Tensor":
        return cls._make(np.zeros(shape, dtype.numpy))

    # ------------------------------------------------------------------ metadata
    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None):
        """The shape, or the length of one dimension."""
        if dim is None:
            return Size(self._data.shape)
        if self._data.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return self._data.shape[_ops.wrap_dim(dim, self._data.ndim)]

    @property
    def dtype(self) -> DType:
        return _BY_NUMPY[self._data.dtype]

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return self._data.size

    nelement = numel

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    def element_size(self) -> int:
        return self._data.itemsize

    def data_ptr(self) -> int:
        """The memory address of the first element, as PyTorch's: a view shares its base's memory.

        >>> import minigrad as torch
        >>> x = torch.zeros(2, 3)
        >>> x.view(-1).data_ptr() == x.data_ptr(), x[1].data_ptr() - x.data_ptr()
        (True, 12)
        """
        return self._data.__array_interface__["data"][0]

    @property
    def nbytes(self) -> int:
        """Bytes taken by the elements: ``numel() * element_size()``."""
        return self._data.nbytes

    @property
    def _version(self) -> int:
        return self._version_counter.value

    # ------------------------------------------------------------------ autograd state
    @property
    def requires_grad(self) -> bool:
        if self._requires_grad or self.grad_fn is not None:
            return True
        return self._view_base is not None and self._view_base.requires_grad   # a view made under no_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if self.grad_fn is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables." + ("" if value else
                " If you want to use a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."))
        if value and self._data.dtype.kind not in "fc":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._requires_grad = bool(value)

    @requires_grad.deleter
    def requires_grad(self) -> None:
        raise RuntimeError("requires_grad must be a bool")

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        """Set requires_grad in place and return self (a non-leaf already requires grad: it stays as it is)."""
        if requires_grad and self.grad_fn is not None:
            return self
        self.requires_grad = requires_grad
        return self

    @property
    def grad_fn(self):
        """The backward node that made this tensor (None for a leaf).

        A view whose base was changed in place since gets a new node here (see ``autograd/views.py``).
        """
        if self._view_base is not None and self._grad_fn_version != self._version_counter.value:
            return _views.current_grad_fn(self)
        return self._node

    @grad_fn.setter
    def grad_fn(self, node) -> None:
        old = self._node
        self._node = node
        self._grad_fn_version = self._version_counter.value
        if self._retains_grad and node is not old:
            _views.move_retained_grad(self, old, node)

    # PyTorch's private attributes, kept apart from minigrad's own fields (_node, _view_base, _hooks),
    # so that setting or deleting them gets PyTorch's answers without a __delattr__, which would make
    # CPython store every attribute of every tensor the slow way (CONTRIBUTING.md, "Speed").
    @property
    def _grad_fn(self):
        return self.grad_fn

    @_grad_fn.setter
    def _grad_fn(self, value) -> None:
        if value is not None:
            raise RuntimeError("_grad_fn can be only set to None")
        self.detach_()

    @_grad_fn.deleter
    def _grad_fn(self) -> None:
        raise RuntimeError("Deletion of _grad_fn not allowed. Detach tensor instead!")

    _base = property(operator.attrgetter("_view_base"), doc="For a view, the tensor whose memory it shows.")

    @property
    def _backward_hooks(self) -> dict | None:
        return self._hooks

    @_backward_hooks.setter
    def _backward_hooks(self, hooks: dict | None) -> None:
        self._hooks = hooks

    @_backward_hooks.deleter
    def _backward_hooks(self) -> None:
        raise RuntimeError("Deletion of _backwards_hooks not allowed!")

    def _is_view(self) -> bool:
        """True if this tensor shows (part of) another tensor's memory, its ``_base``."""
        return self._view_base is not None

    @property
    def is_leaf(self) -> bool:
        """True for tensors not produced by a recorded operation (grad_fn is None)."""
        return self.grad_fn is None

    @property
    def grad(self) -> "Tensor | None":
        """The gradient accumulated by backward (leaves, and tensors that called retain_grad)."""
        if self._grad is None and self.grad_fn is not None and not self._retains_grad:   # PyTorch's condition
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: "Tensor | None") -> None:
        if value is not None:
            _check_assigned_grad(self, value)
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None   # del x.grad is x.grad = None

    @property
    def output_nr(self) -> int:
        """Which output of its ``grad_fn`` this tensor is (0 for leaves and non-differentiable outputs)."""
        return self._output_nr if self.grad_fn is not None else 0

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def retain_grad(self) -> None:
        """Ask backward to store this non-leaf tensor's gradient in ``.grad`` too."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self._retains_grad:
            return
        node = self.grad_fn
        if node._retain_grad_tensors is None:
            node._retain_grad_tensors = {}
        node._retain_grad_tensors[self._output_nr] = weakref.ref(self)
        self._retains_grad = True

    def register_hook(self, hook: Callable[["Tensor"], "Tensor | None"]) -> RemovableHandle:
        """Call ``hook(grad)`` when this tensor's gradient is computed; a returned tensor replaces it."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            return self.grad_fn._add_tensor_pre_hook(self._output_nr, hook)
        if self._hooks is None:
            self._hooks = {}
        return RemovableHandle(self._hooks, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable[["Tensor"], None]) -> RemovableHandle:
        """Call ``hook(tensor)`` each time backward has accumulated this leaf's ``.grad`` (an optimizer
        can step right there); ``autograd.grad``, which fills no ``.grad``, calls none."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if self._post_accumulate_grad_hooks is None:
            self._post_accumulate_grad_hooks = {}
        return RemovableHandle(self._post_accumulate_grad_hooks, hook)

    def backward(self, gradient: "Tensor | None" = None, retain_graph: bool | None = None,
                 create_graph: bool = False, inputs=None) -> None:
        """Compute the gradient of this tensor with respect to the leaves, into their ``.grad``.

        With ``inputs``, only those tensors get their ``.grad`` filled.
        """
        if inputs is not None:
            from .autograd import backward
            backward(self, gradient, retain_graph, create_graph, inputs=inputs)
            return
        run_backward((self,), (gradient,), retain_graph, create_graph)

    def _gradient_edge(self) -> tuple:
        """Where a gradient for this tensor goes: ``(grad_fn, output_nr)``, an AccumulateGrad, or None."""
        if self.grad_fn is not None:
            return (self.grad_fn, self._output_nr)
        if self._requires_grad:
            return (self._grad_accumulator(), 0)
        return (None, 0)

    def _grad_accumulator(self) -> AccumulateGrad:
        # One AccumulateGrad per leaf while some graph uses it; held weakly so no cycle forms.
        acc = self._acc_ref() if self._acc_ref is not None else None
        if acc is None:
            acc = AccumulateGrad(self)
            self._acc_ref = weakref.ref(acc)
        return acc

    def _alias(self, grad_fn=None, output_nr: int = 0) -> "Tensor":
        """A new tensor object over the same data and version counter (a view of all of it)."""
        t = object.__new__(Tensor)   # (a Parameter's alias is a plain tensor, as in PyTorch)
        t._data = self._data
        t._version_counter = self._version_counter
        t._view_base = self._view_base if self._view_base is not None else self
        t._grad_fn_version = self._version_counter.value
        if grad_fn is not None:   # (a new tensor: no retained grad to move, as the grad_fn setter would)
            t._node, t._output_nr = grad_fn, output_nr
        return t

    def _detached_copy(self) -> "Tensor":
        return Tensor._make(self._data.copy())

    def _accumulate_in_place(self, other: "Tensor") -> None:
        if other.is_sparse:   # a sparse gradient added into a dense .grad, as PyTorch allows
            other = other.to_dense()
        out = self._data if self._data.flags.writeable else _views.writeable_memory(self._data)   # (a view of an
        np.add(self._data, other._data, out=out, casting="unsafe")                             # expanded tensor)
        self._version_counter.value += 1

    def detach(self) -> "Tensor":
        """The same data, cut off from the graph (shares the version counter)."""
        t = Tensor._make(self._data)
        t._version_counter = self._version_counter
        return t

    def detach_(self) -> "Tensor":
        if self._view_base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) "
                "for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and "
                "hence detach_() cannot be called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self.grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self) -> "Tensor":
        """The same data without autograd history and with its own version counter."""
        return Tensor._make(self._data)

    @data.setter
    def data(self, value: "Tensor") -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        if value.is_sparse != self.is_sparse:
            raise RuntimeError("Attempted to call `variable.set_data(tensor)`, but `variable` and `tensor` have "
                               "incompatible tensor type.")
        if self.requires_grad and value._data.dtype.kind not in "fc":
            raise RuntimeError("data set to a tensor that requires gradients must be floating point or complex dtype")
        self._data = value._data

    @data.deleter
    def data(self) -> None:
        raise RuntimeError("Deleting tensor data is not allowed. Delete tensor instead!")

    # No __getattr__, __setattr__ nor __delattr__: each would make CPython read or store every attribute
    # of every tensor the slow way. A PyTorch method minigrad lacks is a class attribute that raises instead
    # (``inventory.refuse_missing_methods``, at the end of this module).

    def __dir__(self) -> list:
        """The names a tensor has: the placeholders of the PyTorch methods minigrad lacks are left out."""
        return [name for name in super().__dir__() if not isinstance(Tensor.__dict__.get(name), MissingMethod)]

    # ------------------------------------------------------------------ conversion
    def numpy(self) -> np.ndarray:
        """The underlying numpy array (shared, not copied)."""
        if self.requires_grad and _grad_state.enabled:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    def item(self):
        """The single value of a one-element tensor, as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.item()

    def tolist(self):
        return self._data.tolist()

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.item())

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __repr__(self) -> str:
        from ._tensor_str import dtype_suffix, format_tensor
        suffixes = []
        dtype_text = dtype_suffix(self._data)
        if dtype_text:
            suffixes.append(dtype_text)
        try:
            grad_fn = self.grad_fn
            name = type(grad_fn).__name__ if grad_fn is not None else None   # <CopySlices>, not its name()
        except RuntimeError:   # a view whose grad_fn may not be rebuilt (made in no_grad, changed in place since)
            name = "Invalid"
        if name is not None:
            suffixes.append(f"grad_fn=<{name}>")
        elif self._requires_grad:
            suffixes.append("requires_grad=True")
        return format_tensor(self._data, suffixes)

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return self._data.item().__format__(spec)
        return repr(self).__format__(spec)

    def to(self, *args, **kwargs) -> "Tensor":
        """Convert to a dtype (``x.to(torch.float64)``); devices other than the CPU are refused."""
        target = kwargs.get("dtype")
        for a in args:
            if isinstance(a, DType):
                target = a
            elif isinstance(a, Tensor):
                target = a.dtype
            else:
                from .types import check_device
                check_device(a)
        check = kwargs.get("device")
        if check is not None:
            from .types import check_device
            check_device(check)
        if target is None or target is self.dtype:
            return self
        return _ops.ToCopy.apply(self, target)

    def type(self, dtype=None):
        """``'torch.FloatTensor'`` with no argument; otherwise convert to a dtype, a legacy type such as
        ``torch.DoubleTensor``, or its name ``'torch.DoubleTensor'``."""
        if dtype is None:
            return f"torch.{self.dtype.legacy_name}"
        if not isinstance(dtype, DType):
            from .tensor_types import dtype_of_legacy_type
            dtype = dtype_of_legacy_type(dtype)
        return self.to(dtype)

    def float(self) -> "Tensor":
        return self.to(_BY_NUMPY[np.dtype(np.float32)])

    def double(self) -> "Tensor":
        return self.to(_BY_NUMPY[np.dtype(np.float64)])

    def long(self) -> "Tensor":
        return self.to(_BY_NUMPY[np.dtype(np.int64)])

    def int(self) -> "Tensor":
        return self.to(_BY_NUMPY[np.dtype(np.int32)])

    def bool(self) -> "Tensor":
        return self.to(_BY_NUMPY[np.dtype(np.bool_)])

    def cpu(self) -> "Tensor":
        return self

    def contiguous(self) -> "Tensor":
        """This tensor if its elements lie in row-major order in memory, else a row-major copy."""
        return self if self._data.flags.c_contiguous else _ops.Clone.apply(self)

    def is_contiguous(self) -> bool:
        return bool(self._data.flags.c_contiguous)

    # ------------------------------------------------------------------ arithmetic
    # An operand that is neither a tensor nor a number makes an operator return NotImplemented, as
    # PyTorch's do: Python then tries the other operand's reflected method, or raises its TypeError.
    def __add__(self, other):
        try: return _ops.Add.apply(self, _operand(other))
        except NotAnOperand: return NotImplemented

    def __radd__(self, other):
        try: return _ops.Add.apply(self, _operand(other))   # PyTorch: self first
        except NotAnOperand: return NotImplemented

    def __sub__(self, other):
        try: return _ops.Sub.apply(self, _operand(other))
        except NotAnOperand: return NotImplemented

    def __rsub__(self, other):
        try: return _ops.arithmetic.rsub(self, other)
        except NotAnOperand: return NotImplemented

    def __mul__(self, other):
        try: return _ops.Mul.apply(self, _operand(other))
        except NotAnOperand: return NotImplemented

    def __rmul__(self, other):
        try: return _ops.Mul.apply(self, _operand(other))   # PyTorch: self first
        except NotAnOperand: return NotImplemented

    def __truediv__(self, other):
        try: return _ops.Div.apply(self, _operand(other))
        except NotAnOperand: return NotImplemented

    def __rtruediv__(self, other):
        try: return _ops.Reciprocal.apply(self) * _operand(other)   # as PyTorch computes it
        except NotAnOperand: return NotImplemented

    def __pow__(self, exponent):
        try: return _ops.pow(self, exponent)
        except NotAnOperand: return NotImplemented

    def __rpow__(self, base):
        try: return _ops.pow(base, self)
        except NotAnOperand: return NotImplemented

    def __floordiv__(self, other):
        try: return _ops.arithmetic.floor_divide(self, other)
        except NotAnOperand: return NotImplemented

    def __rfloordiv__(self, other):
        try: return _ops.arithmetic.floor_divide(other, self)
        except NotAnOperand: return NotImplemented

    def __mod__(self, other):
        try: return _ops.arithmetic.remainder(self, other)
        except NotAnOperand: return NotImplemented

    def __rmod__(self, other):
        try: return _ops.arithmetic.remainder(other, self)
        except NotAnOperand: return NotImplemented

    def __matmul__(self, other): return _ops.matmul(self, other) if isinstance(other, Tensor) else NotImplemented
    def __rmatmul__(self, other): return _ops.matmul(other, self) if isinstance(other, Tensor) else NotImplemented
    def __neg__(self): return _ops.Neg.apply(self)
    def __pos__(self): return self
    def __abs__(self): return _ops.Abs.apply(self)

    def add(self, other, *, alpha=1):
        other, plain = _argument(other, "add"), plain_alpha(alpha)
        if plain or other.is_sparse:   # dense + alpha * sparse: the sparse one knows how
            return self + other if plain else other.__radd__(self, alpha)
        return _ops.AddScaled.apply(self, other, alpha)

    def sub(self, other, *, alpha=1):
        other, plain = _argument(other, "sub"), plain_alpha(alpha)
        if plain or other.is_sparse:
            return self - other if plain else other.__rsub__(self, alpha)
        return _ops.SubScaled.apply(self, other, alpha)

    def mul(self, other): return self * _argument(other, "mul")
    def div(self, other, *, rounding_mode=None):
        return _ops.arithmetic.div(self, _argument(other, "div"), rounding_mode)
    def neg(self): return -self
    def pow(self, exponent): return _ops.pow(self, exponent)

    # comparisons give bool tensors and are not differentiable
    def __eq__(self, other):
        try: return _ops.compare(np.equal, self, other)
        except NotAnOperand: return NotImplemented   # t == None, t == "a": False, as in PyTorch

    def __ne__(self, other):
        try: return _ops.compare(np.not_equal, self, other)
        except NotAnOperand: return NotImplemented

    def __lt__(self, other):
        try: return _ops.compare(np.less, self, other)
        except NotAnOperand: return NotImplemented

    def __le__(self, other):
        try: return _ops.compare(np.less_equal, self, other)
        except NotAnOperand: return NotImplemented

    def __gt__(self, other):
        try: return _ops.compare(np.greater, self, other)
        except NotAnOperand: return NotImplemented

    def __ge__(self, other):
        try: return _ops.compare(np.greater_equal, self, other)
        except NotAnOperand: return NotImplemented

    def eq(self, other): return _ops.compare(np.equal, self, other)
    def ne(self, other): return _ops.compare(np.not_equal, self, other)
    def lt(self, other): return _ops.compare(np.less, self, other)
    def le(self, other): return _ops.compare(np.less_equal, self, other)
    def gt(self, other): return _ops.compare(np.greater, self, other)
    def ge(self, other): return _ops.compare(np.greater_equal, self, other)
    greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne

    # bitwise operations (integers and bools), each with its reflected and in-place forms: see ops/arithmetic.py
    def _bitwise(self, operation, other, reflected=False, in_place=False):
        try:
            if in_place:
                return _ops.arithmetic.bitwise_(operation, self, other)
            return _ops.arithmetic.bitwise(operation, other, self) if reflected else \
                _ops.arithmetic.bitwise(operation, self, other)
        except NotAnOperand:
            return NotImplemented

    def __and__(self, other): return self._bitwise("and", other)
    def __or__(self, other): return self._bitwise("or", other)
    def __xor__(self, other): return self._bitwise("xor", other)
    def __lshift__(self, other): return self._bitwise("lshift", other)
    def __rshift__(self, other): return self._bitwise("rshift", other)
    def __rand__(self, other): return self._bitwise("and", other, reflected=True)
    def __ror__(self, other): return self._bitwise("or", other, reflected=True)
    def __rxor__(self, other): return self._bitwise("xor", other, reflected=True)
    def __rlshift__(self, other): return self._bitwise("lshift", other, reflected=True)
    def __rrshift__(self, other): return self._bitwise("rshift", other, reflected=True)
    def __iand__(self, other): return self._bitwise("and", other, in_place=True)
    def __ior__(self, other): return self._bitwise("or", other, in_place=True)
    def __ixor__(self, other): return self._bitwise("xor", other, in_place=True)
    def __ilshift__(self, other): return self._bitwise("lshift", other, in_place=True)
    def __irshift__(self, other): return self._bitwise("rshift", other, in_place=True)
    def __invert__(self):
        if self._data.dtype.kind == "f":
            raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
        return _ops.arithmetic.bitwise_not(self)

    def bitwise_and(self, other): return _ops.arithmetic.bitwise("and", self, other)
    def bitwise_or(self, other): return _ops.arithmetic.bitwise("or", self, other)
    def bitwise_xor(self, other): return _ops.arithmetic.bitwise("xor", self, other)
    def bitwise_left_shift(self, other): return _ops.arithmetic.bitwise("lshift", self, other)
    def bitwise_right_shift(self, other): return _ops.arithmetic.bitwise("rshift", self, other)
    def bitwise_not(self): return _ops.arithmetic.bitwise_not(self)
    def bitwise_and_(self, other): return _ops.arithmetic.bitwise_("and", self, other)
    def bitwise_or_(self, other): return _ops.arithmetic.bitwise_("or", self, other)
    def bitwise_xor_(self, other): return _ops.arithmetic.bitwise_("xor", self, other)
    def logical_and(self, other): return _ops.arithmetic.logical("and", self, other, method=True)
    def logical_or(self, other): return _ops.arithmetic.logical("or", self, other, method=True)
    def logical_xor(self, other): return _ops.arithmetic.logical("xor", self, other, method=True)
    def logical_not(self): return _ops.arithmetic.logical_not(self)

    # ------------------------------------------------------------------ in place (bump the version)
    def add_(self, other, *, alpha=1):
        other = _argument(other, "add_")
        if plain_alpha(alpha):
            return _ops.inplace(_ops.AddInplace, self, other)
        return _ops.inplace(_ops.AddScaledInplace, self, other, alpha)

    def sub_(self, other, *, alpha=1):
        other = _argument(other, "sub_")
        if plain_alpha(alpha):
            return _ops.inplace(_ops.SubInplace, self, other)
        return _ops.inplace(_ops.SubScaledInplace, self, other, alpha)

    def mul_(self, other): return _ops.inplace(_ops.MulInplace, self, _argument(other, "mul_"))
    def div_(self, other, *, rounding_mode=None):
        if rounding_mode is None:
            return _ops.inplace(_ops.DivInplace, self, _argument(other, "div_"))
        _ops.arithmetic.check_rounding_mode(rounding_mode)
        return _ops.inplace(_ops.DivRoundingInplace, self, _argument(other, "div_"), rounding_mode)

    def __iadd__(self, other):
        try: return _ops.inplace(_ops.AddInplace, self, other)
        except NotAnOperand: return NotImplemented   # Python then tries +, and raises its TypeError

    def __isub__(self, other):
        try: return _ops.inplace(_ops.SubInplace, self, other)
        except NotAnOperand: return NotImplemented

    def __imul__(self, other):
        try: return _ops.inplace(_ops.MulInplace, self, other)
        except NotAnOperand: return NotImplemented

    def __itruediv__(self, other):
        try: return _ops.inplace(_ops.DivInplace, self, other)
        except NotAnOperand: return NotImplemented

    def zero_(self) -> "Tensor":
        """Fill with zeros in place."""
        return _ops.inplace_fill(_ops.ZeroInplace, self, 0)

    def fill_(self, value) -> "Tensor":
        return _ops.inplace_fill(_ops.FillInplace, self, value)

    def copy_(self, source: "Tensor") -> "Tensor":
        return _ops.inplace(_ops.CopyInplace, self, _argument(source, "copy_"))

    def index_add_(self, dim: int, index: "Tensor", source: "Tensor", *, alpha=1) -> "Tensor":
        return _ops.index_add_(self, dim, index, source, alpha)

    def index_add(self, dim: int, index: "Tensor", source: "Tensor", *, alpha=1) -> "Tensor":
        return _ops.gather_scatter.index_add(self, dim, index, source, alpha)

    # ------------------------------------------------------------------ pointwise math
    def exp(self): return _ops.Exp.apply(self)
    def log(self): return _ops.Log.apply(self)
    def sin(self): return _ops.Sin.apply(self)
    def cos(self): return _ops.Cos.apply(self)
    def tanh(self): return _ops.Tanh.apply(self)
    def sigmoid(self): return _ops.Sigmoid.apply(self)
    def relu(self): return _ops.Relu.apply(self)
    def sqrt(self): return _ops.Sqrt.apply(self)
    def abs(self): return _ops.Abs.apply(self)

    def clamp(self, min=None, max=None):
        """Limit values to [min, max]; the gradient is 1 inside the range and 0 outside."""
        return _ops.clamp(self, min, max)

    clip = clamp

    # ------------------------------------------------------------------ reductions
    def sum(self, dim=None, keepdim: bool = False, *, dtype=None):
        return _ops.sum(self, dim, keepdim, dtype)

    def mean(self, dim=None, keepdim: bool = False, *, dtype=None):
        return _ops.mean(self, dim, keepdim, dtype)

    def max(self, dim=None, keepdim: bool = False):
        return _ops.max(self, dim, keepdim, method=True)

    def min(self, dim=None, keepdim: bool = False):
        return _ops.min(self, dim, keepdim, method=True)

    def maximum(self, other): return _ops.pointwise.maximum(self, other)
    def minimum(self, other): return _ops.pointwise.minimum(self, other)

    def all(self, dim=None, keepdim: bool = False) -> "Tensor":
        """True where every element (along ``dim``) is non-zero; never differentiable. A bool tensor, but
        uint8 (1 or 0) for a uint8 input, as PyTorch keeps."""
        return _truth(self._data, self._data.all(axis=dim, keepdims=keepdim))

    def any(self, dim=None, keepdim: bool = False) -> "Tensor":
        """True where some element (along ``dim``) is non-zero; never differentiable. A bool tensor, but
        uint8 for a uint8 input, as ``all``."""
        return _truth(self._data, self._data.any(axis=dim, keepdims=keepdim))

    def argmax(self, dim=None, keepdim: bool = False):
        return _ops.argmax(self, dim, keepdim)

    def argmin(self, dim=None, keepdim: bool = False):
        return _ops.argmin(self, dim, keepdim)

    def sort(self, dim: int = -1, descending: bool = False, stable: bool = False):
        return _ops.sort(self, dim, descending)

    def softmax(self, dim: int, dtype=None):
        """exp(x) / sum(exp(x)) along ``dim``; with ``dtype``, the input is converted first (ToCopyBackward0)."""
        return _ops.Softmax.apply(self if dtype is None else self.to(_dtype_argument("softmax", dim, dtype)), dim)

    def log_softmax(self, dim: int, dtype=None):
        return _ops.LogSoftmax.apply(self if dtype is None else self.to(_dtype_argument("log_softmax", dim, dtype)),
                                     dim)

    def sum_to_size(self, *size):
        """Sum broadcast dimensions away until the shape is ``size`` (used to undo broadcasting)."""
        return _ops.sum_to_size(self, size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size)

    # ------------------------------------------------------------------ shape
    def view(self, *shape): return _ops.view(self, shape)
    def reshape(self, *shape): return _ops.reshape(self, shape)
    def view_as(self, other): return _ops.view(self, (tuple(other.shape),))
    def reshape_as(self, other): return _ops.reshape(self, (tuple(other.shape),))
    def flatten(self, start_dim: int = 0, end_dim: int = -1): return _ops.flatten(self, start_dim, end_dim)
    def t(self): return _ops.t(self)
    def transpose(self, dim0: int, dim1: int): return _ops.Transpose.apply(self, dim0, dim1)
    def transpose_(self, dim0: int, dim1: int): return _ops.shape.transpose_(self, dim0, dim1)
    def select(self, dim: int, index: int): return _ops.indexing.select(self, dim, index)
    def repeat(self, *repeats): return _ops.shape.repeat(self, repeats)

    def repeat_interleave(self, repeats, dim=None, *, output_size=None):
        return _ops.gather_scatter.repeat_interleave(self, repeats, dim, output_size)
    def permute(self, *dims): return _ops.permute(self, dims)
    def unsqueeze(self, dim: int): return _ops.Unsqueeze.apply(self, dim)
    def squeeze(self, dim=None): return _ops.squeeze(self, dim)
    def expand(self, *sizes): return _ops.expand(self, sizes)
    def expand_as(self, other): return _ops.expand(self, (tuple(other.shape),))
    def clone(self, *, memory_format=None): return _ops.Clone.apply(self)
    def __getitem__(self, key): return _ops.getitem(self, key)
    def __setitem__(self, key, value): _ops.setitem(self, key, value)

    @property
    def T(self):
        if self._data.ndim != 2:
            _warn_once(T_NOT_2D_WARNING if self._data.ndim else T_0D_WARNING)
        return _ops.Permute.apply(self, tuple(range(self._data.ndim))[::-1])   # PermuteBackward0, as in PyTorch

    @property
    def mT(self):
        return self.transpose(-2, -1)

    # ------------------------------------------------------------------ linear algebra
    def matmul(self, other): return _ops.matmul(self, other)
    def mm(self, other): return _ops.mm(self, other)

    # ------------------------------------------------------------------ what students reach for
    def argsort(self, dim: int = -1, descending: bool = False, stable: bool = False):
        return _ops.argsort(self, dim, descending, stable)

    def scatter(self, dim: int, index, src=None, *, value=None, reduce=None):
        return _ops.scatter(self, dim, index, src, value=value, reduce=reduce)

    def scatter_(self, dim: int, index, src=None, *, value=None, reduce=None):
        return _ops.scatter(self, dim, index, src, value=value, reduce=reduce, in_place=True)

    def pow_(self, exponent): return _ops.pow_(self, exponent)
    def amax(self, dim=(), keepdim: bool = False): return _ops.amax(self, dim, keepdim)
    def amin(self, dim=(), keepdim: bool = False): return _ops.amin(self, dim, keepdim)
    def median(self, dim=None, keepdim: bool = False): return _ops.median(self, dim, keepdim)
    def remainder(self, other): return _ops.remainder(self, other)
    def floor_divide(self, other): return _ops.floor_divide(self, other)
    def stride(self, dim=None): return _ops.stride(self, dim)
    def is_inference(self) -> bool: return False   # minigrad makes no inference tensors (see inference_mode)

    # ------------------------------------------------------------------ used by real model code (pyGAT)
    def masked_fill(self, mask, value): return _ops.masked_fill(self, mask, value)
    def nonzero(self, *, as_tuple: bool = False): return _ops.nonzero(self, as_tuple)
    def isnan(self): return _ops.isnan(self)
    def isinf(self): return _ops.isinf(self)
    def isfinite(self): return _ops.isfinite(self)
    def prod(self, dim=None, keepdim: bool = False, *, dtype=None): return _ops.prod(self, dim, keepdim, dtype=dtype)
    def narrow(self, dim: int, start, length: int): return _ops.narrow(self, dim, start, length, method=True)
    def split(self, split_size, dim: int = 0): return _ops.split(self, split_size, dim)
    def chunk(self, chunks: int, dim: int = 0): return _ops.chunk(self, chunks, dim)

    def var(self, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
        return _ops.var(self, dim, unbiased, keepdim, correction=correction)

    def std(self, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
        return _ops.std(self, dim, unbiased, keepdim, correction=correction)

    # ------------------------------------------------------------------ used by real programs by others
    # in place, recorded with the out-of-place op's node (ExpBackward0...): see ops/inplace.py
    def exp_(self): return _ops.unary_(_ops.ExpInplace, self)
    def log_(self): return _ops.unary_(_ops.LogInplace, self)
    def sin_(self): return _ops.unary_(_ops.SinInplace, self)
    def cos_(self): return _ops.unary_(_ops.CosInplace, self)
    def tanh_(self): return _ops.unary_(_ops.TanhInplace, self)
    def sigmoid_(self): return _ops.unary_(_ops.SigmoidInplace, self)
    def relu_(self): return _ops.unary_(_ops.ReluInplace, self)
    def sqrt_(self): return _ops.unary_(_ops.SqrtInplace, self)
    def abs_(self): return _ops.unary_(_ops.AbsInplace, self)
    def neg_(self): return _ops.unary_(_ops.NegInplace, self)
    def sign_(self): return _ops.unary_(_ops.SignInplace, self)
    def clamp_(self, min=None, max=None): return _ops.clamp_(self, min, max)
    clip_ = clamp_
    def masked_fill_(self, mask, value): return _ops.masked_fill_(self, mask, value)
    def scatter_add_(self, dim: int, index, src): return _ops.scatter_add_(self, dim, index, src)
    def uniform_(self, from_: float = 0.0, to: float = 1.0, *, generator=None): return _ops.uniform_(self, from_, to)
    def normal_(self, mean: float = 0.0, std: float = 1.0, *, generator=None): return _ops.normal_(self, mean, std)

    # comparison and selection, products, scans and reductions, pieces
    def sign(self): return _ops.Signum.apply(self)
    def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return _ops.isclose(self, other, rtol, atol, equal_nan)

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return _ops.allclose(self, other, rtol, atol, equal_nan)

    def flip(self, *dims, **kwargs):
        if "dims" in kwargs:   # x.flip(dims=[0])
            dims = (kwargs.pop("dims"),)
        if kwargs:
            raise TypeError(f"flip() got an unexpected keyword argument '{next(iter(kwargs))}'")
        return _ops.flip(self, dims[0] if len(dims) == 1 and isinstance(dims[0], (list, tuple)) else dims)

    def masked_select(self, mask): return _ops.masked_select(self, mask)
    def index_select(self, dim: int, index): return _ops.index_select(self, dim, index)
    def addmm(self, mat1, mat2, *, beta=1, alpha=1): return _ops.addmm(self, mat1, mat2, beta=beta, alpha=alpha)
    def cumsum(self, dim=None, *, dtype=None): return _ops.cumsum(self, dim, dtype)
    def norm(self, p="fro", dim=None, keepdim: bool = False, dtype=None):
        return _ops.norm(self, p, dim, keepdim, dtype)

    def topk(self, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
        return _ops.topk(self, k, dim, largest, sorted)

    def gather(self, dim: int, index, *, sparse_grad: bool = False):
        return _ops.gather(self, dim, index, sparse_grad=sparse_grad)

    def scatter_add(self, dim: int, index, src): return _ops.scatter_add(self, dim, index, src)
    def unbind(self, dim: int = 0): return _ops.unbind(self, dim)
    def split_with_sizes(self, split_sizes, dim: int = 0): return _ops.split_with_sizes(self, split_sizes, dim)

    # new tensors like this one (same dtype unless told otherwise)
    def new(self, *args, **kwargs):
        """The legacy constructor of this tensor's type: ``x.new(2, 3)``, ``x.new([1, 2])``, ``x.new()``."""
        from .tensor_types import legacy_type_of
        return legacy_type_of(self.dtype)(*args, **kwargs)

    def new_tensor(self, data, *, dtype=None, device=None, requires_grad: bool = False):
        from .factories import tensor
        return tensor(data, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad: bool = False):
        from .factories import _shape, zeros
        return zeros(_shape(size, None, "new_zeros"), dtype=dtype or self.dtype, device=device,
                     requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, device=None, requires_grad: bool = False):
        from .factories import _shape, ones
        return ones(_shape(size, None, "new_ones"), dtype=dtype or self.dtype, device=device,
                     requires_grad=requires_grad)

    def new_empty(self, *size, dtype=None, device=None, requires_grad: bool = False):
        from .factories import _shape, empty
        return empty(_shape(size, None, "new_empty"), dtype=dtype or self.dtype, device=device,
                     requires_grad=requires_grad)

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad: bool = False):
        from .factories import full
        return full(size, fill_value, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)

    def type_as(self, other: "Tensor") -> "Tensor":
        """This tensor converted to ``other``'s dtype (itself when they already agree)."""
        return self.to(other.dtype)

    def cuda(self, device=None, non_blocking: bool = False, memory_format=None) -> "Tensor":
        from .cuda import not_available
        raise not_available("Tensor.cuda()")

    def __reduce_ex__(self, protocol):
        # pickle (and minigrad.save) store the values and requires_grad only, never the graph.
        from .serialization import reduce_tensor
        return reduce_tensor(self)

    # ------------------------------------------------------------------ sparse (dense tensors say no)
    def to_dense(self, dtype=None, *, masked_grad=None):
        if self.is_sparse:   # called as torch.Tensor.to_dense(s), as PyTorch's own tests do
            return type(self).to_dense(self, dtype, masked_grad=masked_grad)
        return self if dtype is None else self.to(dtype)

    def to_sparse(self, *args, **kwargs):
        """The sparse COO form (``minigrad/sparse/functions.py``): ``x.to_sparse()``, ``x.to_sparse(sparse_dim)``."""
        from .sparse.functions import to_sparse
        return to_sparse(self, *args, **kwargs)

    def to_sparse_coo(self):
        return self.to_sparse()

    def sparse_mask(self, mask):
        """This tensor kept where the sparse ``mask`` stores entries: a sparse tensor."""
        from .sparse.functions import sparse_mask
        return sparse_mask(self, mask)

    def sparse_dim(self) -> int:
        return 0

    def dense_dim(self) -> int:
        return self._data.ndim

    def is_coalesced(self):
        raise RuntimeError("is_coalesced expected sparse coordinate tensor layout but got Strided")

    def coalesce(self):
        raise RuntimeError("coalesce expected sparse coordinate tensor layout but got Strided")

    def indices(self):
        raise RuntimeError("indices expected sparse coordinate tensor layout but got Strided")

    def values(self):
        raise RuntimeError("values expected sparse tensor layout but got Strided")


def _check_assigned_grad(t: Tensor, value) -> None:
    """PyTorch's checks of ``x.grad = value``, in its order."""
    if value is t:
        raise RuntimeError("can't assign Variable as its own grad")
    if not isinstance(value, Tensor):
        raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
    if value._data.dtype != t._data.dtype:
        from .ops._util import _CPP_NAMES
        raise RuntimeError(
            f"attempting to assign a gradient with dtype '{_CPP_NAMES[value.dtype.name]}' to a tensor with grad_dtype "
            f"'{t.dtype.legacy_name[:-len('Tensor')]}'. The gradient must match the tensor's grad_dtype (defaults to "
            "the tensor's dtype). You can set the tensor's grad_dtype attribute with a specific dtype, or None to "
            "allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may break "
            "downstream systems that assume they match.")
    if value.shape != t.shape:
        raise RuntimeError(f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of size "
                           f"'{list(t.shape)}'. Please ensure that the gradient and the tensor are the same size")


def _truth(x: np.ndarray, truth) -> Tensor:
    """The result of ``all`` or ``any`` over ``x``: bool, or uint8 when x is uint8 (PyTorch's rule)."""
    return Tensor._make(np.asarray(truth, dtype=np.uint8 if x.dtype == np.uint8 else np.bool_))


# A tensor's numpy (shape, dtype), read in C: what autograd remembers of each input and output of a
# node, to check the gradients backward returns and to make the zeros of a missing one.
shape_and_dtype = operator.attrgetter("_data.shape", "_data.dtype")


def plain_alpha(alpha) -> bool:
    """True for ``alpha=1`` given as the int 1: ``add``/``sub`` (and their in-place forms) are then the
    plain ``a + b``/``a - b``. Any other value, 1.0 and True included, goes to the scaled Function,
    whose ``times_alpha`` checks it against the dtype as PyTorch does."""
    return type(alpha) is int and alpha == 1


class NotAnOperand(TypeError):
    """``_operand``'s error for a value that is neither a tensor nor a number (operators return
    NotImplemented on it, so that Python tries the other operand, then raises its own TypeError)."""


def _operand(value) -> Tensor:
    """Python numbers become 0-dim 'wrapped number' tensors, as in PyTorch (they never require grad)."""
    if isinstance(value, Tensor):
        return value
    if type(value) is float or type(value) is int or isinstance(value, (int, float, np.number)):   # bool, subclasses
        t = object.__new__(Tensor)   # Tensor._make, written out: ``lr * p.grad`` makes one per parameter
        t._data, t._version_counter, t._wrapped_number = np.asarray(value), VersionCounter(), True
        return t
    if isinstance(value, np.ndarray):
        return Tensor._make(value)
    raise NotAnOperand(f"unsupported operand type for a tensor operation: '{type(value).__name__}'")


def _dtype_argument(function: str, dim, dtype) -> DType:
    if not isinstance(dtype, DType):
        raise TypeError(f"{function}(): argument 'dtype' (position 2) must be torch.dtype, not {type(dtype).__name__}")
    return dtype


def _argument(value, method: str) -> Tensor:
    """``value`` as the operand of the method ``method`` (``x.add(value)``), or PyTorch's TypeError."""
    try:
        return _operand(value)
    except NotAnOperand:
        raise TypeError(f"{method}(): argument 'other' (position 1) must be Tensor, not {type(value).__name__}") from None


# Imported last: autograd and ops define Functions and nodes, which need the Tensor class above.
from .autograd.graph import AccumulateGrad, RemovableHandle  # noqa: E402
from . import ops as _ops  # noqa: E402
from .autograd.engine import run_backward  # noqa: E402
from .autograd import views as _views  # noqa: E402
from .inventory import MissingMethod, not_writable, refuse_missing_methods  # noqa: E402


def refuse_writes(cls: type) -> None:
    """PyTorch's read-only tensor attributes refuse ``x.shape = ...`` and ``del x.grad_fn`` with one text
    (``not_writable``): every property of ``cls`` without a setter or a deleter gets one that raises it."""
    for name, value in list(vars(cls).items()):
        if isinstance(value, property) and (value.fset is None or value.fdel is None):
            def refuse(self, *value, name=name):
                raise not_writable(self, name)
            setattr(cls, name, property(value.fget, value.fset or refuse, value.fdel or refuse, value.__doc__))


refuse_writes(Tensor)
refuse_missing_methods(Tensor, "torch.Tensor")
