"""The workspace index inside the server: creation, background scans with `$/progress`, watched
files, workspace folders, and flushing edited buffers when the user pauses.

Invariants:
- The event loop never runs a scan: scans and watched-file updates run one at a time on a single
  worker thread, in the order they were requested.
- Fingerprint notifications raised on that worker thread are delivered on the event loop, so
  subscribers (the completion cache) only ever run on the loop thread.
- Edited buffers are re-indexed when a completion reads the index (`snapshot_for` flushes the
  buffers it can read and any whose entry lags by `PENDING_LAG_S`) or by the background jobs of
  `lsp_server.freshness.FreshnessScheduler` (its docstring is the freshness contract), which
  this service drives with one loop timer and feeds with edits, answers and contexts.
- `index.enabled: false` skips the workspace scan and file watching; open buffers stay indexed.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from indexer import ScanOptions, WorkspaceIndex
from indexer.languages import EXTENSIONS
from indexer.workspace import normalize_path
from pruning.context import prepare as prepare_context

from ..privacy import RedactingListener
from ..freshness import (  # noqa: F401  (the constants are part of this module's interface)
    AFTER_COMPLETION_FLUSH_S, IDLE_FLUSH_S, IDLE_SETTLE_S, PENDING_LAG_S, REINDEX_LAG_S, FreshnessScheduler,
)
from ..progress import WorkDoneProgress
from ..timers import call_later
from .documents import uri_to_path

if TYPE_CHECKING:
    from ..config import IndexSettings
    from ..server import ArborServer

log = logging.getLogger(__name__)

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


def note_worked_at(server: ArborServer, path: str, line: int) -> None:
    """The user works at `line` of `path`: tell the server's index, if it has one
    (`IndexingService.worked_at`)."""
    indexing = getattr(server, "indexing", None)
    if indexing is not None:
        indexing.worked_at(path, line)


def scan_options(settings: IndexSettings) -> ScanOptions:
    return ScanOptions(include=tuple(settings.include), exclude=tuple(settings.exclude),
                       max_file_bytes=settings.max_file_bytes, max_files=settings.max_files,
                       max_parsed_buffers=settings.max_parsed_buffers, workers=settings.workers)


class IndexingService:
    """Owns the server's `WorkspaceIndex` and the one worker thread that scans for it."""

    def __init__(self, server: ArborServer, clock: Callable[[], float] = time.monotonic) -> None:
        self.server = server
        settings = server.settings.index
        self.clock = clock
        self.index = WorkspaceIndex(scan_options(settings), snapshot=settings.snapshot, clock=clock)
        # completions may read a graph whose unrelated (and own) buffers lag by up to this much:
        # `flush_soon` re-indexes them right after each answer
        self.index.pending_lag_s = PENDING_LAG_S
        self.applied = settings
        self.started = False
        self.closed = False
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="arbor-index")
        self.scheduler = FreshnessScheduler(self.index, self._prepare_context, clock=clock,
                                            in_flight=lambda: getattr(server, "completions_in_flight", 0))
        self._timer: asyncio.Handle | None = None
        self._timer_at = 0.0
        self._lookups: dict[str, tuple] = {}  # buffer -> what its last context looked up (`prepare`)
        self._heap_frozen = False

    # ---- document listener and completions: the scheduler's events
    def did_open(self, path: str, text: str, language_id: str) -> None:
        self.scheduler.opened(normalize_path(path))
        self.scheduler.edited()
        self._arm()

    def did_change(self, path: str, edits: Any, new_text: str) -> None:
        self.scheduler.edited()
        self._arm()

    def did_close(self, path: str) -> None:
        path = normalize_path(path)
        self.scheduler.closed(path)
        self._lookups.pop(path, None)

    def worked_at(self, path: str, line: int) -> None:
        """The user works at `line` of `path` (a completion asked there, the cursor rests there):
        the index records the place they move on from (`WorkspaceIndex.worked_at`)."""
        if not self.closed:
            self.index.worked_at(path, line)

    def context_built(self, path: str, parts: Any) -> None:
        """An interactive completion's context in `path`: its lookups are what `prepare` redoes."""
        self._lookups[normalize_path(path)] = parts.lookups

    def flush_soon(self, path: str) -> None:
        """A completion in `path` was just answered: the after-completion jobs start shortly."""
        if self.closed:
            return
        self.scheduler.answered(normalize_path(path))  # as `index.pending` names it
        self._arm()

    def _prepare_context(self, path: str) -> None:
        prepare_context(self.index, path, self._lookups.get(path, ()))

    def _arm(self) -> None:
        """One loop timer, for the scheduler's next due job. Edits only postpone jobs, so a timer
        that is armed for earlier stays (it finds nothing due, and re-arms): no timer per keystroke."""
        due_in = self.scheduler.due_in()
        if due_in is None or self.closed:
            return
        due_at = self.clock() + due_in
        if self._timer is not None:
            if self._timer_at <= due_at + 1e-9:
                return
            self._timer.cancel()
        self._timer, self._timer_at = call_later(due_in, self._run_due), due_at

    def _run_due(self) -> None:
        self._timer = None
        if self.scheduler.step() is not None and self.scheduler.due_in() == 0:
            self._timer, self._timer_at = call_later(0.0, self._run_due), self.clock()
            return
        self._arm()

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
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
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
