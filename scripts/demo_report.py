"""Print what the demo did: the completed line, the context it used, the time of every stage, and
the latency of the completion after each further typed character (`then`, from `--then-type`).

Usage: demo_report.py RESULT_JSON TIMES_FILE FILE:LINE:COL
RESULT_JSON is `arbor-ls complete --json` output; TIMES_FILE has one "stage start end" line per
setup step (epoch seconds), as scripts/demo.sh writes them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

BOLD, DIM, GREEN, RESET = ("\033[1m", "\033[2m", "\033[32m", "\033[0m") if sys.stdout.isatty() else ("",) * 4


def stage_seconds(times_text: str) -> list[tuple[str, float]]:
    stages = []
    for line in times_text.splitlines():
        name, start, end = line.split()
        stages.append((name, float(end) - float(start)))
    return stages


def report(result: dict, stages: list[tuple[str, float]], target: str) -> str:
    path, line, column = target.rsplit(":", 2)
    source_line = Path(path).read_text(encoding="utf-8").split("\n")[int(line) - 1]
    before, after = source_line[: int(column) - 1], source_line[int(column) - 1:]
    text = result.get("text", "")
    out = [f"{BOLD}completion{RESET} at {target} (backend {result.get('backend') or '?'}, cache {result.get('cache')}):",
           f"    {before}{GREEN}{BOLD}{text}{RESET}{after}" if "\n" not in text else
           f"    {before}{GREEN}{text}{RESET}{after}"]
    if not text:
        out.append(f"    {DIM}(the model offered nothing here){RESET}")
    snippets = result.get("snippets") or []
    out.append(f"{BOLD}context{RESET}: {result.get('context_tokens', 0)} tokens; "
               + (f"{len(snippets)} cross-file snippet(s):" if snippets else "the current file only"))
    for s in snippets:
        out.append(f"    {s.get('path', '')}  {s.get('symbol', '')}  {DIM}{s.get('kind', '')}{RESET}")
    out.append(f"{BOLD}time per stage{RESET}:")
    for name, seconds in stages:
        out.append(f"    {name:<10} {seconds:8.2f} s")
    latency = dict(result.get("latency_ms") or {})
    for name, ms in latency.items():
        out.append(f"      {DIM}complete/{RESET}{name:<14} {ms:10.1f} ms")
    if "total" in latency:
        rest = latency["total"] - sum(ms for name, ms in latency.items() if name != "total")
        if rest > 50:  # the lazily started backend: loading the model happens inside `total`
            out.append(f"      {DIM}complete/{RESET}{'model load':<14} {rest:10.1f} ms  {DIM}(total minus the stages above){RESET}")
    for then in result.get("then") or []:
        out.extend(_then_lines(then, before, after))
    return "\n".join(out)


def _then_lines(then: dict, before: str, after: str) -> list[str]:
    """The completion after more typed characters, in the same process (model loaded, KV warm)."""
    typed, text = then.get("typed", ""), then.get("text", "")
    latency = dict(then.get("latency_ms") or {})
    out = [f"{BOLD}after typing {typed!r}{RESET} (same process, model loaded; cache {then.get('cache_tier') or then.get('cache')}): "
           f"{BOLD}{latency.get('total', 0.0):.1f} ms{RESET}",
           f"    {before}{typed}{GREEN}{text}{RESET}{after}" if text else
           f"    {DIM}(the model offered nothing here){RESET}"]
    for name, ms in latency.items():
        if name != "total":
            out.append(f"      {DIM}complete/{RESET}{name:<14} {ms:10.1f} ms")
    return out


def main(argv: list[str]) -> int:
    result_path, times_path, target = argv
    result = json.loads(Path(result_path).read_text(encoding="utf-8"))
    print(report(result, stage_seconds(Path(times_path).read_text(encoding="utf-8")), target))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
