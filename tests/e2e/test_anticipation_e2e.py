"""Speculation over stdio: after a suggestion is answered, the completion that follows accepting it
is computed at once on an in-process backend, and typing the suggestion and on is answered from
the cache; a remote server is not sent one."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

from lsprotocol import types

from tests.fakes.openai_server import FakeOpenAIServer

from .conftest import backend_settings, start_client
from .test_completion_e2e import inline_at, open_doc

TEXT = "def add(a, b):\n    \n\nprint(add(1, 2))\n"


def reply(body) -> str:
    prefix = re.search(r"<\|fim_prefix\|>(.*)<\|fim_suffix\|>", body["prompt"], re.S).group(1)
    return "\n    return total" if prefix.endswith("total = a + b") else "total = a + b"


def model_calls(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


async def test_the_completion_after_an_accepted_suggestion_is_ready_when_the_user_types_it(tmp_path, monkeypatch):
    log = tmp_path / "requests.jsonl"
    monkeypatch.setenv("ARBOR_TEST_REQUEST_LOG", str(log))
    settings = {"backends": [{"name": "local", "kind": "python",
                              "model": "tests.fakes.in_process_backend:FollowOnBackend"}],
                "completion": {"speculate": True}}
    lsp = await start_client("vscode", settings, tmp_path)
    lsp.client_name, lsp.workspace_path = "vscode", tmp_path
    try:
        uri = open_doc(lsp, TEXT)
        first = await inline_at(lsp, uri, types.Position(line=1, character=4))
        assert [i.insert_text for i in first.items] == ["total = a + b"]
        for _ in range(100):  # the speculative request reaches the backend
            if model_calls(log) == 2:
                break
            await asyncio.sleep(0.05)
        assert model_calls(log) == 2
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
        # no model call for the second line (the answer starts a speculation of its own, which
        # may reach the backend by now)
        asked = [json.loads(line) for line in log.read_text().splitlines()]
        assert not any(prompt.endswith("total = a + b\n    <|fim_suffix|>\n<|fim_middle|>") for prompt in asked)
        assert any(prompt.endswith("total = a + b<|fim_suffix|>\n<|fim_middle|>") for prompt in asked)
    finally:
        await lsp.shutdown_session()
        await lsp.stop()


async def test_a_remote_server_is_not_sent_a_speculation(tmp_path):
    backend = FakeOpenAIServer(reply, chunk_size=4).start()
    settings = backend_settings(backend.url)
    settings["completion"]["speculate"] = True
    lsp = await start_client("vscode", settings, tmp_path)
    lsp.client_name, lsp.workspace_path = "vscode", tmp_path
    try:
        uri = open_doc(lsp, TEXT)
        first = await inline_at(lsp, uri, types.Position(line=1, character=4))
        assert [i.insert_text for i in first.items] == ["total = a + b"]
        await asyncio.sleep(0.5)  # time for a speculation to reach the server, were one sent
        assert len(backend.requests) == 1
        stats = await lsp.protocol.send_request_async("arbor/stats", {})
        assert stats.anticipation.speculations == 0
    finally:
        await lsp.shutdown_session()
        await lsp.stop()
        backend.stop()
