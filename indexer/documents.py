"""One open buffer: its text and one tree-sitter tree kept current with `tree.edit` + reparse.

Invariants:
- `text` is always the buffer's current content; `source` is `text` encoded as UTF-8 (lone
  surrogates pass through, so byte lengths stay consistent with what was parsed).
- Edits are recorded on the tree immediately (cheap) and the reparse is deferred until `tree()` is
  asked for, so a burst of keystrokes costs one incremental parse.
- After `tree()` returns, the tree equals (as a syntax tree) a full parse of `source` whenever it
  has no syntax errors. With errors, tree-sitter's error recovery can depend on the edit history;
  `settle()` (run when the user pauses) parses such a tree afresh, after which it equals a full
  parse in every case.
- Edit offsets are code-point offsets into the text before that edit; out-of-range offsets are
  clamped, never raised.
- `tree(allow_lag=True)` may return the tree as edited but not reparsed: when the edits since
  the last parse cover at most `SMALL_UNPARSED_BYTES` (what is typed between two pauses), or at
  most `MAX_UNPARSED_BYTES` when the last incremental reparse was slow (`SLOW_PARSE_MS`: an
  unclosed bracket, string or comment makes tree-sitter re-run error recovery over the rest of
  the file at each reparse). Its nodes keep their positions in the current `source`
  (`tree.edit` shifted them) but do not reflect the text in `unparsed` (a byte range of
  `source` that holds every edit since the last parse).
- Work on a buffer is bounded: a parse gets `PARSE_BUDGET_MS`, a tags update `TAG_BUDGET_MS`
  (`indexer.work_budget`; less when the caller's own budget ends sooner). A buffer whose parse
  runs past its own budget, or whose tags update makes no progress within it, is `costly`: it
  has no tree and no tags (text only, like an unsupported language) until its text shrinks to
  less than half the length it had then. A tags update that made progress keeps it (the next
  update resumes: `IncrementalTagger`). So is a buffer whose parse the callers' budgets end
  `MAX_CUT_PARSES` times in a row (requests during fast typing, each too short for it). Outside any caller's budget, `tree()` and `tags()` never
  raise; inside one that ends, `tree()` raises `BudgetExceeded` and `tags()` returns None.
- A buffer whose path is a memory URI (`is_memory_path`: `untitled:`, `vscode-notebook-cell:` and
  every other non-file scheme) exists only in memory: nothing reads or writes a file for it.
"""

from __future__ import annotations

import re
import time
from typing import Protocol

from indexer import languages, work_budget
from indexer.incremental import IncrementalTagger
from indexer.tags import FileTags

ENCODING_ERRORS = "surrogatepass"
SLOW_PARSE_MS = 1.0  # an incremental reparse slower than this may be left off the request path
MAX_UNPARSED_BYTES = 512  # a lagging tree may miss at most this many bytes of edited text
SMALL_UNPARSED_BYTES = 64  # ... and may lag by this many however fast reparses are
PARSE_BUDGET_MS = 150.0  # a buffer that takes longer to parse is `costly`
TAG_BUDGET_MS = 50.0  # one tags update; one that analyses no chunk in this time makes the buffer costly
MAX_CUT_PARSES = 3  # a buffer whose parse callers' budgets end this many times in a row is costly too


# a URI scheme (RFC 3986) of two or more characters: "C:" and other drive letters are paths
_MEMORY_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+:")


def is_memory_path(path: str) -> bool:
    """Whether `path` names a document that lives only in the editor (a non-file URI kept as
    the document's path), so it has no file to read, stat, watch or snapshot."""
    return _MEMORY_URI.match(path) is not None


class TextEditLike(Protocol):
    start: int
    end: int
    text: str


def encode(text: str) -> bytes:
    return text.encode("utf-8", ENCODING_ERRORS)


def _byte_len(text: str) -> int:
    return len(text) if text.isascii() else len(encode(text))


def _point_after(start_point: tuple[int, int], inserted: str) -> tuple[int, int]:
    """The (row, byte column) reached by inserting `inserted` at `start_point`."""
    newlines = inserted.count("\n")
    if not newlines:
        return (start_point[0], start_point[1] + _byte_len(inserted))
    return (start_point[0] + newlines, _byte_len(inserted[inserted.rfind("\n") + 1:]))


def _cover(span: tuple[int, int] | None, start: int, old_end: int, new_end: int) -> tuple[int, int]:
    """The smallest byte range holding `span` (moved by an edit of [start, old_end) into
    [start, new_end)) and the edit's new text."""
    if span is None:
        return (start, new_end)

    def moved(position: int) -> int:
        if position <= start:
            return position
        return position + new_end - old_end if position >= old_end else new_end

    low, high = moved(span[0]), moved(span[1])
    return (min(low, start), max(high, new_end))


class OpenDocument:
    """An open buffer of language `language` (None: text is tracked, nothing is parsed)."""

    __slots__ = ("path", "language", "text", "_source", "_tree", "_dirty", "_settled", "_tagger",
                 "edits_since_parse", "parses", "tagged_source", "last_parse_ms", "_unparsed", "_row_anchor",
                 "costly_length", "_cut_parses", "_edited_rows")

    def __init__(self, path: str, text: str, language: str | None) -> None:
        self.path = path
        self.language = language
        self.text = text
        self._source: bytes | None = None
        self._tree: languages.Tree | None = None
        self._dirty = True
        self._settled = True
        self._tagger = IncrementalTagger(language) if language is not None else None
        self.edits_since_parse = 0
        self.parses = 0
        self.tagged_source: bytes | None = None  # the source the last `tags()` were made from
        self.last_parse_ms = 0.0  # how long the last incremental reparse took
        self._unparsed: tuple[int, int] | None = None  # bytes edited since the last parse
        self._row_anchor = (0, 0)  # (offset, row) of a line start of `text`: rows count from there
        self.costly_length: int | None = None  # len(text) when the buffer was found `costly`
        self._cut_parses = 0  # parses in a row that callers' budgets ended (see `MAX_CUT_PARSES`)
        self._edited_rows: tuple[int, int] | None = None  # lines the edits since `take_edited_rows` touched

    @property
    def source(self) -> bytes:
        if self._source is None:
            self._source = encode(self.text)
        return self._source

    @property
    def costly(self) -> bool:
        """Whether this buffer is kept as text only, its parse or tags being over budget."""
        return self.costly_length is not None

    def _mark_costly(self) -> None:
        self.costly_length = len(self.text)
        self._tree = None  # what a tree and a tagger hold goes now
        self._unparsed = None
        self._tagger = IncrementalTagger(self.language) if self.language is not None else None
        self.tagged_source = None

    def _text_changed(self) -> None:
        if self.costly_length is not None and 2 * len(self.text) < self.costly_length:
            self.costly_length = None  # small enough to be tried again

    @property
    def dirty(self) -> bool:
        """Whether the text changed since the last parse."""
        return self._dirty

    def apply(self, edit: TextEditLike, result: str | None = None) -> None:
        """Apply one edit to the text and record it on the tree. `result` is the text the edit
        makes, when the caller has it already (then it is not rebuilt)."""
        text = self.text
        size = len(text)
        start = min(max(int(edit.start), 0), size)
        end = min(max(int(edit.end), start), size)
        new = edit.text
        anchor, anchor_row = self._row_anchor
        if anchor > start:
            anchor, anchor_row = 0, 0
        row = anchor_row + text.count("\n", anchor, start)  # typing stays near the last edit
        line_start = text.rfind("\n", 0, start) + 1
        self._row_anchor = (line_start, row)  # the text before `start` is unchanged by the edit
        last_row = row + new.count("\n")
        edited = self._edited_rows
        self._edited_rows = (row, last_row) if edited is None else (min(row, edited[0]), max(last_row, edited[1]))
        if self._tree is not None:
            start_byte = _byte_len(text[:start]) if not text.isascii() else start
            removed = text[start:end]
            old_end_byte = start_byte + _byte_len(removed)
            new_end_byte = start_byte + _byte_len(new)
            start_point = (row, _byte_len(text[line_start:start]))
            old_end_point = _point_after(start_point, removed)
            new_end_point = _point_after(start_point, new)
            languages.edit_tree(
                self._tree, start_byte, old_end_byte, new_end_byte,
                start_point, old_end_point, new_end_point,
            )
            self._unparsed = _cover(self._unparsed, start_byte, old_end_byte, new_end_byte)
        expected = size - (end - start) + len(new)
        self.text = result if result is not None and len(result) == expected else text[:start] + new + text[end:]
        self._source = None
        self._dirty = True
        self.edits_since_parse += 1
        self._text_changed()

    def take_edited_rows(self) -> tuple[int, int] | None:
        """The first and last line (of the text now, approximately where several edits moved
        lines) that the edits since the last call touched, or None; the record starts anew."""
        rows, self._edited_rows = self._edited_rows, None
        return rows

    def lines(self, first: int, last: int) -> str:
        """The text of lines `first`..`last` (inclusive, 0-based), found from the line of the
        last edit (so, typing, by a short search rather than a count over the whole text)."""
        text = self.text
        at, row = self._row_anchor
        while row > first and at > 0:
            at = text.rfind("\n", 0, at - 1) + 1
            row -= 1
        while row < first:
            newline = text.find("\n", at)
            if newline < 0:
                return ""
            at, row = newline + 1, row + 1
        end = at
        for _ in range(last - first + 1):
            newline = text.find("\n", end)
            if newline < 0:
                return text[at:]
            end = newline + 1
        return text[at:end]

    def release(self) -> None:
        """Drop what parsing holds (the tree, the tagger's per-chunk state, the encoded source)
        for a buffer not used for a while; the text stays. The next `tree()` parses afresh and
        the next `tags()` re-tags in full, with the same results."""
        self._tree = None
        self._unparsed = None
        self._source = None
        self._dirty = True
        self._row_anchor = (0, 0)
        self._tagger = IncrementalTagger(self.language) if self.language is not None else None

    def replace(self, text: str) -> None:
        """Replace the whole text (a full sync); the next parse starts from scratch."""
        self.text = text
        self._row_anchor = (0, 0)
        self._source = None
        self._tree = None
        self._unparsed = None
        self._dirty = True
        self._text_changed()

    @property
    def unparsed(self) -> tuple[int, int] | None:
        """The byte range of `source` edited since the tree was last parsed (None: none)."""
        return self._unparsed if self._dirty and self._tree is not None else None

    def lagging(self) -> bool:
        """Whether `tree(allow_lag=True)` would skip the reparse (see the module docstring)."""
        span = self.unparsed
        if span is None:
            return False
        size = span[1] - span[0]
        return size <= SMALL_UNPARSED_BYTES or (self.last_parse_ms >= SLOW_PARSE_MS and size <= MAX_UNPARSED_BYTES)

    def tree(self, allow_lag: bool = False) -> languages.Tree | None:
        """The current tree (reparsing incrementally if edits are pending); None if unparsed.
        With `allow_lag`, a slow-to-reparse tree may come back as edited only (`lagging`)."""
        if self.language is None or self.costly:
            return None
        if allow_lag and self.lagging():
            return self._tree
        if self._dirty or self._tree is None:
            incremental = self._tree is not None
            started = time.perf_counter()
            try:
                tree = self._bounded(PARSE_BUDGET_MS, languages.parse, self.language, self.source, self._tree)
            except work_budget.BudgetExceeded:
                self._cut_parses += 1
                if self._cut_parses >= MAX_CUT_PARSES:
                    self._mark_costly()
                raise
            self._cut_parses = 0
            if tree is None:
                return None
            self._tree = tree
            self.last_parse_ms = (time.perf_counter() - started) * 1000 if incremental else 0.0
            self._unparsed = None
            self._dirty = False
            # error recovery can depend on the edit history: such a tree is re-parsed afresh by
            # `settle`, when there is time
            self._settled = not (incremental and languages.has_error(self._tree))
            self.edits_since_parse = 0
            self.parses += 1
        return self._tree

    @property
    def settled(self) -> bool:
        """Whether the tree is known to equal a full parse of the current text."""
        return self._settled and not self._dirty

    def settle(self) -> bool:
        """Parse afresh if the tree came from an incremental parse with syntax errors; returns
        whether it did. Afterwards the tree equals a full parse of the current text."""
        self.tree()
        if self._settled or self.language is None or self.costly:
            return False
        tree = self._bounded(PARSE_BUDGET_MS, languages.parse, self.language, self.source)
        if tree is None:
            return False
        self._tree = tree
        self._settled = True
        self.parses += 1
        return True

    def tags(self) -> FileTags | None:
        """The current tags (equal to `extract_tags` of a full parse), re-analysing only the
        chunks that changed since the previous call; None if unparsed."""
        try:
            tree = self.tree()
        except work_budget.BudgetExceeded:
            return None
        if tree is None or self._tagger is None:
            return None
        source = self.source
        tagger = self._tagger
        try:
            tags = self._bounded(TAG_BUDGET_MS, tagger.tags, tree, source, progress=lambda: tagger.progressed)
        except work_budget.BudgetExceeded:
            return None
        if tags is not None:
            self.tagged_source = source
        return tags

    def _bounded(self, ms: float, work, *args, progress=lambda: False):
        """`work(*args)` within `ms` of this buffer's own budget. Past it: None, and the buffer is
        `costly` unless `progress()` says the work got somewhere. Past the caller's budget:
        `BudgetExceeded`, the buffer unchanged."""
        outer = work_budget.current()
        try:
            with work_budget.limit(ms):
                return work(*args)
        except work_budget.BudgetExceeded:
            if outer is not None and outer.expired():
                raise
            if not progress():
                self._mark_costly()
            return None
