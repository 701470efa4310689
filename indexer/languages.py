"""The one adapter over tree-sitter: languages, parsers, tree edits and the tags query.

Every tree-sitter API call in arbor-ls lives in this module (written against py-tree-sitter 0.26).
Everything it hands out beyond `Tree` objects is plain data: captures of a tags query are lists of
integer spans, so `tags.py` and the rest of the indexer never touch a `Node`.

Invariants:
- A language name is one of `LANGUAGES`; `language_for_path` maps a file name to one or to None;
  `GRAMMARS[name]` holds its grammar, tags query and node-type tables (`syntax_for(name or LSP id)`).
- Parsers are per thread (a `Parser` is not thread-safe), languages and queries are shared.
- Captures come back as `(start_byte, end_byte)` spans; rows are derived from the source by the
  caller (creating fewer Python objects per node is what keeps indexing close to parse speed).
"""

from __future__ import annotations

import importlib
import threading
from functools import cached_property
from pathlib import Path

import tree_sitter as ts
import xxhash

from indexer import work_budget
from indexer.query_dependencies import QueryDependencies, query_dependencies
from indexer.syntax import SYNTAXES, Syntax

Tree = ts.Tree
Node = ts.Node
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
GRAMMAR_MODULES: tuple[str, ...] = tuple(sorted({module for module, _ in _GRAMMARS.values()}))

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
    # short names and spellings some clients and callers use
    "jsx": "javascript", "tsx": "tsx", "c++": "cpp", "golang": "go", "py": "python", "ts": "typescript",
    "js": "javascript",
}

# file extension -> LSP languageId, for files an editor did not name (the CLI, benchmarks); it
# lists languages the index does not parse too: their completions use the windows alone
_LSP_IDS_BY_EXTENSION: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".jsx": "javascriptreact", ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".tsx": "typescriptreact", ".go": "go", ".rs": "rust", ".java": "java", ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".cs": "csharp",
    ".rb": "ruby", ".lua": "lua", ".sh": "shellscript",
}

# tsx shares the TypeScript query: the TSX grammar is TypeScript plus JSX.
_QUERY_FILE: dict[str, str] = {name: name for name in LANGUAGES} | {"tsx": "typescript"}
QUERY_DIR = Path(__file__).with_name("queries")


def language_for_path(path: str) -> str | None:
    """The language of a file by its extension (case-insensitive), or None if unsupported."""
    suffix = Path(path).suffix.lower()
    return _EXTENSIONS.get(suffix)


def lsp_language_id(path: str) -> str:
    """The LSP languageId an editor would give the file at `path` ("" if unknown)."""
    return _LSP_IDS_BY_EXTENSION.get(Path(path).suffix.lower(), "")


def language_for_id(language_id: str, path: str = "") -> str | None:
    """The language for an LSP `languageId`, falling back to the file extension."""
    return _LANGUAGE_IDS.get(language_id) or language_for_path(path)


class Grammar:
    """One language of the registry: its tree-sitter grammar and tags query, loaded on first use
    and kept by this object (constants of the installed grammar packages); `syntax`: its tables."""

    def __init__(self, name: str, module: str, function: str, query_file: str) -> None:
        self.name = name
        self.module = module
        self.function = function
        self.query_file = query_file
        self.syntax: Syntax = SYNTAXES[name]
        self._node_queries: dict[frozenset[str], ts.Query | None] = {}

    @cached_property
    def language(self) -> ts.Language:
        module = importlib.import_module(self.module)
        return ts.Language(getattr(module, self.function)())

    @cached_property
    def query_source(self) -> str:
        return (QUERY_DIR / f"{self.query_file}-tags.scm").read_text(encoding="utf-8")

    @cached_property
    def tags_query(self) -> ts.Query:
        return ts.Query(self.language, self.query_source)

    def node_types_query(self, types: frozenset[str]) -> ts.Query | None:
        """A query capturing the nodes of `types` that this grammar has (None: it has none);
        callers pass a few constant type sets, so one query per set is kept."""
        if types not in self._node_queries:
            present = sorted(t for t in types if self.language.id_for_node_kind(t, True))
            query = ts.Query(self.language, "[" + " ".join(f"({t})" for t in present) + "] @node") if present else None
            self._node_queries[types] = query
        return self._node_queries[types]

    @cached_property
    def dependencies(self) -> QueryDependencies:
        return query_dependencies(self.query_source)


# the registry: every language the index parses
GRAMMARS: dict[str, Grammar] = {
    name: Grammar(name, module, function, _QUERY_FILE[name]) for name, (module, function) in _GRAMMARS.items()
}


def syntax_for(language: str) -> Syntax | None:
    """The tables of `language` (an indexer name or an LSP language id, any case); None: not parsed."""
    key = (language or "").lower()
    grammar = GRAMMARS.get(language_for_id(key) or key)
    return grammar.syntax if grammar is not None else None


_local = threading.local()


def get_parser(lang: str) -> ts.Parser:
    """This thread's parser for `lang` (created on first use)."""
    parsers = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = _local.parsers = {}
    parser = parsers.get(lang)
    if parser is None:
        parser = parsers[lang] = ts.Parser(GRAMMARS[lang].language)
    return parser


_READ_BYTES = 65536  # what the parser is handed at a time when it parses under a budget
BOUNDED_PARSE_BYTES = 32768  # smaller sources parse in a few milliseconds: no budget is watched


def parse(lang: str, source: bytes, old_tree: Tree | None = None) -> Tree:
    """Parse `source`; with `old_tree` (already `edit`ed to match `source`) the parse is incremental.
    Under a `work_budget.limit` the parse is abandoned (`BudgetExceeded`) once the budget is spent."""
    parser = get_parser(lang)
    watch = work_budget.Watch()
    if watch.callback is None or len(source) < BOUNDED_PARSE_BYTES:
        return parser.parse(source) if old_tree is None else parser.parse(source, old_tree)
    read = _Reader(source)  # tree-sitter watches progress only when it reads through a callable
    try:
        if old_tree is None:
            return parser.parse(read, progress_callback=watch.callback)
        return parser.parse(read, old_tree, progress_callback=watch.callback)
    except ValueError:  # "Parsing failed": cancelled by the callback
        parser.reset()  # the next parse starts afresh, not from where this one stopped
        watch.raise_if_stopped()
        raise
    finally:
        read.source = b""  # py-tree-sitter 0.26.1 keeps the callable: it must not keep the source


class _Reader:
    __slots__ = ("source",)

    def __init__(self, source: bytes) -> None:
        self.source = source

    def __call__(self, offset: int, _point: Point) -> bytes:
        return self.source[offset:offset + _READ_BYTES]


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


def nodes_of_types(lang: str, node: Node, types: frozenset[str], byte_range: tuple[int, int]) -> list[Node]:
    """Named nodes under `node` whose type is one of `types` (those the grammar lacks are
    ignored) and that intersect `byte_range`, in document order (the query's own order is not
    quite that); one C-level traversal."""
    query = GRAMMARS[lang].node_types_query(types)
    if query is None:
        return []
    cursor = ts.QueryCursor(query)
    cursor.set_byte_range(byte_range[0], byte_range[1])
    found = _captures(cursor, node).get("node", [])
    return sorted(found, key=lambda n: n.start_byte) if len(found) > 1 else found


MAX_ERROR_CHILDREN = 4096  # a node with syntax errors and more children makes queries quadratic


def _captures(cursor: ts.QueryCursor, node: Node) -> dict[str, list[Node]]:
    """`cursor.captures(node)`; under a work budget, `BudgetExceeded` at once when the budget is
    spent or when `node` holds errors with more than `MAX_ERROR_CHILDREN` children (a query's time
    grows with the square of their number there: 100,000 `(` take 30 s). Query progress callbacks
    are not used: py-tree-sitter 0.26.1 crashes in them on queries with predicates."""
    if work_budget.current() is not None:
        work_budget.check()
        if node.has_error and node.child_count > MAX_ERROR_CHILDREN:
            raise work_budget.BudgetExceeded
    return cursor.captures(node)


def query_source(lang: str) -> str:
    """The text of the language's tags query, `queries/<lang>-tags.scm`."""
    return GRAMMARS[lang].query_source


def tag_captures(
    lang: str, tree: Tree, byte_range: tuple[int, int] | None = None
) -> dict[str, list[tuple[int, int]]]:
    """Captures of the tags query on `tree` as plain data: capture name -> (start_byte, end_byte)
    of each captured node. Captures named `_*` (predicate helpers) are dropped. Order is mostly,
    but not always, document order, and a node matched by several patterns may appear more than
    once: callers sort and deduplicate what they need ordered. Zero-width nodes (inserted by
    error recovery) are left out. With `byte_range`, only captures of nodes intersecting it are
    returned (those inside it are all returned)."""
    cursor = ts.QueryCursor(GRAMMARS[lang].tags_query)
    if byte_range is not None:
        cursor.set_byte_range(byte_range[0], byte_range[1])
    out: dict[str, list[tuple[int, int]]] = {}
    for name, nodes in _captures(cursor, tree.root_node).items():
        if not name.startswith("_"):
            spans = [n.byte_range for n in nodes]
            out[name] = [s for s in spans if s[1] > s[0]]  # zero-width (missing) nodes carry no text
    return out


_UNSPLITTABLE = ("string", "comment", "template", "regex", "char", "literal", "heredoc")
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$") | frozenset(range(0x80, 0x100))
Chunk = tuple[int, int, tuple]


def captured_types(lang: str) -> QueryDependencies:
    """What the tags query of `lang` can depend on (`query_dependencies.query_dependencies`)."""
    return GRAMMARS[lang].dependencies


SPLIT_SHAPE_DEPTH = 2  # levels of a split child's shape in its parent's signature (patterns nest ~3 deep)


def _shape(node, depth: int) -> tuple:
    """(field, type, shape below) of `node`'s children, `depth` levels down."""
    if depth == 0:
        return ()
    children = node.children
    return tuple((node.field_name_for_child(i), child.type, _shape(child, depth - 1))
                 for i, child in enumerate(children))


def _field_names(node: Node, count: int) -> list[str | None]:
    """The field name of each of `node`'s `count` children, in one walk (asking the node for
    each child's field costs time proportional to the child's index)."""
    cursor = node.walk()
    fields: list[str | None] = []
    if cursor.goto_first_child():
        fields.append(cursor.field_name)
        while cursor.goto_next_sibling():
            fields.append(cursor.field_name)
    return fields if len(fields) == count else [node.field_name_for_child(i) for i in range(count)]


def partition(lang: str, tree: Tree, source: bytes, max_bytes: int) -> tuple[list[Chunk], list[Chunk]]:
    """Split a file into chunks for incremental tagging.

    Returns (leaves, splits). Leaves tile the file: consecutive byte ranges from 0 to the end,
    each a run of sibling nodes (with the text around them) of at most `max_bytes` where
    possible; a node larger than that is split into its children (recursively) and listed in
    splits, unless it is a string, comment or similar token, or splitting it would cut a word.
    Each leaf carries a context: the types of its last four ancestors (with the shape of all
    children for sibling-sensitive ones) and the (field, type) of each node in it, plus the
    node's whole shape when it contains a syntax error, so equal text in an equal context yields
    equal captures. No boundary falls
    between two word characters. Only split nodes the query could capture are listed, each with
    a signature: its type, ancestors, and the (field, type, text hash of unsplit children, or
    the shape `SPLIT_SHAPE_DEPTH` levels down of split ones that a pattern capturing the node
    looks into) of its children, so equal signatures give equal captures on the node.
    """
    root = tree.root_node
    size = len(source)
    types, wildcard_parents, sensitive, constrained = captured_types(_QUERY_FILE[lang])
    if size <= max_bytes or root.child_count == 0:
        return [(0, size, (root.type, str(root) if root.has_error else None))], []
    leaves: list[Chunk] = []
    splits: list[Chunk] = []

    def glued(boundary: int) -> bool:
        return 0 < boundary < size and source[boundary - 1] in _WORD_BYTES and source[boundary] in _WORD_BYTES

    def visit(node, lo: int, hi: int, chain: tuple, capturable: bool) -> None:
        pos = lo
        signature: list[tuple] = []
        node_signature: list[tuple] = []
        # linear in the tree's size, so not cut by the budget (the chunks' queries are); a node
        # whose queries would take quadratic time ends it, under a budget
        if node.has_error and node.child_count > MAX_ERROR_CHILDREN and work_budget.current() is not None:
            raise work_budget.BudgetExceeded  # its queries would take quadratic time: see `_captures`
        children = node.children
        fields = _field_names(node, len(children))
        if node.type in sensitive:  # leaves below depend on the shape of all the children
            chain = chain[:-1] + ((node.type, tuple(zip(fields, (c.type for c in children)))),)
        for i, child in enumerate(children):
            start, end = child.start_byte, child.end_byte
            field = fields[i]
            if (end - start > max_bytes and child.child_count > 0
                    and not any(marker in child.type for marker in _UNSPLITTABLE)
                    and not glued(start) and not glued(end)):
                if start > pos:
                    leaves.append((pos, start, (chain, tuple(signature))))
                child_capturable = child.type in types or node.type in wildcard_parents
                visit(child, start, end, (chain + (child.type,))[-4:], child_capturable)
                if capturable:  # a pattern capturing `node` may look into this child: its shape counts
                    patterns_look = constrained.get(node.type, ())
                    looked_into = node.type in wildcard_parents or "*" in patterns_look or field in patterns_look
                    node_signature.append((field, child.type, _shape(child, SPLIT_SHAPE_DEPTH) if looked_into else None))
                pos, signature = end, []
                continue
            # error recovery can parse equal text differently: then the shape is part of the key
            shape = str(child) if child.has_error else None
            if capturable:
                node_signature.append((field, child.type, xxhash.xxh3_64_intdigest(source[start:end]), shape))
            if signature and end - pos > max_bytes and start > pos and not glued(start):
                leaves.append((pos, start, (chain, tuple(signature))))
                pos, signature = start, []
            signature.append((field, child.type, shape))
        if hi > pos:
            leaves.append((pos, hi, (chain, tuple(signature))))
        if capturable and node is not root:
            splits.append((lo, hi, (node.type, chain, tuple(node_signature))))

    visit(root, 0, size, (root.type,), False)
    return leaves, splits
