"""Tokens a block-level KV prefix cache would prefill per keystroke, on typing traces over real code.

No model runs. A function body is removed from a real source file and re-typed character by
character; at every keystroke the context is built as the server builds a completion's
(`CompletionPipeline.build_context` over an index of the file's workspace, the buffer open and
kept in sync with `did_change`, the previous context's layout held; the server's background
warm-ups, which bring fresh choices of snippets, are not run), rendered with the configured family's template
(`inference.templates`) and tokenized with the model's own tokenizer (`tokenizer.json`).

Per keystroke: prompt tokens; tokens in common with the previous prompt; "would prefill" =
prompt - floor(common / block) * block, which is what an engine whose prefix cache hashes full
blocks of `block` tokens recomputes; and where the first differing character falls: `snippets`
(anything before the current file's blocks), `suffix_block` (the suffix's lines that the
template places before the FIM part, see `FimTemplate.suffix_lines`), `prefix_window` (the prefix before its last line:
the window's start moved), `prefix_end` (its last line: what was typed), `suffix`, `template`
(the FIM tokens themselves). Summaries (P50/P90/mean/max) over every keystroke and over the pause
points (after each line's indentation, and in the middle of each line's text).

Every trace is rendered three ways from the same contexts: the template as configured
("default"), and prefix-suffix-middle ("psm", as llama.vim lays it out) and suffix-prefix-middle
("spm") orders with the whole suffix window in the FIM slot, so the layouts compare on identical
contexts in one run.

--order-samples N also asks the configured model (the real default one, in process) to complete N
lines of the traced bodies, each removed from its file with the cursor after its indentation,
once per layout in --order-layouts: first-line exact match and edit similarity after the server's
post-processing. This decides which layouts a family can use.

Usage: python -m benchmarks.prompt_stability [--trace ROOT:REL_PATH:FUNCTION ...] [--out FILE]
Prints JSON and writes it to --out (default benchmarks/results/prompt_stability.json).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from inference.templates import FimTemplate, template_for
from lsp_server.config import load_settings
from lsp_server.pipeline import CompletionPipeline, language_id_for
from lsp_server.positions import TextEdit
from lsp_server.subcommands.target import build_index
from lsp_server.prompt_request import request_from_parts

ROOT = Path(__file__).resolve().parent.parent

SITE = ROOT / ".venv" / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
DEFAULT_TRACES = (
    f"{SITE / 'httpx'}:_client.py:_redirect_headers",
    f"{SITE / 'httpx'}:_client.py:_redirect_url",
    f"{ROOT / 'editors/vscode/node_modules/@azure/msal-common/src'}:request/ScopeSet.ts:unionScopeSets",
    f"{ROOT / 'editors/vscode/node_modules/@azure/msal-common/src'}:request/ScopeSet.ts:removeScope",
    "/usr/share/doc/git/contrib/persistent-https:client.go:connect",
    "/usr/share/doc/git/contrib/persistent-https:proxy.go:handleUnixConn",
)
DEFAULT_TOKENIZER = Path.home() / ".cache/arbor-ls/models/qwen2.5-coder-0.5b/tokenizer.json"
PSM = "{fim_prefix}{prefix}{fim_suffix}{suffix}{fim_middle}"
SPM = "{fim_suffix}{suffix}{fim_prefix}{prefix}{fim_middle}"


def find_body(text: str, function: str, language: str) -> tuple[int, int]:
    """Code-point range of `function`'s body: from the end of its header line (the newline before
    the first body line) to the end of its last body line."""
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    name = re.escape(function)
    header = re.compile(rf"^\s*(?:async\s+)?def {name}\(" if language == "python" else
                        rf"^\s*(?:func (?:\([^)]*\) )?|(?:(?:export|async|public|private|protected|static|function)\s+)*){name}\s*\(")
    head = next(i for i, line in enumerate(lines) if header.match(line))
    indent = len(lines[head]) - len(lines[head].lstrip())
    opener = ":" if language == "python" else "{"
    end_head = next(i for i in range(head, len(lines)) if lines[i].split("#")[0].rstrip().endswith(opener))
    last = end_head
    for i in range(end_head + 1, len(lines)):
        stripped = lines[i].strip()
        depth = len(lines[i]) - len(lines[i].lstrip())
        if language == "python":
            if stripped and depth <= indent:
                break
            if stripped:
                last = i
        else:
            if stripped == "}" and depth == indent:
                break
            last = i
    return starts[end_head + 1] - 1, starts[last + 1] - 1


def keystrokes(text: str, body: tuple[int, int]):
    """(text, offset, pause) after each typed character of the body, starting from the file without it."""
    start, end = body
    typed = text[start:end]
    before, after = text[:start], text[end:]
    line_at = 0
    for i, char in enumerate(typed):
        current = before + typed[: i + 1] + after
        line_at = i + 1 if char == "\n" else line_at
        line = typed[line_at: (typed.find("\n", line_at) + 1 or len(typed) + 1) - 1]
        content_at = line_at + len(line) - len(line.lstrip())
        middle = content_at + (len(line.strip()) // 2)
        pause = i + 1 == content_at or (i + 1 == middle and len(line.strip()) > 1)
        yield current, start + i + 1, pause


def classify(prompt: str, previous: str, template: FimTemplate, prefix: str, suffix: str, path: str) -> str:
    """Where `prompt` first differs from `previous` (see the module docstring)."""
    at = next((i for i, (a, b) in enumerate(zip(prompt, previous)) if a != b), min(len(prompt), len(previous)))
    if prompt == previous:
        return "none"
    suffix, far = template.split_suffix(suffix)
    fim = template.layout.format(fim_prefix=template.fim_prefix, fim_suffix=template.fim_suffix,
                                 fim_middle=template.fim_middle, prefix=prefix, suffix=suffix)
    fim_start = len(prompt) - len(fim)
    header = f"{template.file_sep}{path}\n"
    far_block = f"{header}{far.rstrip()}\n" if far.strip() else ""
    if at < fim_start - len(header) - len(far_block):
        return "snippets"
    if at < fim_start - len(header):
        return "suffix_block"
    if at < fim_start:
        return "template"
    fields = _field_spans(template, prefix, suffix)
    relative = at - fim_start
    for name, (lo, hi) in fields.items():
        if lo <= relative < hi:
            if name == "prefix":
                last_line = prefix.rfind("\n") + 1
                return "prefix_end" if relative - lo >= last_line else "prefix_window"
            return name
    return "template"


def _field_spans(template: FimTemplate, prefix: str, suffix: str) -> dict[str, tuple[int, int]]:
    values = {"fim_prefix": template.fim_prefix, "fim_suffix": template.fim_suffix,
              "fim_middle": template.fim_middle, "prefix": prefix, "suffix": suffix}
    spans, at, rest = {}, 0, template.layout
    while rest:
        if rest.startswith("{"):
            name, rest = rest[1:].split("}", 1)
            spans[name] = (at, at + len(values[name]))
            at += len(values[name])
        else:
            literal = rest.split("{", 1)[0]
            at += len(literal)
            rest = rest[len(literal):]
    return {k: v for k, v in spans.items() if k in ("prefix", "suffix")}


def common_prefix(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def run_trace(spec: str, tokenizer, templates: dict[str, FimTemplate], settings, block: int) -> dict:
    root, rel, function = spec.rsplit(":", 2)
    path = os.path.join(root, rel)
    language = language_id_for(path)
    original = Path(path).read_text(encoding="utf-8")
    body = find_body(original, function, language)
    start_text = original[: body[0]] + original[body[1]:]
    index = build_index(settings, [root], snapshot=False)
    index.did_open(path, start_text, language)
    pipeline = CompletionPipeline(settings, root, index=index)
    previous: dict[str, list[int] | None] = {name: None for name in templates}
    previous_prompt: dict[str, str] = {name: "" for name in templates}
    rows: dict[str, list[dict]] = {name: [] for name in templates}
    text, build_ms, layout = start_text, [], None
    for new_text, offset, pause in keystrokes(original, body):
        index.did_change(path, [TextEdit(offset - 1, offset - 1, new_text[offset - 1])], new_text)
        index.flush(path)
        text = new_text
        began = time.perf_counter()
        # as the server's completions: the previous context's snippets while they hold, and its
        # prefix window's start while the window fits (fresh choices come from warm-ups there)
        parts = pipeline.build_context(path, text, offset, language=language, holds=(layout,) if layout else (),
                                       prefix_start=layout.prefix_start if layout else None)
        build_ms.append((time.perf_counter() - began) * 1000)
        layout = parts.layout
        request = request_from_parts(parts, multiline=False, max_tokens=64, repo_name=pipeline.repo_name)
        for name, template in templates.items():
            prompt = template.render(request)
            ids = tokenizer.encode(prompt, add_special_tokens=False).ids
            if previous[name] is not None:
                common = common_prefix(ids, previous[name])
                rows[name].append({
                    "prompt": len(ids), "common": common, "prefill": len(ids) - common // block * block,
                    "pause": pause, "first_difference": classify(prompt, previous_prompt[name], template,
                                                                 request.prefix, request.suffix, request.path),
                })
            previous[name], previous_prompt[name] = ids, prompt
    return {"trace": f"{os.path.basename(root)}/{rel}:{function}", "language": language,
            "keystrokes": len(rows[next(iter(rows))]), "build_context_ms_p50": round(statistics.median(build_ms), 2),
            "layouts": {name: summarise(r) for name, r in rows.items()}, "_rows": rows}


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, int(q * len(ordered)))])


def summarise(rows: list[dict]) -> dict:
    def stats(values: list[int]) -> dict:
        return {"p50": percentile(values, 0.5), "p90": percentile(values, 0.9),
                "mean": round(statistics.fmean(values), 1) if values else 0.0, "max": max(values, default=0)}

    where: dict[str, int] = {}
    for r in rows:
        where[r["first_difference"]] = where.get(r["first_difference"], 0) + 1
    pauses = [r for r in rows if r["pause"]]
    return {"prompt_tokens": stats([r["prompt"] for r in rows]),
            "would_prefill": stats([r["prefill"] for r in rows]),
            "would_prefill_at_pauses": stats([r["prefill"] for r in pauses]),
            "pauses": len(pauses), "first_difference": dict(sorted(where.items()))}


def order_samples(specs: list[str], count: int) -> list[tuple[str, str, int, str]]:
    """(root, path, offset, expected line) for `count` lines of the traced bodies, spread evenly:
    the cursor after the line's indentation, the rest of the line removed (the user is about to
    type it), lines of at least 12 characters of code."""
    picks = []
    for spec in specs:
        root, rel, function = spec.rsplit(":", 2)
        path = os.path.join(root, rel)
        text = Path(path).read_text(encoding="utf-8")
        start, end = find_body(text, function, language_id_for(path))
        at = start + 1
        for line in text[start + 1:end].split("\n"):
            code = line.strip()
            if len(code) >= 12 and not code.startswith(("#", "//", "*", "/*")):
                picks.append((root, path, at + len(line) - len(line.lstrip()), code))
            at += len(line) + 1
    step = max(1, len(picks) // max(1, count))
    return picks[::step][:count]


async def order_check(specs: list[str], count: int, settings, templates: dict[str, FimTemplate],
                      max_tokens: int) -> dict:
    """First-line exact match and edit similarity of the real default model's completions at the
    same cursors, one prompt per layout, post-processed as the server does."""
    import difflib

    from inference.api import SamplingParams
    from inference.router import Router, collect
    from pruning.postprocess import postprocess

    router = Router(settings.backends)
    backend = router.slots[0].backend
    await backend.wait_loaded()
    scores = {name: {"exact": 0, "similarity": [], "ms": []} for name in templates}
    cases = []
    for root, path, offset, expected in order_samples(specs, count):
        text = Path(path).read_text(encoding="utf-8")
        line_end = text.find("\n", offset)
        text = text[:offset] + text[line_end if line_end >= 0 else len(text):]
        index = build_index(settings, [root], snapshot=False)
        index.did_open(path, text, language_id_for(path))
        pipeline = CompletionPipeline(settings, root, index=index)
        parts = pipeline.build_context(path, text, offset)
        request = request_from_parts(parts, multiline=False, max_tokens=max_tokens, repo_name=pipeline.repo_name)
        case = {"path": os.path.relpath(path, root), "expected": expected}
        for name, template in templates.items():
            params = SamplingParams(max_tokens=max_tokens, stop=template.stop)
            began = time.perf_counter()
            raw = await collect(backend, template.render(request), params, False)
            scores[name]["ms"].append((time.perf_counter() - began) * 1000)
            got = postprocess(raw, prefix=parts.prefix, suffix=parts.suffix, language=parts.language,
                              multiline=False).strip()
            scores[name]["exact"] += got == expected
            scores[name]["similarity"].append(difflib.SequenceMatcher(None, got, expected).ratio())
            case[name] = got
        cases.append(case)
    await router.aclose()
    return {"samples": len(cases), "max_tokens": max_tokens,
            "layouts": {name: {"exact_match": round(v["exact"] / max(1, len(cases)), 3),
                               "edit_similarity": round(statistics.fmean(v["similarity"] or [0]), 3),
                               "ms_p50": round(statistics.median(v["ms"] or [0]), 1)}
                        for name, v in scores.items()},
            "cases": cases}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trace", action="append", help="ROOT:REL_PATH:FUNCTION (repeatable)")
    parser.add_argument("--tokenizer", default=str(DEFAULT_TOKENIZER))
    parser.add_argument("--family", default="qwen2.5-coder")
    parser.add_argument("--block", type=int, default=16, help="prefix-cache block size in tokens")
    parser.add_argument("--config", help="settings JSON (the LSP settings' shape); default settings otherwise")
    parser.add_argument("--order-samples", type=int, default=0,
                        help="also complete this many masked lines with the configured model, PSM vs SPM")
    parser.add_argument("--order-max-tokens", type=int, default=24)
    parser.add_argument("--order-layouts", default="psm,spm,default", help="comma-separated, of default/psm/spm")
    parser.add_argument("--skip-traces", action="store_true", help="only the model check of the FIM orders")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "prompt_stability.json"))
    args = parser.parse_args(argv)
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(args.tokenizer)
    settings, problems = load_settings(json.loads(Path(args.config).read_text()) if args.config else None)
    template = template_for(args.family)
    templates = {"default": template, "psm": dataclasses.replace(template, layout=PSM, suffix_lines=0),
                 "spm": dataclasses.replace(template, layout=SPM, suffix_lines=0)}
    specs = [s for s in args.trace or DEFAULT_TRACES if os.path.isfile(os.path.join(*s.rsplit(":", 2)[:2]))]
    skipped = [s for s in args.trace or DEFAULT_TRACES if s not in specs]
    traces = [] if args.skip_traces else [run_trace(s, tokenizer, templates, settings, args.block) for s in specs]
    overall = {name: summarise([row for t in traces for row in t["_rows"][name]]) for name in templates}
    for t in traces:
        t.pop("_rows")
    result = {
        "benchmark": "prompt_stability", "recorded_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
        "commit": _commit(), "machine": platform.machine(), "family": template.name,
        "default_layout": template.layout, "block": args.block, "tokenizer": args.tokenizer,
        "budget_tokens": settings.context.budget_tokens, "overall": overall, "traces": traces,
        "skipped": skipped, "settings_problems": [str(p) for p in problems],
    }
    if args.order_samples:
        orders = {name: templates[name] for name in args.order_layouts.split(",")}
        result["fim_order_check"] = asyncio.run(order_check(specs, args.order_samples, settings, orders,
                                                            args.order_max_tokens))
    text = json.dumps(result, indent=2)
    print(text)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


if __name__ == "__main__":
    sys.exit(main())
