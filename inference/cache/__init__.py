"""The completion cache: typing-through, exact, on-disk, semantic and shared (Redis) tiers.

Public API: `CompletionCache(settings)` with `lookup`, `store`, `note_shown`, `note_partial`,
`invalidate`, `stats`, `close`; `CacheHit`; `CacheSettings`. See tiered.py for the order and the
invariants, keys.py for what each key covers.
"""

from .settings import CacheSettings
from .tiered import CacheHit, CompletionCache

__all__ = ["CacheHit", "CacheSettings", "CompletionCache"]
