"""`CacheSettings`: the `cache` section of the settings tree (camelCase on the wire).

Every tier can be switched off on its own; `enabled = False` switches the whole cache off. Sizes
are upper bounds: the memory tiers evict least recently used entries, the disk tier culls by
diskcache's least-recently-stored policy once `diskSizeMB` is reached, and entries older than
`ttlS` (disk) or `redisTtlS` (shared) are never served.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


def default_disk_dir() -> str:
    """`<user cache dir>/arbor-ls/completions` (platformdirs), e.g. ~/.cache/arbor-ls/completions."""
    try:
        from platformdirs import user_cache_dir
    except ImportError:  # pragma: no cover - platformdirs is a core dependency
        return str(Path.home() / ".cache" / "arbor-ls" / "completions")
    return str(Path(user_cache_dir("arbor-ls", appauthor=False)) / "completions")


@dataclass(slots=True, kw_only=True)
class CacheSettings:
    enabled: bool = True
    # typing-through: completions on screen that the user may type into
    typing: bool = True
    typing_entries: int = 64
    # exact: in-memory LRU keyed by the full prompt
    memory_entries: int = 4096
    # on-disk: the exact key in diskcache, surviving restarts
    disk: bool = True
    disk_dir: str = ""  # "" = the user cache directory (see default_disk_dir)
    disk_size_mb: int = 256
    disk_timeout_ms: int = 100
    ttl_s: int = 7 * 24 * 3600
    # semantic: key from the normalised local context (computed by pruning)
    semantic: bool = True
    semantic_entries: int = 4096
    # shared: Redis, "" = off (needs the `redis` extra)
    redis_url: str = ""
    redis_ttl_s: int = 24 * 3600
    redis_timeout_ms: int = 100
    redis_retry_s: float = 30.0
    redis_namespace: str = "arbor"

    def __post_init__(self) -> None:
        for name in ("typing_entries", "memory_entries", "semantic_entries", "disk_size_mb",
                     "disk_timeout_ms", "ttl_s", "redis_ttl_s", "redis_timeout_ms"):
            if getattr(self, name) <= 0:
                raise ValueError("must be positive")
        if self.redis_retry_s < 0:
            raise ValueError("must not be negative")
        if self.redis_url and not self.redis_url.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("redisUrl must start with redis://, rediss:// or unix://")
        if not self.redis_namespace or ":" in self.redis_namespace:
            raise ValueError("redisNamespace must be non-empty and contain no ':'")

    @property
    def resolved_disk_dir(self) -> str:
        return self.disk_dir or default_disk_dir()
