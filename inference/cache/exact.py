"""Exact tier: completions keyed by `keys.exact_key` (model, prompt format, full prompt, sampling,
dependency versions) in an in-memory LRU of `capacity` entries.

An exact hit is the text the model gave for this very prompt, so it is served without re-checks.
"""

from __future__ import annotations

from .keys import Dependencies
from .stats import TierStats
from .tagged_lru import TaggedLRU


class ExactTier:
    name = "exact"

    def __init__(self, capacity: int):
        self.stats = TierStats()
        self.lru = TaggedLRU(capacity, self.stats)

    def get(self, key: str) -> str | None:
        entry = self.lru.get(key)
        if entry is None:
            self.stats.misses += 1
            return None
        self.stats.hits += 1
        return entry.text

    def put(self, key: str, text: str, deps: Dependencies) -> None:
        self.lru.put(key, text, deps)
        self.stats.stores += 1

    def invalidate(self, path: str, fingerprint: str) -> int:
        return self.lru.invalidate(path, fingerprint)

    def snapshot(self) -> dict:
        return {**self.stats.as_dict(), "entries": len(self.lru), "bytes": self.lru.bytes}
