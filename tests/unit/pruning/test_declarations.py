"""Declared types read piece by piece (a function's header parts and each statement of its body,
memoised by text) are those a reading of the whole function gives, in every fixture language."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer import languages
from pruning import references
from pruning.syntax import syntax_for

FIXTURES = Path(__file__).resolve().parents[1] / "indexer" / "fixtures"
SAMPLES = sorted(p for p in FIXTURES.rglob("*") if p.is_file() and languages.language_for_path(str(p)))
EXTRA = {  # declarations the fixtures lack: typed parameters, constructed values, Go short declarations
    "extra.py": "class Repo:\n    def __init__(self, db: Db, n: int = 1):\n        self.cache = Cache()\n"
                "        x: Store = make()\n        for i in range(3):\n            y = Thing(i)\n",
    "extra.go": "package p\n\nfunc (s *Server) Run(ctx Context) {\n\tc := Client{}\n\tif ok {\n\t\td := New()\n\t}\n}\n",
    "extra.ts": "class K {\n  constructor(private repo: Repo, n = new Cache()) {\n    const s: Store = make();\n  }\n}\n",
}


def _functions(root, syntax):
    stack = [root]
    while stack:
        node = stack.pop()
        if syntax.scopes.get(node.type) in ("function", "method"):
            yield node
        stack.extend(node.named_children)


def _cases():
    for path in SAMPLES:
        yield path.name, path.read_bytes()
    for name, text in EXTRA.items():
        yield name, text.encode()


@pytest.mark.parametrize("name, source", list(_cases()), ids=[name for name, _ in _cases()])
def test_piecewise_declarations_equal_whole_function_ones(name, source):
    language = languages.language_for_path(name)
    syntax = syntax_for(language)
    tree = languages.parse(language, source)
    found = 0
    for function in _functions(tree.root_node, syntax):
        piecewise: dict[str, tuple[str, ...]] = {}
        references._add_declarations(function, source, language, piecewise)
        whole: dict[str, tuple[str, ...]] = {}
        for declared, names in references._declarations(function, source, language):
            whole.setdefault(declared, names)
        assert piecewise == whole
        found += len(whole)
    assert found or name not in EXTRA  # the extra cases do exercise typed declarations
