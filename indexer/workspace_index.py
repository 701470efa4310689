"""`WorkspaceIndex`: the object the server holds. Open buffers, disk files, the graph, the snapshots.

It is a document listener (`did_open` / `did_change` / `did_close`), a watched-files listener
and the owner of the workspace scan (both in `disk_side.py`), and the publisher of snapshots.

Invariants:
- An open buffer's content wins over the file on disk until it is closed.
- Edits only update text and record tree edits; the reparse and re-indexing happen in `flush`
  (called by `tree(path)`, by `snapshot`, by `snapshot_for` for the buffers a completion
  reads, or by the server's scheduler), so a burst of keystrokes costs one incremental parse
  and one tags extraction.
- Each change of the graph, and each change of the visited places (`worked_at`), publishes a new
  `IndexSnapshot` (built when first asked for: `published`); a completion in `path` reads
  `snapshot_for(path)`: every pending buffer it can
  read (`relevance.py`) is flushed into that snapshot, and its own buffer's text and tree come
  from the buffer itself.
- No snapshot the index holds predates a close that changed the graph or a file's removal: both
  let go of the published one (else its entries keep what left, with all derived from them, until
  a request asks for a snapshot), so the next one carries nothing over (`IndexSnapshot`).
- A file is re-indexed (its graph rows rebuilt) only when its semantic fingerprint changed;
  `last_flush.reindexed` counts those per flush, `reindexed_files` in total.
- Subscribers get `(path, fingerprint)` after each fingerprint change ("" when a file left the
  index), see `notify.py`.
- Edit times come from `clock` (injectable: tests advance it).
- Bounds: at most `options.max_parsed_buffers` open buffers hold a parse tree (the least
  recently edited or read let go of theirs and parse afresh when used again, with the same
  results); the scan indexes at most `options.max_files` files (`disk_side.py`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from indexer import languages
from indexer.buffer_trees import BufferTrees
from indexer.disk_side import DiskSide
from indexer.documents import OpenDocument, TextEditLike, is_memory_path
from indexer.graph import SymbolGraph
from indexer.notify import FingerprintCallback, FingerprintSubscribers
from indexer.region_ring import VISIT_CONTEXT_LINES, RegionRing
from indexer.relevance import matters_to, needed_by_others
from indexer.snapshot import IndexSnapshot
from indexer.store import SnapshotStore
from indexer.tags import FileTags
from indexer.workspace import ScanOptions, ScanReport, Skipped, SourceGuard, normalize_path, read_source

log = logging.getLogger("arbor.indexer")



@dataclass(frozen=True, slots=True)
class FlushStats:
    """What one `flush` did: files reparsed, files re-indexed, and importers marked."""

    reparsed: int = 0
    reindexed: int = 0
    marked: frozenset[str] = field(default_factory=frozenset)


class WorkspaceIndex(DiskSide, BufferTrees):
    """Index of every supported file under the workspace roots plus the open buffers."""

    def __init__(
        self,
        options: ScanOptions | None = None,
        *,
        snapshot: bool = True,
        cache_dir: Path | None = None,
        clock: Callable[[], float] = time.monotonic,
        recent_edits: RegionRing | None = None,
        recent_visits: RegionRing | None = None,
    ) -> None:
        self.options = options or ScanOptions()
        self.snapshot_enabled = snapshot
        self._cache_dir = cache_dir
        self._graph = SymbolGraph()
        self._lock = threading.RLock()
        self._docs: dict[str, OpenDocument] = {}
        self._recent: OrderedDict[str, None] = OrderedDict()  # open buffers, least recently used first
        self._pending: dict[str, float] = {}  # edited open buffer -> monotonic time of its oldest unflushed edit
        self._roots: list[str] = []
        self._stores: dict[str, SnapshotStore] = {}
        self._disk_hash: dict[str, str] = {}
        self._subscribers = FingerprintSubscribers()
        self._published = IndexSnapshot()
        # the regions of open buffers edited last, recorded at each flush, and the places worked at
        # last in the buffers the user moved on from (`worked_at`; see `region_ring.py`)
        self.recent_edits = recent_edits if recent_edits is not None else RegionRing()
        self.recent_visits = recent_visits if recent_visits is not None else RegionRing(
            context_lines=VISIT_CONTEXT_LINES, merge=False)
        self._visits = self.recent_visits.regions()  # what the published snapshot must carry
        # the last `worked_at`: (open buffer, line, the text of the lines a visit there shows, as then)
        self._worked_at: tuple[str, int, str] | None = None
        self.clock = clock  # when edits happened, for `lag_s` and `snapshot_for`
        self.reindexed_files = 0
        self.last_flush = FlushStats()
        self.last_scan: ScanReport | None = None
        self.flush_ms_total = 0.0
        self.pending_lag_s = 0.0  # see `snapshot_for`
        self.flushes = 0
        self.source_guard: SourceGuard | None = None  # what may be read from disk (the server's privacy)

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
            self._used(path)

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
            self._used(path)

    def _mark_pending(self, path: str) -> None:
        self._pending.setdefault(path, self.clock())

    def _used(self, path: str) -> None:
        """Mark open buffer `path` most recently used; past `options.max_parsed_buffers`, the least
        recently used buffer lets go of its tree (`OpenDocument.release`) until it is used again."""
        self._recent[path] = None
        self._recent.move_to_end(path)
        while len(self._recent) > self.options.max_parsed_buffers:
            oldest, _ = self._recent.popitem(last=False)
            doc = self._docs.get(oldest)
            if doc is not None:
                doc.release()

    def did_close(self, path: str) -> None:
        """Forget the buffer; the file falls back to its disk content (or leaves the index)."""
        path = normalize_path(path)
        with self._lock:
            doc = self._docs.pop(path, None)
            self._recent.pop(path, None)
            self._pending.pop(path, None)
            self._disk_hash.pop(path, None)
        saved = doc is not None and self._visit_survives_close(path, doc)
        self.file_changed_on_disk(path)
        with self._lock:
            if self._worked_at is not None and self._worked_at[0] == path:
                left, line, text = self._worked_at
                self._worked_at = None
                if saved:  # closing it is moving on from it (VS Code closes a preview editor so)
                    self.recent_visits.record(left, line, line, lambda first, last: text)
            if not saved:  # a buffer's unsaved text is not shown once it is closed
                self.recent_visits.forget(path)
            self._visits = self.recent_visits.regions()
            if self._graph.tags(path) is None:
                self.recent_edits.forget(path)
        self._let_go_of_published()

    def _visit_survives_close(self, path: str, doc: OpenDocument) -> bool:
        """Whether closing buffer `path` (its last text `doc`) keeps what it shows as a visit: it
        has a place to keep, and it held what the file on disk holds (a file is read only then)."""
        placed = (self._worked_at is not None and self._worked_at[0] == path) or any(
            region.path == path for region in self.recent_visits.regions())
        return placed and not is_memory_path(path) and self._read_bytes(path) == doc.text.encode("utf-8")

    def worked_at(self, path: str, line: int) -> None:
        """The user works at `line` (0-based) of open buffer `path`: a completion was asked for
        there, or the cursor rests there. The lines a visit there would show are read now. When
        the last such place was in another buffer, still open, the user moved on from it: its
        lines, as they were when the user was there, enter `recent_visits`, and the next
        published snapshot carries them. Closing the buffer of the last place moves on from it
        too when the buffer held what its file on disk holds (`did_close`); a buffer closed with
        other text leaves the ring."""
        path = normalize_path(path)
        with self._lock:
            doc = self._docs.get(path)
            last, self._worked_at = self._worked_at, None
            if doc is not None:
                self._worked_at = (path, line, doc.lines(*self.recent_visits.shown(line, line)))
            if last is not None and last[0] != path and last[0] in self._docs:
                left, left_line, text = last
                self.recent_visits.record(left, left_line, left_line, lambda first, last_line: text)
                self._visits = self.recent_visits.regions()

    def is_open(self, path: str) -> bool:
        return normalize_path(path) in self._docs

    def text_only(self, path: str) -> bool:
        """Whether open buffer `path` is kept as text only: no language the index parses, over
        `max_file_bytes`, or `costly` (see `indexer.documents`)."""
        doc = self._docs.get(normalize_path(path))
        return doc is not None and (doc.language is None or doc.costly)

    # ---- flushing and access

    @property
    def pending(self) -> frozenset[str]:
        """Open buffers edited since their last flush."""
        return frozenset(self._pending)

    def lag_s(self, path: str) -> float:
        """Seconds since the oldest edit of open buffer `path` that its index entry does not
        reflect yet (0.0 when it is up to date)."""
        since = self._pending.get(normalize_path(path))
        return 0.0 if since is None else self.clock() - since

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
                since = self._pending.pop(target, None)
                doc = self._docs.get(target)
                if doc is None:
                    continue
                tags = doc.tags()
                if tags is None:
                    if not doc.costly and since is not None:  # cut by a budget (a cold first tagging
                        self._pending[target] = since  # compiles the language's queries): next flush
                    continue
                reparsed += 1
                update = self._graph.set_file(target, tags, doc.tagged_source)
                rows = doc.take_edited_rows()
                if rows is not None:
                    self.recent_edits.record(target, *rows, doc.lines)
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

    @property
    def snapshot(self) -> IndexSnapshot:
        """The latest published snapshot, with all pending buffers flushed into it."""
        if self._pending:
            self.flush()
        return self.published

    def _let_go_of_published(self) -> None:
        """Drop the published snapshot when the graph has moved past it (see the invariants)."""
        with self._lock:
            if self._published.version != self._graph.change_serial:
                self._published = IndexSnapshot()

    @property
    def published(self) -> IndexSnapshot:
        """The snapshot of the graph as it is now (pending buffers not flushed): one per version."""
        snapshot = self._published
        if (snapshot.version != self._graph.change_serial or snapshot.stale
                or snapshot.recent_visits != self._visits):
            with self._lock:
                snapshot = self._published = IndexSnapshot(self._graph, self._read_bytes, previous=snapshot,
                                                           recent_edits=self.recent_edits.regions(),
                                                           recent_visits=self._visits)
        return snapshot

    def snapshot_for(self, path: str, max_lag_s: float | None = None) -> IndexSnapshot:
        """The snapshot a completion in `path` reads. Pending buffers that can matter to `path`
        are flushed first: those it imports (up to three hops) and, for Go and Java, those in its
        directory (one package; see `relevance.py`). `path`'s own entry (its definitions near the
        cursor come from its fresh tree) and unrelated buffers may lag their latest edits until
        the next flush, but by no more than `max_lag_s` (default `pending_lag_s`: 0, i.e.
        everything is flushed, unless the owner promises to flush soon after, as the server's
        scheduler does). An entry's `source` is the text it was made from."""
        self._flush_for(normalize_path(path), self.pending_lag_s if max_lag_s is None else max_lag_s)
        return self.published

    def _flush_for(self, path: str, max_lag_s: float) -> None:
        now = self.clock()
        with self._lock:
            pending = dict(self._pending)
        if not pending:
            return
        overdue = {p for p, since in pending.items() if now - since >= max_lag_s or self._never_tagged(p)}
        others = set(pending) - {path} - overdue
        if others:
            matters = matters_to(self._graph, path)
            overdue |= {p for p in others if matters(p)}
        for target in sorted(overdue):
            self.flush(target)

    def _never_tagged(self, path: str) -> bool:
        """Whether the graph's entry for open buffer `path` does not come from the buffer (none
        yet, or the file on disk): such an entry does not lag, it is simply another text."""
        doc = self._docs.get(path)
        return self._graph.tags(path) is None or (doc is not None and doc.language is not None
                                                   and doc.tagged_source is None)

    def needed_by_other_buffers(self) -> set[str]:
        """The open buffers that a completion in another open buffer would flush first."""
        return needed_by_others(self._graph, list(self._docs))

    def _read_bytes(self, path: str) -> bytes | None:
        """The bytes of `path` on disk as the index may read them (None: unreadable or refused)."""
        data = read_source(path, self.options.max_file_bytes, self.source_guard)
        return None if isinstance(data, Skipped) else data

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
        return self._subscribers.subscribe(callback)

    def set_dispatcher(self, run: Callable[[Callable[[], None]], None] | None, owner_thread: int | None = None) -> None:
        """Deliver notifications raised off `owner_thread` through `run` (None: call directly)."""
        self._subscribers.set_dispatcher(run, owner_thread)

    def _notify(self, path: str, fingerprint: str) -> None:
        self._subscribers.notify(path, fingerprint)

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
