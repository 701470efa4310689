"""A snippet layout held across keystrokes, so that consecutive prompts in a buffer begin alike.

A context's snippets come before its prefix window in the prompt, so a change of one snippet makes
a prefix cache compute the whole window again (hundreds of tokens at a new line). A `HeldLayout`
is the set of snippets one context chose; `build_context(holds=...)` shows exactly
those snippets again while they still hold, and only the windows' changed tail is new to the
cache. Whoever holds it (the server, per open document) replaces it by a fresh context's layout
once that fresh prompt is in the cache (`lsp_server.anticipation`), so no keystroke waits for a
change of snippets.

A held layout holds for a context (`still_held`) when:
- the cursor is inside a definition of the same name as when it was chosen, or the tree names no
  enclosing definition now or then (a buffer being typed often parses with errors that hide or
  add a scope for a few keystrokes; anonymous functions are not names);
- each other file's snippet comes from the index entry the snapshot still has for that file
  (a file that did not change keeps its entry object, and so its renderings);
- the buffer's own snippets hold one by one (one that does not is left out): a fresh candidate
  has its text, or the buffer's lines it was rendered from are still there, whole (they give its
  line numbers now);
- it was chosen for the same token budget.
Of a layout that holds, `build_context` keeps the snippets that fit the room left beside the
windows now, from the prompt's beginning on (layout order). A layout also keeps the first line
of the prefix window its context showed (`prefix_start`): the next contexts start their window
there while it fits (`pruning.context`, step 3), so that what follows the snippets begins alike too.
"""

from __future__ import annotations

from typing import NamedTuple

from .candidates import Piece
from .scopes import ANONYMOUS

ScopeKey = frozenset[str]  # the names of the definitions that enclose the cursor


def scope_key(names) -> ScopeKey:
    return frozenset(name for name in names if name and name != ANONYMOUS)


class HeldLayout(NamedTuple):
    scopes: ScopeKey
    budget: int
    chosen: tuple[tuple[Piece, int], ...]  # (piece, tokens) as packed, before the layout's ordering
    # per chosen piece: another file's index entry then; for the buffer's own, the lines it was
    # rendered from
    entries: tuple[object, ...]
    # the first line of the prefix window the context showed (`build_context(prefix_start=...)`)
    prefix_start: int | None = None


def held_layout(scopes: ScopeKey, budget: int, chosen: list[tuple[Piece, int]], snapshot, text: str) -> HeldLayout:
    """The layout of a context that chose `chosen` (as `pack` returned it) from `snapshot` and
    the buffer `text`."""
    lines = text.split("\n") if any(piece.current for piece, _ in chosen) else []
    entries = tuple("\n".join(lines[piece.start_line:piece.end_line + 1]) if piece.current
                    else snapshot.entry(piece.path) if snapshot is not None else None
                    for piece, _ in chosen)
    return HeldLayout(scopes, budget, tuple(chosen), entries)


def still_held(hold: HeldLayout, scopes: ScopeKey, budget: int, snapshot, text: str,
               found: list[Piece]) -> list[tuple[Piece, int]] | None:
    """`hold`'s chosen pieces as they stand in `text` now, or None when it no longer holds (see
    the module's rules). `found` are the context's fresh candidates: an own snippet found among
    them with the same text is taken from there (its lines as they are now)."""
    if hold.budget != budget or (hold.scopes and scopes and not hold.scopes & scopes):
        return None
    fresh = {(p.symbol, p.kind, p.text): p for p in found if p.current}
    out: list[tuple[Piece, int]] = []
    for (piece, tokens), entry in zip(hold.chosen, hold.entries):
        if not piece.current:
            if snapshot is None or snapshot.entry(piece.path) is not entry:
                return None
            out.append((piece, tokens))
            continue
        now = fresh.get((piece.symbol, piece.kind, piece.text)) or _relocated(piece, entry, text)
        if now is not None:
            out.append((now._replace(value=piece.value), tokens))
    return out


def _relocated(piece: Piece, span: str, text: str) -> Piece | None:
    """`piece` (a snippet of the buffer itself, rendered from the lines `span`) where `span` is
    now in `text`, or None when `span` is no longer there as whole lines."""
    if text.startswith(span + "\n") or text == span:
        at = 0
    else:
        at = text.find("\n" + span + "\n")
        if at < 0 and text.endswith("\n" + span):
            at = len(text) - len(span) - 1
        if at < 0:
            return None
        at += 1
    line = text.count("\n", 0, at)
    if line == piece.start_line:
        return piece
    return piece._replace(start_line=line, end_line=line + piece.end_line - piece.start_line)
