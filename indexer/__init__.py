"""arbor-ls indexer: tree-sitter trees per buffer, tags, fingerprints and a cross-file symbol graph.

Public API (stable names; see each module's docstring for invariants):
- languages: `language_for_path(path)`, `language_for_id(language_id, path)`, `parse(lang, source,
  old_tree=None)`, `get_parser(lang)`, `LANGUAGES`.
- tags: `extract_tags(lang, tree, source) -> FileTags` with `Definition`, `Reference`, `Import`.
- fingerprint: `semantic_fingerprint(definitions, imports, identifiers) -> str`.
"""

from indexer.fingerprint import semantic_fingerprint
from indexer.languages import LANGUAGES, get_parser, language_for_id, language_for_path, parse
from indexer.tags import Definition, FileTags, Import, Reference, extract_tags

__all__ = [
    "LANGUAGES",
    "Definition",
    "FileTags",
    "Import",
    "Reference",
    "extract_tags",
    "get_parser",
    "language_for_id",
    "language_for_path",
    "parse",
    "semantic_fingerprint",
]
