"""`RecentEdits`: the regions of open buffers the user edited last, most recent first.

A completion in one file often continues what was just written in another (the function added
there, the call changed to match), as llama.vim's ring of chunks and Continue's recently edited
ranges use. The index records, at each flush of an edited buffer, the lines its edits since the
previous flush touched; each snapshot carries the regions as they were when it was published
(`IndexSnapshot.recent_edits`), so a context reads them as of the same version as the text.

Invariants: at most `capacity` regions, most recent first, at most one per file; a file's
region moves to the front when it is edited again, grown to cover both edits when they lie
within `MERGE_LINES` of each other and the union spans at most `MAX_LINES` lines, else
replaced by the new edit's lines; a file that leaves the index leaves the ring (`forget`).
"""

from __future__ import annotations

from typing import NamedTuple

MERGE_LINES = 8
MAX_LINES = 40


class EditedRegion(NamedTuple):
    path: str
    first_line: int  # 0-based, inclusive, in the text of the snapshot that carries it
    last_line: int


class RecentEdits:
    def __init__(self, capacity: int = 8, regions: tuple[EditedRegion, ...] = ()) -> None:
        self.capacity = capacity
        self._regions: list[EditedRegion] = list(regions[:capacity])

    def record(self, path: str, first_line: int, last_line: int) -> None:
        old = next((r for r in self._regions if r.path == path), None)
        region = EditedRegion(path, first_line, last_line)
        if old is not None:
            self._regions.remove(old)
            near = old.first_line - MERGE_LINES <= last_line and first_line <= old.last_line + MERGE_LINES
            merged = EditedRegion(path, min(first_line, old.first_line), max(last_line, old.last_line))
            if near and merged.last_line - merged.first_line < MAX_LINES:
                region = merged
        self._regions.insert(0, region)
        del self._regions[self.capacity:]

    def forget(self, path: str) -> None:
        self._regions = [r for r in self._regions if r.path != path]

    def regions(self) -> tuple[EditedRegion, ...]:
        return tuple(self._regions)
