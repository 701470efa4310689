"""Fit the pruner's value model on a dev set of masked lines: `python -m benchmarks.value_fit`.

The dev set is the next-line benchmark's kind of case (benchmarks/nextline/cases.py: one real
line masked, the rest of the file kept) from the same libraries, drawn with another seed
(`--seed`) and never a line the benchmark's own plan (`--eval-seed`, `--eval-cases`) draws. Each
case's arbor context is built as the next-line benchmark builds it, and the objective is the
share of cases whose prompt covers every name of the masked line
(`benchmarks.fit.coverage`), averaged over the languages so each weighs the same.

The fit is coordinate ascent over `benchmarks.fit.parameters.PARAMETERS`, from the constants as
they are (`benchmarks.fit.ascent`): each round tries every value of each parameter's grid with
the others held, and keeps a change only when a sign test over the lines it changes gives
p < `--alpha` and the objective rises. No model is called; a trial builds every case's context once. The output JSON holds the values
found, the objective before and after per language, and every trial.

With `--compare`, there is no ascent: each variant given (`NAME=VALUE[,NAME=VALUE...]`) is scored
against the values in the code on the same dev lines, by coverage or, with `--objective exact`,
by the default model's exact match (`benchmarks.fit.exact`: one model call per distinct prompt;
`--baseline` scores the Jaccard-window baseline's prompts too). The output JSON holds each
variant's share per language and the lines it gains and loses against the code's values, with
the sign test's p; with `--objective exact`, each case's line and the variants exact on it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.fit.coverage import covers
from benchmarks.fit.ascent import Outcomes, changed_lines, fit, sign_test
from benchmarks.fit.exact import MAX_TOKENS, exact_outcomes
from benchmarks.fit.parameters import PARAMETERS, applied, by_name
from benchmarks.nextline import cases as case_lib
from benchmarks.nextline import corpus, runner
from benchmarks.nextline.settings import SYNTAX_BUDGET_MS, Workspace, arbor_context
from lsp_server.config import Settings
from lsp_server.prompt_request import request_from_parts

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True, slots=True)
class DevCase:
    language: str
    workspace: Workspace
    path: Path
    masked: case_lib.Masked


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--languages", nargs="+", default=list(corpus.LANGUAGES), choices=corpus.LANGUAGES)
    p.add_argument("--cases", type=int, default=200, help="dev cases per language")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--eval-seed", type=int, default=20, help="the next-line benchmark's seed: its cases are left out")
    p.add_argument("--eval-cases", type=int, default=100)
    p.add_argument("--budget", type=int, default=1024)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--alpha", type=float, default=0.05, help="a change is kept when a sign test gives p below this")
    p.add_argument("--compare", action="append", default=[], metavar="NAME=VALUE[,NAME=VALUE]",
                   help="score this variant against the code's values instead of fitting (repeatable)")
    p.add_argument("--objective", choices=("covered", "exact"), default="covered",
                   help="with --compare: prompts that cover the line, or the model's exact completions")
    p.add_argument("--baseline", action="store_true", help="with --objective exact: score the Jaccard baseline too")
    p.add_argument("--model", default="", help="embedded model name or path ('' = the default model)")
    p.add_argument("--family", default="qwen2.5-coder")
    p.add_argument("--device", default="auto")
    p.add_argument("--python-backend", default="", help="module:Class of a python-kind backend (tests)")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--out", default="", help="default: results/value-fit.json, with --compare results/value-compare.json")
    args = p.parse_args(argv)
    args.out = args.out or str(ROOT / "benchmarks" / "results" / ("value-compare.json" if args.compare else "value-fit.json"))
    args.max_tokens = MAX_TOKENS  # read by nextline_bench's loaded_router
    if args.objective == "exact" and not args.compare:
        p.error("--objective exact needs --compare")
    if args.baseline and args.objective != "exact":
        p.error("--baseline needs --objective exact")
    args.variants = {"code": {}} | {text: parse_variant(p, text) for text in args.compare}
    return args


def parse_variant(parser: argparse.ArgumentParser, text: str) -> dict[str, float]:
    """`NAME=VALUE[,NAME=VALUE...]` as parameter name -> value; a name that is no fitted
    parameter is an error."""
    known = by_name()
    values = {}
    for item in text.split(","):
        name, _, value = item.partition("=")
        if name.strip() not in known:
            parser.error(f"--compare: {name.strip()!r} is not one of {', '.join(known)}")
        try:
            values[name.strip()] = float(value)
        except ValueError:
            parser.error(f"--compare: {item!r} needs a number after '='")
    return values


def dev_cases(languages: list[str], count: int, seed: int, eval_seed: int, eval_count: int,
              settings: Settings) -> list[DevCase]:
    out = []
    for language in languages:
        pairs = [(package, Workspace.open(package.root, settings)) for package in corpus.packages(language)]
        held = {job.candidate.case_id for job in
                runner.plan_language(language, pairs, eval_count, seed=eval_seed, crossfile_share=0.5)}
        # more than `count` drawn, so that `count` remain once the benchmark's own are left out
        drawn = runner.plan_language(language, pairs, count + eval_count, seed=seed, crossfile_share=0.5)
        kept = [job for job in drawn if job.candidate.case_id not in held][:count]
        by_root = {package.root: ws for package, ws in pairs}
        for job in kept:
            ws = by_root[job.package.root]
            path = job.package.root / job.candidate.relative
            text = ws.index.text(str(path)) or path.read_text(encoding="utf-8")
            out.append(DevCase(language, ws, path, case_lib.mask(text, job.candidate.line)))
    return out


def covered(cases: list[DevCase]) -> Outcomes:
    """language -> for each of its cases, whether its arbor prompt covers the masked line."""
    out: Outcomes = {}
    for case in cases:
        parts = arbor_context(case.workspace, case.path, case.masked)
        request = request_from_parts(parts, multiline=False, max_tokens=MAX_TOKENS, repo_name=case.workspace.root.name)
        out.setdefault(case.language, []).append(covers(request, case.masked.truth))
    return out


def compared(outcomes: dict[str, Outcomes]) -> dict[str, dict]:
    """Each variant's share per language and, against the code's values (`"code"`), the lines it
    gains and loses with the sign test's p of its gains."""
    reference = outcomes["code"]
    out = {}
    for label, got in outcomes.items():
        row: dict = {"per_language": {k: round(sum(o) / len(o), 4) for k, o in got.items()},
                     "lines": {k: sum(o) for k, o in got.items()}}
        if label != "code":
            gained, lost = changed_lines(reference, got)
            row.update(gained=gained, lost=lost, p=round(sign_test(gained, lost), 4))
        out[label] = row
    return out


async def _exact(args, cases: list[DevCase]) -> tuple[dict[str, Outcomes], list[dict]]:
    from benchmarks.nextline_bench import loaded_router

    async with loaded_router(args) as router:
        return await exact_outcomes(router, cases, args.variants, baseline=args.baseline, quiet=args.quiet)


def comparison(args, cases: list[DevCase]) -> dict:
    """The `--compare` part of the output (see the module docstring)."""
    rows = None
    if args.objective == "exact":
        outcomes, rows = asyncio.run(_exact(args, cases))
    else:
        outcomes = {}
        for label, values in args.variants.items():
            with applied(values):
                outcomes[label] = covered(cases)
    return {"objective": args.objective, "variants": {k: v for k, v in args.variants.items() if v},
            "model_calls": sum(r["calls"] for r in rows) if rows is not None else None,
            "compared": compared(outcomes), "cases": rows}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()  # the code this process runs: HEAD may move
    settings = Settings()
    settings.context.budget_tokens = args.budget
    settings.context.syntax_budget_ms = SYNTAX_BUDGET_MS
    settings.completion.multiline = "never"
    settings.index.workers = 1
    cases = dev_cases(args.languages, args.cases, args.seed, args.eval_seed, args.eval_cases, settings)

    def header() -> dict:
        return {"benchmark": "value_fit", "recorded_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
                "commit": commit, "command": "python -m benchmarks.value_fit " + " ".join(shlex.quote(a) for a in argv),
                "dev_cases_per_language": args.cases, "seed": args.seed, "budget_tokens": args.budget}

    if args.compare:
        outcome = comparison(args, cases)
        result = header() | outcome
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        print(json.dumps(result["compared"], indent=1))
        return 0
    start = {p.name: p.current() for p in PARAMETERS}
    values, trials, best_trial = fit(lambda: covered(cases), args.rounds, args.alpha)
    result = header() | {
        "start": start, "fitted": values,
        "changed": {k: [start[k], v] for k, v in values.items() if v != start[k]},
        "objective_start": trials[0], "objective_fitted": best_trial,
        "trials": trials,
    }
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: result[k] for k in ("changed", "objective_start", "objective_fitted")}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
