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

from typing import Any, Iterator

from .parameter import Parameter


class Module:
    """Base class for layers and models: subclass it, create parameters in ``__init__``,
    compute in ``forward``."""

    training: bool

    def __init__(self) -> None:
        # object.__setattr__ skips our own __setattr__, which needs these dicts to exist.
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "training", True)

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, (Parameter, Module)) and "_parameters" not in self.__dict__:
            kind = "parameters" if isinstance(value, Parameter) else "submodule"
            message = "cannot assign parameters before Module.__init__() call" if kind == "parameters" else \
                "cannot assign module before Module.__init__() call"
            raise AttributeError(message)
        if isinstance(value, Parameter):
            self._modules.pop(name, None)
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._parameters.pop(name, None)
            self._modules[name] = value
        elif name in self.__dict__.get("_parameters", {}) and value is None:
            self._parameters[name] = None
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails: parameters and sub-modules live in the dicts.
        for store in ("_parameters", "_modules"):
            values = self.__dict__.get(store)
            if values is not None and name in values:
                return values[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        self._parameters[name] = param

    def add_module(self, name: str, module: "Module | None") -> None:
        self._modules[name] = module

    register_module = add_module

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def named_parameters(self, prefix: str = "", recurse: bool = True) -> Iterator[tuple[str, Parameter]]:
        """Yield ``(name, parameter)`` pairs, sub-modules' names joined with dots (``'0.weight'``)."""
        seen = set()
        for module_prefix, module in (self.named_modules(prefix) if recurse else [(prefix, self)]):
            for name, param in module._parameters.items():
                if param is None or id(param) in seen:
                    continue
                seen.add(id(param))
                yield (f"{module_prefix}.{name}" if module_prefix else name), param

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_children(self) -> Iterator[tuple[str, "Module"]]:
        for name, module in self._modules.items():
            if module is not None:
                yield name, module

    def children(self) -> Iterator["Module"]:
        for _, module in self.named_children():
            yield module

    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, "Module"]]:
        yield prefix, self
        for name, module in self.named_children():
            yield from module.named_modules(f"{prefix}.{name}" if prefix else name)

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
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self) -> "Module":
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def state_dict(self) -> dict:
        return {name: param.detach() for name, param in self.named_parameters()}

    def load_state_dict(self, state: dict) -> None:
        params = dict(self.named_parameters())
        for name, value in state.items():
            params[name]._data[...] = value._data
            params[name]._version_counter.value += 1

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
