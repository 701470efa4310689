"""Documents that are not files (VS Code's unsaved `untitled:` buffers, notebook cells, other
schemes) are served from memory: completions answer, the prompt names the URI, and nothing is
written under the workspace or its cache for them."""

from __future__ import annotations

import pytest
from lsprotocol import types

from .conftest import backend_settings, start_client

URIS = [
    "untitled:Untitled-1",
    "vscode-notebook-cell:/home/user/analysis.ipynb#W0sZmlsZQ%3D%3D",
    "vscode-vfs://github/owner/repo/src/app.py",
    "git:/home/user/repo/app.py?%7B%22ref%22%3A%22HEAD%22%7D",
]
TEXT = "def add(a, b):\n    \n"


async def inline_at(client, uri: str, position: types.Position) -> types.InlineCompletionList:
    return await client.text_document_inline_completion_async(types.InlineCompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=position,
        context=types.InlineCompletionContext(trigger_kind=types.InlineCompletionTriggerKind.Invoked)))


@pytest.mark.parametrize("client_name", ["vscode", "neovim"])
async def test_non_file_documents_are_completed_from_memory(client_name, fake_backend, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    client = await start_client(client_name, backend_settings(fake_backend.url), workspace)
    try:
        for version, uri in enumerate(URIS, start=1):
            client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=version, text=TEXT)))
            result = await inline_at(client, uri, types.Position(line=1, character=4))
            assert [item.insert_text for item in result.items] == ["return a + b"], uri
            prompt = fake_backend.requests[-1]["prompt"]
            assert "def add(a, b):" in prompt
            # an edit and a second completion on the same memory document
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version + 100),
                content_changes=[types.TextDocumentContentChangePartial(
                    range=types.Range(start=types.Position(line=1, character=4), end=types.Position(line=1, character=4)),
                    text="x")]))
            result = await inline_at(client, uri, types.Position(line=1, character=5))
            assert [item.insert_text for item in result.items] == ["return a + b"], uri
        stats = await client.protocol.send_request_async("arbor/stats", {})
        assert stats.index.openDocuments == len(URIS)
        for uri in URIS:
            client.text_document_did_close(types.DidCloseTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=uri)))
        stats = await client.protocol.send_request_async("arbor/stats", {})
        assert stats.documents == 0 and stats.index.openDocuments == 0
        assert stats.index.files == 0  # a closed memory document leaves no entry behind
    finally:
        await client.shutdown_session()
        await client.stop()
    assert list(workspace.iterdir()) == []  # no file was made for any of them
