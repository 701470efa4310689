"""arbor-ls indexer: tree-sitter trees per buffer, tags, fingerprints and a cross-file symbol graph.

Public API (stable names; see each module's docstring for invariants):
- languages: `language_for_path(path)`, `language_for_id(language_id, path)`, `parse(lang, source,
  old_tree=None)`, `get_parser(lang)`, `LANGUAGES`.
- tags: `extract_tags(lang, tree, source) -> FileTags` with `Definition`, `Reference`, `Import`.
- fingerprint: `semantic_fingerprint(definitions, imports, identifiers) -> str`.
- graph: `SymbolGraph` (`definitions_of`, `dependents`, `imports_of`, `out_edges`,
  `fingerprint`, `tags`, `files`).
- workspace_index: `WorkspaceIndex` (the object the server holds; a document listener;
  `snapshot_for(path)`, `buffer_tree(path, source)`, `pending_lag_s`).
- snapshot: `IndexSnapshot` (one immutable version: `entries`, `entry`, `source`,
  `definitions_of`, `imports_of`, `out_edges`, `fingerprint`, `derived`).
- entry: `FileEntry` (one file's tags and source; derived values as lazy attributes).
- workspace: `ScanOptions`, `ScanReport`.
"""

from indexer.entry import FileEntry
from indexer.fingerprint import semantic_fingerprint
from indexer.graph import FileUpdate, SymbolGraph
from indexer.languages import LANGUAGES, get_parser, language_for_id, language_for_path, parse
from indexer.references import Reference, References
from indexer.snapshot import IndexSnapshot
from indexer.tags import Definition, FileTags, Import, extract_tags
from indexer.workspace import ScanOptions, ScanReport, Skipped
from indexer.workspace_index import FlushStats, WorkspaceIndex

__all__ = [
    "LANGUAGES",
    "Definition",
    "FileEntry",
    "FileTags",
    "FileUpdate",
    "FlushStats",
    "Import",
    "IndexSnapshot",
    "Reference",
    "References",
    "ScanOptions",
    "ScanReport",
    "Skipped",
    "SymbolGraph",
    "WorkspaceIndex",
    "extract_tags",
    "get_parser",
    "language_for_id",
    "language_for_path",
    "parse",
    "semantic_fingerprint",
]
