"""Over stdio, against a llama-server-like fake: `arbor/cursor` makes the server prefill the prompt
a completion at the resting cursor would send (a `n_predict: 0` request whose prefix ends there),
before any keystroke; a report for another version, or a malformed one, warms nothing."""

from __future__ import annotations

import asyncio

from tests.fakes.wire_servers import WireFake

from .conftest import backend_settings, start_client
from .test_completion_e2e import open_doc

MAIN = "def first():\n    return 1\n\n\ndef second(value):\n    \n"


def _warm_ups(fake: WireFake) -> list:
    return [r for r in fake.generation_requests() if r.body.get("stream") is False]


async def _settled(lsp, seconds: float = 1.0) -> None:
    """Long enough for the server's settle delay (0.3 s) and the warm-up to reach the fake."""
    await asyncio.sleep(seconds)
    await lsp.protocol.send_request_async("arbor/stats", {})


async def test_a_resting_cursor_is_warmed_before_the_first_keystroke(tmp_path):
    with WireFake("llamacpp", reply="pass") as fake:
        settings = backend_settings(fake.url, kind="llamacpp", name="llama")
        lsp = await start_client("vscode", settings, tmp_path)
        lsp.workspace_path = tmp_path
        try:
            uri = open_doc(lsp, MAIN, "main.py")
            lsp.protocol.notify("arbor/cursor", {"textDocument": {"uri": uri, "version": 2},
                                                 "position": {"line": 5, "character": 4}})
            lsp.protocol.notify("arbor/cursor", {"textDocument": {"uri": uri}, "position": {"line": -1}})
            await _settled(lsp)
            assert _warm_ups(fake) == []  # version 2 is not the document's; the other is malformed
            lsp.protocol.notify("arbor/cursor", {"textDocument": {"uri": uri, "version": 1},
                                                 "position": {"line": 5, "character": 4}})
            for _ in range(40):
                if _warm_ups(fake):
                    break
                await asyncio.sleep(0.05)
            (warm,) = _warm_ups(fake)
            assert warm.body.get("n_predict") == 0
            # llama-server's /infill: the lines before the cursor line are the prefix (the cursor
            # line and the suffix follow it there, evaluated again at every keystroke: not warmed)
            assert warm.body["input_prefix"].endswith("def second(value):\n") and warm.body["prompt"] == ""
            stats = await lsp.protocol.send_request_async("arbor/stats", {})
            assert stats.counters.cursor_invalid == 1 and stats.counters.cursor_reports == 1
        finally:
            await lsp.shutdown_session()
            await lsp.stop()
