"""The index inside the real server (stdio, pytest-lsp): background scan with `$/progress`,
dynamic file-watcher registration, watched-file events, workspace folders and `arbor/stats`."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, client_capabilities

SERVER = [sys.executable, "-m", "lsp_server.cli", "serve", "--stdio"]
SETTINGS = {"backends": [{"name": "unused", "kind": "openai", "url": "http://127.0.0.1:9", "model": "m"}],
            "index": {"snapshot": False}}


async def wait_until(predicate, timeout=30.0):
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.05)


def plain(value):
    """pygls hands back custom results as named tuples; turn them into dicts and lists."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


async def index_stats(client):
    stats = await client.protocol.send_request_async("arbor/stats", {})
    return plain(stats)["index"]


@pytest.mark.parametrize("client_name", ["visual-studio-code", "neovim@v0.11.0"])
async def test_scan_progress_watchers_and_folders(tmp_path: Path, client_name: str):
    ws = tmp_path / "ws"
    ws.mkdir()
    for i in range(30):
        (ws / f"mod{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    (ws / "big.py").write_bytes(b"x = 1\n" * 300_000)
    caps = client_capabilities(client_name)
    caps.window = caps.window or types.WindowClientCapabilities()
    caps.window.work_done_progress = True
    registrations: list[types.Registration] = []
    client = await ClientServerConfig(server_command=SERVER).start()

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: types.RegistrationParams) -> None:
        registrations.extend(params.registrations)

    try:
        await client.initialize_session(types.InitializeParams(
            capabilities=caps, initialization_options=SETTINGS, root_uri=ws.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=ws.as_uri(), name="ws")]))

        await wait_until(lambda: any(isinstance(v, types.WorkDoneProgressEnd)
                                     for values in client.progress_reports.values() for v in values))
        (values,) = client.progress_reports.values()
        assert isinstance(values[0], types.WorkDoneProgressBegin) and values[0].title == "Indexing"
        reports = [v.message for v in values if isinstance(v, types.WorkDoneProgressReport)]
        assert reports[-1] == "31/31 files"  # candidates, big.py included
        assert values[-1].message.startswith("Indexed 30 files (30 symbols)")
        stats = await index_stats(client)
        assert stats["files"] == 30 and stats["lastScan"]["skipped"] == 1  # big.py > 1 MiB

        dynamic = caps.workspace.did_change_watched_files
        if dynamic is not None and dynamic.dynamic_registration:
            (registration,) = registrations
            assert registration.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
        else:
            assert registrations == []

        (ws / "added.py").write_text("def added():\n    pass\n")
        (ws / "mod0.py").unlink()
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=(ws / "added.py").as_uri(), type=types.FileChangeType.Created),
            types.FileEvent(uri=(ws / "mod0.py").as_uri(), type=types.FileChangeType.Deleted),
        ]))
        await asyncio.sleep(0.3)
        stats = await index_stats(client)
        assert stats["files"] == 30 and stats["symbols"] == 30

        other = tmp_path / "other"
        other.mkdir()
        (other / "lib.go").write_text("package lib\n\nfunc Lib() {}\n")
        client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[types.WorkspaceFolder(uri=other.as_uri(), name="other")],
                removed=[types.WorkspaceFolder(uri=ws.as_uri(), name="ws")])))
        for _ in range(100):
            stats = await index_stats(client)
            if stats["files"] == 1:
                break
            await asyncio.sleep(0.05)
        assert stats["files"] == 1 and stats["roots"] == [other.as_posix()]

        # an open buffer is indexed on edit, after a pause or when something needs it
        uri = (other / "lib.go").as_uri()
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=uri, language_id="go", version=1, text="package lib\n\nfunc Lib() {}\n")))
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(line=2, character=8), end=types.Position(line=2, character=8)),
                text="rary")]))
        for _ in range(100):
            stats = await index_stats(client)
            if stats["flushes"] >= 1 and stats["pending"] == 0:
                break
            await asyncio.sleep(0.05)
        assert stats["lastFlush"]["reindexed"] == 1 and stats["symbols"] == 1

        # new index settings rescan with the new file selection (the open buffer stays indexed)
        (other / "skipped.go").write_text("package lib\n\nfunc Skipped() {}\n")
        (other / "kept.go").write_text("package lib\n\nfunc Kept() {}\n")
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
            settings={**SETTINGS, "index": {"snapshot": False, "exclude": ["**/skipped.go"]}}))
        for _ in range(100):
            stats = await index_stats(client)
            if stats["files"] == 2:
                break
            await asyncio.sleep(0.05)
        assert stats["files"] == 2 and stats["symbols"] == 2
    finally:
        await client.shutdown_session()
