"""`arbor/cursor` (client -> server): where the user's cursor rests, so that the prompt a
completion there would send can be prefilled before the user types (`Anticipation.visited`).

Payload: `{textDocument: {uri, version}, position: {line, character}}`, the position in the
negotiated encoding. It is a hint: a payload that is malformed, names a document that is not
open, or a version other than the server's is ignored (malformed ones counted as
`cursor_invalid`), and it never fails the client; one for the open document's version is counted
as `cursor_reports` (whether or not its position is inside the document).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..positions import PositionError, offset_at
from .feedback import param_field
from .indexing import note_worked_at

if TYPE_CHECKING:
    from ..server import ArborServer

CURSOR = "arbor/cursor"


@dataclass(frozen=True, slots=True)
class CursorPlace:
    uri: str
    version: int
    line: int
    character: int


def _index(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def parse_cursor(params: Any) -> CursorPlace | None:
    """The payload, or None when it is malformed."""
    document, position = param_field(params, "textDocument"), param_field(params, "position")
    uri, version = param_field(document, "uri"), param_field(document, "version")
    line, character = _index(param_field(position, "line")), _index(param_field(position, "character"))
    if not isinstance(uri, str) or not isinstance(version, int) or isinstance(version, bool):
        return None
    if line is None or character is None:
        return None
    return CursorPlace(uri, version, line, character)


def register(server: ArborServer) -> None:
    @server.feature(CURSOR)
    def cursor(ls: ArborServer, params: Any) -> None:
        place = parse_cursor(params)
        if place is None:
            ls.stats.count("cursor_invalid")
            return
        doc = ls.documents.get(place.uri)
        if doc is None or doc.version != place.version:
            return
        ls.stats.count("cursor_reports")
        try:
            offset = offset_at(doc.text, place.line, place.character, ls.position_encoding, strict=True)
        except PositionError:
            return
        ls.anticipation.visited(place.uri, place.version, offset)
        note_worked_at(ls, doc.path, place.line)
