"""Every builtin Function states its math in its docstring: f, and the derivative of each input.

A Function counts when its class defines ``backward`` itself, in ``minigrad/ops/``,
``minigrad/sparse/`` or ``minigrad/nn/``. Its own docstring (not one inherited) must state a
derivative: a ``∂``, ``d/d``, the word "derivative", or "gradient of/=/:/wrt" (the recognition the
project's size report uses). A subclass that only renames a node (``MinAll``, ``SqueezeDim``...)
may rely on the docstring it inherits, but that one must state the math too.
"""
import importlib
import inspect
import pkgutil
import re

import pytest

import minigrad
from minigrad.autograd.function import Function

MATH = re.compile(r"∂|d/d|grad(ient)?\s*(of|=|:|wrt|w\.r\.t\.)|derivative", re.I)
PACKAGES = ("minigrad.ops", "minigrad.sparse", "minigrad.nn")


def functions_in(package_name: str) -> list:
    """The Function classes defined in the modules of ``package_name``."""
    package = importlib.import_module(package_name)
    names = [package_name] + [f"{package_name}.{info.name}" for info in pkgutil.iter_modules(package.__path__)]
    found = []
    for name in names:
        module = importlib.import_module(name)
        for obj in vars(module).values():
            if inspect.isclass(obj) and issubclass(obj, Function) and obj.__module__ == name and _has_backward(obj):
                found.append(obj)
    return found


def _has_backward(cls: type) -> bool:
    """True unless ``cls`` is a base without a backward of its own (``Builtin``, ``ViewFunction``)."""
    return any("backward" in vars(k) for k in cls.__mro__ if k is not Function and issubclass(k, Function))


def missing_math(classes) -> list:
    """The classes whose docstring states no derivative: the class's own docstring if it defines
    ``backward``, else the one it inherits."""
    missing = []
    for cls in classes:
        doc = vars(cls).get("__doc__") if "backward" in vars(cls) else inspect.getdoc(cls)
        if not MATH.search(doc or ""):
            missing.append(f"{cls.__module__}.{cls.__qualname__}")
    return missing


BUILTINS = sorted({cls for package in PACKAGES for cls in functions_in(package)}, key=lambda c: c.__qualname__)


def test_every_builtin_function_states_its_derivative():
    assert missing_math(BUILTINS) == []


def test_the_scan_finds_the_builtin_functions():
    names = {cls.__qualname__ for cls in BUILTINS}
    # a few from each package, and a subclass that only renames its node
    assert {"Add", "Mm", "Softmax", "ThresholdBackward", "Spmm", "SparseMm", "MseLoss", "MinAll"} <= names
    assert sum("backward" in vars(cls) for cls in BUILTINS) >= 80
    assert minigrad.ops.Add in BUILTINS


def make_function(name: str, doc, base: type = Function, backward=lambda ctx, grad: grad) -> type:
    """A Function subclass with docstring ``doc``; ``backward=None`` gives it no backward of its own."""
    namespace = {"__doc__": doc, "__module__": __name__, "forward": staticmethod(lambda ctx, a: a)}
    if backward is not None:
        namespace["backward"] = staticmethod(backward)
    return type(base)(name, (base,), namespace)


@pytest.mark.parametrize("doc, ok", [
    ("f(a, b) = a * b\n\n∂L/∂a = grad * b,  ∂L/∂b = grad * a", True),
    ("d/dx tanh(x) = 1 - tanh(x) ** 2", True),
    ("The derivative is 1.", True),
    ("gradient of a: grad", True),
    ("``a * b``: each factor is saved.", False),
    ("Gradients flow here.", False),
    (None, False),
])
def test_a_docstring_without_a_derivative_is_reported(doc, ok):
    stub = make_function("Stub", doc)
    assert missing_math([stub]) == ([] if ok else [f"{__name__}.Stub"])


def test_an_inherited_docstring_counts_only_for_a_class_without_its_own_backward():
    documented = make_function("Documented", "f(a) = a\n\n∂L/∂a = grad")
    renamed = make_function("Renamed", None, base=documented, backward=None)
    new_backward = make_function("NewBackward", None, base=documented, backward=lambda ctx, grad: -grad)
    assert missing_math([documented, renamed]) == []
    assert missing_math([new_backward]) == [f"{__name__}.NewBackward"]
