"""Server counters and a latency window, reported by the `arbor/stats` request.

Latency percentiles are computed over the last `window` completions only, and `recent` keeps the
last `recent_window` completions (where, which tier answered, tokens prefilled), so memory stays
flat however long the server runs.
"""

from __future__ import annotations

from collections import Counter, deque
from typing import Any

from .stage_latency import StageLatency


class ServerStats:
    def __init__(self, window: int = 1000, recent_window: int = 256):
        self.counters: Counter[str] = Counter()
        self.latencies_ms: deque[float] = deque(maxlen=window)
        self.recent: deque[dict[str, Any]] = deque(maxlen=recent_window)
        self.stages = StageLatency(window)

    def record_completion(self, key: Any, result: Any) -> None:
        """One finished completion, newest last: `key` has uri, version, line and character."""
        usage = result.usage
        self.stages.record(result.latency_ms)
        self.recent.append({
            "uri": key.uri, "version": key.version, "line": key.line, "character": key.character,
            "cache": result.cache, "backend": result.backend, "chars": len(result.text),
            "promptTokens": usage.get("prompt_tokens"), "prefilledTokens": usage.get("prefilled_tokens"),
            "ms": result.latency_ms.get("total", 0.0),
        })

    def count(self, name: str, n: int = 1) -> None:
        self.counters[name] += n

    def record_latency(self, ms: float) -> None:
        self.latencies_ms.append(ms)

    def percentiles(self) -> dict[str, float]:
        if not self.latencies_ms:
            return {}
        ordered = sorted(self.latencies_ms)

        def pick(q: float) -> float:
            return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

        return {"p50": pick(0.50), "p95": pick(0.95), "p99": pick(0.99), "max": ordered[-1]}

    def acceptance(self) -> dict[str, Any]:
        """Acceptance from the clients' `arbor/shown` / `arbor/accepted` reports (features/feedback.py):
        `rate` is the share of shown completions of which any part was accepted, `charsPerShownChar`
        the accepted characters per shown character; both are None until something was shown."""
        c = self.counters
        shown, shown_chars = c["shown"], c["shown_chars"]
        partial = c["accepted_word"] + c["accepted_line"]
        return {
            "shown": shown, "shownChars": shown_chars,
            "acceptedCompletions": c["accepted_completions"], "acceptedChars": c["accepted_chars"],
            "fullAccepts": c["accepted_full"], "partialAccepts": partial, "rejected": c["rejected"],
            "rate": round(c["accepted_completions"] / shown, 4) if shown else None,
            "charsPerShownChar": round(c["accepted_chars"] / shown_chars, 4) if shown_chars else None,
        }

    def snapshot(self) -> dict[str, Any]:
        return {"counters": dict(self.counters), "latencyMs": self.percentiles(),
                "stageLatencyMs": self.stages.snapshot(), "recentCompletions": list(self.recent), "acceptance": self.acceptance()}
