"""`CompletionCache`: the tiers behind one facade, consulted cheapest first.

Lookup order: typing-through -> exact (memory) -> disk -> semantic (memory) -> shared (exact key,
then semantic key). A hit in a slower tier is copied into the faster ones that use the same key
(disk -> exact and semantic; shared exact -> exact, disk and semantic; shared semantic -> semantic).

Invariants:
- No tier serves text built from a version of a depended-on file other than the one the request
  was built from: keys fold in the dependency fingerprints, `invalidate(path, fp)` evicts local
  entries built from another version of `path`, and a request whose dependencies contradict the
  newest fingerprints reported by `invalidate` is answered by no tier and stored in none (it was
  built from outdated context; its result would be stale the moment it was cached).
- Text that was not produced for exactly this prompt (semantic hits, the unshown tail of a
  typing-through completion) is re-checked against the current suffix before it is served.
- Nothing here raises into the caller for I/O problems: failing tiers log once and step aside.
- Not thread-safe by design: the server calls it from its event loop.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from ..api import CompletionRequest
from .disk import DiskTier
from .exact import ExactTier
from .keys import canonical_path, conflicts, exact_key, foreign_dependencies, semantic_cache_key
from .recheck import Verify
from .semantic import SemanticTier, cursor_indent, relative_form, serve_semantic
from .settings import CacheSettings
from .shared import KIND_EXACT, KIND_SEMANTIC, SharedTier
from .stats import TIERS, LatencyWindow
from .typing_through import TypingThroughTier

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class CacheHit:
    """A cached answer: `text` to serve, and the `tier` that had it (one of stats.TIERS)."""

    text: str
    tier: str


class CompletionCache:
    def __init__(self, settings: CacheSettings | None = None, *, workspace_root: str | None = None,
                 shared_client_factory=None):
        """`workspace_root` lets absolute paths (from the index) and workspace-relative ones (from
        pruning) name the same file; `shared_client_factory(url, timeout_s)` replaces the Redis
        client (tests)."""
        self.settings = settings = settings or CacheSettings()
        self.workspace_root = workspace_root
        self.enabled = settings.enabled
        self.typing = TypingThroughTier(settings.typing_entries) if settings.enabled and settings.typing else None
        self.exact = ExactTier(settings.memory_entries) if settings.enabled else None
        self.disk = (DiskTier(settings.resolved_disk_dir, size_mb=settings.disk_size_mb, ttl_s=settings.ttl_s,
                              timeout_ms=settings.disk_timeout_ms)
                     if settings.enabled and settings.disk else None)
        self.semantic = SemanticTier(settings.semantic_entries) if settings.enabled and settings.semantic else None
        self.shared = None
        if settings.enabled and settings.redis_url:
            extra = {"client_factory": shared_client_factory} if shared_client_factory else {}
            self.shared = SharedTier(settings.redis_url, ttl_s=settings.redis_ttl_s,
                                     timeout_ms=settings.redis_timeout_ms, retry_s=settings.redis_retry_s,
                                     namespace=settings.redis_namespace, **extra)
        self.fingerprints: dict[str, str] = {}
        self._last_deps: tuple = (None, ())
        self._last_keys: tuple = (None, None, None, None, ("", None))
        self.lookups = 0
        self.hits = 0
        self.invalidations = 0
        self.outdated_requests = 0
        self.hit_latency = LatencyWindow()
        self.miss_latency = LatencyWindow()

    # --- lookups -----------------------------------------------------------------------------

    def lookup(self, request: CompletionRequest, prompt: str, model_id: str, template: str,
               verify: Verify | None = None) -> CacheHit | None:
        """The cached completion for `request`, or None. `verify` re-checks text that was made for
        another suffix (pruning's post-processing; the built-in suffix re-check when None)."""
        if not self.enabled:
            return None
        started = time.perf_counter()
        self.lookups += 1
        hit = self._lookup(request, prompt, model_id, template, verify)
        ms = (time.perf_counter() - started) * 1000
        if hit is None:
            self.miss_latency.add(ms)
        else:
            self.hits += 1
            self.hit_latency.add(ms)
        return hit

    def _lookup(self, request, prompt, model_id, template, verify) -> CacheHit | None:
        deps = self._deps(request)
        if conflicts(deps, self.fingerprints):
            self.outdated_requests += 1
            return None
        if self.typing is not None:
            text = self.typing.lookup(request, deps, verify)
            if text is not None:
                return CacheHit(text, "typing")
        key, skey = self._keys(request, prompt, model_id, template, deps)
        text = self.exact.get(key)
        if text is not None:
            return CacheHit(text, "exact")
        if self.disk is not None:
            text = self.disk.get(key)
            if text is not None:
                self.exact.put(key, text, deps)
                if skey is not None and self.semantic is not None:
                    self.semantic.put(skey, text, request.prefix, deps)
                return CacheHit(text, "disk")
        if skey is not None and self.semantic is not None:
            text = self.semantic.get(skey, request.prefix, request.suffix, verify)
            if text is not None:
                return CacheHit(text, "semantic")
        if self.shared is not None:
            return self._lookup_shared(request, key, skey, deps, verify)
        return None

    def _lookup_shared(self, request, key, skey, deps, verify) -> CacheHit | None:
        wanted = [(KIND_EXACT, key)]
        if skey is not None and self.semantic is not None:
            wanted.append((KIND_SEMANTIC, skey))
        found = self.shared.get_first(wanted)
        if found is None:
            return None
        kind, text = found
        if kind == KIND_EXACT:
            self.exact.put(key, text, deps)
            if self.disk is not None:
                self.disk.put(key, text, deps)
            if skey is not None and self.semantic is not None:
                self.semantic.put(skey, text, request.prefix, deps)
            return CacheHit(text, "shared")
        served = serve_semantic(text, request.prefix, request.suffix, verify)
        if served is None:
            self.shared.stats.rejected += 1
            return None
        self.semantic.lru.put(skey, text, deps)
        return CacheHit(served, "shared")

    # --- stores ------------------------------------------------------------------------------

    def store(self, request: CompletionRequest, prompt: str, model_id: str, template: str, text: str, *,
              write_behind: Callable[[Callable[[], None]], object] | None = None) -> None:
        """Remember the model's `text` for this prompt (the whole answer, before display trimming).
        The memory tiers are written at once; the disk and shared tiers (an SQLite transaction, a
        Redis round trip) through `write_behind` when given (the router passes the event loop's
        `call_soon`, so they are written after the answer has gone out)."""
        if not self.enabled or not text:
            return
        deps = self._deps(request)
        if conflicts(deps, self.fingerprints):
            self.outdated_requests += 1
            return
        if self.typing is not None:
            self.typing.note_model_text(request, deps, text, final=True)
        key, skey = self._keys(request, prompt, model_id, template, deps)
        self.exact.put(key, text, deps)
        skey = skey if self.semantic is not None else None
        if skey is not None:
            self.semantic.put(skey, text, request.prefix, deps)
        writes: list[Callable[[], None]] = []
        if self.disk is not None:
            writes.append(partial(self.disk.put, key, text, deps))
        if self.shared is not None:
            items = [(KIND_EXACT, key, text)]
            relative = relative_form(text, cursor_indent(request.prefix)) if skey is not None else None
            if relative is not None:
                items.append((KIND_SEMANTIC, skey, relative))
            writes.append(partial(self.shared.put, items))
        if writes:
            if write_behind is None:
                _run_all(writes)
            else:
                write_behind(partial(_run_all, writes))

    def note_shown(self, request: CompletionRequest, text: str) -> None:
        """The text now on screen for `request` (after post-processing): typing-through's source."""
        deps = self._current_deps(request) if self.typing is not None else None
        if deps is not None:
            self.typing.note_shown(request, deps, text)

    def note_partial(self, request: CompletionRequest, text: str) -> None:
        """The model's text so far for a request still streaming (or cancelled mid-stream)."""
        deps = self._current_deps(request) if self.typing is not None else None
        if deps is not None:
            self.typing.note_model_text(request, deps, text, final=False)

    def _current_deps(self, request: CompletionRequest):
        """The request's foreign dependencies, or None when they are older than the index's."""
        deps = self._deps(request)
        return None if conflicts(deps, self.fingerprints) else deps

    def _deps(self, request: CompletionRequest):
        """`foreign_dependencies(request)`, computed once per request: a lookup, the stream's
        partial texts, the store and the shown text all ask for the same request's."""
        if self._last_deps[0] is not request:
            self._last_deps = (request, foreign_dependencies(request, self.workspace_root))
        return self._last_deps[1]

    def _keys(self, request: CompletionRequest, prompt: str, model_id: str, template: str,
              deps) -> tuple[str, str | None]:
        """The exact and semantic keys of `request` rendered as `prompt`, computed once for the
        lookup and the store that follows it (requests and prompts are immutable)."""
        last = self._last_keys
        if last[0] is request and last[1] is prompt and last[2] == (model_id, template) and last[3] is deps:
            return last[4]
        keys = (exact_key(request, prompt, model_id, template, deps),
                semantic_cache_key(request, model_id, template, deps))
        self._last_keys = (request, prompt, (model_id, template), deps, keys)
        return keys

    # --- invalidation ------------------------------------------------------------------------

    def invalidate(self, path: str, fingerprint: str) -> int:
        """`path` now has `fingerprint`: drop every local entry built from another version of it.

        Returns the number of entries evicted. The shared tier needs nothing: its keys are
        versioned by fingerprint, so outdated entries are never looked up again.
        """
        path = canonical_path(path, self.workspace_root)
        if not self.enabled or self.fingerprints.get(path) == fingerprint:
            return 0
        self.fingerprints[path] = fingerprint
        self.invalidations += 1
        evicted = 0
        for tier in (self.typing, self.exact, self.disk, self.semantic):
            if tier is not None:
                evicted += tier.invalidate(path, fingerprint)
        return evicted

    # --- reporting and shutdown --------------------------------------------------------------

    def stats(self) -> dict:
        tiers = {name: tier.snapshot() for name, tier in
                 zip(TIERS, (self.typing, self.exact, self.disk, self.semantic, self.shared)) if tier is not None}
        misses = self.lookups - self.hits
        return {
            "enabled": self.enabled, "lookups": self.lookups, "hits": self.hits, "misses": misses,
            "hitRate": round(self.hits / self.lookups, 4) if self.lookups else 0.0,
            "hitsByTier": {name: tiers[name]["hits"] for name in tiers},
            "evictions": sum(t["evictions"]["invalidated"] + t["evictions"]["capacity"] for t in tiers.values()),
            "bytes": {"memory": sum(tiers[n].get("bytes", 0) for n in ("typing", "exact", "semantic") if n in tiers),
                      "disk": tiers.get("disk", {}).get("bytes", 0)},
            "invalidations": self.invalidations, "outdatedRequests": self.outdated_requests,
            "hitLatencyMs": self.hit_latency.as_dict(), "missLatencyMs": self.miss_latency.as_dict(),
            "tiers": tiers,
        }

    def close(self) -> None:
        if self.disk is not None:
            self.disk.close()
        if self.shared is not None:
            self.shared.close()


def _run_all(writes: list[Callable[[], None]]) -> None:
    for write in writes:
        write()  # each tier catches and counts its own failures
