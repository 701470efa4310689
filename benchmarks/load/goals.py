"""Issue 8's goals for the load test, the published figures they answer, and the verdicts.

`evaluate(report, soak)` is pure: it reads a `arbor-ls bench` JSON report (and optionally a soak
report) and says, goal by goal, what was measured and whether it meets the goal. A goal whose
figure is missing (scenario not run) is reported with `met: null`, never as met.

Recording: `python -m benchmarks.load.goals REPORT.json [--soak SOAK.json] [--note TEXT] [--extra
NAME=FILE] --out FILE` writes the verdicts, the published figures and the reports to FILE
(benchmarks/results/load.json).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

# A published study of completion-server tuning (figures as quoted in issue 8).
PUBLISHED = {
    "single_file": {"p95_ms": 12.3, "requests_per_s": 842},
    "reference_chain": {"p95_ms": 47.6},
    "concurrent_clients": {"p95_ms": 68.1, "concurrency": 5},
    "stock_pygls_note": "stock pygls tops out near 1,000 messages/s, P95 2.6 ms for a didChange + "
                        "inlineCompletion pair on a 2,100-line file (issue 8)",
}

LATENCY_GOALS_MS = {"single_file": 8.0, "reference_chain": 15.0, "concurrent_clients": 20.0}
MIN_MESSAGES_PER_S = 842.0
MIN_RATE_VS_BARE = 0.8
MAX_P95_VS_BARE = 3.0
MAX_SOAK_GROWTH_PERCENT = 10.0
MIN_SOAK_REQUESTS = 100_000
MIN_SOAK_SECONDS = 600.0
THROUGHPUT = "typing_throughput"


def _verdict(goal: str, measured: Any, target: str, met: bool | None, **extra: Any) -> dict[str, Any]:
    return {"goal": goal, "target": target, "measured": measured, "met": met, **extra}


def _at_most(value: float | None, limit: float) -> bool | None:
    return None if value is None else value <= limit


def _at_least(value: float | None, limit: float) -> bool | None:
    return None if value is None else value >= limit


def evaluate(report: dict, soak: dict | None = None) -> list[dict[str, Any]]:
    scenarios = report.get("scenarios", {})
    bare = (report.get("baseline") or {}).get("scenarios", {})
    verdicts = []
    for name, limit in LATENCY_GOALS_MS.items():
        p95 = scenarios.get(name, {}).get("p95_ms")
        verdicts.append(_verdict(f"{name} P95", p95, f"<= {limit} ms", _at_most(p95, limit),
                                 published_p95_ms=PUBLISHED[name]["p95_ms"]))
    mps = scenarios.get(THROUGHPUT, {}).get("messages_per_s")
    verdicts.append(_verdict("typing-trace messages/s, one server process", mps, f">= {MIN_MESSAGES_PER_S:g}",
                             _at_least(mps, MIN_MESSAGES_PER_S)))
    bare_mps = bare.get(THROUGHPUT, {}).get("messages_per_s")
    rate = round(mps / bare_mps, 3) if mps and bare_mps else None
    verdicts.append(_verdict("typing-trace messages/s vs bare pygls in the same run", rate,
                             f">= {MIN_RATE_VS_BARE}x", _at_least(rate, MIN_RATE_VS_BARE),
                             arbor=mps, bare=bare_mps))
    for name in LATENCY_GOALS_MS:
        mine, theirs = scenarios.get(name, {}).get("p95_ms"), bare.get(name, {}).get("p95_ms")
        factor = round(mine / theirs, 3) if mine is not None and theirs else None
        verdicts.append(_verdict(f"{name} P95 vs bare pygls", factor, f"<= {MAX_P95_VS_BARE}x",
                                 _at_most(factor, MAX_P95_VS_BARE), arbor=mine, bare=theirs))
    errors = sum(s.get("errors", 0) for s in scenarios.values()) if scenarios else None
    crashed = (report.get("server") or {}).get("crashed")
    verdicts.append(_verdict("no errors, no crash", {"errors": errors, "crashed": crashed}, "0 errors",
                             None if errors is None else (errors == 0 and not crashed)))
    verdicts.extend(_soak_verdicts(soak))
    return verdicts


def _soak_verdicts(soak: dict | None) -> list[dict[str, Any]]:
    target = f"<= {MAX_SOAK_GROWTH_PERCENT}% RSS growth, 0 errors, >= {MIN_SOAK_REQUESTS} requests in >= 10 min"
    if soak is None:
        return [_verdict("soak: memory growth", None, target, None, note="no soak report")]
    run = soak.get("scenarios", {}).get("soak", {})
    server = soak.get("server", {})
    growth = server.get("rss_growth_after_warmup_percent")
    requests, elapsed = run.get("requests"), run.get("elapsed_s") or 0
    long_enough = bool(requests and requests >= MIN_SOAK_REQUESTS and elapsed >= MIN_SOAK_SECONDS)
    met = None if growth is None else (growth <= MAX_SOAK_GROWTH_PERCENT and run.get("errors", 1) == 0
                                       and not server.get("crashed") and long_enough)
    return [_verdict("soak: memory growth", growth, target, met, requests=requests, messages=run.get("messages"),
                     elapsed_s=elapsed, errors=run.get("errors"),
                     rss_mb_before=server.get("rss_mb_before"), rss_mb_after=server.get("rss_mb_after"),
                     rss_growth_percent=server.get("rss_growth_percent"))]


def record(report: dict, soak: dict | None, *, notes: list[str] | None = None,
           extra: dict[str, dict] | None = None) -> dict[str, Any]:
    verdicts = evaluate(report, soak)
    return {
        "benchmark": "load",
        "recorded": report.get("date"),
        "machine": report.get("machine"),
        "backend": report.get("backend"),
        "published": PUBLISHED,
        "verdicts": verdicts,
        "goals_met": sum(1 for v in verdicts if v["met"] is True),
        "goals_missed": sum(1 for v in verdicts if v["met"] is False),
        "goals_unmeasured": sum(1 for v in verdicts if v["met"] is None),
        "notes": notes or [],
        "report": report,
        "soak": soak,
        "extra_reports": extra or {},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.load.goals", description=__doc__.splitlines()[0])
    parser.add_argument("report", help="JSON report of `arbor-ls bench`")
    parser.add_argument("--soak", help="JSON report of a soak run (`--scenario soak --duration 600`)")
    parser.add_argument("--out", required=True, help="where to write the record (benchmarks/results/load.json)")
    parser.add_argument("--note", action="append", default=[], help="a note on how the figures were taken (repeatable)")
    parser.add_argument("--extra", action="append", default=[], metavar="NAME=FILE",
                        help="another report of the same session to keep beside the main one (repeatable)")
    args = parser.parse_args(argv)
    report = json.loads(Path(args.report).read_text())
    soak = json.loads(Path(args.soak).read_text()) if args.soak else None
    extra = {}
    for item in args.extra:
        name, sep, path = item.partition("=")
        if not sep:
            parser.error(f"--extra expects NAME=FILE, got {item!r}")
        extra[name] = json.loads(Path(path).read_text())
    out = record(report, soak, notes=args.note, extra=extra)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    for v in out["verdicts"]:
        mark = {True: "met", False: "MISSED", None: "not measured"}[v["met"]]
        print(f"{mark:>12}  {v['goal']}: {v['measured']} (goal {v['target']})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
