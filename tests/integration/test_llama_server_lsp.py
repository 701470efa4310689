"""arbor-ls over stdio with a real llama-server as its backend (the default model's Q4_K_M GGUF):
the workspace index puts another file's class into `/infill`'s `input_extra`, the idle-time
warm-up (`n_predict: 0`) prefills the prompt, and the completion that follows is answered with
the method defined only in that other file, prefilling a small part of its prompt.

Skips only when the llama-server binary is absent (scripts/setup-test.sh builds it)."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types

from tests.e2e.conftest import start_client

pytestmark = pytest.mark.slow

CART = ("class Cart:\n    def __init__(self):\n        self.items = []\n\n"
        "    def compute_grand_total_cents(self) -> int:\n"
        "        return sum(item.price_cents for item in self.items)\n")
CHECKOUT = "from shop.cart import Cart\n\n\ndef checkout(cart: Cart) -> int:\n    return cart\n"


async def poll(what, until, seconds: float):
    for _ in range(int(seconds / 0.1)):
        value = await what()
        if until(value):
            return value
        await asyncio.sleep(0.1)
    pytest.fail(f"not reached within {seconds} s: {value}")


async def test_warm_up_then_infill_with_the_indexed_class_over_lsp(server, tmp_path):
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "__init__.py").write_text("")
    (tmp_path / "shop" / "cart.py").write_text(CART)
    checkout = tmp_path / "shop" / "checkout.py"
    checkout.write_text(CHECKOUT)
    settings = {"backends": [{"name": "llama", "kind": "llamacpp", "url": server.url, "timeoutMs": 60000}],
                "completion": {"multiline": "never", "speculate": False, "warmUp": True},
                "route": {"singleDeadlineMs": 60000}}
    lsp = await start_client("neovim", settings, tmp_path)
    try:
        stats = lambda: lsp.protocol.send_request_async("arbor/stats", {})  # noqa: E731
        await poll(stats, lambda s: s.index.files >= 2, 60)
        uri = checkout.as_uri()
        lsp.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=uri, language_id="python", version=1, text=CHECKOUT)))
        cursor = types.Position(line=4, character=15)
        lsp.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=cursor, end=cursor), text=".")]))
        warmed = await poll(stats, lambda s: s.anticipation.warmups >= 1, 90)
        answer = await asyncio.wait_for(lsp.text_document_inline_completion_async(types.InlineCompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=4, character=16),
            context=types.InlineCompletionContext(trigger_kind=types.InlineCompletionTriggerKind.Invoked))), 90)
        last = (await stats()).recentCompletions[-1]
    finally:
        await lsp.shutdown_session()
        await lsp.stop()
    texts = [item.insert_text for item in answer.items]
    print(f"warm-up evaluated {warmed.anticipation.warmed_tokens} tokens; the completion {texts}: "
          f"{last.prefilledTokens} of {last.promptTokens} prompt tokens prefilled")
    assert texts and texts[0].startswith("compute_grand_total_cents"), texts
    assert warmed.anticipation.warmed_tokens > 40
    assert last.prefilledTokens * 4 < last.promptTokens
