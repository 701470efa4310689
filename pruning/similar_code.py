"""Names from code like the code at the cursor: a candidate source for the line not typed yet.

Code that looks like the lines around the cursor (a sibling file's same method, the other
`*_slice.go` of a package) often uses, just there, the names the next line will use. The lines
around the cursor are compared with windows of `WINDOW_LINES` lines (stride `WINDOW_STRIDE`) of
the related files (the files this file imports, then the files of its own directory, at most
`MAX_FILES`) that share the most identifiers with those lines (`TOP_FILES`), by Jaccard
similarity of their identifier sets, as RepoCoder retrieves. The names of the `TOP_WINDOWS` most similar windows that the lines around
the cursor do not use, and that the index defines, are the likely next names this source offers,
each as a use `SIMILAR_DISTANCE` lines away (nearer for a more similar window).

A file's identifiers and windows (their first lines and identifier sets) are kept on its index entry
(`FileEntry.derived`, key `("similar_windows",)`) and die with it; the related files of a file
are a value of its imports and the set of files (`IndexSnapshot.import_value`).
"""

from __future__ import annotations

import heapq
import os
import re

from .index_lookup import IndexLookup
from .names_near import NameUse

WORD = re.compile(rb"[A-Za-z_][A-Za-z_0-9]*")
WINDOW_LINES = 20
WINDOW_STRIDE = 20
QUERY_LINES = 10  # lines above and below the cursor compared with the windows
MAX_FILES = 48
TOP_FILES = 3  # the related files sharing most identifiers with the query, whose windows are compared
TOP_WINDOWS = 3
MAX_SIMILAR_NAMES = 6
SIMILAR_DISTANCE = 16  # the distance of a name from the most similar window; +4 per window further
MIN_SIMILARITY = 0.15


def similar_code_uses(lookup: IndexLookup, source: bytes, cursor_byte: int, cursor_line: int, known: set[str],
                      builtins: frozenset[str] = frozenset()) -> list[NameUse]:
    """Likely next names from the windows most like the lines around the cursor (at byte
    `cursor_byte` of `source`, on line `cursor_line`; see the module docstring); none in `known`
    (names the context already has as candidates) or in `builtins`, each defined somewhere the
    index knows."""
    if not lookup.available:
        return []
    query = frozenset(WORD.findall(_around(source, cursor_byte, QUERY_LINES)))
    if not query:
        return []
    by_file = [(path, windows_of(lookup, path)) for path in related_files(lookup)]
    # two stages: the files sharing most words with the query, then their windows
    nearest = heapq.nlargest(TOP_FILES, ((len(vocabulary & query), path, windows)
                                         for path, (vocabulary, windows) in by_file))
    scored: list[tuple[float, str, int]] = []
    for shared, path, windows in nearest:
        if not shared:
            continue
        for start, words, _ in windows:
            common = len(words & query)
            if common:
                scored.append((common / (len(words) + len(query) - common), path, start))
    uses: list[NameUse] = []
    seen: set[bytes] = set()
    for rank, (similarity, path, start) in enumerate(heapq.nlargest(TOP_WINDOWS, scored)):
        if similarity < MIN_SIMILARITY:
            break
        _, windows = windows_of(lookup, path)
        for word in windows[start // WINDOW_STRIDE][2]:
            if word in query or word in seen or len(word) <= 2:
                continue
            seen.add(word)
            name = word.decode("ascii")
            if name in known or name in builtins or not lookup.snapshot.defines(name) or not lookup.definitions(name):
                continue
            if len(uses) == MAX_SIMILAR_NAMES:
                return uses
            uses.append(NameUse(name=name, kind="similar", line=cursor_line, distance=SIMILAR_DISTANCE + 4 * rank))
    return uses


def related_files(lookup: IndexLookup) -> tuple[str, ...]:
    """The files this one imports, then the other files of its directory, at most `MAX_FILES`
    (a value of the file's imports and the set of files, kept as such on the snapshot)."""
    snapshot, path = lookup.snapshot, lookup.path

    def make() -> tuple[str, ...]:
        first = snapshot.imports_of(path)
        directory = os.path.dirname(path)
        siblings = sorted(p for p in snapshot.entries if os.path.dirname(p) == directory)
        out: list[str] = []
        for other in (*first, *siblings):
            if other != path and other not in out:
                out.append(other)
        return tuple(out[:MAX_FILES])

    return snapshot.import_value("similar_files", path, make)


Window = tuple[int, frozenset[bytes], tuple[bytes, ...]]  # first line, identifiers, in order of first use


def windows_of(lookup: IndexLookup, path: str) -> tuple[frozenset[bytes], list[Window]]:
    """The identifiers of `path`'s entry text, and its windows (the i-th starts at line
    i * WINDOW_STRIDE); kept on the entry."""
    entry = lookup.snapshot.entry(path)
    if entry is None:
        return frozenset(), []
    kept = entry.derived.get(("similar_windows",))
    if kept is None:
        lines = (lookup.snapshot.source(path) or b"").split(b"\n")
        windows = []
        for start in range(0, max(1, len(lines) - WINDOW_LINES + WINDOW_STRIDE), WINDOW_STRIDE):
            ordered = tuple(dict.fromkeys(WORD.findall(b"\n".join(lines[start:start + WINDOW_LINES]))))
            windows.append((start, frozenset(ordered), ordered))
        vocabulary = frozenset().union(*(words for _, words, _ in windows))
        kept = entry.derived.setdefault(("similar_windows",), (vocabulary, windows))
    return kept


def _around(source: bytes, offset: int, lines: int) -> bytes:
    """The `lines` lines before the one holding byte `offset` of `source`, that line and the
    `lines - 1` after it."""
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
