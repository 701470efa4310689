"""`LazyTuple`: the read-only sequence behaviour shared by values built on first access.

A subclass provides `_materialise()` (the items as a tuple, computed once and kept) and, where it
can answer without materialising, its own `__len__`. Invariants: indexing, iteration, equality and
hashing are those of the materialised tuple; an instance equals another of the same class or a
tuple with equal items.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, overload


class LazyTuple(Sequence):
    __slots__ = ()

    def _materialise(self) -> tuple:
        raise NotImplementedError

    def __len__(self) -> int:
        return len(self._materialise())

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> tuple: ...
    def __getitem__(self, index):
        return self._materialise()[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._materialise())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, type(self)):
            return self._materialise() == other._materialise()
        if isinstance(other, tuple):
            return self._materialise() == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._materialise())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self._materialise())!r})"
