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


def numbered(first: int, last: int) -> str:
    return "".join(f"line {i}\n" for i in range(first, last + 1))


def spans(ring: RecentEdits) -> list[tuple[str, int, int]]:
    return [(r.path, r.first_line, r.last_line) for r in ring.regions()]


def test_the_ring_keeps_one_region_per_file_most_recent_first_within_capacity():
    ring = RecentEdits(capacity=2)
    ring.record("a.py", 10, 10, numbered)
    ring.record("b.py", 3, 4, numbered)
    ring.record("a.py", 14, 15, numbered)  # near the last edit of a.py: the region grows
    assert spans(ring) == [("a.py", 10, 15), ("b.py", 3, 4)]
    region = ring.regions()[0]
    assert (region.shown_from, region.text) == (8, numbered(8, 17))  # two lines around
    ring.record("a.py", 200, 200, numbered)  # far from it: replaced
    assert spans(ring)[0] == ("a.py", 200, 200)
    ring.record("c.py", 1, 1, numbered)
    assert [r.path for r in ring.regions()] == ["c.py", "a.py"]
    ring.forget("a.py")
    assert [r.path for r in ring.regions()] == ["c.py"]


def test_a_region_never_grows_past_its_line_limit_and_shows_at_most_twelve_lines():
    ring = RecentEdits()
    for line in range(0, 100, 5):
        ring.record("a.py", line, line, numbered)
    (region,) = ring.regions()
    assert region.last_line == 95 and region.last_line - region.first_line < 40
    assert region.text.count("\n") == 12 and region.text.startswith(f"line {region.first_line - 2}\n")


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
    assert index.snapshot_for(path).recent_edits == (EditedRegion(path, 2, 5, text + added, 0),)
    assert before.recent_edits == ()  # a published snapshot never changes


def test_a_buffers_lines_are_read_around_its_last_edit():
    from indexer.documents import OpenDocument

    doc = OpenDocument("/w/a.py", numbered(0, 99), "python")
    doc.apply(Edit(len(numbered(0, 49)), len(numbered(0, 49)), "new\n"))  # before line 50
    assert doc.lines(48, 51) == "line 48\nline 49\nnew\nline 50\n"
    assert doc.lines(0, 1) == "line 0\nline 1\n" and doc.lines(99, 105) == "line 98\nline 99\n"  # the insert moved them down


def test_a_closed_memory_document_leaves_the_ring():
    index = WorkspaceIndex(snapshot=False)
    uri = "untitled:Untitled-1"
    index.did_open(uri, "x = 1\n", "python")
    index.did_change(uri, [Edit(0, 0, "y = 2\n")], "y = 2\nx = 1\n")
    index.flush()
    assert [r.path for r in index.recent_edits.regions()] == [uri]
    index.did_close(uri)
    assert index.recent_edits.regions() == ()
