"""The regions of open buffers edited last (indexer.recent_edits), as the snapshots carry them."""

from __future__ import annotations

from dataclasses import dataclass

from indexer import WorkspaceIndex
from indexer.recent_edits import EditedRegion, RecentEdits


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str


def test_the_ring_keeps_one_region_per_file_most_recent_first_within_capacity():
    ring = RecentEdits(capacity=2)
    ring.record("a.py", 10, 10)
    ring.record("b.py", 3, 4)
    ring.record("a.py", 14, 15)  # near the last edit of a.py: the region grows
    assert ring.regions() == (EditedRegion("a.py", 10, 15), EditedRegion("b.py", 3, 4))
    ring.record("a.py", 200, 200)  # far from it: replaced
    assert ring.regions()[0] == EditedRegion("a.py", 200, 200)
    ring.record("c.py", 1, 1)
    assert [r.path for r in ring.regions()] == ["c.py", "a.py"]
    ring.forget("a.py")
    assert [r.path for r in ring.regions()] == ["c.py"]


def test_a_region_never_grows_past_its_line_limit():
    ring = RecentEdits()
    for line in range(0, 100, 5):
        ring.record("a.py", line, line)
    (region,) = ring.regions()
    assert region.last_line == 95 and region.last_line - region.first_line < 40


def test_a_flush_records_the_lines_the_edits_touched_and_the_next_snapshot_carries_them(tmp_path):
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    index = WorkspaceIndex(snapshot=False)
    index.scan([str(tmp_path)])
    path = str(tmp_path / "a.py")
    text = "def f():\n    return 1\n"
    index.did_open(path, text, "python")
    index.flush()
    assert index.snapshot_for(path).recent_edits == ()  # opening is not an edit
    added = "\ndef g():\n    return f()\n"
    index.did_change(path, [Edit(len(text), len(text), added)], text + added)
    before = index.published
    assert before.recent_edits == ()  # not flushed yet
    index.flush()
    assert index.snapshot_for(path).recent_edits == (EditedRegion(path, 2, 5),)
    assert before.recent_edits == ()  # a published snapshot never changes


def test_a_closed_memory_document_leaves_the_ring():
    index = WorkspaceIndex(snapshot=False)
    uri = "untitled:Untitled-1"
    index.did_open(uri, "x = 1\n", "python")
    index.did_change(uri, [Edit(0, 0, "y = 2\n")], "y = 2\nx = 1\n")
    index.flush()
    assert [r.path for r in index.recent_edits.regions()] == [uri]
    index.did_close(uri)
    assert index.recent_edits.regions() == ()
