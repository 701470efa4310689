"""Settings over the wire: invalid keys are reported by name, and didChangeConfiguration takes effect."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from tests.fakes.openai_server import FakeOpenAIServer

from .conftest import backend_settings, start_client
from .test_completion_e2e import SAMPLE, inline_at


async def wait_for(predicate, timeout=10.0):
    for _ in range(int(timeout / 0.05)):
        if predicate():
            return True
        await asyncio.sleep(0.05)
    return False


async def test_invalid_setting_is_shown_naming_the_key(tmp_path, fake_backend):
    settings = backend_settings(fake_backend.url)
    settings["completion"] = {"multiline": "sometimes"}
    settings["context"] = {"budgetTokenz": 10}
    lsp = await start_client("neovim", settings, tmp_path)
    assert await wait_for(lambda: len(lsp.messages) >= 2)
    text = " | ".join(m.message for m in lsp.messages)
    assert "completion.multiline" in text and "context.budgetTokenz" in text
    # The defaults stand in and completions still work.
    path = tmp_path / "a.py"
    path.write_text(SAMPLE)
    lsp.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=path.as_uri(), language_id="python", version=1, text=SAMPLE)))
    result = await inline_at(lsp, path.as_uri(), types.Position(line=1, character=4))
    assert [i.insert_text for i in result.items] == ["return a + b"]
    await lsp.shutdown_session()
    await lsp.stop()


async def test_did_change_configuration_switches_backend(tmp_path, fake_backend):
    lsp = await start_client("vscode", backend_settings(fake_backend.url), tmp_path)
    path = tmp_path / "a.py"
    path.write_text(SAMPLE)
    lsp.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=path.as_uri(), language_id="python", version=1, text=SAMPLE)))
    with FakeOpenAIServer("second backend") as other:
        lsp.workspace_did_change_configuration(types.DidChangeConfigurationParams(
            settings={"arbor": backend_settings(other.url)}))
        result = await inline_at(lsp, path.as_uri(), types.Position(line=1, character=4))
        assert [i.insert_text for i in result.items] == ["second backend"]
        assert len(other.requests) == 1
    await lsp.shutdown_session()
    await lsp.stop()
