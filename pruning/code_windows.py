"""Code like the code at the cursor: the windows of related files most similar to it.

Code that looks like the lines around the cursor (a sibling file's same method, the other
`*_slice.go` of a package, the same pattern further up this file) often shows just there what
the next line will be. This file's own windows that the prompt's prefix and suffix windows do
not show are compared with the query as they are (`own_windows`). The lines around
the cursor (`QUERY_LINES` above, the cursor's line and the ones below it) are compared with
windows of `WINDOW_LINES` lines (stride `WINDOW_STRIDE`) of the related files (the files this
file imports, the other files of its own directory, then the workspace's other files in its
language nearest in the directory tree first, at most `MAX_FILES`) in two stages, as RepoCoder
retrieves: the `TOP_FILES` files whose identifiers best cover the query (shared identifiers over the square
root of the file's vocabulary, so a long file does not win by size alone), then their windows
by Jaccard similarity of identifier sets. What a snippet shows of a window (`window_parts`) is
the block around its line that stands where the cursor's line stands (`aligned_line`): the
sibling's counterpart of the line about to be written, with the lines that lead up to it.

A file's identifiers and its windows (their first lines and identifier sets) are kept on its
index entry (`FileEntry.derived`, keys `("similar_vocabulary",)` and `("similar_windows",)`, the
windows only for files whose windows were compared) and die with it; the related files of a
file are a value of its imports and the set of files (`IndexSnapshot.import_value`), and the
shared identifiers of the first stage are counted by the inverted index of the directory's
neighbourhood (`pruning.vocabulary_index`), a value of the set of files.
"""

from __future__ import annotations

import heapq
import math
import os
import re
from itertools import chain
from typing import NamedTuple

from indexer import GRAMMARS, FileEntry

from .index_lookup import IndexLookup
from .vocabulary_index import VocabularyIndex, neighbourhood, vocabulary_index

WORD = re.compile(rb"[A-Za-z_][A-Za-z_0-9]*")
WINDOW_LINES = 20
WINDOW_STRIDE = 20
QUERY_LINES = 10  # lines above and below the cursor compared with the windows
MAX_FILES = 400
TOP_FILES = 8  # the related files most like the query, whose windows are compared
ALIGNED_ABOVE = 0.7  # of a block of similar code aligned on the cursor's line, the share above that line

Window = tuple[int, frozenset[bytes], tuple[bytes, ...]]  # first line, identifiers, in order of first use


class Query(NamedTuple):
    """The lines around the cursor, as `similar_windows` and `window_parts` compare code with them."""

    words: frozenset[bytes]  # the identifiers of all of them
    lines: tuple[frozenset[bytes], ...]  # each line's identifiers, in order
    cursor: int  # the position of the cursor's line in `lines`


class SimilarWindow(NamedTuple):
    similarity: float  # Jaccard similarity of the window's identifiers and the query's
    path: str
    start_line: int
    words: tuple[bytes, ...]  # the window's identifiers, in order of first use


def cursor_query(source: bytes, cursor_byte: int) -> Query:
    """The `Query` of the lines around the cursor (at byte `cursor_byte` of `source`)."""
    lines = tuple(frozenset(WORD.findall(line)) for line in _around(source, cursor_byte, QUERY_LINES).split(b"\n"))
    line_start = source.rfind(b"\n", 0, cursor_byte) + 1
    return Query(frozenset().union(*lines), lines, min(QUERY_LINES, source.count(b"\n", 0, line_start)))


def similar_windows(lookup: IndexLookup, query: frozenset[bytes], top: int) -> list[SimilarWindow]:
    """The `top` windows of the related files most similar to `query`, most similar first
    (ties by path, then line)."""
    if not lookup.available or not query:
        return []
    scored: list[SimilarWindow] = []
    for score, path in nearest_files(lookup, query):
        for start, words, ordered in windows_of(lookup, path):
            common = len(words & query)
            if common:
                scored.append(SimilarWindow(common / (len(words) + len(query) - common), path, start, ordered))
    return heapq.nsmallest(top, scored, key=lambda w: (-w.similarity, w.path, w.start_line))


def nearest_files(lookup: IndexLookup, query: frozenset[bytes]) -> list[tuple[float, str]]:
    """The `TOP_FILES` related files with the best `file_score` for `query` (above zero), best
    first (ties: the greater path first), with their scores. The neighbourhood's index counts the
    shared identifiers; a related file outside it, or whose entry changed since it was indexed,
    is scored from its entry."""
    related, hood = related_files(lookup), neighbourhood_index(lookup)
    stale = hood.stale(lookup.snapshot.entries)
    scored = [(count / hood.norms[at], hood.paths[at]) for at, count in hood.shared(query).items()
              if at not in stale and hood.paths[at] in related.members]
    scored += [(score, path) for path in _not_indexed(related, hood, stale)
               if (score := file_score(vocabulary_of(lookup, path), query))]
    return heapq.nlargest(TOP_FILES, scored)


def _not_indexed(related: RelatedFiles, hood: VocabularyIndex, stale: set[int]):
    """The related files whose identifiers `hood` does not count: outside it, or at a position in
    `stale` (their entry changed since it was indexed)."""
    return chain(related.outside, (path for at in stale if (path := hood.paths[at]) in related.members))


def own_windows(lookup: IndexLookup, query: frozenset[bytes], visible: tuple[int, int],
                top: int) -> list[SimilarWindow]:
    """The `top` windows of this file itself (as the index holds it) most similar to `query` that
    share no line with `visible` (the first and last line the prompt's prefix and suffix windows
    show), most similar first (ties by line): code far from the cursor that the windows leave out."""
    if not lookup.available or not query:
        return []
    scored = []
    for start, words, ordered in windows_of(lookup, lookup.path):
        common = len(words & query)
        if common and (start + WINDOW_LINES <= visible[0] or start > visible[1]):
            scored.append(SimilarWindow(common / (len(words) + len(query) - common), lookup.path, start, ordered))
    return heapq.nsmallest(top, scored, key=lambda w: (-w.similarity, w.start_line))


def file_score(vocabulary: frozenset[bytes], query: frozenset[bytes]) -> float:
    """How well a file with identifiers `vocabulary` covers `query`: the identifiers they share
    over the square root of the vocabulary's size (plus one)."""
    return len(vocabulary & query) / (math.sqrt(len(vocabulary)) + 1.0)


class RelatedFiles(NamedTuple):
    paths: tuple[str, ...]
    members: frozenset[str]
    outside: tuple[str, ...]  # those not in the file's neighbourhood (imported from further away)


def related_files(lookup: IndexLookup) -> RelatedFiles:
    """The files this one imports, then the rest of its neighbourhood (`neighbourhood_index`:
    the other files of its directory, then the workspace's other files written in its language,
    a `.tsx` file counting as TypeScript, nearest first), at most `MAX_FILES` (a value of the
    file's imports, language and the set of files, kept as such on the snapshot)."""
    snapshot, path = lookup.snapshot, lookup.path

    def make() -> RelatedFiles:
        hood = neighbourhood_index(lookup).paths
        out = dict.fromkeys(other for other in snapshot.imports_of(path) if other != path)
        out.update(dict.fromkeys(other for other in hood if other != path))
        paths, indexed = tuple(out)[:MAX_FILES], frozenset(hood)
        return RelatedFiles(paths, frozenset(paths), tuple(other for other in paths if other not in indexed))

    return snapshot.import_value("similar_files", path, make)


def neighbourhood_index(lookup: IndexLookup) -> VocabularyIndex:
    """The vocabulary index of the `MAX_FILES + 1` files nearest the file's directory in it or
    of its language; a value of the set of files, kept on the snapshot."""
    snapshot = lookup.snapshot
    directory, family = os.path.dirname(lookup.path), _family(snapshot.entries.get(lookup.path))

    def make() -> VocabularyIndex:
        paths = neighbourhood(snapshot, directory, family, MAX_FILES + 1, _family)
        return vocabulary_index(snapshot, paths, lambda path: vocabulary_of(lookup, path))

    return snapshot.layout_value("similar_neighbourhood", (directory, family), make)


def _family(entry: FileEntry | None) -> str | None:
    """The language family of a file (its tags query's name: TypeScript for `.ts` and `.tsx`)."""
    grammar = GRAMMARS.get(entry.language) if entry is not None else None
    return grammar.query_file if grammar is not None else None


def vocabulary_of(lookup: IndexLookup, path: str) -> frozenset[bytes]:
    """The identifiers of `path`'s entry text; kept on the entry."""
    entry = lookup.snapshot.entry(path)
    if entry is None:
        return frozenset()
    kept = entry.derived.get(("similar_vocabulary",))
    if kept is None:
        kept = entry.derived.setdefault(("similar_vocabulary",),
                                        frozenset(WORD.findall(lookup.snapshot.source(path) or b"")))
    return kept


def warm_vocabularies(lookup: IndexLookup) -> None:
    """Do what a query would do first: index the neighbourhood of `lookup`'s file, and read the
    identifiers (`vocabulary_of`) of its related files that the index does not count (outside
    the neighbourhood, or changed since it was indexed)."""
    if lookup.available:
        related, hood = related_files(lookup), neighbourhood_index(lookup)
        for path in _not_indexed(related, hood, hood.stale(lookup.snapshot.entries)):
            vocabulary_of(lookup, path)


def windows_of(lookup: IndexLookup, path: str) -> list[Window]:
    """`path`'s windows (the i-th starts at line i * WINDOW_STRIDE) with their identifiers; kept
    on the entry (made only for the files a query comes to compare windows of)."""
    entry = lookup.snapshot.entry(path)
    if entry is None:
        return []
    kept = entry.derived.get(("similar_windows",))
    if kept is None:
        lines = (lookup.snapshot.source(path) or b"").split(b"\n")
        windows = []
        for start in range(0, max(1, len(lines) - WINDOW_LINES + WINDOW_STRIDE), WINDOW_STRIDE):
            ordered = tuple(dict.fromkeys(WORD.findall(b"\n".join(lines[start:start + WINDOW_LINES]))))
            windows.append((start, frozenset(ordered), ordered))
        kept = entry.derived.setdefault(("similar_windows",), windows)
    return kept


def window_parts(lookup: IndexLookup, window: SimilarWindow, query: Query, sizes: tuple[int, ...],
                 bounds: tuple[int, int | None] = (0, None)) -> list[tuple[int, int, str]]:
    """For each size in `sizes` (increasing), a block of that many lines of the window's file
    (at most, and within its lines `bounds`, first and past the last, None for the end) that
    holds the block of the size before: around the window's line that stands where the cursor's
    line stands among its neighbours (`aligned_line`), `ALIGNED_ABOVE` of the block above that
    line, or, when no line aligns, the window's lines that share the most identifiers with the
    query (the first such block). As (first line, last line, text) with blank lines at the
    block's ends dropped, each block once."""
    lines = (lookup.snapshot.source(window.path) or b"").split(b"\n")
    low, high = bounds[0], len(lines) if bounds[1] is None else min(bounds[1], len(lines))
    count = min(WINDOW_LINES, high - window.start_line)
    at = aligned_line(lines, window.start_line, count, query)
    if at is not None:
        blocks = [_block_around(at, min(size, high - low), low, high) for size in sizes]
    else:
        blocks = _most_shared_blocks(lines[window.start_line:window.start_line + count], window.start_line,
                                     query.words, sizes)
    out: list[tuple[int, int, str]] = []
    for start, end in blocks:
        while start < end and not lines[start].strip():
            start += 1
        while end > start and not lines[end - 1].strip():
            end -= 1
        part = (start, end - 1, b"\n".join(lines[start:end]).decode("utf-8", "replace") + "\n")
        if start < end and (not out or out[-1][:2] != part[:2]):
            out.append(part)
    return out


def aligned_line(lines: list[bytes], start: int, count: int, query: Query) -> int | None:
    """The line of `lines[start:start + count]` that stands where the cursor's line stands: the
    one whose neighbours (and itself) share the most identifiers with the cursor's neighbours
    (and the cursor's line) at the same distance, each pair scored by Jaccard similarity over
    the distance (one for the line itself), or None when no pair shares one."""
    low = max(0, start - query.cursor)
    words = [frozenset(WORD.findall(line)) for line in lines[low:start + count + len(query.lines)]]
    best, best_at = 0.0, None
    for at in range(start, start + count):
        score = 0.0
        for position, wanted in enumerate(query.lines):
            there = at + position - query.cursor - low
            if wanted and 0 <= there < len(words):
                common = len(words[there] & wanted)
                if common:
                    score += common / len(words[there] | wanted) / max(1, abs(position - query.cursor))
        if score > best:
            best, best_at = score, at
    return best_at


def _block_around(line: int, size: int, low: int, high: int) -> tuple[int, int]:
    """The `size` lines between `low` and `high` (past the last) with `line` `ALIGNED_ABOVE` of
    the way down, as (start, end)."""
    start = min(max(low, line - int(size * ALIGNED_ABOVE)), high - size)
    return start, start + size


def _most_shared_blocks(lines: list[bytes], first: int, words: frozenset[bytes],
                        sizes: tuple[int, ...]) -> list[tuple[int, int]]:
    """Per size, the block of `lines` (the file's lines from line `first`) sharing the most
    identifiers with `words` (the first such), holding the block of the size before."""
    shared = [len(words.intersection(WORD.findall(line))) for line in lines]
    blocks: list[tuple[int, int]] = []
    for size in sizes:
        size = min(size, len(lines))
        low, high = 0, len(lines) - size
        if blocks:
            inner_start, inner_end = blocks[-1]
            low, high = max(low, inner_end - size), min(high, inner_start)
        best = max(range(low, high + 1), key=lambda at: (sum(shared[at:at + size]), -at))
        blocks.append((best, best + size))
    return [(first + start, first + end) for start, end in blocks]


def _around(source: bytes, offset: int, lines: int) -> bytes:
    """The `lines` lines before the one holding byte `offset` of `source`, that line and the
    `lines - 1` after it (`lines` when `offset` is at that line's end)."""
    start = offset
    for _ in range(lines + 1):
        start = source.rfind(b"\n", 0, start)
        if start < 0:
            break
    end = offset
    for _ in range(lines):
        end = source.find(b"\n", end + 1)
        if end < 0:
            end = len(source)
            break
    return source[start + 1:end]
