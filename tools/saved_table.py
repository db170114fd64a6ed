"""Which builtin nodes save what: the table of notebook 05 and the cheat sheet, made from the code.

Every builtin operation of ``minigrad/ops`` declares, in ``_saved_names``, the names under which its
node saves tensors for backward (PyTorch's names: ``node._saved_self``, ``node._saved_result``...).
``result`` is the node's own output; every other name is an input (an operand, an index, a mask, a
target) or, for ``sort``, ``topk`` and ``max(dim)``, the integer ``indices`` it returns. So each node
falls in one of four groups: it saves its output only, its output and other tensors, other tensors
only, or nothing. An in-place change of a saved tensor before backward is
refused (notebook 05); a tensor that no node saved can be changed freely.

The table sits in a markdown cell between the two markers below, in English in
``notebooks/05_save_for_backward.ipynb`` and ``notebooks/ctx_cheatsheet.md``, in Chinese in their
catalog entry and in ``notebooks/zh/ctx_cheatsheet.md``. tests/course/test_saved_table.py
compares each with ``table(language)``; after a change to ``minigrad/ops``, paste the output of::

    python -m tools.saved_table          # English
    python -m tools.saved_table zh       # Chinese

>>> saved_names()["ExpBackward0"], saved_names()["MulBackward0"], saved_names()["AddBackward0"]
(('result',), ('self', 'other'), ())
>>> [group for group, nodes in groups().items() if "ExpBackward0" in nodes or "MulBackward0" in nodes]
['its output only', 'other tensors only']
"""
from __future__ import annotations

import sys

BEGIN = "<!-- saved-table: made by python -m tools.saved_table; change minigrad/ops, not this table -->"
END = "<!-- /saved-table -->"
MODULES = ("minigrad.ops.", "minigrad.autograd.views")
GROUPS = ("its output only", "its output and other tensors", "other tensors only", "nothing")
HEADERS = {
    "en": ("What the node saves", "Built-in nodes"),
    "zh": ("节点保存什么", "内置节点"),
}
LABELS = {
    "en": {GROUPS[0]: "its output (`result`) only", GROUPS[1]: "its output and other tensors",
           GROUPS[2]: "other tensors only: inputs, indices, masks, targets", GROUPS[3]: "nothing"},
    "zh": {GROUPS[0]: "只保存自己的输出（`result`）", GROUPS[1]: "自己的输出和其他张量",
           GROUPS[2]: "只保存其他张量：输入、索引、掩码、目标", GROUPS[3]: "什么都不保存"},
}


def _subclasses(cls: type):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def saved_names() -> dict[str, tuple]:
    """Every builtin node class (of ``minigrad/ops``, and the view nodes of ``autograd/views.py``), by
    node name: the names under which it saves tensors, read from the node class's ``_saved_<name>``
    attributes (made from ``_saved_names``, or a property such as ``x[idx]``'s ``_saved_indices``)."""
    import minigrad.ops  # noqa: F401  (defines the builtin Functions)
    from minigrad.autograd.function import Function

    found: dict[str, tuple] = {}
    for cls in _subclasses(Function):
        if not (getattr(cls, "_is_builtin", False) and cls.__module__.startswith(MODULES)):
            continue
        if cls.forward is Function.forward and cls.__subclasses__():
            continue   # a base class (Builtin, ViewFunction...): no node of its own
        node = cls._backward_cls
        names = tuple(key[len("_saved_"):] for key in vars(node) if key.startswith("_saved_"))
        found[node.__name__] = tuple(dict.fromkeys(found.get(node.__name__, ()) + names))
    return found


def group_of(names: tuple) -> str:
    """Which of ``GROUPS`` a node saving tensors under ``names`` belongs to (``result``, ``result0``...
    is its output)."""
    output = any(name.startswith("result") for name in names)
    inputs = any(not name.startswith("result") for name in names)
    return GROUPS[0] if output and not inputs else GROUPS[1] if output else GROUPS[2] if inputs else GROUPS[3]


def groups() -> dict[str, list[str]]:
    """The node names of each group, sorted."""
    result: dict[str, list[str]] = {group: [] for group in GROUPS}
    for node, names in saved_names().items():
        result[group_of(names)].append(node)
    return {group: sorted(nodes) for group, nodes in result.items()}


def table(language: str = "en") -> str:
    """The markdown table, between its markers."""
    what, nodes = HEADERS[language]
    rows = [BEGIN, f"| {what} | {nodes} |", "|---|---|"]
    rows += [f"| {LABELS[language][group]} | {', '.join(f'`{n}`' for n in names)} |"
             for group, names in groups().items()]
    return "\n".join(rows + [END])


def table_in(text: str) -> str | None:
    """The table found between the markers in ``text`` (markers included), or None."""
    start = text.find(BEGIN)
    end = text.find(END, start)
    return None if start < 0 or end < 0 else text[start:end + len(END)]


if __name__ == "__main__":
    print(table(sys.argv[1] if len(sys.argv) > 1 else "en"))
