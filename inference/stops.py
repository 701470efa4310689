"""Stop-string handling over a stream of text chunks.

`StopScanner.feed` returns the text that is safe to emit: it holds back only the longest tail
that is the start of some stop string (one could be split across chunks), and reports when a
stop string was reached (the stop string itself is never emitted). Text that cannot start a stop
string is emitted at once, so a line break reaches the reader in the chunk that carries it.
"""

from __future__ import annotations


def held_for_stop(text: str, stops: tuple[str, ...]) -> int:
    """Length of the longest suffix of `text` that is a proper prefix of one of `stops`."""
    longest = min(len(text), max((len(s) for s in stops), default=1) - 1)
    for size in range(longest, 0, -1):
        tail = text[-size:]
        if any(stop.startswith(tail) for stop in stops):
            return size
    return 0


class StopScanner:
    def __init__(self, stops: tuple[str, ...] | list[str]):
        self._stops = tuple(s for s in stops if s)
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
        safe = len(self._buffer) - held_for_stop(self._buffer, self._stops)
        out, self._buffer = self._buffer[:safe], self._buffer[safe:]
        return out

    def flush(self) -> str:
        out, self._buffer = ("" if self.stopped else self._buffer), ""
        return out
