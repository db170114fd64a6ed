"""The API inventory walked against minigrad: every public PyTorch name is classified, implemented
names are there, every other name raises NotImplementedError naming it and saying what instead, and
the README's section and docs/api-inventory.md are what the inventory gives today."""
import re
import sys
from pathlib import Path

import pytest

import minigrad
from minigrad.inventory import _LOOKED_UP_ON_THE_TYPE, Unsupported, classify, has, minigrad_object, rules, torch_names

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tools import inventory  # noqa: E402

NAMES = [(ns, name) for ns, names in torch_names()["namespaces"].items() for name in names]


@pytest.fixture(scope="module")
def table():
    return inventory.classified()


def test_the_inventory_comes_from_the_pytorch_the_project_measures_against():
    makefile = (ROOT / "Makefile").read_text()
    assert f"TORCH_VERSION ?= {torch_names()['torch_version']}\n" in makefile
    assert len(NAMES) > 2000 and len(torch_names()["namespaces"]) == len(inventory.NAMESPACES)


def test_every_name_is_classified(table):
    unclassified = [e.qualified for entries in table.values() for e in entries if e.status == "unclassified"]
    assert not unclassified, ("names no rule of minigrad/inventory/rules.json covers (add them to a rule, or "
                              f"implement them): {unclassified}")


def test_every_rule_classifies_some_name_and_names_no_implemented_one(table):
    used = {(e.reason, e.instead) for entries in table.values() for e in entries}
    for rule in rules():
        assert (rule["reason"], rule["instead"]) in used, f"a rule that classifies nothing: {rule['reason']}"
        namespaces = rule.get("namespaces", list(torch_names()["namespaces"]))
        stale = []   # an explicit name minigrad now has wherever the rule would apply to it
        for n in rule.get("names", ()):
            where = [ns for ns in namespaces if n in torch_names()["namespaces"][ns]]
            stale += [f"{where[0]}.{n}"] if where and all(has(ns, n) for ns in where) else []
        assert not stale, f"minigrad implements these now: take them out of rules.json: {stale}"


def _access(namespace: str, name: str):
    owner = minigrad_object(namespace)
    if owner is None:   # a namespace minigrad does not have at all: reaching it is refused
        parent, _, child = namespace.rpartition(".")
        return _access(parent, child)
    return getattr(owner if namespace != "torch.Tensor" else minigrad.ones(1), name)


@pytest.mark.parametrize("namespace", list(torch_names()["namespaces"]))
def test_every_name_behaves_as_classified(namespace, table):
    for entry in table[namespace]:
        if entry.status == "implemented":   # read from the class: a property would run on an instance
            getattr(minigrad.Tensor, entry.name) if namespace == "torch.Tensor" else _access(namespace, entry.name)
            continue
        if namespace == "torch.Tensor" and entry.name in _LOOKED_UP_ON_THE_TYPE:
            # A special method Python or numpy looks up on the type: missing, as Python words it
            # (a placeholder would change what ``x in t`` or ``complex(t)`` do).
            with pytest.raises(AttributeError, match=rf"^'Tensor' object has no attribute '{entry.name}'$"):
                _access(namespace, entry.name)
            continue
        try:
            value = _access(namespace, entry.name)
        except Unsupported as error:
            text = str(error)
            assert isinstance(error, NotImplementedError) and isinstance(error, AttributeError)
            missing = entry.qualified if minigrad_object(namespace) else namespace
            assert re.search(rf"\b{re.escape(missing)}\b", text) and "Instead: " in text, text
            continue
        # a placeholder that exists by name (nn.Conv2d, F.max_pool2d) and refuses at its first use
        assert getattr(value, "_minigrad_unsupported", False), f"{entry.qualified} is {entry.status} but exists"
        with pytest.raises(NotImplementedError, match=rf"minigrad does not implement \S*{entry.name} "):
            value(1, 1, 1)


def test_refused_names_answer_hasattr_and_getattr_defaults_like_missing_ones():
    assert not hasattr(minigrad, "fft") and getattr(minigrad.ones(1), "addcmul", None) is None
    assert not hasattr(minigrad.nn, "GELU") and not hasattr(minigrad.nn.functional, "gelu")
    with pytest.raises(AttributeError, match=r"^'Tensor' object has no attribute 'no_such_method'$"):
        minigrad.ones(1).no_such_method
    with pytest.raises(AttributeError, match=r"^module 'minigrad.nn' has no attribute 'NoSuchLayer'$"):
        minigrad.nn.NoSuchLayer


def test_a_refusal_says_why_and_what_instead():
    assert classify("torch", "fft").message() == (
        "torch.fft is out of scope for minigrad (Fourier transforms and signal processing). Instead: use PyTorch "
        "(torch.fft) or numpy.fft on .detach().numpy()")
    with pytest.raises(NotImplementedError, match=r"^minigrad does not implement torch\.Tensor\.square \(an alias or "
                       r"a shortcut minigrad does not have\)\. Instead: x \* x$"):
        minigrad.ones(2).square()


def test_the_readme_section_and_the_full_list_are_up_to_date():
    for path, text in inventory.pages().items():
        assert path.read_text() == text, f"{path.name} is stale: run python -m tools.inventory write"


def test_torch_autograd_grad_mode_names_are_the_top_level_switches():
    for name in ("no_grad", "enable_grad", "set_grad_enabled", "inference_mode"):
        assert getattr(minigrad.autograd, name) is getattr(minigrad, name)
        assert getattr(minigrad.autograd.grad_mode, name) is getattr(minigrad, name)
        assert classify("torch.autograd", name).status == "implemented"
    assert classify("torch.autograd", "grad_mode").status == "implemented"
    x = minigrad.ones(2, requires_grad=True)
    with minigrad.autograd.no_grad():
        assert not (x * 2).requires_grad


def test_special_methods_keep_python_s_fallbacks():
    """The PyTorch special methods minigrad lacks get no placeholder: Python's own fallbacks still run."""
    t = minigrad.tensor([1.0, 3.0])
    assert 3.0 in t and 2.0 not in t                      # __contains__: iteration
    assert complex(minigrad.tensor(2.0)) == 2 + 0j        # __complex__: __float__
    assert [float(v) for v in reversed(t)] == [3.0, 1.0]  # __reversed__: __len__ and __getitem__


def test_a_tensor_s_dir_leaves_the_placeholders_out():
    names = dir(minigrad.ones(1))
    assert "exp" in names and "backward" in names and "addcmul" not in names
    assert isinstance(minigrad.Tensor.__dict__["addcmul"], minigrad.inventory.MissingMethod)
