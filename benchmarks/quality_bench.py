"""Completion quality: exact match and edit similarity of the first line, per language and setting.

Each case is completed through the server's own path: `CompletionPipeline.build_context` cuts the
prefix and suffix windows (context.budgetTokens, prefixShare, suffixShare from default settings),
the router renders the backend's FIM template and streams from the embedded engine (greedy,
single-line mode), and `pruning.postprocess.postprocess` cleans the text. Both the raw model text
and the post-processed text are scored.

Settings: `left` (text before the cursor only), `fim` (plus the text after the cursor line),
`fim+crossfile` (plus the case's cross-file snippets, best first, packed into the snippet share of
the budget). HumanEval has no repository, so it runs `left` and `fim` only.

Progress is appended per case to `<out>.cases.jsonl`, so `--resume` continues a stopped run; the
summary JSON and a markdown table are written at the end.

    python benchmarks/quality_bench.py --cceval-limit 25 --humaneval-limit 40
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import shlex
import statistics
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from inference.api import ContextSnippet  # noqa: E402
from inference.backend_spec import BackendSpec  # noqa: E402
from inference.router import Router  # noqa: E402
from inference.routing import RouteSettings  # noqa: E402
from lsp_server.config import Settings  # noqa: E402
from lsp_server.pipeline import CompletionPipeline  # noqa: E402
from lsp_server.prompt_request import request_from_parts  # noqa: E402
from pruning.budget import DEFAULT_TOKENIZER  # noqa: E402
from pruning.postprocess import postprocess  # noqa: E402

from quality_cases import CCEVAL_LANGUAGES, Case, humaneval_infilling, humaneval_problems, load_cceval  # noqa: E402
from quality_metrics import edit_similarity, exact_match, first_line  # noqa: E402
from quality_report import summarise, write_markdown  # noqa: E402

SETTINGS = ("left", "fim", "fim+crossfile")
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "cceval-samples"
BENCH_ROOT = "/bench-workspace"


def pack_snippets(crossfile: tuple[tuple[str, str], ...], budget: int) -> tuple[ContextSnippet, ...]:
    """Snippets in the given (best-first) order that fit `budget` approximate tokens together."""
    kept: list[ContextSnippet] = []
    used = 0
    for path, text in crossfile:
        cost = DEFAULT_TOKENIZER.count(text)
        if used + cost <= budget:
            kept.append(ContextSnippet(path, text))
            used += cost
    return tuple(kept)


async def run_case(pipeline: CompletionPipeline, router: Router, case: Case, setting: str,
                   max_tokens: int) -> dict:
    text = case.left if setting == "left" else case.left + case.right
    path = f"{BENCH_ROOT}/{case.path}"  # relative to the pipeline's workspace root: the case's own path
    parts = pipeline.build_context(path, text, len(case.left), language=case.language)
    request = request_from_parts(parts, multiline=False, max_tokens=max_tokens)
    if setting == "fim+crossfile":
        cfg = pipeline.settings.context
        share = max(0.0, 1.0 - cfg.prefix_share - cfg.suffix_share)
        request = replace(request, snippets=pack_snippets(case.crossfile, int(cfg.budget_tokens * share)))
    started = time.perf_counter()
    result = await router.complete(request)
    elapsed_ms = (time.perf_counter() - started) * 1000
    post = postprocess(result.text, prefix=parts.prefix, suffix=parts.suffix, language=parts.language,
                       multiline_mode=pipeline.settings.completion.multiline, multiline=False)
    return {
        "suite": case.suite, "language": case.language, "task_id": case.task_id, "setting": setting,
        "truth": first_line(case.truth), "raw": result.text, "post": post,
        "em_raw": exact_match(result.text, case.truth), "es_raw": round(edit_similarity(result.text, case.truth), 4),
        "em_post": exact_match(post, case.truth), "es_post": round(edit_similarity(post, case.truth), 4),
        "ms": round(elapsed_ms, 1), "prompt_chars": len(result.prompt), "snippets": len(request.snippets),
    }


def plan(args) -> list[tuple[Case, str]]:
    """Jobs round-robin over the suites' languages (case 1 of each, then case 2, ...), every setting
    of a case back to back: a run stopped early still covers every language evenly, and a case's
    `fim` prompt reuses the KV blocks of its `left` prompt (they share everything up to the suffix)."""
    queues = [load_cceval(Path(args.data), language, args.cceval_limit) for language in args.languages]
    if args.humaneval_limit > 0:
        queues.append(humaneval_infilling(humaneval_problems(), args.humaneval_limit))
    jobs: list[tuple[Case, str]] = []
    for round_ in range(max((len(q) for q in queues), default=0)):
        for queue in queues:
            if round_ < len(queue):
                case = queue[round_]
                jobs += [(case, s) for s in args.settings if case.crossfile or s != "fim+crossfile"]
    return jobs


def backend_spec(args) -> BackendSpec:
    if args.python_backend:
        return BackendSpec(name="python", kind="python", model=args.python_backend, model_family=args.family,
                           timeout_ms=600_000, max_tokens=args.max_tokens)
    return BackendSpec(name="embedded", kind="embedded", model=args.model, model_family=args.family,
                       timeout_ms=600_000, max_tokens=args.max_tokens, device=args.device)


async def run(args) -> dict:
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    log_path = out.with_suffix(".cases.jsonl")
    done: dict[tuple[str, str, str], dict] = {}
    if args.resume and log_path.exists():
        for line in log_path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            done[(row["suite"], row["task_id"], row["setting"])] = row
    elif log_path.exists():
        log_path.unlink()
    jobs = plan(args)
    settings = Settings()
    settings.completion.multiline = "never"
    pipeline = CompletionPipeline(settings, BENCH_ROOT)
    # the backend's 600 s timeout bounds each case, not the editor's per-mode deadlines
    router = Router([backend_spec(args)], route=RouteSettings(single_deadline_ms=600_000, multi_deadline_ms=600_000))
    problems = router.problems or await router.wait_loaded()
    if problems:
        raise SystemExit("backend unusable: " + "; ".join(problems))
    rows: list[dict] = []
    try:
        with open(log_path, "a", encoding="utf-8") as log:
            for index, (case, setting) in enumerate(jobs, 1):
                key = (case.suite, case.task_id, setting)
                row = done.get(key) or await run_case(pipeline, router, case, setting, args.max_tokens)
                if key not in done:
                    log.write(json.dumps(row, ensure_ascii=False) + "\n")
                    log.flush()
                rows.append(row)
                if not args.quiet:
                    print(f"[{index}/{len(jobs)}] {case.language:10} {setting:13} em={int(row['em_post'])} "
                          f"es={row['es_post']:.2f} {row['ms'] / 1000:.1f}s  {row['post'][:60]!r}", file=sys.stderr)
    finally:
        await router.aclose()
    return {
        "benchmark": "quality",
        "command": "python benchmarks/quality_bench.py " + " ".join(shlex.quote(a) for a in args.argv),
        "backend": {k: v for k, v in asdict(backend_spec(args)).items() if k != "api_key"},  # never a key
        "model": args.model or "(default)",
        "model_manifest": _manifest(args),
        "budget_tokens": settings.context.budget_tokens,
        "prefix_share": settings.context.prefix_share,
        "suffix_share": settings.context.suffix_share,
        "max_tokens": args.max_tokens,
        "machine": {"python": platform.python_version(), "processor": platform.machine(),
                    "cpus": _cpus()},
        "table": summarise(rows),
        "cases": rows,
    }


def _manifest(args) -> dict:
    if args.python_backend:
        return {}
    from inference.model_store import MANIFEST, resolve_model

    try:
        path = resolve_model(args.model)
        return json.loads((path / MANIFEST).read_text(encoding="utf-8")) if path.is_dir() else {"path": str(path)}
    except (OSError, ValueError):
        return {}


def _cpus() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 0)


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", default=str(DEFAULT_DATA), help="CrossCodeEval samples directory")
    p.add_argument("--languages", nargs="+", default=list(CCEVAL_LANGUAGES), choices=CCEVAL_LANGUAGES)
    p.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=SETTINGS)
    p.add_argument("--cceval-limit", type=int, default=25, help="cases per language (the samples hold 25)")
    p.add_argument("--humaneval-limit", type=int, default=40, help="HumanEval infilling cases (0 = none)")
    p.add_argument("--model", default="", help="embedded model name or path ('' = the default model)")
    p.add_argument("--family", default="qwen2.5-coder", help="template family")
    p.add_argument("--device", default="auto")
    p.add_argument("--python-backend", default="", help="module:Class of a python-kind backend (tests)")
    p.add_argument("--max-tokens", type=int, default=48)
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "quality.json"))
    p.add_argument("--markdown", default="", help="markdown table path (default: <out> with .md)")
    p.add_argument("--resume", action="store_true", help="reuse finished cases from <out>.cases.jsonl")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    args.argv = argv
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    report = asyncio.run(run(args))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    write_markdown(report, Path(args.markdown) if args.markdown else out.with_suffix(".md"))
    print(json.dumps(report["table"], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
