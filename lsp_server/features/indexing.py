"""The workspace index inside the server: creation, background scans with `$/progress`, watched
files, workspace folders, and flushing edited buffers when the user pauses.

Invariants:
- The event loop never runs a scan: scans and watched-file updates run one at a time on a single
  worker thread, in the order they were requested.
- Fingerprint notifications raised on that worker thread are delivered on the event loop, so
  subscribers (the completion cache) only ever run on the loop thread.
- Edited buffers are re-indexed when something needs them (a completion request reads the graph,
  which flushes the buffers it depends on and any whose entry lags by `PENDING_LAG_S`), shortly
  after a completion was answered once the buffer's entry lags by `REINDEX_LAG_S` (so re-indexing
  stays off the keystroke-to-ghost-text path and costs one re-index per buffer per
  `REINDEX_LAG_S` of typing, not one per answer), or after `IDLE_FLUSH_S` without edits,
  whichever comes first; after `IDLE_SETTLE_S` without edits, buffers whose incremental trees
  have syntax errors are parsed afresh (`settle`). A completed buffer's next context is prepared
  (`pruning.context.prepare`) whenever it was re-indexed off the request path.
- `index.enabled: false` skips the workspace scan and file watching; open buffers stay indexed.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from indexer import ScanOptions, WorkspaceIndex
from indexer.languages import EXTENSIONS
from indexer.workspace import normalize_path
from pruning.context import prepare as prepare_context

from ..privacy import RedactingListener
from ..progress import WorkDoneProgress
from ..timers import Debounce, call_later
from .documents import uri_to_path

if TYPE_CHECKING:
    from ..config import IndexSettings
    from ..server import ArborServer

log = logging.getLogger(__name__)

IDLE_FLUSH_S = 0.3
AFTER_COMPLETION_FLUSH_S = 0.005
PENDING_LAG_S = 2.5  # how long a buffer's index entry may lag its edits when a completion reads it
REINDEX_LAG_S = 1.5  # after an answer, a buffer is re-indexed once its entry lags by this much
MAX_FLUSH_DEFERRAL_S = 0.1  # how long completions in flight may hold back that flush
IDLE_SETTLE_S = 1.5
PROGRESS_INTERVAL_S = 0.1
WATCHER_ID = "arbor-index-watched-files"


def freeze_heap() -> None:
    """Move everything alive after the first workspace scan (modules, the index) out of the
    garbage collector's reach (`gc.freeze`): a full collection otherwise walks the whole index,
    tens of milliseconds that land on whichever request is running. Objects made later are
    collected as usual; these stay until they are freed by reference counting."""
    started = time.perf_counter()
    gc.collect()
    gc.freeze()
    log.info("index: %d objects moved out of the collector's reach in %.0f ms", gc.get_freeze_count(),
             (time.perf_counter() - started) * 1000)


def scan_options(settings: IndexSettings) -> ScanOptions:
    return ScanOptions(include=tuple(settings.include), exclude=tuple(settings.exclude),
                       max_file_bytes=settings.max_file_bytes, workers=settings.workers)


class IndexingService:
    """Owns the server's `WorkspaceIndex` and the one worker thread that scans for it."""

    def __init__(self, server: ArborServer) -> None:
        self.server = server
        settings = server.settings.index
        self.index = WorkspaceIndex(scan_options(settings), snapshot=settings.snapshot)
        # completions may read a graph whose unrelated (and own) buffers lag by up to this much:
        # `flush_soon` re-indexes them right after each answer
        self.index.pending_lag_s = PENDING_LAG_S
        self.applied = settings
        self.started = False
        self.closed = False
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="arbor-index")
        self._idle = Debounce(IDLE_FLUSH_S, self._flush)
        self._settle = Debounce(IDLE_SETTLE_S, self._settle_buffers)
        self._soon_handle: asyncio.Handle | None = None
        self._prepare: set[str] = set()
        self._reparse: set[str] = set()  # buffers just completed, whose trees may lag their text
        self._prepare_next: set[str] = set()  # completed buffers to prepare after a re-index
        self._completed: set[str] = set()  # buffers completed at least once (closed ones leave)
        self._lookups: dict[str, tuple] = {}  # buffer -> what its last context looked up (`prepare`)
        self._soon_since: float | None = None
        self._heap_frozen = False

    # ---- document listener: flush after a pause in typing
    def did_open(self, path: str, text: str, language_id: str) -> None:
        self._schedule_flush()

    def did_change(self, path: str, edits: Any, new_text: str) -> None:
        self._schedule_flush()

    def did_close(self, path: str) -> None:
        for pending in (self._completed, self._prepare, self._reparse, self._prepare_next):
            pending.discard(normalize_path(path))
        self._lookups.pop(normalize_path(path), None)

    def context_built(self, path: str, parts: Any) -> None:
        """An interactive completion's context in `path`: its lookups are what `prepare` redoes."""
        self._lookups[normalize_path(path)] = parts.lookups

    def _schedule_flush(self) -> None:
        """The idle flush and settle run `IDLE_FLUSH_S` and `IDLE_SETTLE_S` after the last edit
        (`Debounce`: an edit only notes its time, no timer churn per keystroke)."""
        self._idle.poke()
        self._settle.poke()

    def flush_soon(self, path: str) -> None:
        """A completion in `path` was just answered: shortly, flush edited buffers and prepare
        `path`'s next context (`pruning.context.prepare`). Typing does not push this back, unlike
        the idle flush."""
        if self.closed:
            return
        path = normalize_path(path)  # as `index.pending` names it
        self._prepare.add(path)
        self._reparse.add(path)
        self._completed.add(path)
        if self._soon_handle is not None:
            return
        self._soon_since = time.monotonic()
        self._soon_handle = call_later(AFTER_COMPLETION_FLUSH_S, self._flush_soon)

    def _flush_soon(self) -> None:
        """One step of the after-completion flush. Each step does one piece of work: reparse one
        buffer just completed, prepare one buffer's next context, or re-index one buffer; so a
        message that arrives meanwhile waits for one piece at most. Only buffers whose entry lags
        by `REINDEX_LAG_S`, or that other open buffers import, are re-indexed: while someone
        types, re-indexing after every answer would cost a whole-file re-tag per pause, and with
        several documents that work would queue in front of the next requests."""
        self._soon_handle = None
        loop = asyncio.get_running_loop()
        waited = time.monotonic() - self._soon_since if self._soon_since is not None else 0.0
        if getattr(self.server, "completions_in_flight", 0) and waited < MAX_FLUSH_DEFERRAL_S:
            # other completions are being answered (a burst): re-indexing now would delay them
            self._soon_handle = loop.call_later(AFTER_COMPLETION_FLUSH_S, self._flush_soon)
            return
        if self._step():
            self._soon_handle = loop.call_soon(self._flush_soon)
        else:
            self._soon_since = None

    def _step(self) -> bool:
        """Do the next piece of after-completion work; False when there is none left."""
        while self._reparse:
            # the trees of the buffers just completed first (the next request in one then finds
            # its tree one pause behind, and reads what was typed since from the text)
            lagging = self._reparse.pop()
            if self.index.tree_lags(lagging):
                self._guarded("reparsing", lagging, self.index.current_tree, lagging)
                return True
        if self._prepare_next:
            target = self._prepare_next.pop()
            self._guarded("preparing the next context of", target, self._prepare_context, target)
            return True
        pending = self.index.pending
        due = {path for path in pending if self.index.lag_s(path) >= REINDEX_LAG_S}
        if pending - due:
            # a buffer that other open buffers import is due at once: a completion in one of them
            # would otherwise re-index it first, on its own request's path
            due |= pending & self.index.needed_by_other_buffers()
        # buffers whose entries are young wait for a later answer or the idle flush
        self._prepare -= pending - due
        # the buffers just completed first, then whatever else is due; a completed buffer whose
        # entry is current only has its next context prepared (a memo hit unless it changed)
        ordered = sorted(due & self._prepare) + sorted(due - self._prepare)
        if ordered:
            target = ordered[0]
            self._prepare.discard(target)
            self._guarded("re-indexing", target, self.index.flush, target)
            # each completed buffer's next context is prepared in a step of its own: its own
            # entry changed, or the names its last context resolved may be defined in `target`
            self._prepare_next |= self._completed
            return True
        if self._prepare:
            target = self._prepare.pop()
            self._guarded("preparing the next context of", target, self._prepare_context, target)
            return bool(self._prepare)
        return False

    def _prepare_context(self, path: str) -> None:
        prepare_context(self.index, path, self._lookups.get(path, ()))

    @staticmethod
    def _guarded(what: str, path: str, func, *args) -> None:
        try:
            func(*args)
        except Exception:
            log.exception("index: %s %s after a completion failed", what, path)

    def _flush(self) -> None:
        """The idle flush: re-index every edited buffer, then prepare the next context of each
        buffer that has been completed before, so no preparation goes stale."""
        try:
            self.index.flush()
            for target in sorted(self._completed):
                self._prepare_context(target)
        except Exception:
            log.exception("index: flushing edited buffers failed")

    def _settle_buffers(self) -> None:
        try:
            self.index.settle()
        except Exception:
            log.exception("index: settling edited buffers failed")

    # ---- scans
    async def run(self, func, *args) -> Any:
        """Run `func(*args)` on the index's worker thread (nothing once the service is closed)."""
        if self.closed:
            return None
        return await asyncio.get_running_loop().run_in_executor(self._executor, func, *args)

    async def start(self) -> None:
        """Called once at `initialized`: watch files, then scan the workspace folders."""
        loop = asyncio.get_running_loop()
        self.index.set_dispatcher(loop.call_soon_threadsafe)
        self.applied = self.server.settings.index
        self.index.options = scan_options(self.applied)
        self.index.snapshot_enabled = self.applied.snapshot
        self.started = True
        if not self.server.settings.index.enabled:
            log.info("index: disabled by settings; only open buffers are indexed")
            return
        # neither waits for the other, and `initialized` waits for neither
        asyncio.ensure_future(self._register_watchers())
        roots = self._workspace_roots()
        if roots:
            asyncio.ensure_future(self.scan(roots))

    def _workspace_roots(self) -> list[str]:
        folders = getattr(self.server.workspace, "folders", None) or {}
        roots = [uri_to_path(folder.uri) for folder in folders.values()]
        if not roots and self.server.workspace_root:
            roots = [self.server.workspace_root]
        return roots

    async def scan(self, roots: list[str] | None = None, title: str = "Indexing") -> None:
        """Scan `roots` (default: the known roots) on the worker thread, reporting `$/progress`."""
        if self.closed:
            return
        progress = await _Progress.open(self.server, title)
        try:
            report = await self.run(self.index.scan, roots, progress.callback)
        except Exception as exc:
            log.exception("index: scan failed")
            progress.close(f"Indexing failed: {exc}")
            return
        if report is None:  # closed while waiting
            progress.close("Indexing stopped")
            return
        self.server.stats.count("index_scans")
        log.info("index: %d files, %d symbols in %.2fs (%d parsed, %d from snapshot, %d skipped)",
                 report.files, report.symbols, report.seconds, report.parsed, report.from_snapshot,
                 len(report.skipped))
        progress.close(f"Indexed {report.files} files ({report.symbols} symbols) in {report.seconds:.1f}s")
        if not self._heap_frozen:
            self._heap_frozen = True
            freeze_heap()

    def settings_changed(self) -> None:
        """Apply new `index.*` settings: rescan with the new file selection if it changed."""
        settings = self.server.settings.index
        if settings == self.applied:
            return
        self.applied = settings
        self.index.options = scan_options(settings)
        self.index.snapshot_enabled = settings.snapshot
        if self.started and settings.enabled:
            asyncio.ensure_future(self.scan(self._workspace_roots()))

    # ---- watched files and workspace folders
    async def _register_watchers(self) -> None:
        caps = self.server.client_capabilities.workspace
        watched = caps.did_change_watched_files if caps is not None else None
        if watched is None or not watched.dynamic_registration:
            log.info("index: client cannot watch files for us; files changed outside the editor are "
                     "picked up at the next scan")
            return
        extensions = ",".join(sorted(ext.lstrip(".") for ext in EXTENSIONS))
        watchers = [types.FileSystemWatcher(glob_pattern=f"**/*.{{{extensions}}}"),
                    types.FileSystemWatcher(glob_pattern="**/.gitignore"),
                    types.FileSystemWatcher(glob_pattern="**/go.mod")]
        options = types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers)
        registration = types.Registration(id=WATCHER_ID, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                          register_options=options)
        try:
            await self.server.client_register_capability_async(types.RegistrationParams(registrations=[registration]))
        except Exception as exc:
            log.warning("index: registering file watchers failed: %s", exc)

    def files_changed(self, changes: list[types.FileEvent]) -> None:
        rescan = False
        updates: list[tuple[str, bool]] = []
        for change in changes:
            path = uri_to_path(change.uri)
            if path.endswith(("/.gitignore", "/go.mod")):
                rescan = True
            else:
                updates.append((path, change.type == types.FileChangeType.Deleted))

        def apply() -> None:
            for path, deleted in updates:
                if deleted:
                    self.index.file_deleted(path)
                else:
                    self.index.file_changed_on_disk(path)

        asyncio.ensure_future(self.run(apply))
        if rescan:
            asyncio.ensure_future(self.scan())

    def folders_changed(self, event: types.WorkspaceFoldersChangeEvent) -> None:
        for folder in event.removed or []:
            asyncio.ensure_future(self.run(self.index.remove_root, uri_to_path(folder.uri)))
        added = [uri_to_path(folder.uri) for folder in event.added or []]
        if added and self.server.settings.index.enabled:
            asyncio.ensure_future(self.scan(added))

    def close(self) -> None:
        self.closed = True
        self._idle.cancel()
        self._settle.cancel()
        if self._soon_handle is not None:
            self._soon_handle.cancel()
        self._executor.shutdown(wait=False, cancel_futures=True)
        self.index.close()


class _Progress:
    """Work-done progress for one scan ("Indexing" / "120/840 files"), fed from the worker thread."""

    def __init__(self, progress: WorkDoneProgress) -> None:
        self.progress = progress
        self.loop = asyncio.get_running_loop()
        self._last = 0.0

    @classmethod
    async def open(cls, server: ArborServer, title: str) -> _Progress:
        return cls(await WorkDoneProgress.open(server, title, "listing files"))

    def callback(self, done: int, total: int) -> None:
        """Called on the worker thread; reports at most every PROGRESS_INTERVAL_S (and the end)."""
        if self.progress.token is None:
            return
        now = time.monotonic()
        if done not in (0, total) and now - self._last < PROGRESS_INTERVAL_S:
            return
        self._last = now
        self.loop.call_soon_threadsafe(self._report, done, total)

    def _report(self, done: int, total: int) -> None:
        self.progress.report(f"{done}/{total} files", int(100 * done / total) if total else 100)

    def close(self, message: str) -> None:
        self.progress.close(message)


def register(server: ArborServer) -> IndexingService:
    """Create the index, make it a document listener, and handle watched files and folders."""
    service = IndexingService(server)
    server.index = service.index
    server.indexing = service
    service.index.source_guard = server.privacy  # denied and outside-workspace files stay unread
    server.document_listeners.append(RedactingListener(service.index, server.privacy))
    server.document_listeners.append(service)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: ArborServer, params: types.DidChangeWatchedFilesParams) -> None:
        if ls.settings.index.enabled:
            service.files_changed(params.changes)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_workspace_folders(ls: ArborServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        service.folders_changed(params.event)

    return service
