"""The scope ladder at the cursor: the chain of definitions that enclose a byte offset.

`scope_chain` returns the enclosing scopes innermost first (method, then its class, ...); the
module itself is not a scope here. A scope's `node` is the definition node; `outer` is the node
that includes its wrappers (decorators, `export`), which is what a snippet of it should show.

Invariants:
- names are read from `source` by byte range, never from `node.text` (a tree that was edited but
  not reparsed has no text: see `indexer.documents.OpenDocument.lagging`);
- every returned scope contains the cursor: its byte range contains the offset, or (Python only)
  the cursor sits on a line after the scope's last statement, indented deeper than its header;
- lines are 0-based and inclusive (`end_line` is the line of the scope's last byte).
"""

from __future__ import annotations

from typing import NamedTuple

from indexer import Syntax


ANONYMOUS = "<anonymous>"  # the name of a definition that has none (an arrow function)


class Scope(NamedTuple):
    kind: str
    name: str
    node: object  # tree_sitter.Node of the definition
    outer: object  # the definition with its wrappers (decorated_definition, export_statement)
    start_line: int
    end_line: int
    body_start_byte: int  # where the body begins; the header (signature) is everything before

    @property
    def header_bytes(self) -> tuple[int, int]:
        return self.outer.start_byte, self.body_start_byte  # type: ignore[attr-defined]


def scope_chain(root: object, source: bytes, offset: int, syntax: Syntax) -> list[Scope]:
    """Enclosing scopes of byte `offset` in the tree `root` of `source`, innermost first."""
    offset = max(0, min(offset, len(source)))
    probe = _probe_offset(source, offset, syntax)
    node = root.descendant_for_byte_range(probe, probe)  # type: ignore[attr-defined]
    scopes: list[Scope] = []
    cursor_column = _cursor_indent(source, offset) if syntax.indent_blocks else 0
    while node is not None:
        kind = syntax.scopes.get(node.type)
        if kind is not None and _contains(node, source, offset, cursor_column, syntax):
            scopes.append(as_scope(node, kind, syntax, source))
        node = node.parent
    return scopes


def as_scope(node: object, kind: str, syntax: Syntax, source: bytes) -> Scope:
    """Describes definition `node` (of scope kind `kind`, in `source`) as a `Scope`."""
    outer = node
    parent = node.parent  # type: ignore[attr-defined]
    while parent is not None and parent.type in syntax.wrappers:
        outer, parent = parent, parent.parent
    body = body_of(node)
    body_start = body.start_byte if body is not None else node.end_byte  # type: ignore[attr-defined]
    if kind == "function" and _is_method(node, syntax):
        kind = "method"
    return Scope(
        kind=kind,
        name=name_of(node, source),
        node=node,
        outer=outer,
        start_line=outer.start_point[0],  # type: ignore[attr-defined]
        end_line=node.end_point[0],  # type: ignore[attr-defined]
        body_start_byte=body_start,
    )


# Python's definitions: their header ends with a `:` token, and what a half-written line broke
# between it and the `body` block is an ERROR node holding the body's first lines
COLON_HEADED = frozenset({"function_definition", "class_definition"})


def body_of(node: object) -> object | None:
    """The body child of a definition (block, class body, struct field list), if it has one.

    In a Python definition whose body a half-written line broke (`def f(): ERROR block`: the
    docstring and the lines above the break are in the ERROR, the `body` field is the block
    after it), the body is that ERROR node: the header still ends at the `:`."""
    body = node.child_by_field_name("body")  # type: ignore[attr-defined]
    if body is not None and node.type in COLON_HEADED:  # type: ignore[attr-defined]
        broken = body.prev_sibling
        if broken is not None and broken.type == "ERROR" and broken.prev_sibling is not None \
                and broken.prev_sibling.type == ":":
            return broken
    if body is None and node.type == "type_spec":  # type: ignore[attr-defined]
        kind = node.child_by_field_name("type")  # type: ignore[attr-defined]
        if kind is not None and kind.type in ("struct_type", "interface_type"):
            body = kind.named_children[0] if kind.type == "struct_type" and kind.named_children else kind
    return body


def name_of(node: object, source: bytes) -> str:
    """The defined name: the `name` field, a declarator's identifier, or "<anonymous>"."""
    name = node.child_by_field_name("name")  # type: ignore[attr-defined]
    if name is None:
        declarator = node.child_by_field_name("declarator")  # type: ignore[attr-defined]
        while declarator is not None and declarator.type not in ("identifier", "field_identifier",
                                                                 "qualified_identifier", "destructor_name"):
            declarator = declarator.child_by_field_name("declarator")
        name = declarator
    if name is None and node.parent is not None and node.parent.type in (  # type: ignore[attr-defined]
        "variable_declarator", "pair", "assignment_expression", "public_field_definition"
    ):
        owner = node.parent  # type: ignore[attr-defined]
        name = owner.child_by_field_name("name") or owner.child_by_field_name("key") \
            or owner.child_by_field_name("left")
    if name is None:
        return ANONYMOUS
    return node_text(name, source).decode("utf-8", "replace")


def node_text(node: object, source: bytes) -> bytes:
    """The bytes of `source` that `node` spans."""
    return source[node.start_byte:node.end_byte]  # type: ignore[attr-defined]


def _is_method(node: object, syntax: Syntax) -> bool:
    """A Python function directly inside a class body is a method."""
    if not syntax.indent_blocks:
        return False
    parent = node.parent  # type: ignore[attr-defined]
    while parent is not None and parent.type in syntax.wrappers:
        parent = parent.parent
    return parent is not None and parent.type == "block" and parent.parent is not None \
        and parent.parent.type == "class_definition"


def _probe_offset(source: bytes, offset: int, syntax: Syntax) -> int:
    """Where to look up the innermost node: for indentation languages, the last code byte before
    the cursor (a blank indented line belongs to the block above it)."""
    if not syntax.indent_blocks:
        return offset
    probe = offset
    while probe > 0 and source[probe - 1:probe] in (b" ", b"\t", b"\n", b"\r"):
        probe -= 1
    return max(0, probe - 1)


def _cursor_indent(source: bytes, offset: int) -> int:
    line_start = source.rfind(b"\n", 0, offset) + 1
    line_end = source.find(b"\n", offset)
    line = source[line_start: line_end if line_end >= 0 else len(source)]
    before_cursor = source[line_start:offset]
    if not before_cursor.strip():
        rest = line[len(before_cursor):]
        return len(before_cursor) if not rest.strip() else len(line) - len(line.lstrip())
    return len(line) - len(line.lstrip())


def _contains(node: object, source: bytes, offset: int, cursor_column: int, syntax: Syntax) -> bool:
    start, end = node.start_byte, node.end_byte  # type: ignore[attr-defined]
    if start <= offset < end or (offset == end and not syntax.indent_blocks):
        return True
    if not syntax.indent_blocks or offset < end:
        return False
    header_column = node.start_point[1]  # type: ignore[attr-defined]
    return cursor_column > header_column and offset >= end
