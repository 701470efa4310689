"""The type a literal at the cursor builds: its fields are what the next lines fill in.

`const filter: CredentialFilter = {` (TypeScript, JavaScript), `&Command{` (Go) and
`Config {` (Rust) name the type whose fields the literal's lines set one by one; the line not
typed yet is most likely one of the fields not set yet. `literal_type` is the name of that type
for the innermost object, composite or struct literal around the cursor; a TypeScript object
literal's type is its variable's annotation or, after `return`, the enclosing function's return
type. A literal of no written type (or of a type other than a plain or qualified name) has none.
"""

from __future__ import annotations

from .scopes import node_text

# literal node -> how its type is found
_OBJECT = "object"  # TypeScript / JavaScript `{ ... }`
_GO_LITERAL = "literal_value"  # the braces of a Go composite literal
_RUST_FIELDS = "field_initializer_list"  # the braces of a Rust struct expression
_FUNCTIONS = frozenset({"function_declaration", "method_definition", "arrow_function", "function_expression",
                        "function"})
_NAME_NODES = frozenset({"type_identifier", "identifier"})
_QUALIFIED = frozenset({"qualified_type", "scoped_type_identifier", "nested_type_identifier", "generic_type"})


def literal_type(root: object, source: bytes, offset: int) -> str | None:
    """The name of the type the innermost literal around byte `offset` builds (see the module
    docstring), or None."""
    node = root.descendant_for_byte_range(offset, offset)  # type: ignore[attr-defined]
    while node is not None and node.type not in (_OBJECT, _GO_LITERAL, _RUST_FIELDS):
        if node.type in _FUNCTIONS:
            return None
        node = node.parent
    if node is None or not node.start_byte < offset <= node.end_byte - 1:
        return None
    parent = node.parent
    if node.type == _GO_LITERAL and parent is not None and parent.type == "composite_literal":
        return _type_name(parent.child_by_field_name("type"), source)
    if node.type == _RUST_FIELDS and parent is not None and parent.type == "struct_expression":
        return _type_name(parent.child_by_field_name("name"), source)
    if node.type == _OBJECT and parent is not None:
        if parent.type == "variable_declarator":
            return _annotation(parent.child_by_field_name("type"), source)
        if parent.type == "return_statement":
            function = parent.parent
            while function is not None and function.type not in _FUNCTIONS:
                function = function.parent
            if function is not None:
                return _annotation(function.child_by_field_name("return_type"), source)
    return None


def _annotation(annotation: object, source: bytes) -> str | None:
    """The type named by a TypeScript type annotation (`: T`)."""
    if annotation is None:
        return None
    named = [child for child in annotation.named_children]  # type: ignore[attr-defined]
    return _type_name(named[0], source) if len(named) == 1 else None


def _type_name(node: object, source: bytes) -> str | None:
    """The last name of a plain, qualified or generic type node (`pkg.Opts`: `Opts`)."""
    while node is not None and node.type in _QUALIFIED:  # type: ignore[attr-defined]
        names = [child for child in node.named_children if child.type in _NAME_NODES | _QUALIFIED]  # type: ignore[attr-defined]
        if node.type == "generic_type":  # type: ignore[attr-defined]
            node = names[0] if names else None
        else:
            node = names[-1] if names else None
    if node is None or node.type not in _NAME_NODES:  # type: ignore[attr-defined]
        return None
    return node_text(node, source).decode("utf-8", "replace")
