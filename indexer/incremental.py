"""Incremental tags for an open buffer: only the chunks an edit touched are analysed again.

The buffer is partitioned into chunks (`languages.partition`: runs of sibling nodes of at most
`max_chunk_bytes`, splitting larger nodes into their children). A chunk's analysis
(`tag_chunks.analyze_chunk`) depends only on its text and its syntactic context, so it is cached
under (hash of its bytes, length, context) and reused wherever the chunk moves. After an edit,
usually one chunk misses: the tags query runs over that chunk's byte range only. Split nodes
that the query can capture (a class split into its members) keep the names of their captures
under a signature of their type, context and unsplit children's text, so editing inside a
member does not re-query the class; a changed signature queries the node's whole range. `tags.assemble`
then builds the file's tags from the chunk analyses, exactly as `extract_tags` does for a whole
file, so both give equal `FileTags` for equal text.

The cache keeps the analyses used by the last two assemblies (an edit and its undo both hit).
A call abandoned for its work budget (`work_budget.BudgetExceeded`, raised on) keeps the chunk
analyses it finished and the partition of the source it was given, so the next call on the same
source resumes where it stopped; `progressed` says whether the last call got anywhere (partitioned
a new source or analysed a chunk).
"""

from __future__ import annotations

import xxhash

from indexer import languages
from indexer.work_budget import BudgetExceeded
from indexer.tag_chunks import ChunkAnalysis, analyze_chunk, identifier_references
from indexer.tags import FileTags, assemble

MAX_CHUNK_BYTES = 2048


class IncrementalTagger:
    """Tags of successive versions of one buffer, re-analysing only changed chunks."""

    def __init__(self, lang: str, max_chunk_bytes: int = MAX_CHUNK_BYTES) -> None:
        self.lang = lang
        self.max_chunk_bytes = max_chunk_bytes
        self._current: dict[tuple, ChunkAnalysis] = {}
        self._previous: dict[tuple, ChunkAnalysis] = {}
        self._identifiers: dict[tuple, list] = {}
        self._splits: dict[tuple, tuple[str, ...]] = {}
        self.last_misses = 0
        self.last_chunks = 0
        self.last_analysed = 0
        self.progressed = False
        self._partition: tuple[bytes, list, list] | None = None  # (source, leaves, splits)

    def tags(self, tree: languages.Tree, source: bytes) -> FileTags:
        self.progressed = False
        if self._partition is not None and self._partition[0] is source:
            _, leaves, splits = self._partition
        else:
            leaves, splits = languages.partition(self.lang, tree, source, self.max_chunk_bytes)
            self._partition = (source, leaves, splits)
            self.progressed = True
        used: dict[tuple, ChunkAnalysis] = {}
        parts: list[tuple[int, ChunkAnalysis]] = []
        keys: dict[int, tuple] = {}
        misses = 0
        analysed: dict[tuple, ChunkAnalysis] = {}
        self.last_analysed = 0
        try:
            for start, end, context in leaves:
                key = (xxhash.xxh3_64_intdigest(source[start:end]), end - start, context)
                analysis = used.get(key) or self._current.get(key) or self._previous.get(key)
                if analysis is None:
                    misses += 1
                    if start == 0 and end >= len(source):
                        caps = languages.tag_captures(self.lang, tree)
                    else:
                        caps = languages.tag_captures(self.lang, tree, (start, end))
                    analysis = analysed[key] = analyze_chunk(caps, source, start, end)
                used[key] = analysis
                parts.append((start, analysis))
                keys[start] = key
            extra: dict[str, list[tuple[int, int]]] = {}
            used_splits: dict[tuple, tuple[str, ...]] = {}
            for start, end, signature in splits:
                names = self._splits.get(signature)
                if names is None:
                    caps = languages.tag_captures(self.lang, tree, (start, end))
                    names = tuple(sorted(name for name, spans in caps.items() if (start, end) in spans))
                used_splits[signature] = names
                for name in names:
                    extra.setdefault(name, []).append((start, end))
        except BudgetExceeded:
            self._current = {**self._current, **analysed}  # the next call resumes from here
            self.last_analysed = len(analysed)
            self.progressed = self.progressed or bool(analysed)
            raise
        identifiers: dict[tuple, list] = {}

        def identifier_refs(offset: int, analysis: ChunkAnalysis, names: tuple[bytes, ...]) -> list:
            key = (keys[offset], names)
            found = identifiers.get(key)
            if found is None:
                found = self._identifiers.get(key)
                if found is None:
                    found = identifier_references(analysis, source[offset:offset + analysis.length], names)
                identifiers[key] = found
            return found

        result = assemble(self.lang, source, parts, extra, identifier_refs)
        self._previous, self._current = self._current, used
        self._identifiers = identifiers
        self._splits = used_splits
        self.last_misses, self.last_chunks, self.last_analysed = misses, len(leaves), len(analysed)
        self.progressed = True
        self._partition = None  # the next call has another source
        return result
