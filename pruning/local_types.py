"""Local type inference: the declared or constructed types of names in the enclosing scopes.

`self.repo.save`: `repo` is declared `repo: Repo` (or assigned `Repo(...)`) in the class or the
function, so `save` is looked for in `Repo` first. Pure: a function of the scopes' text.
Invariant: an earlier declaration of a name wins over a later one (document order). With a
`ContentMemo`, the declarations of each piece of a class member or function (its header parts and
each statement of its body) are kept by the piece's text, so at a keystroke only the statement
being typed is read again.
"""

from __future__ import annotations

from indexer import DECLARATION_NODES, FIELD_MEMBER_NODES, IDENTIFIER_NODES, nodes_of_types

from .content_memo import ContentMemo
from .scopes import Scope, node_text


def local_types(scopes: list[Scope], source: bytes, language: str,
                memo: ContentMemo | None = None) -> dict[str, tuple[str, ...]]:
    """Declared or constructed types of names in the enclosing function and class members.

    `self`/`this` map to the innermost enclosing class; a Go receiver maps to its type.
    """
    types: dict[str, tuple[str, ...]] = {}
    classes = [s for s in scopes if s.kind in ("class", "struct", "interface", "impl")]
    if classes:
        types["self"] = types["this"] = (classes[0].name,)
        body = classes[0].node.child_by_field_name("body")  # type: ignore[attr-defined]
        named = _constructor_names_in(source, body) if body is not None else ()
        for member in body.named_children if body is not None else ():
            kind = member.type
            if kind in FIELD_MEMBER_NODES or kind == "constructor_declaration" or (
                    any(member.start_byte <= at < member.end_byte for at in named) and _is_constructor(member, source)):
                _add_declarations(member, source, language, types, memo)
    for scope in scopes:
        if scope.kind in ("function", "method"):
            _add_declarations(scope.node, source, language, types, memo)
            break
    return types


def _add_declarations(node: object, source: bytes, language: str, types: dict[str, tuple[str, ...]],
                      memo: ContentMemo | None = None) -> None:
    """Add the (name, types) declarations under `node` that `types` lacks, in document order,
    piece by piece (kept in `memo`, when there is one, by each piece's text)."""
    for piece in _pieces(node):
        if memo is None:
            found = _declarations(piece, source, language)
        else:
            key = ("declarations", language, piece.type, node_text(piece, source))  # type: ignore[attr-defined]
            found = memo.value(key, lambda: _declarations(piece, source, language))
        for name, names in found:
            types.setdefault(name, names)


def _pieces(node: object) -> list:
    """`node`'s named children outside its body and its body's named children, in document
    order (what declares nothing, keywords and punctuation, is left out); `node` itself when it
    has no body. Every declaration under `node` lies within one piece."""
    body = node.child_by_field_name("body")  # type: ignore[attr-defined]
    if body is None:
        return [node]
    pieces = [child for child in node.named_children if child != body]  # type: ignore[attr-defined]
    return sorted(pieces + body.named_children, key=lambda piece: piece.start_byte)


_CONSTRUCTOR_NAMES = (b"__init__", b"constructor")


def _constructor_names_in(source: bytes, body: object) -> list[int]:
    """Where a constructor's name (`__init__`, `constructor`) is written inside `body`: only the
    members holding one can be constructors named so (one C-speed search instead of asking the
    tree about every member of a large class at every keystroke)."""
    start, end = body.start_byte, body.end_byte  # type: ignore[attr-defined]
    found = []
    for name in _CONSTRUCTOR_NAMES:
        at = source.find(name, start, end)
        while at >= 0:
            found.append(at)
            at = source.find(name, at + 1, end)
    return found


def _is_constructor(node: object, source: bytes) -> bool:
    target = node
    if target.type == "decorated_definition":  # type: ignore[attr-defined]
        target = target.child_by_field_name("definition")  # type: ignore[attr-defined]
    if target is None:
        return False
    if target.type == "constructor_declaration":  # type: ignore[attr-defined]
        return True
    name = target.child_by_field_name("name")  # type: ignore[attr-defined]
    return name is not None and node_text(name, source) in _CONSTRUCTOR_NAMES


def _declarations(node: object, source: bytes, language: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(name, types) for each typed declaration under `node`, in document order (an earlier one
    wins when names repeat); the declarations are found by one tree-sitter query."""
    found: list[tuple[str, tuple[str, ...]]] = []
    span = (node.start_byte, node.end_byte)  # type: ignore[attr-defined]
    for declaration in nodes_of_types(language, node, DECLARATION_NODES, span):
        declared = _declared_type(declaration, source)
        if declared is not None and declared[1]:
            found.append(declared)
    return tuple(found)


def _declared_type(node: object, source: bytes) -> tuple[str, tuple[str, ...]] | None:
    kind = node.type  # type: ignore[attr-defined]
    field = node.child_by_field_name  # type: ignore[attr-defined]
    if kind in ("typed_parameter", "typed_default_parameter"):
        name = field("name") or next((c for c in node.named_children if c.type == "identifier"), None)  # type: ignore[attr-defined]
        return _pair(name, field("type"), source)
    if kind == "assignment":
        left = field("left")
        if left is not None and left.type == "attribute":
            left = left.child_by_field_name("attribute")
        type_node = field("type") or _constructed(field("right"), source)
        return _pair(left, type_node, source)
    if kind in ("required_parameter", "optional_parameter", "public_field_definition"):
        return _pair(field("pattern") or field("name"), field("type"), source)
    if kind in ("variable_declarator",):
        return _pair(field("name"), field("type") or _constructed(field("value"), source), source)
    if kind in ("field_declaration", "local_variable_declaration", "formal_parameter",
                "parameter_declaration", "constant_declaration"):
        name = field("name")
        if name is None:
            declarator = field("declarator")
            name = declarator.child_by_field_name("name") if declarator is not None else None
        return _pair(name, field("type"), source)
    if kind == "short_var_declaration":
        left, right = field("left"), field("right")
        if left is not None and right is not None and left.named_children and right.named_children:
            return _pair(left.named_children[0], _constructed(right.named_children[0], source), source)
    return None


def _constructed(value: object | None, source: bytes) -> object | None:
    """The class a value expression constructs (`Repo(...)`, `new Repo()`, `Repo{}`), if any."""
    if value is None:
        return None
    kind = value.type  # type: ignore[attr-defined]
    if kind in ("new_expression",):
        return value.child_by_field_name("constructor")  # type: ignore[attr-defined]
    if kind in ("object_creation_expression", "composite_literal"):
        return value.child_by_field_name("type")  # type: ignore[attr-defined]
    if kind in ("call", "call_expression"):
        function = value.child_by_field_name("function")  # type: ignore[attr-defined]
        if function is not None and function.type == "identifier" and node_text(function, source)[:1].isupper():
            return function
    return None


def _pair(name: object | None, type_node: object | None, source: bytes) -> tuple[str, tuple[str, ...]] | None:
    if name is None or type_node is None:
        return None
    names = tuple(
        node_text(n, source).decode("utf-8", "replace") for n in _identifiers_in(type_node, 0, 1 << 62)
        if n.type in ("identifier", "type_identifier")  # type: ignore[attr-defined]
    )
    return node_text(name, source).decode("utf-8", "replace"), names


def _identifiers_in(root: object, low: int, high: int):
    stack = [root]
    while stack:
        node = stack.pop()
        if node.end_byte < low or node.start_byte > high:  # type: ignore[attr-defined]
            continue
        if node.type in IDENTIFIER_NODES:  # type: ignore[attr-defined]
            yield node
            continue
        children = node.children  # type: ignore[attr-defined]
        stack.extend(reversed(children))
