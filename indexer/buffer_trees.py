"""The open buffers' trees, as `WorkspaceIndex` answers for them (what a context parses from).

A mixin of `WorkspaceIndex` (indexer/workspace_index.py), which owns the state it reads: the open
buffers (`_docs`), the pending edits, the lock, and the disk reader (`_read_bytes`).

Invariants: a tree handed out is of the text its source says; an open buffer's tree lags its
edits only when the caller allows it (`allow_lag`: the server reparses soon after), and
`unparsed` then names the bytes it misses; a file that is not open is parsed from disk afresh.
"""

from __future__ import annotations

from indexer import languages
from indexer.workspace import normalize_path


class BufferTrees:
    """Trees of open buffers and disk files (see the module docstring)."""

    def buffer_tree(self, path: str, source: bytes, allow_lag: bool = False) -> tuple[languages.Tree, tuple[int, int] | None] | None:
        """The current tree of open buffer `path` when it holds exactly `source` (else None), and
        the byte range of `source` that the tree does not reflect yet. The tree may lag only with
        `allow_lag` (see `current_tree`); otherwise it is reparsed first and the range is None."""
        if normalize_path(path) not in self._docs:
            return None
        held = self.current_tree(path, allow_lag=allow_lag)
        if held is None or held[1] != source:
            return None
        return held[0], self.unparsed(path) if allow_lag else None

    def current_tree(self, path: str, allow_lag: bool = False) -> tuple[languages.Tree, bytes] | None:
        """Like `tree`, but an open buffer is only reparsed: re-tagging and re-indexing it are
        left to the next flush. With `allow_lag`, a buffer whose reparses are slow may come back
        edited but not reparsed (`OpenDocument.lagging`; `unparsed(path)` says which bytes its
        tree misses): for callers that, like the server, reparse it soon after."""
        path = normalize_path(path)
        with self._lock:
            doc = self._docs.get(path)
            if doc is not None:
                self._used(path)
                tree = doc.tree(allow_lag)
                return (tree, doc.source) if tree is not None else None
        return self._disk_tree(path)

    def unparsed(self, path: str) -> tuple[int, int] | None:
        """The byte range of open buffer `path` that its current tree does not reflect yet."""
        doc = self._docs.get(normalize_path(path))
        return doc.unparsed if doc is not None else None

    def tree_lags(self, path: str) -> bool:
        """Whether open buffer `path` has edits its tree has not been reparsed for."""
        return self.unparsed(path) is not None

    def tagged_source(self, path: str) -> bytes | None:
        """The bytes the graph's tags of open buffer `path` were extracted from (None when `path`
        is not open or not tagged yet: its tags then come from the file on disk)."""
        doc = self._docs.get(normalize_path(path))
        return doc.tagged_source if doc is not None else None

    def tree(self, path: str) -> tuple[languages.Tree, bytes] | None:
        """The current tree and source of `path` (open buffer or disk file), with the buffer's
        pending edits re-indexed first; None if unsupported."""
        path = normalize_path(path)
        if path in self._pending:
            self.flush(path)
        return self.current_tree(path)

    def _disk_tree(self, path: str) -> tuple[languages.Tree, bytes] | None:
        lang = languages.language_for_path(path)
        data = self._read_bytes(path) if lang is not None else None
        return (languages.parse(lang, data), data) if data is not None else None
