"""Scores of one completion and paired bootstrap intervals of the differences between settings.

Scores are CrossCodeEval's (benchmarks/quality_metrics.py): exact match and edit similarity of the
first line, whitespace-stripped, here in points (0-100).

`paired_bootstrap(a, b)`: `a[i]` and `b[i]` score the same case under two settings. The mean
difference `mean(a - b)` and its 95% percentile interval over `resamples` resamples of the cases
with replacement, drawn by a RNG seeded with `seed` (deterministic). Pure Python.
"""

from __future__ import annotations

import random
import statistics

from benchmarks.quality_metrics import edit_similarity, exact_match


def score(post: str, truth: str) -> dict[str, float]:
    return {"em": 100.0 * exact_match(post, truth), "es": round(100.0 * edit_similarity(post, truth), 2)}


def paired_bootstrap(a: list[float], b: list[float], *, resamples: int = 2000, seed: int = 0,
                     level: float = 0.95) -> dict[str, float]:
    if len(a) != len(b):
        raise ValueError("paired samples must have the same length")
    n = len(a)
    if n == 0:
        return {"n": 0, "mean": 0.0, "low": 0.0, "high": 0.0}
    diffs = [x - y for x, y in zip(a, b)]
    rng = random.Random(seed)
    means = sorted(sum(diffs[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    tail = (1.0 - level) / 2
    low = means[int(tail * resamples)]
    high = means[min(resamples - 1, int((1.0 - tail) * resamples))]
    return {"n": n, "mean": round(statistics.fmean(diffs), 2), "low": round(low, 2), "high": round(high, 2)}
