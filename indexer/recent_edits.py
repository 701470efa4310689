"""`RecentEdits`: the regions of open buffers the user edited last, most recent first.

A completion in one file often continues what was just written in another (the function added
there, the call changed to match), as llama.vim's ring of chunks and Continue's recently edited
ranges use. The index records, at each flush of an edited buffer, the lines its edits since the
previous flush touched; each snapshot carries the regions as they were when it was published
(`IndexSnapshot.recent_edits`), so a context reads them as of the same version as the text.

Invariants: at most `capacity` regions, most recent first, at most one per file; a file's
region moves to the front when it is edited again, grown to cover both edits when they lie
within `MERGE_LINES` of each other and the union spans at most `MAX_LINES` lines, else
replaced by the new edit's lines; a region keeps the text of the lines it shows as they were
when it was recorded (read around the edit, never by splitting the whole buffer); a file that
leaves the index leaves the ring (`forget`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

MERGE_LINES = 8
MAX_LINES = 40
CONTEXT_LINES = 2  # lines shown above and below the edited ones
SHOWN_LINES = 12  # at most, from the first edited line's context on


class EditedRegion(NamedTuple):
    path: str
    first_line: int  # 0-based, inclusive: the edited lines, in the text of the snapshot that carries it
    last_line: int
    text: str  # the lines shown: from CONTEXT_LINES above to CONTEXT_LINES below, at most SHOWN_LINES
    shown_from: int  # the line `text` starts at


class RecentEdits:
    def __init__(self, capacity: int = 8, regions: tuple[EditedRegion, ...] = ()) -> None:
        self.capacity = capacity
        self._regions: list[EditedRegion] = list(regions[:capacity])

    def record(self, path: str, first_line: int, last_line: int, lines: Callable[[int, int], str]) -> None:
        """Edits touched `first_line`..`last_line` of `path`; `lines(a, b)` is the text of its lines
        a..b (inclusive) now."""
        old = next((r for r in self._regions if r.path == path), None)
        if old is not None:
            self._regions.remove(old)
            near = old.first_line - MERGE_LINES <= last_line and first_line <= old.last_line + MERGE_LINES
            if near and max(last_line, old.last_line) - min(first_line, old.first_line) < MAX_LINES:
                first_line, last_line = min(first_line, old.first_line), max(last_line, old.last_line)
        shown_from = max(0, first_line - CONTEXT_LINES)
        shown_to = min(last_line + CONTEXT_LINES, shown_from + SHOWN_LINES - 1)
        region = EditedRegion(path, first_line, last_line, lines(shown_from, shown_to), shown_from)
        self._regions.insert(0, region)
        del self._regions[self.capacity:]

    def forget(self, path: str) -> None:
        self._regions = [r for r in self._regions if r.path != path]

    def regions(self) -> tuple[EditedRegion, ...]:
        return tuple(self._regions)
