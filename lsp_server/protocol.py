"""A leaner pygls protocol path for arbor-ls: the per-message costs that the load test measured.

Stock pygls spends most of its time per keystroke on two things arbor-ls does not need:
- its own copy of every open document (`Workspace.update_text_document` splits the whole buffer
  into lines and rebuilds it with a StringIO on every incremental change), while arbor-ls keeps
  its own buffers in `features/documents.py`; and
- reading stdin through a thread pool (two executor round trips per message: header line, body).

`ArborProtocol` forwards didOpen/didChange/didClose straight to the server's handlers without
touching pygls's workspace documents (the workspace object itself still exists: it carries the
negotiated position encoding). `FastStdioMixin` reads stdin with an asyncio pipe reader on the
event loop, falling back to pygls's own reader when stdin cannot be watched (a regular file) or
when pygls's internals differ from what it expects.

Completion requests get two more things:
- the version their document had when the request was read (`received_version()` inside the
  handler): pygls reads every buffered message before a request's handler task first runs, so
  by then later edits may have been applied, and a handler can tell that its request is stale;
- their answer is written as soon as the handler returns, from inside its task. pygls writes it
  from the task's done-callback, which asyncio runs after every task already queued: a burst of
  five requests would all be answered when the fifth is done. `completions_pending` counts the
  requests read and not answered yet.

Frames are read by `jsonrpc_framing.FrameReader` (it resynchronises after a wrong Content-Length)
and checked by `jsonrpc_dispatch.CheckedDispatch` (every request answered, the lifecycle enforced,
types checked strictly by `jsonrpc_validation.strict_converter`) before pygls dispatches them; this
holds on stdio and on TCP.

Invariants: handlers see the same typed params, in the same order, as with stock pygls, for every
message that passes the checks; an exception in a document handler is reported through the
server's error reporter and never stops the message loop; nothing outside framing, checking,
document sync, stdin reading and completion requests changes.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
import sys
from itertools import count
from threading import Event
from typing import Any

from lsprotocol import types
from pygls.exceptions import FeatureNotificationError
from pygls.feature_manager import is_thread_function
from pygls.protocol import LanguageServerProtocol, lsp_method

from .errors import handler_error
from .jsonrpc_dispatch import CheckedDispatch, serve_frames
from .jsonrpc_framing import FrameReader, StreamChunks, ThreadChunks

log = logging.getLogger(__name__)

_READ_LIMIT = 64 * 1024 * 1024


_COMPLETION_METHODS = frozenset({types.TEXT_DOCUMENT_INLINE_COMPLETION, types.TEXT_DOCUMENT_COMPLETION})
_RECEIVED_VERSION: contextvars.ContextVar[int | None] = contextvars.ContextVar("arbor_received_version", default=None)


def received_version() -> int | None:
    """Inside a completion handler: the version its document had when the request was read
    (None elsewhere, or when the document was not open then)."""
    return _RECEIVED_VERSION.get()


class ArborProtocol(CheckedDispatch, LanguageServerProtocol):
    """LanguageServerProtocol without pygls's duplicate document store (see module docstring)."""

    _ids = count()
    completions_pending = 0  # completion requests read and not answered yet (started or queued)

    def _handle_request(self, msg_id, method_name: str, params: Any):
        handler = self.fm.features.get(method_name) if method_name in _COMPLETION_METHODS else None
        if handler is None or not asyncio.iscoroutinefunction(handler):
            return super()._handle_request(msg_id, method_name, params)
        # this runs in the request's own context (pygls copies one per message)
        uri = getattr(getattr(params, "text_document", None), "uri", None)
        doc = self._server.documents.get(uri) if uri is not None else None
        _RECEIVED_VERSION.set(doc.version if doc is not None else None)
        self._ctx_msg_id.set(msg_id)
        answered: list[bool] = []

        async def answer_when_done(handler_params: Any) -> Any:
            result = await handler(handler_params)
            # answer from inside the task: pygls answers from the task's done-callback, which the
            # event loop runs only after every request task already queued, so a burst of
            # requests would all be answered at the end of the burst
            self._request_futures.pop(msg_id, None)
            self._send_response(msg_id, result=result)
            answered.append(True)
            return result

        def on_done(future: Any) -> None:
            self.completions_pending -= 1
            if not answered:  # cancelled or failed: pygls's answer (-32800 or the error)
                self._send_handler_result(future, msg_id=msg_id)

        self.completions_pending += 1
        try:
            self._execute_handler(msg_id=msg_id, handler=answer_when_done, args=(params,), callback=on_done)
        except Exception:
            self.completions_pending -= 1
            raise

    def _forward(self, method: str, params: Any) -> None:
        handler = self.fm.features.get(method)
        if handler is None:
            return
        if not _is_plain(handler):  # async, threaded or generator handlers: pygls's own machinery
            self._execute_handler(f"sync-{next(self._ids)}", handler, self._check_handler_result, args=(params,))
            return
        # a plain function is called at once; pygls would wrap the call in a Future (a lock and a
        # callback per keystroke) only to report an exception the way this does
        try:
            handler(params)
        except Exception as exc:
            self._server._report_server_error(handler_error(exc), FeatureNotificationError)

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        self._forward(types.TEXT_DOCUMENT_DID_OPEN, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        self._forward(types.TEXT_DOCUMENT_DID_CHANGE, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        self._forward(types.TEXT_DOCUMENT_DID_CLOSE, params)


def _is_plain(handler: Any) -> bool:
    """Whether pygls would run `handler` as a plain synchronous call."""
    return not (asyncio.iscoroutinefunction(handler) or is_thread_function(handler)
                or inspect.isgeneratorfunction(handler))


async def _pipe_reader(stdin) -> asyncio.StreamReader | None:
    """An event-loop reader for `stdin`, or None if it cannot be watched (regular files)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=_READ_LIMIT)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
    except (ValueError, OSError, NotImplementedError) as exc:
        log.info("stdin cannot be read on the event loop (%s); using a reader thread", exc)
        return None
    return reader


class FastStdioMixin:
    """Mixed into the LanguageServer subclass: `start_io` reads stdin on the event loop, and both
    `start_io` and `start_tcp` read frames with `FrameReader` and check them with the protocol's
    `handle_body`. `stdin_reader` says which reader serves: "event-loop", "thread" (fallback) or
    "" (not started)."""

    stdin_reader = ""

    def start_io(self, stdin=None, stdout=None) -> None:
        from pygls.io_ import StdoutWriter

        self._stop_event = Event()
        source = stdin or sys.stdin.buffer
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))

        async def serve() -> None:
            reader = await _pipe_reader(source)
            self.stdin_reader = "event-loop"
            chunks: Any = StreamChunks(reader) if reader is not None else None
            if chunks is None:
                chunks = ThreadChunks(source, self.thread_pool)
                self.stdin_reader = "thread"
            await serve_frames(FrameReader(chunks), self.protocol, self._stop_event)

        try:
            asyncio.run(serve())
        except BrokenPipeError:
            log.error("Connection to the client is lost! Shutting down the server.")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def start_tcp(self, host: str, port: int) -> None:
        """Serve one client at a time on host:port; the server stops when its client disconnects."""
        self._stop_event = Event()

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.protocol.set_writer(writer)
            await serve_frames(FrameReader(StreamChunks(reader)), self.protocol, self._stop_event)
            self.shutdown()

        async def listen() -> None:
            self._server = await asyncio.start_server(connection, host, port, limit=_READ_LIMIT)
            log.info("serving LSP on %s", ", ".join(str(s.getsockname()) for s in self._server.sockets))
            async with self._server:
                await self._server.serve_forever()

        try:
            asyncio.run(listen())
        except (asyncio.CancelledError, KeyboardInterrupt, SystemExit):
            pass
