"""Fingerprint-gated re-indexing: what an edit changes in the index, and what it leaves alone."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from indexer import WorkspaceIndex


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str


LIB = "def area(r):\n    # the area\n    return 3.14 * r * r\n\n\ndef label():\n    return 'circle'\n"
USER_A = "from lib import area\n\nprint(area(2))\n"
USER_B = "import lib\n\nlib.area(3)\n"
OTHER = "def unrelated():\n    return 1\n"
THIRD = "from user_a import *\n"


@pytest.fixture
def workspace(tmp_path):
    files = {"lib.py": LIB, "user_a.py": USER_A, "user_b.py": USER_B, "other.py": OTHER, "third.py": THIRD}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    index = WorkspaceIndex(snapshot=False)
    index.scan([str(tmp_path)])
    root = str(tmp_path).replace("\\", "/")
    lib = f"{root}/lib.py"
    index.did_open(lib, LIB, "python")
    index.flush()
    events: list[tuple[str, str]] = []
    index.subscribe(lambda path, fp: events.append((path, fp)))
    yield index, root, lib, events
    index.close()


def edit(index, path, text, start, end, new):
    result = text[:start] + new + text[end:]
    index.did_change(path, [Edit(start, end, new)], result)
    return result


def test_comment_edit_reindexes_nothing(workspace):
    index, root, lib, events = workspace
    before = index.graph.fingerprint(lib)
    pos = LIB.index("the area") + 3
    text = edit(index, lib, LIB, pos, pos, " whole")
    stats = index.flush()
    assert (stats.reparsed, stats.reindexed, stats.marked) == (1, 0, frozenset())
    assert index.graph.fingerprint(lib) == before
    assert events == []
    assert index.graph.pending_resolution == frozenset()
    assert index.text(lib) == text


def test_whitespace_and_string_edits_reindex_nothing(workspace):
    index, root, lib, events = workspace
    text = edit(index, lib, LIB, 0, 0, "\n\n")  # blank lines
    text = edit(index, lib, text, text.index("return 3.14"), text.index("return 3.14"), "    ")  # re-indent
    pos = text.index("'circle'") + 1
    text = edit(index, lib, text, pos, pos, "round ")  # inside a string
    stats = index.flush()
    assert (stats.reindexed, stats.marked) == (0, frozenset())
    assert events == []
    # positions are still current even though nothing was re-indexed
    area = next(d for d in index.graph.tags(lib).definitions if d.name == "area")
    assert area.start_line == 2


def test_rename_reindexes_exactly_that_file_and_marks_exactly_its_importers(workspace):
    index, root, lib, events = workspace
    reindexed_before = index.reindexed_files
    pos = LIB.index("label")
    edit(index, lib, LIB, pos, pos + len("label"), "caption")
    stats = index.flush()
    assert stats.reindexed == 1
    assert stats.marked == {f"{root}/user_a.py", f"{root}/user_b.py"}  # not other.py, not third.py
    assert index.reindexed_files == reindexed_before + 1
    assert [path for path, _ in events] == [lib]
    assert events[0][1] == index.graph.fingerprint(lib)
    # the marked importers are re-resolved lazily, on the next query
    assert index.graph.pending_resolution == stats.marked
    assert index.graph.definitions_of("caption", f"{root}/user_a.py")[0][0] == lib
    assert index.graph.pending_resolution == frozenset()


def test_identifier_edit_inside_a_function_body_reindexes_the_file(workspace):
    index, root, lib, events = workspace
    pos = LIB.index("r * r") + 4
    edit(index, lib, LIB, pos, pos + 1, "radius")
    assert index.flush().reindexed == 1
    assert len(events) == 1


def test_edits_are_deferred_until_someone_needs_the_tree(workspace):
    index, root, lib, events = workspace
    text = LIB
    for i, ch in enumerate("xyz"):
        text = edit(index, lib, text, i, i, ch)
    assert index.pending == {lib}
    assert events == []
    held = index.tree(lib)  # asking for the tree flushes this buffer: one reparse for the burst
    assert held is not None and held[1] == text.encode()
    assert index.pending == frozenset()
    assert index.last_flush.reparsed == 1


def test_graph_access_flushes_pending_buffers(workspace):
    index, root, lib, events = workspace
    edit(index, lib, LIB, LIB.index("label"), LIB.index("label") + 5, "title")
    assert any(d.name == "title" for d in index.graph.tags(lib).definitions)


def test_close_reverts_to_disk_content(workspace):
    index, root, lib, events = workspace
    edit(index, lib, LIB, LIB.index("label"), LIB.index("label") + 5, "title")
    index.flush()
    index.did_close(lib)
    names = {d.name for d in index.graph.tags(lib).definitions}
    assert names == {"area", "label"}
    assert events[-1] == (lib, index.graph.fingerprint(lib))


def test_disk_changes_of_open_buffers_are_ignored(workspace, tmp_path):
    index, root, lib, events = workspace
    (tmp_path / "lib.py").write_text("def other():\n    pass\n")
    assert index.file_changed_on_disk(lib) is None
    assert {d.name for d in index.graph.tags(lib).definitions} == {"area", "label"}


def test_watched_file_change_create_and_delete(workspace, tmp_path):
    index, root, lib, events = workspace
    (tmp_path / "other.py").write_text("def unrelated():\n    return 2\n")  # same fingerprint
    update = index.file_changed_on_disk(f"{root}/other.py")
    assert update is not None and not update.reindexed
    assert events == []
    (tmp_path / "new.py").write_text("from lib import area\n")
    update = index.file_changed_on_disk(f"{root}/new.py")
    assert update is not None and update.reindexed
    assert f"{root}/new.py" in index.graph.dependents(lib)
    (tmp_path / "new.py").unlink()
    index.file_deleted(f"{root}/new.py")
    assert f"{root}/new.py" not in index.graph.files
    assert events[-1] == (f"{root}/new.py", "")
    assert f"{root}/new.py" not in index.graph.dependents(lib)


def test_unsupported_and_unknown_documents_are_tracked_as_text(workspace):
    index, root, lib, events = workspace
    index.did_open(f"{root}/notes.txt", "hello", "plaintext")
    assert index.text(f"{root}/notes.txt") == "hello"
    assert index.tree(f"{root}/notes.txt") is None
    index.flush()
    assert f"{root}/notes.txt" not in index.graph.files
