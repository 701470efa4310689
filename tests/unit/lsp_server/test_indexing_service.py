"""The server's indexing service re-indexes a completed buffer right after the answer."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from types import SimpleNamespace

import pytest

from lsp_server.config import Settings
from lsp_server.features import indexing
from lsp_server.features.indexing import AFTER_COMPLETION_FLUSH_S, IDLE_FLUSH_S, REINDEX_LAG_S, IndexingService


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str


TEXT = "import os\n\nos.path.join('a')\n"
ADDED = "os.getcwd()\n"


@pytest.fixture
def service():
    settings = Settings()
    settings.index.snapshot = False
    service = IndexingService(SimpleNamespace(settings=settings))
    yield service
    service.close()


def open_then_edit(index, path: str) -> str:
    """Open `path` with TEXT, index it, then append ADDED (pending); returns the new text."""
    index.did_open(path, TEXT, "python")
    index.flush()
    index.did_change(path, [Edit(len(TEXT), len(TEXT), ADDED)], TEXT + ADDED)
    return TEXT + ADDED


async def test_flush_soon_reindexes_and_prepares_the_completed_buffer(service, tmp_path, monkeypatch):
    monkeypatch.setattr(indexing, "REINDEX_LAG_S", 0.0)  # every edit is old enough
    path = str(tmp_path / "mod.py")
    index = service.index
    new_text = open_then_edit(index, path)
    service.flush_soon(path)
    service.flush_soon(path)  # a second answer before the flush ran: still one flush
    assert path in index.pending
    await asyncio.sleep(AFTER_COMPLETION_FLUSH_S + 0.05)
    assert path not in index.pending  # well before the idle flush would have run
    assert AFTER_COMPLETION_FLUSH_S + 0.05 < IDLE_FLUSH_S
    assert index.tagged_source(path) == new_text.encode()
    derived = index.snapshot.entry(path).derived  # the next context's ranking is ready on the entry
    assert any(key[0] == "most_used_imports" for key in derived)


async def test_flush_soon_leaves_a_young_edit_to_a_later_answer(service, tmp_path):
    """An answer right after an edit does not re-index the buffer (that would cost a re-tag per
    pause while typing); an answer once the entry lags by REINDEX_LAG_S does."""
    path = str(tmp_path / "mod.py")
    index = service.index
    new_text = open_then_edit(index, path)
    flushes = index.flushes
    service.flush_soon(path)
    await asyncio.sleep(AFTER_COMPLETION_FLUSH_S + 0.05)
    assert path in index.pending and index.flushes == flushes
    while index.lag_s(path) < REINDEX_LAG_S:
        await asyncio.sleep(0.05)
    service.flush_soon(path)
    await asyncio.sleep(AFTER_COMPLETION_FLUSH_S + 0.05)
    assert path not in index.pending
    assert index.tagged_source(path) == new_text.encode()


async def test_a_buffer_another_open_buffer_imports_is_reindexed_after_an_answer_at_once(service, tmp_path):
    """Otherwise the next completion in the importing buffer would re-index it on its path."""
    lib, user = str(tmp_path / "helpers.py"), str(tmp_path / "user.py")
    (tmp_path / "helpers.py").write_text(TEXT)
    (tmp_path / "user.py").write_text("import helpers\n")
    index = service.index
    index.scan([str(tmp_path)])
    index.did_open(user, "import helpers\n", "python")
    new_text = open_then_edit(index, lib)
    assert lib in index.pending
    service.flush_soon(lib)
    await asyncio.sleep(AFTER_COMPLETION_FLUSH_S + 0.05)
    assert lib not in index.pending  # young, but user.py imports it
    assert index.tagged_source(lib) == new_text.encode()


async def test_the_idle_flush_runs_once_a_pause_after_the_last_edit(service, tmp_path, monkeypatch):
    """Typing keeps pushing the idle flush back without a new timer per keystroke; it runs
    IDLE_FLUSH_S after the last edit, once."""
    flushes: list[float] = []
    service._idle.delay_s = 0.2
    service._idle.action = lambda: flushes.append(asyncio.get_running_loop().time())
    loop = asyncio.get_running_loop()
    started = loop.time()
    for _ in range(6):  # an edit every 0.1 s: never a 0.2 s pause
        service.did_change("/w/a.py", [], "")
        await asyncio.sleep(0.1)
        assert not flushes
    last_edit = loop.time() - 0.1
    await asyncio.sleep(0.35)
    assert len(flushes) == 1
    assert flushes[0] - last_edit >= 0.2 - 0.02 and flushes[0] - started > 0.6
