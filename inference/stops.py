"""Stop-string handling over a stream of text chunks.

`StopScanner.feed` returns the text that is safe to emit: it holds back any tail that could be the
start of a stop string split across chunks, and reports when a stop string was reached (the stop
string itself is never emitted).
"""

from __future__ import annotations


class StopScanner:
    def __init__(self, stops: tuple[str, ...] | list[str]):
        self._stops = tuple(s for s in stops if s)
        self._hold = max((len(s) for s in self._stops), default=1) - 1
        self._buffer = ""
        self.stopped = False

    def feed(self, chunk: str) -> str:
        if self.stopped:
            return ""
        self._buffer += chunk
        cut = min((i for i in (self._buffer.find(s) for s in self._stops) if i >= 0), default=-1)
        if cut >= 0:
            out, self._buffer, self.stopped = self._buffer[:cut], "", True
            return out
        safe = len(self._buffer) - self._hold
        if safe <= 0:
            return ""
        out, self._buffer = self._buffer[:safe], self._buffer[safe:]
        return out

    def flush(self) -> str:
        out, self._buffer = ("" if self.stopped else self._buffer), ""
        return out
