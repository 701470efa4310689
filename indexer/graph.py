"""The cross-file symbol graph: files, their definitions, resolved import edges and reference edges.

Invariants:
- A file's entries (symbols, import edges, reference counts) are rebuilt only by `set_file` with a
  different fingerprint; with an equal fingerprint only the stored tags (positions) are swapped.
- When a file is re-indexed, exactly the files importing it (its direct dependents) are marked for
  re-resolution; they are re-resolved lazily, before the next query. Adding or removing a file
  re-resolves the files that had unresolved imports.
- A file that is new to the graph (or changed package or language) has its imports resolved once,
  before the next query or `resolve_pending()`, against every file added by then: a scan adding
  many files resolves each once, and the result does not depend on the order they were added in.
  Re-indexing or removing a file that was there resolves the new files first (so that `marked`
  names all its importers), as does a query.
- `definitions_of(name, from_path)` orders results: definitions in `from_path`; then those reached
  through `from_path`'s imports (names it binds explicitly first, following re-exports up to three
  hops, then everything in the files it imports, then files of its own package/directory for Go
  and Java); then the rest of the workspace, nearest directory first. No (path, definition) twice.
- All public methods are safe to call from several threads (one re-entrant lock).
"""

from __future__ import annotations

import posixpath
import threading
from collections import Counter, defaultdict, deque
from dataclasses import dataclass, field, replace
from math import sqrt

from indexer.definitions import definition_names
from indexer.resolve import ModuleIndex, resolve_import, shared_path_length
from indexer.tags import Definition, FileTags

MAX_DEFINING_FILES = 12  # names defined in more files than this carry no reference edges
SAME_PACKAGE_LANGS = frozenset({"go", "java"})  # a file sees its directory's definitions without imports


@dataclass(frozen=True, slots=True)
class FileUpdate:
    """What `set_file` / `remove_file` did: `reindexed` is False when the fingerprint was equal."""

    path: str
    reindexed: bool
    fingerprint: str
    marked: frozenset[str] = field(default_factory=frozenset)


JOURNAL_SIZE = 64  # a memo syncs at every completion, so a few changes back is plenty


def _same_imports(old: FileTags, new: FileTags) -> bool:
    """Whether two versions of a file import the same things (where the statements sit aside)."""
    return len(old.imports) == len(new.imports) and all(
        replace(a, line=0) == replace(b, line=0) for a, b in zip(old.imports, new.imports))


def _changed_names(old: FileTags, new: FileTags) -> frozenset[str]:
    """The names whose lookups a file's change from `old` to `new` can affect: those it defines
    (before or after: their definitions may have moved), and, when its imports changed, those
    they bind (lookups follow re-exports through them)."""
    names = frozenset(definition_names(old.definitions)) | frozenset(definition_names(new.definitions))
    if not _same_imports(old, new):
        names |= frozenset(local for tags in (old, new) for imp in tags.imports for local in imp.local_names)
    return names


def _name_counts(tags: FileTags) -> dict[str, int]:
    refs = tags.references
    counter = getattr(refs, "name_counts", None)
    return counter() if counter is not None else dict(Counter(r.name for r in refs))


class SymbolGraph:
    """Files, symbols and edges of one workspace (see module docstring for the invariants)."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._tags: dict[str, FileTags] = {}
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
        self.change_serial = 0  # bumped by every set_file/remove_file, semantic or not
        self.layout_version = 0  # bumped when files come or go, or a Go module is declared
        self._positions: dict[str, tuple[FileTags, dict[str, tuple[int, ...]]]] = {}  # see _name_positions
        self._binding_memo: dict[str, tuple] = {}  # see _bindings
        self._journal: deque[tuple[int, frozenset[str], frozenset[str] | None]] = deque(maxlen=JOURNAL_SIZE)

    # ---- updates

    def _record(self, paths: set[str], names: frozenset[str] | None) -> None:
        """Journal one change: `definitions_of(name, from_path)` answers may differ afterwards
        for `from_path` in `paths` or `name` in `names` (None: for every name)."""
        self.change_serial += 1
        self._journal.append((self.change_serial, frozenset(paths), names))

    def changes_since(self, serial: int) -> list[tuple[frozenset[str], frozenset[str] | None]] | None:
        """The (paths, names) of each change after `serial` (see `_record`), oldest first; None
        when the journal no longer reaches back that far (then anything may have changed)."""
        with self._lock:
            if serial == self.change_serial:
                return []
            if serial > self.change_serial or not self._journal or self._journal[0][0] > serial + 1:
                return None
            return [(paths, names) for number, paths, names in self._journal if number > serial]

    def set_file(self, path: str, tags: FileTags) -> FileUpdate:
        """Index `tags` as the content of `path`; re-index only if the fingerprint changed."""
        with self._lock:
            old = self._tags.get(path)
            if old is not None and old.fingerprint == tags.fingerprint and old.package == tags.package:
                self._tags[path] = tags  # the same names, but positions may have moved
                self._record(set(), _changed_names(old, tags))
                return FileUpdate(path, False, tags.fingerprint)
            if old is not None:
                self._resolve_fresh()  # so that `marked` names every importer
            in_place = old is not None and old.package == tags.package and old.language == tags.language
            if in_place:
                self._update_entries(path, old, tags)
            else:
                if old is not None:
                    self._drop_entries(path, old)
                else:
                    self._unresolved_dirty = True
                self._add_entries(path, tags)
            marked = frozenset(self._importers.get(path, ()))
            self._stale.update(marked)
            self._invalidate_edges(path, old, tags)
            if in_place:
                # module resolution depends on files' paths, packages and languages, not on their
                # contents: importers resolve as before, and `path` itself only if its imports changed
                self._record(set() if _same_imports(old, tags) else {path}, _changed_names(old, tags))
            else:  # a new file, or a moved package, can change how other files' imports resolve
                self.layout_version += 1
                self._record({path} | marked, None)
            return FileUpdate(path, True, tags.fingerprint, marked)

    def remove_file(self, path: str) -> FileUpdate:
        """Forget `path`; its importers are marked for re-resolution."""
        with self._lock:
            old = self._tags.pop(path, None)
            self._positions.pop(path, None)
            self._binding_memo.pop(path, None)
            if old is None:
                return FileUpdate(path, False, "")
            self._resolve_fresh()
            self._drop_entries(path, old)
            self._modules.remove(path)
            marked = frozenset(self._importers.get(path, ()))
            self._stale.update(marked)
            self._unresolved_dirty = True
            self._invalidate_edges(path, old, None)
            self._out_edges.pop(path, None)
            self.layout_version += 1
            self._record({path} | marked, None)
            return FileUpdate(path, True, "", marked)

    def set_go_module(self, module_path: str, directory: str) -> None:
        """Declare that Go module `module_path` (from a go.mod) lives in `directory`."""
        with self._lock:
            self._modules.go_modules[module_path] = directory
            self._unresolved_dirty = True
            self.layout_version += 1
            self._record(set(), None)

    def resolve_pending(self) -> None:
        """Resolve now what the next query would resolve first: the imports of files added since
        and of files marked for re-resolution (a scan calls this once it has added its files)."""
        with self._lock:
            self._refresh()

    def _add_entries(self, path: str, tags: FileTags) -> None:
        """Index a file the graph does not have; its imports are resolved by `_refresh`."""
        self._tags[path] = tags
        self._modules.add(path, tags.package, tags.language)
        defs_by_name = self._defs_by_name
        names = definition_names(tags.definitions)
        for name in names:
            defs_by_name[name].add(path)
        self._symbol_count += len(names)
        counts = _name_counts(tags)
        self._ref_counts[path] = counts
        referrers = self._referrers
        for name in counts:
            referrers[name].add(path)
        self._fresh.add(path)
        self._out_edges.pop(path, None)

    def _update_entries(self, path: str, old: FileTags, new: FileTags) -> None:
        """Re-index `path` in place: touch only the names and imports that changed."""
        self._tags[path] = new
        old_names = set(definition_names(old.definitions))
        new_names = set(definition_names(new.definitions))
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
        counts = _name_counts(new)
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

    def _drop_entries(self, path: str, old: FileTags) -> None:
        for name in definition_names(old.definitions):
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

    def _resolve(self, path: str) -> None:
        tags = self._tags[path]
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
                if path in self._tags:
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
            old_names = set(definition_names(old.definitions)) if old else set()
            new_names = set(definition_names(new.definitions)) if new else set()
            for name in old_names ^ new_names:
                for referrer in self._referrers.get(name, ()):
                    self._out_edges.pop(referrer, None)
        self._out_edges.pop(path, None)

    # ---- queries

    @property
    def files(self) -> frozenset[str]:
        """Paths of all indexed files."""
        with self._lock:
            return frozenset(self._tags)

    @property
    def symbol_count(self) -> int:
        """Number of definitions over all files."""
        return self._symbol_count

    @property
    def pending_resolution(self) -> frozenset[str]:
        """Files marked for re-resolution and not yet re-resolved (for tests and stats)."""
        with self._lock:
            return frozenset(self._stale)

    def tags(self, path: str) -> FileTags | None:
        return self._tags.get(path)

    def fingerprint(self, path: str) -> str | None:
        """The semantic fingerprint of `path`, or None if it is not indexed."""
        tags = self._tags.get(path)
        return tags.fingerprint if tags is not None else None

    def names(self) -> frozenset[str]:
        """Every defined name in the workspace."""
        with self._lock:
            return frozenset(self._defs_by_name)

    def imports_of(self, path: str) -> list[str]:
        """Workspace files `path` imports, in import order, without repeats."""
        with self._lock:
            self._refresh()
            return list(dict.fromkeys(t for targets in self._resolved.get(path, ()) for t in targets))

    def dependents(self, path: str) -> set[str]:
        """Files that import `path` directly."""
        with self._lock:
            self._refresh()
            return set(self._importers.get(path, ()))

    def definitions_of(self, name: str, from_path: str) -> list[tuple[str, Definition]]:
        """Where `name` is defined, as seen from `from_path` (order in the module docstring)."""
        with self._lock:
            self._refresh()
            out: dict[tuple[str, int], tuple[str, Definition]] = {}

            def add_from(path: str, wanted: str) -> bool:
                tags = self._tags.get(path)
                positions = self._name_positions(path, tags).get(wanted) if tags is not None else None
                if not positions:
                    return False
                definitions = tags.definitions
                for i in positions:
                    d = definitions[i]
                    out.setdefault((path, d.start_byte), (path, d))
                return True

            add_from(from_path, name)
            tags = self._tags.get(from_path)
            resolved = self._resolved.get(from_path, ())
            if tags is not None:
                for original, targets in self._bindings(from_path, tags, resolved).get(name, ()):
                    for target in targets:
                        self._follow(target, original, add_from, hops=3)
                for targets in resolved:
                    for target in targets:
                        add_from(target, name)
                if tags.language in SAME_PACKAGE_LANGS:
                    directory = posixpath.dirname(from_path)
                    for sibling in sorted(self._modules.by_dir.get(directory, ())):
                        if self._tags[sibling].language == tags.language:
                            add_from(sibling, name)
            rest = sorted(
                self._defs_by_name.get(name, ()),
                key=lambda p: (-shared_path_length(p, from_path), p),
            )
            for path in rest:
                add_from(path, name)
            return list(out.values())

    def _bindings(self, path: str, tags: FileTags,
                  resolved: tuple[tuple[str, ...], ...]) -> dict[str, list[tuple[str, tuple[str, ...]]]]:
        """Local name -> (name in the target, target files) for each `from m import name [as
        local]` of `path`, in import order; kept while the entry and its resolution stand."""
        cached = self._binding_memo.get(path)
        if cached is not None and cached[0] is tags and cached[1] is resolved:
            return cached[2]
        bindings: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
        for imp, targets in zip(tags.imports, resolved):
            for original, local in zip(imp.names, imp.local_names):
                bindings.setdefault(local, []).append((original, targets))
        self._binding_memo[path] = (tags, resolved, bindings)
        return bindings

    def _name_positions(self, path: str, tags: FileTags) -> dict[str, tuple[int, ...]]:
        """Where each name sits in `tags.definitions` (the entry of `path`), kept while that entry
        stands; read from the names alone, so a lazy `Definitions` is materialised only when a
        lookup matches one of its names."""
        cached = self._positions.get(path)
        if cached is not None and cached[0] is tags:
            return cached[1]
        positions: dict[str, list[int]] = {}
        for i, name in enumerate(definition_names(tags.definitions)):
            positions.setdefault(name, []).append(i)
        found = {name: tuple(where) for name, where in positions.items()}
        self._positions[path] = (tags, found)
        return found

    def _follow(self, path: str, name: str, add_from, hops: int) -> None:
        """Add `name`'s definitions in `path`, or follow `path`'s import of `name` (re-exports)."""
        if add_from(path, name) or hops == 0:
            return
        tags = self._tags.get(path)
        if tags is None:
            return
        for imp, targets in zip(tags.imports, self._resolved.get(path, ())):
            for original, local in zip(imp.names, imp.local_names):
                if local == name:
                    for target in targets:
                        self._follow(target, original, add_from, hops - 1)
            if imp.wildcard or imp.kind == "reexport":
                for target in targets:
                    self._follow(target, name, add_from, hops - 1)

    # ---- closeness

    def out_edges(self, path: str) -> dict[str, float]:
        """Weighted edges from `path` to the files defining what it refers to and what it imports."""
        with self._lock:
            self._refresh()
            return dict(self._edges_from(path))

    def _edges_from(self, path: str) -> dict[str, float]:
        cached = self._out_edges.get(path)
        if cached is not None:
            return cached
        edges: dict[str, float] = defaultdict(float)
        own = set(definition_names(self._tags[path].definitions))
        for name, count in self._ref_counts.get(path, {}).items():
            if name in own:
                continue
            defining = self._defs_by_name.get(name)
            if not defining or len(defining) > MAX_DEFINING_FILES:
                continue
            weight = sqrt(count) / len(defining) * (0.1 if len(name) <= 2 else 1.0)
            for target in defining:
                if target != path:
                    edges[target] += weight
        for targets in self._resolved.get(path, ()):
            for target in targets:
                edges[target] += 1.0
        result = dict(edges)
        self._out_edges[path] = result
        return result
