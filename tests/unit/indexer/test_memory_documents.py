"""Memory documents (non-file URIs) in the index: tracked and tagged like any buffer, never
looked up on disk, and gone from the graph when closed."""

from __future__ import annotations

import builtins
import os

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
