"""Recently edited regions of other files as candidates (llama.vim's ring of chunks, Continue's
recently edited ranges): what was just written elsewhere is often what the cursor continues.

The snapshot carries the regions edited last (`IndexSnapshot.recent_edits`, most recent first,
one per file, each with the text of the lines it shows: the edited ones and a few around).
Each region of another file becomes one snippet of that text, worth `RECENT_VALUE` for the most
recent and `RECENT_DECAY` times less per region older. A region of a file the snapshot no
longer has is skipped.
"""

from __future__ import annotations

from .candidates import Piece
from .index_lookup import IndexLookup

RECENT_VALUE = 1.2
RECENT_DECAY = 0.7


def recent_pieces(lookup: IndexLookup) -> list[Piece]:
    """The recently edited regions of files other than the lookup's own, as candidates."""
    snapshot = lookup.snapshot
    if snapshot is None:
        return []
    pieces = []
    for rank, region in enumerate(r for r in snapshot.recent_edits if r.path != lookup.path):
        text = region.text.rstrip()
        if not text.strip() or snapshot.entry(region.path) is None:
            continue
        last = region.shown_from + text.count("\n")
        pieces.append(Piece(region.path, f"edited lines {region.shown_from + 1}-{last + 1}", "recent",
                            region.shown_from, last, text + "\n", "recently edited",
                            RECENT_VALUE * RECENT_DECAY ** rank, False, "full"))
    return pieces
