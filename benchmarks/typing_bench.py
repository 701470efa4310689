"""Ghost text that arrives in time: a user re-typing real functions, line by line, pausing twice
per line until ghost text appears (at most 10 s), against arbor-ls and llama.vim's llama-server.

    python -m benchmarks.typing_bench --quick            # about 2 minutes when systems answer
    python -m benchmarks.typing_bench --out benchmarks/results/typing.json --plot benchmarks/results/typing.png

JSON goes to stdout (and --out); the issue's goals and whether each is met go to stderr. See
benchmarks/README.md ("typing_bench") for the trace, the pause rule and the peers.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.load.servers import machine_info  # noqa: E402
from benchmarks.typing import corpus, llama_server  # noqa: E402
from benchmarks.typing.plot import write_png  # noqa: E402
from benchmarks.typing.runner import SYSTEMS, RunOptions, run_arbor, run_llamavim  # noqa: E402
from benchmarks.typing.summary import goals, summarise  # noqa: E402
from benchmarks.typing.trace import build_trace  # noqa: E402

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="typing_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", default=",".join(SYSTEMS), help="comma-separated, of: " + ", ".join(SYSTEMS))
    parser.add_argument("--languages", default=",".join(corpus.LANGUAGES))
    parser.add_argument("--functions-per-language", type=int, default=2)
    parser.add_argument("--max-lines", type=int, default=4, help="body lines typed per function")
    parser.add_argument("--quick", action="store_true", help="1 function per language, 2 lines each")
    parser.add_argument("--pause-timeout-s", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--threads", type=int, default=2, help="llama-server -t")
    parser.add_argument("--build-llama", action="store_true", help="build llama-server when missing")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--plot", type=Path)
    args = parser.parse_args(argv)
    if args.quick:
        args.functions_per_language, args.max_lines = 1, 2
    return args


def commit() -> str | None:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=PROJECT_ROOT, capture_output=True, text=True)
    return done.stdout.strip() or None


def prepare(args: argparse.Namespace) -> list[tuple[corpus.Package, list, list[dict]]]:
    prepared = []
    for language in [s.strip() for s in args.languages.split(",") if s.strip()]:
        package = corpus.fetch(language)
        chosen = corpus.choose(package, args.functions_per_language, seed=args.seed)
        traces, described = [], []
        for index, item in enumerate(chosen):
            f = item.function
            name = f"{language}:{item.relative}:{f.name}"
            traces.append(build_trace(name, language, item.relative, list(item.lines), f.body_start, f.body_end,
                                      max_lines=args.max_lines, seed=args.seed * 1000 + index))
            described.append({"function": name, "header_line": f.header_start, "function_lines": f.length,
                              "typed_lines": min(args.max_lines, f.body_end - f.body_start),
                              "pauses": len(traces[-1].pauses)})
        prepared.append((package, traces, described))
    return prepared


async def run(args: argparse.Namespace) -> dict[str, Any]:
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = set(systems) - set(SYSTEMS)
    if unknown:
        raise SystemExit(f"unknown systems: {', '.join(sorted(unknown))}")
    started = datetime.datetime.now(datetime.timezone.utc)
    head = commit()  # the code the servers start from; a commit landing mid-run is not in it
    prepared = prepare(args)
    notes: list[str] = []
    skipped: dict[str, str] = {}
    log_dir = Path(tempfile.mkdtemp(prefix="typing-bench-"))
    options = RunOptions(pause_timeout_s=args.pause_timeout_s, log_dir=log_dir)
    server = None
    if {"arbor-ls-llamacpp", "llama-server-llamavim"} & set(systems):
        binary = llama_server.binary(build=args.build_llama)
        if binary is None:
            for s in ("arbor-ls-llamacpp", "llama-server-llamavim"):
                skipped[s] = "llama-server binary not found (scripts/build-llama-server.sh, or --build-llama)"
        else:
            server = llama_server.LlamaServer(binary, llama_server.ensure_gguf(), threads=args.threads,
                                              log_path=log_dir / "llama-server.log")
            server.start()
    rows_by_system: dict[str, list] = {s: [] for s in systems if s not in skipped}
    try:
        for package, traces, _ in prepared:
            for system in rows_by_system:
                print(f"[typing] {system} / {package.language}: {len(traces)} functions", file=sys.stderr)
                if system == "llama-server-llamavim":
                    records = await run_llamavim(package, traces, server.url, options)
                else:
                    records = await run_arbor(system, package, traces, server.url if server else None,
                                              options, notes)
                rows_by_system[system] += records
    finally:
        if server is not None:
            server.stop()
    timeout_ms = args.pause_timeout_s * 1000.0
    summaries = {s: summarise(r, timeout_ms) for s, r in rows_by_system.items()}
    per_language = {
        s: {p.language: summarise([r for r in recs if r.function.startswith(p.language + ":")], timeout_ms)
            for p, _, _ in prepared}
        for s, recs in rows_by_system.items()
    }
    rows = {s: [r.row() for r in recs] for s, recs in rows_by_system.items()}
    report = {
        "benchmark": "typing_bench",
        "recorded_at": started.strftime("%Y-%m-%d %H:%M UTC"),
        "wall_s": round((datetime.datetime.now(datetime.timezone.utc) - started).total_seconds(), 1),
        "commit": head,
        "machine": machine_info(),
        "options": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "corpus": [{"language": p.language, "source": p.source, "workspace": str(p.root), "functions": d}
                   for p, _, d in prepared],
        "llama_server": None if server is None else {"argv": server.argv()[1:], "gguf": str(server.model)},
        "skipped": skipped,
        "notes": notes,
        "rules": {
            "latency": "last keystroke's didChange (or, for llama.vim, the request right after it) to the "
                       "answer carrying ghost text; a pause without ghost text counts as the pause timeout",
            "exact": "first line of the ghost text == the rest of the line the user types next, "
                     "trailing whitespace stripped on both sides",
            "pauses": "after the indentation of each non-blank line, and after its first word and the "
                      "character ending it when something is left to type",
        },
        "summaries": summaries,
        "per_language": per_language,
        "goals": goals(summaries),
        "rows": rows,
    }
    if args.plot:
        write_png(args.plot, rows, timeout_ms,
                  f"typing_bench {report['recorded_at']} at {report['commit']}: "
                  f"{sum(len(t) for _, t, _ in prepared)} functions, {args.max_lines} lines each")
    return report


def print_goals(report: dict[str, Any]) -> None:
    for name, summary in report["summaries"].items():
        print(f"[typing] {name}: P50 {summary['latency_p50_ms']} ms, P90 {summary['latency_p90_ms']} ms, "
              f"suggested {summary['suggestion_rate']}, exact {summary['exact_line_rate']}, "
              f"exact<=1s {summary['exact_within_1s_rate']}, prefilled P50 {summary['prefilled_p50']} "
              f"({summary['prefilled_known']} known), pauses {summary['pauses']}", file=sys.stderr)
    for goal in report["goals"]:
        mark = "MET  " if goal["met"] else "UNMET"
        print(f"[typing] {mark} {goal['goal']}: {goal.get('value')} (target {goal.get('target')})"
              + (f" - {goal['detail']}" if goal.get("detail") else ""), file=sys.stderr)


def missing_model(systems: str) -> str | None:
    """Why arbor-ls-embedded, when among `systems`, would run without its model (the default
    one), or None. A server without it answers every pause empty, which would be measured as
    pauses without ghost text."""
    if "arbor-ls-embedded" not in {s.strip() for s in systems.split(",")}:
        return None
    from inference.api import BackendConfigError
    from inference.model_store import resolve_model
    try:
        resolve_model("")
    except BackendConfigError as exc:
        return f"{exc} (or run: make demo)"
    return None


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    problem = missing_model(args.systems)
    if problem is not None:
        print(f"typing_bench: {problem}", file=sys.stderr)
        return 2
    report = asyncio.run(run(args))
    text = json.dumps(report, indent=1)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)
    print_goals(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
