"""End-to-end fixtures: the real server as a subprocess on stdio (pytest-lsp), presenting the
capabilities of real clients, with a fake OpenAI-compatible backend on 127.0.0.1."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.fakes.openai_server import FakeOpenAIServer

SERVER = [sys.executable, "-m", "lsp_server.cli", "serve", "--stdio"]


def capabilities_of(client: str) -> types.ClientCapabilities:
    """Real clients' capability sets. VS Code with vscode-languageclient 11 also advertises
    inline completion, which the recorded 1.65 set predates, so it is added here."""
    if client == "neovim":
        return client_capabilities("neovim@v0.11.0")
    caps = client_capabilities("visual-studio-code")
    caps.text_document.inline_completion = types.InlineCompletionClientCapabilities(dynamic_registration=True)
    return caps


def backend_settings(url: str, **overrides: Any) -> dict[str, Any]:
    backend = {"name": "fake", "kind": "openai", "url": url, "model": "fake-coder",
               "modelFamily": "qwen2.5-coder", "timeoutMs": 5000}
    backend.update(overrides)
    # speculation sends requests of its own (tested on its own in test_anticipation_e2e.py)
    return {"backends": [backend], "completion": {"multiline": "auto", "speculate": False}}


@pytest.fixture
def fake_backend() -> Any:
    with FakeOpenAIServer("return a + b", chunk_size=3) as server:
        yield server


def server_env(root: Path) -> dict[str, str]:
    """The server's environment: caches under the test's own directory, never the user's."""
    cache_home = root.parent / f"{root.name}-cache"
    cache_home.mkdir(exist_ok=True)
    return {**os.environ, "XDG_CACHE_HOME": str(cache_home)}


async def start_client(client_name: str, settings: dict[str, Any], root: Path) -> LanguageClient:
    client = await ClientServerConfig(server_command=SERVER, server_env=server_env(root)).start()

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: types.RegistrationParams) -> None:  # real clients accept these
        client.registrations = [*getattr(client, "registrations", []), *params.registrations]

    client.init_result = await client.initialize_session(types.InitializeParams(
        capabilities=capabilities_of(client_name),
        initialization_options=settings,
        root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
    ))
    return client


@pytest_asyncio.fixture(params=["neovim", "vscode"])
async def lsp(request, fake_backend, tmp_path) -> AsyncIterator[LanguageClient]:
    client = await start_client(request.param, backend_settings(fake_backend.url), tmp_path)
    client.client_name = request.param
    client.workspace_path = tmp_path
    yield client
    await client.shutdown_session()
    await client.stop()
