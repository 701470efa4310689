from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lsp_server.positions import PositionError, TextEdit, apply_edit, offset_at, position_at

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
