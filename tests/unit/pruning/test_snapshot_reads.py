"""What a context reads of the index snapshot: one version per change, entries shared while their
file is unchanged, and work kept on the snapshot never visible in a context's content."""

from __future__ import annotations

import os
from dataclasses import dataclass

from indexer import WorkspaceIndex
from pruning.context import build_context, prepare


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str


FILES = {
    "a.py": "def alpha(x):\n    return x\n",
    "b.py": "def beta(y):\n    return y\n",
    "main.py": "from a import alpha\nfrom b import beta\n\nalpha(1) + beta(2)\n",
}


def workspace(tmp_path):
    tmp_path.mkdir(parents=True, exist_ok=True)
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    index = WorkspaceIndex(snapshot=False)
    index.scan([str(tmp_path)])
    return index, {name: str(tmp_path / name) for name in FILES}


def context(index, path: str):
    text = open(path).read() if not index.is_open(path) else index.text(path)
    return build_context(path, text, len(text), index=index, workspace_root=os.path.dirname(path))


def fresh_context(tmp_path, texts: dict[str, str], name: str):
    """The same context from a new index of the same texts, all opened as buffers."""
    index, paths = workspace(tmp_path)
    for other, text in texts.items():
        index.did_open(paths[other], text, "python")
    return build_context(paths[name], texts[name], len(texts[name]), index=index,
                         workspace_root=os.path.dirname(paths[name]))


def snippet_texts(parts) -> list[str]:
    return [s.text for s in parts.snippets]


def test_a_reindex_publishes_a_new_version_that_shares_the_unchanged_entries(tmp_path):
    index, paths = workspace(tmp_path)
    first = index.snapshot
    assert index.snapshot is first  # nothing changed: the same version
    index.did_open(paths["b.py"], "def beta(y, z):\n    return y\n", "python")
    second = index.snapshot
    assert second.version > first.version
    assert second.entry(paths["a.py"]) is first.entry(paths["a.py"])  # copy-on-write
    assert second.entry(paths["b.py"]) is not first.entry(paths["b.py"])
    assert first.entry(paths["b.py"]).source is None  # the old version is left as it was
    assert second.entry(paths["b.py"]).source == b"def beta(y, z):\n    return y\n"


def test_a_changed_definition_is_read_anew_and_an_unchanged_one_as_before(tmp_path):
    index, paths = workspace(tmp_path)
    before = context(index, paths["main.py"])
    assert any("def beta(y):" in t for t in snippet_texts(before))
    index.did_open(paths["b.py"], "def beta(y, z):\n    return y\n", "python")
    after = context(index, paths["main.py"])
    assert any("def beta(y, z):" in t for t in snippet_texts(after))
    assert [t for t in snippet_texts(after) if "alpha" in t] == [t for t in snippet_texts(before) if "alpha" in t]


def test_moved_definitions_are_read_at_their_new_place_though_no_name_changed(tmp_path):
    index, paths = workspace(tmp_path)
    text = "def beta(y):\n    return y\n"
    index.did_open(paths["b.py"], text, "python")
    fingerprint = index.snapshot.fingerprint(paths["b.py"])
    context(index, paths["main.py"])  # renders beta from the first entry
    index.did_change(paths["b.py"], [Edit(0, 0, "# header\n\n")], "# header\n\n" + text)
    assert index.snapshot.fingerprint(paths["b.py"]) == fingerprint  # nothing semantic changed...
    parts = context(index, paths["main.py"])
    beta = next(s for s in parts.snippets if s.symbol == "beta")
    assert (beta.start_line, beta.text.startswith("def beta(y)")) == (3, True)  # ...but it moved
    texts = {"a.py": FILES["a.py"], "b.py": "# header\n\n" + text, "main.py": FILES["main.py"]}
    index.did_open(paths["main.py"], FILES["main.py"], "python")
    assert context(index, paths["main.py"]) == fresh_context(tmp_path / "fresh", texts, "main.py")


def test_prepare_does_the_next_contexts_lookups_and_changes_nothing(tmp_path, monkeypatch):
    """After b.py is re-indexed, preparing main.py with its last context's lookups leaves the next
    context in main.py no lookup to do; and that context is what it would be anyway."""
    index, paths = workspace(tmp_path)
    first = context(index, paths["main.py"])
    assert {name for name, _ in first.lookups} >= {"alpha", "beta"}
    index.did_open(paths["b.py"], "\n\ndef beta(y):\n    return y\n", "python")  # beta moved
    index.flush()
    prepare(index, paths["main.py"], first.lookups)
    calls: list[str] = []
    real = type(index.graph).definitions_of
    monkeypatch.setattr(type(index.graph), "definitions_of",
                        lambda graph, name, origin: calls.append(name) or real(graph, name, origin))
    warmed = context(index, paths["main.py"])
    assert "beta" not in calls
    texts = {"a.py": FILES["a.py"], "b.py": "\n\ndef beta(y):\n    return y\n", "main.py": FILES["main.py"]}
    monkeypatch.undo()
    index.did_open(paths["main.py"], FILES["main.py"], "python")
    assert warmed == context(index, paths["main.py"]) == fresh_context(tmp_path / "fresh", texts, "main.py")
