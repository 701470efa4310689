"""`arbor-ls complete FILE:LINE:COL`: one completion, exactly as the server would produce it."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from inference.api import BackendError

from .target import add_target_arguments, load_cli_settings, make_pipeline, parse_target


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("complete", help="print one completion at FILE:LINE:COL",
                              description="Print one completion at a 1-based line and column. --json adds "
                                          "backend, cache, context_tokens and per-stage latency_ms.")
    add_target_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    target = parse_target(args.target, args.workspace)
    settings = load_cli_settings(args.config)
    return asyncio.run(_complete(args, settings, target))


async def _complete(args, settings, target) -> int:
    pipeline = make_pipeline(settings, target)
    try:
        for failure in await pipeline.router.wait_loaded():  # an embedded model loads in its thread
            print(f"arbor-ls: error: {failure}", file=sys.stderr)
        result = await pipeline.complete(str(target.path), target.text, target.offset)
    except BackendError as exc:
        print(f"arbor-ls: error: no completion: {exc}", file=sys.stderr)
        return 1
    finally:
        await pipeline.aclose()
    parts = pipeline.last_context
    if args.json:
        print(json.dumps({
            "text": result.text,
            "backend": result.backend,
            "cache": "miss" if result.cache == "miss" else "hit",
            "cache_tier": result.cache,
            "context_tokens": parts.tokens if parts else 0,
            "latency_ms": result.latency_ms,
            "snippets": [{"path": s.path, "symbol": s.symbol, "kind": s.kind} for s in (parts.snippets if parts else [])],
        }, ensure_ascii=False, indent=2))
    else:
        sys.stdout.write(result.text + ("" if result.text.endswith("\n") else "\n"))
    return 0
