"""Warm start: lazily decoded snapshot tags and deferred import resolution give the graph answers
that eagerly built tags and one-by-one resolution give."""

from __future__ import annotations

import logging
import shutil
from collections import Counter
from pathlib import Path

import pytest

from indexer import ScanOptions, SymbolGraph, WorkspaceIndex
from indexer.definitions import Definitions, definition_names
from indexer.resolve import ModuleIndex, resolve_import
from indexer.scan import register_go_modules
from indexer.store import CorruptEntry, SnapshotStore, decode_tags, encode_tags

FIXTURES = Path(__file__).with_name("fixtures")
SOURCE = (
    "import os as o\nfrom . import a\n\nLIMIT = 3\n\n\nclass C:\n    def m(self):\n"
    "        return o.sep + o.sep\n\n\ndef f(x):\n    return C().m() * LIMIT\n"
)


@pytest.fixture
def workspace(tmp_path):
    root = tmp_path / "ws"
    shutil.copytree(FIXTURES, root)
    return root.as_posix()


def scanned_tags(root: str) -> list[tuple[str, object]]:
    """(path, tags) of every file of `root`, in scan order, from a sequential scan."""
    index = WorkspaceIndex(ScanOptions(workers=1), snapshot=False)
    index.scan([root])
    graph = index.graph
    tags = [(path, graph.tags(path)) for path in sorted(graph.files)]
    index.close()
    return tags


def new_graph(root: str, files) -> SymbolGraph:
    graph = SymbolGraph()
    register_go_modules(graph, root, [path for path, tags in files if tags.language == "go"])
    return graph


def answers(graph: SymbolGraph) -> dict:
    """Everything a client of the graph can observe, per file."""
    out = {"files": sorted(graph.files), "symbols": graph.symbol_count, "names": graph.names()}
    for path in sorted(graph.files):
        tags = graph.tags(path)
        out[path] = {
            "definitions": tuple(tags.definitions),
            "references": tuple(tags.references),
            "imports_of": graph.imports_of(path),
            "dependents": sorted(graph.dependents(path)),
            "out_edges": graph.out_edges(path),
            "definitions_of": {name: graph.definitions_of(name, path) for name in definition_names(tags.definitions)},
        }
    return out


def test_definitions_decoded_lazily_equal_the_extracted_ones(tags_of):
    tags = tags_of("python", SOURCE)
    decoded = decode_tags(encode_tags(tags))
    assert isinstance(decoded.definitions, Definitions)
    assert list(decoded.definitions.names()) == [d.name for d in tags.definitions]
    assert len(decoded.definitions) == len(tags.definitions) == 4
    assert decoded.definitions == tags.definitions and tags.definitions == decoded.definitions
    assert decoded.definitions[1] == tags.definitions[1] and decoded.definitions[-2:] == tags.definitions[-2:]
    assert hash(decoded.definitions) == hash(tags.definitions)
    assert decoded == tags and decode_tags(encode_tags(decoded)) == tags


def test_a_decoded_definition_read_by_position_is_made_alone_and_kept_in_the_whole_tuple(tags_of):
    tags = tags_of("python", SOURCE)
    decoded = decode_tags(encode_tags(tags)).definitions
    second, last = decoded[1], decoded[-1]
    assert decoded._items is None  # the whole tuple is not made yet
    assert second == tags.definitions[1] and last == tags.definitions[-1]
    assert decoded[1] is second and decoded[3] is last
    assert tuple(decoded) == tuple(tags.definitions)
    assert tuple(decoded)[1] is second and tuple(decoded)[3] is last
    with pytest.raises(IndexError):
        decode_tags(encode_tags(tags)).definitions[4]


def test_a_lookup_by_name_makes_only_the_definitions_of_that_name(tags_of):
    from indexer.entry import FileEntry

    tags = tags_of("python", SOURCE)
    entry = FileEntry("m.py", decode_tags(encode_tags(tags)))
    assert entry.definitions_named("m") == [d for d in tags.definitions if d.name == "m"]
    assert entry.definitions_named("missing") == []
    assert entry.tags.definitions._items is None


def test_references_decoded_lazily_count_and_iterate_like_the_extracted_ones(tags_of):
    tags = tags_of("python", SOURCE)
    decoded = decode_tags(encode_tags(tags))
    assert decoded.references.name_counts() == dict(Counter(r.name for r in tags.references))
    assert decoded.references.name_counts()["sep"] == 2
    assert tuple(decoded.references) == tuple(tags.references) and len(decoded.references) == len(tags.references)
    assert list(decoded.references.name_starts()) == [(r.name, r.byte) for r in tags.references]
    assert decoded.references.rows() == tags.references.rows()


def test_a_tampered_entry_fails_its_checksum_and_the_store_discards_it(tags_of, tmp_path, caplog):
    encoded = bytearray(encode_tags(tags_of("python", SOURCE)))
    encoded[-5] ^= 0x01  # inside the marshalled reference rows, which decode lazily
    with pytest.raises(CorruptEntry):
        decode_tags(bytes(encoded))
    store = SnapshotStore("/some/root", tmp_path)
    store._cache.set("python:abc", bytes(encoded))
    with caplog.at_level(logging.WARNING, logger="arbor.indexer"):
        assert store.get("python", "abc") is None
    assert any("discarding" in r.getMessage() for r in caplog.records)
    store.close()


def resolved_against_all_files(root: str, files) -> dict[str, list[str]]:
    """What each file imports when every import is resolved with all `files` known."""
    modules = ModuleIndex()
    for path, tags in files:
        modules.add(path, tags.package, tags.language)

    class GoModules:
        def set_go_module(self, module_path, directory):
            modules.go_modules[module_path] = directory

    register_go_modules(GoModules(), root, [path for path, tags in files if tags.language == "go"])
    return {
        path: list(dict.fromkeys(t for imp in tags.imports for t in resolve_import(modules, path, tags.language, imp)))
        for path, tags in files
    }


def test_deferred_resolution_resolves_every_file_against_all_files(workspace):
    files = scanned_tags(workspace)
    assert len(files) >= 25
    graph = new_graph(workspace, files)
    for path, tags in files:
        graph.set_file(path, tags)
    expected = resolved_against_all_files(workspace, files)
    assert {path: graph.imports_of(path) for path, _ in files} == expected
    assert sum(map(len, expected.values())) >= 20
    for path, _ in files:
        assert graph.dependents(path) == {p for p, targets in expected.items() if path in targets}


def test_resolution_does_not_depend_on_the_order_files_were_added_in(workspace):
    files = scanned_tags(workspace)
    forward, backward = new_graph(workspace, files), new_graph(workspace, files)
    for path, tags in files:
        forward.set_file(path, tags)
    for path, tags in reversed(files):
        backward.set_file(path, tags)
    assert answers(forward) == answers(backward)


def test_snapshot_tags_give_the_graph_parsed_tags_give(workspace):
    files = scanned_tags(workspace)
    parsed, warm = new_graph(workspace, files), new_graph(workspace, files)
    for path, tags in files:
        parsed.set_file(path, tags)
        warm.set_file(path, decode_tags(encode_tags(tags)))
    assert answers(warm) == answers(parsed)


def test_an_edit_before_any_query_marks_the_importers_added_meanwhile(tags_of):
    graph = SymbolGraph()
    graph.set_file("/w/lib.py", tags_of("python", "def area(r):\n    return r\n"))
    graph.set_file("/w/user.py", tags_of("python", "from lib import area\n\narea(2)\n"))
    assert graph.pending_resolution == frozenset()  # new files are not "marked"
    update = graph.set_file("/w/lib.py", tags_of("python", "def area(radius):\n    return radius\n"))
    assert update.reindexed and update.marked == {"/w/user.py"}
    assert graph.dependents("/w/lib.py") == {"/w/user.py"}


def test_a_scan_leaves_nothing_to_resolve_for_the_first_query(workspace):
    index = WorkspaceIndex(ScanOptions(workers=1), snapshot=False)
    index.scan([workspace])
    graph = index.graph
    assert not graph._fresh and not graph._stale
    index.close()
