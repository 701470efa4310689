"""Builders shared by the cache tests."""

from __future__ import annotations

from inference.api import CompletionRequest, ContextSnippet
from inference.cache import CacheSettings, CompletionCache

MODEL = "test-model"
TEMPLATE = "qwen"


def request(prefix: str, suffix: str = "", *, path: str = "/ws/a.py", deps=(), semantic_key: str = "",
            multiline: bool = True, snippets=()) -> CompletionRequest:
    return CompletionRequest(prefix=prefix, suffix=suffix, path=path, language="python",
                             snippets=tuple(ContextSnippet(p, t) for p, t in snippets),
                             depends_on=tuple(deps), semantic_key=semantic_key, multiline=multiline)


def render(req: CompletionRequest) -> str:
    """A stand-in FIM template: snippets, then prefix/suffix around the hole."""
    context = "".join(f"# {s.path}\n{s.text}\n" for s in req.snippets)
    return f"{context}<PRE>{req.prefix}<SUF>{req.suffix}<MID>"


def memory_cache(**overrides) -> CompletionCache:
    return CompletionCache(CacheSettings(disk=False, **overrides))
