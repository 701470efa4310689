"""What a completion sees of the index: `snapshot_for`, `current_tree` and `tagged_source`.

A completion in a buffer must see the latest edits of every buffer it depends on, while its own
buffer's re-indexing may wait until after the answer (its tree is always fresh)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from indexer import WorkspaceIndex


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


LIB = "def area(r):\n    return 3.14 * r * r\n"
USER = "from lib import area\n\nprint(area(2))\n"
OTHER = "def unrelated():\n    return 1\n"


@pytest.fixture
def workspace(tmp_path):
    (tmp_path / "pkg").mkdir()
    files = {"lib.py": LIB, "user.py": USER, "pkg/other.py": OTHER, "pkg/sibling.py": OTHER}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    index = WorkspaceIndex(snapshot=False, clock=Clock())
    index.pending_lag_s = 1.0  # as the server sets it
    index.scan([str(tmp_path)])
    root = str(tmp_path).replace("\\", "/")
    paths = {name: f"{root}/{name}" for name in files}
    for name, text in files.items():
        index.did_open(paths[name], text, "python")
    index.flush()
    yield index, paths
    index.close()


def rename(index, path, text, old, new):
    start = text.index(old)
    result = text[:start] + new + text[start + len(old):]
    index.did_change(path, [Edit(start, start + len(old), new)], result)
    return result


def names(index, path):
    return {d.name for d in index.snapshot_for(path).tags(path).definitions}


def test_own_buffer_lags_until_flushed_and_tagged_source_says_what_it_is(workspace):
    index, paths = workspace
    user = paths["user.py"]
    new_text = rename(index, user, USER, "print", "def shown():\n    pass\n\nprint")
    snapshot = index.snapshot_for(user)
    assert "shown" not in {d.name for d in snapshot.tags(user).definitions}  # not re-indexed yet
    assert index.tagged_source(user) == USER.encode()  # the text the lagging entry was made from
    tree, source = index.current_tree(user)
    assert source == new_text.encode()  # the tree is current all the same
    assert b"shown" in tree.root_node.text
    assert user in index.pending  # reparsing for the tree did not re-index
    index.flush(user)
    assert "shown" in names(index, user)
    assert index.tagged_source(user) == new_text.encode()


def test_imported_buffer_is_flushed_before_a_completion_in_its_importer(workspace):
    index, paths = workspace
    rename(index, paths["lib.py"], LIB, "area", "surface")
    snapshot = index.snapshot_for(paths["user.py"])
    assert paths["lib.py"] not in index.pending
    assert {d.name for d in snapshot.tags(paths["lib.py"]).definitions} == {"surface"}


def test_unrelated_buffer_may_lag_but_not_for_longer_than_the_limit(workspace):
    index, paths = workspace
    other = paths["pkg/other.py"]
    rename(index, other, OTHER, "unrelated", "renamed")
    index.snapshot_for(paths["user.py"])
    assert other in index.pending  # another directory, not imported: left for the next flush
    index.clock.advance(0.02)
    index.snapshot_for(paths["user.py"], max_lag_s=0.01)
    assert other not in index.pending
    assert names(index, other) == {"renamed"}


def test_own_buffer_is_flushed_once_its_edits_are_older_than_the_limit(workspace):
    index, paths = workspace
    user = paths["user.py"]
    rename(index, user, USER, "print", "def shown():\n    pass\n\nprint")
    index.clock.advance(0.02)
    snapshot = index.snapshot_for(user, max_lag_s=0.01)
    assert user not in index.pending
    assert "shown" in {d.name for d in snapshot.tags(user).definitions}


def test_a_buffer_opened_but_never_indexed_from_its_text_is_flushed(workspace, tmp_path):
    index, paths = workspace
    extra = str(tmp_path / "pkg" / "extra.py").replace("\\", "/")
    (tmp_path / "pkg" / "extra.py").write_text(OTHER)
    index.file_changed_on_disk(extra)
    index.did_open(extra, OTHER.replace("unrelated", "unsaved"), "python")  # differs from disk
    index.snapshot_for(paths["user.py"])
    assert extra not in index.pending  # its entry was the disk text, not a lagging buffer entry
    assert names(index, extra) == {"unsaved"}


def test_without_a_lag_every_pending_buffer_is_flushed(workspace):
    index, paths = workspace
    index.pending_lag_s = 0.0  # the default: one-shot callers (`arbor-ls context`, benchmarks)
    user, other = paths["user.py"], paths["pkg/other.py"]
    rename(index, user, USER, "print", "def shown():\n    pass\n\nprint")
    rename(index, other, OTHER, "unrelated", "renamed")
    snapshot = index.snapshot_for(user)
    assert index.pending == frozenset()
    assert "shown" in {d.name for d in snapshot.tags(user).definitions}


def test_a_python_neighbour_that_is_not_imported_may_lag(workspace):
    index, paths = workspace
    sibling = paths["pkg/sibling.py"]
    rename(index, sibling, OTHER, "unrelated", "renamed")
    index.snapshot_for(paths["pkg/other.py"])  # same directory, but Python sees it only through imports
    assert sibling in index.pending
    assert sibling not in index.needed_by_other_buffers()
    assert paths["lib.py"] in index.needed_by_other_buffers()  # user.py imports it


def test_a_go_file_of_the_same_package_is_flushed(tmp_path):
    (tmp_path / "shapes").mkdir()
    circle = "package shapes\n\nfunc Area(r float64) float64 { return 3.14 * r * r }\n"
    user = "package shapes\n\nfunc Twice(r float64) float64 { return 2 * Area(r) }\n"
    (tmp_path / "shapes/circle.go").write_text(circle)
    (tmp_path / "shapes/user.go").write_text(user)
    index = WorkspaceIndex(snapshot=False)
    index.pending_lag_s = 1.0
    try:
        index.scan([str(tmp_path)])
        root = str(tmp_path).replace("\\", "/")
        circle_path, user_path = f"{root}/shapes/circle.go", f"{root}/shapes/user.go"
        index.did_open(circle_path, circle, "go")
        index.did_open(user_path, user, "go")
        index.flush()
        rename(index, circle_path, circle, "Area", "Surface")
        assert circle_path in index.needed_by_other_buffers()
        index.snapshot_for(user_path)  # one package: user.go sees Surface without an import
        assert circle_path not in index.pending
        assert names(index, circle_path) == {"Surface"}
    finally:
        index.close()
