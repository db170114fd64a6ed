"""Checkers for the course's "Your turn" exercises, one module per notebook (``nb04`` for
``04_where_ctx_comes_from.ipynb``). Each checker prints ✓ or ✗ with what is wrong and a hint.

``set_language("zh")`` makes them answer in Chinese (the Chinese notebooks do it in their
set-up cell).

>>> from minigrad.exercises import nb00
"""
from ._feedback import get_language, set_language

__all__ = ["get_language", "set_language"]
