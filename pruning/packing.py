"""Packing and layout of candidate snippets into a token budget (pure).

Invariants:
- `pack` never chooses pieces whose tokens plus one header per file block exceed the budget;
  a file's header (`header_cost`) is paid by its first chosen snippet;
- no two chosen pieces overlap (`covers`): a fuller form of a definition replaces its compact
  form only as an upgrade, paid for by its marginal tokens (an upgrade may have its own), and
  an upgrade that comes to show another chosen piece (a class skeleton, its method) replaces it;
  pieces of a file that share lines are nested or not both chosen (`overlaps`: a window that
  ends inside a function, and that function's signature after it);
- it is deterministic: ties in value per token break on (display path, line, symbol, kind);
- `layout` orders other files by display path then line, then the current file by line
  (stable-first: consecutive prompts share their beginning).
"""

from __future__ import annotations

import heapq

from .candidates import Piece
from .prompt import SnippetInfo
from .snippets import CLASS_KINDS

def header_cost(display_path: str, count) -> int:
    return count(display_path) + 3  # file separator token, newline, blank line between blocks


def pack(pieces: list[Piece], budget: int, display: dict[str, str], count) -> list[tuple[Piece, int]]:
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
    chosen: list[tuple[Piece, int] | None] = []  # None: a piece an upgrade came to cover
    # the slots of `chosen` per file: only pieces of one file can cover each other (an upgrade,
    # which takes its piece's slot, renders the same definition, so it is of the same file)
    slots_in: dict[str, list[int]] = {}
    left = budget
    while heap:
        _, _, _, index, slot, tokens, piece = heapq.heappop(heap)
        if slot >= 0:  # an upgrade of chosen[slot]: `tokens` is the marginal cost
            if chosen[slot] is not None and tokens <= left and not any(
                    other != slot and chosen[other] is not None and overlaps(piece, chosen[other][0])
                    for other in slots_in[piece.path]):
                chosen[slot] = (piece, chosen[slot][1] + tokens)
                left -= tokens
                for other in slots_in[piece.path]:  # what the fuller form now shows goes
                    taken = chosen[other]
                    if other != slot and taken is not None and covers(piece, taken[0]):
                        chosen[other] = None
                        left += taken[1]
                _offer_upgrade(heap, piece, chosen[slot][1], index, slot, display, count)
            continue
        same_file = slots_in.get(piece.path)
        if same_file is not None and any(chosen[i] is not None and (covers(chosen[i][0], piece) or covers(piece, chosen[i][0])
                                                                    or overlaps(piece, chosen[i][0]))
                                         for i in same_file):
            continue
        cost = tokens + (0 if same_file is not None else header_cost(display[piece.path], count))
        if cost > left:
            continue
        chosen.append((piece, tokens))
        slots_in.setdefault(piece.path, []).append(len(chosen) - 1)
        left -= cost
        _offer_upgrade(heap, piece, tokens, index, len(chosen) - 1, display, count)
    return [taken for taken in chosen if taken is not None]


def _offer_upgrade(heap: list, piece: Piece, tokens: int, index: int, slot: int, display: dict[str, str],
                   count) -> None:
    """Push `piece`'s upgrade (if it costs more and is worth more) for chosen[slot], keyed by its
    marginal value per marginal token."""
    upgrade = piece.upgrade
    if upgrade is None:
        return
    extra = count(upgrade.text) - tokens
    gain = upgrade.value - piece.value
    if extra > 0 and gain > 0:
        heapq.heappush(heap, (-gain / extra, -gain, _order(upgrade, display), index, slot, extra, upgrade))


def _order(piece: Piece, display: dict[str, str]) -> tuple:
    return (display[piece.path], piece.start_line, piece.symbol, piece.kind)


def covers(outer: Piece, inner: Piece) -> bool:
    """Whether `outer` already shows `inner` (same file, its lines inside, a fuller form)."""
    if outer.path != inner.path or outer.kind in ("imports", "outline") or inner.kind in ("imports", "outline"):
        return outer.path == inner.path and outer.symbol == inner.symbol and outer.kind == inner.kind
    inside = outer.start_line <= inner.start_line and inner.end_line <= outer.end_line
    return inside and (outer.form in ("full", "skeleton") or outer.symbol == inner.symbol)


def overlaps(one: Piece, other: Piece) -> bool:
    """Whether two pieces of a file share lines without one lying inside the other: shown both,
    the lines they share would be shown twice, one of them cut off mid-definition."""
    if one.path != other.path or {one.kind, other.kind} & {"imports", "outline"}:
        return False
    if one.end_line < other.start_line or other.end_line < one.start_line:
        return False
    nested = (one.start_line <= other.start_line and other.end_line <= one.end_line) or \
        (other.start_line <= one.start_line and one.end_line <= other.end_line)
    return not nested


def headers(chosen: list[tuple[Piece, int]], display: dict[str, str], count) -> int:
    return sum(header_cost(display[p], count) for p in {piece.path for piece, _ in chosen})


def layout_key(piece: Piece, display: dict[str, str]) -> tuple:
    return (piece.current, display[piece.path], piece.start_line, piece.symbol)


def drop_repeated_headers(ordered: list[tuple[Piece, int]], count) -> list[tuple[Piece, int]]:
    """In layout order, a snippet that starts with the same container header line as an earlier
    snippet of the same file run loses that line: `class Order:` is shown once above its members;
    a class's one-line form just above a snippet inside it that starts with a header goes."""
    out: list[tuple[Piece, int]] = []
    last_header = ("", "")
    for piece, tokens in ordered:
        header, _, rest = piece.text.partition("\n")
        is_header = header.rstrip().endswith((":", "{")) and not header[:1].isspace() and rest.strip()
        if is_header and out and _names_container_of(out[-1][0], piece):
            out.pop()  # `class Logger` above `export class Logger {` and its member: the header says it
        if is_header and last_header == (piece.path, header):
            piece = piece._replace(text=rest, upgrade=None)
            tokens = count(rest)
        elif is_header:
            last_header = (piece.path, header)
        else:
            last_header = (piece.path, "") if last_header[0] != piece.path else last_header
        out.append((piece, tokens))
    return out


def _names_container_of(line_form: Piece, piece: Piece) -> bool:
    """Whether `line_form` is a class's one-line form that `piece`, shown inside it with its own
    header, repeats."""
    return (line_form.path == piece.path and line_form.form == "line" and line_form.kind in CLASS_KINDS
            and line_form.text.count("\n") <= 1
            and line_form.start_line <= piece.start_line and piece.end_line <= line_form.end_line)


def layout(chosen: list[tuple[Piece, int]], display: dict[str, str], path: str) -> list[SnippetInfo]:
    """Other files by path then line, then the current file's snippets by line."""
    ordered = sorted(chosen, key=lambda c: layout_key(c[0], display))
    return [
        SnippetInfo(path=display[piece.path], symbol=piece.symbol, kind=piece.kind,
                    start_line=piece.start_line + 1, end_line=piece.end_line + 1, tokens=tokens,
                    reason=piece.reason, text=piece.text)
        for piece, tokens in ordered
    ]


