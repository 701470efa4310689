"""`build_context`: cursor -> `PromptParts` (prefix and suffix windows plus ranked snippets).

Pure: equal inputs give equal output. Steps:
1. the FIM windows get their guaranteed shares of the budget (whole lines, cursor line first,
   far bounds on groups of `WINDOW_QUANTUM` lines, so that typing rarely moves them);
2. the scope ladder and the definitions referenced near the cursor become candidates
   (`pruning.candidates`), and the packer fills the rest of the budget by value per token,
   counting each file block's header once (a cut prefix window counts as its whole share);
3. what the snippets leave unused flows back to the prefix window in steps of `FLOW_BACK_STEP`
   tokens, then, once the whole prefix is shown, to the suffix window;
4. layout is stable-first: other files' snippets ordered by path then line, then this file's own
   snippets by line, then the prefix/suffix.
Invariant: `tokens <= budget` with `tokens` = the windows' tokens + the snippets' tokens + one
header per file block, all counted with the same tokenizer.
"""

from __future__ import annotations

import heapq
import os
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any

import xxhash

from indexer import languages
from inference.api import CompletionRequest, ContextSnippet

from .budget import DEFAULT_TOKENIZER, BudgetShares, Tokenizer, prefix_window, suffix_window
from .candidates import Piece, ladder_pieces, local_definitions, prepare_file_uses, reference_pieces, warm_references
from .lookup import IndexLookup, encode
from .references import names_near_cursor
from .scopes import scope_chain
from .semantic_key import semantic_key
from .syntax import syntax_for

# Line group of the windows' far bounds (see `pruning.budget`): typing moves the prefix window's
# start once per this many lines typed, and a window is at most this many lines short of full.
WINDOW_QUANTUM = 8
# Tokens: the budget that snippets leave to the prefix window is rounded down to a multiple of this.
FLOW_BACK_STEP = 64


@dataclass(frozen=True, slots=True)
class SnippetInfo:
    path: str
    symbol: str
    kind: str
    start_line: int
    end_line: int
    tokens: int
    reason: str
    text: str


@dataclass(slots=True)
class PromptParts:
    prefix: str
    suffix: str
    path: str = ""
    language: str = ""
    snippets: list[SnippetInfo] = field(default_factory=list)
    tokens: int = 0
    budget: int = 0
    depends_on: tuple[tuple[str, str], ...] = ()
    semantic_key: str = ""

    def to_request(self, **sampling: Any) -> CompletionRequest:
        """One `ContextSnippet` per file block: consecutive snippets of a path are joined."""
        blocks: list[ContextSnippet] = []
        for snippet in self.snippets:
            if blocks and blocks[-1].path == snippet.path:
                blocks[-1] = ContextSnippet(snippet.path, blocks[-1].text + snippet.text)
            else:
                blocks.append(ContextSnippet(snippet.path, snippet.text))
        return CompletionRequest(prefix=self.prefix, suffix=self.suffix, path=self.path, language=self.language,
                                 snippets=tuple(blocks), depends_on=self.depends_on,
                                 semantic_key=self.semantic_key, **sampling)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for snippet in data["snippets"]:
            snippet.pop("text")
        return data


def build_context(path: str, text: str, offset: int, *, language: str = "", budget_tokens: int = 1024,
                  prefix_share: float = 0.45, suffix_share: float = 0.15, index: Any = None,
                  tokenizer: Tokenizer | None = None, tree: Any = None,
                  workspace_root: str | None = None) -> PromptParts:
    """The context for a completion at code-point `offset` of `text` (the file at `path`).

    `index` is the workspace index (or None: windows and this file's own ladder only); `tree` is
    the buffer's current tree if the caller has one (else the index's, else a fresh parse).
    """
    tok = tokenizer or DEFAULT_TOKENIZER
    count = tok.count
    shares = BudgetShares(prefix_share, suffix_share)
    offset = max(0, min(offset, len(text)))
    prefix_text, suffix_text = text[:offset], text[offset:]
    prefix_budget = int(budget_tokens * shares.prefix)
    suffix_budget = int(budget_tokens * shares.suffix)
    cursor_line = prefix_text.count("\n")
    pre = prefix_window(prefix_text, prefix_budget, tok, lines=cursor_line, quantum=WINDOW_QUANTUM)
    suf = suffix_window(suffix_text, suffix_budget, tok, quantum=WINDOW_QUANTUM)
    visible = (pre.start_line, cursor_line + suf.text.count("\n"))
    root_path = workspace_root if workspace_root is not None else getattr(index, "root", None)

    syntax = syntax_for(language) or syntax_for(languages.language_for_path(path) or "")
    pieces: list[Piece] = []
    scope_tokens: bytes = b""
    lookup: IndexLookup | None = None
    source = encode(text)
    if syntax is not None and syntax.name in languages.LANGUAGES:
        byte_offset = offset if len(source) == len(text) else len(prefix_text.encode("utf-8", "surrogatepass"))
        unparsed = None
        if tree is None:
            tree, unparsed = _index_tree(index, path, source)
        if tree is None:
            tree = languages.parse(syntax.name, source)
        root = tree.root_node
        scopes = scope_chain(root, source, byte_offset, syntax)
        uses = names_near_cursor(root, source, byte_offset, scopes, language=syntax.name, unparsed=unparsed,
                                 cursor_line=cursor_line)
        lookup = IndexLookup(index, path)
        pieces = ladder_pieces(root, source, path, syntax, scopes, uses, visible)
        pieces += reference_pieces(uses, lookup, local_definitions(root, syntax, source), root, source, path,
                                   syntax, visible)
        scope_tokens = _scope_signature(scopes, source, byte_offset)
        fingerprints = {p.path: lookup.fingerprint(p.path) for p in pieces if not p.current}
    else:
        fingerprints = {}

    display = {p.path: _display(p.path, root_path) for p in pieces}
    display[path] = _display(path, root_path)
    # A cut prefix window reserves its whole share, so that what is typed at the cursor does not
    # shrink the snippets' budget keystroke by keystroke.
    reserved = prefix_budget if pre.start_line > 0 else pre.tokens
    chosen = _pack(pieces, budget_tokens - reserved - suf.tokens, display, count)

    def total() -> int:
        return pre.tokens + suf.tokens + sum(t for _, t in chosen) + _headers(chosen, display, count)

    if budget_tokens - total() > 0 and pre.text != prefix_text:
        # what flows back is counted in steps, so that small changes in the snippets' size (the
        # enclosing scope's own text grows as it is typed) leave the window's start where it was
        grown = max(0, pre.tokens + budget_tokens - total() - reserved)
        pre = prefix_window(prefix_text, reserved + grown - grown % FLOW_BACK_STEP, tok, lines=cursor_line,
                            quantum=WINDOW_QUANTUM)
    # the suffix grows only when the whole prefix is shown: a quantised prefix window's slack would
    # otherwise move the suffix's end with every keystroke
    if budget_tokens - total() > 0 and suf.text != suffix_text and pre.text == prefix_text:
        suf = suffix_window(suffix_text, suf.tokens + budget_tokens - total(), tok, quantum=WINDOW_QUANTUM)
    visible = (pre.start_line, cursor_line + suf.text.count("\n"))
    chosen = [(p, t) for p, t in chosen if not (p.current and visible[0] <= p.start_line and p.end_line <= visible[1])]
    chosen = _drop_repeated_headers(sorted(chosen, key=lambda c: _layout_key(c[0], display)), count)
    used = total()
    snippets = _layout(chosen, display, path)
    own = (lookup.fingerprint(path) if lookup is not None else "") or xxhash.xxh3_64_hexdigest(source)
    depends = {display[path]: own}
    for piece, _ in chosen:
        if not piece.current:
            depends[display[piece.path]] = fingerprints.get(piece.path) or ""
    key = semantic_key(language or (syntax.name if syntax else ""), scope_tokens, prefix_text, suffix_text,
                       [(s.path, s.text) for s in snippets])
    return PromptParts(prefix=pre.text, suffix=suf.text, path=display[path], language=language, snippets=snippets,
                       tokens=used, budget=budget_tokens, depends_on=tuple(sorted(depends.items())),
                       semantic_key=key)


def prepare(index: Any, path: str) -> None:
    """Precompute what the next `build_context` in `path` needs from the index alone (the
    imported names it uses most; the definitions, and their renderings, of the names its last
    context resolved), e.g. right after a file was re-indexed, so that work is not on the
    keystroke-to-completion path. Has no effect on the context's content."""
    if index is not None:
        lookup = IndexLookup(index, path)
        prepare_file_uses(lookup)
        warm_references(lookup)


def _index_tree(index: Any, path: str, source: bytes) -> tuple[Any, tuple[int, int] | None]:
    """The index's current tree for `path` when it is an open buffer holding exactly `source`
    (else None), and the byte range of `source` the tree does not reflect yet. The tree may lag
    only where the index's owner promises to catch up soon (`pending_lag_s` > 0: the server
    reparses a lagging buffer right after answering); one-shot callers always get a fresh tree."""
    if index is None or not index.is_open(path):
        return None, None
    allow_lag = index.pending_lag_s > 0
    held = index.current_tree(path, allow_lag=allow_lag)
    if held is None or held[1] != source:
        return None, None
    return held[0], index.unparsed(path) if allow_lag else None


@lru_cache(maxsize=4096)
def _display(path: str, root: str | None) -> str:
    """Workspace-relative, '/'-separated path for prompts and reports."""
    if root and os.path.isabs(path):
        try:
            relative = os.path.relpath(path, root)
        except ValueError:
            return path.replace(os.sep, "/")
        if not relative.startswith(".."):
            return relative.replace(os.sep, "/")
    return path.replace(os.sep, "/")


def _header_cost(display_path: str, count) -> int:
    return count(display_path) + 3  # file separator token, newline, blank line between blocks


def _pack(pieces: list[Piece], budget: int, display: dict[str, str], count) -> list[tuple[Piece, int]]:
    """Greedy by value per token over snippets and their upgrades; no overlaps.

    A heap holds every compact piece keyed by value per token; when one is taken, its fuller
    rendering enters the heap keyed by its marginal value per marginal token, so an upgrade
    competes with the remaining compact pieces. A file's header is paid by its first snippet.
    Ties break on (path, line, symbol, kind): the result is deterministic.
    """
    heap: list[tuple] = []
    for index, piece in enumerate(pieces):
        tokens = count(piece.text)
        if piece.value > 0 and tokens > 0:
            heapq.heappush(heap, (-piece.value / tokens, -piece.value, _order(piece, display), index, -1, tokens, piece))
    chosen: list[tuple[Piece, int]] = []
    paths: set[str] = set()
    left = budget
    while heap:
        _, _, _, index, slot, tokens, piece = heapq.heappop(heap)
        if slot >= 0:  # an upgrade of chosen[slot]: `tokens` is the marginal cost
            if tokens <= left:
                chosen[slot] = (piece, chosen[slot][1] + tokens)
                left -= tokens
            continue
        if any(_covers(other, piece) or _covers(piece, other) for other, _ in chosen):
            continue
        cost = tokens + (0 if piece.path in paths else _header_cost(display[piece.path], count))
        if cost > left:
            continue
        chosen.append((piece, tokens))
        paths.add(piece.path)
        left -= cost
        upgrade = piece.upgrade
        if upgrade is not None:
            extra = count(upgrade.text) - tokens
            gain = upgrade.value - piece.value
            if extra > 0 and gain > 0:
                heapq.heappush(heap, (-gain / extra, -gain, _order(upgrade, display), index, len(chosen) - 1,
                                      extra, upgrade))
    return chosen


def _order(piece: Piece, display: dict[str, str]) -> tuple:
    return (display[piece.path], piece.start_line, piece.symbol, piece.kind)


def _covers(outer: Piece, inner: Piece) -> bool:
    """Whether `outer` already shows `inner` (same file, its lines inside, a fuller form)."""
    if outer.path != inner.path or outer.kind in ("imports", "outline") or inner.kind in ("imports", "outline"):
        return outer.path == inner.path and outer.symbol == inner.symbol and outer.kind == inner.kind
    inside = outer.start_line <= inner.start_line and inner.end_line <= outer.end_line
    return inside and (outer.form in ("full", "skeleton") or outer.symbol == inner.symbol)


def _headers(chosen: list[tuple[Piece, int]], display: dict[str, str], count) -> int:
    return sum(_header_cost(display[p], count) for p in {piece.path for piece, _ in chosen})


def _layout_key(piece: Piece, display: dict[str, str]) -> tuple:
    return (piece.current, display[piece.path], piece.start_line, piece.symbol)


def _drop_repeated_headers(ordered: list[tuple[Piece, int]], count) -> list[tuple[Piece, int]]:
    """In layout order, a snippet that starts with the same container header line as an earlier
    snippet of the same file run loses that line: `class Order:` is shown once above its members."""
    out: list[tuple[Piece, int]] = []
    last_header = ("", "")
    for piece, tokens in ordered:
        header, _, rest = piece.text.partition("\n")
        is_header = header.rstrip().endswith((":", "{")) and not header[:1].isspace() and rest.strip()
        if is_header and last_header == (piece.path, header):
            piece = piece._replace(text=rest, upgrade=None)
            tokens = count(rest)
        elif is_header:
            last_header = (piece.path, header)
        else:
            last_header = (piece.path, "") if last_header[0] != piece.path else last_header
        out.append((piece, tokens))
    return out


def _layout(chosen: list[tuple[Piece, int]], display: dict[str, str], path: str) -> list[SnippetInfo]:
    """Other files by path then line, then the current file's snippets by line."""
    ordered = sorted(chosen, key=lambda c: _layout_key(c[0], display))
    return [
        SnippetInfo(path=display[piece.path], symbol=piece.symbol, kind=piece.kind,
                    start_line=piece.start_line + 1, end_line=piece.end_line + 1, tokens=tokens,
                    reason=piece.reason, text=piece.text)
        for piece, tokens in ordered
    ]


def _scope_signature(scopes, source: bytes, offset: int) -> bytes:
    """The enclosing scope's text up to the cursor (the semantic key normalises it)."""
    if not scopes:
        start = source.rfind(b"\n", 0, max(0, offset - 1)) + 1
        return source[start:offset]
    innermost = scopes[0]
    return source[innermost.outer.start_byte:offset]
