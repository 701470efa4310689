"""`FingerprintSubscribers`: who is told when a file's semantic fingerprint changes.

Invariants: each subscriber gets `(path, fingerprint)` ("" when the file left the index) once per
change, in subscription order; one subscriber's exception is logged and does not stop the others.
With a dispatcher set, a change raised off the owner thread (a scan on a worker thread) is
handed to the dispatcher (e.g. `loop.call_soon_threadsafe`); one raised on it is delivered at once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger("arbor.indexer")

FingerprintCallback = Callable[[str, str], None]


class FingerprintSubscribers:
    def __init__(self) -> None:
        self._callbacks: list[FingerprintCallback] = []
        self._dispatch: Callable[[Callable[[], None]], None] | None = None
        self._owner_thread: int | None = None

    def subscribe(self, callback: FingerprintCallback) -> Callable[[], None]:
        """Add `callback`; returns the function that removes it."""
        self._callbacks.append(callback)
        return lambda: self._callbacks.remove(callback) if callback in self._callbacks else None

    def set_dispatcher(self, run: Callable[[Callable[[], None]], None] | None, owner_thread: int | None = None) -> None:
        self._dispatch = run
        self._owner_thread = owner_thread if owner_thread is not None else threading.get_ident()

    def notify(self, path: str, fingerprint: str) -> None:
        if self._dispatch is not None and threading.get_ident() != self._owner_thread:
            self._dispatch(lambda: self._deliver(path, fingerprint))
        else:
            self._deliver(path, fingerprint)

    def _deliver(self, path: str, fingerprint: str) -> None:
        for callback in list(self._callbacks):
            try:
                callback(path, fingerprint)
            except Exception:
                log.exception("index: fingerprint subscriber failed for %s", path)
