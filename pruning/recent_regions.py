"""Recently edited regions of other files as candidates (llama.vim's ring of chunks, Continue's
recently edited ranges): what was just written elsewhere is often what the cursor continues.

The snapshot carries the regions edited last (`IndexSnapshot.recent_edits`, most recent first,
one per file, in the text of that version). Each region of another file becomes one snippet:
its lines and `CONTEXT_LINES` around them, at most `MAX_LINES` (the lines nearest the edit's
start kept), worth `RECENT_VALUE` for the most recent and `RECENT_DECAY` times less per region
older. A region of a file the snapshot no longer has is skipped.
"""

from __future__ import annotations

from .candidates import Piece
from .index_lookup import IndexLookup

CONTEXT_LINES = 2
MAX_LINES = 12
RECENT_VALUE = 1.2
RECENT_DECAY = 0.7


def recent_pieces(lookup: IndexLookup) -> list[Piece]:
    """The recently edited regions of files other than the lookup's own, as candidates."""
    snapshot = lookup.snapshot
    if snapshot is None:
        return []
    pieces = []
    for rank, region in enumerate(r for r in snapshot.recent_edits if r.path != lookup.path):
        source = snapshot.source(region.path)
        if source is None:
            continue
        lines = source.split(b"\n")
        first = max(0, region.first_line - CONTEXT_LINES)
        last = min(len(lines) - 1, region.last_line + CONTEXT_LINES, first + MAX_LINES - 1)
        text = b"\n".join(lines[first:last + 1]).decode("utf-8", "replace").rstrip()
        if not text.strip():
            continue
        pieces.append(Piece(region.path, f"edited lines {first + 1}-{last + 1}", "recent", first, last, text + "\n",
                            "recently edited", RECENT_VALUE * RECENT_DECAY ** rank, False, "full"))
    return pieces
