"""How closely one file uses others: the weighted out-edges the value model ranks files by.

`out_edges(path, names, ref_counts, defs_by_name, resolved)` is a pure function of the graph's
rows for `path`: each name `path` refers to and does not define adds sqrt(uses) / (files
defining it) to each defining file (a tenth of that for names of one or two characters; nothing
for names defined in more than `MAX_DEFINING_FILES` files), and each file an import of `path`
resolves to adds 1.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from math import sqrt

MAX_DEFINING_FILES = 12  # names defined in more files than this carry no reference edges


def out_edges(path: str, names: Iterable[str], ref_counts: Mapping[str, int],
              defs_by_name: Mapping[str, set[str]], resolved: Iterable[tuple[str, ...]]) -> dict[str, float]:
    edges: dict[str, float] = defaultdict(float)
    own = set(names)
    for name, count in ref_counts.items():
        if name in own:
            continue
        defining = defs_by_name.get(name)
        if not defining or len(defining) > MAX_DEFINING_FILES:
            continue
        weight = sqrt(count) / len(defining) * (0.1 if len(name) <= 2 else 1.0)
        for target in defining:
            if target != path:
                edges[target] += weight
    for targets in resolved:
        for target in targets:
            edges[target] += 1.0
    return dict(edges)
