"""What a scan's worker process runs: parse + tags of a chunk of files, as snapshot-format bytes.

Invariants:
- `parse_chunk(jobs)[i]` is `store.encode_tags(extract_tags(lang, parse(lang, data), data))` for
  `jobs[i] == (lang, data)`: exactly what a sequential scan computes, in the snapshot's format, so
  the scanning process decodes it with `decode_tags` and can store the same bytes.
- Pure: no state is kept between chunks except tree-sitter parsers and compiled queries.
"""

from __future__ import annotations

from collections.abc import Sequence

from indexer import languages
from indexer.store import encode_tags
from indexer.tags import extract_tags

# Imported once by the forkserver, so each worker starts with tree-sitter and the grammars loaded.
PRELOAD: tuple[str, ...] = (
    "indexer.scan_worker",
    *languages.GRAMMAR_MODULES,
)


def parse_encoded(lang: str, data: bytes) -> bytes:
    """The tags of `data`, encoded as the snapshot stores them."""
    return encode_tags(extract_tags(lang, languages.parse(lang, data), data))


def parse_chunk(jobs: Sequence[tuple[str, bytes]]) -> list[bytes]:
    """`parse_encoded` of each (language, source) job, in order."""
    return [parse_encoded(lang, data) for lang, data in jobs]
