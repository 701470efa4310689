"""Reading LSP frames (`Content-Length: N` headers, a blank line, N bytes of body) that recovers
from a wrong length instead of losing the stream.

Resynchronisation rests on one fact: a raw `Content-Length: <digits>` line ending in a line break
cannot occur inside valid JSON (a string cannot hold a raw line break, and outside strings the
words are not JSON). So:
- a declared length that is too long is noticed when the bytes read so far hold the next frame's
  header: the body ends where that header starts; likewise when the bytes so far already form a
  whole JSON object (the rest of a right length could only be whitespace), and when the declared
  body does not end in "}" or "]" but a shorter prefix of it is a whole object;
- a declared length that is too short yields a body that is not valid JSON: when the rest of the
  object is already buffered (bytes other than a header follow the body) the body is extended up
  to the next header if that makes it whole; otherwise the caller answers -32700 and the rest of
  that message is skipped up to the next header;
- bytes outside any frame are skipped up to the next header and reported as `skipped` bytes.

Invariants: every frame the client wrote with a right length comes out whole and in order, however
the bytes are split across reads; the buffer never holds more than `max_body` bytes of one body
plus one read; reading never raises on malformed input, only returns None at end of input.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from typing import Awaitable, Callable, Protocol

# a Content-Length header line; the name is matched without regard to case, as HTTP headers are
_LENGTH_LINE = re.compile(rb"(?i)content-length[ \t]*:[ \t]*(\d{1,15})[ \t]*\r?\n")
_HEADER_LINE = re.compile(rb"[A-Za-z][A-Za-z0-9-]*[ \t]*:[^\r\n]*\r?\n")
_BLANK_LINE = re.compile(rb"\r?\n")
_MAX_HEADER_BYTES = 8 * 1024
MAX_BODY_BYTES = 64 * 1024 * 1024
_READ_SIZE = 256 * 1024


class ChunkSource(Protocol):
    def read(self, n: int) -> Awaitable[bytes]: ...


@dataclass(slots=True)
class Frame:
    body: bytes
    skipped: int = 0  # bytes outside any frame dropped before this one (or at end of input)
    length_mismatch: bool = False  # the declared length was wrong and the body was cut where it ended


class FrameReader:
    """`await next_frame()` gives the next frame's body, or None at end of input; `skipped_total`
    counts the bytes dropped outside frames (including any at the end of input)."""

    def __init__(self, source: ChunkSource | Callable[[int], Awaitable[bytes]], *,
                 max_body: int = MAX_BODY_BYTES) -> None:
        self._read = source if callable(source) and not hasattr(source, "read") else source.read
        self._buf = bytearray()
        self._eof = False
        self.max_body = max_body
        self.skipped_total = 0
        self.resyncs = 0  # frames whose declared length was wrong

    async def _fill(self) -> bool:
        """Read one more chunk; False at end of input."""
        if self._eof:
            return False
        chunk = await self._read(_READ_SIZE)
        if not chunk:
            self._eof = True
            return False
        self._buf += chunk
        return True

    def _skip(self, n: int) -> int:
        """Drop `n` leading bytes; returns how many of them were not whitespace or header lines."""
        dropped = bytes(self._buf[:n])
        del self._buf[:n]
        rest = _HEADER_LINE.sub(b"", dropped).strip()
        return len(rest)

    async def next_frame(self) -> Frame | None:
        skipped = 0
        while True:
            header = _LENGTH_LINE.search(self._buf)
            if header is None:
                # keep a tail that could be the start of a header line split across reads
                keep = max(0, len(self._buf) - _MAX_HEADER_BYTES)
                skipped += self._skip(keep)
                if not await self._fill():
                    self.skipped_total += skipped + self._skip(len(self._buf))
                    return None
                continue
            skipped += self._skip(header.start())
            body_start = await self._header_end()
            if body_start is None:  # a malformed header block: drop its first line and look again
                self._skip(len(header.group(0)))
                skipped += len(header.group(0))
                continue
            if body_start < 0:  # input ended inside the headers
                self.skipped_total += skipped + len(self._buf)
                return None
            length = int(_LENGTH_LINE.match(self._buf).group(1))
            frame = await self._body(body_start, length)
            self.skipped_total += skipped
            frame.skipped = skipped
            return frame

    async def _header_end(self) -> int | None:
        """Offset of the body after the header block starting the buffer; None when the block is
        malformed, -1 when input ends first."""
        pos = _LENGTH_LINE.match(self._buf).end()
        while True:
            blank = _BLANK_LINE.match(self._buf, pos)
            if blank is not None:
                return blank.end()
            line = _HEADER_LINE.match(self._buf, pos)
            if line is not None and _LENGTH_LINE.match(self._buf, pos) is None:
                pos = line.end()
                continue
            # not a header line: malformed if the line is complete (or too long to be a header)
            tail = self._buf[pos:pos + _MAX_HEADER_BYTES]
            if b"\n" in tail or len(tail) >= _MAX_HEADER_BYTES:
                return None
            if not await self._fill():
                return -1

    async def _body(self, start: int, length: int) -> Frame:
        declared_end = start + length
        scanned = start  # bytes before this were searched for a next header already
        while True:
            at = self._next_header(max(start, scanned - 64), min(len(self._buf), declared_end))
            if at is not None:  # the next frame starts inside the declared body
                return self._take(start, at, mismatch=True)
            scanned = len(self._buf)
            if len(self._buf) >= declared_end:
                longer = self._continued(start, declared_end)
                if longer is not None:
                    return self._take(start, longer, mismatch=True)
                if _ends_like_json(self._buf, start, declared_end):
                    return self._take(start, declared_end, mismatch=False)
                # too long by a few bytes (the start of the next header): the object ends earlier
                shorter = self._whole_prefix(start, declared_end)
                return self._take(start, shorter or declared_end, mismatch=shorter is not None)
            if len(self._buf) - start > self.max_body:
                return self._take(start, len(self._buf), mismatch=True)
            if _is_whole_json(self._buf, start):
                return self._take(start, len(self._buf), mismatch=True)
            if not await self._fill():
                return self._take(start, len(self._buf), mismatch=True)

    def _whole_prefix(self, start: int, end: int) -> int | None:
        last = self._buf.rfind(b"}", start, end)
        return last + 1 if last >= 0 and _is_whole_json(self._buf, start, last + 1) else None

    def _continued(self, start: int, end: int) -> int | None:
        """Where the body really ends when the declared length was too short and the rest of the
        JSON object is already buffered (checked only when something other than a header or
        whitespace follows the declared body: never for a well-behaved client)."""
        after = end
        while after < len(self._buf) and self._buf[after] in b" \t\r\n":
            after += 1
        if after == len(self._buf) or _HEADER_LINE.match(self._buf, after):
            return None
        cut = self._next_header(after, len(self._buf))
        cut = len(self._buf) if cut is None else cut
        if _is_whole_json(self._buf, start, end) or not _is_whole_json(self._buf, start, cut):
            return None
        return cut

    def _next_header(self, lo: int, hi: int) -> int | None:
        """Where a whole Content-Length line starting in [lo, hi) begins (it may end past hi)."""
        name = b"Content-Length"
        at = self._buf.find(name, lo, hi + len(name) - 1)
        while at >= 0:
            if _LENGTH_LINE.match(self._buf, at):
                return at
            at = self._buf.find(name, at + 1, hi + len(name) - 1)
        return None

    def _take(self, start: int, end: int, *, mismatch: bool) -> Frame:
        body = bytes(self._buf[start:end])
        del self._buf[:end]
        if mismatch:
            self.resyncs += 1
        return Frame(body, length_mismatch=mismatch)


def _ends_like_json(buf: bytearray, start: int, end: int) -> bool:
    """Whether buf[start:end] ends, whitespace aside, as a JSON-RPC body does ("}" or "]")."""
    while end > start and buf[end - 1] in b" \t\r\n":
        end -= 1
    return end > start and buf[end - 1] in b"}]"


def _is_whole_json(buf: bytearray, start: int, end: int | None = None) -> bool:
    """Whether buf[start:end] is one whole JSON object (parsed only when it ends in "}")."""
    end = len(buf) if end is None else end
    while end > start and buf[end - 1] in b" \t\r\n":
        end -= 1
    if end <= start or buf[end - 1] != ord("}"):
        return False
    try:
        json.loads(bytes(buf[start:end]))
    except (ValueError, RecursionError):
        return False
    return True


class StreamChunks:
    """An asyncio.StreamReader as a chunk source."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    def read(self, n: int) -> Awaitable[bytes]:
        return self._reader.read(n)


class ThreadChunks:
    """A blocking binary file (stdin that the event loop cannot watch) read in a worker thread."""

    def __init__(self, stream, executor=None) -> None:
        self._stream = stream
        self._executor = executor

    def read(self, n: int) -> Awaitable[bytes]:
        read = getattr(self._stream, "read1", self._stream.read)
        return asyncio.get_running_loop().run_in_executor(self._executor, read, n)
