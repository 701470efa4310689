"""Text synchronisation: open buffers, incremental edits, and the listeners that follow them.

The server keeps its own copy of each open buffer, so that every incremental change can be
turned into a `TextEdit` with code-point offsets into the text *before* that change; listeners
(the indexer) receive the edits in order plus the resulting text. An edit that cannot be applied
(a range outside the buffer) is logged and the buffer is left as it was, never lost.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from lsprotocol import types
from pygls.uris import to_fs_path

from .. import heap
from ..positions import Anchor, PositionError, TextEdit, apply_edit, carried_anchor, line_start, offset_at
from ..timers import Debounce

if TYPE_CHECKING:
    from pruning.held_layout import HeldLayout

    from ..server import ArborServer

log = logging.getLogger(__name__)


class DocumentListener(Protocol):
    def did_open(self, path: str, text: str, language_id: str) -> None: ...
    def did_change(self, path: str, edits: list[TextEdit], new_text: str) -> None: ...
    def did_close(self, path: str) -> None: ...


@dataclass(slots=True)
class OpenDocument:
    uri: str
    path: str
    text: str
    version: int
    language_id: str
    line_anchor: Anchor | None = None  # a line start of `text` (positions.line_start), dies with it
    # the snippets this buffer's completions show again while they hold (a warm-up's prefilled
    # choice, or what the last completion showed: `lsp_server.pipeline.LayoutHolder`); it outlives
    # edits: `build_context` checks it holds
    layout: HeldLayout | None = None
    warming: HeldLayout | None = None  # the choice of a warm-up not finished yet (`LayoutHolder`)


def uri_to_path(uri: str) -> str:
    """A `file:` URI's file-system path; any other URI (`untitled:`, `vscode-notebook-cell:`, ...)
    is its own path: a memory document (`indexer.documents.is_memory_path`), never read from disk."""
    return (to_fs_path(uri) if uri.startswith("file:") else None) or uri


def apply_changes(doc: OpenDocument, changes: list, encoding: str) -> list[TextEdit]:
    """Apply LSP content changes to `doc.text` in order; returns the edits that were applied."""
    edits: list[TextEdit] = []
    text, anchor = doc.text, doc.line_anchor
    for change in changes:
        if isinstance(change, types.TextDocumentContentChangePartial):
            r = change.range
            line = (r.start.line, line_start(text, r.start.line, anchor))
            start = offset_at(text, r.start.line, r.start.character, encoding, anchor=line)
            try:
                end = offset_at(text, r.end.line, r.end.character, encoding, anchor=line)
            except PositionError:
                end = len(text)  # a range ending past the last line ends at the end of the buffer
            if end < start:
                raise PositionError(f"range end {r.end} precedes its start {r.start}")
            edit = TextEdit(start, end, change.text)
            anchor = carried_anchor(text, edit, line)
        else:
            edit = TextEdit(0, len(text), change.text)
            anchor = None
        text = apply_edit(text, edit)
        edits.append(edit)
    doc.text, doc.line_anchor = text, anchor
    return edits


def register(server: ArborServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: ArborServer, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        doc = OpenDocument(item.uri, uri_to_path(item.uri), item.text, item.version, item.language_id)
        ls.documents[item.uri] = doc
        for listener in ls.document_listeners:
            _notify(listener.did_open, doc.path, doc.text, doc.language_id)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: ArborServer, params: types.DidChangeTextDocumentParams) -> None:
        doc = ls.documents.get(params.text_document.uri)
        if doc is None:
            log.warning("didChange for a document that is not open: %s", params.text_document.uri)
            return
        before = doc.text
        try:
            edits = apply_changes(doc, params.content_changes, ls.position_encoding)
        except PositionError as exc:
            doc.text = before
            log.error("ignored an edit to %s: %s", doc.uri, exc)
            return
        doc.version = params.text_document.version
        if ls.inflight.document_changed(doc.uri):
            ls.stats.count("cancelled")  # a detached computation, aborted: its answer would be stale
        if edits:
            ls.anticipation.edited(doc.uri, doc.version, edits[-1].start + len(edits[-1].text), doc.text)
        for listener in ls.document_listeners:
            _notify(listener.did_change, doc.path, edits, doc.text)

    release_memory = Debounce(heap.RELEASE_AFTER_S, heap.release)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: ArborServer, params: types.DidCloseTextDocumentParams) -> None:
        release_memory.poke()  # once closes stop: what the closed documents held goes back
        doc = ls.documents.pop(params.text_document.uri, None)
        if ls.inflight.document_changed(params.text_document.uri, reason="closed"):
            ls.stats.count("cancelled")
        ls.anticipation.closed(params.text_document.uri)
        if doc is not None:
            for listener in ls.document_listeners:
                _notify(listener.did_close, doc.path)


def _notify(method, *args) -> None:
    try:
        method(*args)
    except Exception:  # a listener's bug must not lose the user's buffer state
        log.exception("document listener %r failed", method)
