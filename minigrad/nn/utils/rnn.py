"""``torch.nn.utils.rnn``: padding and packing sequences of different lengths for recurrent layers.

minigrad has no recurrent layers (write the cell with ``nn.Linear``, ``tanh`` and ``sigmoid``), so of
this module only ``pad_sequence``, which batches sequences of different lengths for any model, is
implemented. The packing functions and ``PackedSequence`` exist under PyTorch's names, so that code
importing them runs, and raise NotImplementedError when used.

>>> import minigrad as torch
>>> from minigrad.nn.utils.rnn import pad_sequence
>>> pad_sequence([torch.ones(2), torch.ones(3)], batch_first=True)
tensor([[1., 1., 0.],
        [1., 1., 1.]])
"""
from __future__ import annotations

from ...ops._util import check_broadcast
from ...tensor import Tensor


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack sequences of different lengths (along their first dimension) into one tensor, padding
    the shorter ones with ``padding_value``: shape [longest, batch, ...] ([batch, longest, ...] with
    ``batch_first``). Each sequence is written in place into the padded tensor (CopySlices nodes)."""
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    longest = max(s.shape[0] for s in sequences)
    trailing = tuple(sequences[0].shape[1:])
    shape = (len(sequences), longest) + trailing if batch_first else (longest, len(sequences)) + trailing
    out = sequences[0].new_full(shape, padding_value)
    for i, sequence in enumerate(sequences):
        length = sequence.shape[0]
        rows = slice(0, length) if padding_side == "right" else slice(longest - length, longest)
        check_broadcast((length,) + trailing, tuple(sequence.shape))   # PyTorch's copy_ error for other shapes
        out[(i, rows) if batch_first else (rows, i)] = sequence
    return out


def _refused(name: str) -> NotImplementedError:
    return NotImplementedError(f"minigrad does not implement torch.nn.utils.rnn.{name} (packed sequences for "
                               "recurrent layers). Instead: pad the batch with pad_sequence and mask the padding")


def _refusing_function(name: str):
    def function(*args, **kwargs):
        raise _refused(name)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"Not implemented in minigrad (packed sequences): calling it raises."
    return function


pack_padded_sequence, pad_packed_sequence, pack_sequence, unpack_sequence, unpad_sequence, invert_permutation = (
    _refusing_function(name) for name in ("pack_padded_sequence", "pad_packed_sequence", "pack_sequence",
                                          "unpack_sequence", "unpad_sequence", "invert_permutation"))


class PackedSequence:
    """Not implemented in minigrad (packed sequences for recurrent layers): making one raises."""

    def __init__(self, *args, **kwargs) -> None:
        raise _refused("PackedSequence")


__all__ = ["PackedSequence", "pad_sequence", "pack_padded_sequence", "pad_packed_sequence", "pack_sequence",
           "unpack_sequence", "unpad_sequence", "invert_permutation"]
