"""Answers that outlive a client's impatience, over stdio: a request cancelled without an edit
finishes into the cache and `arbor/completionReady` tells the client to ask again; a request at
the same place while one runs joins it."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.fakes.openai_server import FakeOpenAIServer

from .conftest import backend_settings, start_client
from .test_completion_e2e import SAMPLE, inline_at, open_doc

HERE = types.Position(line=1, character=4)


def automatic(uri: str, position: types.Position) -> types.InlineCompletionParams:
    return types.InlineCompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=position,
        context=types.InlineCompletionContext(trigger_kind=types.InlineCompletionTriggerKind.Automatic))


async def start(tmp_path, backend: FakeOpenAIServer, client: str = "vscode"):
    lsp = await start_client(client, backend_settings(backend.url, timeoutMs=30000), tmp_path)
    lsp.client_name, lsp.workspace_path = client, tmp_path
    lsp.ready = asyncio.Queue()

    @lsp.feature("arbor/completionReady")
    def completion_ready(params) -> None:
        lsp.ready.put_nowait(params)

    return lsp


@pytest.mark.parametrize("client", ["vscode", "neovim"])
async def test_cancelled_without_edit_completes_into_the_cache_and_notifies(tmp_path, client):
    slow = FakeOpenAIServer("return a + b", chunk_size=1, chunk_delay=0.1).start()  # ~1.2 s, past VS Code's 0.8 s
    try:
        lsp = await start(tmp_path, slow, client)
        uri = open_doc(lsp, SAMPLE)
        future = asyncio.ensure_future(lsp.protocol.send_request_async(
            types.TEXT_DOCUMENT_INLINE_COMPLETION, automatic(uri, HERE), msg_id="given-up"))
        assert await asyncio.to_thread(slow.request_started.wait, 10)
        lsp.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="given-up"))
        with pytest.raises(JsonRpcException) as info:
            await asyncio.wait_for(future, 10)
        assert info.value.code == -32800

        ready = await asyncio.wait_for(lsp.ready.get(), 10)
        assert (ready.uri, ready.version, ready.position.line, ready.position.character) == (uri, 1, 1, 4)
        assert not slow.disconnected.is_set()
        again = await inline_at(lsp, uri, HERE)
        assert [i.insert_text for i in again.items] == ["return a + b"]
        assert len(slow.requests) == 1  # served from the cache
        stats = await lsp.protocol.send_request_async("arbor/stats", {})
        assert stats.counters.detached == 1 and stats.counters.ready_notified == 1
        assert stats.recentCompletions[-1].cache != "miss"
        await lsp.shutdown_session()
        await lsp.stop()
    finally:
        slow.stop()


async def test_same_place_joins_the_running_computation(tmp_path):
    slow = FakeOpenAIServer("return a + b", chunk_size=1, chunk_delay=0.05).start()
    try:
        lsp = await start(tmp_path, slow)
        uri = open_doc(lsp, SAMPLE)
        first = asyncio.ensure_future(inline_at(lsp, uri, HERE))
        assert await asyncio.to_thread(slow.request_started.wait, 10)
        second = await inline_at(lsp, uri, HERE)
        assert [i.insert_text for i in second.items] == ["return a + b"]
        assert [i.insert_text for i in (await asyncio.wait_for(first, 10)).items] == ["return a + b"]
        assert len(slow.requests) == 1
        assert lsp.ready.empty()  # nobody gave up: nothing to announce
        await lsp.shutdown_session()
        await lsp.stop()
    finally:
        slow.stop()
