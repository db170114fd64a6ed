"""The package's layering, as CONTRIBUTING.md states it: autograd never imports the ops above it,
and the pictures and the checkers observe the engine only through its public names (the listeners,
node_info), never a private autograd name nor a swapped code object."""
from __future__ import annotations

import ast
import pathlib

import pytest

import minigrad

PACKAGE = pathlib.Path(minigrad.__file__).parent
AUTOGRAD = sorted((PACKAGE / "autograd").glob("*.py"))
OBSERVERS = sorted((PACKAGE / "viz").glob("*.py")) + sorted((PACKAGE / "exercises").glob("*.py"))


def imported_modules(path: pathlib.Path, package: tuple[str, ...] = ()) -> list[tuple[str, list[str]]]:
    """(absolute module name, imported names) for every import in ``path``, a module of ``package``
    (by default the package folder ``path`` is in)."""
    package = package or path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else ()
            module = ".".join((*base, *(node.module.split(".") if node.module else ())))
            found.append((module, [alias.name for alias in node.names]))
    return found


def test_the_scan_resolves_relative_imports_and_sees_a_swap(tmp_path):
    modules = {module for module, _ in imported_modules(PACKAGE / "autograd" / "engine.py")}
    assert "minigrad.autograd.graph" in modules or "minigrad.autograd" in modules
    fake = tmp_path / "probe.py"
    fake.write_text("from ..autograd.engine import _discover\nrun.__code__ = other.__code__\n")
    assert imported_modules(fake, ("minigrad", "viz")) == [("minigrad.autograd.engine", ["_discover"])]


@pytest.mark.parametrize("path", AUTOGRAD, ids=lambda p: p.name)
def test_autograd_imports_no_op(path):
    for module, names in imported_modules(path):
        assert not module.startswith("minigrad.ops"), f"{path.name} imports {module}"
        assert not (module == "minigrad" and "ops" in names), f"{path.name} imports minigrad.ops"


def code_swaps(source: str) -> list[int]:
    """The lines that assign to a ``__code__`` attribute."""
    return [node.lineno for node in ast.walk(ast.parse(source)) if isinstance(node, (ast.Assign, ast.AugAssign))
            for target in getattr(node, "targets", [getattr(node, "target", None)])
            if isinstance(target, ast.Attribute) and target.attr == "__code__"]


def test_a_swap_is_seen_and_a_read_is_not():
    assert code_swaps("run.__code__ = other.__code__\ncode = f.__code__\n") == [1]


@pytest.mark.parametrize("path", OBSERVERS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_pictures_and_checkers_use_no_private_autograd_name(path):
    swapped = code_swaps(path.read_text(encoding="utf-8"))
    assert not swapped, f"{path.name} swaps a code object at lines {swapped}"
    for module, names in imported_modules(path):
        if module.startswith("minigrad.autograd"):
            private = [name for name in names if name.startswith("_")]
            assert not private, f"{path.name} imports {private} from {module}"
            assert not any(part.startswith("_") for part in module.split(".")[2:]), f"{path.name} imports {module}"
