"""Memory documents (non-file URIs) in the index: tracked and tagged like any buffer, never
looked up on disk, and gone from the graph when closed; closing a buffer, or deleting a file,
leaves no snapshot holding its entry."""

from __future__ import annotations

import builtins
import os
import weakref

import pytest

from indexer import WorkspaceIndex
from indexer.documents import is_memory_path
from indexer.workspace import normalize_path


@pytest.mark.parametrize("path", ["untitled:Untitled-1", "vscode-notebook-cell:/a/b.ipynb#W0s",
                                  "vscode-vfs://github/o/r/x.py", "git:/a/b.py?ref"])
def test_memory_uris_are_their_own_normal_form(path):
    assert is_memory_path(path)
    assert normalize_path(path) == path


@pytest.mark.parametrize("path", ["/a/b.py", "C:/a/b.py", "relative/b.py", "b.py"])
def test_paths_are_not_memory_documents(path):
    assert not is_memory_path(path)


def test_memory_document_never_touches_the_disk(monkeypatch, tmp_path):
    index = WorkspaceIndex(snapshot=False)
    uri = "untitled:Untitled-1"
    touched: list[str] = []
    real_open, real_stat = builtins.open, os.stat

    def guarded_open(file, *args, **kwargs):
        touched.append(str(file)) if "Untitled" in str(file) else None
        return real_open(file, *args, **kwargs)

    def guarded_stat(path, *args, **kwargs):
        touched.append(str(path)) if "Untitled" in str(path) else None
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guarded_open)
    monkeypatch.setattr(os, "stat", guarded_stat)
    index.did_open(uri, "def helper(x):\n    return x\n", "python")
    assert [d.name for d in index.tags(uri).definitions] == ["helper"]
    index.did_close(uri)
    assert index.tags(uri) is None and not index.is_open(uri)
    assert touched == []


def test_closing_lets_go_of_the_snapshot_that_held_the_buffer():
    """What a completion read while a buffer was open dies when it closes, even though nothing
    asks for a snapshot afterwards."""
    index = WorkspaceIndex(snapshot=False)
    uris = [f"untitled:Untitled-{i}" for i in range(3)]
    for uri in uris:
        index.did_open(uri, "def helper(x):\n    return x\n", "python")
    snapshot = index.snapshot_for(uris[0])
    assert snapshot.definitions_of("helper", uris[0])  # a cross-file answer kept on the snapshot
    entry = weakref.ref(snapshot.entry(uris[1]))
    held = weakref.ref(snapshot)
    del snapshot
    for uri in uris:
        index.did_close(uri)
    assert held() is None and entry() is None
    assert index.published.entries == {}


def test_closing_a_file_buffer_drops_its_entry_and_a_deleted_file_leaves_no_snapshot(tmp_path):
    (tmp_path / "a.py").write_text("def on_disk():\n    return 1\n")
    (tmp_path / "b.py").write_text("def other():\n    return 2\n")
    index = WorkspaceIndex(snapshot=False)
    index.scan([str(tmp_path)])
    path = normalize_path(str(tmp_path / "a.py"))
    index.did_open(path, "def in_buffer():\n    return 1\n", "python")
    buffer_entry = weakref.ref(index.snapshot_for(path).entry(path))
    assert buffer_entry().source is not None
    index.did_close(path)
    assert buffer_entry() is None
    assert [d.name for d in index.published.tags(path).definitions] == ["on_disk"]
    other = normalize_path(str(tmp_path / "b.py"))
    gone = weakref.ref(index.published.entry(other))
    index.file_deleted(other)
    assert gone() is None and index.published.entry(other) is None
