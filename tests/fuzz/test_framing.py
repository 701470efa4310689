"""FrameReader: right frames come out whole however the bytes are split; a wrong Content-Length,
garbage between frames or a truncated end never lose the frames that follow."""

from __future__ import annotations

import asyncio
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.jsonrpc_framing import FrameReader

messages = st.lists(st.dictionaries(st.sampled_from(["id", "method", "params", "x"]),
                                    st.one_of(st.integers(), st.text(max_size=30), st.lists(st.integers(), max_size=3)),
                                    max_size=4).map(lambda d: {"jsonrpc": "2.0", **d}),
                    min_size=1, max_size=8)


def body(message: dict) -> bytes:
    return json.dumps(message).encode()


def framed(data: bytes, length: int | None = None, *, extra_headers: bytes = b"") -> bytes:
    return extra_headers + b"Content-Length: %d\r\n" % (len(data) if length is None else length) + b"\r\n" + data


class Chunks:
    """Feeds `data` in pieces cut at `cuts`, then end of input (or, with `hang`, waits forever)."""

    def __init__(self, data: bytes, cuts: list[int] = (), hang: bool = False) -> None:
        points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
        self.pieces = [data[a:b] for a, b in zip(points, points[1:]) if b > a]
        self.hang = hang

    async def read(self, n: int) -> bytes:
        if self.pieces:
            piece = self.pieces.pop(0)
            if len(piece) > n:
                self.pieces.insert(0, piece[n:])
                piece = piece[:n]
            return piece
        if self.hang:
            await asyncio.Event().wait()
        return b""


async def read_all(reader: FrameReader, timeout_s: float = 5.0) -> list[bytes]:
    bodies = []
    while True:
        frame = await asyncio.wait_for(reader.next_frame(), timeout_s)
        if frame is None:
            return bodies
        bodies.append(frame.body)


@settings(max_examples=150, deadline=None)
@given(messages, st.lists(st.integers(0, 10_000), max_size=12), st.sampled_from([b"", b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"]))
def test_right_frames_come_out_whole_however_split(msgs, cuts, headers):
    data = b"".join(framed(body(m), extra_headers=headers) for m in msgs)
    reader = FrameReader(Chunks(data, cuts))
    assert asyncio.run(read_all(reader)) == [body(m) for m in msgs]
    assert reader.resyncs == 0 and reader.skipped_total == 0


@settings(max_examples=150, deadline=None)
@given(messages, st.integers(0, 7), st.integers(-40, 40).filter(lambda d: d != 0), st.lists(st.integers(0, 10_000), max_size=6))
def test_a_wrong_length_loses_no_later_frame(msgs, bad_index, delta, cuts):
    bad_index %= len(msgs)
    parts = []
    for i, m in enumerate(msgs):
        data = body(m)
        parts.append(framed(data, max(0, len(data) + delta) if i == bad_index else None))
    reader = FrameReader(Chunks(b"".join(parts), cuts))
    bodies = asyncio.run(read_all(reader))
    later = [body(m) for m in msgs[bad_index + 1:]]
    assert bodies[len(bodies) - len(later):] == later  # every frame after the bad one, whole and in order
    assert bodies[:bad_index] == [body(m) for m in msgs[:bad_index]]


@settings(max_examples=100, deadline=None)
@given(messages, st.binary(max_size=60).filter(lambda b: b"Content-Length" not in b and b"ontent" not in b))
def test_garbage_between_frames_is_skipped_and_counted(msgs, garbage):
    data = b"".join(garbage + framed(body(m)) for m in msgs)
    reader = FrameReader(Chunks(data, [7, 19, 40]))
    assert asyncio.run(read_all(reader)) == [body(m) for m in msgs]
    assert reader.skipped_total <= len(garbage) * len(msgs)


def test_too_short_length_with_the_rest_buffered_is_recovered_whole():
    first, second = body({"jsonrpc": "2.0", "id": 1, "method": "a"}), body({"jsonrpc": "2.0", "id": 2, "method": "b"})
    reader = FrameReader(Chunks(framed(first, len(first) - 10) + framed(second)))
    assert asyncio.run(read_all(reader)) == [first, second]
    assert reader.resyncs == 1


def test_too_long_length_answers_without_waiting_for_bytes_that_never_come():
    data = body({"jsonrpc": "2.0", "id": 1, "method": "a"})
    reader = FrameReader(Chunks(framed(data, len(data) + 500), hang=True))

    async def first() -> bytes:
        frame = await asyncio.wait_for(reader.next_frame(), 2.0)
        return frame.body

    assert asyncio.run(first()) == data


def test_lowercase_header_name_and_end_of_input_inside_a_frame():
    data = body({"jsonrpc": "2.0", "id": 1, "method": "a"})
    stream = b"content-length: %d\r\n\r\n" % len(data) + data + b"Content-Length: 50\r\n\r\n{\"jsonrpc\""
    reader = FrameReader(Chunks(stream, [3, 30]))
    bodies = asyncio.run(read_all(reader))
    assert bodies[0] == data
    assert len(bodies) <= 2  # the cut-off frame may come out as a (non-JSON) body; nothing raises


def test_a_body_over_the_limit_is_cut_and_the_next_frame_still_read():
    big = b'{"x": "' + b"a" * 5000 + b'"}'
    after = body({"jsonrpc": "2.0", "id": 2, "method": "b"})
    reader = FrameReader(Chunks(framed(big, 10**9) + b"junk" * 2000 + framed(after), [100, 4000]), max_body=4096)
    bodies = asyncio.run(read_all(reader))
    assert bodies[-1] == after
