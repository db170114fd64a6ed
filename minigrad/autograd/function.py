"""Function and ctx: how a custom operation joins the backward graph.

A ``Function`` subclass is a *recipe*: two static methods, ``forward`` and ``backward``. It is
never instantiated. Every call ``MyFunction.apply(...)`` creates a fresh **ctx**, and that ctx is
an instance of a node class generated once per Function, ``MyFunctionBackward``. The same
object becomes the output's ``grad_fn``: ctx *is* the backward node.

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
import sys
import warnings
import weakref
from typing import Any, Callable

import numpy as np

from .. import grad_mode
from . import anomaly_mode
from ..tensor import Tensor
from .graph import Node, _sequence_numbers
from ..types import Size, from_numpy_dtype
from .saved import BACKWARD_TWICE, SavedTensor

_grad_state = grad_mode.state

# The names PyTorch itself defines on a ctx; everything else set on ctx is the user's own.
_CTX_MEMBERS = frozenset({"needs_input_grad", "next_functions", "to_save", "dirty_tensors",
                          "non_differentiable", "materialize_grads", "requires_grad"})


class FunctionCtx:
    """The methods forward (or setup_context) calls on ctx to tell autograd what it needs."""

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        """Keep these tensors for backward, where ``ctx.saved_tensors`` returns them.

        Only tensors (or None) may be saved. A second call replaces the first.
        """
        self.to_save = tensors

    def mark_dirty(self, *args: Tensor) -> None:
        """Declare inputs that forward modified in place (they must be returned as outputs)."""
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args: Tensor) -> None:
        """Declare outputs that carry no gradient, such as integer indices."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        """With ``False``, gradients of unused outputs reach backward as None instead of zeros."""
        self.materialize_grads = value

    def save_for_forward(self, *tensors: Tensor | None) -> None:
        """Keep tensors for a ``jvp`` (forward-mode AD, which minigrad does not run); stored only."""
        self.saved_for_forward = tensors


class BackwardCFunction(Node, FunctionCtx):
    """Base class of every generated ``<Name>Backward`` node class: the type of ctx."""

    _forward_cls: type
    to_save: tuple | None = None
    dirty_tensors: tuple | None = None
    non_differentiable: tuple | None = None
    materialize_grads: bool = True
    needs_input_grad: tuple = ()
    requires_grad: bool = False
    _saved: tuple | None = ()          # SavedTensor records; None once freed
    _dirty_refs: tuple = ()             # weak references to the outputs marked dirty (for pictures)
    _non_differentiable_refs: tuple = ()  # ... and to those marked non-differentiable
    _input_positions: tuple = ()        # for each next_functions entry: its argument position
    _input_info: list = []              # numpy (shape, dtype) of each tensor input
    _output_info: tuple = ()            # numpy (shape, dtype) of each output, None for non-tensors
    _sequence_nr: int = 0
    _materialize_non_diff_grads: bool = True  # False: outputs marked non-differentiable get None, not zeros
    _non_differentiable_slots: tuple = ()     # positions of the outputs marked non-differentiable
    _saved_accessed: bool = False             # set when clear_saved_tensors_on_access released them

    def apply(self, *grad_outputs: Tensor | None) -> Any:
        """Run the Function's backward with this node as ctx (the engine calls this)."""
        return self._forward_cls.backward(self, *grad_outputs)

    @property
    def saved_tensors(self) -> tuple:
        """The tensors given to ``save_for_backward``, checked against in-place changes.

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
        """The saved tensors without any check (None after backward freed them). For pictures."""
        if self._saved is None:
            return None
        return tuple(None if s is None else s.tensor for s in self._saved)

    @property
    def _output_meta(self) -> tuple:
        """``(torch.Size, dtype)`` of each output (None for non-tensor outputs)."""
        return tuple(None if info is None else (Size(info[0]), from_numpy_dtype(info[1]))
                     for info in self._output_info)

    @property
    def _saved_names(self) -> tuple:
        return self._forward_cls._saved_names

    def _release_saved(self) -> None:
        if self._saved:
            # Which slots held a tensor, so a picture can name what was freed (not the None slots).
            self._freed_slots = tuple([s is not None for s in self._saved])
            self._saved = None

    def _ctx_attributes(self) -> dict:
        """What the user's forward or setup_context stored on ctx, e.g. ``{'constant': 10}``."""
        return {k: v for k, v in vars(self).items() if not k.startswith("_") and k not in _CTX_MEMBERS}


class _SavedTensorAttribute:
    """``node._saved_self`` and friends: one saved tensor of a builtin node, by PyTorch's name.

    Only ``__get__`` is defined, so a value an op stores on the node under the same name wins.
    """

    def __init__(self, index: int) -> None:
        self.index = index

    def __get__(self, node, owner=None):
        return self if node is None else node.saved_tensors[self.index]


def _builtin_node_repr(self) -> str:
    return f"<{type(self).__name__} object at {hex(id(self))}>"


class FunctionMeta(type):
    """Generates, once per Function subclass, the node class its ctx objects are made from."""

    def __init__(cls, name: str, bases: tuple, attrs: dict) -> None:
        super().__init__(name, bases, attrs)
        node_name = attrs.get("_node_name") or name + "Backward"
        namespace = {"_forward_cls": cls, "__module__": "minigrad.autograd.function",
                     "__qualname__": node_name}
        # Builtin nodes expose their saved tensors as _saved_self, _saved_other, _saved_result...
        for index, saved_name in enumerate(getattr(cls, "_saved_names", ())):
            namespace["_saved_" + saved_name] = _SavedTensorAttribute(index)
        if getattr(cls, "_is_builtin", False):
            namespace["__repr__"] = _builtin_node_repr   # PyTorch prints <MulBackward0 object at ...>
        # A builtin node that receives no gradient at all sends none on (no zeros are invented).
        namespace["_skips_without_gradients"] = getattr(cls, "_is_builtin", False) and \
            not getattr(cls, "_runs_without_gradients", False)
        cls._backward_cls = type(node_name, (BackwardCFunction,), namespace)
        # Decided once per class: the separate style is recognised by an overridden setup_context.
        base = getattr(sys.modules[__name__], "Function", None)
        if base is not None and "vjp" in attrs:
            # vjp is PyTorch's other name for backward; defining both is refused when backward runs
            cls.backward = _both_backward_and_vjp if "backward" in attrs else attrs["vjp"]
        cls._uses_setup_context = base is not None and cls.setup_context is not base.setup_context


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

    _is_builtin = False
    _saved_names: tuple = ()
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
        """Run forward and, if any tensor input requires grad, record a node for backward."""
        if not _grad_state.enabled and not cls._uses_setup_context:
            return _apply_without_graph(cls, args, kwargs)   # the same forward, nothing recorded
        if cls._uses_setup_context:
            signature = cls.__dict__.get("_forward_signature") or _cache_signature(cls)
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, {}

        ctx = cls._backward_cls()
        grad_enabled = _grad_state.enabled
        needs_input_grad = []
        positions = []      # which arguments are tensors
        edges = []          # where each tensor argument's gradient goes: next_functions
        input_info = []     # each tensor argument's shape and dtype, to check gradients against
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                positions.append(i)
                input_info.append((arg._data.shape, arg._data.dtype))
                # A view's grad_fn is a property, recomputed if its base changed in place; others' is read directly.
                grad_fn = arg._grad_fn if arg._base is None else arg.grad_fn
                if grad_fn is not None:
                    needs_input_grad.append(True)
                    edges.append((grad_fn, arg._output_nr))
                elif arg._requires_grad:
                    needs_input_grad.append(True)
                    edges.append((arg._grad_accumulator() if grad_enabled else None, 0))
                elif arg._base is not None and arg._base.requires_grad:
                    needs_input_grad.append(True)   # a view made under no_grad: it requires grad, as in
                    edges.append(_NO_EDGE)          # PyTorch, but its gradient goes nowhere
                else:
                    needs_input_grad.append(False)
                    edges.append(_NO_EDGE)
            else:
                needs_input_grad.append(False)
        ctx.needs_input_grad = tuple(needs_input_grad)
        # A graph is recorded only in grad mode and when some tensor argument requires grad.
        record = grad_enabled and True in needs_input_grad
        if record:
            ctx.requires_grad = True
            ctx._sequence_nr = next(_sequence_numbers)
            if anomaly_mode.state.enabled:
                anomaly_mode.record_forward(ctx)
            ctx._input_positions = tuple(positions)
            ctx.next_functions = tuple(edges)
            ctx._input_info = input_info

        _grad_state.enabled = False   # forward is computed without recording anything
        try:
            if cls._uses_setup_context:
                outputs = cls.forward(*args)
                cls.setup_context(ctx, args, outputs)
            else:
                outputs = cls.forward(ctx, *args, **kwargs)
        finally:
            _grad_state.enabled = grad_enabled
        if type(outputs) is Tensor and ctx.dirty_tensors is None and ctx.non_differentiable is None:
            return _wrap_single_output(ctx, args, outputs, record)
        return _wrap_outputs(ctx, args, outputs, record)


_NO_EDGE = (None, 0)
ACCESSED_ONCE = (
    "saved_tensors can only be accessed once when clear_saved_tensors_on_access=True is set on the "
    "autograd.Function. Either access saved_tensors only once, or set clear_saved_tensors_on_access=False.")


@staticmethod
def _both_backward_and_vjp(ctx, *grad_outputs):
    raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You "
                       "should only implement one of them.")


def _apply_without_graph(cls, args: tuple, kwargs: dict) -> Any:
    """``apply`` in no-grad mode (under ``no_grad``, or inside a backward that builds no graph):
    forward gets a fresh ctx with ``needs_input_grad`` as usual, but no edges, sequence number or
    saved records are made, since no node will be recorded. Dirty inputs still get their version bumped.
    """
    ctx = cls._backward_cls()
    if cls._is_builtin:
        # minigrad's own forwards read needs_input_grad only to choose what to save for a backward
        # that will not run here: telling them that nothing needs a gradient saves work.
        ctx.needs_input_grad = (False,) * len(args)
        output = cls.forward(ctx, *args, **kwargs)
        if type(output) is Tensor and ctx.dirty_tensors is None and (not args or output is not args[0]):
            return output   # the common case: a new tensor (a builtin's view needs no marking)
    else:
        # As in apply: True for a tensor with a grad_fn or requiring grad (a view's grad_fn is a
        # property, recomputed if its base changed in place; others' is read directly).
        ctx.needs_input_grad = tuple([isinstance(arg, Tensor) and (
            arg._requires_grad or (arg._grad_fn if arg._base is None else arg.grad_fn) is not None)
            for arg in args])
        output = cls.forward(ctx, *args, **kwargs)
    if type(output) is Tensor and ctx.non_differentiable is None:
        dirty = ctx.dirty_tensors
        if dirty is None:
            for arg in args:
                if output is arg:   # with no graph, PyTorch hands back a detached alias (not a view)
                    return output.detach()
            if output._base is not None:
                _views.mark_custom_function_output(ctx, output)
            return output
        if len(dirty) == 1 and dirty[0] is output and args and output is args[0]:
            output._version_counter.value += 1   # an in-place operation such as p -= lr * p.grad
            ctx.dirty_tensors = None
            return output
    return _wrap_outputs(ctx, args, output, False)


def _cache_signature(cls) -> inspect.Signature:
    """forward's signature, computed once per class (binding arguments needs it on every call)."""
    signature = inspect.signature(cls.forward)
    cls._forward_signature = signature
    return signature


def _wrap_single_output(ctx: BackwardCFunction, args: tuple, output: Tensor, record: bool) -> Tensor:
    """The common case of _wrap_outputs: one tensor output, nothing dirty or non-differentiable."""
    for arg in args:
        if output is arg:
            output = output._alias()   # an input returned unchanged comes back as a new view object
            break
    if output._base is not None:
        _views.mark_custom_function_output(ctx, output)
    if record:
        if output._data.dtype.kind in "fc":   # integer and bool outputs carry no gradient
            output.grad_fn = ctx
        ctx._output_info = ((output._data.shape, output._data.dtype),)
        if ctx.to_save is not None:
            ctx._saved = tuple([_save(ctx, t, i, (output,), (output,)) for i, t in enumerate(ctx.to_save)])
            ctx.to_save = None
    return output


def _wrap_outputs(ctx: BackwardCFunction, args: tuple, outputs: Any, record: bool) -> Any:
    """Connect forward's outputs to ctx, and turn ctx.to_save into checked SavedTensor records."""
    is_tuple = isinstance(outputs, tuple)
    raw = outputs if is_tuple else (outputs,)
    dirty = ctx.dirty_tensors or ()
    non_differentiable = ctx.non_differentiable or ()
    for t in dirty:
        if not any(t is a for a in args):
            warnings.warn("ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that "
                          "have been mutated should be passed to ctx.mark_dirty().", UserWarning, stacklevel=3)
        if not any(t is out for out in raw):
            raise RuntimeError(
                "Some elements marked as dirty during the forward method were not returned as output. "
                "The inputs that are modified inplace must all be outputs of the Function.")

    wrapped = []
    for output_nr, out in enumerate(raw):
        if not isinstance(out, Tensor):
            wrapped.append(out)
            continue
        differentiable = out._data.dtype.kind in "fc" and not any(out is t for t in non_differentiable)
        if any(out is t for t in dirty):
            if record and out._grad_fn is None and out._requires_grad:
                raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
            out._version_counter.value += 1
            if record and out._base is not None:   # changed through a view: rewrite the base's history too
                n_tensors = sum(isinstance(o, Tensor) for o in raw)
                _views.rebase_view(out, ctx, args, n_tensors)
                wrapped.append(out)
                continue
        elif any(out is a for a in args):
            # an input returned unchanged comes back as a new view object (a detached alias with no graph)
            out = out._alias() if record else out.detach()
        if out._base is not None and not any(out is t for t in dirty):
            _views.mark_custom_function_output(ctx, out)
        if record:
            out.grad_fn = ctx if differentiable else None
            out._output_nr = output_nr
            out._requires_grad = False
        wrapped.append(out)

    # PyTorch clears these once the outputs are wrapped; holding the outputs here would also make a
    # cycle (ctx -> output -> grad_fn = ctx). Weak references remain for minigrad.viz.
    if record:
        ctx._dirty_refs = tuple(weakref.ref(t) for t in dirty)
        ctx._non_differentiable_refs = tuple(weakref.ref(t) for t in non_differentiable if isinstance(t, Tensor))
        if non_differentiable:
            ctx._non_differentiable_slots = tuple(i for i, out in enumerate(raw)
                                                  if any(out is t for t in non_differentiable))
    ctx.dirty_tensors = ctx.non_differentiable = None
    if record:
        ctx._output_info = tuple((o._data.shape, o._data.dtype) if isinstance(o, Tensor) else None for o in wrapped)
        to_save = ctx.to_save
        if to_save is not None:
            ctx._saved = tuple(_save(ctx, t, i, raw, wrapped) for i, t in enumerate(to_save))
            ctx.to_save = None
    if is_tuple:
        return tuple(wrapped)
    return wrapped[0]


def _save(ctx, tensor, index: int, raw: tuple, wrapped: tuple) -> SavedTensor | None:
    if tensor is None:
        return None
    if not isinstance(tensor, Tensor):
        raise TypeError(f"save_for_backward can only save variables, but argument {index} is of type "
                        f"{type(tensor).__name__}")
    for output_nr, out in enumerate(raw):
        if tensor is out and wrapped[output_nr]._grad_fn is ctx:   # just set: no view update to ask for
            return SavedTensor(wrapped[output_nr], is_output=True, output_nr=output_nr)
    return SavedTensor(tensor, is_output=False)


class _DelayedError(Function):
    """Stands after a once_differentiable backward: differentiating through it raises."""

    _node_name = "Error"   # PyTorch's name for this node
    _is_builtin = True
    _runs_without_gradients = True   # it must raise even when no gradient reaches it

    @staticmethod
    def forward(ctx, message, *tensors):
        ctx.message = message
        return tuple(None if t is _NO_GRADIENT else t for t in tensors)

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(ctx.message)


_NO_GRADIENT = Tensor._make(np.zeros(()))   # stands for a None gradient: an edge to nowhere
ONCE_DIFFERENTIABLE = "trying to differentiate twice a function that was marked with @once_differentiable"


def once_differentiable(backward: Callable) -> Callable:
    """Decorate a backward that cannot itself be differentiated (for example one written in numpy).

    It runs without recording a graph. When a graph is being recorded (``create_graph=True``), each
    gradient it returns is passed through an ``Error`` node: a backward pass that reaches that node
    raises instead of silently using a wrong second derivative. As in PyTorch, the Error node's edges
    point at detached copies of the gradients (``None`` for a gradient that is None), so a pass that
    asks only for the gradient with respect to the original inputs never reaches it and finds no path.
    """
    @functools.wraps(backward)
    def wrapper(ctx, *grad_outputs):
        with grad_mode.no_grad():
            outputs = backward(ctx, *grad_outputs)
        if not _grad_state.enabled or not any(isinstance(g, Tensor) and g.requires_grad for g in grad_outputs):
            return outputs
        is_tuple = isinstance(outputs, tuple)
        items = outputs if is_tuple else (outputs,)
        stand_ins = [g.detach().requires_grad_() if isinstance(g, Tensor) else _NO_GRADIENT for g in items]
        guarded = _DelayedError.apply(ONCE_DIFFERENTIABLE, *stand_ins)
        items = tuple(new if isinstance(g, Tensor) else g for g, new in zip(items, guarded))
        return items if is_tuple else items[0]
    return wrapper


from . import views as _views  # noqa: E402  (views builds on Function, defined above)
