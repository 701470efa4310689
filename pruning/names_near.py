"""Names used near the cursor (what the context looks up), with the local types that qualify
attribute chains (`local_types.py`).

`names_near_cursor` walks only the part of the tree around the cursor (the enclosing scope's
header, and lines within a window before and after the cursor inside that scope) and reports each
identifier use with how it is used (call, attribute, type, identifier), its line distance from
the cursor, and for attributes the types its object may have (`self.repo.save`: `repo` is
declared `repo: Repo`, so `save` is looked for in `Repo` first).

Invariants: a definition's own name is never a use; `self`/`this` are never uses; the result is
ordered by distance, then position, so it is deterministic.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from indexer import (
    CALL_NODES, IDENTIFIER_NODES, MEMBER_ACCESS_FIELDS, RECEIVER_WORDS, TEXT_KEYWORDS, TYPE_CONTEXT_NODES,
    nodes_of_types,
)

from .content_memo import ContentMemo
from .local_types import local_types
from .scopes import Scope, node_text

_MEMBER_AT_CURSOR = re.compile(rb"([A-Za-z_][A-Za-z_0-9]*)\s*\.\s*([A-Za-z_0-9]*)$")

class NameUse(NamedTuple):
    name: str
    kind: str  # "call" | "attribute" | "type" | "identifier"
    line: int
    distance: int  # lines between the use and the cursor line
    owner_types: tuple[str, ...] = ()  # candidate types of the object of an attribute/method use
    owner: str = ""  # the object's last name as written (`utils` in `utils.quote(x)`)


MAX_NEAR_NAMES = 48  # distinct names kept, nearest first (the packer uses at most 20 of them)
MAX_USES_PER_NAME = 4  # nearest uses kept per name (the value model counts the nearest four)


def names_near_cursor(root: object, source: bytes, offset: int, scopes: list[Scope], *, language: str,
                      lines_before: int = 40, lines_after: int = 10,
                      max_names: int = MAX_NEAR_NAMES,
                      unparsed: tuple[int, int] | None = None, cursor_line: int | None = None,
                      memo: ContentMemo | None = None) -> list[NameUse]:
    """Identifier uses around `offset` in a tree of `language`, nearest first (see module
    docstring): the nearest `MAX_USES_PER_NAME` uses of each of the `max_names` distinct names
    nearest to the cursor, found by one tree-sitter query over the window.

    `unparsed` is a byte range of `source` that the tree does not reflect (it was edited but
    not reparsed: `indexer.documents.OpenDocument.lagging`); the names on its lines are read
    from the text instead (`_text_uses`), and the tree's nodes there are ignored. `cursor_line`
    is the line of `offset`, when the caller knows it already; `memo` keeps the local types'
    declarations between calls (it changes no result)."""
    if cursor_line is None:
        cursor_line = source.count(b"\n", 0, offset)
    low = _line_start(source, offset, lines_before)
    high = _line_end(source, offset, lines_after)
    innermost = scopes[0] if scopes else None
    if innermost is not None:
        low = max(low, innermost.outer.start_byte)  # type: ignore[attr-defined]
        high = min(high, innermost.node.end_byte)  # type: ignore[attr-defined]
    regions = [(low, high)]
    if innermost is not None and innermost.outer.start_byte < low:  # type: ignore[attr-defined]
        regions.append((innermost.outer.start_byte, innermost.body_start_byte))  # type: ignore[attr-defined]
    types = local_types(scopes, source, language, memo)
    nodes: dict[int, object] = {}
    for start, end in regions:
        # nodes touching the window's edges count, as a walk with inclusive bounds would find them
        for node in nodes_of_types(language, root, IDENTIFIER_NODES, (max(0, start - 1), end + 1)):
            nodes.setdefault(node.start_byte, node)  # type: ignore[attr-defined]
    found: list[tuple[int, bytes, int, object]] = []  # (distance, name, start byte, node or use)
    stale = (-1, -1)
    if unparsed is not None:
        stale = (source.rfind(b"\n", 0, unparsed[0]) + 1, _line_end(source, unparsed[1], 0))
        for start, name, use in _text_uses(source, stale, (low, high), cursor_line, types):
            found.append((use.distance, name, start, use))
    for node in nodes.values():
        start = node.start_byte  # type: ignore[attr-defined]
        if not stale[0] <= start < stale[1]:
            found.append((line_distance(node.start_point[0], cursor_line), node_text(node, source), start, node))  # type: ignore[attr-defined]
    found.sort(key=lambda item: item[0])
    uses: dict[tuple[str, int], NameUse] = {}
    seen: dict[bytes, int] = {}  # uses kept per name
    for _, text, start, item in found:
        count = seen.get(text)
        if count is None and len(seen) >= max_names or count is not None and count >= MAX_USES_PER_NAME:
            continue
        use = item if isinstance(item, NameUse) else _classify(item, source, cursor_line, types)
        if use is None:
            continue
        seen[text] = (count or 0) + 1
        uses.setdefault((use.name, start), use)
    member = _MEMBER_AT_CURSOR.search(source[source.rfind(b"\n", 0, offset) + 1:offset])
    if member is not None:  # `obj.` or `obj.pa|`: the user wants a member of obj's type
        owner = member.group(1).decode("utf-8", "replace")
        owner_types = _types_of(owner, types)
        uses[(member.group(2).decode("utf-8", "replace"), -2)] = NameUse(
            name=member.group(2).decode("utf-8", "replace"), kind="attribute", line=cursor_line, distance=0,
            owner_types=owner_types, owner=owner)
    for use in list(uses.values()):  # the declared type of an object is itself a type use
        for owner_type in use.owner_types:
            key = (owner_type, -1)
            if key not in uses or uses[key].distance > use.distance:
                uses[key] = NameUse(name=owner_type, kind="type", line=use.line, distance=use.distance)
    return sorted(uses.values(), key=lambda u: (u.distance, u.line, u.name))


_TEXT_NAME = re.compile(rb"[A-Za-z_$][A-Za-z_0-9$]*")


def _text_uses(source: bytes, span: tuple[int, int], window: tuple[int, int], cursor_line: int,
               types: dict[str, tuple[str, ...]]):
    """(start byte, name, NameUse) for the names written in `source[span]` (whole lines the
    tree does not reflect) within `window`, classified from the text alone: `owner.name` is an
    attribute, a name followed by `(` a call; keywords and `self`/`this` are skipped."""
    low, high = max(span[0], window[0]), min(span[1], window[1])
    if low >= high:
        return
    line = source.count(b"\n", 0, low)
    position = low
    for match in _TEXT_NAME.finditer(source, low, high):
        start, end = match.span()
        if start > 0 and (source[start - 1:start].isalnum() or source[start - 1] == 0x5F):
            continue  # the tail of a word that starts with a digit
        line += source.count(b"\n", position, start)
        position = start
        name = match.group().decode("utf-8", "replace")
        if name in TEXT_KEYWORDS or name in RECEIVER_WORDS:
            continue
        owner = owner_before(source, start) or ""
        after = source[end:end + 8].lstrip(b" \t")
        kind = "call" if after[:1] == b"(" else ("attribute" if owner else "identifier")
        owners = _types_of(owner, types) if owner else ()
        yield start, match.group(), NameUse(name=name, kind=kind, line=line, distance=line_distance(line, cursor_line),
                                            owner_types=owners, owner=owner)


def owner_before(source: bytes, byte: int) -> str | None:
    """The identifier before the dot in `owner.name` or the `::` in Rust's `owner::name` (name
    at `byte`); None when neither precedes the name."""
    position = byte - 1
    while position >= 0 and source[position] in b" \t":
        position -= 1
    if position < 0 or source[position] not in b".:":
        return None
    if source[position] == 0x3A:  # ":" must be the second of "::"
        if position < 1 or source[position - 1] != 0x3A:
            return None
        position -= 1
    end = position
    start = end
    while start > 0 and (chr(source[start - 1]).isalnum() or source[start - 1] == 0x5F):
        start -= 1
    return source[start:end].decode("ascii", "replace")


def _classify(node: object, source: bytes, cursor_line: int, types: dict[str, tuple[str, ...]]) -> NameUse | None:
    name = node_text(node, source).decode("utf-8", "replace")
    if name in RECEIVER_WORDS or not name:
        return None
    parent = node.parent  # type: ignore[attr-defined]
    if parent is None or _is_definition_name(node, parent):
        return None
    line = node.start_point[0]  # type: ignore[attr-defined]
    distance = line_distance(line, cursor_line)
    kind = "identifier"
    owners: tuple[str, ...] = ()
    owner_name = ""
    fields = MEMBER_ACCESS_FIELDS.get(parent.type)
    if fields is not None and parent.child_by_field_name(fields[1]) == node:
        kind = "attribute"
        owner = parent.child_by_field_name(fields[0])
        if owner is not None:
            owners = _owner_types(owner, source, types)
            if owner.type in IDENTIFIER_NODES:
                owner_name = node_text(owner, source).decode("utf-8", "replace")
        holder = parent.parent
        if parent.type == "method_invocation" or (
            holder is not None and holder.type in CALL_NODES and holder.child_by_field_name("function") == parent
        ):
            kind = "call"
    elif parent.type == "qualified_type" and parent.child_by_field_name("name") == node:
        kind = "type"  # Go's `pkg.Type`: a type of the package imported as `pkg`
        package = parent.child_by_field_name("package")
        owner_name = node_text(package, source).decode("utf-8", "replace") if package is not None else ""
    elif parent.type in CALL_NODES:
        kind = "call"
    elif node.type == "type_identifier" or parent.type in TYPE_CONTEXT_NODES:  # type: ignore[attr-defined]
        kind = "type"
    return NameUse(name=name, kind=kind, line=line, distance=distance, owner_types=owners, owner=owner_name)


def line_distance(line: int, cursor_line: int) -> int:
    """Lines from the cursor line; lines below it count double."""
    return cursor_line - line if line <= cursor_line else (line - cursor_line) * 2


def _owner_types(owner: object, source: bytes, types: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """Types of the object in `object.member`: the declared type of its last name, or itself
    when it looks like a class or module name."""
    last = owner
    fields = MEMBER_ACCESS_FIELDS.get(owner.type)  # type: ignore[attr-defined]
    if fields is not None:
        last = owner.child_by_field_name(fields[1]) or owner  # type: ignore[attr-defined]
    text = node_text(last, source).decode("utf-8", "replace")
    if last.type == "this":  # type: ignore[attr-defined]
        text = "this"
    return _types_of(text, types)


def _types_of(name: str, types: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The declared types of object `name`, or `name` itself when it looks like a class or
    module name (capitalised)."""
    return types.get(name, (name,) if name[:1].isupper() else ())


def _is_definition_name(node: object, parent: object) -> bool:
    name = parent.child_by_field_name("name")  # type: ignore[attr-defined]
    return name == node and parent.type.endswith(("definition", "declaration", "declarator", "spec",  # type: ignore[attr-defined]
                                                  "_item", "signature", "parameter"))


def _line_start(source: bytes, offset: int, lines: int) -> int:
    position = offset
    for _ in range(lines + 1):
        position = source.rfind(b"\n", 0, position)
        if position < 0:
            return 0
    return position + 1


def _line_end(source: bytes, offset: int, lines: int) -> int:
    position = offset
    for _ in range(lines + 1):
        position = source.find(b"\n", position + 1)
        if position < 0:
            return len(source)
    return position
