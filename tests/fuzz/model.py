"""The client's side of document sync, written independently of the server's code: what each open
document holds after the notifications a client sent, and LSP positions computed from code-point
offsets by plain counting (the server's `positions.py` is what is under test, so it is not used).

The rules the server documents (features/documents.py) and that the model follows:
- didOpen replaces any document of that uri; didChange to a document not open does nothing;
- content changes apply in order; a column past its line's end is the line's end; a range ending
  past the last line ends at the end of the text; a range *starting* past the last line, or one
  whose end precedes its start, makes the whole notification a no-op (text and version kept);
- versions are taken as sent, in or out of order;
- LSP line breaks are "\\n", "\\r\\n" and "\\r"; strings reach the server through JSON, so the
  model keeps what `json.loads(json.dumps(s))` gives (adjacent surrogates join into one character).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

import xxhash

_BREAK = re.compile(r"\r\n|\r|\n")


def through_json(text: str) -> str:
    return json.loads(json.dumps(text))


def digest_of(text: str) -> str:
    return xxhash.xxh3_128_hexdigest(text.encode("utf-8", "surrogatepass"))


def _width(ch: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(ch.encode("utf-8", "surrogatepass"))
    if encoding == "utf-16":
        return 2 if ord(ch) > 0xFFFF else 1
    return 1


def lines_of(text: str) -> list[tuple[int, int]]:
    """(start, end) code-point offsets of each line's content, line breaks excluded."""
    spans, start = [], 0
    for m in _BREAK.finditer(text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return spans


def position_of(text: str, offset: int, encoding: str) -> tuple[int, int]:
    for line, (start, end) in enumerate(lines_of(text)):
        if start <= offset <= end:
            return line, sum(_width(ch, encoding) for ch in text[start:offset])
    raise ValueError(f"offset {offset} is inside a line break")


def offset_of(text: str, line: int, character: int, encoding: str) -> int | None:
    """The server's reading of a position: None when `line` is past the last line; a column past
    the line's end (or inside a character) is the next character boundary, at most the end."""
    spans = lines_of(text)
    if line >= len(spans):
        return None
    start, end = spans[line]
    units, i = 0, start
    while i < end and units < character:
        units += _width(text[i], encoding)
        i += 1
    return i


def valid_offsets(text: str) -> list[int]:
    """Offsets a client may put a cursor at: not between the "\\r" and "\\n" of a pair."""
    return [i for i in range(len(text) + 1) if not (0 < i < len(text) and text[i - 1] == "\r" and text[i] == "\n")]


@dataclass
class ModelDocument:
    text: str
    version: int


@dataclass
class ClientModel:
    encoding: str
    documents: dict[str, ModelDocument] = field(default_factory=dict)

    def opened(self, uri: str, text: str, version: int) -> None:
        self.documents[uri] = ModelDocument(through_json(text), version)

    def closed(self, uri: str) -> None:
        self.documents.pop(uri, None)

    def changed(self, uri: str, version: int, changes: list[dict]) -> None:
        doc = self.documents.get(uri)
        if doc is None:
            return
        text = doc.text
        for change in changes:
            if "range" not in change:
                text = through_json(change["text"])
                continue
            r = change["range"]
            start = offset_of(text, r["start"]["line"], r["start"]["character"], self.encoding)
            if start is None:
                return
            end = offset_of(text, r["end"]["line"], r["end"]["character"], self.encoding)
            end = len(text) if end is None else end
            if end < start:
                return
            text = text[:start] + through_json(change["text"]) + text[end:]
        doc.text, doc.version = text, version

    def expected_state(self) -> list[dict]:
        return [{"uri": uri, "version": doc.version, "length": len(doc.text), "digest": digest_of(doc.text)}
                for uri, doc in sorted(self.documents.items())]
