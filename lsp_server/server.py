"""`ArborServer`: the one place that wires settings, documents, index, pruning, cache and router.

Handlers live in `features/` (one module per group) and stay thin; this class owns the state they
share. Settings come from `initializationOptions` and `workspace/didChangeConfiguration`; a bad
setting is reported with `window/showMessage` naming the key, and its default is used.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from inference.api import BackendLoading
from inference.cache import CompletionCache

from . import __version__, ast_guard, backend_status
from .config import Settings, load_settings
from .features import completion, cursor, custom, document_state, documents, feedback, indexing
from .features.documents import DocumentListener, OpenDocument
from .anticipation import Anticipation
from .inflight import InflightCompletions
from .jsonrpc_validation import strict_converter
from . import log_config
from .pipeline import CompletionPipeline
from .privacy import Privacy, api_keys_of
from .progress import WorkDoneProgress
from .protocol import ArborProtocol, FastStdioMixin
from .stats import ServerStats
from .timers import call_later

log = logging.getLogger(__name__)
WORKING_STATUS_DELAY_S = 0.15  # how long a completion runs before the status says "working"


class ArborServer(FastStdioMixin, LanguageServer):
    def __init__(self) -> None:
        super().__init__("arbor-ls", __version__, protocol_cls=ArborProtocol, converter_factory=strict_converter)
        self.settings = Settings()
        self.documents: dict[str, OpenDocument] = {}
        self.document_listeners: list[DocumentListener] = []
        self.workspace_root: str | None = None
        self.index: Any = None
        self.cache: Any = None
        self._cache_index: Any = None  # the index whose fingerprint changes the cache follows
        self.stats = ServerStats()
        self.privacy = Privacy(roots=lambda: getattr(self.index, "roots", ()) or [r for r in [self.workspace_root] if r])
        self._pipeline: CompletionPipeline | None = None
        self._pipeline_task: asyncio.Future[CompletionPipeline] | None = None
        self.inflight = InflightCompletions(on_ready=self._completion_ready)
        self.anticipation = Anticipation(self)
        self._loading_task: asyncio.Future[None] | None = None
        self._last_status: dict[str, Any] = {}
        self._busy = 0  # completions being computed
        self.startup: asyncio.Future | None = None  # the index's start and the pipeline's build, after `initialized`
        self._busy_handle: asyncio.TimerHandle | None = None

    # --- settings and the pipeline -----------------------------------------------------------
    def apply_settings(self, data: Any) -> None:
        settings, problems = load_settings(data)
        for problem in problems:
            self.show_message(f"arbor-ls setting {problem}", types.MessageType.Warning)
        old, old_task = self._pipeline, self._pipeline_task
        privacy_before = self.privacy.settings
        self.settings = settings
        self.privacy.apply(settings.privacy, api_keys_of(settings.backends))
        log_problem = log_config.follow_settings(settings.log_level, self.privacy.known_secrets, settings.log_file)
        if log_problem:
            self.show_message(f"arbor-ls setting {log_problem}", types.MessageType.Warning)
        self._refresh_cache()
        if getattr(self, "indexing", None) is not None:
            self.indexing.settings_changed()
            if settings.privacy != privacy_before and self.indexing.started and settings.index.enabled:
                asyncio.ensure_future(self.indexing.scan())  # newly denied files leave the index
        self._pipeline, self._pipeline_task = None, None
        if old is not None:
            asyncio.ensure_future(old.aclose())
        elif old_task is not None:
            old_task.add_done_callback(_close_built_pipeline)

    def _refresh_cache(self) -> None:
        """One CompletionCache per cache settings; it outlives pipelines, and the server closes it."""
        if self.cache is not None and getattr(self.cache, "settings", None) == self.settings.cache:
            return
        old = self.cache
        self.cache = CompletionCache(self.settings.cache, workspace_root=self.workspace_root)
        if old is not None:
            old.close()

    def _follow_index(self) -> None:
        """Subscribe the cache to the index's fingerprint changes (once per index)."""
        if self.index is not None and self._cache_index is not self.index and hasattr(self.index, "subscribe"):
            self.index.subscribe(self._on_fingerprint)
            self._cache_index = self.index

    def _on_fingerprint(self, path: str, fingerprint: str) -> None:
        if self.cache is not None:
            self.cache.invalidate(path, fingerprint)

    def _build_pipeline(self) -> CompletionPipeline:
        pipeline = CompletionPipeline(self.settings, self.workspace_root, index=self.index, cache=self.cache,
                                      privacy=self.privacy,
                                      on_context=getattr(getattr(self, "indexing", None), "context_built", None))
        _ = pipeline.router  # creates the backends: an embedded model loads here, off the event loop
        return pipeline

    async def get_pipeline(self, wait_s: float | None = None) -> CompletionPipeline:
        """The pipeline for the current settings. Backends are created once, in a worker thread,
        starting at `initialized`, so a missing model is reported at start-up, not at the first request.
        With `wait_s`, a build still running after that long (importing torch and mapping a model's
        weights take seconds) raises `BackendLoading`; the build goes on."""
        self._follow_index()
        if self._pipeline is not None:
            return self._pipeline
        if self._pipeline_task is None:
            self._pipeline_task = asyncio.ensure_future(asyncio.to_thread(self._build_pipeline))
        task = self._pipeline_task
        try:
            pipeline = await asyncio.wait_for(asyncio.shield(task), wait_s)
        except asyncio.TimeoutError:
            raise BackendLoading("creating the backends") from None
        if self._pipeline_task is task and self._pipeline is None:
            self._pipeline = pipeline
            pipeline.router.listeners.append(
                lambda event: self.send_status(*backend_status.breaker_status(event), backend=event.backend))
            for problem in pipeline.router.problems:
                self.show_message(f"arbor-ls: {problem}", types.MessageType.Error)
            if pipeline.router.loading_backends():
                self._loading_task = asyncio.ensure_future(self._report_loading(pipeline))
            else:
                self.send_status("idle" if pipeline.router.slots else "error", "; ".join(pipeline.router.problems))
        return pipeline

    async def _report_loading(self, pipeline: CompletionPipeline) -> None:
        """`$/progress` and an "arbor/status" of "loading" while a backend loads its model."""
        names = ", ".join(s.spec.display_name for s in pipeline.router.loading_backends())
        progress = await WorkDoneProgress.open(self, "arbor-ls", f"loading model {names}")
        self.send_status("loading", f"loading model {names}")
        started = time.monotonic()
        failures = await pipeline.router.wait_loaded()
        progress.close(f"model loaded in {time.monotonic() - started:.1f}s" if not failures else "model failed to load")
        if pipeline is not self._pipeline:
            return
        for failure in failures:
            self.show_message(f"arbor-ls: {failure}", types.MessageType.Error)
        self.send_status("error" if failures else "idle", "; ".join(failures))

    @property
    def position_encoding(self) -> str:
        encoding = self.workspace.position_encoding or "utf-16"
        return getattr(encoding, "value", encoding)

    def show_message(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        message = self.privacy.scrub(message)  # no API key or URL userinfo in a popup
        log.warning("%s", message)
        try:
            self.window_show_message(types.ShowMessageParams(type=kind, message=message))
        except Exception:  # not connected yet (CLI use) or transport closed
            pass

    # --- in-flight completions ----------------------------------------------------------------
    @property
    def completions_in_flight(self) -> int:
        """Completion requests read and not answered yet, whether their handlers started or not."""
        return getattr(self.protocol, "completions_pending", 0)

    def _completion_ready(self, key: Any, result: Any) -> None:
        """A detached completion finished into the cache: tell the client to ask again (when it
        has something to show)."""
        doc = self.documents.get(key.uri)
        if doc is None or doc.version != key.version or not result.text:
            return
        self.stats.count("ready_notified")
        try:
            self.protocol.notify("arbor/completionReady", {
                "uri": key.uri, "version": key.version,
                "position": {"line": key.line, "character": key.character}})
        except Exception:
            pass

    # --- status notifications ------------------------------------------------------------
    def status_busy(self) -> None:
        """A completion started. The status turns "working" only if one is still being computed
        `WORKING_STATUS_DELAY_S` later: most take a few milliseconds, and an indicator that
        flickers at every keystroke helps nobody (it also cost two notifications per request)."""
        self._busy += 1
        if self._busy_handle is None:
            self._busy_handle = call_later(WORKING_STATUS_DELAY_S, self._show_working)

    def status_done(self) -> None:
        """A completion ended (its own idle or error status is sent by the caller)."""
        self._busy = max(0, self._busy - 1)
        if not self._busy and self._busy_handle is not None:
            self._busy_handle.cancel()
            self._busy_handle = None

    def _show_working(self) -> None:
        self._busy_handle = None
        if self._busy:
            self.send_status("working")

    def send_status(self, state: str, message: str = "", backend: str | None = None) -> None:
        """See lsp_server.backend_status for what each field says; a repeat is not sent."""
        router = self._pipeline.router if self._pipeline else None
        status = backend_status.status_for(router.slots if router else [], router.primary if router else None,
                                           state, message, backend)
        status = self.privacy.scrub_json(status)
        if status != self._last_status:
            self._last_status = status
            try:
                self.protocol.notify("arbor/status", status)
            except Exception:
                pass


def _close_built_pipeline(task: asyncio.Future[CompletionPipeline]) -> None:
    """Close a pipeline whose construction finished after newer settings replaced it."""
    if not task.cancelled() and task.exception() is None:
        asyncio.ensure_future(task.result().aclose())


def create_server() -> ArborServer:
    ast_guard.install()  # threads here parse Python source: see ast_guard
    server = ArborServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: ArborServer, params: types.InitializeParams) -> None:
        folders = params.workspace_folders or []
        if folders:
            ls.workspace_root = documents.uri_to_path(folders[0].uri)
        elif params.root_uri:
            ls.workspace_root = documents.uri_to_path(params.root_uri)
        ls.apply_settings(params.initialization_options)

    @server.feature(types.INITIALIZED)
    def initialized(ls: ArborServer, params: types.InitializedParams) -> None:
        # at once, before the next message is handled: a warning any later message causes reaches
        # the client (an async handler would only start at the loop's next turn)
        log_config.forward_to_client(lambda kind, message: ls.window_log_message(
            types.LogMessageParams(type=types.MessageType(kind), message=message)))
        ls.startup = asyncio.ensure_future(_start(ls))

    async def _start(ls: ArborServer) -> None:
        try:
            await ls.indexing.start()
            await ls.get_pipeline()
        except Exception:
            log.exception("server start-up failed")

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: ArborServer, params: types.DidChangeConfigurationParams) -> None:
        if params.settings is not None:
            ls.apply_settings(params.settings)

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: ArborServer, *_: Any) -> None:
        log_config.stop_forwarding()  # the transport closes next: log lines stay on stderr
        ls.inflight.cancel_all()
        ls.anticipation.close()
        if ls._pipeline is not None:
            await ls._pipeline.aclose()
        if ls.cache is not None:
            ls.cache.close()
        ls.indexing.close()

    documents.register(server)
    indexing.register(server)
    completion.register(server)
    custom.register(server)
    feedback.register(server)
    cursor.register(server)
    document_state.register(server)
    return server
