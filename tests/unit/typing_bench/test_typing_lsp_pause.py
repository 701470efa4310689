"""The VS Code-like pause: cancel after the deadline, ask again on a matching completionReady,
stop at the first ghost text, read the answering entry from arbor/stats."""

import asyncio
from pathlib import Path

from benchmarks.load.jsonrpc_client import Pending, Reply
from benchmarks.typing.lsp_typist import COMPLETION_READY, LspTypist
from benchmarks.typing.trace import build_trace

LINES = ["def f(a):", "    return a", "x = 1"]


class FakeClient:
    """Answers the first inlineCompletion only by a cancellation, then announces the answer as
    ready; the second request gets ghost text."""

    on_notification = None

    def __init__(self, ready_version_offset=0):
        self.sent, self.cancelled, self.next_id = [], [], 0
        self.ready_version_offset = ready_version_offset
        self.typist = None

    def notify(self, method, params):
        return asyncio.get_running_loop().time()

    async def drain(self):
        return None

    def send_request(self, method, params):
        loop = asyncio.get_running_loop()
        self.next_id += 1
        pending = Pending(self.next_id, method, loop.time(), loop.create_future())
        self.sent.append((pending, params))
        if len(self.sent) == 2:
            pending.future.set_result(Reply({"items": [{"insertText": "return a"}]}, None, loop.time()))
        return pending

    def cancel(self, pending):
        if pending.future.done():
            return
        self.cancelled.append(pending.id)
        pending.future.set_result(Reply(None, {"code": -32800, "message": "cancelled"}, 0.0))
        params = self.sent[0][1]
        self.on_notification(COMPLETION_READY, {"uri": params["textDocument"]["uri"],
                                                "version": self.typist.version + self.ready_version_offset,
                                                "position": params["position"]})

    async def request(self, method, params, timeout=None):
        uri = self.sent[0][1]["textDocument"]["uri"]
        entries = [{"uri": uri, "version": self.typist.version, "line": 1, "character": 4,
                    "cache": c, "backend": "embedded", "promptTokens": 900, "prefilledTokens": n, "ms": 1}
                   for c, n in ((None, 40), ("exact", 0))]
        return Reply({"recentCompletions": entries}, None, 0.0)


def run_pause(client):
    trace = build_trace("python:m.py:f", "python", "m.py", LINES, 1, 2, max_lines=5, seed=1)
    typist = LspTypist(client, Path("/tmp/ws"), trace, "arbor", pause_timeout_s=0.5, cancel_after_s=0.01)
    client.typist = typist

    async def go():
        loop = asyncio.get_running_loop()
        typist.clock = loop.time
        await typist.open()
        for step in trace.steps[:1]:
            await typist.edit(step)
        return await typist.pause(trace.pauses[0], loop.time())

    return asyncio.run(go())


def test_cancel_then_ready_then_ghost_text_from_the_second_request():
    client = FakeClient()
    record = run_pause(client)
    assert client.cancelled == [1]
    assert record.asks == 2 and record.ready_notifications == 1
    assert record.ghost == "return a" and record.exact
    assert record.prefilled_tokens == 0 and record.cache == "exact" and record.prefilled_pause_total == 40


def test_ready_for_another_version_is_ignored():
    record = run_pause(FakeClient(ready_version_offset=-1))
    assert record.asks == 1 and record.ghost is None and record.latency_ms is None
