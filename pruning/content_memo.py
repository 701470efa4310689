"""`ContentMemo`: the one registry of content-addressed values the pruner keeps between contexts.

Key: `(kind, exact text)` (plus the tokenizer's name for token counts): a value is a pure
function of its key, so a hit equals a recomputation and nothing ever needs invalidating.
Bounded: at most `size` entries; storing one more drops the least recently used.

The registry has an owner (the server's pipeline holds one for its lifetime and passes it to
every `build_context`); there is no process-global instance. What it holds today: token counts
of texts of up to `MAX_KEY_CHARS` characters (lines, signatures). A longer text is counted line
by line when the tokenizer is additive over lines (`count(a + b) == count(a) + count(b)` when
`a` ends with a newline), so its lines are the keys.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable

MAX_KEY_CHARS = 512


class ContentMemo:
    def __init__(self, size: int = 8192) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, object] = OrderedDict()
        self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._items)

    def tokenizer(self, base) -> _CountingTokenizer:
        """`base` with its counts kept here."""
        return _CountingTokenizer(base, self)

    def _count(self, base, text: str) -> int:
        key = ("tokens", getattr(base, "name", type(base).__name__), text)
        items = self._items
        value = items.get(key)
        if value is not None:
            items.move_to_end(key)
            self.hits += 1
            return value  # type: ignore[return-value]
        self.misses += 1
        value = base.count(text)
        items[key] = value
        if len(items) > self.size:
            items.popitem(last=False)
        return value


class _CountingTokenizer:
    def __init__(self, base, memo: ContentMemo) -> None:
        self.base = base
        self.memo = memo
        self.name = getattr(base, "name", type(base).__name__)

    def count(self, text: str) -> int:
        if len(text) <= MAX_KEY_CHARS:
            return self.memo._count(self.base, text)
        if not getattr(self.base, "additive_over_lines", False):
            return self.base.count(text)
        lines = text.split("\n")
        return len(lines) - 1 + sum(self.memo._count(self.base, line) if len(line) <= MAX_KEY_CHARS
                                    else self.base.count(line) for line in lines)
