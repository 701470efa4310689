"""Command line of the load test, shared by `arbor-ls bench` and `python -m benchmarks.load`.

Exit status: 0 when every threshold given holds, 1 when one is exceeded or the arbor-ls server
crashed, 2 for bad input (raised as `ValueError` with a one-line message; the callers print it).
The JSON report goes to stdout (and to --json FILE); progress and a summary table go to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path

from .runner import build_report, check_thresholds, run_server
from .scenarios import EXTRA_SCENARIOS, SCENARIOS, LoadOptions
from .servers import arbor_spec, bare_spec, zero_model_settings
from .workspace import default_workspace, user_workspace


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workspace", metavar="DIR", help="type in this workspace's files (default: a temporary "
                        "copy of httpx's sources plus a generated three-file reference chain)")
    parser.add_argument("--scenario", action="append", choices=SCENARIOS + EXTRA_SCENARIOS, metavar="NAME",
                        help=f"run only this scenario (repeatable; default: {', '.join(SCENARIOS)}; "
                             f"'soak' runs only when named)")
    parser.add_argument("--duration", type=float, default=8.0, metavar="SECONDS",
                        help="measured seconds per scenario (default 8)")
    parser.add_argument("--concurrency", type=int, default=5, metavar="N",
                        help="typists in the concurrent_clients and soak scenarios (default 5)")
    parser.add_argument("--config", metavar="FILE", help="arbor-ls settings file (JSON or TOML) with the backends "
                        "to measure (default: the zero-latency model, i.e. the server's own overhead)")
    parser.add_argument("--json", metavar="FILE", help="also write the JSON report to FILE")
    parser.add_argument("--plot", metavar="FILE", help="write a PNG plot (needs matplotlib)")
    parser.add_argument("--max-p95-ms", type=float, metavar="MS",
                        help="exit 1 if any scenario's P95 exceeds MS (typing_throughput excepted: it saturates)")
    parser.add_argument("--max-errors", type=int, metavar="N", help="exit 1 if more than N requests fail")
    parser.add_argument("--rate", type=float, default=40.0, metavar="CPS", help="typing rate in characters/s (default 40)")
    parser.add_argument("--window", type=int, default=4, metavar="N",
                        help="completions in flight in typing_throughput (default 4)")
    parser.add_argument("--sweep", dest="sweep", action="store_true", default=True,
                        help="run the throughput-versus-concurrency sweep (default)")
    parser.add_argument("--no-sweep", dest="sweep", action="store_false", help="skip the concurrency sweep")
    parser.add_argument("--sweep-levels", default="1,2,4,8,16", metavar="N,N,...",
                        help="concurrency levels of the sweep (default 1,2,4,8,16 plus --concurrency)")
    parser.add_argument("--sweep-duration", type=float, default=3.0, metavar="SECONDS",
                        help="measured seconds per sweep level (default 3)")
    parser.add_argument("--no-baseline", dest="baseline", action="store_false", default=True,
                        help="skip the bare pygls baseline run")
    parser.add_argument("--server-command", metavar="CMD",
                        help="command that starts arbor-ls on stdio (default: this Python's lsp_server)")


def options_from(args: argparse.Namespace) -> LoadOptions:
    try:
        levels = tuple(int(part) for part in args.sweep_levels.split(",") if part.strip())
    except ValueError:
        raise ValueError(f"--sweep-levels expects integers separated by commas, got {args.sweep_levels!r}") from None
    if not levels or min(levels) < 1:
        raise ValueError("--sweep-levels must list levels of at least 1")
    if args.max_errors is not None and args.max_errors < 0:
        raise ValueError("--max-errors must not be negative")
    return LoadOptions(duration_s=args.duration, rate_cps=args.rate, concurrency=args.concurrency,
                       window=args.window, sweep_levels=levels, sweep_duration_s=args.sweep_duration)


def settings_from(args: argparse.Namespace) -> tuple[object, str]:
    if not args.config:
        return zero_model_settings(), "zero-latency model (benchmarks.zero_model)"
    from lsp_server.config import read_config_file
    from lsp_server.errors import UsageError

    try:
        return read_config_file(args.config), f"settings from {args.config}"
    except UsageError as exc:
        raise ValueError(str(exc)) from None


def table(report: dict) -> str:
    lines = [f"{'scenario':<20} {'server':<11} {'p50':>8} {'p95':>8} {'p99':>8} {'max':>8} {'req/s':>8} "
             f"{'msg/s':>8} {'err':>4} {'cncl':>4}"]
    runs = [("arbor-ls", report["scenarios"])]
    if report.get("baseline"):
        runs.append(("bare-pygls", report["baseline"]["scenarios"]))
    for name in report["scenarios"]:
        for server, scenarios in runs:
            s = scenarios.get(name)
            if s:
                cells = [s["p50_ms"], s["p95_ms"], s["p99_ms"], s["max_ms"], s["requests_per_s"], s["messages_per_s"]]
                text = " ".join(f"{'-' if c is None else c:>8}" for c in cells)
                lines.append(f"{name:<20} {server:<11} {text} {s['errors']:>4} {s['cancelled']:>4}")
    return "\n".join(lines)


async def run_async(args: argparse.Namespace) -> int:
    opts = options_from(args)
    settings, backend = settings_from(args)
    ws = user_workspace(Path(args.workspace)) if args.workspace else default_workspace()
    scenarios = list(dict.fromkeys(args.scenario or SCENARIOS))
    if ws.chain is None and "reference_chain" in scenarios:
        scenarios.remove("reference_chain")
    try:
        with tempfile.TemporaryDirectory(prefix="arbor-bench-logs-") as logs:
            print(f"arbor-ls bench: {ws.description}; scenarios {', '.join(scenarios)}", file=sys.stderr)
            arbor = await run_server(arbor_spec(settings, backend, args.server_command), ws, scenarios, opts,
                                     sweep=args.sweep, log_dir=Path(logs))
            bare = None
            if args.baseline:
                bare = await run_server(bare_spec(), ws, scenarios, opts, sweep=args.sweep, log_dir=Path(logs))
    finally:
        ws.cleanup()
    thresholds = check_thresholds(arbor, args.max_p95_ms, args.max_errors)
    report = build_report(arbor, bare, ws, opts, thresholds, backend)
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(text + "\n")
    if args.plot:
        from .plot import plot_report

        plot_report(report, arbor, bare, Path(args.plot))
    print(table(report), file=sys.stderr)
    for violation in thresholds["violations"]:
        print(f"arbor-ls bench: FAILED: {violation}", file=sys.stderr)
    return 0 if thresholds["passed"] else 1


def run(args: argparse.Namespace) -> int:
    return asyncio.run(run_async(args))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.load", description=__doc__.splitlines()[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run(args)
    except ValueError as exc:
        print(f"benchmarks.load: error: {exc}", file=sys.stderr)
        return 2
