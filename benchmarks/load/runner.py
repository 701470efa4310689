"""One load-test run: start each server, run the scenarios against it, build the JSON report.

Order of a run: arbor-ls first, then the bare pygls baseline, each in a fresh process that is
initialized on the same workspace and measured with the same scenarios and options, one after the
other (never at the same time, so they do not compete for the CPU). A server that exits early is
an error in the scenario it died in; the run goes on with the next server.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .jsonrpc_client import LspClient
from .scenarios import RUNNERS, LoadOptions, barrier, concurrency_sweep
from .servers import ServerSpec, cpu_seconds, machine_info, rss_mb
from .stats import ScenarioRecord, ratio, summarize
from .workspace import BenchWorkspace

# Scenarios whose latency is queueing by design (the server is kept saturated); P95 gates skip them.
SATURATING = frozenset({"typing_throughput"})


@dataclass(slots=True)
class CpuUsage:
    """CPU used by the server process and by this client between start() and stop(), as a
    percentage of one core over the wall time (100 = one core busy all the time)."""

    pid: int
    wall: float
    server: float | None
    client: float

    @classmethod
    def start(cls, pid: int) -> CpuUsage:
        return cls(pid, time.perf_counter(), cpu_seconds(pid), time.process_time())

    def stop(self) -> dict[str, float | None]:
        wall = time.perf_counter() - self.wall
        server_now = cpu_seconds(self.pid)
        server = None
        if self.server is not None and server_now is not None and wall > 0:
            server = round((server_now - self.server) / wall * 100, 1)
        return {"server_cpu_percent": server,
                "client_cpu_percent": round((time.process_time() - self.client) / wall * 100, 1)}


@dataclass(slots=True)
class ServerRun:
    """Everything measured against one server process."""

    spec: ServerSpec
    records: dict[str, ScenarioRecord] = field(default_factory=dict)
    summaries: dict[str, dict] = field(default_factory=dict)
    sweep: dict | None = None
    rss_mb_before: float | None = None
    rss_mb_after: float | None = None
    startup_s: float | None = None
    settle_s: float | None = None  # after start-up, until the server's CPU went idle
    rss_samples: list[tuple[float, float]] = field(default_factory=list)  # (seconds since start, MiB)
    exit_code: int | None = None
    crashed: bool = False
    stderr_tail: str = ""

    def report(self) -> dict[str, Any]:
        growth = None
        if self.rss_mb_before and self.rss_mb_after:
            growth = round((self.rss_mb_after - self.rss_mb_before) / self.rss_mb_before * 100, 1)
        samples = self.rss_samples
        stride = max(1, len(samples) // 120)
        out = {
            "name": self.spec.name,
            "command": self.spec.argv,
            "description": self.spec.description,
            "startup_s": self.startup_s,
            "settle_s": self.settle_s,
            "rss_mb_before": self.rss_mb_before,
            "rss_mb_after": self.rss_mb_after,
            "rss_growth_percent": growth,
            "rss_growth_after_warmup_percent": growth_after_warmup(samples),
            "rss_mb_samples": [[round(t, 1), mb] for t, mb in samples[::stride]],
            "exit_code": self.exit_code,
            "crashed": self.crashed,
        }
        if self.crashed and self.stderr_tail:
            out["stderr_tail"] = self.stderr_tail
        return out


def growth_after_warmup(samples: list[tuple[float, float]], warmup_share: float = 0.1) -> float | None:
    """RSS growth in percent from the first sample after `warmup_share` of the run to the last
    one: memory that keeps growing once caches and buffers have filled, which a leak would show."""
    if len(samples) < 3:
        return None
    end = samples[-1][0]
    base = next(mb for t, mb in samples if t >= end * warmup_share)
    return round((samples[-1][1] - base) / base * 100, 1) if base else None


async def sample_rss(run: ServerRun, pid: int, started: float, every_s: float = 1.0) -> None:
    while True:
        mb = rss_mb(pid)
        if mb is None:
            return
        run.rss_samples.append((time.perf_counter() - started, mb))
        await asyncio.sleep(every_s)


async def wait_until_idle(pid: int, *, window_s: float = 0.5, max_busy: float = 0.05,
                          timeout_s: float = 120.0) -> float:
    """Wait until process `pid` used less than `max_busy` of a core over `window_s` (its start-up
    work, such as indexing the workspace, is done); returns the seconds waited."""
    started = time.perf_counter()
    while time.perf_counter() - started < timeout_s:
        before = cpu_seconds(pid)
        await asyncio.sleep(window_s)
        after = cpu_seconds(pid)
        if before is None or after is None or (after - before) / window_s < max_busy:
            break
    return round(time.perf_counter() - started, 3)


async def run_server(spec: ServerSpec, ws: BenchWorkspace, scenarios: list[str], opts: LoadOptions,
                     *, sweep: bool, log_dir: Path) -> ServerRun:
    run = ServerRun(spec)
    sampler: asyncio.Future | None = None
    started = time.perf_counter()
    client = await LspClient.spawn(spec.argv, settings=spec.settings, cwd=str(ws.root), env=spec.env,
                                   stderr_path=log_dir / f"{spec.name}.stderr.log")
    try:
        reply = await client.initialize(ws.root)
        if reply.error is not None:
            raise RuntimeError(f"initialize failed: {reply.error}")
        await barrier(client)
        run.startup_s = round(time.perf_counter() - started, 3)
        run.settle_s = await wait_until_idle(client.pid)
        run.rss_mb_before = rss_mb(client.pid)
        sampler = asyncio.ensure_future(sample_rss(run, client.pid, time.perf_counter(),
                                                   every_s=max(1.0, opts.duration_s / 600)))
        for name in scenarios:
            if client.exited:
                break
            usage = CpuUsage.start(client.pid)
            record = await RUNNERS[name](client, ws, opts)
            run.records[name] = record
            run.summaries[name] = {**summarize(record), **usage.stop(), "rss_mb_after": rss_mb(client.pid)}
        if sweep and not client.exited:
            run.sweep = await concurrency_sweep(client, ws, opts)
        if not client.exited:
            await barrier(client)
            run.rss_mb_after = rss_mb(client.pid)
    except (RuntimeError, ConnectionError, asyncio.TimeoutError) as exc:
        run.crashed = True
        run.stderr_tail = f"{type(exc).__name__}: {exc}\n{client.stderr_tail()}"
    finally:
        if sampler is not None:
            sampler.cancel()
        crashed_before_shutdown = client.exited
        run.exit_code = await client.shutdown()
        if crashed_before_shutdown:
            run.crashed = True
            run.stderr_tail = run.stderr_tail or client.stderr_tail()
    return run


def compare(arbor: ServerRun, bare: ServerRun | None) -> dict[str, dict]:
    """arbor-ls over bare pygls, per scenario: P95 ratio and messages/s ratio."""
    if bare is None:
        return {}
    out = {}
    for name, mine in arbor.summaries.items():
        theirs = bare.summaries.get(name)
        if theirs:
            out[name] = {
                "p95_ratio": ratio(mine["p95_ms"], theirs["p95_ms"]),
                "messages_per_s_ratio": ratio(mine["messages_per_s"], theirs["messages_per_s"]),
            }
    return out


def check_thresholds(arbor: ServerRun, max_p95_ms: float | None, max_errors: int | None) -> dict:
    """Which of the user's thresholds the arbor-ls run broke. A crash always counts."""
    violations = []
    if arbor.crashed:
        violations.append("the server crashed or exited early")
    if max_p95_ms is not None:
        for name, summary in arbor.summaries.items():
            p95 = summary["p95_ms"]
            if name not in SATURATING and p95 is not None and p95 > max_p95_ms:
                violations.append(f"{name}: p95 {p95} ms > {max_p95_ms} ms")
    errors = sum(s["errors"] for s in arbor.summaries.values())
    if max_errors is not None and errors > max_errors:
        violations.append(f"{errors} errors > {max_errors}")
    return {"max_p95_ms": max_p95_ms, "max_errors": max_errors, "errors": errors,
            "violations": violations, "passed": not violations}


def build_report(arbor: ServerRun, bare: ServerRun | None, ws: BenchWorkspace, opts: LoadOptions,
                 thresholds: dict, backend: str) -> dict[str, Any]:
    options = asdict(opts)
    options.pop("notes", None)
    report: dict[str, Any] = {
        "benchmark": "load",
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine_info(),  # load_average_1m: at the end of the run (a busy machine inflates timings)
        "workspace": ws.description,
        "backend": backend,
        "options": options,
        "server": arbor.report(),
        "scenarios": arbor.summaries,
        "concurrency_sweep": arbor.sweep,
        "baseline": None,
        "overhead_vs_baseline": compare(arbor, bare),
        "thresholds": thresholds,
        "notes": ws.notes + opts.notes,
    }
    if bare is not None:
        report["baseline"] = {"server": bare.report(), "scenarios": bare.summaries, "concurrency_sweep": bare.sweep}
    return report
