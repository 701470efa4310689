"""Headless Neovim + the arbor plugin + `fake_ready_server.py` (which logs what it receives): a
cursor that rests is reported with `arbor/cursor` once, with the buffer's version and a UTF-16
column; moves that do not rest are not reported."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.clients.neovim_harness import EmbeddedNeovim, require_nvim

FAKE_SERVER = Path(__file__).with_name("fake_ready_server.py")
CLIENT_READY = ("vim.lsp.get_clients({bufnr=0, name='arbor'})[1] ~= nil "
                "and vim.lsp.get_clients({bufnr=0, name='arbor'})[1].initialized")


def received(log: Path, method: str) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [m for m in map(json.loads, log.read_text().splitlines()) if m.get("method") == method]


def wait_for_reports(log: Path, count: int, timeout_s: float = 10.0) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        reports = received(log, "arbor/cursor")
        if len(reports) >= count:
            return reports
        time.sleep(0.05)
    raise AssertionError(f"expected {count} arbor/cursor reports, got {received(log, 'arbor/cursor')}")


@pytest.fixture
def session(tmp_path: Path) -> Iterator[tuple[EmbeddedNeovim, Path]]:
    require_nvim()
    (tmp_path / "main.py").write_text("def add(a, b):\n    s = 'é😀' + x\n    return s\n")
    log = tmp_path / "fake-server.jsonl"
    ed = EmbeddedNeovim(tmp_path)
    ed.nvim.command("edit main.py")
    cmd = [sys.executable, str(FAKE_SERVER), str(log), "0.3"]
    ed.lua("require('arbor').setup(...)", {"cmd": cmd, "debounce_ms": 20, "settings": {}})
    ed.wait_for(CLIENT_READY, what="the fake server to initialize")
    yield ed, log
    ed.close()


def test_a_resting_cursor_is_reported_once_with_a_utf16_column(session):
    ed, log = session
    ed.nvim.command("call cursor(2, 1)")
    ed.type("f+")  # normal mode: to the '+' after 'é😀' (byte column 15, UTF-16 column 13)
    (report,) = wait_for_reports(log, 1)
    version = ed.lua("return vim.lsp.util.buf_versions[vim.api.nvim_get_current_buf()]")
    params = report["params"]
    assert params["textDocument"] == {"uri": (log.parent / "main.py").resolve().as_uri(), "version": version}
    assert params["position"] == {"line": 1, "character": len("    s = 'é😀' ".encode("utf-16-le")) // 2}
    time.sleep(0.5)
    assert len(received(log, "arbor/cursor")) == 1  # it stays put: not reported again


def test_moves_that_do_not_rest_are_not_reported(session):
    ed, log = session
    ed.lua("""
        for row = 1, 3 do vim.api.nvim_win_set_cursor(0, {row, 0}); vim.cmd('doautocmd CursorMoved') end
    """)
    (report,) = wait_for_reports(log, 1)
    assert report["params"]["position"] == {"line": 2, "character": 0}
    time.sleep(0.4)
    assert len(received(log, "arbor/cursor")) == 1
