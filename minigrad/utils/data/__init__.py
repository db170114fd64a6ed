"""``torch.utils.data``: datasets, and ``DataLoader``, which draws batches from them.

A dataset is anything with ``__getitem__`` and ``__len__``. ``DataLoader`` walks its indices (in
order, or shuffled with minigrad's random generator), takes ``batch_size`` items at a time and
glues them with ``default_collate``: tensors are stacked, numbers become tensors, tuples and
dicts are collated field by field. Everything runs in this process: ``num_workers`` is accepted
and ignored (the batches are the same).

>>> import minigrad as torch
>>> from minigrad.utils.data import DataLoader, TensorDataset
>>> data = TensorDataset(torch.arange(10.0).view(5, 2), torch.arange(5))
>>> data[1]
(tensor([2., 3.]), tensor(1))
>>> [labels for _, labels in DataLoader(data, batch_size=2)]
[tensor([0, 1]), tensor([2, 3]), tensor([4])]
"""
from __future__ import annotations

import math
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from ... import factories
from ...tensor import Tensor
from ...types import float64


class Dataset:
    """Base class of map-style datasets: subclass it and define ``__getitem__`` and ``__len__``."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: "Dataset") -> "ConcatDataset":
        return ConcatDataset([self, other])


class TensorDataset(Dataset):
    """Item ``i`` is the tuple of every tensor's row ``i`` (all tensors have the same first size)."""

    def __init__(self, *tensors: Tensor) -> None:
        if not all(tensors[0].size(0) == t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class Subset(Dataset):
    """The items of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices: Sequence[int]) -> None:
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, index):
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    """Several datasets one after the other."""

    def __init__(self, datasets) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        self.cumulative_sizes = list(np.cumsum([len(d) for d in self.datasets]))

    def __len__(self) -> int:
        return int(self.cumulative_sizes[-1])

    def __getitem__(self, index: int):
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index += len(self)
        which = int(np.searchsorted(self.cumulative_sizes, index, side="right"))
        start = int(self.cumulative_sizes[which - 1]) if which else 0
        return self.datasets[which][index - start]


def random_split(dataset, lengths: Sequence, generator=None) -> list:
    """Split ``dataset`` into non-overlapping random subsets of the given lengths (or fractions)."""
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = [int(math.floor(n * frac)) for frac in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = factories._generator.permutation(n).tolist()
    subsets, start = [], 0
    for length in lengths:
        subsets.append(Subset(dataset, order[start:start + length]))
        start += length
    return subsets


class Sampler:
    """Base class of the index orders a DataLoader can walk."""

    def __iter__(self) -> Iterator[int]:
        raise NotImplementedError


class SequentialSampler(Sampler):
    def __init__(self, data_source) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A fresh random permutation of the indices at each pass (drawn from minigrad's generator)."""

    def __init__(self, data_source, replacement: bool = False, num_samples: int | None = None, generator=None) -> None:
        self.data_source, self.replacement, self._num_samples = data_source, replacement, num_samples

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        if self.replacement:
            return iter(factories._generator.integers(0, n, size=self.num_samples).tolist())
        return iter(factories._generator.permutation(n).tolist()[:self.num_samples])

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler`` (the last one shorter unless ``drop_last``)."""

    def __init__(self, sampler, batch_size: int, drop_last: bool) -> None:
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self) -> Iterator[list]:
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)


def default_collate(batch: list):
    """Glue a list of items into one batch: tensors (and numpy arrays) are stacked, Python numbers
    become a tensor (float64 for floats, int64 for ints), tuples, lists and dicts are collated field
    by field, strings stay a list."""
    from ...ops import stack
    first = batch[0]
    if isinstance(first, Tensor):
        return stack(batch, 0)
    if isinstance(first, np.ndarray):
        return stack([factories.from_numpy(b) for b in batch], 0)
    if isinstance(first, bool):
        return factories.tensor(batch)
    if isinstance(first, float):
        return factories.tensor(batch, dtype=float64)
    if isinstance(first, (int, np.integer)):
        return factories.tensor(batch)
    if isinstance(first, (str, bytes)):
        return batch
    if isinstance(first, dict):
        return {key: default_collate([b[key] for b in batch]) for key in first}
    if isinstance(first, tuple) and hasattr(first, "_fields"):   # a namedtuple
        return type(first)(*(default_collate(list(field)) for field in zip(*batch)))
    if isinstance(first, (tuple, list)):
        return [default_collate(list(field)) for field in zip(*batch)]
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found "
                    f"{type(first)}")


def default_convert(data):
    """What ``batch_size=None`` applies to each item: numpy arrays become tensors, the rest stays."""
    if isinstance(data, np.ndarray):
        return factories.from_numpy(data)
    if isinstance(data, (tuple, list)) and not hasattr(data, "_fields"):   # a tuple comes back as a list
        return [default_convert(d) for d in data]
    return data


class DataLoader:
    """Batches of ``batch_size`` items from ``dataset``, in order or shuffled, glued by ``collate_fn``."""

    def __init__(self, dataset, batch_size: int | None = 1, shuffle: bool | None = None, sampler=None,
                 batch_sampler=None, num_workers: int = 0, collate_fn: Callable | None = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None,
                 persistent_workers: bool = False, pin_memory_device: str = "", in_order: bool = True) -> None:
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")
        if sampler is None:
            sampler = RandomSampler(dataset) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler, self.num_workers = sampler, batch_sampler, num_workers
        self.collate_fn = collate_fn or (default_collate if batch_sampler is not None else default_convert)
        self.pin_memory, self.timeout, self.generator = pin_memory, timeout, generator

    def __iter__(self) -> Iterator[Any]:
        if self.batch_sampler is None:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])
            return
        for indices in self.batch_sampler:
            yield self.collate_fn([self.dataset[i] for i in indices])

    def __len__(self) -> int:
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)


__all__ = ["Dataset", "TensorDataset", "Subset", "ConcatDataset", "random_split", "Sampler", "SequentialSampler",
           "RandomSampler", "BatchSampler", "default_collate", "default_convert", "DataLoader"]

from ...inventory import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.utils.data")   # a PyTorch name minigrad lacks: NotImplementedError with the reason
