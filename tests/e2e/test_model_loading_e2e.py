"""The model loads when the server starts: `$/progress` and an "arbor/status" of "loading" while it
loads, requests meanwhile answered empty at once without a breaker failure, completions after."""

from __future__ import annotations

import asyncio
import time

from lsprotocol import types

from .conftest import start_client
from .test_completion_e2e import SAMPLE, inline_at, open_doc

SETTINGS = {"backends": [{"name": "slow", "kind": "python",
                          "model": "tests.fakes.slow_loading_backend:SlowLoadingBackend"}]}


async def test_requests_while_the_model_loads_are_answered_empty_at_once(tmp_path, monkeypatch):
    monkeypatch.setenv("ARBOR_TEST_LOAD_S", "3")
    statuses: list = []
    lsp = await start_client("vscode", SETTINGS, tmp_path)
    lsp.client_name, lsp.workspace_path = "vscode", tmp_path

    @lsp.feature("arbor/status")
    def on_status(params) -> None:
        statuses.append(params)

    try:
        uri = open_doc(lsp, SAMPLE)
        here = types.Position(line=1, character=4)
        for _ in range(4):
            started = time.monotonic()
            answer = await inline_at(lsp, uri, here)
            assert list(answer.items) == [] and time.monotonic() - started < 1.0
        stats = await lsp.protocol.send_request_async("arbor/stats", {})
        assert stats.counters.loading == 4 and not hasattr(stats.counters, "errors")
        assert stats.backends[0].breaker == "closed"
        for _ in range(100):
            if statuses and statuses[-1].state == "idle":
                break
            await asyncio.sleep(0.1)
        assert "loading" in [s.state for s in statuses] and statuses[-1].state == "idle"
        answer = await inline_at(lsp, uri, here)
        assert [i.insert_text for i in answer.items] == ["return a + b"]
        loading = [reports for reports in lsp.progress_reports.values()
                   if reports and "loading model" in (getattr(reports[0], "message", "") or "")]
        assert loading and type(loading[0][-1]).__name__ == "WorkDoneProgressEnd"
    finally:
        await lsp.shutdown_session()
        await lsp.stop()
