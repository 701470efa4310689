"""Replaying the same traces against each system in one run.

Systems (names as they appear in the results):
- `arbor-ls-embedded`: arbor-ls with `{"backends": [{"kind": "embedded"}]}` (the default model);
- `arbor-ls-llamacpp`: arbor-ls with its `llamacpp` backend on the run's llama-server;
- `llama-server-llamavim`: that llama-server driven as llama.vim drives it.
Order: per language, each system in turn types every chosen function of that language, so slow
drift of a shared machine touches all systems alike. Each arbor-ls system gets a fresh server per
language, whose workspace is that language's package tree; typing starts once the server has
answered `arbor/stats` with no backend reporting that it is loading.

Before each function is typed the user reads its file (`settle_s` after didOpen, every system
alike), then puts the cursor where typing starts (VS Code and Neovim with arbor's plugins report
that with `arbor/cursor`; llama.vim sends nothing) and starts typing `place_dwell_s` later.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .corpus import Package
from .llamavim_typist import LlamaVimTypist
from .lsp_typist import LspTypist, NotifyingClient, initialize
from .records import PauseRecord
from .trace import Edit, FunctionTrace

SYSTEMS = ("arbor-ls-embedded", "arbor-ls-llamacpp", "llama-server-llamavim")
LOADING_STATES = frozenset({"loading", "starting", "warming"})


def arbor_argv() -> list[str]:
    script = Path(sys.executable).parent / "arbor-ls"
    if script.is_file():
        return [str(script), "serve", "--stdio"]
    return [sys.executable, "-c", "import sys; from lsp_server.cli import main; sys.exit(main(sys.argv[1:]))",
            "serve", "--stdio"]


def settings_for(system: str, llama_url: str | None, cache_dir: Path) -> dict[str, Any]:
    """The system's default settings, except that the on-disk completion cache lives in
    `cache_dir` (a fresh directory per run): completions stored by earlier runs of the same trace
    would otherwise answer pauses without the model."""
    backend = {"kind": "llamacpp", "url": llama_url} if system == "arbor-ls-llamacpp" else {"kind": "embedded"}
    return {"backends": [backend], "cache": {"diskDir": str(cache_dir)}}


def backend_loading(stats: Any) -> bool:
    """Whether the server is still bringing its backends up: no backend listed yet (the server
    creates them in a worker thread after `initialized`) or one reporting a loading state."""
    rows = stats.get("backends") if isinstance(stats, dict) else None
    if not rows:
        return True
    for row in rows:
        inner = row.get("stats") if isinstance(row.get("stats"), dict) else {}
        states = {str(row.get("state", "")), str(row.get("status", "")), str(inner.get("state", ""))}
        if states & LOADING_STATES or inner.get("loading") or row.get("loading"):
            return True
    return False


@dataclass(slots=True)
class RunOptions:
    pause_timeout_s: float = 10.0
    settle_s: float = 2.0
    place_dwell_s: float = 1.0  # from putting the cursor where typing starts to the first keystroke
    ready_timeout_s: float = 180.0
    log_dir: Path | None = None


async def replay(trace: FunctionTrace, typist: Any, options: RunOptions, *, opened: bool = False,
                 clock: Callable[[], float] = time.perf_counter) -> list[PauseRecord]:
    """Type `trace` through `typist` in real time. Its document is opened first (and read for
    `settle_s`) unless `opened`; the cursor is put where the first edit goes, `place_dwell_s`
    before it."""
    records = []
    if not opened:
        await typist.open()
        await asyncio.sleep(options.settle_s)
    first = next((step for step in trace.steps if isinstance(step, Edit)), None)
    placed = clock()
    if first is not None:
        await typist.place_cursor(first.line, first.character)
    await asyncio.sleep(max(0.0, options.place_dwell_s - (clock() - placed)))
    last = clock()
    for step in trace.steps:
        if isinstance(step, Edit):
            await asyncio.sleep(step.delay_ms / 1000.0)
            last = await typist.edit(step)
        else:
            records.append(await typist.pause(step, last))
    await typist.close()
    return records


async def run_arbor(system: str, package: Package, traces: list[FunctionTrace], llama_url: str | None,
                    options: RunOptions, notes: list[str]) -> list[PauseRecord]:
    log_dir = options.log_dir or Path(tempfile.mkdtemp(prefix="typing-bench-"))
    stderr = log_dir / f"{system}-{package.language}.stderr"
    settings = settings_for(system, llama_url, log_dir / f"{system}-{package.language}-cache")
    client = await NotifyingClient.spawn(arbor_argv(), settings=settings, cwd=str(package.root), stderr_path=stderr)
    records: list[PauseRecord] = []
    try:
        await initialize(client, package.root, settings)
        for index, trace in enumerate(traces):
            typist = LspTypist(client, package.root, trace, system, pause_timeout_s=options.pause_timeout_s)
            if index == 0:
                await typist.open()
                waited = await _wait_ready(client, options)
                notes.append(f"{system}/{package.language}: typing began {waited:.1f} s after didOpen")
            records += await replay(trace, typist, options, opened=index == 0)
        notes.append(f"{system}/{package.language}: server counters {await _server_counters(client)}")
    finally:
        if client.exited:
            notes.append(f"{system}/{package.language}: server exited: {client.stderr_tail(600)}")
        await client.shutdown()
    return records


async def _server_counters(client: NotifyingClient) -> dict[str, Any]:
    """`arbor/stats` counters and anticipation counters (warm-ups, speculations) after a run."""
    reply = await client.request("arbor/stats", None, timeout=10.0)
    stats = reply.result if reply.error is None and isinstance(reply.result, dict) else {}
    return {"counters": stats.get("counters", {}), "anticipation": stats.get("anticipation", {})}


async def _wait_ready(client: NotifyingClient, options: RunOptions) -> float:
    started = time.perf_counter()
    await asyncio.sleep(options.settle_s)
    while time.perf_counter() - started < options.ready_timeout_s:
        reply = await client.request("arbor/stats", None, timeout=options.ready_timeout_s)
        if reply.error is not None or not backend_loading(reply.result):
            break
        await asyncio.sleep(0.5)
    return time.perf_counter() - started


async def run_llamavim(package: Package, traces: list[FunctionTrace], llama_url: str,
                       options: RunOptions) -> list[PauseRecord]:
    records: list[PauseRecord] = []
    for trace in traces:
        typist = LlamaVimTypist(llama_url, trace, "llama-server-llamavim", pause_timeout_s=options.pause_timeout_s)
        records += await replay(trace, typist, options)
    return records
