"""The load test's LSP client against the real bare pygls server over stdio."""

import asyncio
import sys

from benchmarks.load.jsonrpc_client import LspClient, frame, read_message
from benchmarks.load.servers import bench_env


async def test_frame_and_read_message_round_trip_with_non_ascii_text():
    message = {"jsonrpc": "2.0", "method": "x", "params": {"text": "é😀"}}
    data = frame(message)
    header, body = data.split(b"\r\n\r\n", 1)
    assert header == b"Content-Length: %d" % len(body)
    reader = asyncio.StreamReader()
    reader.feed_data(data + data)
    reader.feed_eof()
    assert await read_message(reader) == message
    assert await read_message(reader) == message
    assert await read_message(reader) is None


async def test_client_talks_to_the_bare_server(tmp_path):
    client = await LspClient.spawn([sys.executable, "-m", "benchmarks.bare_server"], env=bench_env(),
                                   stderr_path=tmp_path / "stderr.log")
    try:
        reply = await client.initialize(tmp_path)
        assert reply.error is None
        assert "inlineCompletionProvider" in reply.result["capabilities"]
        uri = (tmp_path / "a.py").as_uri()
        client.notify("textDocument/didOpen",
                      {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": "x = 1\n"}})
        completion = await client.request("textDocument/inlineCompletion",
                                          {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 5},
                                           "context": {"triggerKind": 2}})
        assert completion.error is None
        assert completion.result["items"][0]["insertText"] == "pass"
        assert completion.received_at > 0
        unknown = await client.request("arborBench/barrier", None)
        assert unknown.error is not None and not unknown.cancelled
    finally:
        code = await client.shutdown()
    assert code == 0
    assert client.exited


async def test_pending_requests_resolve_with_an_error_when_the_server_dies(tmp_path):
    client = await LspClient.spawn([sys.executable, "-c", "import sys; sys.stdin.readline()"])
    pending = client.send_request("initialize", {})
    await client.drain()
    reply = await asyncio.wait_for(pending.future, 10)
    assert reply.error["message"] == "server exited"
    assert client.exited
    await client.shutdown()
