"""Per-chunk tag analysis: what one byte range of a file contributes to its tags (pure).

A chunk is a byte range `[start, end)` of the source that holds whole syntax nodes. Its analysis
keeps only captures lying entirely inside it, with offsets relative to `start`, so an unchanged
chunk's analysis can be reused wherever the chunk moves. The whole file is one chunk when a file
is indexed from disk; an open buffer is split into many (see `incremental.py`), and
`tags.assemble` turns the analyses of consecutive chunks into `FileTags` the same way in both
cases.

Invariants:
- `references` holds one (start, end, kind) per name node, the most specific kind winning
  (call > type > attribute); nodes captured as definition names (`@name.*`) are left out.
- `words` are `fingerprint.code_words` of the chunk with its comments and strings cut out; for
  consecutive chunks whose boundaries never fall between two word characters, the concatenated
  words equal the words of the concatenated text.
- `structure` holds the remaining captures (definitions, names, containers, scopes, imports,
  package), sorted and without duplicates.
"""

from __future__ import annotations

from dataclasses import dataclass

from indexer.fingerprint import code_words
from indexer.spans import SpanSet, cut_out, merge_spans

_REF_KEYS = (("reference.attribute", "attribute"), ("reference.type", "type"), ("reference.call", "call"))
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$") | frozenset(range(0x80, 0x100))


@dataclass(frozen=True, slots=True)
class ChunkAnalysis:
    """Tags material of one chunk, offsets relative to the chunk's start."""

    length: int
    structure: dict[str, list[tuple[int, int]]]
    references: list[tuple[int, int, str]]
    skip: list[tuple[int, int]]
    words: list[bytes]
    name_starts: frozenset[int]


def analyze_chunk(caps: dict[str, list[tuple[int, int]]], source: bytes, start: int, end: int) -> ChunkAnalysis:
    """The analysis of `source[start:end]` from tags-query captures (absolute spans; captures not
    entirely inside the chunk are ignored)."""
    structure: dict[str, list[tuple[int, int]]] = {}
    inside = start == 0 and end >= len(source)
    name_starts: set[int] = set()
    for key, spans in caps.items():
        if key.startswith("reference.") or key == "skip":
            continue
        kept = spans if inside else [s for s in spans if start <= s[0] and s[1] <= end]
        if not kept:
            continue
        relative = sorted({(s - start, e - start) for s, e in kept})
        structure[key] = relative
        if key.startswith("name."):
            name_starts.update(s for s, _ in relative)
    best: dict[int, tuple[int, str]] = {}
    for key, kind in _REF_KEYS:  # most specific last, so it wins
        for s, e in caps.get(key, ()):
            if inside or (start <= s and e <= end):
                best[s - start] = (e - start, kind)
    references = sorted((s, e, kind) for s, (e, kind) in best.items() if s not in name_starts)
    raw_skip = caps.get("skip", ())
    skip = sorted({(s - start, e - start) for s, e in raw_skip if inside or (start <= s and e <= end)})
    text = source[start:end] if not inside else source
    return ChunkAnalysis(
        length=end - start,
        structure=structure,
        references=references,
        skip=skip,
        words=code_words(cut_out(text, skip)),
        name_starts=frozenset(name_starts),
    )


def bound_names_key(names: set[str]) -> tuple[bytes, ...]:
    """The names bound by a file's imports, as sorted UTF-8 bytes (empty names dropped)."""
    return tuple(sorted(n.encode("utf-8", "surrogatepass") for n in names if n))


def identifier_references(analysis: ChunkAnalysis, chunk: bytes, names: tuple[bytes, ...]) -> list[tuple[int, int, str]]:
    """Plain uses (kind "identifier") of names bound by the file's imports, in one chunk: whole
    words equal to one of `names` that are not other references or definition names, nor inside
    comments or strings. (The caller, which sees the whole file, drops attribute names after a
    '.' and uses inside import statements, either of which can lie across a chunk boundary.)"""
    taken = {s for s, _, _ in analysis.references} | analysis.name_starts
    skip: SpanSet | None = None
    out: list[tuple[int, int, str]] = []
    size = len(chunk)
    for name in names:
        width = len(name)
        s = chunk.find(name)
        while s >= 0:
            e = s + width
            if (s in taken or (s > 0 and chunk[s - 1] in _WORD_BYTES)
                    or (e < size and chunk[e] in _WORD_BYTES)):
                s = chunk.find(name, s + 1)
                continue
            if skip is None:
                skip = SpanSet(merge_spans(analysis.skip))
            if not skip.contains(s):
                out.append((s, e, "identifier"))
            s = chunk.find(name, e)
    out.sort()
    return out
