"""Sibling constants: the other constants of the run a referenced constant belongs to.

A file that names `token.STRING` and `token.LBRACE` near the cursor is likely to name another
token kind next (`token.COLON`): constants defined one after the other (a Go `const ( ... )`
block, a run of module-level `NAME = value` lines) are an enumeration, and the next line picks
another of its members. Languages whose enumerations have a container (an `enum`, a class of
constants) show the members in the container's skeleton already, and their runs of module-level
constants are mostly settings, not enumerations; Go's const blocks have no container
(`RUN_LANGUAGES`).

Invariants: a run is a maximal sequence of the defining file's top-level constants, in line
order, each starting at most `RUN_GAP` lines after the previous one ends, of at least two
constants; only runs of another file that holds a referenced constant offer siblings, each
worth `SIBLING_SHARE` times the best referenced constant's value of that run divided by the
square root of the run's length (a long enumeration says less about which member is next). A
file's runs depend on its entry's tags alone and are kept on the entry (`("constant_runs",)`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from .index_lookup import Found, IndexLookup

RUN_LANGUAGES = frozenset({"go"})
RUN_GAP = 2  # lines between one constant's end and the next one's start within a run (comments)
SIBLING_SHARE = 0.5  # not tuned: the Go dev corpora recall the same at 0 and at 0.5
MAX_RUN = 64  # constants of one run offered at most (its first ones)


def sibling_constants(lookup: IndexLookup, referenced: Iterable[tuple[Found, float]]) -> list[tuple[Found, float]]:
    """(sibling, value) for the constants that share a run with a referenced constant of another
    file (`referenced`: each found constant with its value), the referenced ones left out."""
    if not lookup.available:
        return []
    best_in: dict[str, dict[int, float]] = {}  # path -> start byte of a referenced constant -> value
    for found, value in referenced:
        definition = found.definition
        if found.path == lookup.path or getattr(definition, "kind", "") != "constant":
            continue
        starts = best_in.setdefault(found.path, {})
        starts[definition.start_byte] = max(value, starts.get(definition.start_byte, 0.0))
    out: list[tuple[Found, float]] = []
    for path, referenced_at in best_in.items():
        entry = lookup.snapshot.entry(path)
        if entry is None or entry.language not in RUN_LANGUAGES:
            continue
        runs = entry.derived.get(("constant_runs",))
        if runs is None:
            runs = entry.derived.setdefault(("constant_runs",), _runs(entry.tags.definitions))
        for run in runs:
            values = [referenced_at[d.start_byte] for d in run if d.start_byte in referenced_at]
            if not values or len(run) < 2:
                continue
            value = SIBLING_SHARE * max(values) / math.sqrt(len(run))
            out += [(Found(path, d, 2), value) for d in run[:MAX_RUN] if d.start_byte not in referenced_at]
    return out


def _runs(definitions) -> tuple[tuple[object, ...], ...]:
    """The file's top-level constants grouped into runs (see the module docstring)."""
    constants = sorted((d for d in definitions if getattr(d, "kind", "") == "constant"
                        and getattr(d, "container", None) is None), key=lambda d: d.start_line)
    runs: list[list[object]] = []
    for definition in constants:
        if runs and definition.start_line - runs[-1][-1].end_line <= RUN_GAP:
            runs[-1].append(definition)
        else:
            runs.append([definition])
    return tuple(tuple(run) for run in runs)
