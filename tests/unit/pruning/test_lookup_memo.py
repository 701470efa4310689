"""The definitions memo follows the graph's change journal: a re-indexed file drops only the
answers it can change, and an edit that moves definitions without changing any name (same
fingerprint) still drops their answers, so no stale byte offsets are rendered."""

from __future__ import annotations

from dataclasses import dataclass

from indexer import WorkspaceIndex
from pruning import lookup


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str


def workspace(tmp_path):
    files = {
        "a.py": "def alpha(x):\n    return x\n",
        "b.py": "def beta(y):\n    return y\n",
        "main.py": "from a import alpha\nfrom b import beta\n\nalpha(1) + beta(2)\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    index = WorkspaceIndex()
    index.snapshot_enabled = False
    index.scan([str(tmp_path)])
    return index, {name: str(tmp_path / name) for name in files}


def test_reindexing_one_file_keeps_the_answers_it_cannot_change(tmp_path):
    index, paths = workspace(tmp_path)
    graph = index.graph
    alpha = lookup._definitions_of(graph, "alpha", paths["main.py"])
    beta = lookup._definitions_of(graph, "beta", paths["main.py"])
    assert [d.name for _, d in alpha] == ["alpha"]
    index.did_open(paths["b.py"], "def beta(y, z):\n    return y\n", "python")
    index.flush()
    assert lookup._definitions_of(index.graph, "alpha", paths["main.py"]) is alpha  # still memoised
    again = lookup._definitions_of(index.graph, "beta", paths["main.py"])
    assert again is not beta and again == index.graph.definitions_of("beta", paths["main.py"])


def test_moved_definitions_are_looked_up_again_though_no_name_changed(tmp_path):
    index, paths = workspace(tmp_path)
    text = "def beta(y):\n    return y\n"
    index.did_open(paths["b.py"], text, "python")
    index.flush()
    before = lookup._definitions_of(index.graph, "beta", paths["main.py"])
    index.did_change(paths["b.py"], [Edit(0, 0, "\n\n")], "\n\n" + text)
    fingerprint = index.graph.fingerprint(paths["b.py"])
    index.flush()
    assert index.graph.fingerprint(paths["b.py"]) == fingerprint  # nothing semantic changed...
    (_, moved), = lookup._definitions_of(index.graph, "beta", paths["main.py"])
    assert moved.start_byte == before[0][1].start_byte + 2  # ...but the definition moved


def test_an_unknown_history_empties_the_memo(tmp_path):
    index, paths = workspace(tmp_path)
    first = lookup._definitions_of(index.graph, "alpha", paths["main.py"])
    other, _ = workspace(tmp_path / ".." / tmp_path.name)  # another graph object
    lookup._definitions_of(other.graph, "alpha", paths["main.py"])
    assert lookup._definitions_of(index.graph, "alpha", paths["main.py"]) is not first


def test_a_changed_definition_reparsed_from_its_last_tree_renders_as_a_fresh_parse():
    from indexer.tags import Definition

    def render(text: str) -> str:
        source = text.encode()
        definition = Definition("Shape", "class", 0, text.count("\n"), 0, len(source), 0, 6, None)
        return lookup.render_definition(source, "python", definition, "skeleton").text

    before = "class Shape:\n    def area(self):\n        return 0\n"
    after = "class Shape:\n    def area(self):\n        return 0\n\n    def perimeter(self, scale):\n        return 1\n"
    render(before)  # leaves this class's tree to reparse from
    incremental = render(after)
    lookup._CHUNK_TREES.clear()
    assert incremental == render(after)  # as from a full parse
    assert "def perimeter(self, scale):" in incremental


def test_prepare_looks_up_again_what_the_last_context_resolved(tmp_path, monkeypatch):
    """After b.py is re-indexed, preparing main.py does the lookups its last context needed, so
    the next context in main.py does none itself; and the context is what it would be anyway."""
    from pruning.context import build_context, prepare

    index, paths = workspace(tmp_path)
    main = (tmp_path / "main.py").read_text()
    build_context(paths["main.py"], main, len(main), index=index)  # resolves alpha and beta
    index.did_open(paths["b.py"], "\n\ndef beta(y):\n    return y\n", "python")  # beta moved
    index.flush()
    prepare(index, paths["main.py"])
    calls: list[str] = []
    real = type(index.graph).definitions_of
    monkeypatch.setattr(type(index.graph), "definitions_of",
                        lambda graph, name, origin: calls.append(name) or real(graph, name, origin))
    warmed = build_context(paths["main.py"], main, len(main), index=index)
    assert "beta" not in calls
    lookup._MEMO.answers.clear()  # the same context from a cold memo
    lookup._FOUND.clear()
    assert build_context(paths["main.py"], main, len(main), index=index) == warmed
    assert "beta" in calls
