"""`RegionRing`: the regions of open buffers the user edited, or worked at, last, most recent first.

A completion in one file often continues what was just written in another (the function added
there, the call changed to match), or uses what the user was reading there (the function looked
up before coming back), as llama.vim's ring of chunks and Continue's recently edited and visited
ranges use. The index keeps two rings: at each flush of an edited buffer, the lines its edits
since the previous flush touched (`WorkspaceIndex.recent_edits`); and, when the user moves on to
another file, the lines around the place they last worked at in the one they leave
(`WorkspaceIndex.recent_visits`). Each snapshot carries both as they were when it was published
(`IndexSnapshot.recent_edits`, `IndexSnapshot.recent_visits`), so a context reads them as of the
same version as the text.

Invariants: at most `capacity` regions, most recent first, at most one per file; a file's
region moves to the front when it is recorded again and, in a ring that `merge`s (the edits'),
grows to cover both when they lie within `MERGE_LINES` of each other and the union spans at
most `MAX_LINES` lines, else is replaced by the new lines (the visits' ring always replaces: the
place worked at last is the one shown); a region shows `context_lines` lines above and below
the recorded ones, at most `SHOWN_LINES` in all (`shown`), and keeps the text `lines` gave when
it was recorded (read around the lines, never by splitting the whole buffer); `forget` drops a
file's region (the index calls it when a buffer closes: for visits when the buffer held text
its file on disk does not, for edits when the file is then no longer indexed); a region of a
file the snapshot no longer has is skipped where it is used (`pruning.recent_regions`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

MERGE_LINES = 8
MAX_LINES = 40
CONTEXT_LINES = 2  # lines shown above and below the edited ones
VISIT_CONTEXT_LINES = 5  # ... and above and below the line worked at, in the ring of visits
SHOWN_LINES = 12  # at most, from the first recorded line's context on


class RecentRegion(NamedTuple):
    path: str
    first_line: int  # 0-based, inclusive: the lines recorded, in the text `text` was read from
    last_line: int
    text: str  # the lines shown: from the ring's context_lines above to as many below, at most SHOWN_LINES
    shown_from: int  # the line `text` starts at


class RegionRing:
    def __init__(self, capacity: int = 8, regions: tuple[RecentRegion, ...] = (),
                 context_lines: int = CONTEXT_LINES, merge: bool = True) -> None:
        self.capacity = capacity
        self.context_lines = context_lines
        self.merge = merge
        self._regions: list[RecentRegion] = list(regions[:capacity])

    def record(self, path: str, first_line: int, last_line: int, lines: Callable[[int, int], str]) -> None:
        """`first_line`..`last_line` of `path` were edited (or worked at); `lines(a, b)` is the text
        of its lines a..b (inclusive) now."""
        old = next((r for r in self._regions if r.path == path), None)
        if old is not None:
            self._regions.remove(old)
            near = old.first_line - MERGE_LINES <= last_line and first_line <= old.last_line + MERGE_LINES
            if self.merge and near and max(last_line, old.last_line) - min(first_line, old.first_line) < MAX_LINES:
                first_line, last_line = min(first_line, old.first_line), max(last_line, old.last_line)
        shown_from, shown_to = self.shown(first_line, last_line)
        region = RecentRegion(path, first_line, last_line, lines(shown_from, shown_to), shown_from)
        self._regions.insert(0, region)
        del self._regions[self.capacity:]

    def shown(self, first_line: int, last_line: int) -> tuple[int, int]:
        """The lines (first, last, inclusive) a region recorded for `first_line`..`last_line` shows
        (before any merge)."""
        shown_from = max(0, first_line - self.context_lines)
        return shown_from, min(last_line + self.context_lines, shown_from + SHOWN_LINES - 1)

    def forget(self, path: str) -> None:
        self._regions = [r for r in self._regions if r.path != path]

    def regions(self) -> tuple[RecentRegion, ...]:
        return tuple(self._regions)
