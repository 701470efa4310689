"""Shared tier: exact and semantic keys in a Redis server, so a team behind one model server
shares completions (needs the `redis` extra).

Invariants:
- Only hashed keys and completion text leave the machine: keys are
  `<namespace>:x:<exact key>` and `<namespace>:s:<semantic key>` (32-hex xxh3 digests that already
  fold in the dependency fingerprints: *versioned keys*, so entries built from an old version of
  a file are simply never asked for again), values are the UTF-8 completion text, every key is
  written with `EX ttl_s`.
- An outage costs at most one request timeout (`timeout_ms`, for connect and for each reply; no
  client-side retries) and one log line: after a failure the tier is `down` and skipped without any
  network traffic until `retry_s` has passed; then one request probes it again. Recovery is
  logged once too.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from .stats import TierStats

log = logging.getLogger(__name__)

KIND_EXACT = "x"
KIND_SEMANTIC = "s"


def make_redis_client(url: str, timeout_s: float) -> Any:
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return redis.Redis.from_url(url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s,
                                retry=Retry(NoBackoff(), 0), retry_on_timeout=False,
                                health_check_interval=0)


class SharedTier:
    name = "shared"

    def __init__(self, url: str, *, ttl_s: int, timeout_ms: int, retry_s: float, namespace: str,
                 client_factory: Callable[[str, float], Any] = make_redis_client,
                 clock: Callable[[], float] = time.monotonic):
        self.url = url
        self.ttl_s = ttl_s
        self.retry_s = retry_s
        self.namespace = namespace
        self.stats = TierStats()
        self.skipped = 0
        self.outages = 0
        self._clock = clock
        self._down_until: float | None = None
        self._client: Any = None
        try:
            self._client = client_factory(url, timeout_ms / 1000)
            self.status = "ok"
        except ImportError:
            self.status = "disabled"
            log.warning("shared cache needs the redis package (pip install 'arbor-ls[redis]'); continuing without it")
        except Exception as exc:  # a malformed URL
            self.status = "disabled"
            log.warning("shared cache %s cannot be used (%s); continuing without it", _redact(url), exc)

    def _key(self, kind: str, key: str) -> str:
        return f"{self.namespace}:{kind}:{key}"

    def _available(self) -> bool:
        if self._client is None:
            return False
        if self._down_until is not None and self._clock() < self._down_until:
            self.skipped += 1
            return False
        return True

    def _failed(self, exc: Exception) -> None:
        self.stats.errors += 1
        if self._down_until is None:
            self.outages += 1
            log.warning("shared cache %s is unreachable (%s); using local tiers, retrying every %gs",
                        _redact(self.url), type(exc).__name__, self.retry_s)
        self.status = "down"
        self._down_until = self._clock() + self.retry_s

    def _succeeded(self) -> None:
        if self._down_until is not None:
            log.info("shared cache %s is reachable again", _redact(self.url))
            self._down_until = None
        self.status = "ok"

    def get(self, kind: str, key: str) -> str | None:
        found = self.get_first([(kind, key)])
        return None if found is None else found[1]

    def get_first(self, items: list[tuple[str, str]]) -> tuple[str, str] | None:
        """(kind, text) of the first of the (kind, key) items that Redis holds, in one round trip."""
        if not items or not self._available():
            return None
        try:
            values = self._client.mget([self._key(kind, key) for kind, key in items])
        except Exception as exc:  # redis.RedisError, OSError
            self._failed(exc)
            self.stats.misses += 1
            return None
        self._succeeded()
        for (kind, _key), raw in zip(items, values):
            if raw is None:
                continue
            try:
                text = raw.decode("utf-8") if isinstance(raw, bytes) else str(raw)
            except UnicodeDecodeError:
                self.stats.rejected += 1
                continue
            self.stats.hits += 1
            return kind, text
        self.stats.misses += 1
        return None

    def put(self, items: list[tuple[str, str, str]]) -> None:
        """Write (kind, key, text) items in one round trip."""
        if not items or not self._available():
            return
        try:
            pipe = self._client.pipeline(transaction=False)
            for kind, key, text in items:
                pipe.set(self._key(kind, key), text.encode("utf-8", "surrogatepass"), ex=self.ttl_s)
            pipe.execute()
        except Exception as exc:
            self._failed(exc)
            return
        self._succeeded()
        self.stats.stores += len(items)

    def snapshot(self) -> dict:
        return {**self.stats.as_dict(), "status": self.status, "skipped": self.skipped,
                "outages": self.outages}

    def close(self) -> None:
        if self._client is not None:
            try:
                self._client.close()
            except Exception:
                pass
            self._client = None


def _redact(url: str) -> str:
    """The URL without a password (redis://:secret@host -> redis://***@host)."""
    scheme, sep, rest = url.partition("://")
    if sep and "@" in rest:
        return f"{scheme}://***@{rest.rsplit('@', 1)[1]}"
    return url
