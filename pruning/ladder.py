"""The scope ladder of the current file: what encloses the cursor, outside the FIM windows.

Candidates, with fixed values above the scale of referenced definitions (see
`pruning.candidates`): the enclosing function's header (3.0; an outer one 1.0), the enclosing
class as a skeleton limited to the members used (2.0), the imports used near the cursor (1.5),
all imports (0.25, or as the used imports' upgrade 0.25 more than they) and an outline of the
other top-level signatures (0.15). Only parts that lie before the first visible line are
offered: what is inside the windows is already in the prompt.
"""

from __future__ import annotations

import re

from indexer import Syntax

from .candidates import Piece, _piece
from .names_near import NameUse
from .scopes import Scope, node_text
from .snippets import CLASS_KINDS, render

ENCLOSING_FUNCTION_VALUE = 3.0  # the innermost enclosing function's header; an outer one is worth 1.0
ENCLOSING_CLASS_VALUE = 2.0
USED_IMPORTS_VALUE = 1.5
ALL_IMPORTS_VALUE = 0.25  # beside no used import; as their upgrade, this much more than they
OUTLINE_VALUE = 0.15


def ladder_pieces(root: object, source: bytes, path: str, syntax: Syntax, scopes: list[Scope],
                  uses: list[NameUse], visible: tuple[int, int]) -> list[Piece]:
    """Scope-ladder candidates of the current file that lie outside the `visible` line range."""
    pieces: list[Piece] = []
    first_visible = visible[0]
    used_names = {u.name for u in uses}
    for depth, scope in enumerate(scopes):
        if scope.start_line >= first_visible:
            continue
        if scope.kind in CLASS_KINDS:
            members = frozenset(u.name for u in uses if scope.name in u.owner_types or u.kind == "call")
            snippet = render(scope.node, source, syntax, "skeleton", members=members)
            reason, value = f"enclosing {scope.kind}", ENCLOSING_CLASS_VALUE
        else:
            snippet = render(scope.node, source, syntax, "signature", parents=depth == 0)
            reason, value = f"enclosing {scope.kind}", ENCLOSING_FUNCTION_VALUE if depth == 0 else 1.0
        pieces.append(_piece(path, scope.name, scope.kind, snippet, reason, value, True))
    imports = [n for n in root.named_children if n.type in syntax.imports and n.end_point[0] < first_visible]  # type: ignore[attr-defined]
    if imports:
        used = [n for n in imports if used_names & _words(node_text(n, source))]
        # all imports are the used ones' upgrade: shown beside them, they would repeat their lines
        every = _lines_piece(path, "imports", "module imports", imports, source, ALL_IMPORTS_VALUE + (USED_IMPORTS_VALUE if used else 0.0),
                             "imports (all)") if len(used) < len(imports) else None
        if used:
            pieces.append(_lines_piece(path, "imports", "imports used near the cursor", used, source, USED_IMPORTS_VALUE)._replace(
                upgrade=every))
        elif every is not None:
            pieces.append(every)
    enclosing = {(scope.node.start_byte, scope.node.end_byte) for scope in scopes}  # type: ignore[attr-defined]
    outline = _outline(root, source, syntax, first_visible, enclosing)
    if outline is not None:
        pieces.append(Piece(path, "<module>", "outline", outline[0], outline[1], outline[2],
                            "top-level signatures", OUTLINE_VALUE, True, "outline"))
    return pieces


def _lines_piece(path: str, symbol: str, reason: str, nodes: list, source: bytes, value: float,
                 kind: str = "imports") -> Piece:
    text = "".join(_line_text(source, n.start_byte, n.end_byte) + "\n" for n in nodes)
    return Piece(path, symbol, kind, nodes[0].start_point[0], nodes[-1].end_point[0], text, reason,
                 value, True, "lines")


def _outline(root: object, source: bytes, syntax: Syntax, first_visible: int,
             enclosing: set[tuple[int, int]]):
    """The top-level definitions before `first_visible`, one line each, but those `enclosing` the
    cursor (byte ranges): the ladder shows their headers."""
    lines = []
    first = last = None
    for child in root.named_children:  # type: ignore[attr-defined]
        if child.start_point[0] >= first_visible:
            break
        inner = child
        while inner.type in syntax.wrappers and inner.named_children:
            inner = inner.named_children[-1]
        if inner.type not in syntax.scopes or {(child.start_byte, child.end_byte),
                                                (inner.start_byte, inner.end_byte)} & enclosing:
            continue
        header = _first_line(source, child.start_byte, child.end_byte).rstrip()
        if inner is not child and header.lstrip().startswith("@"):
            header = _first_line(source, inner.start_byte, inner.end_byte).rstrip()
        if not syntax.indent_blocks:
            header = header.rstrip(" {")
        lines.append(header if header.endswith(";") else f"{header} {syntax.placeholder}")
        first = child.start_point[0] if first is None else first
        last = child.end_point[0]
    if not lines:
        return None
    return first, last, "\n".join(lines[-40:]) + "\n"


def _line_text(source: bytes, start: int, end: int) -> str:
    line_start = source.rfind(b"\n", 0, start) + 1
    return source[line_start:end].decode("utf-8", "replace")


def _first_line(source: bytes, start: int, end: int) -> str:
    """The first line of `_line_text(source, start, end)`, without decoding the rest."""
    line_start = source.rfind(b"\n", 0, start) + 1
    line_end = source.find(b"\n", start, end)
    return source[line_start:end if line_end < 0 else line_end].decode("utf-8", "replace")


_WORD = re.compile(rb"[A-Za-z0-9_]+")


def _words(text: bytes) -> set[str]:
    """The ASCII words (letters, digits, underscores) in `text`."""
    return {word.decode("ascii") for word in _WORD.findall(text)}
