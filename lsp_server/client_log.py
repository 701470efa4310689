"""Warnings and errors to the client as `window/logMessage` (its log, not a popup), rate-limited.

Invariants:
- Only records at warning and above are sent, each scrubbed by a `RedactingFilter` first.
- One call site (logger, file, line) sends at most one message per `interval_s` on the injected
  clock; the ones held back are counted, and the next message sent from that site says how many
  there were. At most `max_sites` call sites are remembered (least recently sent forgotten first).
- Messages are sent on the event loop's thread whatever thread logged them, and a record logged
  while one is being sent is not sent (no feedback loop through the transport's own logging).
- pygls's own records (about the transport itself: a failed write, a closed stream) are never
  sent through that transport, and nothing is sent once `close()` ran (the server shut down).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from .privacy.log_filter import RedactingFilter

INTERVAL_S = 30.0
MAX_SITES = 512
NOT_FORWARDED = ("pygls",)  # loggers (and their children) whose records stay on stderr
FORMAT = "%(levelname)s %(name)s: %(message)s"


class ClientLogHandler(logging.Handler):
    def __init__(self, send: Callable[[int, str], None], *, loop: asyncio.AbstractEventLoop | None = None,
                 interval_s: float = INTERVAL_S, clock: Callable[[], float] = time.monotonic,
                 redactor: RedactingFilter | None = None, max_sites: int = MAX_SITES) -> None:
        super().__init__(logging.WARNING)
        self.send = send
        self.loop = loop
        self.interval_s = interval_s
        self.clock = clock
        self.max_sites = max_sites
        self.addFilter(redactor or RedactingFilter())
        self.setFormatter(logging.Formatter(FORMAT))
        self._sent: OrderedDict[tuple, float] = OrderedDict()
        self._held: dict[tuple, int] = {}
        self._sending = threading.local()
        self.closed = False

    def close(self) -> None:
        self.closed = True
        super().close()

    def emit(self, record: logging.LogRecord) -> None:
        if self.closed or getattr(self._sending, "active", False):
            return
        if any(record.name == name or record.name.startswith(name + ".") for name in NOT_FORWARDED):
            return
        site = (record.name, record.pathname, record.lineno)
        now = self.clock()
        last = self._sent.get(site)
        if last is not None and now - last < self.interval_s:
            self._held[site] = self._held.get(site, 0) + 1
            return
        held = self._held.pop(site, 0)
        self._sent[site] = now
        self._sent.move_to_end(site)
        while len(self._sent) > self.max_sites:
            forgotten, _ = self._sent.popitem(last=False)
            self._held.pop(forgotten, None)
        try:
            message = self.format(record)
        except Exception:
            return
        if held:
            message += f" ({held} more from the same place in the last {self.interval_s:g} s not sent)"
        kind = 1 if record.levelno >= logging.ERROR else 2  # MessageType.Error / Warning
        if self.loop is not None and not _on_loop(self.loop):
            try:
                self.loop.call_soon_threadsafe(self._deliver, kind, message)
            except RuntimeError:  # the loop is closed
                pass
            return
        self._deliver(kind, message)

    def _deliver(self, kind: int, message: str) -> None:
        if self.closed:
            return
        self._sending.active = True
        try:
            self.send(kind, message)
        except Exception:  # not connected, or the transport is closed
            pass
        finally:
            self._sending.active = False


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False
