"""Speculation over stdio: after a suggestion is answered, the completion that follows accepting it
is computed at once, and typing the suggestion and on is answered from the cache."""

from __future__ import annotations

import asyncio
import re

from lsprotocol import types

from tests.fakes.openai_server import FakeOpenAIServer

from .conftest import backend_settings, start_client
from .test_completion_e2e import inline_at, open_doc

TEXT = "def add(a, b):\n    \n\nprint(add(1, 2))\n"


def reply(body) -> str:
    prefix = re.search(r"<\|fim_prefix\|>(.*)<\|fim_suffix\|>", body["prompt"], re.S).group(1)
    return "\n    return total" if prefix.endswith("total = a + b") else "total = a + b"


async def test_the_completion_after_an_accepted_suggestion_is_ready_when_the_user_types_it(tmp_path):
    backend = FakeOpenAIServer(reply, chunk_size=4).start()
    settings = backend_settings(backend.url)
    settings["completion"]["speculate"] = True
    lsp = await start_client("vscode", settings, tmp_path)
    lsp.client_name, lsp.workspace_path = "vscode", tmp_path
    try:
        uri = open_doc(lsp, TEXT)
        first = await inline_at(lsp, uri, types.Position(line=1, character=4))
        assert [i.insert_text for i in first.items] == ["total = a + b"]
        for _ in range(100):  # the speculative request reaches the backend
            if len(backend.requests) == 2:
                break
            await asyncio.sleep(0.05)
        assert len(backend.requests) == 2
        # the user types the suggestion, then Enter and the indentation
        typed = "total = a + b\n    "
        lsp.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(line=1, character=4), end=types.Position(line=1, character=4)),
                text=typed)]))
        for _ in range(100):
            stats = await lsp.protocol.send_request_async("arbor/stats", {})
            if stats.anticipation.speculations == 1:
                break
            await asyncio.sleep(0.05)
        answer = await inline_at(lsp, uri, types.Position(line=2, character=4))
        assert [i.insert_text for i in answer.items] == ["return total"]
        assert len(backend.requests) == 2  # no model call for the second line
    finally:
        await lsp.shutdown_session()
        await lsp.stop()
        backend.stop()
