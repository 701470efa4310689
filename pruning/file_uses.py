"""Likely next names: the names from other files this file uses, ranked for a line about to be
written.

The names: those bound by the file's imports (`from m import name`), `module.name` with `module`
imported from the workspace (not `fmt.Sprintf` or `os.path.join`: nothing here defines them), and
names called or used as types that no import binds and the file does not define (a Go file sees
its package's names without importing them). A new line tends to use what the
code around it uses, so each counts as used at the distance of its nearest uses anywhere in the
file: a name the sibling function just above uses ranks above one used only at the other end of
the file, and a name used often counts as nearer than its nearest use (`FREQUENCY_WEIGHT`). A
name imported and used nowhere yet counts as used UNUSED_IMPORT_DISTANCE lines away (a name just
imported is about to be used).

Invariants: the per-file table (`UseRow`: each name with its use kind, the sorted lines of its
uses and what ranking needs of those) depends on the entry's text alone and is kept on the entry;
what depends on the cursor (the distances and the choice of at most MAX_FILE_NAMES names) is
computed per call. Distances follow `names_near.line_distance`: lines below the cursor count
double. Names equally near rank by their number of uses counted (up to USES_PER_NAME), then in
the table's order (imports in import order, then first use): deterministic.
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_right
from typing import NamedTuple

from .index_lookup import IndexLookup
from .names_near import NameUse, line_distance, owner_before

MAX_FILE_NAMES = 16  # names imported and used elsewhere in the file, beyond those near the cursor
# How far an imported name not used yet counts as (it is about to be). Chosen on context_bench's
# dev corpora (hidden-line recall at 1,024 tokens, mean over the four languages, grid 0 to 6).
UNUSED_IMPORT_DISTANCE = 1
USES_PER_NAME = 4  # nearest uses reported per name (the value model counts the nearest four)
# A name used n times counts as nearer by a factor 1 + FREQUENCY_WEIGHT * ln(n). The one parameter
# was chosen on context_bench's dev corpora (hidden-line recall at 1,024 tokens, grid 0.5 to 8);
# value_fit's coverage at 256 tokens keeps it too (benchmarks/fit/parameters.py).
FREQUENCY_WEIGHT = 4.0


class UseRow(NamedTuple):
    """One name of a file's use table, with what ranking it needs that depends on the table alone."""

    name: str
    owner: str  # the module alias of `owner.name`, or "" for a bare name
    kind: str
    lines: tuple[int, ...]  # the sorted lines of its uses (none: imported, not used yet)
    words: str | None  # `_words(name)` of a bare name, None for `owner.name` (never matched by spelling)
    divisor: float  # a distance counts as distance / divisor (`_frequency_distance` for its uses)


def file_uses(lookup: IndexLookup, source: bytes, modules: dict[str, str], cursor_line: int,
              builtins: frozenset[str] = frozenset(), near: list[NameUse] = ()) -> list[NameUse]:
    """Names from other files this file uses elsewhere or not yet (see the module docstring),
    nearest first, each with its nearest `USES_PER_NAME` uses (an unused one with one use);
    `builtins` are never among them. A use in `near` (the uses near the cursor) also counts as
    a use of each of these names that spells the same words in another case (`dedup_by` and
    `DedupBy`, `command` and `Command`): a function's result is often its name as a type."""
    table = _use_table(lookup, source, modules)
    local = lookup.workspace_modules()
    spellings: dict[str, tuple[int, int]] = {}
    for use in near:  # nearest first
        spellings.setdefault(_words(use.name), (use.line, use.distance))
    # rank by (nearest distance, -uses counted) from the nearest use alone; only the names kept
    # have their nearest USES_PER_NAME uses listed
    ranked = []
    for order, (name, owner, _, lines, words, divisor) in enumerate(table):
        if name in builtins or owner and owner not in local:
            continue
        nearest = int(_nearest_distance(lines, cursor_line) / divisor) if lines else UNUSED_IMPORT_DISTANCE
        counted = min(len(lines), USES_PER_NAME) or 1
        spelled = spellings.get(words) if words is not None else None
        if spelled is not None:
            nearest, counted = min(nearest, spelled[1]), min(counted + 1, USES_PER_NAME)
        ranked.append((nearest, -counted, order, spelled))
    out = []
    for _, _, order, spelled in heapq.nsmallest(MAX_FILE_NAMES, ranked):
        name, owner, kind, lines, _, divisor = table[order]
        if lines:
            uses = [(line, int(line_distance(line, cursor_line) / divisor)) for line in _nearest(lines, cursor_line)]
        else:
            uses = [(cursor_line, UNUSED_IMPORT_DISTANCE)]
        if spelled is not None:
            uses = sorted([spelled, *uses], key=lambda use: use[1])[:USES_PER_NAME]
        out.extend(NameUse(name=name, kind=kind, line=line, distance=far, owner=owner) for line, far in uses)
    return out


def _frequency_divisor(uses: int) -> float:
    """A name the file uses `uses` times counts as nearer than its nearest use: its distance
    divided by this (a name the file uses often is likely on any new line)."""
    return 1.0 if uses <= 1 else 1.0 + FREQUENCY_WEIGHT * math.log(uses)


def _words(name: str) -> str:
    """`name` without case and underscores: `dedup_by`, `DedupBy` and `DEDUP_BY` agree."""
    return name.replace("_", "").lower()


def prepare_file_uses(lookup: IndexLookup) -> None:
    """Compute `file_uses`' per-file table for the file's current entry (it is kept there), so
    the next completion in it finds it ready; meant to run right after the file was re-indexed."""
    tagged = lookup.tagged_source()
    if lookup.available and tagged is not None:  # no text to read the offsets against: nothing to keep
        _use_table(lookup, tagged, lookup.module_aliases())


def _use_table(lookup: IndexLookup, source: bytes, modules: dict[str, str]) -> tuple[UseRow, ...]:
    """A row for every name from other files (`_use_lines`)."""
    if not lookup.available:
        return ()
    tags = lookup.snapshot.tags(lookup.path)
    if tags is None:
        return ()
    tagged = lookup.tagged_source()  # the tags' byte offsets point into this text
    if tagged is None:  # an entry from the file on disk: read its offsets against this text
        return _use_lines(tags, source, modules)
    derived = lookup.snapshot.entry(lookup.path).derived
    key = ("file_use_lines", tuple(sorted(modules.items())))
    table = derived.get(key)
    if table is None:
        table = derived.setdefault(key, _use_lines(tags, tagged, modules))
    return table


def _use_lines(tags, source: bytes, modules: dict[str, str]) -> tuple[UseRow, ...]:
    """The table of `_use_table` from `tags` (offsets into `source`): names bound by an import,
    in import order (with no lines when unused), then, in order of first use, `module.name`
    pairs and the names called or used as types that neither an import binds nor this file
    defines (a Go file's package names, globals)."""
    imported = [local for imp in tags.imports for local in imp.local_names if local not in modules]
    bound = set(imported)
    defined = {d.name for d in tags.definitions}
    table: dict[tuple[str, str], tuple[str, list[int]]] = {(name, ""): ("identifier", []) for name in imported}
    refs = tags.references
    rows = refs.rows() if hasattr(refs, "rows") else ((r.name, r.kind, r.line, r.byte) for r in refs)
    size = len(source)
    for name, kind, line, byte in rows:
        if byte >= size:
            continue
        owner = owner_before(source, byte)
        if owner is None and name in bound:
            pair, kind = (name, ""), "identifier"
        elif owner is not None and owner in modules:
            pair, kind = (name, owner), "call"
        elif owner is None and kind in ("call", "type") and name not in defined:
            pair = (name, "")
        else:
            continue
        table.setdefault(pair, (kind, []))[1].append(line)
    return tuple(UseRow(name, owner, kind, tuple(sorted(lines)), None if owner else _words(name),
                        _frequency_divisor(len(lines))) for (name, owner), (kind, lines) in table.items())


def _nearest_distance(lines: tuple[int, ...], cursor_line: int) -> int:
    """The distance from `cursor_line` to the nearest line of `lines` (sorted, not empty)."""
    at = bisect_right(lines, cursor_line)
    above = line_distance(lines[at - 1], cursor_line) if at else None
    below = line_distance(lines[at], cursor_line) if at < len(lines) else None
    return below if above is None else above if below is None else min(above, below)


def _nearest(lines: tuple[int, ...], cursor_line: int) -> tuple[int, ...]:
    """The `USES_PER_NAME` lines of `lines` (sorted) nearest to `cursor_line`, nearest first."""
    at = bisect_right(lines, cursor_line)
    low, high = at - 1, at
    out: list[int] = []
    while len(out) < USES_PER_NAME and (low >= 0 or high < len(lines)):
        above = line_distance(lines[low], cursor_line) if low >= 0 else None
        below = line_distance(lines[high], cursor_line) if high < len(lines) else None
        if below is None or above is not None and above <= below:
            out.append(lines[low])
            low -= 1
        else:
            out.append(lines[high])
            high += 1
    return tuple(out)
