"""lsp_server.protocol: document sync without pygls's copy, stdin read on the event loop."""

import os
import subprocess
import sys
from pathlib import Path

from benchmarks.load.jsonrpc_client import LspClient, frame
from benchmarks.load.servers import bench_env

SERVER = [sys.executable, str(Path(__file__).with_name("load_protocol_server.py"))]


async def test_handlers_see_every_document_event_in_order_and_pygls_keeps_no_copy(tmp_path):
    client = await LspClient.spawn(SERVER, env=bench_env(), stderr_path=tmp_path / "err.log")
    try:
        assert (await client.initialize(tmp_path)).error is None
        uri = (tmp_path / "a.py").as_uri()
        client.notify("textDocument/didOpen",
                      {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": "x\n"}})
        pos = {"line": 0, "character": 1}
        for version, text in ((2, "y"), (3, "boom"), (4, "z")):
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                     "contentChanges": [{"range": {"start": pos, "end": pos},
                                                                         "text": text}]})
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 5},
                                                 "contentChanges": [{"text": "whole\n"}]})
        client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        reply = await client.request("arborTest/seen", None)
    finally:
        await client.shutdown()
    assert reply.error is None, client.stderr_tail()
    assert reply.result["events"] == [
        ["open", uri, "x\n"],
        ["change", 2, "partial", "y"],
        ["change", 4, "partial", "z"],  # the failing handler (version 3) did not stop the loop
        ["change", 5, "whole", "whole\n"],
        ["close", uri],
    ]
    assert reply.result["pygls_documents"] == 0
    assert reply.result["reader"] == "event-loop"


def test_stdin_from_a_regular_file_falls_back_to_pygls_reader(tmp_path):
    messages = tmp_path / "in.bin"
    messages.write_bytes(
        frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
        + frame({"jsonrpc": "2.0", "id": 3, "method": "arborTest/seen", "params": None})
        + frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
        + frame({"jsonrpc": "2.0", "method": "exit"})
    )
    with messages.open("rb") as stdin:
        done = subprocess.run(SERVER, stdin=stdin, capture_output=True, timeout=60, env={**os.environ, **bench_env()})
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert b'"id": 1' in done.stdout and b'"capabilities"' in done.stdout
    assert b'"id": 2' in done.stdout
    assert b'"reader": "thread"' in done.stdout
