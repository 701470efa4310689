"""The disk side of `WorkspaceIndex`: workspace roots, scans and watched-file events.

A mixin of `WorkspaceIndex` (indexer/workspace_index.py), which owns the state it works on: the
graph, the open buffers (`_docs`: an open buffer's content wins over the file on disk until it
is closed), the per-root on-disk stores and the digests of the disk files indexed.

Invariants:
- Scans run wherever `scan` is called (the server calls it in a worker thread); parsing happens
  outside the lock (in worker processes for a large scan, see `scan.py`), so edits are never
  blocked for long.
- A file that is open is never read from disk here; one that was opened while it was being
  parsed is not put into the graph.
- A scan of a root drops the files indexed under it that are gone or no longer candidates.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable

from indexer import languages
from indexer.documents import is_memory_path
from indexer.graph import FileUpdate
from indexer.scan import (
    MIN_PARALLEL_FILES, DiskFile, Prepared, collect_candidates, index_candidates, read_disk_file,
    resolve_workers,
)
from indexer.store import SnapshotStore
from indexer.workspace import (
    GitignoreCache, ScanReport, Skipped, is_candidate, iter_candidates, normalize_path,
)

ProgressCallback = Callable[[int, int], None]

log = logging.getLogger("arbor.indexer")


def under(path: str, directory: str) -> bool:
    return path.startswith(directory.rstrip("/") + "/")


class DiskSide:
    # ---- roots and scanning

    @property
    def roots(self) -> tuple[str, ...]:
        return tuple(self._roots)

    def add_root(self, root: str, progress: ProgressCallback | None = None) -> ScanReport:
        """Add a workspace folder and index it."""
        return self.scan([root], progress)

    def remove_root(self, root: str) -> None:
        """Drop a workspace folder and every file under it that is not open."""
        root = normalize_path(root)
        with self._lock:
            if root in self._roots:
                self._roots.remove(root)
            store = self._stores.pop(root, None)
        if store is not None:
            store.close()
        self._removeunder(root)

    def scan(
        self,
        roots: Iterable[str] | None = None,
        progress: ProgressCallback | None = None,
        *,
        min_parallel: int = MIN_PARALLEL_FILES,
    ) -> ScanReport:
        """Index every candidate file under `roots` (default: the known roots); files that were
        indexed under them but are gone or no longer candidates leave the index. Parsing happens in
        `options.workers` processes when at least `min_parallel` files need it (see `scan.py`)."""
        started = time.perf_counter()
        report = ScanReport()
        roots = [normalize_path(r) for r in (roots if roots is not None else self._roots)]
        with self._lock:
            self._roots.extend(r for r in dict.fromkeys(roots) if r not in self._roots)
        elsewhere = sum(1 for p in self._graph.files if not any(under(p, r) for r in roots))
        candidates, report.beyond_max_files = collect_candidates(
            roots, self.options, self._graph, limit=max(0, self.options.max_files - elsewhere))
        if report.beyond_max_files:
            log.warning("index: %d files not indexed: the index holds at most %d files (index.maxFiles)",
                        report.beyond_max_files, self.options.max_files)
        index_candidates(candidates, lambda path, lang: self._read_disk_file(path, lang, report),
                         self._apply_disk_file, self._remove_file, report, progress,
                         resolve_workers(self.options.workers), min_parallel)
        seen = {path for path, _ in candidates}
        for root in roots:
            stale = [p for p in self._graph.files if under(p, root) and p not in seen and p not in self._docs]
            for path in stale:
                self._remove_file(path)
        self._graph.resolve_pending()  # the new files' imports, once, here rather than in a query
        report.files = sum(report.languages.values())
        report.symbols = self._graph.symbol_count
        report.seconds = time.perf_counter() - started
        self.last_scan = report
        return report

    def _store_for(self, path: str) -> SnapshotStore | None:
        if not self.snapshot_enabled:
            return None
        root = max((r for r in self._roots if under(path, r)), key=len, default=None)
        if root is None:
            return None
        store = self._stores.get(root)
        if store is None:
            store = self._stores[root] = SnapshotStore(root, self._cache_dir)
        return store if store.enabled else None

    def _read_disk_file(self, path: str, lang: str, report: ScanReport | None) -> Prepared:
        """`scan.read_disk_file` of `path` unless it is open (None)."""
        if path in self._docs:
            return None
        indexed = self._disk_hash.get(path) if self._graph.tags(path) is not None else None
        return read_disk_file(path, lang, self.options.max_file_bytes, indexed, self._store_for, report,
                              self.source_guard)

    def _apply_disk_file(self, file: DiskFile) -> FileUpdate | None:
        """Put a prepared (and parsed) file into the graph unless it was opened meanwhile."""
        with self._lock:
            if file.path in self._docs:
                return None
            self._disk_hash[file.path] = file.digest
            update = self._graph.set_file(file.path, file.tags)
            if update.reindexed:
                self.reindexed_files += 1
        if update.reindexed:
            self._notify(file.path, update.fingerprint)
        return update

    def _index_disk_file(self, path: str, lang: str) -> FileUpdate | None:
        """Index one file from disk in this process (a watched-files event); a new file is left
        out while the index holds `max_files` files."""
        if self._graph.tags(path) is None and self._graph.file_count >= self.options.max_files:
            log.info("index: %s not indexed: the index holds %d files (index.maxFiles)", path, self.options.max_files)
            return None
        item = self._read_disk_file(path, lang, None)
        if isinstance(item, Skipped):
            self._remove_file(path)
        if not isinstance(item, DiskFile):
            return None
        if item.tags is None:
            item.parse_here()
            item.save_to_snapshot()
        return self._apply_disk_file(item)

    # ---- watched files

    def file_changed_on_disk(self, path: str) -> FileUpdate | None:
        """A file was created or changed on disk: (re)index it unless it is open."""
        path = normalize_path(path)
        if path in self._docs:
            return None
        if is_memory_path(path):  # no file behind it: a closed memory document leaves the index
            self._remove_file(path)
            return None
        if os.path.isdir(path):
            self.scan_subtree(path)
            return None
        root = max((r for r in self._roots if under(path, r)), key=len, default=None)
        lang = languages.language_for_path(path)
        if root is None or lang is None or not is_candidate(root, path, self.options, GitignoreCache()):
            self._remove_file(path)
            return None
        return self._index_disk_file(path, lang)

    def scan_subtree(self, directory: str) -> None:
        """Index a directory that appeared under a root (a watched-files event for a folder)."""
        directory = normalize_path(directory)
        root = max((r for r in self._roots if under(directory, r)), key=len, default=None)
        if root is None:
            return
        for path, lang in iter_candidates(root, self.options):
            if under(path, directory):
                self._index_disk_file(path, lang)

    def file_deleted(self, path: str) -> None:
        """A file or directory was deleted on disk; open buffers stay indexed."""
        path = normalize_path(path)
        if path not in self._docs:
            self._remove_file(path)
        self._removeunder(path)

    def _removeunder(self, directory: str) -> None:
        for p in [p for p in self._graph.files if under(p, directory) and p not in self._docs]:
            self._remove_file(p)

    def _remove_file(self, path: str) -> None:
        with self._lock:
            self._disk_hash.pop(path, None)
            update = self._graph.remove_file(path)
            if update.reindexed:
                self.reindexed_files += 1
                self._let_go_of_published()  # it holds the removed file's entry
        if update.reindexed:
            self._notify(path, "")
