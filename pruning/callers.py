"""Callers and tests of the function at the cursor: how the code being written is used.

Inside a named function's body, the places that call it show what it is given and what its
result must be (the arguments a caller passes, `v, err := parse(...)`, `assert total(...) == 3`),
which the next lines of its body have to fit. The calls are looked for in the other files that
can name it: those whose imports resolve to this file and, where a package is a directory (Go,
Java: `SAME_PACKAGE_LANGS`), the other files of this directory. Test files come first (a
function's tests say what it must do), then by path; at most `MAX_CALLERS` calls, one per
file, each shown as its call line with `CALL_CONTEXT_LINES` lines above it, worth
`CALLER_VALUE` for the first and `CALLER_DECAY` times less for each further one: low, below most
definitions and windows of similar code, though a call can still take budget a definition
would have had.

Invariants: only the innermost function or method counts, only when the cursor is in its body;
a name defined in more than `MAX_DEFINITIONS` places (`get`, `run`, `__init__`) offers no calls,
since they cannot be told from calls of its namesakes; a file's calls are read from its index
entry's references (a table of call lines per name, kept on the entry: `("call_lines",)`), and
its text from the file as the lookup reads it (`IndexLookup.source`), where a call whose name is
no longer at its offset (the file changed on disk since it was indexed) is skipped. Whether a
file is a test is read from its path below the directory it shares with the cursor's file.
"""

from __future__ import annotations

import os
import re

from indexer import SAME_PACKAGE_LANGS

from .candidates import Piece
from .delegation import FUNCTION_KINDS
from .index_lookup import IndexLookup
from .scopes import Scope

MAX_CALLERS = 2
CALL_CONTEXT_LINES = 2
CALLER_VALUE = 0.4
CALLER_DECAY = 0.7
MAX_DEFINITIONS = 2
MAX_CALLER_FILES = 64  # files looked through, test files first
TEST_FILE = re.compile(r"(^|/)(tests?|__tests__|spec)/|(^|/)test_[^/]*$|_test\.\w+$|\.(test|spec)\.\w+$")


def caller_pieces(lookup: IndexLookup, scopes: list[Scope], offset: int) -> list[Piece]:
    """Calls, in other files, of the innermost function or method whose body holds byte `offset`."""
    name = _function_at(scopes, offset)
    if name is None or not lookup.available:
        return []
    if len(lookup.definitions(name, MAX_DEFINITIONS + 1)) > MAX_DEFINITIONS:
        return []
    pieces: list[Piece] = []
    for path in _caller_files(lookup):
        call = _first_call(lookup, path, name)
        if call is None:
            continue
        first_line, last_line, text = call
        test = _is_test(path, lookup.path)
        pieces.append(Piece(path, f"calls {name} at line {last_line + 1}", "caller", first_line, last_line, text,
                            f"{'a test' if test else 'a caller'} of {name}, the function at the cursor",
                            CALLER_VALUE * CALLER_DECAY ** len(pieces), False, "full"))
        if len(pieces) >= MAX_CALLERS:
            break
    return pieces


def _function_at(scopes: list[Scope], offset: int) -> str | None:
    """The innermost scope's name when it is a named function or method with `offset` in its body."""
    if not scopes or scopes[0].kind not in FUNCTION_KINDS:
        return None
    scope = scopes[0]
    if not scope.name.isidentifier() or offset < scope.body_start_byte:
        return None
    return scope.name


def _caller_files(lookup: IndexLookup) -> list[str]:
    """The other files that can call this file's functions: test files first, then by path."""
    snapshot, path = lookup.snapshot, lookup.path
    files = {importer for importer, _ in snapshot.imports_from(path) if importer != path}
    files |= set(snapshot.import_value("package_files", path, lambda: _package_files(snapshot, path)))
    return sorted(files, key=lambda p: (not _is_test(p, path), p))[:MAX_CALLER_FILES]


def _package_files(snapshot, path: str) -> tuple[str, ...]:
    """The other files of `path`'s directory in its language, where a package is a directory
    (a value of the file's language and the set of files: kept with `import_value`)."""
    entry = snapshot.entry(path)
    if entry is None or entry.language not in SAME_PACKAGE_LANGS:
        return ()
    directory = os.path.dirname(path)
    return tuple(sorted(other for other, found in snapshot.entries.items() if other != path
                        and os.path.dirname(other) == directory and found.language == entry.language))


def _is_test(path: str, beside: str) -> bool:
    """Whether `path` is a test file, judged by its path below the directory it shares with
    `beside` (a workspace inside a `tests` directory does not make every file a test)."""
    try:
        below = os.path.relpath(path, os.path.commonpath([path, beside]))
    except ValueError:  # `beside` is a buffer with no path on disk (`untitled:`)
        below = path
    return bool(TEST_FILE.search(below))


def _first_call(lookup: IndexLookup, path: str, name: str) -> tuple[int, int, str] | None:
    """(first line, call line, text) of the first call of `name` in `path`: the call line and
    `CALL_CONTEXT_LINES` lines above it; None when `path` has none."""
    entry = lookup.snapshot.entry(path)
    if entry is None:
        return None
    table = entry.derived.get(("call_lines",))
    if table is None:
        table = entry.derived.setdefault(("call_lines",), _call_lines(entry.tags.references))
    calls = table.get(name)
    source = lookup.source(path) if calls else None
    if not source:
        return None
    spelled = name.encode("utf-8")
    line, byte = next(((line, byte) for line, byte in calls if source[byte:byte + len(spelled)] == spelled),
                      (-1, -1))
    if byte < 0:  # the file changed on disk since its entry was made
        return None
    start = source.rfind(b"\n", 0, byte) + 1
    for _ in range(CALL_CONTEXT_LINES):
        if start == 0:
            break
        start = source.rfind(b"\n", 0, start - 1) + 1
    end = source.find(b"\n", byte)
    text = source[start:len(source) if end < 0 else end].decode("utf-8", "replace")
    return line - text.count("\n"), line, text + "\n"


def _call_lines(references) -> dict[str, tuple[tuple[int, int], ...]]:
    """Name -> (line, byte) of each call of it, in order (from a file's references)."""
    rows = references.rows() if hasattr(references, "rows") else ((r.name, r.kind, r.line, r.byte) for r in references)
    table: dict[str, list[tuple[int, int]]] = {}
    for name, kind, line, byte in rows:
        if kind == "call":
            table.setdefault(name, []).append((line, byte))
    return {name: tuple(calls) for name, calls in table.items()}
