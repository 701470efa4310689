"""`IndexSnapshot`: what a completion reads of the index, one immutable version of it.

`WorkspaceIndex` publishes a snapshot for each version of its graph (`SymbolGraph.change_serial`):
a read-only path -> `FileEntry` table copied from the graph when the snapshot is first asked
for after a change (copy-on-write: the table is new, an unchanged file's entry is the same
object in both versions). Values derived from one file live on its entry (indexer/entry.py);
values derived from the snapshot as a whole (cross-file answers, and consumers' values that
depend on the set of files, in `derived`) live on the snapshot and die with it. Nothing is
remembered across versions, so there is no invalidation rule to get wrong.

Invariants:
- `version` and `entries` never change after construction; two snapshots with equal versions
  of one index have equal entries.
- Cross-file answers (`definitions_of`, `imports_of`, `out_edges`) are asked of the graph once
  per snapshot and kept. Changes reach the graph only through the index, which publishes a new
  snapshot after each, so on the thread that edits (the server's event loop) every answer is
  the graph's at the snapshot's version; a scan on another thread may move the graph on while
  a completion runs, and its answers are then those of the newer version (`stale` says so).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from indexer.entry import FileEntry

if TYPE_CHECKING:
    from indexer.graph import SymbolGraph
    from indexer.tags import Definition, FileTags

ReadBytes = Callable[[str], "bytes | None"]


class IndexSnapshot:
    def __init__(self, graph: SymbolGraph | None = None, read_bytes: ReadBytes | None = None,
                 root: str | None = None) -> None:
        if graph is None:
            self.version, table = 0, {}
        else:
            with graph._lock:
                self.version, table = graph.change_serial, graph.entries()
        self.entries: Mapping[str, FileEntry] = MappingProxyType(table)
        self.root = root
        self._graph = graph
        self._read_bytes = read_bytes
        self._lock = threading.Lock()
        self._answers: dict[tuple, Any] = {}
        self.derived: dict[tuple, Any] = {}  # consumers' values derived from this version alone

    @property
    def stale(self) -> bool:
        """Whether the graph has changed since this snapshot was taken."""
        return self._graph is None or self._graph.change_serial != self.version

    # ---- one file

    def entry(self, path: str) -> FileEntry | None:
        return self.entries.get(path)

    def tags(self, path: str) -> FileTags | None:
        entry = self.entries.get(path)
        return entry.tags if entry is not None else None

    def fingerprint(self, path: str) -> str:
        entry = self.entries.get(path)
        return entry.fingerprint if entry is not None else ""

    def source(self, path: str) -> bytes | None:
        """The bytes `path`'s entry was made from: an open buffer's are held by the entry, a
        disk file's are read back (None when unreadable)."""
        entry = self.entries.get(path)
        if entry is not None and entry.source is not None:
            return entry.source
        return self._read_bytes(path) if self._read_bytes is not None else None

    # ---- across files

    def definitions_of(self, name: str, from_path: str) -> list[tuple[str, Definition]]:
        """`SymbolGraph.definitions_of` at this version (see the module docstring)."""
        return self._ask(("definitions_of", name, from_path),
                         lambda g: g.definitions_of(name, from_path), self._local_definitions(name, from_path))

    def imports_of(self, path: str) -> tuple[str, ...]:
        return self._ask(("imports_of", path), lambda g: tuple(g.imports_of(path)), ())

    def out_edges(self, path: str) -> dict[str, float]:
        return self._ask(("out_edges", path), lambda g: g.out_edges(path), {})

    def _ask(self, key: tuple, ask: Callable[[SymbolGraph], Any], fallback: Any) -> Any:
        with self._lock:
            if key in self._answers:
                return self._answers[key]
        if self._graph is None:
            return fallback
        answer = ask(self._graph)
        with self._lock:
            return self._answers.setdefault(key, answer)

    def _local_definitions(self, name: str, from_path: str) -> list[tuple[str, Definition]]:
        entry = self.entries.get(from_path)
        return [(from_path, d) for d in entry.definitions_named(name)] if entry is not None else []
