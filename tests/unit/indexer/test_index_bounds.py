"""The index's bounds: open buffers beyond `max_parsed_buffers` let go of their trees (and parse
afresh, with the same results, when used again); a scan indexes at most `max_files` files."""

from __future__ import annotations

from typing import NamedTuple

from indexer import ScanOptions, WorkspaceIndex
from indexer.languages import root_sexp


class Edit(NamedTuple):
    start: int
    end: int
    text: str


def _source(i: int) -> str:
    return f"def f{i}(x):\n    return x + {i}\n\nclass C{i}:\n    pass\n"


def test_buffers_past_the_bound_let_go_of_their_trees_and_parse_alike_when_used_again(tmp_path):
    index = WorkspaceIndex(ScanOptions(max_parsed_buffers=2), snapshot=False)
    paths = [str(tmp_path / f"m{i}.py") for i in range(4)]
    for i, path in enumerate(paths):
        index.did_open(path, _source(i), "python")
        assert index.current_tree(path) is not None
    held = [index._docs[p]._tree is not None for p in paths]
    assert held == [False, False, True, True]  # the two least recently used let go
    before = index.tags(paths[0])
    index.did_change(paths[0], [Edit(0, 0, "# edited\n")], "# edited\n" + _source(0))
    tree, source = index.current_tree(paths[0])
    fresh = WorkspaceIndex(snapshot=False)
    fresh.did_open(paths[0], "# edited\n" + _source(0), "python")
    assert root_sexp(tree) == root_sexp(fresh.current_tree(paths[0])[0])
    assert index.tags(paths[0]) == fresh.tags(paths[0]) != before
    assert index._docs[paths[1]]._tree is None and index._docs[paths[2]]._tree is None  # 0 and 3 hold now


def test_a_scan_indexes_at_most_max_files(tmp_path):
    for i in range(5):
        (tmp_path / f"m{i}.py").write_text(_source(i))
    index = WorkspaceIndex(ScanOptions(max_files=3, workers=1), snapshot=False)
    report = index.add_root(str(tmp_path))
    assert len(index.graph.files) == 3 and report.beyond_max_files == 2
    assert report.to_json()["beyond_max_files"] == 2
    (tmp_path / "new.py").write_text(_source(9))
    assert index.file_changed_on_disk(str(tmp_path / "new.py")) is None  # the index is full
    assert len(index.graph.files) == 3
    (tmp_path / "m0.py").write_text(_source(0) + "\nY = 1\n")
    assert index.file_changed_on_disk(str(tmp_path / "m0.py")) is not None  # an indexed file still updates
