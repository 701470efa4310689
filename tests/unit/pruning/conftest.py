import importlib

import pytest
import tree_sitter

_GRAMMARS = {
    "python": ("tree_sitter_python", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "javascript": ("tree_sitter_javascript", "language"),
    "go": ("tree_sitter_go", "language"),
    "java": ("tree_sitter_java", "language"),
    "rust": ("tree_sitter_rust", "language"),
}


def parse_source(language: str, source: bytes):
    module, attr = _GRAMMARS[language]
    grammar = tree_sitter.Language(getattr(importlib.import_module(module), attr)())
    return tree_sitter.Parser(grammar).parse(source)


@pytest.fixture
def parse():
    return parse_source
