"""The Jaccard baseline pays for its prompt as arbor's snippets do (benchmarks/context/recall.py)."""

from __future__ import annotations

from benchmarks.context import recall
from indexer import WorkspaceIndex
from pruning.budget import DEFAULT_TOKENIZER
from pruning.packing import header_cost


def test_a_window_pays_for_its_file_header_and_an_overlapping_one_for_its_new_lines(tmp_path, monkeypatch):
    monkeypatch.setattr(recall, "JACCARD_PREFIX_SHARE", 0.0)  # the whole budget is the windows'
    monkeypatch.setattr(recall, "JACCARD_SUFFIX_SHARE", 0.0)
    lines = [f"total_{i} = price_{i} * count_{i}" for i in range(20)]
    (tmp_path / "b.py").write_text("\n".join(lines) + "\n")
    (tmp_path / "a.py").write_text("x = 1\n")
    index = WorkspaceIndex(snapshot=False)
    index.scan([str(tmp_path)])
    try:
        a, b = (str((tmp_path / name).resolve()) for name in ("a.py", "b.py"))
        windows = recall.JaccardWindows(index, [a, b], str(tmp_path.resolve()))
        query = "\n".join(lines[:10])  # like the first window most, then the second (lines 10-20)
        first = sum(DEFAULT_TOKENIZER.count(line + "\n") for line in lines) + header_cost("b.py", DEFAULT_TOKENIZER.count)
        assert (b, 0) not in windows.covered(a, query, len(query), first - 1)
        covered = windows.covered(a, query, len(query), first + 1)  # the second window adds one line
        assert covered == {(b, n) for n in range(21)}
    finally:
        index.close()
