"""`ContentMemo`: the one registry of content-addressed values the pruner keeps between contexts.

Key: `(kind, exact text)` (plus the tokenizer's name for token counts): a value is a pure
function of its key, so a hit equals a recomputation and nothing ever needs invalidating.
Bounded: at most `size` entries; storing one more drops the least recently used.

The registry has an owner (the server's pipeline holds one for its lifetime and passes it to
every `build_context`); there is no process-global instance. What it holds:
- token counts of texts of up to `MAX_KEY_CHARS` characters (lines, signatures) by a tokenizer
  that is not `cheap` (one whose count costs less than a lookup here is used as it is);
- the typed declarations of one piece of a class or function (`local_types`), keyed by the
  language, the piece's node type and its text.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TypeVar

T = TypeVar("T")

MAX_KEY_CHARS = 512


class ContentMemo:
    def __init__(self, size: int = 8192) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, object] = OrderedDict()
        self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._items)

    def tokenizer(self, base):
        """`base` with its counts kept here; `base` itself when it is `cheap`."""
        return base if getattr(base, "cheap", False) else _CountingTokenizer(base, self)

    def value(self, key: Hashable, make: Callable[[], T]) -> T:
        """The value kept for `key`, or `make()` kept now; `key` starts with the value's kind and
        holds everything `make` reads (see the module docstring)."""
        items = self._items
        value = items.get(key)
        if value is not None:
            items.move_to_end(key)
            self.hits += 1
            return value  # type: ignore[return-value]
        self.misses += 1
        value = make()
        items[key] = value
        if len(items) > self.size:
            items.popitem(last=False)
        return value

    def _count(self, base, text: str) -> int:
        return self.value(("tokens", getattr(base, "name", type(base).__name__), text), lambda: base.count(text))


class _CountingTokenizer:
    def __init__(self, base, memo: ContentMemo) -> None:
        self.base = base
        self.memo = memo
        self.name = getattr(base, "name", type(base).__name__)

    def count(self, text: str) -> int:
        if len(text) <= MAX_KEY_CHARS:
            return self.memo._count(self.base, text)
        return self.base.count(text)
