"""Fingerprint invariants and graph queries (dependents, closeness)."""

from __future__ import annotations

import pytest

from indexer import SymbolGraph

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


def test_closeness_weighs_the_files_whose_names_the_focus_file_uses(tags_of):
    graph = _graph(tags_of, {
        "/w/main.py": ("python", "from util import helper\n\nhelper()\nhelper()\nShape()\n"),
        "/w/util.py": ("python", "def helper():\n    return Shape()\n"),
        "/w/shapes.py": ("python", "class Shape:\n    pass\n"),
        "/w/unrelated.py": ("python", "def lonely():\n    pass\n"),
    })
    edges = graph.out_edges("/w/main.py")
    # imported and used twice > used once, never imported > not used at all
    assert edges["/w/util.py"] > edges["/w/shapes.py"] > 0
    assert "/w/unrelated.py" not in edges and "/w/main.py" not in edges


def test_closeness_follows_an_edit_of_the_focus_file(tags_of):
    graph = _graph(tags_of, {
        "/w/main.py": ("python", "a()\n"),
        "/w/a.py": ("python", "def a():\n    pass\n"),
        "/w/b.py": ("python", "def b():\n    pass\n"),
    })
    assert set(graph.out_edges("/w/main.py")) == {"/w/a.py"}
    graph.set_file("/w/main.py", tags_of("python", "b()\nb()\n"))
    assert set(graph.out_edges("/w/main.py")) == {"/w/b.py"}
    graph.set_file("/w/b.py", tags_of("python", "def c():\n    pass\n"))  # b() no longer defined there
    assert graph.out_edges("/w/main.py") == {}


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


def test_a_limited_answer_is_the_start_of_the_whole_one_and_reads_fewer_files(tags_of):
    files = {f"/w/pkg{i % 4}/m{i}.py": ("python", "def run():\n    pass\n") for i in range(40)}
    files["/w/pkg1/main.py"] = ("python", "def run():\n    pass\n\n\ndef go():\n    run()\n")
    graph = _graph(tags_of, files)
    whole_read: set[str] = set()
    whole = graph.definitions_of("run", "/w/pkg1/main.py", whole_read)
    for limit in (0, 1, 3, 8, 60):
        read: set[str] = set()
        limited = graph.definitions_of("run", "/w/pkg1/main.py", read, limit=limit)
        own = [found for found in whole if found[0] == "/w/pkg1/main.py"]
        assert limited == own + [found for found in whole if found[0] != "/w/pkg1/main.py"][:limit]
        assert len(read) == min(len(whole_read), 1 + limit)
    assert [path for path, _ in whole][:3] == ["/w/pkg1/main.py", "/w/pkg1/m1.py", "/w/pkg1/m13.py"]


def test_a_package_init_coming_or_going_re_resolves_imports_of_modules_below_it(tags_of):
    """`import tools` names /w/lib/tools.py while lib is no package; once lib/__init__.py exists it
    names lib's own module, which `import tools` cannot reach (indexer/resolve.py), and back."""
    graph = _graph(tags_of, {
        "/w/main.py": ("python", "import tools\n"),
        "/w/lib/tools.py": ("python", "def f():\n    pass\n"),
    })
    assert graph.imports_of("/w/main.py") == ["/w/lib/tools.py"]
    graph.set_file("/w/lib/__init__.py", tags_of("python", ""))
    assert graph.imports_of("/w/main.py") == []
    graph.remove_file("/w/lib/__init__.py")
    assert graph.imports_of("/w/main.py") == ["/w/lib/tools.py"]
