"""`TaggedLRU`: a bounded in-memory map whose entries are tagged with the files they depend on.

Invariants:
- At most `capacity` entries; inserting into a full map evicts the least recently used entry
  (a successful `get` or a `put` makes an entry the most recently used).
- `by_path[path]` holds exactly the keys of live entries that depend on `path`, each with the
  fingerprint that entry was built from; `invalidate(path, fp)` removes every entry whose
  fingerprint for `path` differs from `fp`, in O(entries depending on `path`).
- `bytes` is the sum of the UTF-8 sizes of the live entries' texts.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from .keys import Dependencies
from .stats import TierStats


@dataclass(slots=True, frozen=True)
class Entry:
    text: str
    deps: Dependencies
    size: int


class TaggedLRU:
    def __init__(self, capacity: int, stats: TierStats):
        self.capacity = capacity
        self.stats = stats
        self.entries: OrderedDict[str, Entry] = OrderedDict()
        self.by_path: dict[str, dict[str, str]] = {}
        self.bytes = 0

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, key: str) -> Entry | None:
        entry = self.entries.get(key)
        if entry is not None:
            self.entries.move_to_end(key)
        return entry

    def put(self, key: str, text: str, deps: Dependencies) -> None:
        if key in self.entries:
            self._remove(key)
        entry = Entry(text, deps, len(text.encode("utf-8", "surrogatepass")))
        self.entries[key] = entry
        self.bytes += entry.size
        for path, fp in deps:
            self.by_path.setdefault(path, {})[key] = fp
        while len(self.entries) > self.capacity:
            oldest = next(iter(self.entries))
            self._remove(oldest)
            self.stats.capacity += 1

    def discard(self, key: str) -> bool:
        if key not in self.entries:
            return False
        self._remove(key)
        return True

    def invalidate(self, path: str, fingerprint: str) -> int:
        """Drop the entries built from another version of `path`; returns how many."""
        tagged = self.by_path.get(path)
        if not tagged:
            return 0
        stale = [key for key, fp in tagged.items() if fp != fingerprint]
        for key in stale:
            self._remove(key)
        self.stats.invalidated += len(stale)
        return len(stale)

    def clear(self) -> None:
        self.entries.clear()
        self.by_path.clear()
        self.bytes = 0

    def _remove(self, key: str) -> None:
        entry = self.entries.pop(key)
        self.bytes -= entry.size
        for path, _fp in entry.deps:
            tagged = self.by_path.get(path)
            if tagged is not None:
                tagged.pop(key, None)
                if not tagged:
                    del self.by_path[path]
