"""The summary of a run's rows: per language and subset (all lines, cross-file lines), mean EM
and ES per setting, and paired bootstrap intervals of arbor - in-file and arbor - baseline.
Only cases finished under every setting enter (the pairs must be complete)."""

from __future__ import annotations

import statistics
from pathlib import Path

from .stats import paired_bootstrap

SETTINGS = ("infile", "arbor", "jaccard")
COMPARISONS = (("arbor", "infile"), ("arbor", "jaccard"))
METRICS = ("em", "es")


def complete_cases(rows: list[dict]) -> dict[str, dict[str, dict]]:
    """case id -> setting -> row, for cases that have a row under every setting."""
    by_case: dict[str, dict[str, dict]] = {}
    for row in rows:
        by_case.setdefault(row["case_id"], {})[row["setting"]] = row
    return {k: v for k, v in by_case.items() if all(s in v for s in SETTINGS)}


def summarise(rows: list[dict], *, resamples: int = 2000, seed: int = 0) -> dict:
    cases = complete_cases(rows)
    languages = sorted({next(iter(v.values()))["language"] for v in cases.values()})
    table: dict[str, dict] = {}
    for language in languages:
        for subset in ("all", "crossfile"):
            chosen = [v for v in cases.values() if v["infile"]["language"] == language
                      and (subset == "all" or v["infile"]["crossfile"])]
            entry: dict = {"cases": len(chosen)}
            for setting in SETTINGS:
                entry[setting] = {m: round(statistics.fmean([c[setting][m] for c in chosen]), 2) if chosen else 0.0
                                  for m in METRICS}
            for left, right in COMPARISONS:
                entry[f"{left}-{right}"] = {
                    m: paired_bootstrap([c[left][m] for c in chosen], [c[right][m] for c in chosen],
                                        resamples=resamples, seed=seed)
                    for m in METRICS}
            table[f"{language}/{subset}"] = entry
    return table


def markdown(table: dict, title: str) -> str:
    lines = [f"## {title}", "",
             "| language / lines | cases | EM in-file | EM arbor | EM jaccard | ES in-file | ES arbor | ES jaccard "
             "| arbor-in-file EM [95% CI] | arbor-jaccard EM [95% CI] | arbor-in-file ES [95% CI] "
             "| arbor-jaccard ES [95% CI] |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|---|"]
    for key, e in table.items():
        def ci(name: str, metric: str) -> str:
            d = e[name][metric]
            return f"{d['mean']:+.1f} [{d['low']:+.1f}, {d['high']:+.1f}]"

        lines.append(f"| {key} | {e['cases']} | {e['infile']['em']:.1f} | {e['arbor']['em']:.1f} "
                     f"| {e['jaccard']['em']:.1f} | {e['infile']['es']:.1f} | {e['arbor']['es']:.1f} "
                     f"| {e['jaccard']['es']:.1f} | {ci('arbor-infile', 'em')} | {ci('arbor-jaccard', 'em')} "
                     f"| {ci('arbor-infile', 'es')} | {ci('arbor-jaccard', 'es')} |")
    return "\n".join(lines) + "\n"


def write_markdown(table: dict, title: str, notes: list[str], path: Path) -> None:
    path.write_text(markdown(table, title) + "\n" + "\n".join(notes) + "\n", encoding="utf-8")
