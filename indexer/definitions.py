"""`Definitions`: a file's definitions from the snapshot, as an immutable sequence built lazily.

A warm start reads every file's tags from the snapshot, but the graph only needs the definitions'
names to index a file; the `Definition` objects of most files are never looked at. So the snapshot
keeps the names apart and the rows marshalled, and the objects are made on first access.

Invariants:
- Items equal `tuple(Definition(*row) for row in rows)`, in the order they were stored; equality is
  by content, with any other `Definitions` or with a tuple of `Definition`.
- `names()[i] == self[i].name` and `len(names()) == len(self)`, without making any `Definition`.
- `self[i]` makes only the `Definition` it returns (a lookup by name reads a few of a file's
  definitions; the decoded rows are kept until the whole tuple is made), and the whole tuple,
  once made, holds that object at `i` (equal ones where threads raced).
- Instances are safe to share between threads (materialising twice yields equal tuples).
"""

from __future__ import annotations

import marshal
from collections.abc import Sequence
from itertools import starmap

from indexer.lazy_tuple import LazyTuple
from indexer.tags import Definition

DefinitionRow = tuple  # (name, kind, start_line, end_line, start_byte, end_byte, name_line, name_byte, container)


def definition_rows(definitions: Sequence[Definition]) -> tuple[DefinitionRow, ...]:
    """The rows `Definitions.from_encoded` rebuilds `definitions` from."""
    if isinstance(definitions, Definitions):
        return definitions.rows()
    return tuple((d.name, d.kind, d.start_line, d.end_line, d.start_byte, d.end_byte, d.name_line,
                  d.name_byte, d.container) for d in definitions)


def definition_names(definitions: Sequence[Definition]) -> Sequence[str]:
    """The name of each definition, in order (without materialising a lazy `Definitions`)."""
    if isinstance(definitions, Definitions):
        return definitions.names()
    return [d.name for d in definitions]


class Definitions(LazyTuple):
    """Definitions made from marshalled rows on first access; construct with `from_encoded`."""

    __slots__ = ("_names", "_encoded", "_items", "_rows", "_made")

    def __init__(self, names: tuple[str, ...], encoded: bytes) -> None:
        self._names = names
        self._encoded = encoded
        self._items: tuple[Definition, ...] | None = None
        self._rows: tuple[DefinitionRow, ...] | None = None  # decoded while items are made one at a time
        self._made: dict[int, Definition] | None = None  # those items, by position

    @classmethod
    def from_encoded(cls, names: tuple[str, ...], encoded: bytes) -> Definitions:
        """`names` of the definitions and `encoded` = `marshal.dumps(definition_rows(...))`."""
        return cls(names, encoded)

    def names(self) -> tuple[str, ...]:
        return self._names

    def rows(self) -> tuple[DefinitionRow, ...]:
        return tuple(marshal.loads(self._encoded))

    def encoded(self) -> bytes:
        """The marshalled rows, as given."""
        return self._encoded

    def _materialise(self) -> tuple[Definition, ...]:
        items = self._items
        if items is None:
            made, rows = self._made, self._rows
            if made is None or rows is None:
                items = tuple(starmap(Definition, marshal.loads(self._encoded)))
            else:
                items = tuple(made.get(i) or Definition(*row) for i, row in enumerate(rows))
            self._items = items
            self._rows = self._made = None
        return items

    def __getitem__(self, index):
        if self._items is not None or not isinstance(index, int):
            return self._materialise()[index]
        made, rows = self._made, self._rows
        if made is None or rows is None:
            rows, made = tuple(marshal.loads(self._encoded)), {}
            self._rows, self._made = rows, made
        position = index + len(rows) if index < 0 else index
        item = made.get(position)
        if item is None:
            item = made.setdefault(position, Definition(*rows[index]))
        return item

    def __len__(self) -> int:
        return len(self._names)
