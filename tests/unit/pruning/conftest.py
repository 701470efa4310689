import importlib
import textwrap

import pytest
import tree_sitter

from indexer import WorkspaceIndex

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


def _write_files(root, files):
    """Write `files` (name -> text, as given) under `root` and return a scanned index of it."""
    for name, body in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
    index = WorkspaceIndex(snapshot=False)
    index.scan([str(root)])
    return index


def _write_workspace(root, files):
    """`_write_files` with each text dedented and its leading newlines dropped."""
    return _write_files(root, {name: textwrap.dedent(body).lstrip("\n") for name, body in files.items()})


@pytest.fixture
def write_files():
    return _write_files


@pytest.fixture
def write_workspace():
    return _write_workspace


@pytest.fixture
def without_similar_windows(monkeypatch):
    """No window of similar code becomes a snippet: in a workspace of a few short files the most
    similar window is often a whole file, which shows the very definition a test of another
    candidate source looks for under another name (`lines 1-2` instead of `quote`)."""
    monkeypatch.setattr("pruning.candidates.SIMILAR_SNIPPETS", 0)
    monkeypatch.setattr("pruning.candidates.OWN_SNIPPETS", 0)
