"""A backend reply of one 10 MB event never reaches the editor: ghost text is bounded by
`completion.maxTokens` / `completion.maxLines` whatever the backend sends."""

from __future__ import annotations

from lsprotocol import types

from tests.fakes.openai_server import FakeOpenAIServer

from .conftest import backend_settings, start_client

TEN_MB = 10 * 1024 * 1024


async def inline_at(client, uri: str, position: types.Position) -> types.InlineCompletionList:
    return await client.text_document_inline_completion_async(types.InlineCompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=position,
        context=types.InlineCompletionContext(trigger_kind=types.InlineCompletionTriggerKind.Invoked)))


async def test_ten_megabyte_event_is_cut_to_the_completion_bounds(tmp_path):
    single_event = 2 * TEN_MB  # the fake's chunk size: the whole reply is one event
    with FakeOpenAIServer(lambda body: "x" * TEN_MB if "value" in body["prompt"] else "    y = 1\n" * (TEN_MB // 10),
                          chunk_size=single_event) as fake:
        settings = backend_settings(fake.url)
        settings["completion"].update({"maxTokens": 64, "maxLines": 5, "multiline": "auto"})
        client = await start_client("vscode", settings, tmp_path)
        try:
            one = (tmp_path / "one.py").as_uri()
            many = (tmp_path / "many.py").as_uri()
            for uri, text in ((one, "value = "), (many, "def f():\n")):
                client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
                    uri=uri, language_id="python", version=1, text=text)))
            line = await inline_at(client, one, types.Position(line=0, character=8))
            assert len(line.items) == 1
            shown = line.items[0].insert_text
            assert 0 < len(shown) <= 64 * 32 and "\n" not in shown
            block = await inline_at(client, many, types.Position(line=1, character=0))
            assert len(block.items) == 1
            shown = block.items[0].insert_text
            assert 0 < len(shown) <= 64 * 32 and shown.count("\n") < 5
        finally:
            await client.shutdown_session()
            await client.stop()
