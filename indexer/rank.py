"""Personalised PageRank over a weighted directed graph of files (pure).

Edges point from a referring file to the file defining what it refers to; a random walk that
restarts at the focus file therefore spends most of its time in the files the focus depends on,
directly or through a chain of references.

Invariants:
- The result sums to 1 over all nodes (up to float rounding) and is deterministic for equal input.
- Dangling nodes (no out-edges) send their mass back to the personalisation vector.
- `start` (a previous result) only speeds convergence; it does not change the fixed point.
"""

from __future__ import annotations

from collections.abc import Mapping


def personalized_pagerank(
    edges: Mapping[str, Mapping[str, float]],
    personalization: Mapping[str, float],
    damping: float = 0.85,
    max_iterations: int = 50,
    tolerance: float = 1e-7,
    start: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """Stationary distribution of a walk that follows `edges` with probability `damping`."""
    nodes = set(edges)
    for targets in edges.values():
        nodes.update(targets)
    nodes.update(personalization)
    if not nodes:
        return {}
    total_p = sum(personalization.values())
    if total_p <= 0:
        restart = {n: 1.0 / len(nodes) for n in nodes}
    else:
        restart = {n: w / total_p for n, w in personalization.items() if w > 0}

    ordered = sorted(nodes)
    index = {n: i for i, n in enumerate(ordered)}
    out_lists: list[list[tuple[int, float]] | None] = [None] * len(ordered)
    for src, targets in edges.items():
        total = sum(w for w in targets.values() if w > 0)
        if total > 0:
            out_lists[index[src]] = [(index[dst], w / total) for dst, w in sorted(targets.items()) if w > 0]
    restart_vec = [0.0] * len(ordered)
    for n, w in restart.items():
        restart_vec[index[n]] = w

    if start:
        mass = sum(start.get(n, 0.0) for n in ordered)
        rank = [start.get(n, 0.0) / mass for n in ordered] if mass > 0 else [0.0] * len(ordered)
    else:
        rank = list(restart_vec)
    for _ in range(max_iterations):
        nxt = [0.0] * len(ordered)
        dangling = 0.0
        for i, r in enumerate(rank):
            if not r:
                continue
            out = out_lists[i]
            if out is None:
                dangling += r
                continue
            share = damping * r
            for j, w in out:
                nxt[j] += share * w
        leftover = (1.0 - damping) + damping * dangling
        for i, w in enumerate(restart_vec):
            if w:
                nxt[i] += leftover * w
        delta = sum(abs(a - b) for a, b in zip(nxt, rank))
        rank = nxt
        if delta < tolerance:
            break
    return dict(zip(ordered, rank))
