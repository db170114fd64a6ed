"""Checkers for the course's "Your turn" exercises, one module per notebook (``nb04`` for
``04_where_ctx_comes_from.ipynb``). Each checker prints ✓ or ✗ with what is wrong and a hint.

>>> from minigrad.exercises import nb00   # doctest: +SKIP
"""
