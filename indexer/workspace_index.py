"""`WorkspaceIndex`: the object the server holds. Open buffers, disk files, the graph, the snapshot.

It is a document listener (`did_open` / `did_change` / `did_close`), a watched-files listener
(`file_changed_on_disk` / `file_deleted`), and the owner of the workspace scan.

Invariants:
- An open buffer's content wins over the file on disk until it is closed.
- Edits only update text and record tree edits; the reparse and re-indexing happen in `flush`
  (called by `tree(path)`, by the `graph` property, or by the server when idle), so a burst of
  keystrokes costs one incremental parse and one tags extraction.
- A file is re-indexed (its graph entries rebuilt) only when its semantic fingerprint changed;
  `last_flush.reindexed` counts those per flush, `reindexed_files` in total.
- Subscribers get `(path, fingerprint)` after each fingerprint change ("" when a file left the
  index). With `set_dispatcher(run, owner_thread)`, calls from other threads (the scan) are
  handed to `run` (e.g. `loop.call_soon_threadsafe`) instead of being made on that thread;
  calls on the owner thread (edits being flushed) stay synchronous.
- Scans run wherever `scan` is called (the server calls it in a worker thread); parsing happens
  outside the lock (in worker processes for a large scan, see `scan.py`), so edits are never
  blocked for long.
"""

from __future__ import annotations

import logging
import os
import posixpath
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from indexer import languages
from indexer.documents import OpenDocument, TextEditLike, is_memory_path
from indexer.graph import SAME_PACKAGE_LANGS, FileUpdate, SymbolGraph
from indexer.scan import (
    MIN_PARALLEL_FILES, DiskFile, Prepared, collect_candidates, index_candidates, read_disk_file,
    resolve_workers,
)
from indexer.store import SnapshotStore
from indexer.tags import FileTags
from indexer.workspace import (
    GitignoreCache, ScanOptions, ScanReport, Skipped, is_candidate, iter_candidates,
    SourceGuard, normalize_path, read_source,
)

log = logging.getLogger("arbor.indexer")

FingerprintCallback = Callable[[str, str], None]
ProgressCallback = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class FlushStats:
    """What one `flush` did: files reparsed, files re-indexed, and importers marked."""

    reparsed: int = 0
    reindexed: int = 0
    marked: frozenset[str] = field(default_factory=frozenset)


class WorkspaceIndex:
    """Index of every supported file under the workspace roots plus the open buffers."""

    def __init__(
        self,
        options: ScanOptions | None = None,
        *,
        snapshot: bool = True,
        cache_dir: Path | None = None,
    ) -> None:
        self.options = options or ScanOptions()
        self.snapshot_enabled = snapshot
        self._cache_dir = cache_dir
        self._graph = SymbolGraph()
        self._lock = threading.RLock()
        self._docs: dict[str, OpenDocument] = {}
        self._pending: dict[str, float] = {}  # edited open buffer -> monotonic time of its oldest unflushed edit
        self._roots: list[str] = []
        self._stores: dict[str, SnapshotStore] = {}
        self._disk_hash: dict[str, str] = {}
        self._disk_trees: OrderedDict[tuple, tuple[languages.Tree, bytes]] = OrderedDict()
        self._subscribers: list[FingerprintCallback] = []
        self._dispatch: Callable[[Callable[[], None]], None] | None = None
        self._owner_thread: int | None = None
        self.reindexed_files = 0
        self.last_flush = FlushStats()
        self.last_scan: ScanReport | None = None
        self.flush_ms_total = 0.0
        self.pending_lag_s = 0.0  # see `graph_for`
        self.flushes = 0
        self.source_guard: SourceGuard | None = None  # what may be read from disk (the server's privacy)

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
        self._remove_under(root)

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
        candidates = collect_candidates(roots, self.options, self._graph)
        index_candidates(candidates, lambda path, lang: self._read_disk_file(path, lang, report),
                         self._apply_disk_file, self._remove_file, report, progress,
                         resolve_workers(self.options.workers), min_parallel)
        seen = {path for path, _ in candidates}
        for root in roots:
            stale = [p for p in self._graph.files if _under(p, root) and p not in seen and p not in self._docs]
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
        root = max((r for r in self._roots if _under(path, r)), key=len, default=None)
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
        """Index one file from disk in this process (a watched-files event)."""
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
        root = max((r for r in self._roots if _under(path, r)), key=len, default=None)
        lang = languages.language_for_path(path)
        if root is None or lang is None or not is_candidate(root, path, self.options, GitignoreCache()):
            self._remove_file(path)
            return None
        return self._index_disk_file(path, lang)

    def scan_subtree(self, directory: str) -> None:
        """Index a directory that appeared under a root (a watched-files event for a folder)."""
        directory = normalize_path(directory)
        root = max((r for r in self._roots if _under(directory, r)), key=len, default=None)
        if root is None:
            return
        for path, lang in iter_candidates(root, self.options):
            if _under(path, directory):
                self._index_disk_file(path, lang)

    def file_deleted(self, path: str) -> None:
        """A file or directory was deleted on disk; open buffers stay indexed."""
        path = normalize_path(path)
        if path not in self._docs:
            self._remove_file(path)
        self._remove_under(path)

    def _remove_under(self, directory: str) -> None:
        for p in [p for p in self._graph.files if _under(p, directory) and p not in self._docs]:
            self._remove_file(p)

    def _remove_file(self, path: str) -> None:
        with self._lock:
            self._disk_hash.pop(path, None)
            update = self._graph.remove_file(path)
            if update.reindexed:
                self.reindexed_files += 1
        if update.reindexed:
            self._notify(path, "")

    # ---- document listener

    def did_open(self, path: str, text: str, language_id: str) -> None:
        """Track an opened buffer; one larger than `max_file_bytes` is kept as text only."""
        path = normalize_path(path)
        language = languages.language_for_id(language_id, path)
        if language is not None and len(text) > self.options.max_file_bytes:
            log.info("index: not parsing open buffer %s (%d characters > %d)", path, len(text),
                     self.options.max_file_bytes)
            language = None
        with self._lock:
            self._docs[path] = OpenDocument(path, text, language)
            self._mark_pending(path)

    def did_change(self, path: str, edits: Sequence[TextEditLike], new_text: str) -> None:
        """Apply `edits` (code-point offsets into the text before each edit, in order)."""
        path = normalize_path(path)
        with self._lock:
            doc = self._docs.get(path)
            if doc is None:
                self._docs[path] = OpenDocument(path, new_text, languages.language_for_path(path))
            elif len(edits) == 1:  # the common case: new_text is that edit's result
                doc.apply(edits[0], new_text)
            else:
                for edit in edits:
                    doc.apply(edit)
                if doc.text != new_text:
                    log.debug("index: %s out of sync after edits; resyncing", path)
                    doc.replace(new_text)
            self._mark_pending(path)

    def _mark_pending(self, path: str) -> None:
        self._pending.setdefault(path, time.monotonic())

    def did_close(self, path: str) -> None:
        """Forget the buffer; the file falls back to its disk content (or leaves the index)."""
        path = normalize_path(path)
        with self._lock:
            self._docs.pop(path, None)
            self._pending.pop(path, None)
            self._disk_hash.pop(path, None)
        self.file_changed_on_disk(path)

    def is_open(self, path: str) -> bool:
        return normalize_path(path) in self._docs

    # ---- flushing and access

    @property
    def pending(self) -> frozenset[str]:
        """Open buffers edited since their last flush."""
        return frozenset(self._pending)

    def lag_s(self, path: str) -> float:
        """Seconds since the oldest edit of open buffer `path` that its index entry does not
        reflect yet (0.0 when it is up to date)."""
        since = self._pending.get(normalize_path(path))
        return 0.0 if since is None else time.monotonic() - since

    def flush(self, path: str | None = None) -> FlushStats:
        """Reparse and re-index pending buffers (all, or just `path`)."""
        started = time.perf_counter()
        notifications: list[tuple[str, str]] = []
        reparsed = reindexed = 0
        marked: set[str] = set()
        with self._lock:
            if path is None:
                targets = sorted(self._pending)
            else:
                path = normalize_path(path)
                targets = [path] if path in self._pending else []
            for target in targets:
                self._pending.pop(target, None)
                doc = self._docs.get(target)
                if doc is None:
                    continue
                tags = doc.tags()
                if tags is None:
                    continue
                reparsed += 1
                update = self._graph.set_file(target, tags)
                if update.reindexed:
                    reindexed += 1
                    marked |= update.marked
                    notifications.append((target, update.fingerprint))
            self.reindexed_files += reindexed
            stats = FlushStats(reparsed, reindexed, frozenset(marked))
            if targets:
                self.last_flush = stats
                self.flushes += 1
                self.flush_ms_total += (time.perf_counter() - started) * 1000
        for p, fp in notifications:
            self._notify(p, fp)
        return stats

    def settle(self) -> FlushStats:
        """Flush, then parse afresh the open buffers whose incremental trees have syntax errors
        (see `OpenDocument.settle`) and re-index them. Meant for idle moments."""
        self.flush()
        with self._lock:
            unsettled = [path for path, doc in self._docs.items() if not doc.settled and doc.language]
            for path in unsettled:
                self._docs[path].settle()
                self._mark_pending(path)
        return self.flush() if unsettled else FlushStats()

    @property
    def graph(self) -> SymbolGraph:
        """The symbol graph, with all pending buffers flushed into it."""
        if self._pending:
            self.flush()
        return self._graph

    def graph_for(self, path: str, max_lag_s: float | None = None) -> SymbolGraph:
        """The graph as a completion in `path` needs it. Pending buffers that can matter to `path`
        are flushed first: those it imports (up to three hops) and, for Go and Java, those in its
        directory (one package). `path`'s own entry (its definitions near the cursor come from its fresh
        tree) and unrelated buffers may lag their latest edits until the next flush, but by no
        more than `max_lag_s` (default `pending_lag_s`: 0, i.e. everything is flushed, unless the
        owner promises to flush soon after, as the server does after each answer).
        `tagged_source(path)` gives the text `path`'s entry was made from."""
        path = normalize_path(path)
        max_lag_s = self.pending_lag_s if max_lag_s is None else max_lag_s
        now = time.monotonic()
        with self._lock:
            pending = dict(self._pending)
        if not pending:
            return self._graph
        overdue = {p for p, since in pending.items() if now - since >= max_lag_s or self._never_tagged(p)}
        others = set(pending) - {path} - overdue
        if others:
            matters = self._matters_to(path)
            overdue |= {p for p in others if matters(p)}
        for target in sorted(overdue):
            self.flush(target)
        return self._graph

    def _never_tagged(self, path: str) -> bool:
        """Whether the graph's entry for open buffer `path` does not come from the buffer (none
        yet, or the file on disk): such an entry does not lag, it is simply another text."""
        doc = self._docs.get(path)
        return self._graph.tags(path) is None or (doc is not None and doc.language is not None
                                                   and doc.tagged_source is None)

    def _matters_to(self, to: str) -> Callable[[str], bool]:
        """A test of whether a file's entry can change a completion in `to`: `to` imports it (up
        to three hops), or both are Go or Java files of one directory (one package)."""
        related = self._import_closure(to, hops=3)
        package = posixpath.dirname(to) if languages.language_for_path(to) in SAME_PACKAGE_LANGS else None
        return lambda path: path in related or posixpath.dirname(path) == package

    def needed_by_other_buffers(self) -> set[str]:
        """The open buffers that a completion in another open buffer would flush first
        (`graph_for`); one import closure per open buffer."""
        docs = list(self._docs)
        needed: set[str] = set()
        for other in docs:
            matters = self._matters_to(other)
            needed.update(path for path in docs if path != other and matters(path))
        return needed

    def _import_closure(self, path: str, hops: int) -> set[str]:
        """Files `path` imports, directly or through up to `hops` files."""
        seen: set[str] = set()
        frontier = [path]
        for _ in range(hops):
            frontier = [t for f in frontier for t in self._graph.imports_of(f) if t not in seen and t != path]
            seen.update(frontier)
            if not frontier:
                break
        return seen

    def current_tree(self, path: str, allow_lag: bool = False) -> tuple[languages.Tree, bytes] | None:
        """Like `tree`, but an open buffer is only reparsed: re-tagging and re-indexing it are
        left to the next flush. With `allow_lag`, a buffer whose reparses are slow may come back
        edited but not reparsed (`OpenDocument.lagging`; `unparsed(path)` says which bytes its
        tree misses): for callers that, like the server, reparse it soon after."""
        path = normalize_path(path)
        with self._lock:
            doc = self._docs.get(path)
            if doc is not None:
                tree = doc.tree(allow_lag)
                return (tree, doc.source) if tree is not None else None
        return self._disk_tree(path)

    def unparsed(self, path: str) -> tuple[int, int] | None:
        """The byte range of open buffer `path` that its current tree does not reflect yet."""
        doc = self._docs.get(normalize_path(path))
        return doc.unparsed if doc is not None else None

    def tree_lags(self, path: str) -> bool:
        """Whether open buffer `path` has edits its tree has not been reparsed for."""
        return self.unparsed(path) is not None

    def tagged_source(self, path: str) -> bytes | None:
        """The bytes the graph's tags of open buffer `path` were extracted from (None when `path`
        is not open or not tagged yet: its tags then come from the file on disk)."""
        doc = self._docs.get(normalize_path(path))
        return doc.tagged_source if doc is not None else None

    def tree(self, path: str) -> tuple[languages.Tree, bytes] | None:
        """The current tree and source of `path` (open buffer or disk file), with the buffer's
        pending edits re-indexed first; None if unsupported."""
        path = normalize_path(path)
        if path in self._pending:
            self.flush(path)
        return self.current_tree(path)

    def _disk_tree(self, path: str) -> tuple[languages.Tree, bytes] | None:
        lang = languages.language_for_path(path)
        if lang is None:
            return None
        try:
            st = os.stat(path)
        except OSError:
            return None
        key = (path, st.st_mtime_ns, st.st_size)
        with self._lock:
            cached = self._disk_trees.get(key)
            if cached is not None:
                self._disk_trees.move_to_end(key)
                return cached
        data = read_source(path, self.options.max_file_bytes, self.source_guard)
        if isinstance(data, Skipped):
            return None
        result = (languages.parse(lang, data), data)
        with self._lock:
            self._disk_trees[key] = result
            while len(self._disk_trees) > 16:
                self._disk_trees.popitem(last=False)
        return result

    def text(self, path: str) -> str | None:
        """The current text of `path`: the open buffer, else the file on disk; None if unreadable."""
        path = normalize_path(path)
        doc = self._docs.get(path)
        if doc is not None:
            return doc.text
        data = read_source(path, self.options.max_file_bytes, self.source_guard)
        return None if isinstance(data, Skipped) else data.decode("utf-8")

    def tags(self, path: str) -> FileTags | None:
        """The current tags of `path` (pending edits flushed first)."""
        path = normalize_path(path)
        if path in self._pending:
            self.flush(path)
        return self._graph.tags(path)

    # ---- fingerprint subscriptions

    def subscribe(self, callback: FingerprintCallback) -> Callable[[], None]:
        """Call `callback(path, fingerprint)` on every fingerprint change; returns an unsubscribe."""
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback) if callback in self._subscribers else None

    def set_dispatcher(self, run: Callable[[Callable[[], None]], None] | None, owner_thread: int | None = None) -> None:
        """Deliver notifications raised off `owner_thread` through `run` (None: call directly)."""
        self._dispatch = run
        self._owner_thread = owner_thread if owner_thread is not None else threading.get_ident()

    def _notify(self, path: str, fingerprint: str) -> None:
        if self._dispatch is not None and threading.get_ident() != self._owner_thread:
            self._dispatch(lambda: self._deliver(path, fingerprint))
        else:
            self._deliver(path, fingerprint)

    def _deliver(self, path: str, fingerprint: str) -> None:
        for callback in list(self._subscribers):
            try:
                callback(path, fingerprint)
            except Exception:
                log.exception("index: fingerprint subscriber failed for %s", path)

    def stats(self) -> dict:
        """Counters for `arbor/stats`."""
        scan = self.last_scan
        return {
            "files": len(self._graph.files),
            "symbols": self._graph.symbol_count,
            "roots": list(self._roots),
            "openDocuments": len(self._docs),
            "pending": len(self._pending),
            "reindexedFiles": self.reindexed_files,
            "flushes": self.flushes,
            "flushMsMean": round(self.flush_ms_total / self.flushes, 3) if self.flushes else 0.0,
            "lastFlush": {"reparsed": self.last_flush.reparsed, "reindexed": self.last_flush.reindexed,
                          "marked": len(self.last_flush.marked)},
            "lastScan": None if scan is None else {
                "files": scan.files, "parsed": scan.parsed, "fromSnapshot": scan.from_snapshot,
                "seconds": round(scan.seconds, 3), "skipped": len(scan.skipped)},
        }

    def close(self) -> None:
        for store in self._stores.values():
            store.close()
        self._stores.clear()


def _under(path: str, directory: str) -> bool:
    return path.startswith(directory.rstrip("/") + "/")
