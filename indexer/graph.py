"""The cross-file symbol graph: files, their definitions, resolved import edges and reference edges.

Invariants:
- Each file is one immutable `FileEntry` (indexer/entry.py); `set_file` always stores a new
  entry, but the graph's rows for the file (symbols, import edges, reference counts) are rebuilt
  only when the fingerprint differs. `change_serial` counts every change (an entry set or
  removed, a Go module declared): equal serials mean equal answers.
- When a file is re-indexed, exactly the files importing it (its direct dependents) are marked for
  re-resolution; they are re-resolved lazily, before the next query. Adding or removing a file
  re-resolves the files that had unresolved imports; adding or removing a Python package's
  `__init__` also re-resolves the importers of every file below its directory (what an absolute
  import names depends on which directories are packages, indexer/resolve.py).
- A file that is new to the graph (or changed package or language) has its imports resolved once,
  before the next query or `resolve_pending()`, against every file added by then: a scan adding
  many files resolves each once, and the result does not depend on the order they were added in.
  Re-indexing or removing a file that was there resolves the new files first (so that `marked`
  names all its importers), as does a query.
- `definitions_of(name, from_path)` answers in the order indexer/definition_order.py states.
- All public methods are safe to call from several threads (one re-entrant lock).
"""

from __future__ import annotations

import posixpath
import threading
from collections import defaultdict
from dataclasses import dataclass, field

from indexer.closeness import out_edges
from indexer.definition_order import definitions_seen_from
from indexer.definitions import definition_names
from indexer.entry import FileEntry
from indexer.resolve import ModuleIndex, resolve_import
from indexer.tags import Definition, FileTags, Import



@dataclass(frozen=True, slots=True)
class FileUpdate:
    """What `set_file` / `remove_file` did: `reindexed` is False when the fingerprint was equal."""

    path: str
    reindexed: bool
    fingerprint: str
    marked: frozenset[str] = field(default_factory=frozenset)


class SymbolGraph:
    """Files, symbols and edges of one workspace (see module docstring for the invariants)."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._entries: dict[str, FileEntry] = {}
        self._modules = ModuleIndex()
        self._resolved: dict[str, tuple[tuple[str, ...], ...]] = {}
        self._importers: dict[str, set[str]] = defaultdict(set)
        self._defs_by_name: dict[str, set[str]] = defaultdict(set)
        self._ref_counts: dict[str, dict[str, int]] = {}
        self._referrers: dict[str, set[str]] = defaultdict(set)
        self._out_edges: dict[str, dict[str, float]] = {}
        self._stale: set[str] = set()
        self._fresh: set[str] = set()  # added, imports not resolved yet
        self._unresolved: set[str] = set()
        self._unresolved_dirty = False
        self._symbol_count = 0
        self.change_serial = 0  # bumped by every change: an entry set or removed, a Go module declared
        self.layout_serial = 0  # bumped when the files, their packages or the Go modules change

    # ---- updates

    def set_file(self, path: str, tags: FileTags, source: bytes | None = None) -> FileUpdate:
        """Index `tags` (extracted from `source`, when the caller holds it) as the content of
        `path` in a new entry; re-index only if the fingerprint changed."""
        with self._lock:
            self.change_serial += 1
            previous = self._entries.get(path)
            old = previous.tags if previous is not None else None
            entry = FileEntry(path, tags, source, previous)
            if old is not None and old.fingerprint == tags.fingerprint and old.package == tags.package:
                self._entries[path] = entry  # the same names, but positions may have moved
                return FileUpdate(path, False, tags.fingerprint)
            if old is not None:
                self._resolve_fresh()  # so that `marked` names every importer
            in_place = old is not None and old.package == tags.package and old.language == tags.language
            if not in_place:
                self.layout_serial += 1
            if in_place:
                self._update_entries(entry, previous)
            else:
                if old is not None:
                    self._drop_entries(path, previous)
                else:
                    self._unresolved_dirty = True
                    self._mark_importers_below(path)
                self._add_entries(entry)
            marked = frozenset(self._importers.get(path, ()))
            self._stale.update(marked)
            self._invalidate_edges(path, old, tags)
            return FileUpdate(path, True, tags.fingerprint, marked)

    def remove_file(self, path: str) -> FileUpdate:
        """Forget `path`; its importers are marked for re-resolution."""
        with self._lock:
            previous = self._entries.pop(path, None)
            if previous is None:
                return FileUpdate(path, False, "")
            self.change_serial += 1
            self.layout_serial += 1
            old = previous.tags
            self._fresh.discard(path)  # it has no tags to resolve any more
            self._resolve_fresh()
            self._drop_entries(path, previous)
            self._modules.remove(path)
            marked = frozenset(self._importers.get(path, ()))
            self._stale.update(marked)
            self._unresolved_dirty = True
            self._mark_importers_below(path)
            self._invalidate_edges(path, old, None)
            self._out_edges.pop(path, None)
            return FileUpdate(path, True, "", marked)

    def set_go_module(self, module_path: str, directory: str) -> None:
        """Declare that Go module `module_path` (from a go.mod) lives in `directory`."""
        with self._lock:
            self._modules.go_modules[module_path] = directory
            self._unresolved_dirty = True
            self.change_serial += 1
            self.layout_serial += 1

    def resolve_pending(self) -> None:
        """Resolve now what the next query would resolve first: the imports of files added since
        and of files marked for re-resolution (a scan calls this once it has added its files)."""
        with self._lock:
            self._refresh()

    def _add_entries(self, entry: FileEntry) -> None:
        """Index a file the graph does not have; its imports are resolved by `_refresh`."""
        path, tags = entry.path, entry.tags
        self._entries[path] = entry
        self._modules.add(path, tags.package, tags.language)
        defs_by_name = self._defs_by_name
        names = entry.names
        for name in names:
            defs_by_name[name].add(path)
        self._symbol_count += len(names)
        counts = entry.name_counts
        self._ref_counts[path] = counts
        referrers = self._referrers
        for name in counts:
            referrers[name].add(path)
        self._fresh.add(path)
        self._out_edges.pop(path, None)

    def _update_entries(self, entry: FileEntry, previous: FileEntry) -> None:
        """Re-index a file in place: touch only the names and imports that changed."""
        path, old, new = entry.path, previous.tags, entry.tags
        self._entries[path] = entry
        old_names = previous.defined_names
        new_names = entry.defined_names
        for name in old_names - new_names:
            bucket = self._defs_by_name.get(name)
            if bucket is not None:
                bucket.discard(path)
                if not bucket:
                    del self._defs_by_name[name]
        for name in new_names - old_names:
            self._defs_by_name[name].add(path)
        self._symbol_count += len(new.definitions) - len(old.definitions)
        old_counts = self._ref_counts.get(path, {})
        counts = entry.name_counts
        self._ref_counts[path] = counts
        for name in old_counts.keys() - counts.keys():
            bucket = self._referrers.get(name)
            if bucket is not None:
                bucket.discard(path)
                if not bucket:
                    del self._referrers[name]
        for name in counts.keys() - old_counts.keys():
            self._referrers[name].add(path)
        self._stale.discard(path)
        if old.imports != new.imports:
            self._resolve(path)
        else:
            self._out_edges.pop(path, None)

    def _drop_entries(self, path: str, previous: FileEntry) -> None:
        old = previous.tags
        for name in previous.names:
            bucket = self._defs_by_name.get(name)
            if bucket is not None:
                bucket.discard(path)
                if not bucket:
                    del self._defs_by_name[name]
        self._symbol_count -= len(old.definitions)
        for name in self._ref_counts.pop(path, ()):
            bucket = self._referrers.get(name)
            if bucket is not None:
                bucket.discard(path)
                if not bucket:
                    del self._referrers[name]
        for targets in self._resolved.pop(path, ()):
            for target in targets:
                self._importers[target].discard(path)
        self._unresolved.discard(path)
        self._stale.discard(path)
        self._fresh.discard(path)

    def _mark_importers_below(self, path: str) -> None:
        """When `path` is a Python package's `__init__` that came or went: mark for re-resolution
        the importers of the files below its directory."""
        if posixpath.basename(path) not in ("__init__.py", "__init__.pyi"):
            return
        below = posixpath.dirname(path) + "/"
        for target, importers in self._importers.items():
            if target.startswith(below):
                self._stale.update(importers)

    def _resolve(self, path: str) -> None:
        tags = self._entries[path].tags
        self._fresh.discard(path)
        for targets in self._resolved.get(path, ()):
            for target in targets:
                self._importers[target].discard(path)
        resolved = tuple(resolve_import(self._modules, path, tags.language, imp) for imp in tags.imports)
        self._resolved[path] = resolved
        for targets in resolved:
            for target in targets:
                self._importers[target].add(path)
        if any(not targets for targets in resolved):
            self._unresolved.add(path)
        else:
            self._unresolved.discard(path)
        self._out_edges.pop(path, None)

    def _refresh(self) -> None:
        """Re-resolve files marked stale (and, after files came or went, those unresolved)."""
        if self._unresolved_dirty:
            self._stale.update(self._unresolved)
            self._unresolved_dirty = False
        self._resolve_fresh()
        if self._stale:
            for path in sorted(self._stale):
                if path in self._entries:
                    self._resolve(path)
            self._stale.clear()

    def _resolve_fresh(self) -> None:
        if self._fresh:
            for path in sorted(self._fresh):
                self._resolve(path)  # discards it from `_fresh`

    def _invalidate_edges(self, path: str, old: FileTags | None, new: FileTags | None) -> None:
        """Drop the out-edges that `path`'s new content can change: its own, and those of the
        files referring to a name it started or stopped defining."""
        if self._out_edges:
            old_names = set(definition_names(old.definitions)) if old is not None else set()
            new_names = set(definition_names(new.definitions)) if new is not None else set()
            for name in old_names ^ new_names:
                for referrer in self._referrers.get(name, ()):
                    self._out_edges.pop(referrer, None)
        self._out_edges.pop(path, None)

    # ---- queries

    @property
    def files(self) -> frozenset[str]:
        """Paths of all indexed files."""
        with self._lock:
            return frozenset(self._entries)

    @property
    def file_count(self) -> int:
        """Number of indexed files (`len(files)` without building the set)."""
        return len(self._entries)

    @property
    def symbol_count(self) -> int:
        """Number of definitions over all files."""
        return self._symbol_count

    @property
    def pending_resolution(self) -> frozenset[str]:
        """Files marked for re-resolution and not yet re-resolved (for tests and stats)."""
        with self._lock:
            return frozenset(self._stale)

    def entry(self, path: str) -> FileEntry | None:
        return self._entries.get(path)

    def entries(self) -> dict[str, FileEntry]:
        """A copy of the path -> entry table (entries themselves are immutable and shared)."""
        with self._lock:
            return dict(self._entries)

    def tags(self, path: str) -> FileTags | None:
        entry = self._entries.get(path)
        return entry.tags if entry is not None else None

    def fingerprint(self, path: str) -> str | None:
        """The semantic fingerprint of `path`, or None if it is not indexed."""
        entry = self._entries.get(path)
        return entry.fingerprint if entry is not None else None

    def defines(self, name: str) -> bool:
        """Whether some file of the workspace defines `name`."""
        with self._lock:
            return name in self._defs_by_name

    def names(self) -> frozenset[str]:
        """Every defined name in the workspace."""
        with self._lock:
            return frozenset(self._defs_by_name)

    def imports_of(self, path: str) -> list[str]:
        """Workspace files `path` imports, in import order, without repeats."""
        with self._lock:
            self._refresh()
            return list(dict.fromkeys(t for targets in self._resolved.get(path, ()) for t in targets))

    def workspace_bound_names(self, path: str) -> frozenset[str]:
        """The local names `path`'s imports bind whose import resolves to a workspace file
        (Rust's `use crate::error::Result`, not `use std::io::Result`)."""
        with self._lock:
            self._refresh()
            entry = self._entries.get(path)
            if entry is None:
                return frozenset()
            return frozenset(local for imp, targets in zip(entry.tags.imports, self._resolved.get(path, ()))
                             if targets for local in imp.local_names)

    def dependents(self, path: str) -> set[str]:
        """Files that import `path` directly."""
        with self._lock:
            self._refresh()
            return set(self._importers.get(path, ()))

    def imports_from(self, path: str) -> list[tuple[str, Import]]:
        """The import statements of other files that resolve to `path`, as (importer, import),
        importers by path, each one's imports in its order."""
        with self._lock:
            self._refresh()
            out = []
            for importer in sorted(self._importers.get(path, ())):
                entry = self._entries.get(importer)
                if importer == path or entry is None:
                    continue
                out += [(importer, imp) for imp, targets in zip(entry.tags.imports, self._resolved.get(importer, ()))
                        if path in targets]
            return out

    def definitions_of(self, name: str, from_path: str, consulted: set[str] | None = None,
                       limit: int | None = None) -> list[tuple[str, Definition]]:
        """Where `name` is defined, as seen from `from_path` (order, `consulted` and `limit`:
        indexer/definition_order.py)."""
        with self._lock:
            self._refresh()
            return definitions_seen_from(self._entries, self._resolved, self._modules.by_dir,
                                         self._defs_by_name, name, from_path, consulted, limit)

    # ---- closeness

    def out_edges(self, path: str) -> dict[str, float]:
        """Weighted edges from `path` to the files defining what it refers to and what it imports
        (indexer/closeness.py)."""
        with self._lock:
            self._refresh()
            return dict(self._edges_from(path))

    def _edges_from(self, path: str) -> dict[str, float]:
        cached = self._out_edges.get(path)
        if cached is not None:
            return cached
        entry = self._entries.get(path)
        if entry is None:  # not indexed (yet): an open buffer over its budget, a memory document
            return {}
        result = out_edges(path, entry.names, self._ref_counts.get(path, {}), self._defs_by_name,
                           self._resolved.get(path, ()))
        self._out_edges[path] = result
        return result
