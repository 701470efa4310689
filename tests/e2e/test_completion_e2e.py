"""The foundation's end-to-end behaviour over stdio, for Neovim's and VS Code's capability sets."""

from __future__ import annotations

import asyncio
import random
import re

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.fakes.openai_server import FakeOpenAIServer

from .conftest import backend_settings, start_client

SAMPLE = "def add(a, b):\n    \n\nprint(add(1, 2))  # 合計 😀\n"


def client_position(text: str, offset: int, encoding: str) -> types.Position:
    """The client's own view of a position (written independently of the server's code)."""
    before = text[:offset]
    line = before.count("\n")
    col_text = before[before.rfind("\n") + 1:]
    if encoding == "utf-8":
        character = len(col_text.encode("utf-8"))
    else:
        character = len(col_text.encode("utf-16-le")) // 2
    return types.Position(line=line, character=character)


def encoding_of(lsp) -> str:
    return "utf-8" if lsp.client_name == "neovim" else "utf-16"


def open_doc(lsp, text: str, name: str = "sample.py") -> str:
    path = lsp.workspace_path / name
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    lsp.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
    return uri


def fim_parts(prompt: str) -> tuple[str, str]:
    m = re.search(r"<\|fim_prefix\|>(.*)<\|fim_suffix\|>(.*)<\|fim_middle\|>$", prompt, re.S)
    assert m, prompt
    return m.group(1), m.group(2)


async def inline_at(lsp, uri: str, position: types.Position) -> types.InlineCompletionList:
    return await lsp.text_document_inline_completion_async(types.InlineCompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=position,
        context=types.InlineCompletionContext(trigger_kind=types.InlineCompletionTriggerKind.Invoked)))


async def test_capabilities_advertise_inline_completion(lsp):
    caps = lsp.init_result.capabilities
    assert caps.inline_completion_provider is not None
    assert caps.completion_provider is not None
    expected = "utf-8" if lsp.client_name == "neovim" else "utf-16"
    assert caps.position_encoding == expected


async def test_inline_completion_returns_model_text_and_sends_fim_request(lsp, fake_backend):
    uri = open_doc(lsp, SAMPLE)
    result = await inline_at(lsp, uri, types.Position(line=1, character=4))
    assert [item.insert_text for item in result.items] == ["return a + b"]
    body = fake_backend.requests[-1]
    assert body["model"] == "fake-coder"
    assert body["stream"] is True
    assert "<|fim_middle|>" in body["stop"] or "<|endoftext|>" in body["stop"]
    prefix, suffix = fim_parts(body["prompt"])
    assert prefix == "def add(a, b):\n    "
    # Qwen2.5-Coder: the FIM slot holds the rest of the cursor line, the further lines come before it
    assert suffix == "\n"
    assert "<|file_sep|>sample.py\n\nprint(add(1, 2))  # 合計 😀\n" in body["prompt"].split("<|fim_prefix|>")[0]
    assert body["prompt"].startswith("<|repo_name|>")
    assert "<|file_sep|>sample.py\n" in body["prompt"]


async def test_completion_fallback_returns_text_edit(lsp, fake_backend):
    text = "def add(a, b):\n    ret\n"
    fake_backend.reply = "urn a + b"
    uri = open_doc(lsp, text)
    result = await lsp.text_document_completion_async(types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=1, character=7)))
    (item,) = result.items
    assert item.text_edit.new_text == "return a + b"
    assert item.text_edit.range.start == types.Position(line=1, character=4)
    assert item.text_edit.range.end == types.Position(line=1, character=7)


async def test_incremental_edits_with_non_ascii_keep_server_text_identical(lsp, fake_backend):
    encoding = encoding_of(lsp)
    rng = random.Random(7)
    text = "héllo = '日本語'\nemoji = '😀🎉'\n\ndef f():\n    return 1\n"
    uri = open_doc(lsp, text)
    pieces = ["x", "😀", "字", "é", "\n", "  ", "𝒳y", ""]
    for version in range(2, 40):
        start = rng.randrange(len(text) + 1)
        end = min(len(text), start + rng.choice([0, 0, 1, 2, 5]))
        new = rng.choice(pieces)
        change = types.TextDocumentContentChangePartial(
            range=types.Range(start=client_position(text, start, encoding), end=client_position(text, end, encoding)),
            text=new)
        text = text[:start] + new + text[end:]
        lsp.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=[change]))
    # The prompt the server builds holds its whole copy of the buffer: prefix + suffix.
    cursor = len(text)
    await inline_at(lsp, uri, client_position(text, cursor, encoding))
    prefix, suffix = fim_parts(fake_backend.requests[-1]["prompt"])
    assert prefix + suffix == text


async def test_position_past_end_gives_empty_result(lsp, fake_backend):
    uri = open_doc(lsp, SAMPLE)
    past_lines = await inline_at(lsp, uri, types.Position(line=99, character=0))
    past_column = await inline_at(lsp, uri, types.Position(line=0, character=500))
    assert list(past_lines.items) == [] and list(past_column.items) == []
    assert fake_backend.requests == []


async def test_cancel_then_edit_yields_32800_and_closes_backend_connection(tmp_path):
    """A request cancelled by an edit is aborted at once: the backend sees its connection closed."""
    slow = FakeOpenAIServer("x" * 400, chunk_size=1, chunk_delay=0.02).start()
    try:
        lsp = await start_client("vscode", backend_settings(slow.url, timeoutMs=30000), tmp_path)
        lsp.client_name, lsp.workspace_path = "vscode", tmp_path
        uri = open_doc(lsp, SAMPLE)
        params = types.InlineCompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=1, character=4),
            context=types.InlineCompletionContext(trigger_kind=types.InlineCompletionTriggerKind.Automatic))
        future = asyncio.ensure_future(
            lsp.protocol.send_request_async(types.TEXT_DOCUMENT_INLINE_COMPLETION, params, msg_id="req-1"))
        assert await asyncio.to_thread(slow.request_started.wait, 10)
        lsp.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="req-1"))
        with pytest.raises(JsonRpcException) as info:
            await asyncio.wait_for(future, 10)
        assert info.value.code == -32800
        assert not slow.disconnected.is_set()  # cancelled without an edit: it goes on into the cache
        lsp.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(line=1, character=4), end=types.Position(line=1, character=4)),
                text="r")]))
        assert await asyncio.to_thread(slow.disconnected.wait, 10), "the backend never saw its connection closed"
        stats = await lsp.protocol.send_request_async("arbor/stats", {})
        assert stats.counters.detached == 1 and stats.counters.cancelled == 1
        await lsp.shutdown_session()
        await lsp.stop()
    finally:
        slow.stop()


async def test_newer_request_supersedes_older_one(tmp_path):
    slow = FakeOpenAIServer("y" * 200, chunk_size=1, chunk_delay=0.02).start()
    try:
        lsp = await start_client("neovim", backend_settings(slow.url, timeoutMs=30000), tmp_path)
        lsp.client_name, lsp.workspace_path = "neovim", tmp_path
        uri = open_doc(lsp, SAMPLE)
        first = asyncio.ensure_future(inline_at(lsp, uri, types.Position(line=1, character=2)))
        assert await asyncio.to_thread(slow.request_started.wait, 10)
        slow.reply, slow.chunk_delay = "return a + b", 0.0
        second = await inline_at(lsp, uri, types.Position(line=1, character=4))
        assert list((await asyncio.wait_for(first, 10)).items) == []
        assert [i.insert_text for i in second.items] == ["return a + b"]
        stats = await lsp.protocol.send_request_async("arbor/stats", {})
        assert stats.counters.superseded == 1
        await lsp.shutdown_session()
        await lsp.stop()
    finally:
        slow.stop()


async def test_the_lines_just_edited_in_another_file_reach_the_prompt(lsp, fake_backend):
    """Edit cart.py (a new function nothing uses yet, among code unlike report.py's), then
    complete in report.py, which imports cart: the edited lines come in as a snippet of their
    own, body included."""
    encoding = encoding_of(lsp)
    cart = "def total(items):\n    return sum(items)\n" + "".join(
        f"\n\ndef shipping_{i}(parcel):\n    weight = parcel.weight * {i}\n    return weight\n" for i in range(12))
    cart_uri = open_doc(lsp, cart, "cart.py")
    report = "from cart import total\n\n\ndef render(rows):\n    \n"
    report_uri = open_doc(lsp, report, "report.py")
    added = "\n\ndef with_tax(items, rate):\n    return total(items) * (1 + rate)\n"
    at = client_position(cart, len(cart), encoding)
    lsp.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=cart_uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(range=types.Range(start=at, end=at), text=added)]))
    await inline_at(lsp, report_uri, types.Position(line=4, character=4))
    snippets = fake_backend.requests[-1]["prompt"].split("<|fim_prefix|>")[0]
    # the region, with the lines before the edit: no definition of cart.py shows them so
    assert "    return weight\n\n\ndef with_tax(items, rate):\n    return total(items) * (1 + rate)\n" in snippets


async def test_the_place_worked_at_in_the_file_left_reaches_the_next_files_prompt(lsp, fake_backend):
    """Complete in prices.py at a line among constants report.py never names, then in report.py:
    the lines around that place come in as a snippet of their own; a completion back in
    prices.py does not show its own place."""
    prices = "".join(f"TAX_RATE_{i} = 0.{i:02d}\n" for i in range(40))
    prices_uri = open_doc(lsp, prices, "prices.py")
    report = "def render(rows):\n    \n"
    report_uri = open_doc(lsp, report, "report.py")
    await inline_at(lsp, prices_uri, types.Position(line=30, character=0))
    await inline_at(lsp, report_uri, types.Position(line=1, character=4))
    snippets = fake_backend.requests[-1]["prompt"].split("<|fim_prefix|>")[0]
    assert "".join(f"TAX_RATE_{i} = 0.{i:02d}\n" for i in range(25, 36)) in snippets
    assert "TAX_RATE_24 " not in snippets and "TAX_RATE_36 " not in snippets
    await inline_at(lsp, prices_uri, types.Position(line=2, character=0))
    snippets = fake_backend.requests[-1]["prompt"].split("<|fim_prefix|>")[0]
    assert "def render(rows):" in snippets  # report.py's place, left just now
    report = await lsp.protocol.send_request_async("arbor/context", {})
    visited = [(s.path, s.kind) for s in report.snippets if s.kind == "visited"]
    assert visited == [("report.py", "visited")]  # not prices.py's own place
