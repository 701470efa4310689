"""Timers on the server's event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


def call_later(delay_s: float, callback: Callable[[], object]) -> asyncio.TimerHandle | None:
    """`loop.call_later` on the running event loop; None when no loop runs (a handler called
    directly, as unit tests do): then nothing is scheduled."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    return loop.call_later(delay_s, callback)
