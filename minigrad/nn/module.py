"""Module: a class whose instances hold parameters on ``self``.

Setting an attribute on ``self`` is all it takes: ``Module.__setattr__`` notices Parameters and
sub-Modules and files them in ``self._parameters`` and ``self._modules``, which is how
``model.parameters()`` finds them later. Calling ``model(x)`` runs ``model.forward(x)``.

>>> import minigrad as torch
>>> class Scale(torch.nn.Module):
...     def __init__(self):
...         super().__init__()
...         self.factor = torch.nn.Parameter(torch.tensor(2.0))   # registered here
...     def forward(self, x):
...         return self.factor * x
>>> model = Scale()
>>> [name for name, _ in model.named_parameters()]
['factor']
>>> model(torch.tensor(3.0))
tensor(6., grad_fn=<MulBackward0>)
"""
from __future__ import annotations

from collections import OrderedDict, namedtuple
from types import MappingProxyType
from typing import Any, Iterator, Mapping

from ..grad_mode import no_grad
from ..tensor import Tensor
from ..types import check_device, dtype
from .parameter import Buffer, Parameter


class IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it did not find, and those it did not expect."""

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys}, unexpected_keys={self.unexpected_keys})"


def _typename(value) -> str:
    """What PyTorch's messages call a value's type (``torch.typename``): 'torch.FloatTensor', 'int'..."""
    if isinstance(value, Tensor):
        return value.type()
    kind = type(value)
    return kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


def _check_name(kind: str, name, module: "Module", store) -> None:
    """PyTorch's checks of the name of a new parameter or buffer: a string, no dot, not empty, and not
    the name of another attribute."""
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')
    if hasattr(module, name) and name not in store:
        raise KeyError(f"attribute '{name}' already exists")


class Module:
    """Base class for layers and models: subclass it, create parameters in ``__init__``,
    compute in ``forward``."""

    training: bool
    # register_buffer: tensors that are state but not parameters. A module gets its own dict and set at
    # its first buffer; until then these empty class-level ones answer.
    _buffers: Mapping = MappingProxyType({})
    _non_persistent_buffers_set: frozenset | set = frozenset()

    def __init__(self) -> None:
        # object.__setattr__ skips our own __setattr__, which needs these dicts to exist.
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "training", True)

    def __setattr__(self, name: str, value: Any) -> None:
        """File Parameters, sub-Modules and buffers in their dicts (PyTorch's checks, in its order): a
        name that holds one of them only takes another of its kind, or None."""
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, "_modules", "_buffers")
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:   # a tensor here would be used by forward while parameters() yields the old one
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' (torch.nn.Parameter or "
                                "None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if "_modules" not in self.__dict__:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, "_parameters", "_buffers")
            self._modules[name] = value
        elif name in self.__dict__.get("_modules", ()):
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' (torch.nn.Module or "
                                "None expected)")
            self._modules[name] = value
        elif isinstance(value, Buffer) or name in self._buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' (torch.nn.Buffer, "
                                "torch.Tensor or None expected)")
            persistent = value.persistent if isinstance(value, Buffer) else \
                name not in self._non_persistent_buffers_set
            self.register_buffer(name, value, persistent)
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str, *stores: str) -> None:
        """Remove ``name`` from the instance's attributes and from ``stores``, before it is filed anew."""
        self.__dict__.pop(name, None)   # an ordinary attribute of that name would hide it
        for store in stores:
            self.__dict__.get(store, {}).pop(name, None)
        if "_buffers" in stores and isinstance(self._non_persistent_buffers_set, set):
            self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails: parameters and sub-modules live in the dicts.
        for store in ("_parameters", "_buffers", "_modules"):
            values = self.__dict__.get(store)
            if values is not None and name in values:
                return values[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            if name in self._non_persistent_buffers_set:
                self._non_persistent_buffers_set.remove(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add ``param`` (a Parameter, or None for "no such parameter", as a Linear without bias)
        under ``name``: what ``self.name = param`` does. PyTorch's checks, in its order."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name("parameter", name, self, self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' (torch.nn.Parameter or "
                            "None required)")
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Keep ``tensor`` on the module as state that is not a parameter (a running mean, a mask): it is
        in ``buffers()`` and, if ``persistent``, in ``state_dict()``, and ``to()``/``double()`` convert it,
        but optimisers never see it. PyTorch's checks, in its order."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name("buffer", name, self, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' (torch Tensor or "
                            "None required)")
        if "_buffers" not in self.__dict__:   # this module's first buffer
            object.__setattr__(self, "_buffers", {})
            object.__setattr__(self, "_non_persistent_buffers_set", set())
        self._buffers[name] = tensor
        (self._non_persistent_buffers_set.discard if persistent else self._non_persistent_buffers_set.add)(name)

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """Yield ``(name, buffer)`` pairs, persistent or not, as ``named_parameters`` does for parameters."""
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def add_module(self, name: str, module: "Module | None") -> None:
        """Add ``module`` as a sub-module under ``name``: what ``self.name = module`` does, for names that
        are not identifiers (``Sequential`` names its modules '0', '1'...). PyTorch's checks, in its order."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f"module name can't contain \".\", got: {name}")
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """Yield ``(name, parameter)`` pairs, sub-modules' names joined with dots (``'0.weight'``); a
        parameter (or module) met twice is listed once unless ``remove_duplicate=False``."""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def _named_members(self, store: str, prefix: str, recurse: bool, remove_duplicate: bool) -> Iterator:
        """``(name, tensor)`` for each entry of ``module.<store>`` (parameters or buffers) of this module
        and, with ``recurse``, of its sub-modules."""
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in getattr(module, store).items():
                if value is None or id(value) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield (f"{module_prefix}.{name}" if module_prefix else name), value

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_children(self) -> Iterator[tuple[str, "Module"]]:
        """Each direct sub-module once, under the first name it was registered with."""
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self) -> Iterator["Module"]:
        for _, module in self.named_children():
            yield module

    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, "Module"]]:
        """This module and every sub-module, depth first, each once (``memo`` holds those met)."""
        memo = set() if memo is None else memo
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, f"{prefix}.{name}" if prefix else name, remove_duplicate)

    def modules(self) -> Iterator["Module"]:
        for _, module in self.named_modules():
            yield module

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients of every parameter (by default by setting ``.grad`` to None)."""
        for param in self.parameters():
            if param._grad is not None:
                if set_to_none:
                    param._grad = None
                else:
                    param._grad.zero_()

    def train(self, mode: bool = True) -> "Module":
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self) -> "Module":
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def state_dict(self, *, destination=None, prefix: str = "", keep_vars: bool = False) -> "OrderedDict[str, Tensor]":
        """Every parameter's and persistent buffer's values by name, detached from the graph (they share
        memory with them): this module's own, then each sub-module's, as PyTorch orders them."""
        destination = OrderedDict() if destination is None else destination
        persistent = [(n, b) for n, b in self._buffers.items() if n not in self._non_persistent_buffers_set]
        for name, value in list(self._parameters.items()) + persistent:
            if value is not None:
                destination[prefix + name] = value if keep_vars else value.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=f"{prefix}{name}.", keep_vars=keep_vars)
        return destination

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False) -> IncompatibleKeys:
        """Copy values from ``state_dict`` into the parameters of the same names (in place, under no_grad)."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        params = self.state_dict(keep_vars=True)   # parameters and persistent buffers
        missing = [name for name in params if name not in state_dict]
        unexpected = [name for name in state_dict if name not in params]
        errors = []
        if strict:
            if unexpected:
                errors.append("Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.append("Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". ")
        for name, param in params.items():
            if name not in state_dict:
                continue
            value = state_dict[name]
            if not isinstance(value, Tensor):
                errors.append(f'While copying the parameter named "{name}", expected torch.Tensor or Tensor-like '
                              f"object from checkpoint but received {type(value)}")
            elif value.shape != param.shape:
                errors.append(f"size mismatch for {name}: copying a param with shape {value.shape} from checkpoint, "
                              f"the shape in current model is {param.shape}.")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(errors))
        with no_grad():
            for name, param in params.items():
                if name in state_dict:
                    param.copy_(state_dict[name])
        return IncompatibleKeys(missing, unexpected)

    def _apply_to_parameters(self, convert) -> "Module":
        """Convert every parameter in place (the Parameter objects stay) and replace every buffer."""
        for param in self.parameters():
            param._data = convert(param)._data
            if param._grad is not None:
                param._grad = convert(param._grad)
        for module in self.modules():
            for name, buffer in module._buffers.items():
                if buffer is not None:
                    module._buffers[name] = convert(buffer)
        return self

    def double(self) -> "Module":
        """Convert every floating-point parameter to float64 (in place: the Parameter objects stay)."""
        return self._apply_to_parameters(lambda t: t.detach().double() if t.is_floating_point() else t)

    def float(self) -> "Module":
        return self._apply_to_parameters(lambda t: t.detach().float() if t.is_floating_point() else t)

    def to(self, *args, **kwargs) -> "Module":
        """Only dtypes and the CPU: ``model.to(torch.float64)``, ``model.to('cpu')``."""
        target = kwargs.get("dtype")
        for arg in args:
            if isinstance(arg, dtype):
                target = arg
            else:
                check_device(arg)
        check_device(kwargs.get("device"))
        if target is None:
            return self
        return self._apply_to_parameters(lambda t: t.detach().to(target) if t.is_floating_point() else t)

    def cpu(self) -> "Module":
        return self

    def cuda(self, device=None) -> "Module":
        from ..cuda import not_available
        raise not_available("Module.cuda()")

    def apply(self, fn) -> "Module":
        """Call ``fn`` on every sub-module (children first), then on this module."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        lines = []
        extra = self.extra_repr()
        if extra:
            lines = extra.split("\n")
        for name, module in self._modules.items():
            text = repr(module).replace("\n", "\n  ")
            lines.append(f"({name}): {text}")
        main = type(self).__name__ + "("
        if lines:
            if len(lines) == 1 and not self._modules:
                main += lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"
