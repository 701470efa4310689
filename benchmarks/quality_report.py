"""Summary rows and the markdown table of the quality benchmark (pure functions over case rows)."""

from __future__ import annotations

import statistics
from pathlib import Path

SETTING_ORDER = {"left": 0, "fim": 1, "fim+crossfile": 2}
SETTING_LABELS = {"left": "(a) left context", "fim": "(b) + right context (FIM)",
                  "fim+crossfile": "(c) + cross-file snippets"}


def summarise(rows: list[dict]) -> list[dict]:
    """One row per (suite, language, setting): means in percent, time per case in seconds."""
    groups: dict[tuple[str, str, str], list[dict]] = {}
    for row in rows:
        groups.setdefault((row["suite"], row["language"], row["setting"]), []).append(row)
    table = []
    for (suite, language, setting), group in sorted(
            groups.items(), key=lambda kv: (kv[0][0], kv[0][1], SETTING_ORDER.get(kv[0][2], 9))):
        seconds = [r["ms"] / 1000 for r in group]
        entry = {
            "suite": suite, "language": language, "setting": setting, "cases": len(group),
            "em_raw": _pct(r["em_raw"] for r in group), "em_post": _pct(r["em_post"] for r in group),
            "es_raw": _pct(r["es_raw"] for r in group), "es_post": _pct(r["es_post"] for r in group),
            "s_per_case_median": round(statistics.median(seconds), 2),
            "s_per_case_mean": round(statistics.fmean(seconds), 2),
        }
        entry["post_not_lower"] = entry["em_post"] >= entry["em_raw"] and entry["es_post"] >= entry["es_raw"]
        table.append(entry)
    return table


def _pct(values) -> float:
    values = [float(v) for v in values]
    return round(100 * statistics.fmean(values), 1) if values else 0.0


def markdown(report: dict) -> str:
    lines = [
        "# Completion quality",
        "",
        f"Model: {report.get('model')} ({_source(report)}); greedy, single-line, max {report.get('max_tokens')} "
        f"tokens; context budget {report.get('budget_tokens')} tokens (prefix share {report.get('prefix_share')}, "
        f"suffix share {report.get('suffix_share')}), the server's template and post-processing.",
        f"Machine: {report['machine']['cpus']} CPU cores ({report['machine']['processor']}), Python "
        f"{report['machine']['python']}.",
        "",
        "EM = exact match of the first line, ES = edit similarity of the first line (both in %); raw = the "
        "model's text as streamed, post = after `pruning.postprocess`. Time is seconds per case (median).",
        "",
    ]
    for suite in dict.fromkeys(r["suite"] for r in report["table"]):
        title = {"cceval": "CrossCodeEval samples", "humaneval": "HumanEval single-line infilling"}.get(suite, suite)
        lines += [f"## {title}", "",
                  "| language | setting | cases | EM raw | EM post | ES raw | ES post | s/case |",
                  "|---|---|---:|---:|---:|---:|---:|---:|"]
        for r in (r for r in report["table"] if r["suite"] == suite):
            lines.append(f"| {r['language']} | {SETTING_LABELS.get(r['setting'], r['setting'])} | {r['cases']} | "
                         f"{r['em_raw']:.1f} | {r['em_post']:.1f} | {r['es_raw']:.1f} | {r['es_post']:.1f} | "
                         f"{r['s_per_case_median']:.2f} |")
        lines.append("")
    lower = [r for r in report["table"] if not r["post_not_lower"]]
    lines.append("Post-processing lowers no score." if not lower else
                 "Post-processing lowers a score in: " + ", ".join(f"{r['language']}/{r['setting']}" for r in lower))
    lines += ["", "Produced by:", "", "```", report["command"], "```", ""]
    return "\n".join(lines)


def _source(report: dict) -> str:
    manifest = report.get("model_manifest") or {}
    if not manifest:
        return report.get("backend", {}).get("kind", "")
    return f"{manifest.get('source', '')}, {manifest.get('dtype', '')}"


def write_markdown(report: dict, path: Path) -> None:
    path.write_text(markdown(report), encoding="utf-8")
