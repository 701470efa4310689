"""Fingerprint invariants and graph queries (dependents, ranking)."""

from __future__ import annotations

import pytest

from indexer import SymbolGraph
from indexer.rank import personalized_pagerank

BASE = "import os\n\n\ndef area(r):\n    # radius squared\n    return 3.14 * r * r  # pi\n\nNAME = 'circle'\n"


@pytest.mark.parametrize(
    "variant",
    [
        BASE.replace("# radius squared", "# the radius, squared"),  # comment
        BASE.replace("    return", "        return").replace("def area", "def  area"),  # whitespace
        BASE.replace("'circle'", "'round thing'"),  # string contents
        BASE.replace("3.14", "3.14159"),  # number literal
        BASE + "\n\n# trailing comment\n",
    ],
)
def test_fingerprint_ignores_comments_whitespace_strings_and_numbers(variant, tags_of):
    assert tags_of("python", variant).fingerprint == tags_of("python", BASE).fingerprint


@pytest.mark.parametrize(
    "variant",
    [
        BASE.replace("def area", "def surface"),  # rename a definition
        BASE.replace("r * r", "r * q"),  # change an identifier in a body
        BASE.replace("import os", "import sys"),  # change an import
        BASE.replace("return", "yield"),  # change a keyword
    ],
)
def test_fingerprint_changes_with_names(variant, tags_of):
    assert tags_of("python", variant).fingerprint != tags_of("python", BASE).fingerprint


def test_fingerprint_in_c_like_languages_ignores_block_comments(tags_of):
    a = tags_of("c", "int f(int x) { return x; }\n")
    b = tags_of("c", "/* doc */\nint f(int x) {\n    // ok\n    return x;\n}\n")
    assert a.fingerprint == b.fingerprint


def _graph(tags_of, files):
    graph = SymbolGraph()
    for path, (lang, text) in files.items():
        graph.set_file(path, tags_of(lang, text))
    return graph


def test_rank_prefers_what_the_focus_file_uses(tags_of):
    graph = _graph(tags_of, {
        "/w/main.py": ("python", "from util import helper\n\nhelper()\nhelper()\n"),
        "/w/util.py": ("python", "def helper():\n    return Shape()\n"),
        "/w/shapes.py": ("python", "class Shape:\n    pass\n"),
        "/w/unrelated.py": ("python", "def lonely():\n    pass\n"),
    })
    rank = graph.rank("/w/main.py")
    assert abs(sum(rank.values()) - 1.0) < 1e-6
    assert rank["/w/util.py"] > rank["/w/shapes.py"] > rank.get("/w/unrelated.py", 0.0)
    # shapes.py is reached only through util.py, unrelated.py not at all
    best = graph.rank_definitions("/w/main.py", limit=3)
    assert [d.name for _, _, d in best] == ["helper", "Shape"]


def test_rank_is_recomputed_after_edges_change(tags_of):
    graph = _graph(tags_of, {
        "/w/main.py": ("python", "a()\n"),
        "/w/a.py": ("python", "def a():\n    pass\n"),
        "/w/b.py": ("python", "def b():\n    pass\n"),
    })
    first = graph.rank("/w/main.py")
    assert first["/w/a.py"] > first.get("/w/b.py", 0.0)
    graph.set_file("/w/main.py", tags_of("python", "b()\nb()\n"))
    second = graph.rank("/w/main.py")
    assert second["/w/b.py"] > second.get("/w/a.py", 0.0)


def test_pagerank_basics():
    rank = personalized_pagerank({"a": {"b": 1.0}, "b": {"c": 1.0}}, {"a": 1.0})
    assert rank["a"] > rank["b"] > rank["c"] > 0
    assert abs(sum(rank.values()) - 1) < 1e-6
    assert personalized_pagerank({}, {}) == {}


def test_remove_file_drops_symbols_and_edges(tags_of):
    graph = _graph(tags_of, {
        "/w/main.py": ("python", "from lib import f\n"),
        "/w/lib.py": ("python", "def f():\n    pass\n"),
    })
    assert graph.dependents("/w/lib.py") == {"/w/main.py"}
    update = graph.remove_file("/w/lib.py")
    assert update.marked == {"/w/main.py"}
    assert graph.definitions_of("f", "/w/main.py") == []
    assert graph.imports_of("/w/main.py") == []
    assert graph.symbol_count == 0
    graph.set_file("/w/lib.py", tags_of("python", "def f():\n    pass\n"))  # comes back: re-resolved
    assert graph.imports_of("/w/main.py") == ["/w/lib.py"]
