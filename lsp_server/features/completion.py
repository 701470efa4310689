"""`textDocument/inlineCompletion` (LSP 3.18 ghost text) and `textDocument/completion` (one item
with a `textEdit`, for clients without inline completion such as nvim-cmp).

Both handlers are `async`: `$/cancelRequest` cancels the handler's task, and the cancellation
reaches the backend (HTTP stream closed, engine sequence aborted). A newer request for the same
document supersedes an older one, which then answers with an empty result; so does a request whose
document was edited after it was sent (the editor has moved on: its answer would be placed at a
stale position, and computing it would delay the requests that matter). A position outside the
document, a disabled server or a failing backend give an empty result, never an error.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import TYPE_CHECKING

from lsprotocol import types

from inference.api import BackendError, CompletionResult

from ..positions import PositionError, offset_at
from ..protocol import received_version

if TYPE_CHECKING:
    from ..server import ArborServer

log = logging.getLogger(__name__)
_WORD_BEFORE = re.compile(r"[A-Za-z_0-9$]*$")


async def complete_at(ls: ArborServer, uri: str, position: types.Position) -> tuple[CompletionResult, int] | None:
    """Run the pipeline at `position` of the open document `uri`; None when nothing applies."""
    doc = ls.documents.get(uri)
    if doc is None or not ls.settings.completion.enabled:
        return None
    received = received_version()
    if received is not None and doc.version != received:
        ls.stats.count("stale")
        return None
    try:
        offset = offset_at(doc.text, position.line, position.character, ls.position_encoding, strict=True)
    except PositionError as exc:
        log.info("no completion at %s:%s: %s", uri, position, exc)
        ls.stats.count("out_of_range")
        return None
    box = ls.begin_request(uri)
    ls.stats.count("requests")
    ls.status_busy()
    try:
        pipeline = await ls.get_pipeline()
        result = await pipeline.complete(doc.path, doc.text, offset, language=doc.language_id)
    except asyncio.CancelledError:
        if box:  # superseded by a newer request or the document closed: answer empty
            ls.stats.count("superseded")
            ls.send_status("idle")
            return None
        ls.stats.count("cancelled")
        ls.send_status("idle")
        raise
    except BackendError as exc:
        ls.stats.count("errors")
        ls.send_status("error", str(exc))
        log.warning("completion failed: %s", exc)
        return None
    finally:
        ls.status_done()
        ls.end_request(uri)
        indexing = getattr(ls, "indexing", None)
        if indexing is not None:
            indexing.flush_soon(doc.path)  # re-index this buffer after answering, not before
    ls.stats.count(f"cache_{result.cache}")
    ls.stats.record_latency(result.latency_ms.get("total", 0.0))
    ls.send_status("idle")
    return result, offset


def register(server: ArborServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_INLINE_COMPLETION, types.InlineCompletionOptions())
    async def inline_completion(ls: ArborServer, params: types.InlineCompletionParams) -> types.InlineCompletionList:
        answer = await complete_at(ls, params.text_document.uri, params.position)
        if answer is None or not answer[0].text:
            return types.InlineCompletionList(items=[])
        result, _ = answer
        here = types.Range(start=params.position, end=params.position)
        item = types.InlineCompletionItem(insert_text=result.text, range=here)
        return types.InlineCompletionList(items=[item])

    @server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=[".", "(", " "]))
    async def completion(ls: ArborServer, params: types.CompletionParams) -> types.CompletionList:
        answer = await complete_at(ls, params.text_document.uri, params.position)
        if answer is None or not answer[0].text:
            return types.CompletionList(is_incomplete=True, items=[])
        result, offset = answer
        doc = ls.documents[params.text_document.uri]
        word = _WORD_BEFORE.search(doc.text, max(0, offset - 100), offset).group(0)
        start = types.Position(line=params.position.line, character=params.position.character - _units(word, ls))
        new_text = word + result.text
        label = new_text.strip().split("\n", 1)[0][:80] or new_text.strip()[:80]
        item = types.CompletionItem(
            label=label,
            kind=types.CompletionItemKind.Text,
            detail="arbor-ls",
            filter_text=new_text,
            sort_text="0",
            insert_text_format=types.InsertTextFormat.PlainText,
            text_edit=types.TextEdit(range=types.Range(start=start, end=params.position), new_text=new_text),
        )
        return types.CompletionList(is_incomplete=True, items=[item])


def _units(word: str, ls: ArborServer) -> int:
    """Length of an ASCII-class word in the client's units (identifier characters are 1 unit each)."""
    return len(word.encode("utf-8")) if ls.position_encoding == "utf-8" else len(word)
