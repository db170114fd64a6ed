"""``repr`` of a sparse tensor, character for character as PyTorch prints it.

>>> import minigrad as torch
>>> torch.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0], (2, 3))
tensor(indices=tensor([[0, 1, 1],
                       [2, 0, 2]]),
       values=tensor([3., 4., 5.]),
       size=(2, 3), nnz=3, layout=torch.sparse_coo)
"""
from __future__ import annotations

import numpy as np

from .._tensor_str import LINEWIDTH, THRESHOLD, _format_body, _Formatter, _summarized

_PREFIX = "tensor("
_INDICES_PREFIX = "indices=tensor("
_VALUES_PREFIX = "values=tensor("
_DEFAULT_DTYPES = {"float32", "complex64", "int64", "bool"}


def _body(data: np.ndarray, indent: int) -> str:
    """The bracketed values of ``data`` whose "[" sits at column ``indent`` (PyTorch's _tensor_str)."""
    if data.size == 0:
        return f"[], size={tuple(data.shape)}"
    summarize = data.size > THRESHOLD
    formatter = _Formatter(_summarized(data) if summarize else data)
    return _format_body(data, indent, summarize, formatter)


def _add_suffixes(text: str, suffixes: list, indent: int) -> str:
    """PyTorch's suffix layout with ``force_newline``: the first suffix always starts a new line."""
    pieces = [text]
    line_len = len(text) - text.rfind("\n") + 1   # PyTorch's count, 2 more than the real length
    force_newline = True
    for suffix in suffixes:
        if force_newline or line_len + len(suffix) + 2 > LINEWIDTH:
            pieces.append(",\n" + " " * indent + suffix)
            line_len = indent + len(suffix)
            force_newline = False
        else:
            pieces.append(", " + suffix)
            line_len += len(suffix) + 2
    pieces.append(")")
    return "".join(pieces)


def sparse_repr(indices: np.ndarray, values: np.ndarray, size: tuple, grad_fn=None,
                requires_grad: bool = False) -> str:
    """The text of ``repr(sparse_tensor)`` (the dtype is shown unless it is a default one)."""
    indent = len(_PREFIX)
    text = (_PREFIX + _INDICES_PREFIX + _body(indices, indent + len(_INDICES_PREFIX)) + "),\n"
            + " " * indent + _VALUES_PREFIX + _body(values, indent + len(_VALUES_PREFIX)) + ")")
    suffixes = [f"size={tuple(size)}", f"nnz={values.shape[0]}"]
    if values.dtype.name not in _DEFAULT_DTYPES:
        suffixes.append(f"dtype=torch.{values.dtype.name}")
    suffixes.append("layout=torch.sparse_coo")
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn.name()}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(text, suffixes, indent)
