"""The server started the way editors start it: the installed `arbor-ls` command with the transport
flag a client appends (`--stdio` from vscode-languageclient, Helix, eglot, Sublime LSP, Zed;
`--port N` / `--tcp HOST:PORT` for clients that connect over TCP), completing over that transport."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import make_test_lsp_client

from .conftest import backend_settings, capabilities_of, server_env

ARBOR_LS = Path(sys.executable).with_name("arbor-ls")
TEXT = "def add(a, b):\n    \n"


@pytest.fixture(scope="module", autouse=True)
def installed_command():
    assert ARBOR_LS.exists(), f"{ARBOR_LS} is missing: run `make setup` (pip install -e .)"


async def initialize(client: LanguageClient, url: str, root: Path) -> None:
    await client.initialize_session(types.InitializeParams(
        capabilities=capabilities_of("vscode"), initialization_options=backend_settings(url),
        root_uri=root.as_uri(), workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)]))


async def complete_once(client: LanguageClient, root: Path) -> list[str]:
    path = root / "sample.py"
    path.write_text(TEXT)
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=path.as_uri(), language_id="python", version=1, text=TEXT)))
    result = await client.text_document_inline_completion_async(types.InlineCompletionParams(
        text_document=types.TextDocumentIdentifier(uri=path.as_uri()), position=types.Position(line=1, character=4),
        context=types.InlineCompletionContext(trigger_kind=types.InlineCompletionTriggerKind.Invoked)))
    return [item.insert_text for item in result.items]


async def test_arbor_ls_dash_dash_stdio_completes(fake_backend, tmp_path):
    config = ClientServerConfig(server_command=[str(ARBOR_LS), "--stdio"], server_env=server_env(tmp_path))
    client = await config.start()
    try:
        await initialize(client, fake_backend.url, tmp_path)
        assert await complete_once(client, tmp_path) == ["return a + b"]
        assert fake_backend.requests, "the completion went to the backend"
        await client.shutdown_session()
    finally:
        await client.stop()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def connect_when_listening(client: LanguageClient, server: asyncio.subprocess.Process, port: int) -> None:
    """Connects once the server listens: the server imports its model stack first (seconds)."""
    for _ in range(600):  # 60 s at most
        if server.returncode is not None:
            raise AssertionError(f"server exited with {server.returncode}")
        try:
            await client.start_tcp("127.0.0.1", port)
            return
        except OSError:
            await asyncio.sleep(0.1)
    raise AssertionError(f"nothing listened on port {port}")


@pytest.mark.parametrize("flags", [["--port", "{port}"], ["--tcp", "127.0.0.1:{port}"], ["serve", "--port", "{port}"]])
async def test_arbor_ls_over_tcp_completes(fake_backend, tmp_path, flags):
    port = free_port()
    server = await asyncio.create_subprocess_exec(
        str(ARBOR_LS), *(f.format(port=port) for f in flags), env=server_env(tmp_path),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    client = make_test_lsp_client()
    try:
        await connect_when_listening(client, server, port)
        await initialize(client, fake_backend.url, tmp_path)
        assert await complete_once(client, tmp_path) == ["return a + b"]
        await client.shutdown_session()
        await client.stop()
        assert await asyncio.wait_for(server.wait(), 30) == 0
    finally:
        with contextlib.suppress(ProcessLookupError):
            server.kill()
        await server.wait()
