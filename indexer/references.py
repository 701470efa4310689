"""`References`: a file's references as an immutable sequence of `Reference`, built lazily.

A file has many references and most consumers only need how often each name is used (the graph's
reference edges), so the `Reference` objects are made on first iteration, from the byte spans
the tags query found. Name counts come from the raw bytes without building them.

Invariants:
- Items are ordered by byte offset, one per name node; equality is by content, with any other
  `References` or with a tuple of `Reference`.
- `name_counts()` equals `Counter(r.name for r in self)`.
- From the snapshot (`from_encoded`), the rows stay marshalled until something iterates them; the
  name counts come with them, so indexing the file reads neither.
- Instances are safe to share between threads (materialising twice yields equal tuples).
"""

from __future__ import annotations

import marshal
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from indexer.lazy_tuple import LazyTuple
from indexer.spans import LineIndex


@dataclass(frozen=True, slots=True)
class Reference:
    """A use of `name` at `line`/`byte` (the name node's start)."""

    name: str
    kind: str
    line: int
    byte: int


class References(LazyTuple):
    """Lazily materialised references; construct with `from_spans` or `from_items`."""

    __slots__ = ("_source", "_spans", "_lines", "_rows", "_encoded", "_items", "_counts")

    def __init__(self) -> None:
        self._source: bytes = b""
        self._spans: list[tuple[int, int, str]] = []
        self._lines: LineIndex | None = None
        self._rows: Sequence[tuple[str, str, int, int]] | None = None
        self._encoded: bytes | None = None
        self._items: tuple[Reference, ...] | None = None
        self._counts: dict[str, int] | None = None

    @classmethod
    def from_spans(cls, source: bytes, spans: list[tuple[int, int, str]], lines: LineIndex) -> References:
        """References at (start, end, kind) spans of `source`, already sorted by start."""
        refs = cls()
        refs._source, refs._spans, refs._lines = source, spans, lines
        return refs

    @classmethod
    def from_items(cls, items: Sequence[Reference]) -> References:
        refs = cls()
        refs._items = tuple(items)
        return refs

    @classmethod
    def from_rows(cls, rows: Sequence[tuple[str, str, int, int]]) -> References:
        """References from (name, kind, line, byte) rows (as stored in the snapshot)."""
        refs = cls()
        refs._rows = rows
        return refs

    @classmethod
    def from_encoded(cls, encoded: bytes, counts: dict[str, int]) -> References:
        """References from `marshal.dumps(rows)` and their `name_counts()` (as stored in the
        snapshot); the rows are unmarshalled on first use."""
        refs = cls()
        refs._encoded, refs._counts = encoded, counts
        return refs

    def encoded(self) -> bytes:
        """`marshal.dumps(self.rows())` (the bytes given to `from_encoded`, when made that way)."""
        return self._encoded if self._encoded is not None else marshal.dumps(self.rows())

    def _decoded_rows(self) -> Sequence[tuple[str, str, int, int]] | None:
        if self._rows is None and self._encoded is not None:
            self._rows = marshal.loads(self._encoded)
        return self._rows

    def rows(self) -> tuple[tuple[str, str, int, int], ...]:
        """(name, kind, line, byte) of each reference (without making `Reference` objects)."""
        self._decoded_rows()
        if self._items is not None:
            return tuple((r.name, r.kind, r.line, r.byte) for r in self._items)
        if self._rows is not None:
            return tuple(self._rows)
        source, line_of = self._source, self._lines.line_of  # type: ignore[union-attr]
        return tuple((source[s:e].decode("utf-8", "replace"), kind, line_of(s), s) for s, e, kind in self._spans)

    def name_starts(self) -> Iterator[tuple[str, int]]:
        """(name, byte) of each reference in order, without making `Reference` objects."""
        if self._items is not None:
            return ((r.name, r.byte) for r in self._items)
        if self._decoded_rows() is not None:
            return ((row[0], row[3]) for row in self._rows)
        source = self._source
        return ((source[s:e].decode("utf-8", "replace"), s) for s, e, _ in self._spans)

    def _materialise(self) -> tuple[Reference, ...]:
        items = self._items
        if items is None:
            if self._decoded_rows() is not None:
                items = tuple(Reference(*row) for row in self._rows)
            else:
                source, line_of = self._source, self._lines.line_of  # type: ignore[union-attr]
                items = tuple(
                    Reference(source[s:e].decode("utf-8", "replace"), kind, line_of(s), s)
                    for s, e, kind in self._spans
                )
            self._items = items
        return items

    def name_counts(self) -> dict[str, int]:
        """How many references each name has."""
        counts = self._counts
        if counts is None:
            if self._items is not None:
                counts = dict(Counter(r.name for r in self._items))
            elif self._decoded_rows() is not None:
                counts = dict(Counter(row[0] for row in self._rows))
            else:
                source = self._source
                raw = Counter(source[s:e] for s, e, _ in self._spans)
                counts = {name.decode("utf-8", "replace"): n for name, n in raw.items()}
            self._counts = counts
        return counts

    def __len__(self) -> int:
        if self._items is not None:
            return len(self._items)
        return len(self._rows) if self._decoded_rows() is not None else len(self._spans)
