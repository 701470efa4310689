"""The long protocol fuzz run: `python -m tests.fuzz.run_fuzz --cases 100000 [--workers 2]
[--time-limit-s 3000] [--out results.json]`.

Plays the same hypothesis sessions as tests/fuzz/test_protocol_fuzz.py against in-process servers
(a fake OpenAI-compatible backend on 127.0.0.1), in chunks of `--chunk` cases with one seed each
each chunk in a process of its own (run with faulthandler: a crash of native code in the server's
process is counted as a `process_crashes` with its stack, and the run goes on), `--workers` at a
time. Nothing stops at a failure: each failing case is counted, and the first few are kept with
their operations. Prints one JSON object: cases, requests, crashes, unanswered, divergences,
deaths, process crashes, latency maxima, seconds, and examples.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import subprocess
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

_KEEP = 5


def _worker(args: tuple[int, int, int, float]) -> dict[str, Any]:
    first_seed, cases, chunk, deadline = args
    logging.disable(logging.CRITICAL)  # the server logs every malformed message; the counts say it
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="arbor-fuzz-cache-")
    from hypothesis import HealthCheck, Phase, given, seed, settings

    from tests.fakes.openai_server import FakeOpenAIServer
    from tests.fuzz.conftest import fuzz_settings
    from tests.fuzz.scenario import FuzzRunner, sessions

    totals: dict[str, Any] = {"cases": 0, "requests": 0, "crashes": 0, "unanswered": 0, "divergences": 0,
                              "deaths": 0, "failing_cases": 0, "max_latency_s": 0.0, "max_quick_latency_s": 0.0,
                              "examples": []}
    root = Path(tempfile.mkdtemp(prefix="arbor-fuzz-ws-"))
    loop = asyncio.new_event_loop()
    with FakeOpenAIServer("return a + b", chunk_size=8) as fake:
        runner = FuzzRunner(fuzz_settings(fake.url), root.as_uri())

        def play(session: tuple) -> None:
            report = loop.run_until_complete(runner.session(*session))
            totals["cases"] += 1
            totals["requests"] += report.requests
            totals["crashes"] += len(report.crashes)
            totals["unanswered"] += len(report.unanswered)
            totals["divergences"] += len(report.divergences)
            totals["deaths"] += int(report.died)
            totals["max_latency_s"] = max(totals["max_latency_s"], report.max_latency_s)
            totals["max_quick_latency_s"] = max(totals["max_quick_latency_s"], report.max_quick_latency_s)
            if not report.ok():
                totals["failing_cases"] += 1
                if len(totals["examples"]) < _KEEP:
                    totals["examples"].append({"session": repr(session)[:2000], "unanswered": report.unanswered[:5],
                                               "crashes": report.crashes[:5], "divergences": report.divergences[:3],
                                               "died": report.died})

        done, n = 0, 0
        while done < cases and time.time() < deadline:
            size = min(chunk, cases - done)
            test = settings(max_examples=size, deadline=None, database=None, phases=[Phase.generate],
                            suppress_health_check=list(HealthCheck))(given(sessions)(play))
            seed(first_seed + n)(test)()
            done, n = totals["cases"], n + 1
        loop.run_until_complete(runner.aclose())
        totals["crashes"] += len(runner.closing_problems)
        if runner.closing_problems and len(totals["examples"]) < _KEEP:
            totals["examples"].append({"closing": runner.closing_problems[:5]})
    return totals


def _chunk_process(worker: int, first_seed: int, cases: int, chunk: int, deadline: float) -> dict[str, Any]:
    """One chunk in its own process (with faulthandler), so that a crash of the server's process
    (a segfault in native code) is counted and reported instead of ending the run."""
    cmd = [sys.executable, "-X", "faulthandler", "-m", "tests.fuzz.run_fuzz", "--_chunk",
           json.dumps([worker, first_seed, cases, chunk, deadline])]
    proc = subprocess.run(cmd, capture_output=True, cwd=Path(__file__).resolve().parents[2])
    out = proc.stdout.decode(errors="replace").strip().splitlines()
    if proc.returncode == 0 and out:
        return json.loads(out[-1])
    err = proc.stderr.decode(errors="replace")
    lines = [line for line in err.splitlines() if line.strip()]
    last_error = next((line for line in reversed(lines) if "Error" in line or "Exception" in line), "")
    return {"process_crashes": 1, "examples": [{"process_exit": proc.returncode, "seed": first_seed,
                                                "last_error_line": last_error[:1000], "stderr_head": err[:2000],
                                                "stderr_tail": err[-2000:]}]}


def _worker_loop(args: tuple[int, int, int, float]) -> list[dict[str, Any]]:
    worker, cases, chunk, deadline = args
    results, done, n = [], 0, 0
    while done < cases and time.time() < deadline:
        size = min(chunk, cases - done)
        result = _chunk_process(worker, worker * 1_000_003 + n, size, size, deadline)
        result.setdefault("cases_tried", size)
        results.append(result)
        done += size
        n += 1
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--chunk", type=int, default=1000)
    parser.add_argument("--time-limit-s", type=float, default=3600.0)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--_chunk", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args._chunk:  # inside a chunk process
        worker, first_seed, cases, chunk, deadline = json.loads(args._chunk)
        print(json.dumps(_worker((first_seed, cases, chunk, deadline))))
        return 0
    started = time.time()
    deadline = started + args.time_limit_s
    shares = [args.cases // args.workers + (i < args.cases % args.workers) for i in range(args.workers)]
    jobs = [(i, share, args.chunk, deadline) for i, share in enumerate(shares)]
    with ThreadPoolExecutor(args.workers) as pool:
        results = [r for rs in pool.map(_worker_loop, jobs) for r in rs]
    summary: dict[str, Any] = {"asked_cases": args.cases, "workers": args.workers}
    for key in ("cases", "requests", "crashes", "unanswered", "divergences", "deaths", "failing_cases",
                "process_crashes"):
        summary[key] = sum(r.get(key, 0) for r in results)
    summary["cases_in_crashed_chunks"] = sum(r["cases_tried"] for r in results if r.get("process_crashes"))
    for key in ("max_latency_s", "max_quick_latency_s"):
        summary[key] = round(max((r.get(key, 0.0) for r in results), default=0.0), 3)
    summary["seconds"] = round(time.time() - started, 1)
    summary["stopped_by_time_limit"] = summary["cases"] + summary["cases_in_crashed_chunks"] < args.cases
    summary["examples"] = [e for r in results for e in r.get("examples", [])][:_KEEP * 2]
    text = json.dumps(summary, indent=1)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)
    ok = summary["failing_cases"] == 0 and summary["process_crashes"] == 0
    return 0 if ok and not summary["stopped_by_time_limit"] else 1


if __name__ == "__main__":
    sys.exit(main())
