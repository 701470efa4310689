from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lsp_server.positions import _BREAK, PositionError, TextEdit, apply_edit, offset_at, position_at

TEXT = "a😀b\r\n日本\rlast"


@pytest.mark.parametrize("encoding, line, character, expected", [
    ("utf-16", 0, 1, 1), ("utf-16", 0, 3, 2), ("utf-16", 0, 4, 3),
    ("utf-8", 0, 5, 2), ("utf-8", 0, 6, 3),
    ("utf-32", 0, 2, 2),
    ("utf-16", 1, 1, 6), ("utf-8", 1, 3, 6),
    ("utf-16", 2, 4, len(TEXT)),
])
def test_offsets_in_each_encoding_and_line_break(encoding, line, character, expected):
    assert offset_at(TEXT, line, character, encoding) == expected


def test_out_of_range_positions():
    with pytest.raises(PositionError):
        offset_at(TEXT, 3, 0)
    assert offset_at(TEXT, 0, 99) == 3  # clamped, as the LSP says
    with pytest.raises(PositionError):
        offset_at(TEXT, 0, 99, strict=True)


@given(st.text(alphabet=st.sampled_from("ab😀日\n é"), max_size=40), st.data())
def test_position_round_trip(text, data):
    offset = data.draw(st.integers(0, len(text)))
    for encoding in ("utf-8", "utf-16", "utf-32"):
        line, character = position_at(text, offset, encoding)
        assert offset_at(text, line, character, encoding) == offset


def test_apply_edit():
    assert apply_edit("hello world", TextEdit(6, 11, "there")) == "hello there"


@given(st.text(alphabet=st.sampled_from("ab\n\r"), max_size=60), st.data())
def test_a_documents_line_anchor_carried_through_edits_gives_the_offsets_of_a_fresh_search(text, data):
    """The line start a document keeps across edits (what didChange does at every keystroke),
    and the lines scanned on from it, are where a search of the new text from scratch puts them;
    even when the edit completes a "\\r\\n" pair or removes the line break before the line."""
    from lsprotocol import types

    from lsp_server.features.documents import OpenDocument, apply_changes
    from lsp_server.positions import line_start

    doc = OpenDocument("file:///x", "/x", text, 1, "plaintext")
    for _ in range(data.draw(st.integers(1, 4))):
        lines = len(_BREAK.findall(doc.text)) + 1
        line = data.draw(st.integers(0, lines - 1))
        start = offset_at(doc.text, line, data.draw(st.integers(0, 6)))
        end = data.draw(st.integers(start, len(doc.text)))
        end_line, end_character = position_at(doc.text, end)
        inserted = data.draw(st.text(alphabet=st.sampled_from("xy\n\r"), max_size=4))
        change = types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=line, character=start - line_start(doc.text, line)),
                              end=types.Position(line=end_line, character=end_character)),
            text=inserted)
        apply_changes(doc, [change], "utf-16")
        new_lines = len(_BREAK.findall(doc.text)) + 1
        for probe in sorted({line, min(line + 1, new_lines - 1), new_lines - 1}):
            assert line_start(doc.text, probe, doc.line_anchor) == line_start(doc.text, probe)
