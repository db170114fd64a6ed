"""Function and ctx: how a custom operation joins the backward graph.

A ``Function`` subclass is a *recipe*: two static methods, ``forward`` and ``backward``. It is
never instantiated. Every call ``MyFunction.apply(...)`` creates a fresh **ctx**, and that ctx is
an instance of a node class generated once per Function, ``MyFunctionBackward``. The same
object becomes the output's ``grad_fn``: ctx *is* the backward node. minigrad's own operations
(``x * y``, ``x.sum()``... in ``minigrad/ops``) are ``Function`` subclasses too, written the same way:
the *builtin* Functions, whose nodes take PyTorch's names (``MulBackward0``).

>>> import minigrad as torch
>>> from minigrad.autograd import Function
>>> class MulConstant(Function):
...     @staticmethod
...     def forward(ctx, tensor, constant):
...         ctx.constant = constant           # a plain attribute: not a tensor
...         return tensor * constant
...     @staticmethod
...     def backward(ctx, grad_output):
...         return grad_output * ctx.constant, None   # no gradient for the constant
>>> x = torch.ones(3, requires_grad=True)
>>> y = MulConstant.apply(x, 10)
>>> type(y.grad_fn).__name__, y.grad_fn.constant
('MulConstantBackward', 10)
>>> y.sum().backward(); x.grad
tensor([10., 10., 10.])
"""
from __future__ import annotations

import functools
import inspect
import warnings
import weakref
from typing import Any, Callable

import numpy as np

from .. import grad_mode
from . import anomaly_mode
from ..inventory import not_writable
from ..tensor import Tensor, shape_and_dtype
from .graph import Node, _sequence_numbers
from .listeners import _APPLY_ANY, _APPLY_END, _APPLY_START, notify
from .saved import BACKWARD_TWICE, SavedTensor

# Grad mode, the flag torch.no_grad() turns off: apply reads it on every call, and around forward
# sets it by hand, as `with torch.no_grad():` would (making that context manager on every call
# cost about a tenth of a small training step: bench/bench_peers.py's plain step).
_grad_state = grad_mode.state

ACCESSED_ONCE = (
    "saved_tensors can only be accessed once when clear_saved_tensors_on_access=True is set on the "
    "autograd.Function. Either access saved_tensors only once, or set clear_saved_tensors_on_access=False.")


class FunctionCtx:
    """The methods forward calls on ctx to tell autograd what it needs (in the separate style,
    ``setup_context`` calls them: see ``Function``). Each one only stores what it is told; ``apply``
    acts on it once forward has returned (``_wrap_outputs``, ``_save_tensors``).

    ctx is also the backward node, of a class derived from ``BackwardCFunction``, which documents
    the attribute apply fills in before forward runs: ``needs_input_grad``.
    """

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        """Keep these tensors for backward, where ``ctx.saved_tensors`` returns them.

        Only tensors (or None) may be saved; anything else goes on ctx as a plain attribute. A second
        call replaces the first. Saved tensors are checked against in-place changes and freed after
        backward, which a plain attribute never is.

        >>> import minigrad as torch
        >>> class MulAdd(torch.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x, y, z):
        ...         ctx.save_for_backward(x, y)   # tensors: checked and freed by autograd
        ...         ctx.z = z                     # anything else: a plain attribute
        ...         return x * y + z
        ...     @staticmethod
        ...     def backward(ctx, grad_output):
        ...         x, y = ctx.saved_tensors
        ...         return grad_output * y, grad_output * x, None
        >>> x = torch.tensor([1., 2.], requires_grad=True)
        >>> y = torch.tensor([3., 4.], requires_grad=True)
        >>> MulAdd.apply(x, y, 10).sum().backward()
        >>> x.grad, y.grad
        (tensor([3., 4.]), tensor([1., 2.]))
        """
        self.to_save = tensors

    def mark_dirty(self, *args: Tensor) -> None:
        """Declare inputs that forward modified in place (they must be returned as outputs).

        Their version counter goes up (``apply`` does it once forward has returned), so that anything
        saved before the change refuses to be used:

        >>> import minigrad as torch
        >>> class AddOne_(torch.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         x.numpy()[...] += 1    # changes its input's memory behind autograd's back...
        ...         ctx.mark_dirty(x)      # ...and says so: x's version goes up
        ...         return x               # a dirty input must be returned
        ...     @staticmethod
        ...     def backward(ctx, grad_output):
        ...         return grad_output
        >>> a = torch.ones(2, requires_grad=True).clone()
        >>> b = a * a                      # MulBackward0 saved a at version 0
        >>> c = AddOne_.apply(a)
        >>> c is a, a._version, a.grad_fn.name()
        (True, 1, 'AddOne_Backward')
        >>> b.sum().backward()             # doctest: +ELLIPSIS
        Traceback (most recent call last):
          ...
        RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: ...
        """
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args: Tensor) -> None:
        """Declare outputs that carry no gradient, such as integer indices.

        They get no ``grad_fn``; backward still receives one gradient per output (zeros, or None
        with ``set_materialize_grads(False)``) for them.

        >>> import minigrad as torch
        >>> class Sort(torch.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         values, idx = x.sort()
        ...         ctx.mark_non_differentiable(idx)   # positions: no gradient
        ...         ctx.save_for_backward(idx)
        ...         return values, idx
        ...     @staticmethod
        ...     def backward(ctx, g_values, g_idx):    # still one argument per output
        ...         idx, = ctx.saved_tensors
        ...         grad_input = torch.zeros_like(g_values)
        ...         grad_input.index_add_(0, idx, g_values)
        ...         return grad_input
        >>> x = torch.tensor([3., 1., 2.], requires_grad=True)
        >>> values, idx = Sort.apply(x)
        >>> values.requires_grad, idx.requires_grad
        (True, False)
        >>> (values * torch.tensor([1., 10., 100.])).sum().backward(); x.grad
        tensor([100.,   1.,  10.])
        """
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        """With ``False``, gradients of unused outputs reach backward as None instead of zeros.

        >>> import minigrad as torch
        >>> class Twice(torch.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.set_materialize_grads(False)
        ...         return x.clone(), x.clone()
        ...     @staticmethod
        ...     def backward(ctx, g1, g2):
        ...         print("g2 is", g2)                # None: the second output was not used
        ...         return g1 if g2 is None else g1 + g2
        >>> x = torch.ones(2, requires_grad=True)
        >>> first, _ = Twice.apply(x)
        >>> first.sum().backward()
        g2 is None
        >>> x.grad
        tensor([1., 1.])
        """
        if not isinstance(value, bool):   # PyTorch's argument parser takes a bool and nothing else
            raise TypeError("set_materialize_grads received an invalid combination of arguments - got (), "
                            "but expected (bool)")
        self.materialize_grads = value

    def save_for_forward(self, *tensors: Tensor | None) -> None:
        """Keep tensors for a ``jvp`` (forward-mode AD, which minigrad does not run); stored only."""
        self.saved_for_forward = tensors


class BackwardCFunction(Node, FunctionCtx):
    """Base class of every generated ``<Name>Backward`` node class: the type of ctx.

    The name is PyTorch's (its ``torch.autograd.function.BackwardCFunction``; the C stands for the
    C++ node it wraps there). Its ``apply`` runs the Function's *backward*: the engine calls
    ``node.apply(*grad_outputs)``, as PyTorch's engine calls ``Node::apply``. Do not confuse it
    with ``Function.apply``, the class method that runs *forward* and makes this node.

    Besides the ``FunctionCtx`` methods, ctx has an attribute that apply fills in before forward runs:

    ``needs_input_grad``: a tuple with one bool per argument of forward, True where a gradient is
    needed (a tensor that requires grad). Backward may skip the work for the others and return None:

    >>> import minigrad as torch
    >>> class Mul(torch.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x, y):
    ...         print(ctx.needs_input_grad)
    ...         ctx.save_for_backward(x, y)
    ...         return x * y
    ...     @staticmethod
    ...     def backward(ctx, grad_output):
    ...         x, y = ctx.saved_tensors
    ...         grad_x = grad_output * y if ctx.needs_input_grad[0] else None
    ...         grad_y = grad_output * x if ctx.needs_input_grad[1] else None
    ...         return grad_x, grad_y
    >>> w = torch.ones(2, requires_grad=True)
    >>> out = Mul.apply(w, torch.tensor([3., 4.]))
    (True, False)
    >>> out.sum().backward(); w.grad
    tensor([3., 4.])
    """

    _forward_cls: type                  # the Function class whose backward this node runs (PyTorch's name)
    _class_in_errors = "torch._C._FunctionBase"   # "attribute 'metadata' of 'torch._C._FunctionBase' objects..."
    # What forward (or setup_context) tells ctx; apply reads them once forward has returned.
    to_save: tuple | None = None
    dirty_tensors: tuple | None = None
    non_differentiable: tuple | None = None
    materialize_grads: bool = True
    needs_input_grad: tuple = ()        # set by apply for each call (see the class docstring)
    requires_grad = True                # PyTorch's ctx.requires_grad: True on every ctx (PyTorch 2.13)
    # Filled in by apply when the node is recorded (``_connect_to_inputs``, ``_wrap_outputs``).
    _sequence_nr: int = 0
    _input_info: list = []              # for each argument: numpy (shape, dtype) if a tensor, else None
    _output_info: tuple = ()            # numpy (shape, dtype) of each output, None for non-tensors
    _saved: tuple | None = ()           # SavedTensor records; None once freed
    _freed_slots: tuple | None = None   # once freed: which saved slots held a tensor (for minigrad.viz's pictures)
    _saved_accessed: bool = False       # set when clear_saved_tensors_on_access released them
    _dirty_refs: tuple = ()             # weak references to the outputs marked dirty (for minigrad.viz's pictures)
    _non_differentiable_refs: tuple = ()  # ... and to those marked non-differentiable
    _non_differentiable_slots: tuple = ()     # positions of the outputs marked non-differentiable
    # PyTorch's private ctx flag (torch.compile's aot_autograd sets it): False gives the outputs
    # marked non-differentiable None instead of zeros in backward, even when materialize_grads is on.
    _materialize_non_diff_grads: bool = True

    def apply(self, *grad_outputs: Tensor | None) -> Any:
        """Run the Function's backward with this node as ctx (the engine calls this; not Function.apply)."""
        return self._forward_cls.backward(self, *grad_outputs)

    @property
    def saved_tensors(self) -> tuple:
        """The tensors given to ``save_for_backward``, checked against in-place changes.

        Each is the tensor that was saved, as long as its version is the one it had then; after
        backward has freed them (without ``retain_graph=True``), reading them raises.

        >>> import minigrad as torch
        >>> class Mul(torch.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x, y):
        ...         ctx.save_for_backward(x, y)
        ...         return x * y
        ...     @staticmethod
        ...     def backward(ctx, grad_output):
        ...         x, y = ctx.saved_tensors
        ...         return grad_output * y, grad_output * x
        >>> x = torch.tensor([1., 2.], requires_grad=True)
        >>> y = torch.tensor([3., 4.], requires_grad=True)
        >>> out = Mul.apply(x, y)
        >>> a, b = out.grad_fn.saved_tensors
        >>> a is x, b is y
        (True, True)
        >>> with torch.no_grad():
        ...     _ = x.mul_(2)                    # x is at version 1 now
        >>> out.sum().backward()                 # doctest: +ELLIPSIS
        Traceback (most recent call last):
          ...
        RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [2]] is at version 1; expected version 0 instead. ...

        A Function class with ``clear_saved_tensors_on_access = True`` lets go of them at the first
        read, so that backward can free their memory as soon as it drops its own references.
        """
        saved = self._saved
        if saved is None:
            raise RuntimeError(ACCESSED_ONCE if self._saved_accessed else BACKWARD_TWICE)
        tensors = tuple([None if s is None else s.unpack(self) for s in saved])
        if self._forward_cls.clear_saved_tensors_on_access:
            self._saved, self._saved_accessed = None, True
        return tensors

    @property
    def saved_variables(self) -> tuple:
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning,
                      stacklevel=2)
        return self.saved_tensors

    @property
    def _raw_saved_tensors(self) -> tuple | None:
        """The saved tensors without any check (None after backward freed them): see ``node_info``."""
        if self._saved is None:
            return None
        return tuple(None if s is None else s.tensor for s in self._saved)

    @property
    def _input_positions(self) -> tuple:
        """For each edge in ``next_functions``, the position of its argument among forward's arguments."""
        return tuple([i for i, info in enumerate(self._input_info) if info is not None])

    @property
    def _saved_names(self) -> tuple:
        return self._forward_cls._saved_names

    def _release_saved(self) -> None:
        """Free the saved tensors once backward has used them (PyTorch's ``release_variables``)."""
        if self._saved:
            self._freed_slots = tuple(map(bool, self._saved))   # a record is true, a slot given None false
            self._saved = None


class _SavedTensorAttribute:
    """``node._saved_self`` and friends: one saved tensor of a builtin node, by PyTorch's name.
    Like PyTorch's, it can be read, never set or deleted."""

    def __init__(self, index: int, name: str) -> None:
        self.index, self.name = index, name

    def __get__(self, node, owner=None):
        return self if node is None else node.saved_tensors[self.index]

    def __set__(self, node, value=None) -> None:
        raise not_writable(node, self.name)

    __delete__ = __set__


class _RawSavedTensorAttribute(_SavedTensorAttribute):
    """``node._raw_saved_self``: PyTorch's ``SavedTensor`` object, whose pack/unpack hooks minigrad lacks."""

    def __get__(self, node, owner=None):
        if node is None:
            return self
        raise NotImplementedError(f"minigrad does not implement {self.name} (PyTorch's SavedTensor objects, with "
                                  f"register_hooks). Instead: {self.name.replace('_raw', '', 1)}")


def _builtin_node_repr(self) -> str:
    return f"<{type(self).__name__} object at {hex(id(self))}>"


class FunctionMeta(type):
    """Generates, once per Function subclass, the node class its ctx objects are made from."""

    def __init__(cls, name: str, bases: tuple, attrs: dict) -> None:
        super().__init__(name, bases, attrs)
        cls._backward_cls = _node_class(cls, attrs.get("_node_name") or name + ("Backward0" if cls._is_builtin else "Backward"))
        if not bases:
            return   # Function itself: the checks below compare a subclass with it
        if "vjp" in attrs:   # vjp is PyTorch's other name for backward
            cls.backward = _both_backward_and_vjp if "backward" in attrs else attrs["vjp"]
        # The separate style (forward + setup_context) is recognised by an overridden setup_context.
        cls._uses_setup_context = cls.setup_context is not Function.setup_context


def _node_class(cls, node_name: str) -> type:
    """The ``<Name>Backward`` class: a ``BackwardCFunction`` (or the Function's ``_node_base``, a
    subclass of it) that knows its Function as ``_forward_cls``."""
    namespace = {"_forward_cls": cls, "__module__": __name__, "__qualname__": node_name}
    # Builtin nodes expose their saved tensors as _saved_self, _saved_other, _saved_result...
    for index, saved_name in enumerate(getattr(cls, "_saved_names", ())):
        namespace["_saved_" + saved_name] = _SavedTensorAttribute(index, "_saved_" + saved_name)
        namespace["_raw_saved_" + saved_name] = _RawSavedTensorAttribute(index, "_raw_saved_" + saved_name)
    is_builtin = namespace["_is_builtin"] = getattr(cls, "_is_builtin", False)   # (ctx._is_builtin: apply reads it)
    if is_builtin:
        namespace["__repr__"] = _builtin_node_repr   # PyTorch prints <MulBackward0 object at ...>
    # A builtin node that receives no gradient at all sends none on (no zeros are invented).
    namespace["_skips_without_gradients"] = is_builtin and not getattr(cls, "_runs_without_gradients", False)
    return type(node_name, (getattr(cls, "_node_base", BackwardCFunction),), namespace)


@staticmethod   # FunctionMeta makes it the backward of such a class
def _both_backward_and_vjp(ctx, *grad_outputs):
    """The backward of a Function that defines both ``backward`` and ``vjp``: PyTorch refuses it only
    when backward runs, not when the class is made."""
    raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You "
                       "should only implement one of them.")


class Function(metaclass=FunctionMeta):
    """Base class for operations that know their own gradient.

    Subclass it with a static ``forward`` and a static ``backward`` and call ``.apply``. Two styles:

    - combined: ``forward(ctx, *args)`` stores what backward needs on ctx;
    - separate: ``forward(*args)`` computes, then ``setup_context(ctx, inputs, output)`` stores.

    >>> import minigrad as torch
    >>> class Square(torch.autograd.Function):
    ...     @staticmethod
    ...     def forward(x):
    ...         return x * x
    ...     @staticmethod
    ...     def setup_context(ctx, inputs, output):
    ...         x, = inputs
    ...         ctx.save_for_backward(x)
    ...     @staticmethod
    ...     def backward(ctx, grad_output):
    ...         x, = ctx.saved_tensors
    ...         return 2 * x * grad_output
    >>> x = torch.tensor([3.0], requires_grad=True)
    >>> Square.apply(x).backward(); x.grad
    tensor([6.])
    """

    _is_builtin = False                     # True for minigrad's own operations (minigrad/ops)
    _saved_names: tuple = ()
    _uses_setup_context = False             # set by FunctionMeta for each subclass
    clear_saved_tensors_on_access = False   # True: saved_tensors may be read once, then released
    generate_vmap_rule = False              # PyTorch's vmap support, which minigrad does not have

    def __init__(self, *args, **kwargs) -> None:
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions are all "
            "static, so you should invoke them on the class itself. Instantiating an autograd "
            "function will raise an error in a future version of PyTorch.", DeprecationWarning,
            stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        """Compute the outputs from the inputs. Override it."""
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:
        """Separate style only: store on ctx what backward needs. Override it (or don't)."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        """Return one gradient per forward input (None for non-tensors). Override it."""
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function "
            "to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        """Forward-mode AD: PyTorch calls it under ``torch.autograd.forward_ad``; minigrad never does."""
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with forward mode "
            "AD. (minigrad does not implement forward-mode AD at all: torch.autograd.forward_ad.)")

    @staticmethod
    def vmap(info: Any, in_dims: Any, *args: Any) -> Any:
        """PyTorch's batching rule for ``torch.vmap``, which minigrad does not implement."""
        raise NotImplementedError("minigrad does not implement vmap (torch.vmap, torch.func), so "
                                  "autograd.Function.vmap and generate_vmap_rule are not used.")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run forward and, if any tensor input requires grad, record a node for backward.

        Four parts: (1) line the arguments up by position: bind them to forward's signature in the
        separate style, move keyword arguments to their positions in the combined style; (2) make
        ctx, an instance of the node class ``cls._backward_cls``; (3) set ``needs_input_grad`` and,
        if grad mode is on and some input needs a gradient, record the node and its edges
        (``next_functions``); (4) run forward with grad mode off (then ``setup_context``), and wrap
        the outputs (``grad_fn = ctx``).

        One shortcut comes first: a builtin in no-grad mode, called without keyword arguments, with no
        listener registered (the operations of a backward formula, an optimizer's ``p -= lr * p.grad``),
        can record nothing, so apply only makes its ctx, tells it that no input needs a gradient and
        runs forward. A builtin's forward returns new tensors or views, never an input it did not mark
        dirty (tests/ops and tests/opinfo check that promise): there is nothing to wrap.
        """
        if not (_grad_state.enabled or kwargs or _APPLY_ANY) and cls._is_builtin:
            ctx = cls._backward_cls()                     # nothing can be recorded: ctx and forward only
            ctx.needs_input_grad = (False,) * len(args)   # (forward then saves nothing)
            result = cls.forward(ctx, *args)
            return result if ctx.dirty_tensors is None else _unrecorded_in_place(ctx, args, result)
        if cls._uses_setup_context:
            args = _bind_arguments(cls, args, kwargs)        # setup_context sees every argument
        elif kwargs:
            args = _keywords_to_positions(cls, args, kwargs)   # a tensor passed by keyword gets its edge
        if _APPLY_START:
            notify(_APPLY_START, cls, args)
        ctx = cls._backward_cls()                     # ctx IS the backward node: a <Name>Backward
        is_recorded = _connect_to_inputs(ctx, args)   # needs_input_grad, next_functions
        grad_enabled, _grad_state.enabled = _grad_state.enabled, False   # torch.no_grad(), written out (see
        try:                                          # _grad_state): forward's own operations are not recorded
            if cls._uses_setup_context:
                outputs = _forward_then_setup_context(cls, ctx, args)
            else:
                outputs = cls.forward(ctx, *args)     # the combined style: forward gets ctx
        finally:
            _grad_state.enabled = grad_enabled
        # Unrecorded, a builtin's own new tensors (or views), nothing marked dirty, have nothing to wrap.
        if is_recorded or not ctx._is_builtin or ctx.dirty_tensors is not None:
            outputs = _wrap_outputs(ctx, args, outputs, is_recorded)   # grad_fn = ctx, saved tensors checked
        if _APPLY_END:
            notify(_APPLY_END, cls, ctx, args, outputs)
        return outputs


# ---------------------------------------------------------------------------- apply's steps
def _bind_arguments(cls, args: tuple, kwargs: dict) -> tuple:
    """Every argument of forward by position, defaults included: setup_context gets them as ``inputs``."""
    bound = _forward_signature(cls).bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.args


def _forward_signature(cls) -> inspect.Signature:
    signature = cls.__dict__.get("_forward_signature")
    if signature is None:   # computed once per class: binding arguments needs it on every call
        signature = cls._forward_signature = inspect.signature(cls.forward)
    return signature


_MISSING = object()


def _keywords_to_positions(cls, args: tuple, kwargs: dict) -> tuple:
    """The combined style called with keyword arguments: as in PyTorch, each one takes its place among
    forward's parameters after ctx, so that a tensor passed by keyword gets an edge and a
    ``needs_input_grad`` entry like a positional one. The places must follow the positional arguments
    without a gap: defaults are not filled in (PyTorch's rule and error texts).
    """
    names = [p.name for p in _forward_signature(cls).parameters.values()
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)][1:]   # [0] is ctx
    slots = list(args) + [_MISSING] * (len(names) - len(args))
    for name, value in kwargs.items():
        if name not in names:
            raise TypeError(f"forward() got an unexpected keyword argument '{name}'")
        if names.index(name) < len(args):
            raise TypeError(f"forward() got multiple values for argument '{name}'")
        slots[names.index(name)] = value
    end = 1 + max(names.index(name) for name in kwargs)
    for position in range(len(args), end):
        if slots[position] is _MISSING:
            raise TypeError(f"forward() missing required argument: '{names[position]}' (position {position})")
    return tuple(slots[:end])


def _tensor_requires_grad(value) -> bool:
    """``value.requires_grad`` for a tensor (False for anything else), read without the ``grad_fn``
    property: for a view whose base changed in place, that property makes a new node (or raises).

    As in PyTorch, a view made under ``no_grad`` of a tensor that requires grad requires grad too.
    """
    if not isinstance(value, Tensor):
        return False
    if value._requires_grad or value._node is not None:
        return True
    return value._view_base is not None and value._view_base.requires_grad


def _connect_to_inputs(ctx: BackwardCFunction, args: tuple) -> bool:
    """Set ``ctx.needs_input_grad`` (for each argument: does it require grad?) and, if grad mode is on
    and one does, record ctx as a node of the graph, with one edge per tensor argument: where that
    argument's gradient goes. Return whether ctx was recorded.

    In no-grad mode (under ``no_grad``, or inside a backward that builds no graph) no node is
    recorded. minigrad's own operations read ``needs_input_grad`` only to choose what to save for a
    backward that will then not run: they are told that nothing needs a gradient.
    """
    if not _grad_state.enabled:
        ctx.needs_input_grad = ((False,) * len(args) if ctx._is_builtin
                                else tuple([_tensor_requires_grad(arg) for arg in args]))
        return False
    needs_input_grad, edges, input_info = [], [], []
    for arg in args:
        if not isinstance(arg, Tensor):
            needs_input_grad.append(False)   # a number, a shape...: no gradient, no edge
            input_info.append(None)
            continue
        # A view's grad_fn is a property: a new node if its base changed in place (see views.py).
        grad_fn = arg._node if arg._view_base is None else arg.grad_fn
        if grad_fn is not None:
            edges.append((grad_fn, arg._output_nr))      # made by an operation: that operation's node
            needs_input_grad.append(True)
        elif arg._requires_grad:
            edges.append((arg._grad_accumulator(), 0))   # a leaf that requires grad: its AccumulateGrad
            needs_input_grad.append(True)
        else:
            edges.append((None, 0))                      # no gradient goes anywhere from here...
            needs_input_grad.append(_tensor_requires_grad(arg))   # ...though a view made under no_grad may require grad
        input_info.append(shape_and_dtype(arg))
    ctx.needs_input_grad = tuple(needs_input_grad)
    if True not in needs_input_grad:
        return False   # no argument requires grad: the outputs will not either
    ctx._sequence_nr = next(_sequence_numbers)   # recorded: a place in the graph, and in the ready order
    ctx._next_functions = tuple(edges)   # what ctx.next_functions shows (read-only there, as in PyTorch)
    ctx._input_info = input_info
    if anomaly_mode.state.enabled:
        anomaly_mode.record_forward(ctx)   # the stack of this forward call, for errors in backward
    return True


def _unrecorded_in_place(ctx: BackwardCFunction, args: tuple, outputs: Any) -> Any:
    """apply's shortcut, when forward marked something dirty: an input changed in place and returned
    alone (``p -= lr * p.grad``) only gets its new version; other marks go through ``_wrap_outputs``."""
    dirty = ctx.dirty_tensors
    if len(dirty) == 1 and dirty[0] is outputs:
        outputs._version_counter.value += 1
        return outputs
    return _wrap_outputs(ctx, args, outputs, False)


def _forward_then_setup_context(cls, ctx: BackwardCFunction, args: tuple) -> Any:
    """The separate style: ``forward(*args)`` computes, then ``setup_context(ctx, inputs, output)``
    stores on ctx what backward needs (``args`` holds every argument, bound by position)."""
    outputs = cls.forward(*args)
    cls.setup_context(ctx, args, outputs)
    return outputs


# ---------------------------------------------------------------------------- wrapping the outputs
def _wrap_outputs(ctx: BackwardCFunction, args: tuple, outputs: Any, is_recorded: bool) -> Any:
    """Connect forward's outputs to ctx (``grad_fn = ctx``) and turn ``ctx.to_save`` into checked records.

    Each tensor output follows the rules of ``_wrap_output``: an input returned unchanged comes back
    as a new tensor (a custom Function's: a builtin returns none), an input marked dirty gets a new
    version (and, when recorded, a new history), an output marked non-differentiable or of an integer
    dtype gets no ``grad_fn``. One common case goes quicker: one tensor with nothing marked.
    """
    if type(outputs) is Tensor and ctx.non_differentiable is None and ctx.dirty_tensors is None:   # the common case
        if is_recorded:
            if outputs._view_base is not None or (not ctx._is_builtin and id(outputs) in map(id, args)):
                # a view, or an input returned (a builtin never returns one: see apply)
                outputs = _wrap_output(ctx, args, outputs, 0, True)
            elif outputs._data.dtype.kind in "fc":   # a new tensor: it only needs its grad_fn
                outputs._node, outputs._output_nr, outputs._requires_grad = ctx, 0, False
            ctx._output_info = (shape_and_dtype(outputs),)
            if ctx.to_save is not None:
                _save_tensors(ctx)
        else:   # a custom Function's output, or an input returned (apply passes a builtin's own by)
            outputs = _wrap_output(ctx, args, outputs, 0, False)
        return outputs
    raw = outputs if isinstance(outputs, tuple) else (outputs,)
    dirty, non_differentiable = ctx.dirty_tensors or (), ctx.non_differentiable or ()
    _check_marked_dirty(dirty, args, raw, is_recorded)
    n_tensors = sum(isinstance(out, Tensor) for out in raw)
    wrapped = [_wrap_output(ctx, args, out, output_nr, is_recorded, n_tensors) if isinstance(out, Tensor) else out
               for output_nr, out in enumerate(raw)]
    if is_recorded:
        _remember_marks(ctx, raw, dirty, non_differentiable)
        ctx._output_info = tuple(shape_and_dtype(o) if isinstance(o, Tensor) else None for o in wrapped)
        if ctx.to_save is not None:
            _save_tensors(ctx)
    ctx.dirty_tensors = ctx.non_differentiable = None   # PyTorch empties them once the outputs are wrapped
    return tuple(wrapped) if isinstance(outputs, tuple) else wrapped[0]


def _wrap_output(ctx: BackwardCFunction, args: tuple, out: Tensor, output_nr: int, is_recorded: bool,
                 n_tensor_outputs: int = 1) -> Tensor:
    """One tensor output of forward: ``grad_fn = ctx`` when a node is recorded (None for an output
    that carries no gradient)."""
    dirty = ctx.dirty_tensors is not None and _is_one_of(out, ctx.dirty_tensors)
    non_differentiable = ctx.non_differentiable is not None and _is_one_of(out, ctx.non_differentiable)
    if dirty:
        if _changed_in_place(ctx, args, out, is_recorded, n_tensor_outputs):
            return out   # a view: views.rebase_view gave it and its base their new histories
    elif _is_one_of(out, args):
        out = _returned_input(out, is_recorded)
    if out._view_base is not None and not dirty:
        _views.mark_custom_function_output(ctx, out)
    if is_recorded:
        out.grad_fn = ctx if out._data.dtype.kind in "fc" and not non_differentiable else None
        out._output_nr = output_nr
        out._requires_grad = False   # not a leaf any more: it requires grad through its grad_fn
    return out


def _changed_in_place(ctx: BackwardCFunction, args: tuple, out: Tensor, is_recorded: bool,
                      n_tensor_outputs: int) -> bool:
    """An output marked dirty: its version goes up, so that anything saved before the change refuses
    to be used. Return True for a view changed while recording: its base's history is rewritten too."""
    if is_recorded and out._node is None and out._requires_grad:
        raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
    out._version_counter.value += 1
    if is_recorded and out._view_base is not None:
        _views.rebase_view(out, ctx, args, n_tensor_outputs)
        return True
    return False


def _returned_input(tensor: Tensor, is_recorded: bool) -> Tensor:
    """An input returned unchanged comes back as a new tensor object, as in PyTorch: a view of it
    (which gets ``grad_fn = ctx`` when recorded), or a detached alias of an input that requires grad
    when no graph is recorded (under ``no_grad``)."""
    return tensor.detach() if not is_recorded and tensor.requires_grad else tensor._alias()


def _check_marked_dirty(dirty: tuple, args: tuple, outputs: tuple, is_recorded: bool) -> None:
    """PyTorch's checks of ``ctx.mark_dirty``: only inputs, and each one returned.

    A tensor that is not an input gets a warning only while a graph is recorded, and only if it is
    not a view: a view that is not an input is refused by ``views.rebase_view`` with the same text.
    """
    for t in dirty:
        if is_recorded and t._view_base is None and not _is_one_of(t, args):
            warnings.warn("ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that "
                          "have been mutated should be passed to ctx.mark_dirty().", UserWarning, stacklevel=4)
        if not _is_one_of(t, outputs):
            raise RuntimeError(
                "Some elements marked as dirty during the forward method were not returned as output. "
                "The inputs that are modified inplace must all be outputs of the Function.")


def _remember_marks(ctx: BackwardCFunction, outputs: tuple, dirty: tuple, non_differentiable: tuple) -> None:
    """Keep what mark_dirty and mark_non_differentiable said, without holding the outputs (that would
    make a cycle: ctx -> output -> grad_fn = ctx): weak references for minigrad.viz's pictures, and
    the positions of the non-differentiable outputs for the engine (``set_materialize_grads`` and
    friends)."""
    ctx._dirty_refs = tuple(weakref.ref(t) for t in dirty)
    ctx._non_differentiable_refs = tuple(weakref.ref(t) for t in non_differentiable if isinstance(t, Tensor))
    if non_differentiable:
        ctx._non_differentiable_slots = tuple(i for i, out in enumerate(outputs)
                                              if _is_one_of(out, non_differentiable))


def _is_one_of(tensor: Any, tensors: tuple) -> bool:
    """``tensor in tensors`` by identity (``in`` would compare tensors element by element)."""
    for t in tensors:
        if t is tensor:
            return True
    return False


def _save_tensors(ctx: BackwardCFunction) -> None:
    """Turn ``ctx.to_save`` into checked ``SavedTensor`` records (see saved.py).

    A saved tensor is an *output* when its grad_fn is ctx itself (PyTorch's rule), or when it is a
    view that ctx changed in place (its grad_fn is now AsStridedBackward0, which leads to ctx through
    its base's CopySlices). An input that forward returned is not, since it came back as a new tensor
    (``_returned_input``).
    """
    records = []
    for index, tensor in enumerate(ctx.to_save):
        if isinstance(tensor, Tensor):   # is it an output? (read _node: the grad_fn property may make a new node)
            is_output = tensor._node is ctx or (tensor._view_base is not None and ctx.dirty_tensors is not None
                                                and _is_one_of(tensor, ctx.dirty_tensors))
            records.append(SavedTensor(tensor, is_output))
        elif tensor is None:
            records.append(None)
        else:
            raise TypeError(f"save_for_backward can only save variables, but argument {index} is of type "
                            f"{type(tensor).__name__}")
    ctx._saved, ctx.to_save = tuple(records), None


# ---------------------------------------------------------------------------- more Functions
class InplaceFunction(Function):
    """PyTorch's legacy base for Functions that may work in place: a Function with an ``inplace`` flag.

    The flag is set on an instance, which, as for every Function, is deprecated: the static
    ``forward`` and ``backward`` are what ``apply`` runs.
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()   # the DeprecationWarning every instantiated Function gives
        self.inplace = inplace


ONCE_DIFFERENTIABLE = "trying to differentiate twice a function that was marked with @once_differentiable"


def once_differentiable(backward: Callable) -> Callable:
    """Decorate a backward that cannot itself be differentiated (for example one written in numpy).

    It runs without recording a graph, so its gradients have no history. When the backward pass
    records one (``create_graph=True``), each gradient it returns is passed through an ``Error``
    node first: a later backward that reaches that node raises ``ONCE_DIFFERENTIABLE`` instead of
    silently using a wrong second derivative. As in PyTorch, the Error node's edges lead to detached
    aliases of the gradients made to require grad (new leaves sharing their data), never to the
    Function's inputs, so a pass that asks only for gradients of the inputs (``autograd.grad``) does
    not reach it.
    """
    @functools.wraps(backward)
    def wrapper(ctx, *grad_outputs):
        with grad_mode.no_grad():
            outputs = backward(ctx, *grad_outputs)
        if not _grad_state.enabled or not any(isinstance(g, Tensor) and g.requires_grad for g in grad_outputs):
            return outputs   # no graph is recorded: nothing to guard
        is_tuple = isinstance(outputs, tuple)
        items = outputs if is_tuple else (outputs,)
        # A None gradient is passed as _NO_GRADIENT, which Error's forward turns back into None.
        stand_ins = [g.detach().requires_grad_() if isinstance(g, Tensor) else _NO_GRADIENT for g in items]
        guarded = _DelayedError.apply(ONCE_DIFFERENTIABLE, *stand_ins)
        items = tuple(new if isinstance(g, Tensor) else g for g, new in zip(items, guarded))
        return items if is_tuple else items[0]
    return wrapper


class _DelayedError(Function):
    """The ``Error`` node after a once_differentiable backward: differentiating through it raises."""

    _node_name = "Error"   # PyTorch's name for this node
    _is_builtin = True
    _runs_without_gradients = True   # it must raise even when no gradient reaches it

    @staticmethod
    def forward(ctx, message, *tensors):
        ctx.message = message   # each gradient again, as a new tensor object (a builtin returns no input)
        return tuple(None if t is _NO_GRADIENT else t._alias() for t in tensors)

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(ctx.message)


_NO_GRADIENT = Tensor._make(np.zeros(()))   # a tensor that stands for a None gradient in Error's arguments


# views.py defines its two nodes (CopySlices, AsStridedBackward0) as Functions, so it can only be
# imported once Function exists; _wrap_output calls it when an output is a view.
from . import views as _views  # noqa: E402
