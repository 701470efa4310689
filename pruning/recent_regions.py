"""Recently edited and recently visited regions of other files as candidates (llama.vim's ring
of chunks, Continue's recently edited and visited ranges): what was just written elsewhere is
often what the cursor continues, and what the user was just working at elsewhere is often what
the cursor uses.

The snapshot carries the regions edited last (`IndexSnapshot.recent_edits`) and the places worked
at last in the buffers the user moved on from (`IndexSnapshot.recent_visits`), each most recent
first, one per file, with the text of the lines it shows (see `indexer.region_ring`). Each
region of another file becomes one snippet of that text: an edited one worth `RECENT_VALUE` for
the most recent, a visited one `VISITED_VALUE`, each `RECENT_DECAY` times less per region older in
its ring. A visited region shows about twice the lines of an edited one (five each side of the
place against two), so it is worth twice as much: per line shown the two are worth about the
same. A file with an edited region offers no visited one (the edit is what it last showed); a
region of a file the snapshot no longer has is skipped.

The values are set by hand, not fitted (`benchmarks/value_fit.py` fits on masked lines of files
at rest, where no region was edited or visited); benchmarks/README.md ("a just-visited
definition") says how often each reaches a 1,024-token prompt.
"""

from __future__ import annotations

from indexer import RecentRegion

from .candidates import Piece
from .index_lookup import IndexLookup

RECENT_VALUE = 1.2
VISITED_VALUE = 2.4
RECENT_DECAY = 0.7


def recent_pieces(lookup: IndexLookup) -> list[Piece]:
    """The recently edited and visited regions of files other than the lookup's own, as candidates."""
    snapshot = lookup.snapshot
    if snapshot is None:
        return []
    edited = [r for r in snapshot.recent_edits if r.path != lookup.path]
    visited = [r for r in snapshot.recent_visits if r.path != lookup.path
               and all(e.path != r.path for e in edited)]
    return (_pieces(lookup, edited, "recent", "recently edited", "edited", RECENT_VALUE)
            + _pieces(lookup, visited, "visited", "recently visited", "visited", VISITED_VALUE))


def _pieces(lookup: IndexLookup, regions: list[RecentRegion], kind: str, reason: str, label: str,
            value: float) -> list[Piece]:
    pieces = []
    for rank, region in enumerate(regions):
        text = region.text.rstrip()
        if not text.strip() or lookup.snapshot.entry(region.path) is None:
            continue
        last = region.shown_from + text.count("\n")
        pieces.append(Piece(region.path, f"{label} lines {region.shown_from + 1}-{last + 1}", kind,
                            region.shown_from, last, text + "\n", reason, value * RECENT_DECAY ** rank,
                            False, "full"))
    return pieces
