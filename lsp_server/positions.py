"""LSP positions -> Python string offsets, in the client's position encoding.

LSP line breaks are "\\n", "\\r\\n" and "\\r"; columns count UTF-16 code units (VS Code), UTF-8
bytes (Neovim's preference) or code points (utf-32). Offsets returned here index Python `str`
(code points); nothing in the server indexes a string by an LSP column directly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_BREAK = re.compile(r"\r\n|\r|\n")


class PositionError(ValueError):
    """A position lies outside the document."""


@dataclass(frozen=True, slots=True)
class TextEdit:
    """Replace text[start:end] (code-point offsets into the text before this edit) with `text`."""

    start: int
    end: int
    text: str


Anchor = tuple[int, int]  # (line, offset): a known line start of one text, held by its document
MAX_SCAN_LINES = 64  # further below an anchor than this, a line is searched from the text's start


def line_start(text: str, line: int, anchor: Anchor | None = None) -> int:
    """Offset of the first character of `line` (0-based); raises PositionError past the last line.

    With `anchor`, a line start of this very text (the document keeps the line its last edit
    began on: typing stays on a line or moves a few down), a line at most `MAX_SCAN_LINES` below
    it is scanned to from there. Otherwise, for "\n"-only text (the common case) the scan runs in
    C (`str.split` with a limit)."""
    if anchor is not None and 0 <= line - anchor[0] <= MAX_SCAN_LINES:
        offset = anchor[1]
        for _ in range(line - anchor[0]):
            m = _BREAK.search(text, offset)
            if m is None:
                raise PositionError(f"line {line} is past the end of the document")
            offset = m.end()
        return offset
    if line < 0:
        raise PositionError(f"negative line {line}")
    if "\r" not in text:
        parts = text.split("\n", line)
        if len(parts) <= line:
            raise PositionError(f"line {line} is past the end of the document")
        return len(text) - len(parts[-1])
    pos = 0
    for _ in range(line):
        m = _BREAK.search(text, pos)
        if m is None:
            raise PositionError(f"line {line} is past the end of the document")
        pos = m.end()
    return pos


def _line_end(text: str, start: int) -> int:
    m = _BREAK.search(text, start)
    return m.start() if m else len(text)


def _units(ch: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(ch.encode("utf-8", "surrogatepass"))
    if encoding == "utf-16":
        return 2 if ord(ch) > 0xFFFF else 1
    return 1


_ASTRAL = re.compile("[\U00010000-\U0010FFFF]")


def _one_unit_each(text: str, start: int, end: int, encoding: str) -> bool:
    """Whether every character of text[start:end] is one unit of `encoding` (checked in C: a
    column is then a character count, however long the line)."""
    if end - start < 64:
        return False  # the loop is as cheap
    part = text[start:end]
    return part.isascii() or (encoding == "utf-16" and _ASTRAL.search(part) is None)


def offset_at(text: str, line: int, character: int, encoding: str = "utf-16", *, strict: bool = False,
              anchor: Anchor | None = None) -> int:
    """Code-point offset of (line, character). A column past the line's end is clamped to it,
    as the LSP specifies, unless `strict` (then PositionError). `anchor`: see `line_start`."""
    start = line_start(text, line, anchor)
    end = _line_end(text, start)
    if encoding not in ("utf-8", "utf-16") or _one_unit_each(text, start, end, encoding):
        if character > end - start and strict:
            raise PositionError(f"column {character} is past the end of line {line}")
        return min(start + character, end)
    units = 0
    i = start
    while i < end and units < character:
        units += _units(text[i], encoding)
        i += 1
    if units < character and strict:
        raise PositionError(f"column {character} is past the end of line {line}")
    return i


def position_at(text: str, offset: int, encoding: str = "utf-16") -> tuple[int, int]:
    """(line, character) of a code-point offset, in `encoding` units."""
    line = len(_BREAK.findall(text, 0, offset))
    if offset > 0 and text[offset - 1] == "\r" and text[offset:offset + 1] == "\n":
        line -= 1  # inside a "\r\n" pair: still on the line the "\r" ends
    start = line_start(text, line)
    if encoding not in ("utf-8", "utf-16") or _one_unit_each(text, start, offset, encoding):
        return line, offset - start
    return line, sum(_units(ch, encoding) for ch in text[start:offset])


def carried_anchor(old: str, edit: TextEdit, anchor: Anchor) -> Anchor | None:
    """`anchor`, a line start of `old` at or before where `edit` begins, in the text the edit
    makes: the text before the edit is unchanged, so the line starts there still, unless the edit
    joins a "\r" ending the previous line with a "\n" it inserts (then None)."""
    offset = anchor[1]
    if offset > edit.start or (offset == edit.start and old[offset - 1:offset] == "\r"):
        return None
    return anchor


def apply_edit(text: str, edit: TextEdit) -> str:
    return text[: edit.start] + edit.text + text[edit.end :]
