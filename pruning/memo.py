"""`LruMemo`: the bounded memo the pruner keeps its reusable work in.

Invariant: it holds at most `size` entries; storing one more drops the least recently used
(read or stored) entry. Values may be None (a remembered "nothing"): `MISSING` tells a miss.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

V = TypeVar("V")
MISSING: Any = object()


class LruMemo(Generic[V]):
    __slots__ = ("size", "_items")

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, V] = OrderedDict()

    def get(self, key: Hashable, default: Any = None) -> V | Any:
        """The value for `key` (now the most recently used), or `default`."""
        value = self._items.get(key, MISSING)
        if value is MISSING:
            return default
        self._items.move_to_end(key)
        return value

    def put(self, key: Hashable, value: V) -> V:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)
        return value

    def get_or_make(self, key: Hashable, make: Callable[[], V]) -> V:
        """The value for `key`, made with `make()` and stored on a miss."""
        value = self.get(key, MISSING)
        return self.put(key, make()) if value is MISSING else value

    def clear(self) -> None:
        self._items.clear()

    def __len__(self) -> int:
        return len(self._items)
