"""Every message checked, every request answered: the step between a frame's bytes and pygls's
handlers, with the LSP lifecycle enforced.

`CheckedDispatch` is mixed into the server's protocol class. `handle_body(bytes)` decodes one
frame and answers, without calling any handler:
- -32700 when the body is not JSON (its id recovered where the text shows one, else null);
- -32600 / -32602 for what `jsonrpc_validation` rejects;
- -32600 for a request (it has an id) to a method LSP defines as a notification;
- -32002 for any request before `initialize`; -32600 for a second `initialize` and for any request
  after `shutdown` was received (notifications then are dropped, except `exit`, as LSP says).
Everything else reaches pygls's request or notification handler (`_handle_request`,
`_handle_notification`, each in its own context as pygls's `handle_message` runs them) typed
exactly as pygls would type it; the kind is known from the envelope, so no runtime Protocol check
is paid per message. A
notification that fails its checks is dropped and logged; problems are logged through a
`ProblemLog` (one line per kind, rate-limited, no traceback, no `window/showMessage`) and counted
in `arbor/stats` as `protocol_*` counters.
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import threading
from typing import Any

import attrs
from lsprotocol import types
from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage, JsonRPCResponseMessage

from .jsonrpc_framing import FrameReader
from .jsonrpc_validation import (INVALID_REQUEST, PARSE_ERROR, SERVER_NOT_INITIALIZED, ProblemLog,
                                 ProtocolError, check_envelope, check_message, request_id)

log = logging.getLogger(__name__)
# an id near the start of a body that is not JSON, before any "params" (best effort)
_ID_IN_TEXT = re.compile(rb'"id"\s*:\s*(-?\d{1,15}(?![\d.eE])|"(?:[^"\\\r\n]|\\.){0,256}")')
_ID_SCAN_BYTES = 4096


def recover_id(body: bytes) -> int | str | None:
    head = body[:_ID_SCAN_BYTES]
    params_at = head.find(b'"params"')
    m = _ID_IN_TEXT.search(head, 0, params_at if params_at >= 0 else len(head))
    if m is None:
        return None
    try:
        value = json.loads(m.group(1))
    except ValueError:
        return None
    return value if type(value) in (int, str) else None


class CheckedDispatch:
    """Mixin for a pygls `LanguageServerProtocol` subclass (see the module docstring)."""

    _initialize_seen = False
    _shutdown_requested = False
    _problems: ProblemLog | None = None

    # --- answers and reports ------------------------------------------------------------------
    def input_problem(self, kind: str, message: str) -> None:
        if self._problems is None:
            self._problems = ProblemLog(log)
        self._problems.report(f"LSP input: {kind}", message)
        stats = getattr(self._server, "stats", None)
        if stats is not None:
            stats.count("protocol_" + kind.replace(" ", "_"))

    def _reject(self, msg_id: int | str | None, error: ProtocolError, kind: str) -> None:
        self.input_problem(kind, error.message)
        self._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {"code": error.code, "message": error.message}})

    # --- one frame ----------------------------------------------------------------------------
    def handle_body(self, body: bytes) -> None:
        try:
            data = json.loads(body)
        except (ValueError, RecursionError) as exc:
            reason = "nested too deeply" if isinstance(exc, RecursionError) else type(exc).__name__
            self._reject(recover_id(body), ProtocolError(PARSE_ERROR, f"the body is not JSON ({reason})"),
                         "parse error")
            return
        self.handle_data(data)

    def handle_data(self, data: Any) -> None:
        try:
            check_envelope(data)
        except ProtocolError as exc:
            if not (isinstance(data, dict) and type(data.get("method")) is str and "id" not in data):
                self._reject(request_id(data), exc, "invalid request")
            else:
                self.input_problem("invalid notification", exc.message)
            return
        if "method" not in data:
            self._client_response(data)
            return
        method, is_request = data["method"], "id" in data
        try:
            self._check_lifecycle(method, is_request)
            message = self._typed(data, method, is_request)
        except ProtocolError as exc:
            if is_request:
                self._reject(data["id"], exc, _KINDS.get(exc.code, "invalid request"))
            else:
                self.input_problem("invalid notification", f"{method}: {exc.message}")
            return
        except _Dropped:
            return
        if is_request and method == types.INITIALIZE:
            self._initialize_seen = True
        elif is_request and method == types.SHUTDOWN:
            self._shutdown_requested = True
        context = contextvars.copy_context()
        if is_request:
            context.run(self._handle_request, message.id, method, message.params)  # type: ignore[attr-defined]
        else:
            context.run(self._handle_notification, method, message.params)  # type: ignore[attr-defined]

    def _check_lifecycle(self, method: str, is_request: bool) -> None:
        if method == types.EXIT and not is_request:
            return
        if self._shutdown_requested:
            if is_request:
                raise ProtocolError(INVALID_REQUEST, f"{method} after shutdown: the server is shutting down")
            raise _Dropped
        if not self._initialize_seen:
            if is_request and method == types.INITIALIZE:
                return
            if is_request:
                raise ProtocolError(SERVER_NOT_INITIALIZED, f"{method} before initialize")
            raise _Dropped
        if method == types.INITIALIZE:
            raise ProtocolError(INVALID_REQUEST, "initialize was already received")

    def _typed(self, data: dict[str, Any], method: str, is_request: bool) -> Any:
        message_type = self.get_message_type(method)  # type: ignore[attr-defined]
        if is_request and message_type is not None and not hasattr(attrs.fields(message_type), "id"):
            raise ProtocolError(INVALID_REQUEST, f"{method} is a notification: it takes no id")
        checked = check_message(data, self._converter, message_type)  # type: ignore[attr-defined]
        if message_type is not None:
            return checked
        if is_request:
            return JsonRPCRequestMessage(id=data["id"], method=method, jsonrpc="2.0", params=data.get("params"))
        return JsonRPCNotification(method=method, jsonrpc="2.0", params=data.get("params"))

    def _client_response(self, data: dict[str, Any]) -> None:
        """The client's answer to a request of the server's (progress, showMessageRequest, ...)."""
        msg_id = data["id"]
        try:
            if data.get("error") is not None:
                error = self._converter.structure(data["error"], types.ResponseError)  # type: ignore[attr-defined]
                self._handle_response(msg_id, None, error)  # type: ignore[attr-defined]
                return
            response_type = self._result_types.pop(msg_id, None) or JsonRPCResponseMessage  # type: ignore[attr-defined]
            response = self._converter.structure(data, response_type)  # type: ignore[attr-defined]
        except Exception:
            self.input_problem("invalid response", f"the client's response to {msg_id!r} has the wrong shape")
            error = types.ResponseError(code=-32602, message="malformed response")
            self._handle_response(msg_id, None, error)  # type: ignore[attr-defined]
            return
        self._handle_response(msg_id, response.result)  # type: ignore[attr-defined]


class _Dropped(Exception):
    """A notification the lifecycle says to drop without a word."""


_KINDS = {-32700: "parse error", -32600: "invalid request", -32602: "invalid params", -32002: "not initialized"}


async def serve_frames(frames: FrameReader, protocol: Any, stop_event: threading.Event) -> None:
    """Read frames until end of input (or `stop_event`) and hand each to `protocol.handle_body`.
    A handler's exception never ends the loop."""
    while not stop_event.is_set():
        frame = await frames.next_frame()
        if frame is None:
            break
        if frame.skipped:
            protocol.input_problem("framing", f"skipped {frame.skipped} bytes outside any frame")
        if frame.length_mismatch:
            protocol.input_problem("framing", "a Content-Length did not match its body; "
                                              "read on from the next header")
        try:
            protocol.handle_body(frame.body)
        except Exception as exc:  # pragma: no cover - handle_body answers errors itself
            protocol.input_problem("internal", f"a message could not be handled: {type(exc).__name__}")
