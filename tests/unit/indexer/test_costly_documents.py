"""Open buffers whose parse or tags would stall the server are kept as text only (`costly`),
quickly; large ordinary buffers are tagged over several bounded updates instead."""

from __future__ import annotations

import time

from indexer import documents
from indexer.documents import OpenDocument
from indexer.languages import parse
from indexer.tags import extract_tags
from indexer.work_budget import BudgetExceeded, limit


def test_a_buffer_of_100000_open_parentheses_is_text_only_within_its_budget():
    doc = OpenDocument("/w/parens.py", "(" * 100_000, "python")
    started = time.perf_counter()
    assert doc.tags() is None
    assert time.perf_counter() - started < 1.0  # its queries alone would take 30 s and more
    assert doc.costly and doc.tree() is None and doc.tags() is None
    doc.apply(documents_edit(0, 100_000, "def f():\n    return 1\n"))
    assert not doc.costly  # shrunk: tried again
    assert [d.name for d in doc.tags().definitions] == ["f"]


def test_a_slow_parse_makes_the_buffer_costly(monkeypatch):
    monkeypatch.setattr(documents, "PARSE_BUDGET_MS", 0.0)
    doc = OpenDocument("/w/a.py", "x = [" * 50_000, "python")
    assert doc.tree() is None and doc.costly


def test_a_large_buffer_is_tagged_over_several_updates(monkeypatch):
    monkeypatch.setattr(documents, "TAG_BUDGET_MS", 20.0)
    text = "".join(f"def function_{i}(a, b):\n    value = a * {i} + b\n    return helper(value)\n\n"
                   for i in range(3000))
    doc = OpenDocument("/w/big.py", text, "python")
    doc.tree()
    results = [doc.tags() for _ in range(200)]
    finished = [tags for tags in results if tags is not None]
    assert finished, "never finished"
    assert results[0] is None  # the first update did not fit in 20 ms ...
    assert not doc.costly  # ... but each one got further
    assert finished[0] == extract_tags("python", parse("python", doc.source), doc.source)


def test_the_callers_budget_ends_first_without_marking_the_buffer():
    doc = OpenDocument("/w/b.py", "x = [" * 50_000, "python")
    try:
        with limit(0.0):
            doc.tree()
    except BudgetExceeded:
        pass
    else:
        raise AssertionError("the caller's spent budget should end the parse")
    assert not doc.costly


def documents_edit(start: int, end: int, text: str):
    from indexer.documents import TextEditLike  # noqa: F401 (the protocol the edit follows)

    class Edit:
        pass

    edit = Edit()
    edit.start, edit.end, edit.text = start, end, text
    return edit


def test_an_open_buffer_whose_tagging_a_budget_cut_is_indexed_by_a_later_flush(monkeypatch, tmp_path):
    """A tags update cut by its budget (a large buffer, or the first tagging in a process, which
    compiles the language's queries) leaves the buffer pending: the next flushes finish it."""
    from indexer import WorkspaceIndex

    monkeypatch.setattr(documents, "TAG_BUDGET_MS", 20.0)
    text = "".join(f"def function_{i}(a, b):\n    value = a * {i} + b\n    return helper(value)\n\n"
                   for i in range(3000))
    path = str(tmp_path / "big.py")
    index = WorkspaceIndex(snapshot=False)
    try:
        index.did_open(path, text, "python")
        for _ in range(200):
            index.flush()
            entry = index.published.entry(path)
            if entry is not None:
                break
        assert entry is not None and entry.source is not None
        assert len(entry.tags.definitions) == 3000
    finally:
        index.close()
