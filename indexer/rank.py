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

    normalised: dict[str, list[tuple[str, float]]] = {}
    for src, targets in edges.items():
        out = sum(w for w in targets.values() if w > 0)
        if out > 0:
            normalised[src] = [(dst, w / out) for dst, w in sorted(targets.items()) if w > 0]

    if start:
        mass = sum(start.get(n, 0.0) for n in nodes)
        rank = {n: start.get(n, 0.0) / mass for n in nodes} if mass > 0 else dict.fromkeys(nodes, 0.0)
    else:
        rank = dict.fromkeys(nodes, 0.0)
        rank.update(restart)
    ordered = sorted(nodes)
    for _ in range(max_iterations):
        nxt = dict.fromkeys(ordered, 0.0)
        dangling = 0.0
        for src in ordered:
            r = rank[src]
            if not r:
                continue
            out = normalised.get(src)
            if out is None:
                dangling += r
                continue
            share = damping * r
            for dst, w in out:
                nxt[dst] += share * w
        leftover = (1.0 - damping) + damping * dangling
        for n, w in restart.items():
            nxt[n] += leftover * w
        delta = sum(abs(nxt[n] - rank[n]) for n in ordered)
        rank = nxt
        if delta < tolerance:
            break
    return rank
