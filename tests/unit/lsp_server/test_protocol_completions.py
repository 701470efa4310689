"""A completion request whose document was edited after the request was read answers empty
without running the pipeline; one whose document is unchanged goes ahead."""

from __future__ import annotations

import asyncio
import contextvars

import pytest

from lsprotocol import types

from lsp_server.features.completion import complete_at
from lsp_server.features.documents import OpenDocument
from lsp_server.protocol import received_version
from lsp_server.server import create_server

URI = "file:///tmp/stale_demo.py"


def _server_with_document(version: int):
    server = create_server()
    server.documents[URI] = OpenDocument(URI, "/tmp/stale_demo.py", "x = 1\n", version, "python")
    return server


def _read_request(server, method: str) -> asyncio.Future:
    """Let the protocol read a request the way it reads one from stdin; returns the version the
    handler saw."""
    seen: asyncio.Future = asyncio.get_running_loop().create_future()

    async def handler(params):
        seen.set_result(received_version())
        return None

    server.protocol.fm.features[method] = handler
    params = types.InlineCompletionParams(
        text_document=types.TextDocumentIdentifier(uri=URI), position=types.Position(line=0, character=0),
        context=types.InlineCompletionContext(trigger_kind=types.InlineCompletionTriggerKind.Automatic))
    contextvars.copy_context().run(server.protocol._handle_request, 1, method, params)  # as pygls does per message
    return seen


async def test_protocol_notes_the_version_at_reading_time():
    server = _server_with_document(7)
    seen = _read_request(server, types.TEXT_DOCUMENT_INLINE_COMPLETION)
    server.documents[URI].version = 8  # an edit read after the request, before its handler ran
    assert await seen == 7
    assert received_version() is None  # noted in that request's context only


async def test_stale_request_answers_empty_without_the_pipeline():
    server = _server_with_document(8)

    async def no_pipeline():
        raise AssertionError("a stale request must not build context")

    server.get_pipeline = no_pipeline
    from lsp_server import protocol
    token = protocol._RECEIVED_VERSION.set(7)
    try:
        assert await complete_at(server, URI, types.Position(line=0, character=0)) is None
    finally:
        protocol._RECEIVED_VERSION.reset(token)
    assert server.stats.counters["stale"] == 1
    assert server.stats.counters["requests"] == 0


class _Writer:
    def __init__(self, events: list):
        self.events = events

    def write(self, data: bytes) -> None:
        self.events.append(("answer", data.split(b"\r\n\r\n", 1)[1]))


async def test_each_completion_is_answered_before_the_next_queued_one_starts():
    server = _server_with_document(1)
    events: list = []
    server.protocol.set_writer(_Writer(events))

    async def handler(params):
        events.append(("start", params.position.line))
        return types.InlineCompletionList(items=[])

    server.protocol.fm.features[types.TEXT_DOCUMENT_INLINE_COMPLETION] = handler
    for line in range(3):  # a burst: three requests read before any handler runs
        params = types.InlineCompletionParams(
            text_document=types.TextDocumentIdentifier(uri=URI), position=types.Position(line=line, character=0),
            context=types.InlineCompletionContext(trigger_kind=types.InlineCompletionTriggerKind.Automatic))
        contextvars.copy_context().run(server.protocol._handle_request, line + 1, types.TEXT_DOCUMENT_INLINE_COMPLETION,
                                       params)
    assert server.protocol.completions_pending == 3
    for _ in range(10):
        await asyncio.sleep(0)
    kinds = [kind for kind, _ in events]
    assert kinds == ["start", "answer", "start", "answer", "start", "answer"]  # not three starts, then three answers
    assert server.protocol.completions_pending == 0
    assert all(b'"items": []' in data for kind, data in events if kind == "answer")


async def test_working_status_only_for_completions_that_take_a_while(monkeypatch):
    from lsp_server import server as server_module

    monkeypatch.setattr(server_module, "WORKING_STATUS_DELAY_S", 0.05)
    server = create_server()
    sent: list[str] = []
    monkeypatch.setattr(server.protocol, "notify", lambda method, params: sent.append(params["state"]))
    server.status_busy()
    server.status_done()  # a completion of a few milliseconds: no "working" flicker
    await asyncio.sleep(0.1)
    assert sent == []
    server.status_busy()
    await asyncio.sleep(0.1)  # still computing after the delay: now it shows
    assert sent == ["working"]
    server.status_done()
    server.send_status("idle")
    assert sent == ["working", "idle"]


def test_document_notifications_run_at_once_and_a_failing_handler_is_reported(monkeypatch):
    server = create_server()
    reported: list[tuple[object, type]] = []
    monkeypatch.setattr(server, "_report_server_error", lambda error, source: reported.append((error, source)))
    seen: list[object] = []
    server.protocol.fm.features[types.TEXT_DOCUMENT_DID_SAVE] = seen.append  # a plain function: called at once
    server.protocol._forward(types.TEXT_DOCUMENT_DID_SAVE, "params")
    assert seen == ["params"] and not reported

    def broken(params):
        raise RuntimeError("listener bug")

    server.protocol.fm.features[types.TEXT_DOCUMENT_DID_CHANGE] = broken
    server.protocol._forward(types.TEXT_DOCUMENT_DID_CHANGE, "params")  # must not raise
    (error, source), = reported
    assert "listener bug" in str(error) and source.__name__ == "FeatureNotificationError"


def test_a_failing_handler_is_reported_without_parsing_source(monkeypatch):
    """Python 3.11's traceback formatter calls `ast.parse`, which can fail when two threads format
    at once; the report of a handler's failure must not depend on it."""
    import ast

    server = create_server()
    reported: list[tuple[object, type]] = []
    monkeypatch.setattr(server, "_report_server_error", lambda error, source: reported.append((error, source)))

    def broken(params):
        raise KeyError("missing")

    def racing_parse(*args, **kwargs):
        raise SystemError("AST constructor recursion depth mismatch")

    server.protocol.fm.features[types.TEXT_DOCUMENT_DID_OPEN] = broken
    monkeypatch.setattr(ast, "parse", racing_parse)
    server.protocol._forward(types.TEXT_DOCUMENT_DID_OPEN, "params")
    (error, _), = reported
    assert str(error).startswith("KeyError: 'missing'")
    assert any(line.endswith(" in broken") for line in error.data["traceback"])


def test_a_completion_does_not_wait_for_slow_backend_creation(monkeypatch):
    """Creating the backends can take seconds (torch's import, a model's weights): past `wait_s`
    a completion gets BackendLoading (answered empty, status "loading"), and the build goes on."""
    import threading

    from inference.api import BackendLoading

    server = create_server()
    release = threading.Event()
    built = object()

    def slow_build():
        release.wait(10)
        return built

    monkeypatch.setattr(server, "_build_pipeline", slow_build)

    async def scenario():
        with pytest.raises(BackendLoading):
            await server.get_pipeline(wait_s=0.05)
        task = server._pipeline_task
        assert not task.done()  # the build goes on
        release.set()
        return await task

    assert asyncio.run(scenario()) is built
