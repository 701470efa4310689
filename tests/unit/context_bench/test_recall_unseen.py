"""The context benchmark's hidden-line mode reads the cut buffer, never the file on disk that
still holds the hidden line (benchmarks/context/recall.py)."""

from __future__ import annotations

import pytest

from benchmarks.context import recall
from indexer import WorkspaceIndex, documents

CUT = "from util import compute\n\n\ndef run():\n    return 2\n"  # main.py without its hidden line


@pytest.fixture
def index(tmp_path):
    (tmp_path / "util.py").write_text("def compute(x):\n    return x\n")
    (tmp_path / "main.py").write_text("from util import compute\n\n\ndef run():\n    secret_marker = compute(1)\n    return 2\n")
    index = WorkspaceIndex(snapshot=False)
    index.scan([str(tmp_path)])
    yield index
    index.close()


def test_the_cut_buffer_is_what_the_snapshot_holds(tmp_path, index):
    path = str((tmp_path / "main.py").resolve())
    assert recall.open_indexed(index, path, CUT, "python")
    assert b"secret_marker" not in index.snapshot_for(path).entry(path).source


def test_a_buffer_the_index_cannot_tag_is_reported_not_read_from_disk(tmp_path, index, monkeypatch):
    monkeypatch.setattr(documents.OpenDocument, "tags", lambda self: None)  # as when a budget cuts it
    path = str((tmp_path / "main.py").resolve())
    assert not recall.open_indexed(index, path, CUT, "python")
    entry = index.snapshot_for(path).entry(path)
    assert entry is None or entry.source != CUT.encode()
