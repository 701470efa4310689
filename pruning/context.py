"""`build_context`: cursor -> `PromptParts` (prefix and suffix windows plus repository snippets).

Pure: same inputs, same output. Snippets are laid out stable-first (by path, then line), then the
current file's prefix, so consecutive requests at nearby cursors share a long prompt prefix.
This first version fills only the prefix/suffix windows; the scope ladder and cross-file
definitions come from the pruning pipeline built on the indexer.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import xxhash

from inference.api import CompletionRequest, ContextSnippet


@dataclass(frozen=True, slots=True)
class SnippetInfo:
    path: str
    symbol: str
    kind: str
    start_line: int
    end_line: int
    tokens: int
    reason: str
    text: str


@dataclass(slots=True)
class PromptParts:
    prefix: str
    suffix: str
    path: str = ""
    language: str = ""
    snippets: list[SnippetInfo] = field(default_factory=list)
    tokens: int = 0
    budget: int = 0
    depends_on: tuple[tuple[str, str], ...] = ()
    semantic_key: str = ""

    def to_request(self, **sampling: Any) -> CompletionRequest:
        snippets = tuple(ContextSnippet(s.path, s.text) for s in self.snippets)
        return CompletionRequest(prefix=self.prefix, suffix=self.suffix, path=self.path, language=self.language,
                                 snippets=snippets, depends_on=self.depends_on,
                                 semantic_key=self.semantic_key, **sampling)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for snippet in data["snippets"]:
            snippet.pop("text")
        return data


def approx_tokens(text: str) -> int:
    """A fast token estimate (about 3.5 characters per token for code)."""
    return (len(text) * 2 + 6) // 7


def build_context(path: str, text: str, offset: int, *, language: str = "", budget_tokens: int = 1024,
                  prefix_share: float = 0.7, suffix_share: float = 0.3, index: Any = None,
                  tokenizer: Any = None) -> PromptParts:
    """The context for a completion at code-point `offset` of `text` (the file at `path`)."""
    count = tokenizer.count if tokenizer is not None else approx_tokens
    total = prefix_share + suffix_share or 1.0
    prefix = _tail_lines(text[:offset], int(budget_tokens * prefix_share / total), count)
    suffix = _head_lines(text[offset:], int(budget_tokens * suffix_share / total), count)
    fingerprint = xxhash.xxh3_64_hexdigest(text.encode("utf-8", "surrogatepass"))
    return PromptParts(prefix=prefix, suffix=suffix, path=path, language=language, budget=budget_tokens,
                       tokens=count(prefix) + count(suffix), depends_on=((path, fingerprint),))


def _tail_lines(text: str, budget: int, count) -> str:
    """The longest run of whole lines at the end of `text` within `budget` (the cursor line always)."""
    lines = text.splitlines(keepends=True)
    kept: list[str] = []
    used = 0
    for i, line in enumerate(reversed(lines)):
        cost = count(line)
        if i > 0 and used + cost > budget:
            break
        kept.append(line)
        used += cost
    return "".join(reversed(kept))


def _head_lines(text: str, budget: int, count) -> str:
    lines = text.splitlines(keepends=True)
    kept: list[str] = []
    used = 0
    for i, line in enumerate(lines):
        cost = count(line)
        if i > 0 and used + cost > budget:
            break
        kept.append(line)
        used += cost
    return "".join(kept)
