"""A bare pygls language server: the protocol layer alone, as the load test's baseline.

It keeps documents in sync exactly as stock pygls does (incremental sync into its in-memory
workspace) and answers every `textDocument/inlineCompletion` with one constant item, so that
`arbor-ls bench` can report arbor-ls's own overhead over the protocol layer it is built on.
Nothing here is tuned: it is the stock pygls path on purpose.

Run: `python -m benchmarks.bare_server` (LSP over stdio).
"""

from __future__ import annotations

from lsprotocol import types
from pygls.lsp.server import LanguageServer

CONSTANT_COMPLETION = "pass"

server = LanguageServer("bare-pygls", "1.0", text_document_sync_kind=types.TextDocumentSyncKind.Incremental)


@server.feature(types.TEXT_DOCUMENT_INLINE_COMPLETION, types.InlineCompletionOptions())
def inline_completion(ls: LanguageServer, params: types.InlineCompletionParams) -> types.InlineCompletionList:
    """The constant answer; it touches the document (as any real handler must) so that a request
    for a document the server never saw fails here as it would in a real server."""
    ls.workspace.get_text_document(params.text_document.uri)
    return types.InlineCompletionList(items=[types.InlineCompletionItem(insert_text=CONSTANT_COMPLETION)])


def main() -> None:
    server.start_io()


if __name__ == "__main__":
    main()
