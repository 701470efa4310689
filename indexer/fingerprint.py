"""Semantic fingerprint of a file: what changes it and, as importantly, what does not.

The fingerprint is xxh3_64 (hex) over the token sequence
  ("def", kind, name) for each definition, in document order,
  ("import", kind, module, names, local names, alias, wildcard) for each import,
  ("id", word) for each identifier-like word of the code outside comments and strings, in order.
The words are found by `code_words` on the source with comment and string nodes cut out (the tree
says where those are); a word is a maximal run of letters, digits, `_`, `$` and non-ASCII bytes
that does not start with a digit, so keywords count as words and numbers do not.

Invariants:
- Whitespace, comments, string contents, number literals, punctuation and all positions are not
  in the sequence, so re-indenting, editing a comment or typing inside a string leaves the
  fingerprint unchanged.
- Renaming, adding or removing any identifier, keyword, definition or import changes it (up to
  hash collisions of a 64-bit hash).
- Tokens are joined with separators that cannot occur in UTF-8 identifiers (0x1e, 0x1f), so the
  sequence is unambiguous.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import re

import xxhash

if TYPE_CHECKING:
    from indexer.tags import Definition, Import

_FIELD = b"\x1f"
_TOKEN = b"\x1e"
EMPTY_FINGERPRINT = xxhash.xxh3_64_hexdigest(b"")
_WORD = re.compile(rb"(?<![\w$\x80-\xff])[A-Za-z_$\x80-\xff][\w$\x80-\xff]*")


def code_words(code: bytes) -> list[bytes]:
    """Identifier-like words of `code` (source with comments and strings already cut out)."""
    return _WORD.findall(code)


def semantic_fingerprint(
    definitions: Iterable[Definition],
    imports: Iterable[Import],
    identifiers: Iterable[bytes],
) -> str:
    """xxh3_64 hex digest of the semantic token sequence (see module docstring)."""
    parts: list[bytes] = []
    for d in definitions:
        parts.append(_FIELD.join((b"def", d.kind.encode(), d.name.encode())))
    for imp in imports:
        parts.append(
            _FIELD.join(
                (
                    b"import",
                    imp.kind.encode(),
                    imp.module.encode(),
                    ",".join(imp.names).encode(),
                    ",".join(imp.local_names).encode(),
                    (imp.alias or "").encode(),
                    b"*" if imp.wildcard else b"",
                )
            )
        )
    parts.append(b"id")
    parts.extend(identifiers)
    return xxhash.xxh3_64_hexdigest(_TOKEN.join(parts))


def content_hash(source: bytes) -> str:
    """xxh3_128 hex digest of raw bytes: the key of a file's content in the warm-start snapshot."""
    return xxhash.xxh3_128_hexdigest(source)
