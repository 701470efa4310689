"""Semantic tier: completions keyed by the normalised local context (`keys.semantic_cache_key`).

The key (pruning's `semantic_key`: the enclosing scope's syntax fingerprint, the normalised cursor
line, the fingerprints of the snippets used) ignores whitespace, comments and edits elsewhere in
the file, so one entry answers many prompts. Two consequences, both handled here:
- Indentation may differ between the prompt that produced the text and the current one, so text is
  stored in *relative form*: lines after the first lose the cursor line's indentation, and get the
  current cursor line's indentation back when served. Text that dedents below the cursor line
  cannot be moved that way and is not stored.
- The text after the cursor may differ, so every hit is re-checked against the current suffix
  (`recheck.apply_verify`) before it is served; a refused hit counts as `rejected` and a miss.
"""

from __future__ import annotations

from .keys import Dependencies
from .recheck import Verify, apply_verify
from .stats import TierStats
from .tagged_lru import TaggedLRU


def cursor_indent(prefix: str) -> str:
    """Leading whitespace of the cursor line (the last line of `prefix`)."""
    line = prefix[prefix.rfind("\n") + 1:]
    return line[: len(line) - len(line.lstrip(" \t"))]


def relative_form(text: str, indent: str) -> str | None:
    """Strip `indent` from every non-blank line after the first; None if one lacks it."""
    lines = text.split("\n")
    out = [lines[0]]
    for line in lines[1:]:
        if not line.strip():
            out.append("")
        elif line.startswith(indent):
            out.append(line[len(indent):])
        else:
            return None
    return "\n".join(out)


def absolute_form(relative: str, indent: str) -> str:
    """Inverse of `relative_form` for the cursor line's current indentation."""
    lines = relative.split("\n")
    return "\n".join([lines[0], *(indent + line if line.strip() else "" for line in lines[1:])])


def serve_semantic(relative: str, prefix: str, suffix: str, verify: Verify | None) -> str | None:
    """What a semantic hit turns into for the current cursor, or None when the re-check refuses."""
    return apply_verify(absolute_form(relative, cursor_indent(prefix)), suffix, verify)


class SemanticTier:
    name = "semantic"

    def __init__(self, capacity: int):
        self.stats = TierStats()
        self.lru = TaggedLRU(capacity, self.stats)

    def get(self, key: str, prefix: str, suffix: str, verify: Verify | None) -> str | None:
        entry = self.lru.get(key)
        if entry is None:
            self.stats.misses += 1
            return None
        served = serve_semantic(entry.text, prefix, suffix, verify)
        if served is None:
            self.stats.rejected += 1
            self.stats.misses += 1
            return None
        self.stats.hits += 1
        return served

    def put(self, key: str, text: str, prefix: str, deps: Dependencies) -> None:
        relative = relative_form(text, cursor_indent(prefix))
        if relative is not None:
            self.lru.put(key, relative, deps)
            self.stats.stores += 1

    def invalidate(self, path: str, fingerprint: str) -> int:
        return self.lru.invalidate(path, fingerprint)

    def snapshot(self) -> dict:
        return {**self.stats.as_dict(), "entries": len(self.lru), "bytes": self.lru.bytes}
