"""The typing benchmark's PNG: per system, the cumulative distribution of keystroke-to-ghost-text
latency over all pauses (a pause without ghost text sits at the 10-s timeout, so each curve ends
at the system's suggestion rate before the jump), with the 400 ms / 1,200 ms goals marked.

matplotlib is imported here only (the `bench` extra), with the non-interactive Agg backend.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def write_png(path: Path, rows_by_system: dict[str, list[dict[str, Any]]], pause_timeout_ms: float,
              title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.8))
    for system, rows in rows_by_system.items():
        if not rows:
            continue
        values = sorted(r["latency_ms"] if r["latency_ms"] is not None else pause_timeout_ms for r in rows)
        shares = [(i + 1) / len(values) for i in range(len(values))]
        exact = sum(1 for r in rows if r["exact"]) / len(rows)
        ax.step(values, shares, where="post", label=f"{system} (n={len(rows)}, exact {exact:.0%})")
    for x, label in ((400, "P50 goal"), (1200, "P90 goal")):
        ax.axvline(x, color="grey", linestyle=":", linewidth=1)
        ax.text(x, 1.01, label, fontsize=7, ha="center", color="grey")
    ax.set_xscale("log")
    ax.set_xlim(10, pause_timeout_ms * 1.2)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("last keystroke to ghost text (ms, log; no ghost text = 10 s timeout)")
    ax.set_ylabel("share of pauses")
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
