"""`textDocument/inlineCompletion` (LSP 3.18 ghost text) and `textDocument/completion` (one item
with a `textEdit`, for clients without inline completion such as nvim-cmp).

Each request runs its pipeline as one computation per document (`lsp_server.inflight`): a newer
request for the same document supersedes an older one, which then answers with an empty result;
so does a request whose document was edited after it was sent (its answer would be placed at a
stale position, and computing it would delay the requests that matter); a request at the same
document version and position joins the computation already running. `$/cancelRequest` cancels
the handler: when the document has not changed (VS Code gives up on every request after ~0.8 s),
the computation goes on into the cache and `arbor/completionReady` tells the client to ask again;
an edit cancels it at once (HTTP stream closed, engine sequence aborted). A position outside the
document, a disabled server, backends still being created after `PIPELINE_WAIT_S` (torch's
import and a model's weights take seconds after a settings change), a model still loading or a
failing backend give an empty result, never an error.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import TYPE_CHECKING

from lsprotocol import types

from inference.api import BackendError, BackendLoading, CompletionResult

from ..inflight import CompletionKey, Superseded
from ..positions import PositionError, offset_at
from ..protocol import received_version
from .indexing import note_worked_at

if TYPE_CHECKING:
    from ..server import ArborServer
    from .documents import OpenDocument

log = logging.getLogger(__name__)
PIPELINE_WAIT_S = 1.0  # a completion waits this long for the backends to be created, then answers empty
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
        offset = offset_at(doc.text, position.line, position.character, ls.position_encoding, strict=True,
                           anchor=doc.line_anchor)
    except PositionError as exc:
        log.info("no completion at %s:%s: %s", uri, position, exc)
        ls.stats.count("out_of_range")
        return None
    ls.stats.count("requests")
    ls.anticipation.requested(uri)
    note_worked_at(ls, doc.path, position.line)
    key = CompletionKey(uri, doc.version, position.line, position.character)
    computation = ls.inflight.start_or_join(key, lambda: _compute(ls, key, doc, doc.text, offset))
    try:
        result = await ls.inflight.wait(computation, lambda: _version_of(ls, uri))
    except Superseded:  # by a newer request, an edit or a close: answer empty
        ls.stats.count("superseded")
        return None
    except asyncio.CancelledError:
        ls.stats.count("detached" if computation.detached else "cancelled")
        raise
    if result is None:
        return None
    if result.text:
        ls.anticipation.answered(uri, key.version, offset, result.text)
    return result, offset


async def _compute(ls: ArborServer, key: CompletionKey, doc: OpenDocument, text: str, offset: int) -> CompletionResult | None:
    """One pipeline run on `text` (`doc`'s text at `key.version`); None when it failed or nothing
    is there yet (the status says why)."""
    path = doc.path
    ls.status_busy()
    try:
        pipeline = await ls.get_pipeline(wait_s=PIPELINE_WAIT_S)
        result = await pipeline.complete(path, text, offset, language=doc.language_id, holder=doc)
    except asyncio.CancelledError:
        ls.send_status("idle")
        raise
    except BackendLoading as exc:
        ls.stats.count("loading")
        ls.send_status("loading", str(exc))
        return None
    except BackendError as exc:
        ls.stats.count("errors")
        ls.send_status("error", str(exc))
        log.debug("completion failed: %s", exc)  # the router logs failures, repeats rate-limited
        return None
    finally:
        ls.status_done()
        indexing = getattr(ls, "indexing", None)
        if indexing is not None:
            indexing.flush_soon(path)  # re-index this buffer after answering, not before
    ls.stats.count(f"cache_{result.cache}")
    ls.stats.record_latency(result.latency_ms.get("total", 0.0))
    ls.stats.record_completion(key, result)
    ls.send_status("idle")
    return result


def _version_of(ls: ArborServer, uri: str) -> int | None:
    doc = ls.documents.get(uri)
    return doc.version if doc is not None else None


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
