"""Work-done progress (`$/progress`) for long server work: indexing, loading a model.

A `WorkDoneProgress` is a no-op when the client did not advertise `window.workDoneProgress` or
refused the token, so callers never check. `begin` is sent by `open`, `end` by `close`; `report`
and `close` must be called on the event loop's thread.
"""

from __future__ import annotations

import itertools
import logging
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from .server import ArborServer

log = logging.getLogger(__name__)
_tokens = itertools.count(1)


class WorkDoneProgress:
    def __init__(self, server: ArborServer, token: str | None) -> None:
        self.server = server
        self.token = token

    @classmethod
    async def open(cls, server: ArborServer, title: str, message: str = "") -> WorkDoneProgress:
        window = server.client_capabilities.window
        if window is None or not window.work_done_progress:
            return cls(server, None)
        token = f"arbor-{next(_tokens)}"
        try:
            await server.work_done_progress.create_async(token)
            server.work_done_progress.begin(token, types.WorkDoneProgressBegin(
                title=title, message=message or None, percentage=0, cancellable=False))
        except Exception as exc:
            log.info("no progress reporting for %s: %s", title, exc)
            return cls(server, None)
        return cls(server, token)

    def report(self, message: str, percentage: int | None = None) -> None:
        if self.token is not None:
            self.server.work_done_progress.report(self.token, types.WorkDoneProgressReport(
                message=message, percentage=percentage))

    def close(self, message: str) -> None:
        if self.token is not None:
            self.server.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message))
            self.token = None
