"""`index_candidates(..., stop=...)`: once `stop()` is true no further file is read."""

from __future__ import annotations

from indexer.scan import index_candidates
from indexer.workspace import ScanReport


def test_a_stopped_scan_reads_no_further_file():
    read: list[str] = []
    candidates = [(f"/w/f{i}.py", "python") for i in range(100)]

    def prepare(path: str, lang: str):
        read.append(path)
        return None  # open in the editor: nothing to apply

    index_candidates(candidates, prepare, lambda f: None, lambda p: None, ScanReport(), None, workers=1,
                     stop=lambda: len(read) >= 3)
    assert read == [path for path, _ in candidates[:3]]
