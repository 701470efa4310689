"""The freshness scheduler inside the server's indexing service: what runs after an answer, after a
pause, and in which order. Time is a fake clock that the tests advance; `step()` runs what is due."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import pytest

from lsp_server.config import Settings
from lsp_server.features.indexing import IndexingService
from lsp_server.freshness import (
    AFTER_COMPLETION_FLUSH_S, IDLE_FLUSH_S, IDLE_SETTLE_S, MAX_FLUSH_DEFERRAL_S, REINDEX_LAG_S, Job,
)


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


TEXT = "import os\n\nos.path.join('a')\n"
ADDED = "os.getcwd()\n"


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def server():
    settings = Settings()
    settings.index.snapshot = False
    return SimpleNamespace(settings=settings, completions_in_flight=0)


@pytest.fixture
def service(server, clock):
    service = IndexingService(server, clock=clock)
    yield service
    service.close()


def open_then_edit(service, path: str) -> str:
    """Open `path` with TEXT, index it, then append ADDED (pending); returns the new text."""
    index = service.index
    index.did_open(path, TEXT, "python")
    index.flush()
    index.did_change(path, [Edit(len(TEXT), len(TEXT), ADDED)], TEXT + ADDED)
    service.did_change(path, [], TEXT + ADDED)
    return TEXT + ADDED


def keep_typing(service, clock, path: str, seconds: float) -> None:
    """Edits every IDLE_FLUSH_S / 2 for `seconds`: no pause the idle jobs would run in."""
    end = clock.now + seconds
    while clock.now < end:
        clock.advance(min(IDLE_FLUSH_S / 2, end - clock.now))
        service.did_change(path, [], service.index.text(path))
        assert run_due(service) == []


def run_due(service) -> list[Job]:
    """Every job due now, in order."""
    ran = []
    while (job := service.scheduler.step()) is not None:
        ran.append(job)
    return ran


def test_an_answer_on_an_old_edit_reindexes_and_prepares_that_buffer(service, clock, tmp_path):
    path = str(tmp_path / "mod.py")
    new_text = open_then_edit(service, path)
    keep_typing(service, clock, path, REINDEX_LAG_S)  # the entry now lags by REINDEX_LAG_S
    service.flush_soon(path)
    service.flush_soon(path)  # a second answer before the jobs ran: still one re-index
    assert service.scheduler.due_in() == pytest.approx(AFTER_COMPLETION_FLUSH_S)
    assert run_due(service) == []  # not yet due
    clock.advance(AFTER_COMPLETION_FLUSH_S)
    assert run_due(service) == [Job.REPARSE, Job.REINDEX, Job.PREPARE_NEXT]  # its tree first
    assert path not in service.index.pending
    assert service.index.snapshot_for(path).entry(path).source == new_text.encode()
    derived = service.index.snapshot.entry(path).derived  # the next context's ranking is ready
    assert any(key[0] == "file_use_lines" for key in derived)


def test_an_answer_on_a_young_edit_leaves_it_to_a_later_answer(service, clock, tmp_path):
    """Re-indexing after every answer would cost a re-tag per pause while typing."""
    path = str(tmp_path / "mod.py")
    new_text = open_then_edit(service, path)
    flushes = service.index.flushes
    service.flush_soon(path)
    clock.advance(AFTER_COMPLETION_FLUSH_S)
    assert Job.REINDEX not in run_due(service)
    assert path in service.index.pending and service.index.flushes == flushes
    keep_typing(service, clock, path, REINDEX_LAG_S)  # no idle flush ran, but the entry lags enough
    service.flush_soon(path)
    clock.advance(AFTER_COMPLETION_FLUSH_S)
    assert Job.REINDEX in run_due(service)
    assert service.index.tagged_source(path) == new_text.encode()


def test_a_buffer_another_open_buffer_imports_is_reindexed_after_an_answer_at_once(service, clock, tmp_path):
    """Otherwise the next completion in the importing buffer would re-index it on its path."""
    lib, user = str(tmp_path / "helpers.py"), str(tmp_path / "user.py")
    (tmp_path / "helpers.py").write_text(TEXT)
    (tmp_path / "user.py").write_text("import helpers\n")
    index = service.index
    index.scan([str(tmp_path)])
    index.did_open(user, "import helpers\n", "python")
    new_text = open_then_edit(service, lib)
    service.flush_soon(lib)
    clock.advance(AFTER_COMPLETION_FLUSH_S)
    assert Job.REINDEX in run_due(service)  # young, but user.py imports it
    assert index.tagged_source(lib) == new_text.encode()


def test_completions_in_flight_hold_the_jobs_back_for_a_bounded_time(service, server, clock, tmp_path):
    path = str(tmp_path / "mod.py")
    open_then_edit(service, path)
    keep_typing(service, clock, path, REINDEX_LAG_S)
    server.completions_in_flight = 2
    service.flush_soon(path)
    clock.advance(AFTER_COMPLETION_FLUSH_S)
    assert run_due(service) == []
    clock.advance(MAX_FLUSH_DEFERRAL_S)
    assert Job.REINDEX in run_due(service)


def test_the_idle_flush_and_settle_run_once_a_pause_after_the_last_edit(service, clock, tmp_path):
    """Typing keeps pushing them back; they run IDLE_FLUSH_S and IDLE_SETTLE_S after the last edit."""
    path = str(tmp_path / "mod.py")
    text = open_then_edit(service, path)
    for _ in range(6):  # an edit every IDLE_FLUSH_S / 2: never a pause long enough
        clock.advance(IDLE_FLUSH_S / 2)
        service.did_change(path, [], text)
        assert run_due(service) == []
    last_edit = clock.now
    assert service.scheduler.due_in() == pytest.approx(IDLE_FLUSH_S)
    clock.advance(IDLE_FLUSH_S)
    assert run_due(service) == [Job.FLUSH]
    assert path not in service.index.pending
    clock.advance(last_edit + IDLE_SETTLE_S - clock.now)
    assert run_due(service) == [Job.SETTLE]
    assert service.scheduler.due_in() is None  # nothing more until the next edit or answer


def test_one_loop_timer_is_armed_for_the_next_job_and_typing_adds_none(service, clock, tmp_path, monkeypatch):
    from lsp_server.features import indexing

    armed: list[tuple[float, object]] = []

    class Handle:
        def cancel(self) -> None:
            armed.append((-1.0, None))

    monkeypatch.setattr(indexing, "call_later", lambda delay, callback: armed.append((delay, callback)) or Handle())
    path = str(tmp_path / "mod.py")
    text = open_then_edit(service, path)
    assert [delay for delay, _ in armed] == [pytest.approx(IDLE_FLUSH_S)]
    for _ in range(5):
        clock.advance(0.01)
        service.did_change(path, [], text)  # postpones the idle flush: the armed timer stays
    assert len(armed) == 1
    service.flush_soon(path)  # due sooner: that timer is replaced
    assert [delay for delay, _ in armed[1:]] == [-1.0, pytest.approx(AFTER_COMPLETION_FLUSH_S)]
    clock.advance(AFTER_COMPLETION_FLUSH_S)
    armed[-1][1]()  # the timer fires: the scheduler's job runs
    assert service.scheduler.ran == [Job.REPARSE]  # the tree of the buffer just completed


def test_a_newly_opened_buffer_is_prepared_by_the_idle_flush(service, clock, tmp_path):
    """Its first completion then finds the file's use table and its neighbours' identifiers made."""
    sibling = tmp_path / "helpers.py"
    sibling.write_text("def join_all(parts):\n    return '/'.join(parts)\n")
    service.index.scan([str(tmp_path)])
    path = str(tmp_path / "mod.py")
    service.index.did_open(path, TEXT, "python")
    service.did_open(path, TEXT, "python")
    clock.advance(IDLE_FLUSH_S)
    assert run_due(service) == [Job.FLUSH]
    snapshot = service.index.snapshot
    assert any(key[0] == "file_use_lines" for key in snapshot.entry(path).derived)
    assert ("similar_vocabulary",) in snapshot.entry(str(sibling)).derived
    clock.advance(IDLE_FLUSH_S)
    service.did_change(path, [], TEXT)
    snapshot.entry(str(sibling)).derived.clear()
    clock.advance(IDLE_FLUSH_S)
    assert run_due(service) == [Job.FLUSH]  # prepared once: it was neither completed nor opened again
    assert ("similar_vocabulary",) not in service.index.snapshot.entry(str(sibling)).derived
