"""Test double: a server on lsp_server.protocol's fast path that reports what its handlers saw.

`arborTest/seen` answers with the document events in order, the size of pygls's own document
store, and whether stdin is read on the event loop. A didChange whose text is "boom" raises.
"""

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from lsp_server.protocol import ArborProtocol, FastStdioMixin


class Server(FastStdioMixin, LanguageServer):
    pass


server = Server("protocol-test", "0", protocol_cls=ArborProtocol)
events: list = []


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls, params: types.DidOpenTextDocumentParams):
    events.append(["open", params.text_document.uri, params.text_document.text])


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls, params: types.DidChangeTextDocumentParams):
    change = params.content_changes[0]
    if change.text == "boom":
        raise RuntimeError("handler failure")
    kind = "partial" if isinstance(change, types.TextDocumentContentChangePartial) else "whole"
    events.append(["change", params.text_document.version, kind, change.text])


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls, params: types.DidCloseTextDocumentParams):
    events.append(["close", params.text_document.uri])


@server.feature("arborTest/seen")
def seen(ls, params):
    return {"events": events, "pygls_documents": len(ls.workspace.text_documents), "reader": ls.stdin_reader}


if __name__ == "__main__":
    server.start_io()
