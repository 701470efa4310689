"""`FileEntry`: one file as the index holds it in a snapshot.

An entry is the file's `FileTags` plus, for an open buffer, the exact bytes they were extracted
from (`source`; None for a file on disk, whose bytes are read back when needed). Entries are
immutable and shared: a new entry is made only when the file's tags are set again (a flush of
its buffer, a change on disk), so an unchanged file keeps its entry object from snapshot to
snapshot (copy-on-write).

Everything derived from an entry alone is an attribute computed on first use
(`functools.cached_property`) or kept in `derived`, and dies with the entry: nothing derived
from a file outlives the content it was derived from, and no other invalidation rule exists.
`derived` is keyed by tuples whose first item names the consumer (e.g. pruning's renderings:
`("renderings",)`); its values must be functions of the entry and the rest of the key only.

`by_content` is the one exception: a table shared by the successive entries of one open buffer
(while its language stays; an entry from disk starts its own), for values whose key holds a
digest of all the bytes they were made from (pruning's parsed definition lines), so a
re-indexed buffer's unchanged definitions are not parsed again. Its consumers bound its size;
it dies with the last entry holding it.
"""

from __future__ import annotations

from collections import Counter
from functools import cached_property
from typing import Any

from indexer.definitions import definition_names
from indexer.tags import Definition, FileTags


class FileEntry:
    def __init__(self, path: str, tags: FileTags, source: bytes | None = None,
                 previous: FileEntry | None = None) -> None:
        self.path = path
        self.tags = tags
        self.source = source
        typed_on = (previous is not None and source is not None and previous.source is not None
                    and previous.language == tags.language)
        self.by_content: dict[tuple, Any] = previous.by_content if typed_on else {}

    def __repr__(self) -> str:
        return f"FileEntry({self.path!r}, {self.tags.fingerprint[:8]})"

    @property
    def language(self) -> str:
        return self.tags.language

    @property
    def fingerprint(self) -> str:
        return self.tags.fingerprint

    @cached_property
    def names(self) -> tuple[str, ...]:
        """The name of each definition, in order (a lazy `Definitions` is not materialised)."""
        return tuple(definition_names(self.tags.definitions))

    @cached_property
    def defined_names(self) -> frozenset[str]:
        """The names this file defines."""
        return frozenset(self.names)

    def definitions_named(self, name: str) -> list[Definition]:
        """This file's definitions of `name`, in document order (only those are made from a
        lazy `Definitions`)."""
        if name not in self.defined_names:
            return []
        names, definitions, found = self.names, self.tags.definitions, []
        at = -1
        while True:
            try:
                at = names.index(name, at + 1)
            except ValueError:
                return found
            found.append(definitions[at])

    @cached_property
    def bound_names(self) -> frozenset[str]:
        """The local names this file's imports bind (`from m import a as b` binds b)."""
        return frozenset(local for imp in self.tags.imports for local in imp.local_names)

    @cached_property
    def name_counts(self) -> dict[str, int]:
        """How often each name is referred to in this file."""
        refs = self.tags.references
        counter = getattr(refs, "name_counts", None)
        return counter() if counter is not None else dict(Counter(r.name for r in refs))

    @cached_property
    def derived(self) -> dict[tuple, Any]:
        """Consumers' values derived from this entry alone (see the module docstring)."""
        return {}
