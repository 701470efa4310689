"""Per-stage latency histograms for `arbor/stats` (`stageLatencyMs`): context, cache, backend,
postprocess and total, as each completion's `latency_ms` names them.

Invariants:
- Memory is bounded whatever the uptime: per stage, fixed bucket counts plus the last `window`
  samples (percentiles are computed over those).
- `buckets` are cumulative-free counts per upper bound in `BOUNDS_MS` (`"+Inf"` last): a sample
  counts in the first bucket whose bound is >= the sample.
"""

from __future__ import annotations

import bisect
from collections import deque
from typing import Any

BOUNDS_MS: tuple[float, ...] = (0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
MAX_STAGES = 16  # a backend reporting odd stage names cannot grow the table without bound


class StageHistogram:
    def __init__(self, window: int) -> None:
        self.counts = [0] * (len(BOUNDS_MS) + 1)
        self.total = 0
        self.sum_ms = 0.0
        self.recent: deque[float] = deque(maxlen=window)

    def record(self, ms: float) -> None:
        self.counts[bisect.bisect_left(BOUNDS_MS, ms)] += 1
        self.total += 1
        self.sum_ms += ms
        self.recent.append(ms)

    def snapshot(self) -> dict[str, Any]:
        ordered = sorted(self.recent)

        def pick(q: float) -> float:
            return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

        labels = [f"{b:g}" for b in BOUNDS_MS] + ["+Inf"]
        return {"count": self.total, "meanMs": round(self.sum_ms / self.total, 3),
                "p50": pick(0.5), "p95": pick(0.95), "max": ordered[-1],
                "buckets": {label: n for label, n in zip(labels, self.counts) if n}}


class StageLatency:
    def __init__(self, window: int = 1000) -> None:
        self.window = window
        self.stages: dict[str, StageHistogram] = {}

    def record(self, latency_ms: dict[str, float]) -> None:
        for stage, ms in latency_ms.items():
            if not isinstance(ms, (int, float)):
                continue
            histogram = self.stages.get(stage)
            if histogram is None:
                if len(self.stages) >= MAX_STAGES:
                    continue
                histogram = self.stages[stage] = StageHistogram(self.window)
            histogram.record(float(ms))

    def snapshot(self) -> dict[str, Any]:
        return {stage: h.snapshot() for stage, h in sorted(self.stages.items())}
