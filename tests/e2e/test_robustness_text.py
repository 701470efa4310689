"""A lone surrogate or a NUL in a buffer reaches the backend as valid text: the request is sent,
answered, the breaker stays closed, and other documents go on being completed."""

from __future__ import annotations

from lsprotocol import types

from .conftest import backend_settings, start_client


async def inline_at(client, uri: str, position: types.Position) -> types.InlineCompletionList:
    return await client.text_document_inline_completion_async(types.InlineCompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=position,
        context=types.InlineCompletionContext(trigger_kind=types.InlineCompletionTriggerKind.Invoked)))


async def test_lone_surrogate_and_nul_do_not_fail_backend_requests(fake_backend, tmp_path):
    client = await start_client("vscode", backend_settings(fake_backend.url), tmp_path)
    try:
        bad = (tmp_path / "bad.py").as_uri()
        good = (tmp_path / "good.py").as_uri()
        bad_text = 'name = "\ud800 \x00"\ndef add(a, b):\n    \n'
        for uri, text in ((bad, bad_text), (good, "def add(a, b):\n    \n")):
            client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=1, text=text)))
        for _ in range(6):  # more than a breaker's failure threshold, had they failed
            result = await inline_at(client, bad, types.Position(line=2, character=4))
            assert [item.insert_text for item in result.items] == ["return a + b"]
        sent = fake_backend.requests[-1]["prompt"]
        assert 'name = "\ufffd \ufffd"' in sent and "\x00" not in sent
        result = await inline_at(client, good, types.Position(line=1, character=4))
        assert [item.insert_text for item in result.items] == ["return a + b"]
        stats = await client.protocol.send_request_async("arbor/stats", {})
        assert getattr(stats.counters, "errors", 0) == 0
        assert all(backend.breaker == "closed" for backend in stats.backends)
    finally:
        await client.shutdown_session()
        await client.stop()
