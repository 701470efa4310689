"""`build_context`: cursor -> `PromptParts` (prefix and suffix windows plus ranked snippets).

Pure: equal inputs give equal output. Steps:
1. the FIM windows get their guaranteed shares of the budget (whole lines, cursor line first;
   the suffix window's far bound on groups of `WINDOW_QUANTUM` lines, so that typing does not
   move it); when a window of similar code is offered (`pruning.candidates.yields_prefix`), the
   prefix's share is `WINDOW_PREFIX_SHARE` smaller and the snippets' that much larger;
2. the scope ladder, the definitions referenced near the cursor and the likely next names
   (names from other files that the file uses, `pruning.file_uses`; the enclosing function's
   own name, `pruning.delegation`), code like the cursor's surroundings, the regions of other
   files edited or visited last (`pruning.recent_regions`), other files' imports of names this
   file does not define (`pruning.expected_names`) and the calls of the function at the cursor in
   other files (`pruning.callers`) become candidates (`pruning.candidates`), and the packer
   fills the rest of the budget by value per token, counting each file block's header once (a
   cut prefix window counts as its whole share);
3. the prefix window takes all the snippets and the suffix window leave, from the line the
   buffer's previous prompt started it at (`prefix_start`) while that window is at most
   `HELD_WINDOW_SLACK` of the budget shorter (or, behind held snippets or none, longer), else from the
   line that fills it; once the whole prefix is shown, what is left goes to the suffix window;
4. layout is stable-first: other files' snippets ordered by path then line, then this file's own
   snippets by line, then the prefix/suffix;
5. with `holds` (earlier contexts' `PromptParts.layout` in this buffer), step 2's choice is the
   snippets of the first of them that still holds (`pruning.held_layout`), so the prompt begins
   as that context's did.
Invariant: `tokens` = the windows' tokens + the snippets' tokens + one header per file block, all
counted with the same tokenizer, and `tokens <= budget`, except that behind held snippets (or none) a
prefix window kept from `prefix_start` may run over by up to `HELD_WINDOW_SLACK` of the budget:
the lines typed since it was chosen, the rest of the prompt being in the backend's prefix cache
already (what the budget bounds is what a prompt costs to prefill when nothing of it is cached).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import xxhash

from indexer import LANGUAGES, IndexSnapshot, language_for_path, parse, syntax_for, workspace_id

from .budget import DEFAULT_TOKENIZER, BudgetShares, Tokenizer, prefix_window, prefix_window_from, suffix_window
from .callers import caller_pieces
from .candidates import (WINDOW_PREFIX_SHARE, Piece, local_definitions, reference_pieces, similar_code,
                         warm_references, yields_prefix)
from .code_windows import warm_vocabularies
from .content_memo import ContentMemo
from .delegation import delegate_uses, without_enclosing
from .expected_names import expected_pieces
from .file_uses import prepare_file_uses
from .index_lookup import IndexLookup
from .held_layout import HeldLayout, held_layout, scope_key, still_held
from .ladder import ladder_pieces
from .literal_types import literal_type
from .packing import drop_repeated_headers, headers, layout, layout_key, pack
from .names_near import names_near_cursor
from .prompt import PromptParts
from .recent_regions import recent_pieces
from .scopes import scope_chain
from .semantic_key import semantic_key

# Line group of the suffix window's far bound (see `pruning.budget`).
WINDOW_QUANTUM = 8
# Of the budget: how far a prefix window kept from the previous prompt's start may grow past the
# room a fresh one gets (lines typed since) or fall short of it (the cursor moved up) before the
# window starts afresh. Typing moves the window's start about once per this many tokens typed.
HELD_WINDOW_SLACK = 0.25


class ContextIndex(Protocol):
    """What `build_context` reads of the workspace index (`indexer.WorkspaceIndex` is one)."""

    pending_lag_s: float  # > 0: the owner reparses and re-indexes lagging buffers soon after

    def snapshot_for(self, path: str) -> IndexSnapshot:
        """The snapshot a completion in `path` reads (what it imports flushed into it)."""

    def buffer_tree(self, path: str, source: bytes, allow_lag: bool = False) -> tuple[Any, tuple[int, int] | None] | None:
        """Open buffer `path`'s current tree if it holds exactly `source`, and the byte range
        of `source` the tree does not reflect yet (only with `allow_lag`)."""


def build_context(path: str, text: str, offset: int, *, language: str = "", budget_tokens: int = 1024,
                  prefix_share: float = 0.45, suffix_share: float = 0.15, index: ContextIndex | None = None,
                  tokenizer: Tokenizer | None = None, tree: Any = None,
                  workspace_root: str | None = None, memo: ContentMemo | None = None,
                  syntax_aware: bool = True, holds: Sequence[HeldLayout] = (),
                  keep_layout: bool = True, prefix_start: int | None = None) -> PromptParts:
    """The context for a completion at code-point `offset` of `text` (the file at `path`).

    `index` is the workspace index (or None: windows and this file's own ladder only): the
    context reads `index.snapshot_for(path)` and, for the buffer itself, `text` and its tree
    (`tree` if the caller has one, else the index's when it holds exactly `text`, else a fresh
    parse). The same snapshot and text give the same context. `memo` keeps token counts
    and local declarations between calls (see `pruning.content_memo`); it changes no result.
    `holds`: layouts whose snippets to show again, the first that still holds and leaves one
    snippet room beside the windows; `PromptParts.layout` is the layout used. With
    `keep_layout=False` (nothing will hold this context's layout) a fresh choice of snippets gets
    no layout (`PromptParts.layout` is None): making one copies the buffer's lines.
    `prefix_start`: the line the buffer's shown prompt starts its prefix window at (the held
    layout's own start where one holds); the window starts there again while it fits (see step 3).
    """
    tok = tokenizer or DEFAULT_TOKENIZER
    if memo is not None:
        tok = memo.tokenizer(tok)
    count = tok.count
    shares = BudgetShares(prefix_share, suffix_share)
    offset = max(0, min(offset, len(text)))
    prefix_text, suffix_text = text[:offset], text[offset:]
    cursor_line = prefix_text.count("\n")
    root_path = workspace_root if workspace_root is not None else getattr(index, "root", None)

    # `syntax_aware=False`: the windows alone, no tree (a buffer too large or too costly to parse)
    syntax = (syntax_for(language) or syntax_for(language_for_path(path) or "")) if syntax_aware else None
    pieces: list[Piece] = []
    scope_tokens: bytes = b""
    lookup: IndexLookup | None = None
    lookups: tuple[tuple[str, frozenset[str]], ...] = ()
    scopes_at = scope_key(())
    source = text.encode("utf-8", "surrogatepass")
    parsed = syntax is not None and syntax.name in LANGUAGES
    byte_offset = 0
    similar, query = [], None
    if parsed:
        byte_offset = offset if len(source) == len(text) else len(prefix_text.encode("utf-8", "surrogatepass"))
        lookup = IndexLookup(index.snapshot_for(path) if index is not None else None, path)
        similar, query = similar_code(lookup, source, byte_offset)
    # code like the cursor's surroundings, when some is offered, takes part of the prefix's share
    prefix_budget = int(budget_tokens * (shares.prefix - (WINDOW_PREFIX_SHARE if yields_prefix(similar) else 0.0)))
    suffix_budget = int(budget_tokens * shares.suffix)
    pre = prefix_window(prefix_text, prefix_budget, tok, lines=cursor_line)
    suf = suffix_window(suffix_text, suffix_budget, tok, quantum=WINDOW_QUANTUM)
    visible = (pre.start_line, cursor_line + suf.text.count("\n"))
    if parsed:
        unparsed = None
        if tree is None:
            tree, unparsed = _index_tree(index, path, source)
        if tree is None:
            tree = parse(syntax.name, source)
        root = tree.root_node
        scopes = scope_chain(root, source, byte_offset, syntax)
        uses = names_near_cursor(root, source, byte_offset, scopes, language=syntax.name, unparsed=unparsed,
                                 cursor_line=cursor_line, memo=memo)
        pieces = ladder_pieces(root, source, path, syntax, scopes, uses, visible)
        likely = sorted(uses + delegate_uses(scopes, byte_offset, cursor_line), key=lambda u: u.distance)
        local = without_enclosing(local_definitions(root, syntax, source), scopes)
        referenced, lookups = reference_pieces(likely, lookup, local, root, source, path, syntax, visible, cursor_line,
                                               similar, query, literal_type(root, source, byte_offset))
        pieces += referenced + recent_pieces(lookup) + expected_pieces(lookup, local, text) + caller_pieces(
            lookup, scopes, byte_offset)
        scope_tokens = _scope_signature(scopes, source, byte_offset)
        scopes_at = scope_key(scope.name for scope in scopes)
        fingerprints = {other: lookup.fingerprint(other) for other in {p.path for p in pieces if not p.current}}
    else:
        fingerprints = {}

    # per file, not per piece: a context has hundreds of pieces from a few dozen files
    display = {where: workspace_id(where, root_path) for where in {p.path for p in pieces} | {path}}
    # A cut prefix window reserves its whole share, so that what is typed at the cursor does not
    # shrink the snippets' budget keystroke by keystroke.
    reserved = prefix_budget if pre.start_line > 0 else pre.tokens
    room = budget_tokens - reserved - suf.tokens
    snapshot = lookup.snapshot if lookup is not None else None
    chosen = None
    held_snippets = False
    for hold in holds:
        chosen = still_held(hold, scopes_at, budget_tokens, snapshot, text, pieces)
        for piece, _ in chosen or ():
            if piece.path not in display:
                display[piece.path] = workspace_id(piece.path, root_path)
                fingerprints[piece.path] = lookup.fingerprint(piece.path) if lookup is not None else ""
        if chosen:  # the held snippets that fit, kept from the prompt's beginning (layout order)
            chosen = sorted(chosen, key=lambda c: layout_key(c[0], display))
            while chosen and sum(t for _, t in chosen) + headers(chosen, display, count) > room:
                chosen.pop()
        chosen = chosen or None
        if chosen is not None:
            layout_used = hold if len(chosen) == len(hold.chosen) else held_layout(
                hold.scopes, budget_tokens, chosen, snapshot, text)
            prefix_start = hold.prefix_start if hold.prefix_start is not None else prefix_start
            held_snippets = layout_used is hold  # all of them: the prompt begins as that one did
            break
    if chosen is None:
        chosen = pack(pieces, room, display, count)
        layout_used = held_layout(scopes_at, budget_tokens, chosen, snapshot, text) if keep_layout else None

    def total() -> int:
        return pre.tokens + suf.tokens + sum(t for _, t in chosen) + headers(chosen, display, count)

    # the prefix window gets what the snippets and the suffix window leave (`room_left`); one kept
    # from `prefix_start` may be shorter by the slack, and longer only behind held snippets or
    # none (the prompt's beginning is then the one already cached)
    room_left = pre.tokens + budget_tokens - total()
    slack = int(budget_tokens * HELD_WINDOW_SLACK)
    longest = room_left + slack if held_snippets or not chosen else room_left
    kept = None if prefix_start is None else prefix_window_from(prefix_text, prefix_start, longest, tok,
                                                                lines=cursor_line)
    if kept is not None and kept.tokens >= room_left - slack:
        pre = kept
    elif pre.text != prefix_text:
        pre = prefix_window(prefix_text, room_left, tok, lines=cursor_line)
    # the suffix grows only when the whole prefix is shown: the room a prefix window kept from
    # `prefix_start` leaves would otherwise move the suffix's end with every keystroke
    if budget_tokens - total() > 0 and suf.text != suffix_text and pre.text == prefix_text:
        suf = suffix_window(suffix_text, suf.tokens + budget_tokens - total(), tok, quantum=WINDOW_QUANTUM)
    visible = (pre.start_line, cursor_line + suf.text.count("\n"))
    chosen = [(p, t) for p, t in chosen if not (p.current and visible[0] <= p.start_line and p.end_line <= visible[1])]
    chosen = drop_repeated_headers(sorted(chosen, key=lambda c: layout_key(c[0], display)), count)
    used = total()
    if layout_used is not None and layout_used.prefix_start != pre.start_line:
        layout_used = layout_used._replace(prefix_start=pre.start_line)
    snippets = layout(chosen, display, path)
    own = (lookup.fingerprint(path) if lookup is not None else "") or xxhash.xxh3_64_hexdigest(source)
    depends = {display[path]: own}
    for piece, _ in chosen:
        if not piece.current:
            depends[display[piece.path]] = fingerprints.get(piece.path) or ""
    key = semantic_key(language or (syntax.name if syntax else ""), scope_tokens, prefix_text, suffix_text,
                       [(s.path, s.text) for s in snippets])
    return PromptParts(prefix=pre.text, suffix=suf.text, path=display[path], language=language, snippets=snippets,
                       tokens=used, budget=budget_tokens, depends_on=tuple(sorted(depends.items())),
                       semantic_key=key, lookups=lookups, layout=layout_used)


def prepare(index: ContextIndex | None, path: str, lookups: tuple[tuple[str, frozenset[str]], ...] = ()) -> None:
    """Do, in `path`'s current snapshot, the work the next `build_context` in `path` would do
    from the index alone: build the table of where the file uses each name from other files,
    look up and render `lookups` (the names its last context looked up: `PromptParts.lookups`).
    Meant for right after a re-index, so that work is not on the keystroke-to-completion path;
    the work is kept on the snapshot and its entries, and has no effect on any context's content.
    The identifiers of the files whose code is compared with the cursor's (`pruning.code_windows`)
    are read too: a buffer's first context would otherwise read every one of them."""
    if index is not None:
        lookup = IndexLookup(index.snapshot_for(path), path)
        prepare_file_uses(lookup)
        warm_references(lookup, lookups)
        warm_vocabularies(lookup)


def _index_tree(index: ContextIndex | None, path: str, source: bytes) -> tuple[Any, tuple[int, int] | None]:
    """The index's current tree for `path` when it is an open buffer holding exactly `source`
    (else None), and the byte range of `source` the tree does not reflect yet. The tree may lag
    only where the index's owner promises to catch up soon (`pending_lag_s` > 0: the server
    reparses a lagging buffer right after answering); one-shot callers always get a fresh tree."""
    if index is None:
        return None, None
    held = index.buffer_tree(path, source, allow_lag=index.pending_lag_s > 0)
    return held if held is not None else (None, None)


def _scope_signature(scopes, source: bytes, offset: int) -> bytes:
    """The enclosing scope's text up to the cursor (the semantic key normalises it)."""
    if not scopes:
        start = source.rfind(b"\n", 0, max(0, offset - 1)) + 1
        return source[start:offset]
    innermost = scopes[0]
    return source[innermost.outer.start_byte:offset]
