"""Rate-limits repeated identical log lines: the same key is let through once per `interval_s`.

`allow(key)` returns None while the key is being suppressed, else the number of identical lines
suppressed since the last one let through (0 the first time), so the caller can say how many it
left out. One limiter per owner (a router), never process-global. The clock is injectable.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable


class RepeatLimiter:
    def __init__(self, interval_s: float = 60.0, *, clock: Callable[[], float] = time.monotonic,
                 max_keys: int = 256):
        self.interval_s = interval_s
        self._clock = clock
        self._max_keys = max_keys
        self._last: dict[Hashable, tuple[float, int]] = {}  # key -> (last let through, suppressed since)

    def allow(self, key: Hashable) -> int | None:
        now = self._clock()
        seen = self._last.get(key)
        if seen is not None and now - seen[0] < self.interval_s:
            self._last[key] = (seen[0], seen[1] + 1)
            return None
        if seen is None and len(self._last) >= self._max_keys:
            self._last.pop(next(iter(self._last)))
        self._last[key] = (now, 0)
        return seen[1] if seen is not None else 0

    def forget(self, key: Hashable) -> None:
        """Let the next identical line through at once (its cause went away and came back)."""
        self._last.pop(key, None)
