"""Per-system summaries of pause records, and the issue's goals checked against them.

Rules:
- Latency percentiles are over every pause: a pause without ghost text counts as the pause
  timeout (10 s), so a system that rarely answers cannot look fast. Percentiles interpolate
  linearly between order statistics.
- The exact-line rate is over every pause (a pause without ghost text is not exact).
- "Exact within 1 s" counts pauses whose ghost text is exact and came within 1,000 ms.
- Tokens prefilled are over pauses whose figure is known (None is left out; the count of known
  figures is reported beside it). `prefilled_p50` takes the answering request's figure;
  `prefilled_per_pause_p50` the sum over all requests of the pause.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .records import PauseRecord

HEADLINE = "arbor-ls-embedded"
PEER = "llama-server-llamavim"


def percentile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return round(ordered[low] + (ordered[high] - ordered[low]) * (rank - low), 1)


def summarise(records: Sequence[PauseRecord], pause_timeout_ms: float) -> dict[str, Any]:
    n = len(records)
    latencies = [r.latency_ms if r.latency_ms is not None else pause_timeout_ms for r in records]
    answered = [r.latency_ms for r in records if r.latency_ms is not None]
    prefilled = [r.prefilled_tokens for r in records if r.prefilled_tokens is not None]
    per_pause = [r.prefilled_pause_total for r in records if r.prefilled_pause_total is not None]
    budgets = [r.budget_tokens for r in records if r.budget_tokens is not None]
    tiers: dict[str, int] = {}
    for r in records:
        if r.suggested:
            tiers[r.cache or "none"] = tiers.get(r.cache or "none", 0) + 1
    return {
        "pauses": n,
        "latency_p50_ms": percentile(latencies, 0.5),
        "latency_p90_ms": percentile(latencies, 0.9),
        "answered_latency_p50_ms": percentile(answered, 0.5),
        "suggestion_rate": round(sum(r.suggested for r in records) / n, 3) if n else None,
        "exact_line_rate": round(sum(r.exact for r in records) / n, 3) if n else None,
        "exact_within_1s_rate": round(
            sum(r.exact and r.latency_ms is not None and r.latency_ms <= 1000 for r in records) / n, 3) if n else None,
        "prefilled_p50": percentile(prefilled, 0.5),
        "prefilled_known": len(prefilled),
        "prefilled_per_pause_p50": percentile(per_pause, 0.5),
        "prefilled_per_pause_mean": round(sum(per_pause) / len(per_pause), 1) if per_pause else None,
        "budget_tokens_p50": percentile(budgets, 0.5),
        "asks_per_pause": round(sum(r.asks for r in records) / n, 2) if n else None,
        "ready_notifications": sum(r.ready_notifications for r in records),
        "cache_tiers_of_suggestions": tiers,
    }


def goals(summaries: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The issue's goals for the headline system; a goal whose inputs are missing is unmet and
    says so."""
    head = summaries.get(HEADLINE)
    peer = summaries.get(PEER)
    if head is None:
        return [{"goal": "headline system measured", "met": False, "detail": f"{HEADLINE} not run"}]

    def check(name: str, value: Any, target: Any, met: bool | None) -> dict[str, Any]:
        return {"goal": name, "value": value, "target": target, "met": bool(met) if met is not None else False,
                **({} if met is not None else {"detail": "not measured"})}

    p50, p90 = head["latency_p50_ms"], head["latency_p90_ms"]
    peer_p50 = peer["latency_p50_ms"] if peer else None
    prefilled = head["prefilled_p50"]
    peer_exact = peer["exact_line_rate"] if peer else None
    return [
        check("suggestion at >= 95% of pauses", head["suggestion_rate"], 0.95,
              None if head["suggestion_rate"] is None else head["suggestion_rate"] >= 0.95),
        check("P50 <= 400 ms", p50, 400, None if p50 is None else p50 <= 400),
        check("P90 <= 1200 ms", p90, 1200, None if p90 is None else p90 <= 1200),
        check("P50 <= 0.5x llama.vim-driven llama-server's P50", p50,
              None if peer_p50 is None else round(0.5 * peer_p50, 1),
              None if (p50 is None or peer_p50 is None) else p50 <= 0.5 * peer_p50),
        check("P50 tokens prefilled per request <= 32", prefilled, 32,
              None if prefilled is None else prefilled <= 32),
        check("exact-line rate >= llama.vim-driven llama-server's", head["exact_line_rate"], peer_exact,
              None if peer_exact is None else head["exact_line_rate"] >= peer_exact),
    ]
