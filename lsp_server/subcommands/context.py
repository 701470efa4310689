"""`arbor-ls context FILE:LINE:COL`: the exact prompt the server would send, without a model call."""

from __future__ import annotations

import argparse
import json

from inference.backend_spec import BackendSpec
from inference.model_store import DEFAULT_MODEL, find_known
from inference.templates import template_for

from ..context_report import context_report
from .target import add_target_arguments, load_cli_settings, make_pipeline, parse_target


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("context", help="print the prompt the server would send at FILE:LINE:COL",
                              description="Print the prompt for a completion at FILE:LINE:COL without calling "
                                          "a model. --json adds prefix, suffix, tokens, budget and snippets.")
    add_target_arguments(p)
    p.add_argument("--budget", type=int, metavar="TOKENS", help="context budget in tokens (default: the setting)")
    p.set_defaults(func=run)


def configured_family(spec: BackendSpec) -> str:
    """The prompt family a backend will use, known without creating it (no model is loaded)."""
    if spec.model_family or spec.kind != "embedded":
        return spec.model_family
    known = find_known(spec.model or DEFAULT_MODEL)
    return known.family if known else ""


def run(args: argparse.Namespace) -> int:
    target = parse_target(args.target, args.workspace)
    settings = load_cli_settings(args.config)
    if args.budget is not None and args.budget < 64:
        from ..errors import UsageError

        raise UsageError(f"--budget must be at least 64 tokens, got {args.budget}")
    template = template_for(configured_family(settings.backends[0]))
    # The pipeline's router is never touched: `context` loads no model and opens no connection.
    pipeline = make_pipeline(settings, target)
    parts = pipeline.build_context(str(target.path), target.text, target.offset, budget_tokens=args.budget)
    report = context_report(parts, template, pipeline.repo_name)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        print(report["prompt"])
    return 0

