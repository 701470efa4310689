"""The load test's PNG: latency distribution per scenario, and throughput and P95 against
concurrency with the knee (where throughput stops growing) marked, arbor-ls beside bare pygls.

matplotlib is imported here only (the `bench` extra), with the non-interactive Agg backend.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .runner import ServerRun

COLOURS = {"arbor-ls": "#1f77b4", "bare-pygls": "#ff7f0e"}


def _distribution(ax, runs: list[ServerRun]) -> None:
    names = [name for name in runs[0].records if runs[0].records[name].latencies_ms]
    width = 0.8 / len(runs)
    for i, run in enumerate(runs):
        data = [run.records[n].latencies_ms if n in run.records and run.records[n].latencies_ms else [0.0]
                for n in names]
        positions = [j + (i - (len(runs) - 1) / 2) * width for j in range(len(names))]
        parts = ax.boxplot(data, positions=positions, widths=width * 0.9, whis=(5, 95), showfliers=False,
                           patch_artist=True, manage_ticks=False)
        for box in parts["boxes"]:
            box.set_facecolor(COLOURS.get(run.spec.name, "grey"))
            box.set_alpha(0.6)
        for j, name in enumerate(names):
            summary = run.summaries.get(name, {})
            if summary.get("p99_ms") is not None:
                ax.plot(positions[j], summary["p99_ms"], marker="v", color=COLOURS.get(run.spec.name, "grey"))
        ax.plot([], [], color=COLOURS.get(run.spec.name, "grey"), linewidth=6, alpha=0.6, label=run.spec.name)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels([n.replace("_", "\n") for n in names], fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("keystroke to completion (ms, log)")
    ax.set_title("Latency per scenario (box: P25-P75, whiskers P5-P95, ▼ P99)")
    ax.grid(axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=8)


def _sweep(ax_throughput, ax_p95, runs: list[ServerRun]) -> None:
    for run in runs:
        if not run.sweep or not run.sweep["levels"]:
            continue
        colour = COLOURS.get(run.spec.name, "grey")
        levels = [row["concurrency"] for row in run.sweep["levels"]]
        throughput = [row["messages_per_s"] or 0 for row in run.sweep["levels"]]
        p95 = [row["p95_ms"] or 0 for row in run.sweep["levels"]]
        ax_throughput.plot(levels, throughput, marker="o", color=colour, label=run.spec.name)
        ax_p95.plot(levels, p95, marker="o", color=colour, label=run.spec.name)
        knee = run.sweep.get("knee_concurrency")
        if knee in levels:
            k = levels.index(knee)
            ax_throughput.plot(knee, throughput[k], marker="*", markersize=16, color=colour)
            ax_throughput.annotate(f"knee: {knee}", (knee, throughput[k]), textcoords="offset points",
                                   xytext=(6, -14), fontsize=8, color=colour)
            ax_p95.axvline(knee, color=colour, linestyle=":", alpha=0.7)
    for ax, label, title in ((ax_throughput, "LSP messages/s", "Throughput against concurrency (★ knee)"),
                             (ax_p95, "P95 (ms, log)", "P95 against concurrency (dotted: knee)")):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("concurrent closed-loop typists (didChange + inlineCompletion pairs)")
        ax.set_ylabel(label)
        ax.set_title(title)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        if ax is ax_p95:
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=0)


def plot_report(report: dict, arbor: ServerRun, bare: ServerRun | None, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = [arbor] + ([bare] if bare is not None else [])
    fig, axes = plt.subplots(1, 3, figsize=(18, 5.5))
    if any(r.latencies_ms for r in arbor.records.values()):
        _distribution(axes[0], runs)
    _sweep(axes[1], axes[2], runs)
    machine = report.get("machine", {})
    fig.suptitle(f"arbor-ls bench — {report.get('backend', '')} — {machine.get('cpu', '')} "
                 f"({machine.get('cpus', '?')} CPUs) — {report.get('date', '')}", fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
