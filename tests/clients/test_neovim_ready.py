"""Headless Neovim + the arbor plugin + `fake_ready_server.py`: the plugin asks again on
`arbor/completionReady`, and only when the notification applies to what the buffer shows now.

The fake server holds a request on a "return" line until the plugin cancels it, then (a moment
later, as a finishing generation would) caches "a + b" and notifies; the plugin's second request
at the same uri/version/position is answered from that cache.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.clients.neovim_harness import EmbeddedNeovim, require_nvim

FAKE_SERVER = Path(__file__).with_name("fake_ready_server.py")
CLIENT_READY = ("vim.lsp.get_clients({bufnr=0, name='arbor'})[1] ~= nil "
                "and vim.lsp.get_clients({bufnr=0, name='arbor'})[1].initialized")
GHOST_SHOWN = "#require('arbor.ghost').marks(0) > 0"


class Session:
    def __init__(self, ed: EmbeddedNeovim, log: Path):
        self.ed = ed
        self.log = log

    def received(self, method: str) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        messages = [json.loads(line) for line in self.log.read_text().splitlines()]
        return [m for m in messages if m.get("method") == method]

    def count(self, kind: str) -> str:
        return (f"#vim.tbl_filter(function(e) return e.kind == '{kind}' end, "
                "require('arbor.completion').events(0))")

    def notify_ready(self, **overrides: Any) -> None:
        """Runs the client's own `arbor/completionReady` handler with the cursor's params, overridden."""
        self.ed.lua("""
            local overrides = ...
            local client = vim.lsp.get_clients({bufnr=0, name='arbor'})[1]
            local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
            local version = vim.lsp.util.buf_versions[vim.api.nvim_get_current_buf()]
            local ready = {uri = params.textDocument.uri, version = version, position = params.position}
            for key, value in pairs(overrides) do ready[key] = value end
            client.handlers['arbor/completionReady'](nil, ready, {client_id = client.id,
                                                                 method = 'arbor/completionReady'})""",
                    overrides)


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    require_nvim()
    (tmp_path / "main.py").write_text("def add(a, b):\n")
    log = tmp_path / "fake-server.jsonl"
    ed = EmbeddedNeovim(tmp_path)
    ed.nvim.command("edit main.py")
    cmd = [sys.executable, str(FAKE_SERVER), str(log), "0.3"]
    ed.lua("require('arbor').setup(...)", {"cmd": cmd, "debounce_ms": 20, "settings": {}})
    ed.wait_for(CLIENT_READY, what="the fake server to initialize")
    yield Session(ed, log)
    ed.close()


def test_a_request_cancelled_without_an_edit_is_asked_again_on_completion_ready(session):
    ed = session.ed
    # Characters of 2 and 4 bytes before the cursor: utf-16 columns differ from byte columns.
    ed.type("Go    return 'é😀' + ")
    first = ed.wait_for("require('arbor.completion').events(0)[1]", what="the first request")
    assert first["kind"] == "request"
    ed.type("<Left>")  # the cursor leaves: the plugin cancels, the server goes on generating
    ed.wait_for(f"{session.count('cancel')} == 1", what="the cancel")
    ed.type("<Right>")  # back where the request was asked, before the answer is ready
    ed.wait_for(GHOST_SHOWN, what="ghost text after arbor/completionReady")

    assert ed.marks()[0]["virt_text"] == "a + b"
    [ready] = ed.events("ready")
    assert ready["verdict"] == "request"
    requests = ed.events("request")
    assert len(requests) == 2 and requests[1]["tick"] == first["tick"]
    assert (requests[1]["row"], requests[1]["col"]) == (first["row"], first["col"])
    sent = session.received("textDocument/inlineCompletion")
    assert len(sent) == 2 and sent[0]["params"]["position"] == sent[1]["params"]["position"]
    assert sent[0]["params"]["position"] == {"line": 1, "character": len("    return 'é😀' + ".encode("utf-16-le")) // 2}
    assert len(session.received("$/cancelRequest")) == 1


def test_completion_ready_after_an_edit_asks_nothing(session):
    ed = session.ed
    ed.type("Go    return ")
    ed.wait_for(f"{session.count('request')} == 1")
    ed.type("<Left>")
    ed.wait_for(f"{session.count('cancel')} == 1")
    ed.type("<Right>")
    # The notification for the old version, as a server that ignored the edit would send it.
    version = ed.lua("return vim.lsp.util.buf_versions[vim.api.nvim_get_current_buf()]")
    ed.type("x")
    ed.wait_for(f"{session.count('request')} == 2", what="the request for the new text")
    session.notify_ready(version=version)
    ed.wait_for(f"{session.count('ready')} >= 1")
    verdicts = [e["verdict"] for e in ed.events("ready")]
    assert "request" not in verdicts and "other_version" in verdicts
    assert len(ed.events("request")) == 2


def test_completion_ready_that_does_not_match_is_ignored(session):
    ed = session.ed
    ed.type("Go    x = ")  # answered at once with no items: nothing in flight, nothing shown
    ed.wait_for(f"{session.count('response')} == 1", what="the empty answer")
    col = ed.lua("return vim.lsp.util.make_position_params(0, 'utf-16').position.character")
    version = ed.lua("return vim.lsp.util.buf_versions[vim.api.nvim_get_current_buf()]")
    cases = [
        ({"uri": "file:///elsewhere/other.py"}, "other_document"),
        ({"version": version + 1}, "other_version"),
        ({"position": {"line": 1, "character": col - 1}}, "moved"),
        ({"position": {"line": 0, "character": col}}, "moved"),
    ]
    for overrides, _ in cases:
        session.notify_ready(**overrides)
    session.notify_ready(version="7")  # malformed: dropped before the plugin sees it
    verdicts = [e["verdict"] for e in ed.events("ready")]
    assert verdicts == [verdict for _, verdict in cases]
    assert len(ed.events("request")) == 1

    # The same notification out of Insert mode is ignored too; back in Insert mode it applies.
    ed.type("<Esc>")
    ed.wait_for("vim.api.nvim_get_mode().mode == 'n'")
    session.notify_ready()
    assert ed.events("ready")[-1]["verdict"] == "not_insert"
    ed.type("a")
    ed.wait_for("vim.api.nvim_get_mode().mode == 'i'")
    session.notify_ready()
    ed.wait_for(f"{session.count('request')} == 2", what="the request asked on the notification")
    assert ed.events("ready")[-1]["verdict"] == "request"


def test_completion_ready_where_ghost_text_is_shown_asks_nothing(session):
    ed = session.ed
    ed.type("Go    ok = ")
    ed.wait_for(GHOST_SHOWN)
    session.notify_ready()
    ed.wait_for(f"{session.count('ready')} == 1")
    assert ed.events("ready")[0]["verdict"] == "shown"
    assert len(ed.events("request")) == 1
    assert ed.marks()[0]["virt_text"] == "True"


def test_a_loading_model_shows_in_the_statusline(session):
    ed = session.ed
    assert ed.lua("return require('arbor').statusline()") == "arbor: idle"
    ed.lua("""
        local client = vim.lsp.get_clients({bufnr=0, name='arbor'})[1]
        client.handlers['arbor/status'](nil, {state = 'loading', message = 'loading qwen2.5-coder-0.5b'},
                                        {client_id = client.id, method = 'arbor/status'})""")
    assert ed.lua("return require('arbor').statusline()") == "arbor: loading model"
    assert ed.lua("return require('arbor').status().message") == "loading qwen2.5-coder-0.5b"
