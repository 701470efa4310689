"""Declared and constructed types of local names (pruning.local_types), per language."""

from __future__ import annotations

import pytest

from indexer import languages, syntax_for
from pruning import local_types
from pruning.content_memo import ContentMemo

CASES = {  # typed parameters, annotated and constructed values, Go short declarations, TS constructors
    "extra.py": ("class Repo:\n    def __init__(self, db: Db, n: int = 1):\n        self.cache = Cache()\n"
                 "        x: Store = make()\n        for i in range(3):\n            y = Thing(i)\n",
                 {"db": ("Db",), "n": ("int",), "cache": ("Cache",), "x": ("Store",), "y": ("Thing",)}),
    "extra.go": ("package p\n\nfunc (s *Server) Run(ctx Context) {\n\tc := Client{}\n\tif ok {\n\t\td := New()\n\t}\n}\n",
                 {"ctx": ("Context",), "c": ("Client",)}),
    "extra.ts": ("class K {\n  constructor(private repo: Repo, n = new Cache()) {\n    const s: Store = make();\n  }\n}\n",
                 {"repo": ("Repo",), "s": ("Store",)}),
}


def _functions(root, syntax):
    stack = [root]
    while stack:
        node = stack.pop()
        if syntax.scopes.get(node.type) in ("function", "method"):
            yield node
        stack.extend(node.named_children)


@pytest.mark.parametrize("kept", [False, True], ids=["fresh", "kept"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_declarations_of_a_function_give_each_local_name_its_types(name, kept):
    """With a ContentMemo the declarations are read per piece and kept; twice over, the second
    time from the memo, they are the same."""
    text, expected = CASES[name]
    language = languages.language_for_path(name)
    source = text.encode()
    tree = languages.parse(language, source)
    memo = ContentMemo() if kept else None
    for _ in range(2 if kept else 1):
        found: dict[str, tuple[str, ...]] = {}
        for function in _functions(tree.root_node, syntax_for(language)):
            local_types._add_declarations(function, source, language, found, memo)
        for local, types in expected.items():
            assert found.get(local) == types, (local, found)
    if kept:
        assert memo.hits > 0


def test_a_kept_declaration_follows_an_edit_of_its_statement():
    memo = ContentMemo()
    for constructed in ("First", "Second"):
        source = f"def f():\n    a = {constructed}()\n    b = Other()\n".encode()
        tree = languages.parse("python", source)
        function = next(_functions(tree.root_node, syntax_for("python")))
        found: dict[str, tuple[str, ...]] = {}
        local_types._add_declarations(function, source, "python", found, memo)
        assert found == {"a": (constructed,), "b": ("Other",)}


def test_an_earlier_declaration_of_a_name_wins():
    source = b"def f(a: First):\n    a = Second()\n"
    tree = languages.parse("python", source)
    function = next(_functions(tree.root_node, syntax_for("python")))
    found: dict[str, tuple[str, ...]] = {}
    local_types._add_declarations(function, source, "python", found)
    assert found["a"] == ("First",)
