"""`FileEntry.by_content`: shared by an open buffer's successive entries only."""

from __future__ import annotations

from indexer import extract_tags, parse
from indexer.entry import FileEntry


def tags(lang: str, text: str):
    data = text.encode()
    return extract_tags(lang, parse(lang, data), data)


def test_an_open_buffers_next_entry_shares_the_table():
    first = FileEntry("/w/a.py", tags("python", "def f():\n    pass\n"), b"def f():\n    pass\n")
    first.by_content["k"] = 1
    second = FileEntry("/w/a.py", tags("python", "x = 1\ndef f():\n    pass\n"), b"x = 1\ndef f():\n    pass\n", first)
    assert second.by_content is first.by_content


def test_an_entry_from_disk_or_in_another_language_starts_its_own():
    text = "def f():\n    pass\n"
    buffer = FileEntry("/w/a.py", tags("python", text), text.encode())
    buffer.by_content["k"] = 1
    from_disk = FileEntry("/w/a.py", tags("python", text), None, buffer)
    assert from_disk.by_content == {}
    assert FileEntry("/w/a.py", tags("python", text), text.encode(), from_disk).by_content == {}
    other = FileEntry("/w/a.py", tags("javascript", "function f() {}\n"), b"function f() {}\n", buffer)
    assert other.by_content == {}
    assert FileEntry("/w/a.py", tags("python", text), text.encode()).by_content == {}
