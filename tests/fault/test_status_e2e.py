"""The real server over stdio with a backend that refuses connections: `arbor/status` carries the
breaker's transitions with the real cause, names the backend once, and is not re-sent while
nothing changes; every completion is answered (empty) and none is an error."""

from __future__ import annotations

import asyncio
import socket

from lsprotocol import types

from tests.e2e.conftest import start_client
from tests.e2e.test_completion_e2e import inline_at, open_doc


def refused_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"  # nothing listens there once the probe is closed


async def test_status_reports_the_breaker_with_the_real_cause_once(tmp_path):
    settings = {"backends": [{"name": "down", "kind": "openai", "url": refused_url(), "model": "m",
                              "modelFamily": "qwen2.5-coder"}],
                "breaker": {"minRequests": 3},
                "completion": {"speculate": False, "warmUp": False}}
    lsp = await start_client("vscode", settings, tmp_path)
    lsp.workspace_path = tmp_path
    statuses: list = []

    @lsp.feature("arbor/status")
    def on_status(params) -> None:
        statuses.append(params)

    try:
        uri = open_doc(lsp, "def add(a, b):\n    \n")
        for _ in range(3):
            answer = await inline_at(lsp, uri, types.Position(line=1, character=4))
            assert list(answer.items) == []
        await asyncio.sleep(0.2)
        opened = [s for s in statuses if s.breaker == "open" and "is failing" in s.message]
        assert len(opened) == 1, [s.message for s in statuses]
        assert opened[0].state == "error" and opened[0].backend == "down"
        assert opened[0].message == "down is failing (ConnectError: All connection attempts failed); skipped for 30 s"
        for status in statuses:
            assert "down: down" not in status.message and not status.message.endswith("circuit open")
        for _ in range(2):  # skipped by the breaker: the status says why, once
            await inline_at(lsp, uri, types.Position(line=1, character=4))
        await asyncio.sleep(0.2)
        assert statuses[-1].message == "down: ConnectError: All connection attempts failed (circuit open for 30 s)"
        seen = len(statuses)
        for _ in range(5):
            answer = await inline_at(lsp, uri, types.Position(line=1, character=4))
            assert list(answer.items) == []
        await asyncio.sleep(0.2)
        new = [s for s in statuses[seen:] if s.state != "working"]
        assert new == [], [s.message for s in new]  # nothing changed, nothing re-sent
        stats = await lsp.protocol.send_request_async("arbor/stats", {})
        row = stats.backends[0]
        assert row.breaker == "open" and row.lastError == "ConnectError: All connection attempts failed"
        assert row.maxInFlight == 4
    finally:
        await lsp.shutdown_session()
        await lsp.stop()
