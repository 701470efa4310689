"""`IndexSnapshot`: what a completion reads of the index, one immutable version of it.

`WorkspaceIndex` publishes a snapshot for each version of its graph (`SymbolGraph.change_serial`):
a read-only path -> `FileEntry` table copied from the graph when the snapshot is first asked
for after a change (copy-on-write: the table is new, an unchanged file's entry is the same
object in both versions). Values derived from one file live on its entry (indexer/entry.py);
values derived from the snapshot as a whole (cross-file answers, and consumers' values that
depend on the set of files, in `derived`) live on the snapshot and die with it, with one
exception each: a `definitions_of` answer the previous version was asked for moves to the next
one when nothing it read changed (`_carried`), and so does a value of one file that reads only
its imports and the set of files (`imports_of`, `import_value`), and a value of the set of files
alone (`layout_value`), so typing in a buffer does not ask the graph again for every name near
the cursor, nor resolve the file's imports again, at every keystroke.

Invariants:
- `version` and `entries` never change after construction; two snapshots with equal versions
  of one index have equal entries.
- Cross-file answers (`definitions_of`, `imports_of`, `imports_from`, `out_edges`, `defines`)
  are asked of the graph once per snapshot and kept. Changes reach the graph only through the
  index, which publishes a new snapshot after each, so on the thread that edits (the server's
  event loop) every answer is the graph's at the snapshot's version; a scan on another thread
  may move the graph on while a completion runs, and its answers are then those of the newer
  version (`stale` says so).
- A carried `definitions_of(name, from_path, limit)` answer equals the graph's at the new version: the
  set of files and modules is the same (`SymbolGraph.layout_serial`), every file the answer read
  (`consulted`) other than `from_path` keeps its entry object, no other changed file defines
  `name`, and a changed `from_path` keeps its imports and language (its own definitions, which
  come first in the answer, are then read again from its new entry).
- A carried `imports_of(path)` or `import_value(kind, path, make)` equals a recomputation: the
  set of files and modules is the same and `path`'s entry keeps its imports and language.
- A carried `layout_value(kind, key, make)` was made at a version with the same set of files and
  modules; any entry it holds may be older than this version's (its reader compares).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from indexer.entry import FileEntry
from indexer.region_ring import RecentRegion

if TYPE_CHECKING:
    from indexer.graph import SymbolGraph
    from indexer.tags import Definition, FileTags, Import

ReadBytes = Callable[[str], "bytes | None"]


class IndexSnapshot:
    def __init__(self, graph: SymbolGraph | None = None, read_bytes: ReadBytes | None = None,
                 root: str | None = None, previous: IndexSnapshot | None = None,
                 recent_edits: tuple[RecentRegion, ...] = (), recent_visits: tuple[RecentRegion, ...] = ()) -> None:
        if graph is None:
            self.version, self.layout, table = 0, 0, {}
        else:
            with graph._lock:
                self.version, self.layout, table = graph.change_serial, graph.layout_serial, graph.entries()
        self.entries: Mapping[str, FileEntry] = MappingProxyType(table)
        self.root = root
        self.recent_edits = recent_edits  # the regions edited last when this version was published
        self.recent_visits = recent_visits  # the places worked at last in buffers the user moved on from
        self._graph = graph
        self._read_bytes = read_bytes
        self._lock = threading.Lock()
        self._answers: dict[tuple, Any] = {}
        # definitions_of answers: (name, from_path, limit) -> (answer, files read), asked or carried here;
        # `_asked` names those asked of this version (only they move on to the next)
        self._definitions: dict[tuple[str, str, int | None], tuple[list, frozenset[str]]] = {}
        self._asked: set[tuple[str, str, int | None]] = set()
        # values of one file that read only its imports and the layout: (kind, path) -> value
        self._import_values: dict[tuple[str, str], Any] = {}
        # values of the set of files alone: (kind, key) -> value
        self._layout_values: dict[tuple[str, Any], Any] = {}
        if previous is not None and graph is not None and previous._graph is graph and previous.layout == self.layout:
            self._definitions = _carried(previous, table)
            self._import_values = _carried_import_values(previous, table)
            with previous._lock:
                self._layout_values = dict(previous._layout_values)
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

    def definitions_of(self, name: str, from_path: str, limit: int | None = None) -> list[tuple[str, Definition]]:
        """`SymbolGraph.definitions_of` at this version (see the module docstring)."""
        key = (name, from_path, limit)
        with self._lock:
            self._asked.add(key)
            kept = self._definitions.get(key)
        if kept is not None:
            return kept[0]
        if self._graph is None:
            return _own_definitions(self.entries.get(from_path), from_path, name)
        consulted: set[str] = set()
        answer = self._graph.definitions_of(name, from_path, consulted, limit)
        with self._lock:
            return self._definitions.setdefault(key, (answer, frozenset(consulted)))[0]

    def imports_of(self, path: str) -> tuple[str, ...]:
        """The files `path` imports, at this version."""
        if self._graph is None:
            return ()
        return self.import_value("imports_of", path, lambda: tuple(self._graph.imports_of(path)))

    def workspace_bound_names(self, path: str) -> frozenset[str]:
        """The local names `path`'s imports bind to workspace files, at this version."""
        if self._graph is None:
            return frozenset()
        return self.import_value("workspace_bound_names", path, lambda: self._graph.workspace_bound_names(path))

    def import_value(self, kind: str, path: str, make: Callable[[], Any]) -> Any:
        """`make()` kept for (`kind`, `path`): a value that reads nothing but `path`'s imports and
        language, `imports_of` and which files exist (see the module docstring)."""
        key = (kind, path)
        with self._lock:
            if key in self._import_values:
                return self._import_values[key]
        value = make()
        with self._lock:
            return self._import_values.setdefault(key, value)

    def layout_value(self, kind: str, key: Any, make: Callable[[], Any]) -> Any:
        """`make()` kept for (`kind`, `key`) while the set of files and modules stays: a value
        that reads which files exist, and entries only as its reader then checks them against
        `entries` (see the module docstring)."""
        with self._lock:
            if (kind, key) in self._layout_values:
                return self._layout_values[(kind, key)]
        value = make()
        with self._lock:
            return self._layout_values.setdefault((kind, key), value)

    def defines(self, name: str) -> bool:
        """Whether some file defines `name`, at this version."""
        return self._ask(("defines", name), lambda g: g.defines(name), False)

    def imports_from(self, path: str) -> tuple[tuple[str, Import], ...]:
        """Other files' import statements that resolve to `path`, at this version."""
        return self._ask(("imports_from", path), lambda g: tuple(g.imports_from(path)), ())

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


def _own_definitions(entry: FileEntry | None, path: str, name: str) -> list[tuple[str, Definition]]:
    return [(path, d) for d in entry.definitions_named(name)] if entry is not None else []


def _carried(previous: IndexSnapshot,
             table: dict[str, FileEntry]) -> dict[tuple[str, str, int | None], tuple[list, frozenset[str]]]:
    """The `definitions_of` answers asked of `previous` that hold in the version of `table` (the
    same set of files; see the module docstring)."""
    before = previous.entries
    with previous._lock:
        answers = {key: previous._definitions[key] for key in previous._asked if key in previous._definitions}
    # changed file -> whether the answers asked from it may keep their cross-file part
    changed = {path: _same_imports(before.get(path), entry) for path, entry in table.items() if before.get(path) is not entry}
    if not changed:
        return answers
    carried = {}
    for (name, from_path, limit), (answer, consulted) in answers.items():
        if any(not same if path == from_path else path in consulted or name in table[path].defined_names
               for path, same in changed.items()):
            continue
        if from_path in changed:
            answer = _own_definitions(table[from_path], from_path, name) + [
                found for found in answer if found[0] != from_path]
        carried[(name, from_path, limit)] = (answer, consulted)
    return carried


def _carried_import_values(previous: IndexSnapshot, table: dict[str, FileEntry]) -> dict[tuple[str, str], Any]:
    """The `import_value`s of `previous` whose file keeps its imports and language in `table`
    (the same set of files)."""
    before = previous.entries
    with previous._lock:
        values = dict(previous._import_values)
    return {key: value for key, value in values.items()
            if (entry := table.get(key[1])) is not None
            and (before.get(key[1]) is entry or _same_imports(before.get(key[1]), entry))}


def _same_imports(old: FileEntry | None, new: FileEntry) -> bool:
    return old is not None and old.tags.imports == new.tags.imports and old.tags.language == new.tags.language
