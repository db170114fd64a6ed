"""minigrad.datasets.karate_club is Zachary's karate club: checked against statistics published
for the network (34 members, 78 friendships, the degree of every member, 45 triangles) and the
two groups after the split."""
from __future__ import annotations

from collections import Counter
from itertools import combinations

from minigrad.datasets import FACTION_NAMES, KARATE_EDGES, KARATE_FACTIONS, MR_HI, OFFICER, karate_club
import pytest
import minigrad as torch

# The degree of each member 0..33, as published for Zachary's network (for example by networkx's
# karate_club_graph). A wrong or missing edge changes two of these numbers.
PUBLISHED_DEGREES = [16, 9, 10, 6, 3, 4, 4, 4, 5, 2, 3, 1, 2, 5, 2, 2, 2, 2, 2, 3, 2, 2, 2, 5, 3, 3, 2, 4, 3,
                     4, 4, 6, 12, 17]

# The members who joined the Officer's group ("Officer" in networkx's "club" attribute).
OFFICER_GROUP = {9, 14, 15, 18, 20, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33}


def degrees(edges) -> list[int]:
    count = Counter(member for edge in edges for member in edge)
    return [count[m] for m in range(34)]


def test_34_members_and_78_distinct_friendships():
    club = karate_club()
    assert club.num_nodes == 34
    assert len(club.edges) == 78
    assert len({frozenset(edge) for edge in club.edges}) == 78        # no friendship listed twice


def test_each_friendship_is_listed_once_as_i_less_than_j_between_members():
    for i, j in karate_club().edges:
        assert isinstance(i, int) and isinstance(j, int)
        assert 0 <= i < j < 34                                        # also: no self-loops


def test_mr_hi_has_16_friends_and_the_officer_17():
    d = degrees(karate_club().edges)
    assert (d[MR_HI], d[OFFICER]) == (16, 17)
    assert (MR_HI, OFFICER) == (0, 33)


def test_every_degree_matches_the_published_network():
    d = degrees(karate_club().edges)
    assert d == PUBLISHED_DEGREES
    assert sum(d) == 2 * 78


def test_the_network_has_45_triangles():
    friends = {frozenset(edge) for edge in KARATE_EDGES}
    triangles = [trio for trio in combinations(range(34), 3)
                 if all(frozenset(pair) in friends for pair in combinations(trio, 2))]
    assert len(triangles) == 45


def test_every_member_is_reachable_from_mr_hi():
    neighbours = {m: set() for m in range(34)}
    for i, j in KARATE_EDGES:
        neighbours[i].add(j)
        neighbours[j].add(i)
    reached, frontier = {MR_HI}, [MR_HI]
    while frontier:
        frontier = [n for m in frontier for n in neighbours[m] if n not in reached]
        reached.update(frontier)
    assert reached == set(range(34))


def test_labels_are_the_two_groups_after_the_split():
    club = karate_club()
    assert club.labels.dtype.name == "int64"
    assert list(club.labels.shape) == [34]
    assert {m for m, label in enumerate(club.labels.tolist()) if label == 1} == OFFICER_GROUP
    assert club.labels[MR_HI].item() == 0 and club.labels[OFFICER].item() == 1
    assert club.faction_names == FACTION_NAMES == ("Mr. Hi", "Officer")
    assert list(KARATE_FACTIONS) == club.labels.tolist()


def test_each_call_returns_new_objects():
    first = karate_club()
    first.edges.append((0, 33))
    first.labels[0] = 1
    second = karate_club()
    assert len(second.edges) == 78
    assert second.labels[0].item() == 0
    assert second.edges is not first.edges and second.labels is not first.labels


def test_datasets_and_the_data_loader_batch_like_pytorch():
    from minigrad.utils.data import ConcatDataset, DataLoader, Dataset, Subset, TensorDataset, random_split
    data = TensorDataset(torch.arange(10.0).view(5, 2), torch.arange(5))
    assert len(data) == 5 and repr(data[1]) == "(tensor([2., 3.]), tensor(1))"
    batches = list(DataLoader(data, batch_size=2))
    assert len(batches) == 3 and repr(batches[-1]) == "[tensor([[8., 9.]]), tensor([4])]"
    assert len(DataLoader(data, batch_size=2, drop_last=True)) == 2
    assert repr(next(iter(DataLoader([(1, 2.0), (3, 4.0)], batch_size=2)))) == \
        "[tensor([1, 3]), tensor([2., 4.], dtype=torch.float64)]"
    assert next(iter(DataLoader([{"a": 1}, {"a": 2}], batch_size=2)))["a"].tolist() == [1, 2]
    assert next(iter(DataLoader(["x", "y"], batch_size=2))) == ["x", "y"]
    assert repr(next(iter(DataLoader(data, batch_size=None)))) == "[tensor([0., 1.]), tensor(0)]"
    torch.manual_seed(0)
    shuffled = [int(t) for _, t in DataLoader(data, batch_size=1, shuffle=True)]
    assert sorted(shuffled) == [0, 1, 2, 3, 4] and shuffled != [0, 1, 2, 3, 4]
    first, second = random_split(data, [3, 2])
    assert (len(first), len(second), type(first)) == (3, 2, Subset)
    assert sorted(first.indices + second.indices) == [0, 1, 2, 3, 4]
    assert len(ConcatDataset([data, data])) == 10 and ConcatDataset([data, data])[7][1].item() == 2
    for call, error, text in [
            (lambda: TensorDataset(torch.ones(2), torch.ones(3)), AssertionError, "Size mismatch between tensors"),
            (lambda: DataLoader(data, shuffle=True, sampler=[0, 1]), ValueError,
             "sampler option is mutually exclusive with shuffle"),
            (lambda: random_split(data, [3, 3]), ValueError,
             "Sum of input lengths does not equal the length of the input dataset!"),
            (lambda: len(Dataset()), TypeError, "object of type 'Dataset' has no len()"),
            (lambda: Dataset()[0], NotImplementedError, "Subclasses of Dataset should implement __getitem__.")]:
        with pytest.raises(error) as info:
            call()
        assert str(info.value) == text
