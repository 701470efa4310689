"""Counters for the cache: per-tier hits, misses, stores, evictions and bytes; hit latency.

A lookup that reaches a tier counts exactly once for that tier: a hit or a miss. Tiers after the
one that answered are not consulted and count nothing. Evictions are split by reason:
`invalidated` (a depended-on file changed), `capacity` (LRU or size limit), `rejected` (found,
but refused at serve time: a dependency conflict, or the suffix re-check said no).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

TIERS = ("typing", "exact", "disk", "semantic", "shared")


@dataclass(slots=True)
class TierStats:
    hits: int = 0
    misses: int = 0
    stores: int = 0
    invalidated: int = 0
    capacity: int = 0
    rejected: int = 0
    errors: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"hits": self.hits, "misses": self.misses, "stores": self.stores,
                "evictions": {"invalidated": self.invalidated, "capacity": self.capacity,
                              "rejected": self.rejected},
                "errors": self.errors}


@dataclass(slots=True)
class LatencyWindow:
    """The last `size` samples (milliseconds) in a ring; percentiles over what it holds."""

    size: int = 2048
    samples: list[float] = field(default_factory=list)
    _next: int = 0

    def add(self, ms: float) -> None:
        if len(self.samples) < self.size:
            self.samples.append(ms)
        else:
            self.samples[self._next] = ms
        self._next = (self._next + 1) % self.size

    def percentile(self, q: float) -> float:
        if not self.samples:
            return 0.0
        ordered = sorted(self.samples)
        index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
        return round(ordered[index], 4)

    def as_dict(self) -> dict[str, float]:
        return {"count": len(self.samples), "p50": self.percentile(50), "p95": self.percentile(95),
                "max": round(max(self.samples), 4) if self.samples else 0.0}
