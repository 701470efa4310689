"""The one adapter over tree-sitter: languages, parsers, tree edits and the tags query.

Every tree-sitter API call in arbor-ls lives in this module (written against py-tree-sitter 0.26).
Everything it hands out beyond `Tree` objects is plain data: captures of a tags query are lists of
integer spans, so `tags.py` and the rest of the indexer never touch a `Node`.

Invariants:
- A language name is one of `LANGUAGES`; `language_for_path` maps a file name to one or to None.
- Parsers are per thread (a `Parser` is not thread-safe), languages and queries are shared.
- Captures come back as `(start_byte, end_byte)` spans; rows are derived from the source by the
  caller (creating fewer Python objects per node is what keeps indexing close to parse speed).
"""

from __future__ import annotations

import importlib
import threading
from functools import lru_cache
from pathlib import Path

import tree_sitter as ts

Tree = ts.Tree
Point = tuple[int, int]

# language name -> (grammar module, function returning the language pointer)
_GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
}
LANGUAGES: tuple[str, ...] = tuple(_GRAMMARS)

_EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp",
    ".hh": "cpp", ".hpp": "cpp", ".hxx": "cpp", ".h++": "cpp", ".ipp": "cpp", ".inl": "cpp",
}
EXTENSIONS: frozenset[str] = frozenset(_EXTENSIONS)

# LSP languageId -> language name (ids from the LSP specification's list)
_LANGUAGE_IDS: dict[str, str] = {
    "python": "python",
    "javascript": "javascript", "javascriptreact": "javascript",
    "typescript": "typescript", "typescriptreact": "tsx",
    "go": "go", "rust": "rust", "java": "java", "c": "c", "cpp": "cpp",
}

# tsx shares the TypeScript query: the TSX grammar is TypeScript plus JSX.
_QUERY_FILE: dict[str, str] = {name: name for name in LANGUAGES} | {"tsx": "typescript"}
QUERY_DIR = Path(__file__).with_name("queries")


def language_for_path(path: str) -> str | None:
    """The language of a file by its extension (case-insensitive), or None if unsupported."""
    suffix = Path(path).suffix.lower()
    return _EXTENSIONS.get(suffix)


def language_for_id(language_id: str, path: str = "") -> str | None:
    """The language for an LSP `languageId`, falling back to the file extension."""
    return _LANGUAGE_IDS.get(language_id) or language_for_path(path)


@lru_cache(maxsize=None)
def get_language(lang: str) -> ts.Language:
    """The tree-sitter `Language` for a language name; raises KeyError for unknown names."""
    module_name, func_name = _GRAMMARS[lang]
    module = importlib.import_module(module_name)
    return ts.Language(getattr(module, func_name)())


_local = threading.local()


def get_parser(lang: str) -> ts.Parser:
    """This thread's parser for `lang` (created on first use)."""
    parsers = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = _local.parsers = {}
    parser = parsers.get(lang)
    if parser is None:
        parser = parsers[lang] = ts.Parser(get_language(lang))
    return parser


def parse(lang: str, source: bytes, old_tree: Tree | None = None) -> Tree:
    """Parse `source`; with `old_tree` (already `edit`ed to match `source`) the parse is incremental."""
    parser = get_parser(lang)
    if old_tree is None:
        return parser.parse(source)
    return parser.parse(source, old_tree)


def edit_tree(
    tree: Tree,
    start_byte: int,
    old_end_byte: int,
    new_end_byte: int,
    start_point: Point,
    old_end_point: Point,
    new_end_point: Point,
) -> None:
    """Record one text edit on `tree` (points are (row, byte column)) so a reparse can reuse it."""
    tree.edit(
        start_byte=start_byte,
        old_end_byte=old_end_byte,
        new_end_byte=new_end_byte,
        start_point=start_point,
        old_end_point=old_end_point,
        new_end_point=new_end_point,
    )


def root_sexp(tree: Tree) -> str:
    """The tree as an S-expression (structure only, no text): equal trees give equal strings."""
    return str(tree.root_node)


def has_error(tree: Tree) -> bool:
    """Whether the tree contains syntax errors or missing nodes."""
    return tree.root_node.has_error


@lru_cache(maxsize=None)
def query_source(lang: str) -> str:
    """The text of the language's tags query, `queries/<lang>-tags.scm`."""
    return (QUERY_DIR / f"{_QUERY_FILE[lang]}-tags.scm").read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def tags_query(lang: str) -> ts.Query:
    """The compiled tags query for `lang`."""
    return ts.Query(get_language(lang), query_source(lang))


def tag_captures(lang: str, tree: Tree) -> dict[str, list[tuple[int, int]]]:
    """All captures of the tags query on `tree` as plain data: capture name -> (start_byte,
    end_byte) of each captured node. Captures named `_*` (predicate helpers) are dropped. Order is
    mostly, but not always, document order, and a node matched by several patterns may appear more
    than once: callers sort and deduplicate what they need ordered."""
    cursor = ts.QueryCursor(tags_query(lang))
    return {
        name: [(n.start_byte, n.end_byte) for n in nodes]
        for name, nodes in cursor.captures(tree.root_node).items()
        if not name.startswith("_")
    }
