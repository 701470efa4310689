"""Small helpers over byte spans `(start, end)` of one source (pure).

Invariants: spans are half-open byte ranges; `LineIndex.line_of(b)` is the 0-based line holding
byte `b` (the number of newlines before it); `merge_spans` returns sorted, disjoint spans.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable

_NEWLINE = re.compile(b"\n")

Span = tuple[int, int]


class LineIndex:
    """Byte offset -> line number for one source (newline offsets found on first use)."""

    __slots__ = ("_source", "_newlines")

    def __init__(self, source: bytes) -> None:
        self._source = source
        self._newlines: list[int] | None = None

    @property
    def newlines(self) -> list[int]:
        """Offsets of the source's newline bytes, ascending."""
        newlines = self._newlines
        if newlines is None:
            newlines = self._newlines = [m.start() for m in _NEWLINE.finditer(self._source)]
        return newlines

    def line_of(self, byte: int) -> int:
        return bisect_left(self.newlines, byte)


def unique_sorted(spans: Iterable[Span]) -> list[Span]:
    """Spans sorted by start (wider first on ties), duplicates removed."""
    return sorted(set(spans), key=lambda s: (s[0], -s[1]))


def merge_spans(spans: Iterable[Span]) -> list[Span]:
    """The union of `spans` as sorted, disjoint spans."""
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1][1] = end
        else:
            merged.append([start, end])
    return [(s, e) for s, e in merged]


def cut_out(source: bytes, spans: Iterable[Span]) -> bytes:
    """`source` with every span (sorted by start; overlaps allowed) cut out, pieces joined by a
    newline so that words on either side of a cut stay apart."""
    pieces: list[bytes] = []
    append = pieces.append
    pos = 0
    for start, end in spans:
        if start > pos:
            append(source[pos:start])
        if end > pos:
            pos = end
    append(source[pos:])
    return b"\n".join(pieces)


class SpanSet:
    """Membership test 'is byte b inside one of these disjoint sorted spans'."""

    __slots__ = ("_spans", "_starts")

    def __init__(self, disjoint_sorted: list[Span]) -> None:
        self._spans = disjoint_sorted
        self._starts = [s for s, _ in disjoint_sorted]

    def contains(self, byte: int) -> bool:
        i = bisect_right(self._starts, byte) - 1
        return i >= 0 and self._spans[i][1] > byte

