"""The switches shared by the text description and the picture of a graph."""
from __future__ import annotations

from dataclasses import dataclass

RANKDIRS = ("TB", "BT", "LR", "RL")


@dataclass(frozen=True)
class DrawOptions:
    """What to show. ``draw()`` fills one of these from its keyword arguments.

    >>> DrawOptions(show_saved=False).show_saved
    False
    """

    show_saved: bool = True  # saved tensors (ctx.save_for_backward / _saved_self ...)
    show_attrs: bool = True  # ctx attributes, needs_input_grad, non-tensor arguments
    show_grads: bool = True  # .grad of leaves and retained tensors
    show_data: bool = False  # values of small tensors
    max_attr_chars: int = 50  # longer ctx attribute values are cut (torchviz's option)
    rankdir: str = "TB"  # "TB": outputs at the top, gradients flow down to the leaves
    title: str | None = None

    def __post_init__(self) -> None:
        if self.rankdir not in RANKDIRS:
            raise ValueError(f"rankdir must be one of {RANKDIRS}, got {self.rankdir!r}")
