"""Timers on the server's event loop."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


def call_later(delay_s: float, callback: Callable[[], object]) -> asyncio.TimerHandle | None:
    """`loop.call_later` on the running event loop; None when no loop runs (a handler called
    directly, as unit tests do): then nothing is scheduled."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    return loop.call_later(delay_s, callback)


class Debounce:
    """Runs `action` once `delay_s` has passed since the last `poke()`. A poke only notes its
    time; the timer, when due, re-arms itself for what is left, so a burst of pokes (one per
    keystroke) costs no timer churn."""

    def __init__(self, delay_s: float, action: Callable[[], object]) -> None:
        self.delay_s = delay_s
        self.action = action
        self.handle: asyncio.TimerHandle | None = None
        self._last = 0.0

    def poke(self) -> None:
        self._last = time.monotonic()
        if self.handle is None:
            self.handle = call_later(self.delay_s, self._due)

    def cancel(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None

    def _due(self) -> None:
        left = self._last + self.delay_s - time.monotonic()
        self.handle = call_later(left, self._due) if left > 0 else None
        if left <= 0:
            self.action()
