"""Names the workspace expects this file to define: what other files import from it that it
does not define (yet).

A file that others import `ThrottleConfig` from, but that does not define `ThrottleConfig`, is
being written (or was cut) where that definition goes: the name is a likely next line, and the
importers' statements show how the rest of the workspace spells it. Each such statement, as its
importer writes it, is a candidate worth `EXPECTED_VALUE`. A name counts as defined when this
buffer's tree defines it (`local`, top level and class members), the index's entry for the file
defines it, one of the file's own imports binds it, or the buffer's text writes it where a
definition or an import does (`written_in`: a line that declares it after a keyword, assigns
it, or imports or exports it; a tree that a half-written line breaks, and a definition inside
a module-level `if` or `try`, do not show it); nothing is expected of a file that
re-exports another module whole (`export * from`, `from m import *`), nor names that are
modules: the file's own (`from pkg import models` of models.py) or those beside it. A statement's
lines are kept on its importer's entry (`FileEntry.derived`) and die with it.
"""

from __future__ import annotations

import os
import re

from .candidates import Piece
from .index_lookup import IndexLookup, module_stem

EXPECTED_VALUE = 1.0
MAX_STATEMENTS = 3  # importers' statements shown (the first importers by path), none written alike
STATEMENT_LINES = 8  # a longer statement shows its first line, the lines naming expected names and its last
# a module beside this file: `name` + one of these is a file of its directory
MODULE_ENDINGS = (".py", "/__init__.py", ".ts", ".tsx", ".js", "/index.ts", "/index.js", ".rs", "/mod.rs")
_NAME = re.compile(r"[A-Za-z_$][\w$]*\Z")
_OPEN, _CLOSE = "([{", ")]}"


def expected_pieces(lookup: IndexLookup, local: dict[str, list[object]], buffer: str) -> list[Piece]:
    """The import statements of other files that name what this file (whose text is `buffer`)
    does not define."""
    snapshot = lookup.snapshot
    statements = snapshot.imports_from(lookup.path) if snapshot is not None else ()
    entry = snapshot.entry(lookup.path) if statements else None
    if not statements or entry is not None and any(imp.wildcard for imp in entry.tags.imports):
        return []
    defined = set(local)
    if entry is not None:
        defined |= set(entry.names) | entry.bound_names
    stem = module_stem(lookup.path)  # `from pkg import models` imports the module models.py is
    directory = os.path.dirname(lookup.path)

    def is_module(name: str, module: str) -> bool:
        if name == stem:
            return stem not in module
        return any(snapshot.entry(os.path.join(directory, name + ending)) is not None for ending in MODULE_ENDINGS)

    pieces: list[Piece] = []
    for importer, imp in statements:
        missing = [name for name in dict.fromkeys(imp.names)
                   if _NAME.match(name) and name != "default" and name not in defined
                   and not is_module(name, imp.module)]
        missing = [name for name in missing if not written_in(buffer, name)]
        if not missing:
            continue
        shown = _kept_statement(snapshot, importer, imp.line, imp.module, missing)
        if shown is None:
            continue
        first, last, text = shown
        if any(piece.text == text for piece in pieces):
            continue
        pieces.append(Piece(importer, ", ".join(missing), "expected", first, last, text,
                            f"imports {', '.join(missing)} from this file, which does not define it",
                            EXPECTED_VALUE, False, "lines"))
        if len(pieces) == MAX_STATEMENTS:
            break
    return pieces


# a keyword that declares the name after it (Python, TypeScript, JavaScript, Go, Rust, Java, C++)
_DECLARING = (r"(?:def|class|function\*?|const|let|var|type|interface|enum|struct|union|trait|fn|func|mod"
              r"|static|namespace|macro_rules!)")


def written_in(text: str, name: str) -> bool:
    """Whether `text` defines or imports `name` on a line of its own: a declaring keyword before
    it (`def name`, `export const name`, `pub fn name`), an assignment to it (`name = `,
    `name: T = `, `name := `), an import line or export list (`export { name }`) that names it,
    or an aliased import of it (`name as x`)."""
    if name not in text:
        return False
    word = re.escape(name)
    return re.search(rf"^[ \t]*(?:(?:export|default|async|pub(?:\([^)\n]*\))?|public|private|protected|abstract|final|declare|unsafe|extern)\s+)*"
                     rf"{_DECLARING}\s+{word}\b"
                     rf"|^[ \t]*{word}[ \t]*(?::[^=\n]*)?:?=(?!=)"
                     rf"|^[ \t]*(?:from\b|import\b|use\b|pub use\b|export\s*(?:type\s*)?[{{*])[^\n]*\b{word}\b"
                     rf"|\b{word}\s+as\s", text, re.MULTILINE) is not None


def _kept_statement(snapshot, importer: str, line: int, module: str,
                    names: list[str]) -> tuple[int, int, str] | None:
    """`_statement` of `importer`'s source, kept on its entry (a buffer that misses a name asks
    for the same statement at every keystroke)."""
    entry = snapshot.entry(importer)
    if entry is None:
        return None
    key = ("expected_statement", line, module, tuple(names))
    if key in entry.derived:
        return entry.derived[key]
    return entry.derived.setdefault(key, _statement(snapshot.source(importer) or b"", line, module, names))


def _statement(source: bytes, line: int, module: str, names: list[str]) -> tuple[int, int, str] | None:
    """(first line, last line, text) of the import statement that starts at `line` of `source`:
    the lines up to the one where its brackets close once `module` has been written."""
    lines = source.decode("utf-8", "replace").split("\n")
    depth, seen = 0, False
    for end in range(line, len(lines)):
        text = lines[end]
        depth += sum(text.count(c) for c in _OPEN) - sum(text.count(c) for c in _CLOSE)
        seen = seen or module in text
        if seen and depth <= 0:
            break
    else:
        return None
    shown = lines[line:end + 1]
    if len(shown) > STATEMENT_LINES:
        inner = [text for text in shown[1:-1] if any(re.search(rf"\b{re.escape(n)}\b", text) for n in names)]
        shown = [shown[0], *inner, shown[-1]]
    return line, end, "\n".join(shown) + "\n"
