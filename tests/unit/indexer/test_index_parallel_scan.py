"""Parallel cold scan: worker processes give the graph a sequential scan gives, and a pool that
fails never loses the scan."""

from __future__ import annotations

import logging
import shutil
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from indexer import ScanOptions, WorkspaceIndex
from indexer import scan as scan_module
from indexer.scan import resolve_workers

FIXTURES = Path(__file__).with_name("fixtures")


@pytest.fixture
def workspace(tmp_path):
    """Every language's fixture project under one root, plus a binary file the scan skips."""
    root = tmp_path / "ws"
    shutil.copytree(FIXTURES, root)
    (root / "python" / "blob.py").write_bytes(b"\x00\x01binary")
    return root.as_posix()


def scanned(root: str, workers: int, **kwargs) -> WorkspaceIndex:
    index = WorkspaceIndex(ScanOptions(workers=workers), snapshot=kwargs.pop("snapshot", False), **kwargs)
    index.scan([root], min_parallel=0)
    return index


def graph_answers(index: WorkspaceIndex) -> dict:
    """Everything a client of the graph can observe, per file."""
    graph = index.graph
    answers = {"files": sorted(graph.files), "symbols": graph.symbol_count}
    for path in sorted(graph.files):
        tags = graph.tags(path)
        answers[path] = {
            "fingerprint": graph.fingerprint(path),
            "definitions": tags.definitions,
            "references": tuple(tags.references),
            "imports": tags.imports,
            "imports_of": graph.imports_of(path),
            "dependents": sorted(graph.dependents(path)),
            "definitions_of": {d.name: graph.definitions_of(d.name, path) for d in tags.definitions},
            "out_edges": graph.out_edges(path),
        }
    return answers


def test_parallel_scan_builds_the_graph_a_sequential_scan_builds(workspace, monkeypatch):
    started: list[int] = []
    real_start_pool = scan_module.start_pool
    monkeypatch.setattr(scan_module, "start_pool", lambda workers: started.append(workers) or real_start_pool(workers))
    sequential, parallel = scanned(workspace, 1), scanned(workspace, 2)
    assert started == [2]
    assert len(sequential.graph.files) >= 25
    assert graph_answers(parallel) == graph_answers(sequential)
    assert parallel.last_scan.parsed == sequential.last_scan.parsed == len(sequential.graph.files)
    assert [s.reason for s in parallel.last_scan.skipped] == ["binary"]


def test_progress_reaches_the_total_in_order(workspace):
    calls: list[tuple[int, int]] = []
    index = WorkspaceIndex(ScanOptions(workers=2), snapshot=False)
    index.scan([workspace], lambda done, total: calls.append((done, total)), min_parallel=0)
    total = calls[0][1]
    assert calls[0] == (0, total) and calls[-1] == (total, total)
    assert [done for done, _ in calls] == list(range(total + 1))


def test_a_pool_that_cannot_start_leaves_the_scan_in_process(workspace, monkeypatch, caplog):
    def refuse(workers):
        raise PermissionError("no semaphores here")

    monkeypatch.setattr(scan_module, "start_pool", refuse)
    with caplog.at_level(logging.WARNING, logger="arbor.indexer"):
        index = scanned(workspace, 2)
    failures = [r for r in caplog.records if "parse workers" in r.getMessage()]
    assert len(failures) == 1 and "PermissionError" in failures[0].getMessage()
    assert graph_answers(index) == graph_answers(scanned(workspace, 1))


class BrokenExecutor:
    """Accepts work, then reports every chunk as lost to a dead worker."""

    def __init__(self) -> None:
        self.shut_down = False

    def submit(self, fn, *args):
        future: Future = Future()
        future.set_exception(BrokenProcessPool("a worker died"))
        return future

    def shutdown(self, wait=True, cancel_futures=False):
        self.shut_down = True


def test_a_pool_that_breaks_mid_scan_is_logged_once_and_the_scan_completes(workspace, monkeypatch, caplog):
    executor = BrokenExecutor()
    monkeypatch.setattr(scan_module, "start_pool", lambda workers: executor)
    monkeypatch.setattr(scan_module, "CHUNK_FILES", 2)  # several chunks in flight when it breaks
    with caplog.at_level(logging.WARNING, logger="arbor.indexer"):
        index = scanned(workspace, 2)
    failures = [r for r in caplog.records if "parse workers" in r.getMessage()]
    assert len(failures) == 1 and "BrokenProcessPool" in failures[0].getMessage()
    assert executor.shut_down
    assert graph_answers(index) == graph_answers(scanned(workspace, 1))


def test_an_error_in_a_worker_is_not_hidden_and_the_pool_is_shut_down(workspace, monkeypatch):
    executor = BrokenExecutor()

    def failing(fn, *args):
        future: Future = Future()
        future.set_exception(ValueError("bad tags"))
        return future

    executor.submit = failing
    monkeypatch.setattr(scan_module, "start_pool", lambda workers: executor)
    with pytest.raises(ValueError, match="bad tags"):
        scanned(workspace, 2)
    assert executor.shut_down


def test_a_parallel_scans_snapshot_gives_a_warm_start_without_parsing(workspace, tmp_path):
    cache = tmp_path / "cache"
    cold = scanned(workspace, 2, snapshot=True, cache_dir=cache)
    assert cold.last_scan.parsed > 0
    expected = graph_answers(cold)
    cold.close()
    warm = WorkspaceIndex(ScanOptions(workers=2), cache_dir=cache)
    report = warm.scan([workspace], min_parallel=0)
    assert (report.parsed, report.from_snapshot) == (0, len(expected["files"]))
    assert graph_answers(warm) == expected
    warm.close()


def test_small_scans_and_one_worker_never_start_a_pool(workspace, monkeypatch):
    def no_pool(workers):
        raise AssertionError("a pool was started")

    monkeypatch.setattr(scan_module, "start_pool", no_pool)
    WorkspaceIndex(ScanOptions(workers=2), snapshot=False).scan([workspace])  # fewer than 64 files
    scanned(workspace, 1)


def test_workers_setting():
    assert resolve_workers(3) == 3
    assert 1 <= resolve_workers(0) <= scan_module.MAX_AUTO_WORKERS
    with pytest.raises(ValueError):
        ScanOptions(workers=-1)
