import logging
import shutil
import sqlite3
import time

import pytest

from inference.cache.disk import DiskTier

DEPS = (("/ws/b.py", "1"),)


def tier(path, **kw) -> DiskTier:
    opts = {"size_mb": 16, "ttl_s": 3600, "timeout_ms": 50} | kw
    return DiskTier(str(path), **opts)


def test_entries_survive_a_restart(tmp_path):
    first = tier(tmp_path / "c")
    first.put("k1", "return x", DEPS)
    first.close()
    second = tier(tmp_path / "c")
    assert second.get("k1") == "return x"
    assert second.get("k2") is None
    assert second.snapshot()["entries"] >= 1
    second.close()


def test_invalidation_evicts_by_dependency_group_tag(tmp_path):
    t = tier(tmp_path / "c")
    t.put("a", "A", DEPS)
    t.put("b", "B", DEPS + (("/ws/c.py", "1"),))
    t.put("c", "C", (("/ws/c.py", "1"),))
    t.put("d", "D", ())
    assert t.invalidate("/ws/b.py", "1") == 0  # same version: nothing to do
    assert t.invalidate("/ws/b.py", "2") == 2
    assert (t.get("a"), t.get("b"), t.get("c"), t.get("d")) == (None, None, "C", "D")
    assert t.invalidate("/ws/b.py", "3") == 0  # the index row for b.py is gone
    assert t.stats.invalidated == 2
    t.close()


def test_entries_expire_after_the_ttl(tmp_path):
    t = tier(tmp_path / "c", ttl_s=1)
    t.put("k", "v", ())
    assert t.get("k") == "v"
    time.sleep(1.2)
    assert t.get("k") is None
    t.close()


def test_size_limit_culls_old_entries(tmp_path):
    t = tier(tmp_path / "c", size_mb=1)
    big = "x" * 20_000
    for i in range(200):  # about 4 MB of completions into a 1 MB cache
        t.put(f"k{i}", big + str(i), ())
    assert t.get("k199") == big + "199"
    assert t.get("k0") is None
    assert t.snapshot()["bytes"] < 3 * 1024 * 1024
    t.close()


def test_a_corrupt_database_is_moved_aside_and_the_cache_starts_empty(tmp_path, caplog):
    d = tmp_path / "c"
    d.mkdir()
    (d / "cache.db").write_bytes(b"this is not sqlite" * 100)
    with caplog.at_level(logging.WARNING):
        t = tier(d)
    assert t.status == "ok"
    assert t.get("k") is None
    t.put("k", "v", ())
    assert t.get("k") == "v"
    assert any("corrupt" in r.message for r in caplog.records)
    assert list(tmp_path.glob("c.corrupt-*"))
    t.close()


def test_a_locked_database_disables_the_tier_without_blocking(tmp_path, caplog):
    d = tmp_path / "c"
    tier(d).close()
    holder = sqlite3.connect(str(d / "cache.db"), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with caplog.at_level(logging.WARNING):
            t = tier(d)
        assert t.status == "disabled"
        assert t.get("k") is None
        t.put("k", "v", ())  # silently nothing
        assert t.invalidate("/ws/b.py", "2") == 0
        assert sum("unavailable" in r.message for r in caplog.records) == 1
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_a_lock_taken_while_running_fails_operations_softly_and_logs_once(tmp_path, caplog):
    d = tmp_path / "c"
    t = tier(d)
    t.put("k", "v", ())
    holder = sqlite3.connect(str(d / "cache.db"), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with caplog.at_level(logging.WARNING):
            for i in range(5):
                t.put(f"n{i}", "v", ())
        assert t.stats.errors >= 3
        assert t.status == "disabled"
        messages = [r.message for r in caplog.records]
        assert sum("failed (" in m for m in messages) == 1
        assert sum("in a row" in m for m in messages) == 1
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_a_directory_deleted_while_running_keeps_completions_working(tmp_path):
    d = tmp_path / "c"
    t = tier(d)
    t.put("k", "v", ())
    shutil.rmtree(d)
    t.put("k2", "v2", ())  # must not raise
    assert t.get("k2") in ("v2", None)
    t.close()
    again = tier(d)  # next start: a fresh empty cache
    assert again.status == "ok" and again.get("k") is None
    again.close()


def test_an_unusable_directory_disables_the_tier(tmp_path, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with caplog.at_level(logging.WARNING):
        t = tier(blocker / "c")
    assert t.status == "disabled"
    assert t.get("k") is None
    assert len(caplog.records) == 1


@pytest.mark.parametrize("raw", ["not json", "[1]"])
def test_a_malformed_row_is_a_miss(tmp_path, raw):
    t = tier(tmp_path / "c")
    t._cache.set("k", raw)
    assert t.get("k") is None
    assert t.stats.rejected == 1
    t.close()
