"""No process outlives the server: killed by SIGKILL or SIGTERM, left with its stdin closed, or
outliving the client process `initialize` named, in the middle of a workspace scan that runs in
worker processes, the server and every process it started are gone within a bounded wait."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import server_env

FILES = 1200
WORKERS = 3
EXIT_BOUND_S = 10.0
pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process tree from /proc")


def frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def parent_of() -> dict[int, int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    return parents


def descendants(pid: int) -> set[int]:
    parents = parent_of()
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def workspace(root: Path) -> Path:
    body = "".join(f"def function_{i}(a, b):\n    value = a * {i} + b\n    return value\n\n" for i in range(60))
    for i in range(FILES):
        folder = root / f"pkg{i % 20}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"module_{i}.py").write_text(f"# module {i}\n{body}", encoding="utf-8")
    return root


def start_scanning_server(tmp_path: Path, client_pid: int | None = None) -> tuple[subprocess.Popen, set[int]]:
    """A server scanning a workspace of `FILES` files with `WORKERS` worker processes, and the
    processes it started (once its workers are up)."""
    root = workspace(tmp_path / "ws")
    server = subprocess.Popen([sys.executable, "-m", "lsp_server.cli", "serve", "--stdio"],
                              stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env=server_env(root), start_new_session=True)
    settings = {"index": {"workers": WORKERS, "snapshot": False}, "backends": [], "completion": {"speculate": False}}
    server.stdin.write(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": client_pid or os.getpid(), "rootUri": root.as_uri(), "capabilities": {},
        "initializationOptions": settings, "workspaceFolders": [{"uri": root.as_uri(), "name": "ws"}]}}))
    server.stdin.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    server.stdin.flush()
    deadline = time.monotonic() + 60
    children: set[int] = set()
    while time.monotonic() < deadline and len(children) < WORKERS:
        time.sleep(0.05)
        children = descendants(server.pid)
        assert server.poll() is None, "the server exited before its scan started"
    assert len(children) >= WORKERS, f"the scan's workers never started: {children}"
    return server, children


def assert_all_gone(pids: set[int]) -> None:
    deadline = time.monotonic() + EXIT_BOUND_S
    while time.monotonic() < deadline and any(alive(pid) for pid in pids):
        time.sleep(0.05)
    survivors = {pid for pid in pids if alive(pid)}
    for pid in survivors:  # do not leave them to the next test
        os.kill(pid, signal.SIGKILL)
    assert not survivors, f"{len(survivors)} processes outlived the server by {EXIT_BOUND_S}s"


@pytest.mark.parametrize("ending", ["SIGKILL", "SIGTERM", "stdin closed", "client gone"])
def test_no_process_outlives_the_server(ending, tmp_path):
    client = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    server, children = start_scanning_server(tmp_path, client.pid)
    try:
        if ending == "stdin closed":
            server.stdin.close()
        elif ending == "client gone":  # the editor died; the pipe to the server stays open here
            client.kill()
            client.wait()
        else:
            server.send_signal(getattr(signal, ending))
        server.wait(timeout=EXIT_BOUND_S)
    finally:
        for process in (server, client):
            if process.poll() is None:
                process.kill()
                process.wait()
    assert_all_gone(children | descendants(server.pid))
