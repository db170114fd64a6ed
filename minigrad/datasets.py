"""Small data sets for the course, written out in full: Zachary's karate club.

Wayne Zachary watched a university karate club for three years (W. W. Zachary, "An information
flow model for conflict and fission in small groups", *Journal of Anthropological Research* 33(4),
452-473, 1977). He recorded which of its 34 members met outside the club: 78 friendships. During
his study the club split in two after a dispute between the instructor, "Mr. Hi" (member 0 here),
and the club's officer, the administrator (member 33). Each member's group after the split is the
classic label to predict from the friendships alone.

The members are numbered 0 to 33 (Zachary's numbers minus one). The edges and the two groups
are the ones networkx ships as ``karate_club_graph()`` (its ``"club"`` attribute), and the ones
Kipf and Welling's graph convolutional network demo learns from.

>>> from minigrad.datasets import karate_club
>>> club = karate_club()
>>> club.num_nodes, len(club.edges)
(34, 78)
>>> club.edges[:3]
[(0, 1), (0, 2), (0, 3)]
>>> club.labels[[0, 33]], [club.faction_names[i] for i in club.labels[[0, 33]].tolist()]
(tensor([0, 1]), ['Mr. Hi', 'Officer'])
"""
from __future__ import annotations

from typing import NamedTuple

from .factories import tensor
from .tensor import Tensor

MR_HI = 0
"""Member 0: the instructor, "Mr. Hi", leader of one group after the split."""

OFFICER = 33
"""Member 33: the club's officer (administrator), leader of the other group."""

FACTION_NAMES = ("Mr. Hi", "Officer")
"""Label 0 is Mr. Hi's group, label 1 the Officer's group."""

KARATE_EDGES = (
    (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (0, 6), (0, 7), (0, 8),
    (0, 10), (0, 11), (0, 12), (0, 13), (0, 17), (0, 19), (0, 21), (0, 31),
    (1, 2), (1, 3), (1, 7), (1, 13), (1, 17), (1, 19), (1, 21), (1, 30),
    (2, 3), (2, 7), (2, 8), (2, 9), (2, 13), (2, 27), (2, 28), (2, 32),
    (3, 7), (3, 12), (3, 13),
    (4, 6), (4, 10),
    (5, 6), (5, 10), (5, 16),
    (6, 16),
    (8, 30), (8, 32), (8, 33),
    (9, 33),
    (13, 33),
    (14, 32), (14, 33),
    (15, 32), (15, 33),
    (18, 32), (18, 33),
    (19, 33),
    (20, 32), (20, 33),
    (22, 32), (22, 33),
    (23, 25), (23, 27), (23, 29), (23, 32), (23, 33),
    (24, 25), (24, 27), (24, 31),
    (25, 31),
    (26, 29), (26, 33),
    (27, 33),
    (28, 31), (28, 33),
    (29, 32), (29, 33),
    (30, 32), (30, 33),
    (31, 32), (31, 33),
    (32, 33),
)
"""The 78 friendships, each once as ``(i, j)`` with ``i < j`` (the graph is undirected)."""

KARATE_FACTIONS = (
    0, 0, 0, 0, 0, 0, 0, 0, 0, 1,   # members 0-9
    0, 0, 0, 0, 1, 1, 0, 0, 1, 0,   # members 10-19
    1, 0, 1, 1, 1, 1, 1, 1, 1, 1,   # members 20-29
    1, 1, 1, 1,                     # members 30-33
)
"""Each member's group after the split: 0 = Mr. Hi's, 1 = the Officer's (17 members each)."""


class KarateClub(NamedTuple):
    """Zachary's karate club, as ``karate_club()`` returns it."""

    num_nodes: int
    """34 members, numbered 0 to 33."""
    edges: list[tuple[int, int]]
    """The 78 undirected friendships, each once, as ``(i, j)`` with ``i < j``."""
    labels: Tensor
    """int64 tensor of 34 group labels: 0 = Mr. Hi's group, 1 = the Officer's group."""
    faction_names: tuple[str, str]
    """``("Mr. Hi", "Officer")``: the name of label 0 and of label 1."""


def karate_club() -> KarateClub:
    """Zachary's karate club: 34 members, 78 friendships, and each member's group after the split.

    Every call returns new objects (a new edge list and a new label tensor), so changing them
    does not change the data set.

    >>> club = karate_club()
    >>> degree = [sum(member in edge for edge in club.edges) for member in range(club.num_nodes)]
    >>> degree[0], degree[33]          # Mr. Hi and the Officer have the most friends
    (16, 17)
    >>> club.labels.sum().item()       # 17 members in each group
    17
    """
    return KarateClub(num_nodes=34, edges=list(KARATE_EDGES), labels=tensor(list(KARATE_FACTIONS)),
                      faction_names=FACTION_NAMES)


__all__ = ["karate_club", "KarateClub", "KARATE_EDGES", "KARATE_FACTIONS", "FACTION_NAMES", "MR_HI",
           "OFFICER"]
