"""Print tensors exactly the way PyTorch does.

``format_tensor(data, suffixes)`` returns the text of ``repr(tensor)`` for a
tensor holding ``data``, e.g. ``tensor([1., 2.], requires_grad=True)``.

PyTorch's rules (default print options), which this module reproduces:

* One layout is chosen for the whole tensor, so the columns line up:
  every element is right-aligned to the width of the widest one.
* Integer and bool tensors print each value with ``str``.
* A float tensor whose finite values are all whole numbers prints them
  as ``3.`` ("int mode"); otherwise every value gets 4 decimals, ``3.1416``.
* Scientific notation (``1.0000e-05``) is used instead when the nonzero
  finite magnitudes span more than a factor of 1000, or exceed 1e8, or go
  below 1e-4. Zeros, nan and inf take no part in these decisions.
* A tensor with more than 1000 elements is summarised: along every dimension
  longer than 6 only the first 3 and last 3 entries are shown, with ``...``
  in between. The layout is then chosen from the shown entries only.
* A row that does not fit in 80 characters is wrapped; a dimension of
  rank ``k >= 2`` separates its blocks with ``k - 1`` line breaks.
"""

import math
from typing import Optional, Sequence

import numpy as np

PRECISION = 4  # decimals in fixed and scientific notation
THRESHOLD = 1000  # more elements than this -> summarise
EDGEITEMS = 3  # entries kept at each end of a summarised dimension
LINEWIDTH = 80

_PREFIX = "tensor("

# Tensors of these dtypes print without a dtype= suffix. (complex64 is the
# complex partner of the default float32.)
_DEFAULT_DTYPES = {"float32", "complex64", "int64", "bool"}


def dtype_suffix(data: np.ndarray) -> Optional[str]:
    """Return e.g. ``"dtype=torch.float64"`` when PyTorch would print the dtype, else None.

    The dtype is left out for the default dtypes (float32, int64, bool), unless
    the tensor is empty: then only float32 goes without saying, since there are
    no values to show that an empty tensor holds integers or bools.
    """
    name = data.dtype.name
    if data.size == 0:
        shown = name != "float32"
    else:
        shown = name not in _DEFAULT_DTYPES
    return f"dtype=torch.{name}" if shown else None


def format_tensor(data: np.ndarray, suffixes: Sequence[str] = ()) -> str:
    """Return what PyTorch prints for a tensor with these values, e.g. 'tensor([1., 2.], requires_grad=True)'.

    ``suffixes`` are the already formatted trailing pieces, in order, such as
    ``"dtype=torch.float64"`` and ``"grad_fn=<MulBackward0>"``. For an empty
    tensor that is not 1-D, the ``size=(...)`` suffix is added in front of them.
    """
    data = np.asarray(data)
    suffixes = list(suffixes)
    if data.size == 0:
        body = "[]"
        if data.ndim != 1:
            suffixes.insert(0, f"size={tuple(data.shape)}")
    else:
        summarize = data.size > THRESHOLD
        shown = _summarized(data) if summarize else data
        if data.dtype.kind == "c":
            formatter = _ComplexFormatter(shown)
        else:
            formatter = _Formatter(shown)
        body = _format_body(data, len(_PREFIX), summarize, formatter)
    return _add_suffixes(_PREFIX + body, suffixes)


class _Formatter:
    """The layout shared by all elements: the notation and the column width.

    It is decided from ``values``, the elements that will be shown.
    """

    def __init__(self, values: np.ndarray):
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        if not self.floating:
            self.width = max(len(str(v)) for v in values.ravel().tolist())
            return

        self.width = 1
        flat = values.ravel().astype(np.float64)  # exact for float16/32 values
        nonzero_finite = flat[np.isfinite(flat) & (flat != 0)]
        if nonzero_finite.size == 0:
            return  # only zeros, nan and inf: int mode, e.g. tensor([0., nan])
        magnitudes = np.abs(nonzero_finite)
        smallest, largest = magnitudes.min(), magnitudes.max()
        self.int_mode = bool(np.all(nonzero_finite == np.ceil(nonzero_finite)))
        self.sci_mode = bool(largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4)
        self.width = max(len(self._text(v)) for v in nonzero_finite.tolist())

    def _text(self, value) -> str:
        if not self.floating:
            return str(value)
        if self.sci_mode:
            return f"{value:.{PRECISION}e}"
        if self.int_mode:
            # The trailing dot marks a float; nan and inf need no marking.
            return f"{value:.0f}" + ("" if math.isinf(value) or math.isnan(value) else ".")
        return f"{value:.{PRECISION}f}"

    def __call__(self, value) -> str:
        return self._text(value).rjust(self.width)


class _ComplexFormatter:
    """Complex numbers: real and imaginary parts each get their own layout."""

    def __init__(self, values: np.ndarray):
        self.real = _Formatter(values.real)
        self.imag = _Formatter(values.imag)
        self.width = self.real.width + self.imag.width + 1  # +1 for the "j"

    def __call__(self, value) -> str:
        imag = (self.imag(value.imag) + "j").lstrip()
        sign = "" if imag[0] in "+-" else "+"
        return self.real(value.real) + sign + imag


def _summarized(data: np.ndarray) -> np.ndarray:
    """Keep only the entries a summarised print shows: the ends of every long dimension."""
    if data.ndim == 0:
        return data
    kept = [
        np.r_[0:EDGEITEMS, n - EDGEITEMS : n] if n > 2 * EDGEITEMS else np.arange(n)
        for n in data.shape
    ]
    return data[np.ix_(*kept)]


def _format_body(data: np.ndarray, indent: int, summarize: bool, formatter) -> str:
    """The bracketed values; ``indent`` is the column where this block's "[" sits."""
    if data.ndim == 0:
        return formatter(data.item())
    if data.ndim == 1:
        return _format_row(data, indent, summarize, formatter)

    n = data.shape[0]
    if summarize and n > 2 * EDGEITEMS:
        indices = [*range(EDGEITEMS), None, *range(n - EDGEITEMS, n)]
    else:
        indices = range(n)
    blocks = [
        "..." if i is None else _format_body(data[i], indent + 1, summarize, formatter)
        for i in indices
    ]
    separator = "," + "\n" * (data.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(blocks) + "]"


def _format_row(row: np.ndarray, indent: int, summarize: bool, formatter) -> str:
    """A 1-D row, wrapped so that each line holds as many elements as fit."""
    n = row.shape[0]
    if summarize and n > 2 * EDGEITEMS:
        items = (
            [formatter(v) for v in row[:EDGEITEMS].tolist()]
            + [" ..."]
            + [formatter(v) for v in row[n - EDGEITEMS :].tolist()]
        )
    else:
        items = [formatter(v) for v in row.tolist()]

    # Every element takes its width plus ", ". The " ..." counts as an element too.
    per_line = max(1, (LINEWIDTH - indent) // (formatter.width + 2))
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _add_suffixes(text: str, suffixes: Sequence[str]) -> str:
    """Append the ", suffix" pieces and the closing ")".

    A suffix that would pass the line width starts a new line instead.
    """
    indent = len(_PREFIX)
    # This copies PyTorch's bookkeeping exactly, quirks included, so that lines
    # break at the same places: the current line is counted 2 characters longer
    # than it is, except just after a suffix was moved to a new line.
    line_len = len(text) - text.rfind("\n") + 1
    pieces = [text]
    for suffix in suffixes:
        if line_len + len(suffix) + 2 > LINEWIDTH:
            pieces.append(",\n" + " " * indent + suffix)
            line_len = indent + len(suffix)
        else:
            pieces.append(", " + suffix)
            line_len += len(suffix) + 2
    pieces.append(")")
    return "".join(pieces)
