"""Where a name is defined, as seen from one file: the order `SymbolGraph.definitions_of` answers in.

Order: definitions in `from_path`; then those reached through `from_path`'s imports (names it
binds explicitly first, following re-exports up to three hops, then everything in the files it
imports, then files of its own package/directory for Go and Java); then the rest of the
workspace, nearest directory first. No (path, definition) twice.

`definitions_seen_from` reads the graph's tables and changes nothing; the caller holds the
graph's lock and has resolved pending imports.
"""

from __future__ import annotations

import heapq
import posixpath
from collections.abc import Callable, Mapping, Set

from indexer.entry import FileEntry
from indexer.resolve import shared_path_length
from indexer.tags import Definition

SAME_PACKAGE_LANGS = frozenset({"go", "java"})  # a file sees its directory's definitions without imports
REEXPORT_HOPS = 3

Resolved = Mapping[str, tuple[tuple[str, ...], ...]]


def definitions_seen_from(entries: Mapping[str, FileEntry], resolved: Resolved,
                          files_by_dir: Mapping[str, Set[str]], files_defining: Mapping[str, Set[str]],
                          name: str, from_path: str, consulted: set[str] | None = None,
                          limit: int | None = None) -> list[tuple[str, Definition]]:
    """`name`'s definitions in the order above. `files_defining[name]` holds exactly the files
    whose entry defines `name` (the graph keeps it so): an entry is opened only when it holds an
    answer. `consulted`, when given, receives every file
    whose entry the answer read. With `limit`, the rest of the workspace is read only until the
    answer holds `limit` definitions outside `from_path`: its first `limit` of those are the
    unlimited answer's, and its definitions in `from_path` all of them."""
    out: dict[tuple[str, int], tuple[str, Definition]] = {}
    read: set[str] = set()

    def add_from(path: str, wanted: str) -> bool:
        read.add(path)
        if path not in files_defining.get(wanted, ()):  # the graph's table: no entry to open
            return False
        entry = entries.get(path)
        found = entry.definitions_named(wanted) if entry is not None else None
        if not found:
            return False
        for d in found:
            out.setdefault((path, d.start_byte), (path, d))
        return True

    add_from(from_path, name)
    entry = entries.get(from_path)
    imported = resolved.get(from_path, ())
    if entry is not None:
        tags = entry.tags
        if name in entry.bound_names:  # `from m import name [as local]`, in import order
            for imp, targets in zip(tags.imports, imported):
                for original, local in zip(imp.names, imp.local_names):
                    if local == name:
                        for target in targets:
                            _follow(entries, resolved, target, original, add_from, REEXPORT_HOPS)
        for targets in imported:
            for target in targets:
                add_from(target, name)
        if tags.language in SAME_PACKAGE_LANGS:
            for sibling in sorted(files_by_dir.get(posixpath.dirname(from_path), ())):
                if entries[sibling].language == tags.language:
                    add_from(sibling, name)

    def nearest_first(path: str) -> tuple[int, str]:
        return -shared_path_length(path, from_path), path

    elsewhere = files_defining.get(name, ())
    if limit is None:
        rest = sorted(elsewhere, key=nearest_first)
    else:  # each unread file defining `name` adds at least one definition
        wanted = limit - sum(1 for path, _ in out if path != from_path)
        unread = (path for path in elsewhere if path not in read)
        rest = heapq.nsmallest(wanted, unread, key=nearest_first) if wanted > 0 else []
    for path in rest:
        add_from(path, name)
    if consulted is not None:
        consulted |= read
    return list(out.values())


def _follow(entries: Mapping[str, FileEntry], resolved: Resolved, path: str, name: str,
            add_from: Callable[[str, str], bool], hops: int) -> None:
    """Add `name`'s definitions in `path`, or follow `path`'s import of `name` (re-exports)."""
    if add_from(path, name) or hops == 0:
        return
    entry = entries.get(path)
    if entry is None:
        return
    for imp, targets in zip(entry.tags.imports, resolved.get(path, ())):
        for original, local in zip(imp.names, imp.local_names):
            if local == name:
                for target in targets:
                    _follow(entries, resolved, target, original, add_from, hops - 1)
        if imp.wildcard or imp.kind == "reexport":
            for target in targets:
                _follow(entries, resolved, target, name, add_from, hops - 1)
