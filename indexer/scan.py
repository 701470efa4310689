"""The workspace scan's pipeline: walk candidates, read and hash them here, parse the files that need
it (in worker processes when there are many), apply the results to the graph in candidate order.

`WorkspaceIndex.scan` drives it with `prepare(path, lang)` (`read_disk_file` unless the file is
open), `apply_file(file)` (puts a parsed `DiskFile` into the graph) and `remove_file(path)`.

Invariants:
- Items are applied in candidate order whichever process parsed them, so a parallel scan leaves
  the graph exactly as a sequential scan does.
- Worker processes are used only when `workers > 1` and at least `min_parallel` files need
  parsing; the pool lives for one scan and is shut down when it ends, also when it raises.
  Workers are started with "forkserver" (the server has threads: never a plain fork of it), and
  each exits when this process ends, however it ends (`indexer.lifeline`).
- A pool that cannot start or that breaks (a worker died, no semaphores...) costs one log line;
  the files it did not parse are parsed in this process. A scan is never lost to the pool.
- A worker's result is the tags in the snapshot's format (`store.encode_tags`): decoded here and
  written to the snapshot as the same bytes.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import posixpath
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from indexer import languages, lifeline, scan_worker
from indexer.fingerprint import content_hash
from indexer.graph import SymbolGraph
from indexer.store import SnapshotStore, decode_tags
from indexer.tags import FileTags, extract_tags
from indexer.workspace import (
    ScanOptions, ScanReport, Skipped, SourceGuard, iter_candidates, read_go_module, read_source,
)

log = logging.getLogger("arbor.indexer")

MIN_PARALLEL_FILES = 64  # fewer files to parse than this are parsed in-process (no pool start-up)
MAX_AUTO_WORKERS = 8
CHUNK_FILES = 8
CHUNK_BYTES = 256 * 1024
CHUNKS_IN_FLIGHT_PER_WORKER = 4
_POOL_BROKE = (BrokenProcessPool, OSError)  # a worker died, a pipe or semaphore failed
_POOL_START_FAILED = (*_POOL_BROKE, RuntimeError, ValueError, ImportError)

Candidate = tuple[str, str]  # (path, language)


@dataclass(slots=True)
class DiskFile:
    """A candidate read from disk whose tags the graph lacks: `tags` from the snapshot, or
    `source` still to parse (`parsed` once it was; `encoded` when a worker parsed it)."""

    path: str
    language: str
    digest: str
    store: SnapshotStore | None
    source: bytes | None = None
    tags: FileTags | None = None
    encoded: bytes | None = None
    parsed: bool = False

    def parse_here(self) -> None:
        self.tags = extract_tags(self.language, languages.parse(self.language, self.source), self.source)
        self.source, self.parsed = None, True

    def take_encoded(self, encoded: bytes) -> None:
        self.tags, self.encoded = decode_tags(encoded), encoded
        self.source, self.parsed = None, True

    def save_to_snapshot(self) -> None:
        """Write freshly parsed tags to the snapshot (the worker's bytes as they are)."""
        if self.store is None or not self.parsed:
            return
        if self.encoded is not None:
            self.store.put_encoded(self.language, self.digest, self.encoded)
        else:
            self.store.put(self.digest, self.tags)


Prepared = DiskFile | Skipped | None  # None: open buffer, or already indexed with this content


def resolve_workers(workers: int) -> int:
    """`ScanOptions.workers` as a process count: 0 is the CPU count, at most `MAX_AUTO_WORKERS`."""
    return workers if workers > 0 else max(1, min(os.cpu_count() or 1, MAX_AUTO_WORKERS))


def collect_candidates(roots: Sequence[str], options: ScanOptions, graph: SymbolGraph,
                       limit: int | None = None) -> tuple[list[Candidate], int]:
    """The first `limit` candidates under `roots` (all when None), in walk order, and how many
    more there are; registers the Go modules of the kept files."""
    candidates: list[Candidate] = []
    beyond = 0
    for root in roots:
        found = list(iter_candidates(root, options))
        room = len(found) if limit is None else max(0, limit - len(candidates))
        beyond += max(0, len(found) - room)
        found = found[:room]
        register_go_modules(graph, root, [path for path, lang in found if lang == "go"])
        candidates.extend(found)
    return candidates, beyond


def read_disk_file(
    path: str,
    lang: str,
    max_file_bytes: int,
    indexed_digest: str | None,
    store_for: Callable[[str], SnapshotStore | None],
    report: ScanReport | None,
    guard: SourceGuard | None = None,
) -> Prepared:
    """Read and hash `path`: `Skipped` if unreadable, None if the graph has it with this content
    (`indexed_digest`), else a `DiskFile` with the snapshot's tags or its source to parse.
    Counts its bytes and language in `report`."""
    data = read_source(path, max_file_bytes, guard)
    if isinstance(data, Skipped):
        return data
    digest = content_hash(data)
    if report is not None:
        report.bytes += len(data)
        report.languages[lang] = report.languages.get(lang, 0) + 1
    if digest == indexed_digest:
        return None
    store = store_for(path)
    tags = store.get(lang, digest) if store is not None else None
    return DiskFile(path, lang, digest, store, source=data if tags is None else None, tags=tags)


def register_go_modules(graph: SymbolGraph, root: str, go_files: Sequence[str]) -> None:
    """Record each `go.mod` from the Go files' directories up to `root`."""
    checked: set[str] = set()
    for path in go_files:
        directory = posixpath.dirname(path)
        while directory == root or directory.startswith(root.rstrip("/") + "/"):
            if directory in checked:
                break
            checked.add(directory)
            module = read_go_module(directory)
            if module:
                graph.set_go_module(module, directory)
            if directory == root:
                break
            directory = posixpath.dirname(directory)


def index_candidates(
    candidates: Sequence[Candidate],
    prepare: Callable[[str, str], Prepared],
    apply_file: Callable[[DiskFile], object],
    remove_file: Callable[[str], object],
    report: ScanReport,
    progress: Callable[[int, int], None] | None,
    workers: int,
    min_parallel: int = MIN_PARALLEL_FILES,
    stop: Callable[[], bool] | None = None,
) -> None:
    """Prepare, parse and apply every candidate, in order, counting in `report`; skipped files
    leave the graph. `progress(done, total)` after each. Once `stop()` is true no file is read
    or sent to a worker any more, and the scan ends after the files already being parsed."""
    total = len(candidates)
    if progress:
        progress(0, total)
    stopped = stop or (lambda: False)
    prepared = (prepare(path, lang) for path, lang in candidates if not stopped())
    parsed = parse_in_order(prepared, workers, min_parallel)
    try:
        for done, item in enumerate(parsed, 1):
            if stopped():
                break
            if isinstance(item, Skipped):
                report.skipped.append(item)
                remove_file(item.path)
            elif isinstance(item, DiskFile):
                item.save_to_snapshot()
                report.parsed += item.parsed
                report.from_snapshot += not item.parsed
                apply_file(item)
            if progress:
                progress(done, total)
    finally:
        parsed.close()


def _needs_parse(item: Prepared) -> bool:
    return isinstance(item, DiskFile) and item.tags is None


def parse_in_order(items: Iterable[Prepared], workers: int, min_parallel: int) -> Iterator[Prepared]:
    """`items` in the same order, every `DiskFile` with its tags. Items before the first file to
    parse pass straight through; the pool starts once `min_parallel` files wait for parsing."""
    items = iter(items)
    held: list[Prepared] = []
    waiting = 0
    if workers > 1:
        for item in items:
            held.append(item)
            waiting += _needs_parse(item)
            if waiting == 0:
                yield from held
                held.clear()
            elif waiting >= max(min_parallel, 1):
                break
        else:
            yield from _parse_here(held)  # too few files to pay for a pool
            return
    pool = ParsePool.start(workers) if held else None
    if pool is None:
        yield from _parse_here(held)
        yield from _parse_here(items)
        return
    try:
        yield from pool.parse_in_order(held)
        yield from pool.parse_in_order(items)
        yield from pool.drain()
    finally:
        pool.close()


def _parse_here(items: Iterable[Prepared]) -> Iterator[Prepared]:
    for item in items:
        if _needs_parse(item):
            item.parse_here()
        yield item


def start_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool whose workers start with the indexer and grammars imported."""
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    if method == "forkserver":
        context.set_forkserver_preload(list(scan_worker.PRELOAD))
    # each worker exits with this process, however it ends (`lifeline`)
    return ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=lifeline.hold,
                               initargs=(os.getpid(),))


@dataclass(slots=True)
class _Chunk:
    items: list[Prepared]
    jobs: list[DiskFile]
    future: Future | None = None


class ParsePool:
    """Worker processes for one scan. Files are sent in chunks; at most
    `CHUNKS_IN_FLIGHT_PER_WORKER` chunks per worker are outstanding, so memory stays bounded."""

    def __init__(self, executor: ProcessPoolExecutor, workers: int) -> None:
        self._executor: ProcessPoolExecutor | None = executor
        self._limit = workers * CHUNKS_IN_FLIGHT_PER_WORKER
        self._window: deque[_Chunk] = deque()
        self._open = _Chunk([], [])
        self._open_bytes = 0

    @classmethod
    def start(cls, workers: int) -> ParsePool | None:
        try:
            return cls(start_pool(workers), workers)
        except _POOL_START_FAILED as exc:
            log.warning("index: cannot start %d parse workers (%s: %s); parsing in this process",
                        workers, type(exc).__name__, exc)
            return None

    def parse_in_order(self, items: Iterable[Prepared]) -> Iterator[Prepared]:
        """Queue `items`; yields those whose chunk is done (in order) once the window is full."""
        for item in items:
            if not _needs_parse(item) and not self._window and not self._open.items:
                yield item  # nothing before it is still being parsed
                continue
            self._open.items.append(item)
            if _needs_parse(item):
                self._open.jobs.append(item)
                self._open_bytes += len(item.source)
                if len(self._open.jobs) >= CHUNK_FILES or self._open_bytes >= CHUNK_BYTES:
                    self._submit_open()
                    while len(self._window) > self._limit:
                        yield from self._finish(self._window.popleft())

    def drain(self) -> Iterator[Prepared]:
        """Every queued item, in order, once parsed."""
        if self._open.items:
            self._submit_open()
        while self._window:
            yield from self._finish(self._window.popleft())

    def _submit_open(self) -> None:
        chunk, self._open, self._open_bytes = self._open, _Chunk([], []), 0
        if chunk.jobs and self._executor is not None:
            try:
                chunk.future = self._executor.submit(
                    scan_worker.parse_chunk, [(f.language, f.source) for f in chunk.jobs])
            except _POOL_START_FAILED as exc:  # includes "cannot schedule new futures"
                self._broken(exc)
        self._window.append(chunk)

    def _finish(self, chunk: _Chunk) -> Iterator[Prepared]:
        if chunk.future is not None and self._executor is not None:
            try:
                for file, encoded in zip(chunk.jobs, chunk.future.result(), strict=True):
                    file.take_encoded(encoded)
            except _POOL_BROKE as exc:  # an error raised by the parsing itself propagates
                self._broken(exc)
        for file in chunk.jobs:
            if file.tags is None:
                file.parse_here()
        yield from chunk.items

    def _broken(self, exc: BaseException) -> None:
        if self._executor is not None:
            log.warning("index: parse workers failed (%s: %s); parsing the rest in this process",
                        type(exc).__name__, exc)
            self.close()

    def close(self) -> None:
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
