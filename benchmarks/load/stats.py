"""Latency and throughput statistics (pure functions).

Percentiles use linear interpolation between closest ranks (numpy's default "linear" method), so
p50 of [1, 2] is 1.5 and p100 is the maximum. Figures are rounded to 3 decimals (microseconds for
ms values) only when a summary is built.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) of already sorted values; NaN when there are none."""
    if not sorted_values:
        return math.nan
    if not 0 <= q <= 100:
        raise ValueError("q must lie in [0, 100]")
    rank = (len(sorted_values) - 1) * q / 100
    low = math.floor(rank)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (rank - low)


@dataclass(slots=True)
class ScenarioRecord:
    """What a scenario observed; `latencies_ms` holds one sample per answered request."""

    latencies_ms: list[float] = field(default_factory=list)
    requests: int = 0
    messages: int = 0
    errors: int = 0
    cancelled: int = 0
    nonempty: int = 0  # answers with at least one completion item
    elapsed_s: float = 0.0
    error_samples: list[str] = field(default_factory=list)

    def error(self, message: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 5:
            self.error_samples.append(message)

    def merge(self, other: ScenarioRecord) -> None:
        """Add another record's counts and samples; elapsed is the longer of the two (they ran
        concurrently)."""
        self.latencies_ms.extend(other.latencies_ms)
        self.requests += other.requests
        self.messages += other.messages
        self.errors += other.errors
        self.cancelled += other.cancelled
        self.nonempty += other.nonempty
        self.elapsed_s = max(self.elapsed_s, other.elapsed_s)
        self.error_samples.extend(other.error_samples[: max(0, 5 - len(self.error_samples))])


def _round(value: float, digits: int = 3) -> float | None:
    return None if math.isnan(value) else round(value, digits)


def summarize(record: ScenarioRecord) -> dict:
    """The JSON summary of one scenario run (the keys the issue and README document)."""
    ordered = sorted(record.latencies_ms)
    elapsed = record.elapsed_s if record.elapsed_s > 0 else math.nan
    summary = {
        "p50_ms": _round(percentile(ordered, 50)),
        "p95_ms": _round(percentile(ordered, 95)),
        "p99_ms": _round(percentile(ordered, 99)),
        "max_ms": _round(ordered[-1]) if ordered else None,
        "mean_ms": _round(sum(ordered) / len(ordered)) if ordered else None,
        "requests_per_s": _round(record.requests / elapsed, 1),
        "messages_per_s": _round(record.messages / elapsed, 1),
        "errors": record.errors,
        "cancelled": record.cancelled,
        "requests": record.requests,
        "nonempty": record.nonempty,
        "messages": record.messages,
        "samples": len(ordered),
        "elapsed_s": _round(record.elapsed_s),
    }
    if record.error_samples:
        summary["error_samples"] = list(record.error_samples)
    return summary


def find_knee(levels: Sequence[int], throughputs: Sequence[float], min_gain: float = 0.10) -> int | None:
    """The concurrency level where throughput stops growing: the first level whose successor
    raises throughput by less than `min_gain` (relative), or the last level if it always grows.
    None for no data. `levels` must be increasing."""
    if not levels or len(levels) != len(throughputs):
        return None
    for i in range(len(levels) - 1):
        base = throughputs[i]
        if base <= 0 or (throughputs[i + 1] - base) / base < min_gain:
            return levels[i]
    return levels[-1]


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or denominator in (None, 0):
        return None
    return round(numerator / denominator, 3)
