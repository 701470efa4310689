"""Warm start: the on-disk snapshot re-parses only changed files and survives corruption."""

from __future__ import annotations

import logging
import os

from indexer import WorkspaceIndex
from indexer.store import SnapshotStore, decode_tags, encode_tags, workspace_key


def make_workspace(root, n=6):
    for i in range(n):
        (root / f"m{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n")
    (root / "use.py").write_text("from m0 import f0\n\nf0(1)\n")


def scan(root, cache):
    index = WorkspaceIndex(cache_dir=cache)
    report = index.scan([str(root)])
    return index, report


def test_warm_start_reparses_only_changed_files(tmp_path):
    ws, cache = tmp_path / "ws", tmp_path / "cache"
    ws.mkdir()
    make_workspace(ws)
    index, cold = scan(ws, cache)
    assert (cold.parsed, cold.from_snapshot) == (7, 0)
    fingerprints = {p: index.graph.fingerprint(p) for p in index.graph.files}
    index.close()

    (ws / "m3.py").write_text("def f3(y):\n    return y * 3\n")
    (ws / "new.py").write_text("NEW = 1\n")
    warm_index, warm = scan(ws, cache)
    assert (warm.parsed, warm.from_snapshot, warm.files) == (2, 6, 8)
    root = str(ws).replace(os.sep, "/")
    for path, fp in fingerprints.items():
        if not path.endswith("m3.py"):
            assert warm_index.graph.fingerprint(path) == fp
    assert warm_index.graph.definitions_of("f0", f"{root}/use.py")[0][0] == f"{root}/m0.py"
    warm_index.close()


def test_snapshot_is_keyed_per_workspace(tmp_path):
    a, b, cache = tmp_path / "a", tmp_path / "b", tmp_path / "cache"
    a.mkdir()
    b.mkdir()
    make_workspace(a)
    make_workspace(b)
    scan(a, cache)[0].close()
    index, report = scan(b, cache)
    assert report.from_snapshot == 0
    index.close()
    assert workspace_key(str(a)) != workspace_key(str(b))


def test_corrupt_snapshot_database_is_discarded_with_a_log_line(tmp_path, caplog):
    ws, cache = tmp_path / "ws", tmp_path / "cache"
    ws.mkdir()
    make_workspace(ws)
    scan(ws, cache)[0].close()
    store_dir = cache / "index" / workspace_key(str(ws).replace(os.sep, "/"))
    for name in os.listdir(store_dir):
        if name.endswith(".db"):
            (store_dir / name).write_bytes(b"this is not a sqlite database" * 100)
    with caplog.at_level(logging.WARNING, logger="arbor.indexer"):
        index, report = scan(ws, cache)
    assert report.files == 7 and report.parsed == 7
    assert any("discarding" in r.getMessage() for r in caplog.records)
    index.close()
    index, report = scan(ws, cache)  # the rebuilt snapshot works again
    assert report.from_snapshot == 7
    index.close()


def test_corrupt_entry_is_discarded_not_raised(tmp_path, caplog):
    store = SnapshotStore("/some/root", tmp_path)
    store._cache.set("python:abc", b"\x00garbage")
    with caplog.at_level(logging.WARNING, logger="arbor.indexer"):
        assert store.get("python", "abc") is None
    assert any("discarding" in r.getMessage() for r in caplog.records)
    assert store.enabled
    store.close()


def test_unwritable_cache_dir_disables_the_snapshot(tmp_path, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with caplog.at_level(logging.WARNING, logger="arbor.indexer"):
        store = SnapshotStore("/root", blocker)
    assert not store.enabled
    assert store.get("python", "x") is None
    store.put("x", decode_tags(encode_tags(_sample_tags())))  # a no-op, never raises


def test_tags_roundtrip_through_the_snapshot_encoding(tags_of):
    tags = tags_of("python", "import os as o\nfrom . import a\nclass C:\n    def m(self):\n        return o.sep\n")
    assert decode_tags(encode_tags(tags)) == tags


def _sample_tags():
    from indexer import extract_tags, parse

    return extract_tags("python", parse("python", b"x = 1\n"), b"x = 1\n")
