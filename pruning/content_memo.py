"""`ContentMemo`: the one registry of content-addressed values the pruner keeps between contexts.

Key: `(kind, exact text)` (plus the tokenizer's name for token counts): a value is a pure
function of its key, so a hit equals a recomputation and nothing ever needs invalidating. A text
longer than `MAX_KEY_CHARS` is keyed by its length and xxh3_128 digest instead, so the registry
never holds more than `size * MAX_KEY_CHARS` characters of keys.
Bounded: at most `size` entries; storing one more drops the least recently used.

The registry has an owner (the server's pipeline holds one for its lifetime and passes it to
every `build_context`); there is no process-global instance. What it holds:
- token counts of any text (lines, signatures, rendered snippets), by any tokenizer: a lookup
  costs less than even the approximate count of a short line. A long text that misses is
  counted as the sum of its lines' counts (each kept too) where the tokenizer's counts add up
  over lines (`lines_add_up`, the approximate one): a snippet of the buffer being typed in
  changes by one line per keystroke, and its other lines are found here;
- the typed declarations of one piece of a class or function (`local_types`), keyed by the
  language, the piece's node type and its text.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TypeVar

import xxhash

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
        """`base` with its counts kept here."""
        return _CountingTokenizer(base, self)

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


class _CountingTokenizer:
    def __init__(self, base, memo: ContentMemo) -> None:
        self.base = base
        self.memo = memo
        self.name = getattr(base, "name", type(base).__name__)
        self.lines_add_up = getattr(base, "lines_add_up", False)

    def count(self, text: str) -> int:
        # `ContentMemo.value` inlined: a context counts hundreds of texts, nearly all kept here
        long = len(text) > MAX_KEY_CHARS
        key = ("tokens", self.name, _digest(text) if long else text)
        memo = self.memo
        tokens = memo._items.get(key)
        if tokens is not None:
            memo._items.move_to_end(key)
            memo.hits += 1
            return tokens  # type: ignore[return-value]
        if long and self.lines_add_up and "\n" in text[:-1]:  # one line and its "\n": no split
            lines = text.split("\n")
            last = lines.pop()
            by_lines = sum(self.count(line + "\n") for line in lines) + self.count(last)
            return memo.value(key, lambda: by_lines)
        return memo.value(key, lambda: self.base.count(text))


def _digest(text: str) -> tuple[int, int]:
    return len(text), xxhash.xxh3_128_intdigest(text.encode("utf-8", "surrogatepass"))
