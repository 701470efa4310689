"""End to end: headless Neovim 0.11 + the arbor plugin + the real arbor-ls + a fake model on loopback.

Each test starts Neovim, calls `require('arbor').setup{...}` with the real server command and a
backend pointing at `FakeOpenAIServer`, types into a Python buffer and checks what a user would
see (ghost-text extmarks) and get (the buffer's text after accepting).
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


class Replies:
    """A reply function for the fake backend: the first rule whose marker occurs in the prompt wins."""

    def __init__(self, default: str):
        self.default = default
        self.rules: list[tuple[str, str]] = []

    def __call__(self, body: dict[str, Any]) -> str:
        prompt = body.get("prompt", "")
        for marker, reply in self.rules:
            if marker in prompt:
                return reply
        return self.default


@pytest.fixture
def fake() -> Iterator[FakeOpenAIServer]:
    server = FakeOpenAIServer(Replies("a + b")).start()
    yield server
    server.stop()


@pytest.fixture
def editor(tmp_path: Path, fake: FakeOpenAIServer) -> Iterator[EmbeddedNeovim]:
    require_nvim()
    (tmp_path / "main.py").write_text("def add(a, b):\n")
    ed = EmbeddedNeovim(tmp_path)
    yield ed
    ed.close()


def start(ed: EmbeddedNeovim, fake: FakeOpenAIServer, file: str = "main.py", **setup: Any) -> None:
    ed.nvim.command(f"edit {file}")
    opts = {"cmd": server_command(), "settings": backend_settings(fake.url), "debounce_ms": 20, **setup}
    ed.lua("require('arbor').setup(...)", opts)
    ed.wait_for(CLIENT_READY, what="arbor-ls to start and initialize")


def stats(ed: EmbeddedNeovim) -> dict[str, Any]:
    result = ed.lua("""
        local client = vim.lsp.get_clients({bufnr=0, name='arbor'})[1]
        local response = client:request_sync('arbor/stats', vim.empty_dict(), 5000, 0)
        return response and response.result""")
    return result or {}


def wait_for_counter(ed: EmbeddedNeovim, name: str, value: int, timeout: float = 10.0) -> dict[str, Any]:
    """Polls `arbor/stats` until counter `name` reaches `value` (notifications are asynchronous)."""
    deadline = time.monotonic() + timeout
    while True:
        counters = stats(ed).get("counters", {})
        if counters.get(name, 0) >= value or time.monotonic() > deadline:
            assert counters.get(name, 0) == value, counters
            return counters
        time.sleep(0.05)


def test_plugin_starts_real_server_and_shows_ghost_text_that_tab_accepts(editor, fake):
    start(editor, fake)
    client = editor.lua("local c = vim.lsp.get_clients({bufnr=0, name='arbor'})[1]; "
                        "return {name=c.name, cmd=c.config.cmd, server=c.server_info and c.server_info.name}")
    assert client["cmd"] == server_command()
    assert client["server"] == "arbor-ls"

    editor.type("Go    return ")
    editor.wait_for(GHOST_SHOWN, what="ghost text")
    assert editor.marks() == [{"row": 1, "col": 11, "virt_text": "a + b", "virt_lines": []}]
    # The backend saw the buffer as typed: the prompt ends at the cursor.
    assert "def add(a, b):\n    return " in fake.requests[-1]["prompt"]

    editor.type("<Tab>")
    editor.wait_for("not require('arbor').visible()", what="ghost cleared after accept")
    assert editor.lines() == ["def add(a, b):", "    return a + b"]
    assert editor.cursor() == (2, 16)
    assert editor.lua("return vim.api.nvim_get_mode().mode") == "i"
    counters = wait_for_counter(editor, "accepted_full", 1)
    assert counters["accepted_chars"] == len("a + b")


def test_multi_line_completion_uses_virt_lines_and_accepts_exactly(editor, fake):
    body = "    total = 0\n    for x in items:\n        total += x\n    return total"
    fake.reply.default = body
    (Path(editor.lua("return vim.fn.getcwd()")) / "sum.py").write_text("def total(items):\n")
    start(editor, fake, "sum.py")
    editor.type("Go")
    editor.wait_for(GHOST_SHOWN, what="multi-line ghost text")
    [mark] = editor.marks()
    assert mark["row"] == 1 and mark["col"] == 0
    assert mark["virt_text"] == "    total = 0"
    assert mark["virt_lines"] == ["    for x in items:", "        total += x", "    return total"]
    editor.type("<Tab>")
    editor.wait_for("not require('arbor').visible()")
    assert "\n".join(editor.lines()) == "def total(items):\n" + body
    assert editor.cursor() == (5, len("    return total"))


def test_cursor_move_clears_ghost_text(editor, fake):
    start(editor, fake)
    editor.type("Go    return ")
    editor.wait_for(GHOST_SHOWN)
    editor.type("<Left>")
    editor.wait_for("#require('arbor.ghost').marks(0) == 0", what="ghost cleared by the cursor move")
    assert [e["reason"] for e in editor.events("clear")] == ["moved"]
    assert editor.lines()[1] == "    return "
    wait_for_counter(editor, "rejected_cleared", 1)


def test_leaving_insert_mode_clears_ghost_text(editor, fake):
    start(editor, fake)
    editor.type("Go    return ")
    editor.wait_for(GHOST_SHOWN)
    editor.type("<Esc>")
    editor.wait_for("#require('arbor.ghost').marks(0) == 0", what="ghost cleared on InsertLeave")
    assert editor.lines()[1] == "    return "


def test_request_for_an_outdated_buffer_version_is_cancelled(editor, fake):
    # The first request (prompt ends in "x = ") streams slowly; typing one more character makes
    # it outdated: the plugin must cancel it and never show its answer.
    fake.reply.rules.append(("x = <|fim_suffix|>", "STALE_ANSWER_FROM_OLD_VERSION"))
    fake.reply.default = "fresh()"
    fake.chunk_size = 1
    fake.chunk_delay = 0.2
    start(editor, fake)
    editor.type("Gox = ")
    first = editor.wait_for("require('arbor.completion').events(0)[1]", what="the first request")
    assert first["kind"] == "request"
    assert fake.request_started.wait(10), "the server never called the backend"
    fake.chunk_delay = 0.0  # the next request answers at once
    editor.type("y")
    editor.wait_for(GHOST_SHOWN, what="ghost text for the new version")

    cancels = editor.events("cancel")
    assert cancels[0]["id"] == first["id"]
    assert cancels[0]["reason"] == "outdated"
    requests = editor.events("request")
    assert requests[-1]["tick"] > first["tick"]
    assert editor.marks()[0]["virt_text"] == "fresh()"
    # The old answer never reaches the screen, even after the slow stream would have finished.
    time.sleep(0.5)
    assert all("STALE" not in mark["virt_text"] for mark in editor.marks())
    assert not [e for e in editor.events("show") if "STALE" in e["text"]]
    # The cancellation reached the server, which closed the backend's HTTP stream.
    counters = stats(editor).get("counters", {})
    assert counters.get("cancelled", 0) + counters.get("superseded", 0) >= 1, counters
    assert fake.disconnected.wait(10), "the slow backend stream was never closed"


def test_accept_word_and_line_insert_parts_and_keep_the_rest(editor, fake):
    fake.reply.default = "compute_total(items, tax)"
    start(editor, fake)
    editor.type("Go    return ")
    editor.wait_for(GHOST_SHOWN)
    editor.type("<M-w>")
    editor.wait_for("vim.api.nvim_get_current_line() == '    return compute_total'", what="word accepted")
    assert editor.marks()[0]["virt_text"] == "(items, tax)"
    editor.type("<M-l>")
    editor.wait_for("not require('arbor').visible()")
    assert editor.lines()[1] == "    return compute_total(items, tax)"
    assert [(e["part"], e["chars"]) for e in editor.events("accept")] == [("word", 13), ("line", 12)]
    wait_for_counter(editor, "accepted_line", 1)
    counters = wait_for_counter(editor, "accepted_word", 1)
    assert counters["accepted_chars"] == 25 and "accepted_full" not in counters


def test_typing_through_the_ghost_keeps_the_rest(editor, fake):
    fake.reply.default = "a + b"
    start(editor, fake)
    editor.type("Go    return ")
    editor.wait_for(GHOST_SHOWN)
    fake.reply.default = ""  # whatever the server says next, the typed-through ghost stays
    editor.type("a")
    editor.wait_for("vim.api.nvim_get_current_line() == '    return a'")
    marks = editor.marks()
    assert marks and marks[0]["virt_text"] == " + b"


def test_dismiss_clears_and_tab_falls_back_to_a_tab(editor, fake):
    start(editor, fake)
    editor.type("Go    return ")
    editor.wait_for(GHOST_SHOWN)
    editor.type("<C-]>")
    editor.wait_for("not require('arbor').visible()")
    assert [e["reason"] for e in editor.events("clear")] == ["dismissed"]
    wait_for_counter(editor, "rejected_dismissed", 1)
    editor.type("<Tab>")
    editor.wait_for("vim.api.nvim_get_current_line() == '    return \\t'", what="a literal tab")


def test_status_and_context_commands(editor, fake):
    start(editor, fake)
    editor.type("Go    return ")
    editor.wait_for(GHOST_SHOWN)
    assert editor.lua("return require('arbor').statusline()") == "arbor: idle"
    editor.type("<Esc>")
    editor.nvim.command("ArborStatus")
    editor.wait_for("vim.fn.execute('messages'):find('arbor%-ls: idle') ~= nil", what=":ArborStatus output")
    messages = editor.lua("return vim.fn.execute('messages')")
    assert "backend fake" in messages and "requests=" in messages
    editor.nvim.command("ArborContext")
    editor.wait_for("vim.bo.filetype == 'json'", what=":ArborContext scratch buffer")
    text = "\n".join(editor.lines())
    assert '"prefix": "def add(a, b):\\n    return "' in text
    assert '"template":' in text and '"snippets":' in text


def test_backend_failure_is_reported_as_backend_down(editor, fake):
    fake.status = 500
    start(editor, fake)
    editor.type("Go    return ")
    status = editor.wait_for("require('arbor').status().state == 'error' and require('arbor').status()",
                             what="arbor/status error")
    assert status["backend"]
    assert editor.lua("return require('arbor').statusline()").startswith("arbor: backend down")
    assert editor.marks() == []


def test_stale_answer_for_a_moved_cursor_is_dropped(editor, fake):
    fake.chunk_size = 1
    fake.chunk_delay = 0.1
    start(editor, fake)
    editor.type("Go    return ")
    editor.wait_for("require('arbor.completion').events(0)[1]")
    assert fake.request_started.wait(10)
    editor.type("<Left>")
    editor.wait_for("#vim.tbl_filter(function(e) return e.kind == 'cancel' end, "
                    "require('arbor.completion').events(0)) > 0", what="cancel on cursor move")
    assert editor.events("cancel")[0]["reason"] == "moved"
    time.sleep(1.0)
    assert editor.marks() == []


def test_toggle_stops_requests_and_update_settings_reaches_the_server(editor, fake):
    start(editor, fake)
    editor.nvim.command("ArborToggle")
    editor.type("Go    return ")
    editor.wait_for("vim.api.nvim_get_current_line() == '    return '")
    time.sleep(0.3)  # well past debounce_ms: a request would have been sent by now
    assert editor.events("request") == []
    assert editor.lua("return require('arbor').statusline()") == "arbor: off"
    editor.nvim.command("ArborToggle")

    # New settings (another backend) go to the running server as workspace/didChangeConfiguration.
    with FakeOpenAIServer("from_the_new_backend") as other:
        editor.lua("require('arbor').update_settings(...)", backend_settings(other.url))
        editor.type("x")
        editor.wait_for(GHOST_SHOWN, what="ghost text from the new backend")
        assert editor.marks()[0]["virt_text"] == "from_the_new_backend"
        assert other.requests and not any("return x" in r.get("prompt", "") for r in fake.requests)


def test_the_place_left_in_another_buffer_reaches_the_next_prompt(editor, fake):
    """The cursor rests on line 31 of prices.py (the plugin reports it: `arbor/cursor`), then
    `:edit report.py` (prices.py stays loaded, as Neovim keeps a hidden buffer) and a completion
    there: report.py's prompt shows the lines around line 31 of prices.py, which nothing in
    report.py names."""
    root = Path(editor.lua("return vim.fn.getcwd()"))
    (root / "prices.py").write_text("".join(f"TAX_RATE_{i} = 0.{i:02d}\n" for i in range(40)))
    (root / "report.py").write_text("def render(rows):\n")
    start(editor, fake, "prices.py")
    editor.type("31G")
    wait_for_counter(editor, "cursor_reports", 1)  # the plugin reports a cursor that rests 150 ms
    editor.nvim.command("edit report.py")
    editor.wait_for(CLIENT_READY, what="arbor attached to report.py")
    before = len(fake.requests)
    editor.type("Go    ")
    editor.wait_for(GHOST_SHOWN, what="ghost text in report.py")
    prompt = fake.requests[-1]["prompt"]
    assert len(fake.requests) > before and "def render(rows):\n    " in prompt
    snippets = prompt.split("<|fim_prefix|>")[0]
    assert "".join(f"TAX_RATE_{i} = 0.{i:02d}\n" for i in range(25, 36)) in snippets
