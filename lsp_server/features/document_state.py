"""`arbor/documents`: what the server holds for each open document, as a digest, so that a client
(or a test) can check that the server's buffers equal its own without the text leaving the server.

Reply: `{"documents": [{"uri", "version", "length", "digest"}]}`, sorted by uri, for every open
document or only those named in params `{"uris": [...]}`. `length` counts code points; `digest` is
the xxh3-128 hex digest of the text encoded as UTF-8 with lone surrogates kept ("surrogatepass"),
the encoding `digest_of` gives, so a client computes the same value from the same text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import xxhash

if TYPE_CHECKING:
    from ..server import ArborServer

METHOD = "arbor/documents"


def digest_of(text: str) -> str:
    return xxhash.xxh3_128_hexdigest(text.encode("utf-8", "surrogatepass"))


def document_state(ls: ArborServer, params: Any) -> dict[str, Any]:
    wanted = params.get("uris") if isinstance(params, dict) else None
    uris = sorted(ls.documents) if not isinstance(wanted, list) else sorted(u for u in wanted if u in ls.documents)
    return {"documents": [{"uri": uri, "version": ls.documents[uri].version, "length": len(ls.documents[uri].text),
                           "digest": digest_of(ls.documents[uri].text)} for uri in uris]}


def register(server: ArborServer) -> None:
    @server.feature(METHOD)
    def documents(ls: ArborServer, params: Any = None) -> dict[str, Any]:
        return document_state(ls, params)
