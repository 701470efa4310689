"""On-disk tier: the exact key in a diskcache directory that survives restarts.

Invariants:
- Rows hold JSON text `[completion, [[path, fingerprint], ...]]` (no pickles); a row's diskcache
  *tag* is its dependency group (`keys.dependency_group`); rows expire after `ttl_s` and the whole
  directory is culled (least recently stored first) beyond `size_mb`.
- For every depended-on path, row `d:<path>` maps each group that depends on it to the
  fingerprint that group was built from; `invalidate(path, fp)` evicts, by tag, every group whose
  fingerprint for `path` differs from `fp`.
- The tier never raises and never blocks for long: a corrupt database is moved aside and the cache
  starts empty; a locked or unusable directory disables the tier; each problem is logged once.
  SQLite waits at most `timeout_ms` for a lock; failures after opening count as `errors`, and
  `_MAX_FAILURES` in a row disable the tier.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
from pathlib import Path

from .keys import Dependencies, dependency_group
from .stats import TierStats

log = logging.getLogger(__name__)

_MAX_FAILURES = 3
# diskcache's defaults (an 8192-page SQLite cache, 64 MB of mmap) let a long-running server's
# memory grow by tens of MB as the file grows; entries are small and looked up once per
# completion, so a small page cache and no mmap cost little and keep the server's memory flat
SQLITE_CACHE_PAGES = 256  # x 4 KiB pages
SQLITE_MMAP_BYTES = 0
_DB_NAME = "cache.db"


def _probe(directory: Path, timeout_s: float) -> None:
    """Raise sqlite3.DatabaseError if the database is corrupt, OperationalError if it is locked.

    diskcache's own initialisation retries a locked database for 60 s; probing first keeps a
    locked directory from stalling the server's start.
    """
    db = directory / _DB_NAME
    if not db.exists():
        return
    con = sqlite3.connect(str(db), timeout=timeout_s, isolation_level=None)
    try:
        con.execute("SELECT count(*) FROM sqlite_master").fetchone()
        con.execute("BEGIN IMMEDIATE")
        con.execute("ROLLBACK")
    finally:
        con.close()


class DiskTier:
    name = "disk"

    def __init__(self, directory: str, *, size_mb: int, ttl_s: int, timeout_ms: int):
        self.directory = Path(directory).expanduser()
        self.size_mb = size_mb
        self.ttl_s = ttl_s
        self.timeout_s = timeout_ms / 1000
        self.stats = TierStats()
        self.status = "starting"
        self._failures = 0
        self._cache = self._open()

    # --- opening -----------------------------------------------------------------------------

    def _open(self):
        try:
            return self._open_once()
        except sqlite3.OperationalError as exc:
            return self._disable(f"disk cache at {self.directory} is unavailable ({exc}); continuing without it")
        except sqlite3.DatabaseError as exc:
            moved = self._move_aside()
            log.warning("disk cache at %s is corrupt (%s); moved it to %s and starting empty",
                        self.directory, exc, moved)
            try:
                return self._open_once()
            except (sqlite3.Error, OSError) as again:
                return self._disable(f"disk cache at {self.directory} cannot be recreated ({again}); "
                                     "continuing without it")
        except OSError as exc:
            return self._disable(f"disk cache at {self.directory} cannot be used ({exc}); continuing without it")

    def _open_once(self):
        import diskcache

        self.directory.mkdir(parents=True, exist_ok=True)
        _probe(self.directory, self.timeout_s)
        cache = diskcache.Cache(str(self.directory), timeout=self.timeout_s, tag_index=True,
                                size_limit=self.size_mb * 1024 * 1024,
                                eviction_policy="least-recently-stored", statistics=False,
                                sqlite_cache_size=SQLITE_CACHE_PAGES, sqlite_mmap_size=SQLITE_MMAP_BYTES)
        self.status = "ok"
        self._failures = 0
        return cache

    def _move_aside(self) -> str:
        target = self.directory.with_name(f"{self.directory.name}.corrupt-{int(time.time())}-{os.getpid()}")
        try:
            self.directory.rename(target)
        except OSError:
            for name in (_DB_NAME, _DB_NAME + "-wal", _DB_NAME + "-shm"):
                try:
                    (self.directory / name).unlink()
                except FileNotFoundError:
                    pass
            return "nowhere (its database files were deleted)"
        return str(target)

    def _disable(self, message: str):
        if self.status != "disabled":
            log.warning("%s", message)
        self.status = "disabled"
        return None

    def _failed(self, op: str, exc: Exception) -> None:
        self.stats.errors += 1
        self._failures += 1
        if self._failures == 1:
            log.warning("disk cache %s failed (%s)", op, exc)
        if self._failures >= _MAX_FAILURES:
            self._close_quietly()
            self._disable(f"disk cache at {self.directory} failed {self._failures} times in a row; "
                          "continuing without it")

    def _ok(self) -> None:
        self._failures = 0

    # --- operations --------------------------------------------------------------------------

    def get(self, key: str) -> str | None:
        if self._cache is None:
            return None
        try:
            raw = self._cache.get(key, default=None, retry=False)
        except Exception as exc:  # sqlite3.Error, diskcache.Timeout, OSError
            self._failed("read", exc)
            self.stats.misses += 1
            return None
        self._ok()
        if raw is None:
            self.stats.misses += 1
            return None
        try:
            text, _deps = json.loads(raw)
            if not isinstance(text, str):
                raise TypeError("completion is not a string")
        except (TypeError, ValueError):
            self.stats.misses += 1
            self.stats.rejected += 1
            return None
        self.stats.hits += 1
        return text

    def put(self, key: str, text: str, deps: Dependencies) -> None:
        if self._cache is None:
            return
        group = dependency_group(deps)
        row = json.dumps([text, [list(d) for d in deps]])
        try:
            with self._cache.transact(retry=False):
                self._cache.set(key, row, expire=self.ttl_s, tag=group, retry=False)
                for path, fp in deps if group else ():
                    index = self._read_index(path)
                    if index.get(group) != fp:
                        index[group] = fp
                        self._cache.set("d:" + path, json.dumps(index), expire=self.ttl_s, retry=False)
        except Exception as exc:
            self._failed("write", exc)
            return
        self._ok()
        self.stats.stores += 1

    def invalidate(self, path: str, fingerprint: str) -> int:
        if self._cache is None:
            return 0
        evicted = 0
        try:
            index = self._read_index(path)
            stale = [group for group, fp in index.items() if fp != fingerprint]
            if not stale:
                return 0
            for group in stale:
                evicted += self._cache.evict(group, retry=False)
            kept = {group: fp for group, fp in index.items() if fp == fingerprint}
            if kept:
                self._cache.set("d:" + path, json.dumps(kept), expire=self.ttl_s, retry=False)
            else:
                self._cache.delete("d:" + path, retry=False)
        except Exception as exc:
            self._failed("invalidation", exc)
        else:
            self._ok()
        self.stats.invalidated += evicted
        return evicted

    def _read_index(self, path: str) -> dict[str, str]:
        raw = self._cache.get("d:" + path, default=None, retry=False)
        if raw is None:
            return {}
        try:
            index = json.loads(raw)
        except ValueError:
            return {}
        return index if isinstance(index, dict) else {}

    def snapshot(self) -> dict:
        out = {**self.stats.as_dict(), "status": self.status, "directory": str(self.directory)}
        if self._cache is not None:
            try:
                out["bytes"] = int(self._cache.volume())
                out["entries"] = len(self._cache)
            except Exception:
                pass
        return out

    def _close_quietly(self) -> None:
        if self._cache is not None:
            try:
                self._cache.close()
            except Exception:
                pass
            self._cache = None

    def close(self) -> None:
        self._close_quietly()
        if self.status == "ok":
            self.status = "closed"
