"""The regions of open buffers edited last (indexer.region_ring), as the snapshots carry them."""

from __future__ import annotations

from dataclasses import dataclass

from indexer import WorkspaceIndex
from indexer.region_ring import RecentRegion, RegionRing


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str


def numbered(first: int, last: int) -> str:
    return "".join(f"line {i}\n" for i in range(first, last + 1))


def spans(ring: RegionRing) -> list[tuple[str, int, int]]:
    return [(r.path, r.first_line, r.last_line) for r in ring.regions()]


def test_the_ring_keeps_one_region_per_file_most_recent_first_within_capacity():
    ring = RegionRing(capacity=2)
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
    ring = RegionRing()
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
    assert index.snapshot_for(path).recent_edits == (RecentRegion(path, 2, 5, text + added, 0),)
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


def test_moving_on_to_another_buffer_records_the_place_left_and_only_then_publishes_a_snapshot(tmp_path):
    index = WorkspaceIndex(snapshot=False)
    a, b = str(tmp_path / "a.py"), str(tmp_path / "b.py")
    index.did_open(a, numbered(0, 39), "python")
    index.did_open(b, "x = 1\n", "python")
    index.flush()
    index.worked_at(a, 20)
    index.worked_at(a, 22)  # still in a: nothing left yet
    first = index.published
    assert first.recent_visits == () and index.published is first
    index.worked_at(b, 0)  # moved on from a, last at line 22: five lines around it
    second = index.published
    assert second is not first and first.recent_visits == ()  # a published snapshot never changes
    assert second.recent_visits == (RecentRegion(a, 22, 22, numbered(17, 27), 17),)
    index.worked_at(b, 1)
    assert index.published is second  # staying in b changes nothing
    index.worked_at(a, 5)  # back to a: b's place enters the ring, in front
    assert [(r.path, r.first_line) for r in index.published.recent_visits] == [(b, 1), (a, 22)]


def test_a_place_in_a_buffer_closed_before_moving_on_is_not_recorded_and_a_closed_buffer_leaves_the_ring(tmp_path):
    index = WorkspaceIndex(snapshot=False)
    note, other, third = str(tmp_path / "note.py"), "untitled:Untitled-2", "untitled:Untitled-3"
    for uri in (note, other, third):
        index.did_open(uri, "x = 1\n", "python")
    index.worked_at(note, 0)
    index.worked_at(other, 0)
    assert [r.path for r in index.published.recent_visits] == [note]
    index.did_close(other)  # the place being worked at closes: nothing to record when moving on,
    index.did_open(other, "y = 2\n", "python")  # even once it is open again
    index.worked_at(third, 0)
    assert [r.path for r in index.published.recent_visits] == [note]
    index.did_close(note)  # a file on disk too: its buffer's text may never have been saved
    assert index.published.recent_visits == ()


def test_the_place_shown_is_the_last_one_worked_at_with_its_text_as_it_was_then(tmp_path):
    from indexer.region_ring import RecentRegion

    index = WorkspaceIndex(snapshot=False)
    a, b = str(tmp_path / "a.py"), str(tmp_path / "b.py")
    text = numbered(0, 59)
    index.did_open(a, text, "python")
    index.did_open(b, "x = 1\n", "python")
    index.worked_at(a, 20)
    index.worked_at(b, 0)
    index.worked_at(a, 27)  # back near the first place: the visit shows this one, not a merge
    at = len(numbered(0, 9))  # then a line is inserted above it with no new place reported
    index.did_change(a, [Edit(at, at, "inserted\n")], text[:at] + "inserted\n" + text[at:])
    index.worked_at(b, 0)
    assert index.published.recent_visits[0] == RecentRegion(a, 27, 27, numbered(22, 32), 22)


def test_closing_the_buffer_of_the_last_place_moves_on_from_it_when_the_buffer_was_saved(tmp_path):
    """VS Code closes a preview editor when the next file opens: the place read there is kept,
    unless the buffer held text the file on disk does not (then nothing of it is shown)."""
    from indexer.region_ring import RecentRegion

    index = WorkspaceIndex(snapshot=False)
    saved, unsaved, other = (str(tmp_path / name) for name in ("saved.py", "unsaved.py", "other.py"))
    for path in (saved, unsaved):
        (tmp_path / path).write_text(numbered(0, 39))
    index.did_open(saved, numbered(0, 39), "python")
    index.worked_at(saved, 30)
    index.did_close(saved)
    assert index.published.recent_visits == (RecentRegion(saved, 30, 30, numbered(25, 35), 25),)
    index.did_open(unsaved, numbered(0, 39) + "draft = 1\n", "python")
    index.worked_at(unsaved, 39)
    index.did_close(unsaved)
    index.did_open(other, "x = 1\n", "python")
    index.worked_at(other, 0)
    assert [r.path for r in index.published.recent_visits] == [saved]
