"""`arbor-ls complete FILE:LINE:COL`: one completion, exactly as the server would produce it."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from inference.api import BackendError

from ..pipeline import HeldBuffer
from ..positions import TextEdit
from .target import add_target_arguments, load_cli_settings, make_pipeline, parse_target


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("complete", help="print one completion at FILE:LINE:COL",
                              description="Print one completion at a 1-based line and column. --json adds "
                                          "backend, cache, context_tokens and per-stage latency_ms.")
    add_target_arguments(p)
    p.add_argument("--then-type", metavar="CHARS", default="",
                   help="then type CHARS at the cursor one at a time, completing after each in the same process "
                        "(model loaded, its prefix cache warm); --json lists those completions under \"then\"")
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
        buffer = HeldBuffer()  # as an open document in the server: the typed characters keep its snippets
        result = await pipeline.complete(str(target.path), target.text, target.offset, holder=buffer)
        parts = pipeline.last_context
        then = await _then_type(pipeline, target, args.then_type, buffer)
    except BackendError as exc:
        print(f"arbor-ls: error: no completion: {exc}", file=sys.stderr)
        return 1
    finally:
        await pipeline.aclose()
    if args.json:
        out = _result_json(result)
        out["context_tokens"] = parts.tokens if parts else 0
        out["snippets"] = [{"path": s.path, "symbol": s.symbol, "kind": s.kind} for s in (parts.snippets if parts else [])]
        if then:
            out["then"] = [{"typed": typed, **_result_json(r)} for typed, r in then]
        print(json.dumps(out, ensure_ascii=False, indent=2))
    else:
        for shown in [result] + [r for _, r in then]:
            sys.stdout.write(shown.text + ("" if shown.text.endswith("\n") else "\n"))
    return 0


async def _then_type(pipeline, target, chars: str, buffer: HeldBuffer) -> list:
    """(typed so far, completion) after each of `chars` is typed at the cursor, as the server sees the edits."""
    path, text, offset = str(target.path), target.text, target.offset
    out = []
    for char in chars:
        text = text[:offset] + char + text[offset:]
        # through the redacting listener make_pipeline opened the file with, as the server does
        (pipeline.privacy.views or pipeline.index).did_change(path, [TextEdit(offset, offset, char)], text)
        pipeline.index.flush(path)
        offset += 1
        out.append((chars[: len(out) + 1], await pipeline.complete(path, text, offset, holder=buffer)))
    return out


def _result_json(result) -> dict:
    return {"text": result.text, "backend": result.backend, "cache": "miss" if result.cache == "miss" else "hit",
            "cache_tier": result.cache, "latency_ms": result.latency_ms}
