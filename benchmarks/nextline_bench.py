"""Next-line quality end to end: masked single lines of real libraries, completed by the real
model under three contexts at the same token budget, with paired bootstrap intervals.

Cases (benchmarks/nextline/cases.py): lines of real code from two libraries per language
(benchmarks/nextline/corpus.py), each masked after its indentation with the rest of the file kept;
--cases per language, a --crossfile-share of them using a name another file of the package defines.
Settings (benchmarks/nextline/settings.py): "infile" (index off), "arbor" (arbor's index and
pruner), "jaccard" (the sliding-window baseline of benchmarks/context/recall.py). The model is the
embedded default (in process, quantize as configured by default, no completion cache), greedy,
single line; the first line after the server's post-processing is scored by exact match and edit
similarity (points). Differences arbor - infile and arbor - jaccard per language, over all lines
and over the cross-file lines, get paired bootstrap 95% intervals.

Finished (case, setting) rows are appended to <out>.cases.jsonl; --resume reuses them.
Prints the summary JSON; writes it to --out and a markdown table to <out>.md.

    python -m benchmarks.nextline_bench --cases 100
"""

from __future__ import annotations

import argparse
import asyncio
import calendar
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from contextlib import asynccontextmanager
from dataclasses import asdict
from pathlib import Path
from typing import AsyncIterator

from benchmarks.nextline import corpus, report, runner
from benchmarks.nextline.settings import SYNTAX_BUDGET_MS, Workspace
from benchmarks.typing.corpus import Package
from inference.backend_spec import BackendSpec
from inference.router import Router
from inference.routing import RouteSettings
from lsp_server.config import Settings

ROOT = Path(__file__).resolve().parents[1]


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--languages", nargs="+", default=list(corpus.LANGUAGES), choices=corpus.LANGUAGES)
    p.add_argument("--cases", type=int, default=100, help="masked lines per language")
    p.add_argument("--crossfile-share", type=float, default=0.5)
    p.add_argument("--seed", type=int, default=20)
    p.add_argument("--budget", type=int, default=1024, help="context.budgetTokens, the same for every setting")
    p.add_argument("--max-tokens", type=int, default=48)
    p.add_argument("--model", default="", help="embedded model name or path ('' = the default model)")
    p.add_argument("--family", default="qwen2.5-coder")
    p.add_argument("--device", default="auto")
    p.add_argument("--python-backend", default="", help="module:Class of a python-kind backend (tests)")
    p.add_argument("--workspace", action="append", default=[], metavar="LANG=DIR",
                   help="use DIR as LANG's only package instead of the corpus (repeatable)")
    p.add_argument("--deadline-utc", default="", metavar="HH:MM", help="start no case after this time today")
    p.add_argument("--label", default="", help="a note stored with the results (e.g. 'subset')")
    p.add_argument("--resamples", type=int, default=2000)
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "nextline.json"))
    p.add_argument("--resume", action="store_true")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    args.argv = argv
    return args


def packages_for(args, language: str) -> list[Package]:
    given = [w.split("=", 1)[1] for w in args.workspace if w.split("=", 1)[0] == language]
    if given:
        roots = [Path(d).resolve() for d in given]
        return [Package(language, f"dir:{name}", root) for name, root in zip(workspace_names(roots), roots)]
    return corpus.packages(language)


def workspace_names(roots: list[Path]) -> list[str]:
    """Each directory's name, or, where two share it (two packages' `src`), its path below the
    directories' common parent: a case's id names its package, so no two may be named alike."""
    names = [root.name for root in roots]
    if len(set(names)) == len(names):
        return names
    common = Path(os.path.commonpath(roots))
    return [root.relative_to(common).as_posix() if names.count(root.name) > 1 else root.name for root in roots]


def backend_spec(args) -> BackendSpec:
    if args.python_backend:
        return BackendSpec(name="python", kind="python", model=args.python_backend, model_family=args.family,
                           timeout_ms=600_000, max_tokens=args.max_tokens)
    return BackendSpec(name="embedded", kind="embedded", model=args.model, model_family=args.family,
                       timeout_ms=600_000, max_tokens=args.max_tokens, device=args.device)


@asynccontextmanager
async def loaded_router(args) -> AsyncIterator[Router]:
    """A router over `backend_spec(args)` with deadlines no completion reaches, its model loaded
    (an unusable backend ends the program); closed on leaving."""
    router = Router([backend_spec(args)], route=RouteSettings(single_deadline_ms=600_000, multi_deadline_ms=600_000))
    try:
        problems = router.problems or await router.wait_loaded()
        if problems:
            raise SystemExit("backend unusable: " + "; ".join(problems))
        yield router
    finally:
        await router.aclose()


def deadline(hhmm: str) -> float | None:
    if not hhmm:
        return None
    hour, minute = (int(x) for x in hhmm.split(":"))
    today = time.gmtime()
    return calendar.timegm((today.tm_year, today.tm_mon, today.tm_mday, hour, minute, 0))


async def run(args) -> dict:
    commit = _commit()  # the code this process runs: HEAD may move during a run of hours
    settings = Settings()
    settings.context.budget_tokens = args.budget
    settings.context.syntax_budget_ms = SYNTAX_BUDGET_MS  # quality is measured here, not build time
    settings.completion.multiline = "never"
    settings.index.workers = 1  # no parse processes: the machine is shared
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    queues, workspaces, sources = [], {}, {}
    for language in args.languages:
        pairs = []
        for package in packages_for(args, language):
            ws = Workspace.open(package.root, settings)
            workspaces[package.root] = ws
            pairs.append((package, ws))
        sources[language] = [p.source for p, _ in pairs]
        queues.append(runner.plan_language(language, pairs, args.cases, seed=args.seed,
                                           crossfile_share=args.crossfile_share))
    jobs = runner.round_robin(queues)
    async with loaded_router(args) as router:
        rows = await runner.run_all(router, jobs, workspaces, max_tokens=args.max_tokens, budget=args.budget,
                                    log_path=out.with_suffix(".cases.jsonl"), resume=args.resume,
                                    quiet=args.quiet, deadline=deadline(args.deadline_utc))
    finished = len(report.complete_cases(rows))
    return {
        "benchmark": "nextline",
        "label": args.label or ("full" if finished >= 100 * len(args.languages) else "subset"),
        "recorded_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
        "commit": commit,
        "command": "python -m benchmarks.nextline_bench " + " ".join(shlex.quote(a) for a in args.argv),
        "corpora": sources,
        "planned_cases_per_language": args.cases, "finished_cases": finished,
        "budget_tokens": args.budget, "max_tokens": args.max_tokens, "seed": args.seed,
        "backend": {k: v for k, v in asdict(backend_spec(args)).items() if k != "api_key"},
        "machine": {"python": platform.python_version(), "processor": platform.machine()},
        "table": report.summarise(rows, resamples=args.resamples, seed=args.seed),
        "cases": rows,
    }


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    result = asyncio.run(run(args))
    out = Path(args.out)
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    notes = [f"- {result['label']}: {result['finished_cases']} finished cases "
             f"({args.cases} planned per language), recorded {result['recorded_utc']} UTC at commit {result['commit']}",
             f"- command: `{result['command']}`",
             f"- budget {args.budget} tokens for every setting, max {args.max_tokens} tokens, "
             f"corpora: {json.dumps(result['corpora'])}"]
    report.write_markdown(result["table"], "Next-line quality (EM/ES in points, paired bootstrap 95% CI)",
                          notes, out.with_suffix(".md"))
    print(json.dumps({k: v for k, v in result.items() if k != "cases"}, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
