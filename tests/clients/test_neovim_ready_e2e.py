"""End to end: headless Neovim + the arbor plugin + the real arbor-ls + a slow fake model.

The plugin cancels a request when the cursor leaves without an edit; the real server lets that
generation finish into its cache and sends `arbor/completionReady`; the plugin, its cursor back
at the request's position, asks again and shows the cached answer without a second backend call.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.clients.neovim_harness import EmbeddedNeovim, backend_settings, require_nvim, server_command
from tests.fakes.openai_server import FakeOpenAIServer

CLIENT_READY = ("vim.lsp.get_clients({bufnr=0, name='arbor'})[1] ~= nil "
                "and vim.lsp.get_clients({bufnr=0, name='arbor'})[1].server_capabilities ~= nil")
GHOST_SHOWN = "#require('arbor.ghost').marks(0) > 0"
ANSWER = "a + b"
CHUNK_DELAY_S = 0.3  # one character per chunk: the answer takes 1.5 s


@pytest.fixture
def slow() -> Iterator[FakeOpenAIServer]:
    server = FakeOpenAIServer(ANSWER, chunk_size=1, chunk_delay=CHUNK_DELAY_S).start()
    yield server
    server.stop()


@pytest.fixture
def editor(tmp_path: Path, slow: FakeOpenAIServer) -> Iterator[EmbeddedNeovim]:
    require_nvim()
    (tmp_path / "main.py").write_text("def add(a, b):\n")
    ed = EmbeddedNeovim(tmp_path)
    ed.nvim.command("edit main.py")
    ed.lua("require('arbor').setup(...)", {"cmd": server_command(), "settings": backend_settings(slow.url),
                                            "debounce_ms": 20})
    ed.wait_for(CLIENT_READY, what="arbor-ls to start and initialize")
    yield ed
    ed.close()


def counters(ed: EmbeddedNeovim) -> dict[str, Any]:
    result = ed.lua("""
        local client = vim.lsp.get_clients({bufnr=0, name='arbor'})[1]
        local response = client:request_sync('arbor/stats', vim.empty_dict(), 5000, 0)
        return response and response.result""")
    return (result or {}).get("counters", {})


def test_cancelled_without_an_edit_then_ready_then_served_from_the_cache(editor, slow):
    editor.type("Go    return ")
    first = editor.wait_for("require('arbor.completion').events(0)[1]", what="the first request")
    assert slow.request_started.wait(10), "the server never called the backend"
    editor.type("<Left>")  # no edit: the plugin cancels, the server lets the generation finish
    editor.wait_for("#vim.tbl_filter(function(e) return e.kind == 'cancel' end, "
                    "require('arbor.completion').events(0)) == 1", what="the cancel")
    editor.type("<Right>")
    started = time.monotonic()
    editor.wait_for(GHOST_SHOWN, timeout=15, what="ghost text after arbor/completionReady")
    waited = time.monotonic() - started

    assert editor.marks()[0]["virt_text"] == ANSWER
    assert [e["verdict"] for e in editor.events("ready")] == ["request"]
    requests = editor.events("request")
    assert len(requests) == 2 and requests[1]["tick"] == first["tick"]
    assert len(slow.requests) == 1, "the second request must be served from the cache"
    assert not slow.disconnected.is_set(), "the generation the client gave up on was aborted"
    assert waited < len(ANSWER) * CHUNK_DELAY_S + 5
    assert counters(editor).get("ready_notified") == 1


def test_an_edit_after_the_cancel_aborts_the_generation_and_sends_no_ready(editor, slow):
    editor.type("Go    return ")
    editor.wait_for("require('arbor.completion').events(0)[1]", what="the first request")
    assert slow.request_started.wait(10)
    editor.type("<Left>")
    editor.wait_for("#vim.tbl_filter(function(e) return e.kind == 'cancel' end, "
                    "require('arbor.completion').events(0)) == 1", what="the cancel")
    editor.type("<Right>x")  # an edit: the detached generation is stale
    assert slow.disconnected.wait(10), "the stale generation's stream was never closed"
    # The new text's own request streams as long as the old one would have: once its answer
    # shows, a notification for the old one would have come already.
    editor.wait_for(GHOST_SHOWN, timeout=15, what="ghost text for the edited line")
    assert editor.lines()[1] == "    return x"
    assert editor.events("ready") == []
    assert counters(editor).get("ready_notified", 0) == 0
