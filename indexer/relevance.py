"""Which files can change a completion in a given file (pure functions of the graph).

A completion in `to` reads the entries of the files `to` imports (directly or through up to
`IMPORT_HOPS` files: lookups follow re-exports that far) and, for Go and Java, of the files of
its directory (one package sees its definitions without imports). An open buffer's pending
edits in any of those files are flushed before such a completion reads the snapshot.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable

from indexer import languages
from indexer.definition_order import SAME_PACKAGE_LANGS
from indexer.graph import SymbolGraph

IMPORT_HOPS = 3


def import_closure(graph: SymbolGraph, path: str, hops: int = IMPORT_HOPS) -> set[str]:
    """Files `path` imports, directly or through up to `hops` files."""
    seen: set[str] = set()
    frontier = [path]
    for _ in range(hops):
        frontier = [t for f in frontier for t in graph.imports_of(f) if t not in seen and t != path]
        seen.update(frontier)
        if not frontier:
            break
    return seen


def matters_to(graph: SymbolGraph, to: str) -> Callable[[str], bool]:
    """A test of whether a file's entry can change a completion in `to` (module docstring)."""
    related = import_closure(graph, to)
    package = posixpath.dirname(to) if languages.language_for_path(to) in SAME_PACKAGE_LANGS else None
    return lambda path: path in related or posixpath.dirname(path) == package


def needed_by_others(graph: SymbolGraph, buffers: list[str]) -> set[str]:
    """The buffers among `buffers` that a completion in another of them would read."""
    needed: set[str] = set()
    for other in buffers:
        matters = matters_to(graph, other)
        needed.update(path for path in buffers if path != other and matters(path))
    return needed
