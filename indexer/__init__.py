"""arbor-ls indexer: tree-sitter trees per buffer, tags, fingerprints and a cross-file symbol graph.

Public API (stable names; see each module's docstring for invariants):
- languages: `language_for_path(path)`, `language_for_id(language_id, path)`, `parse(lang, source,
  old_tree=None)`, `get_parser(lang)`, `nodes_of_types(lang, node, types, byte_range)`, `LANGUAGES`,
  `GRAMMARS` (the registry), `syntax_for(language) -> Syntax | None`.
- syntax: `Syntax` (one language's node-type tables and builtin names), and node types shared
  across grammars: `IDENTIFIER_NODES`, `CALL_NODES`, `MEMBER_ACCESS_FIELDS`, `TYPE_CONTEXT_NODES`,
  `FIELD_MEMBER_NODES`, `DECLARATION_NODES`; `RECEIVER_WORDS`, `TEXT_KEYWORDS`.
- tags: `extract_tags(lang, tree, source) -> FileTags` with `Definition`, `Reference`, `Import`.
- fingerprint: `semantic_fingerprint(definitions, imports, identifiers) -> str`.
- graph: `SymbolGraph` (`definitions_of`, `dependents`, `imports_of`, `out_edges`,
  `fingerprint`, `tags`, `files`).
- workspace_index: `WorkspaceIndex` (the object the server holds; a document listener;
  `snapshot_for(path)`, `buffer_tree(path, source)`, `pending_lag_s`, `worked_at(path, line)`).
- snapshot: `IndexSnapshot` (one immutable version: `entries`, `entry`, `source`,
  `definitions_of`, `imports_of`, `out_edges`, `fingerprint`, `derived`, and the `RecentRegion`s
  of `recent_edits` and `recent_visits`).
- entry: `FileEntry` (one file's tags and source; derived values as lazy attributes).
- workspace: `ScanOptions`, `ScanReport`.
- paths: `workspace_id(path, root)` (a file as named outside the index).
"""

from indexer.definition_order import SAME_PACKAGE_LANGS
from indexer.entry import FileEntry
from indexer.fingerprint import semantic_fingerprint
from indexer.graph import FileUpdate, SymbolGraph
from indexer.languages import (
    GRAMMARS, LANGUAGES, get_parser, language_for_id, language_for_path, nodes_of_types, parse, syntax_for,
)
from indexer.paths import workspace_id
from indexer.references import Reference, References
from indexer.region_ring import RecentRegion
from indexer.snapshot import IndexSnapshot
from indexer.syntax import (
    CALL_NODES, DECLARATION_NODES, FIELD_MEMBER_NODES, IDENTIFIER_NODES, MEMBER_ACCESS_FIELDS, RECEIVER_WORDS,
    TEXT_KEYWORDS, TYPE_CONTEXT_NODES, Syntax,
)
from indexer.tags import Definition, FileTags, Import, extract_tags
from indexer.workspace import ScanOptions, ScanReport, Skipped
from indexer.workspace_index import FlushStats, WorkspaceIndex

__all__ = [
    "CALL_NODES",
    "DECLARATION_NODES",
    "FIELD_MEMBER_NODES",
    "GRAMMARS",
    "IDENTIFIER_NODES",
    "LANGUAGES",
    "MEMBER_ACCESS_FIELDS",
    "RECEIVER_WORDS",
    "SAME_PACKAGE_LANGS",
    "TEXT_KEYWORDS",
    "TYPE_CONTEXT_NODES",
    "Definition",
    "FileEntry",
    "FileTags",
    "FileUpdate",
    "FlushStats",
    "Import",
    "IndexSnapshot",
    "RecentRegion",
    "Reference",
    "References",
    "ScanOptions",
    "ScanReport",
    "Skipped",
    "SymbolGraph",
    "Syntax",
    "WorkspaceIndex",
    "extract_tags",
    "get_parser",
    "language_for_id",
    "language_for_path",
    "nodes_of_types",
    "parse",
    "semantic_fingerprint",
    "syntax_for",
    "workspace_id",
]
