"""Rendering a definition of another file from its text alone, without that file's tree.

The definition's own lines are cut out, dedented to column 0, parsed on their own, rendered
(`snippets.render`) and re-indented; a method keeps its class's header line above it. The
result equals what rendering the definition's node in a tree of the whole file would show,
for the forms `snippets` offers. A definition whose lines hold no scope node of their own (a
constant, a type alias) is shown whole ("full") or on one line (every other form: "line").
"""

from __future__ import annotations

import xxhash

from indexer import parse, syntax_for

from .snippets import RenderedSnippet, collapse, member_names, render


def render_definition(source: bytes, language: str, definition: object, form: str,
                      container_header: str = "", members: frozenset[str] | None = None,
                      limit: int = 12, trees: dict | None = None) -> RenderedSnippet | None:
    """Renders one definition of `source` by parsing only its own (dedented) lines. `trees`,
    when given, keeps the parsed lines per digest of their bytes for further renderings of the
    same lines (wherever they now are in the file)."""
    cut = _chunk(source, language, definition, trees)
    if cut is None:
        return None
    syntax, chunk, indent, node = cut
    start_line, end_line = definition.start_line, definition.end_line  # type: ignore[attr-defined]
    if node is None:  # a definition the language's scopes do not cover (a constant, a type alias)
        text = chunk.decode("utf-8", "replace")
        if form != "full":
            form, text = "line", collapse(text)
        return RenderedSnippet(_reindent(text, indent, container_header), start_line, end_line, form)
    snippet = render(node, chunk, syntax, form, members=members, limit=limit)
    return RenderedSnippet(_reindent(snippet.text, indent, container_header), start_line, end_line, snippet.form)


def definition_member_names(source: bytes, language: str, definition: object,
                            trees: dict | None = None) -> frozenset[str]:
    """The names a skeleton of the definition matches `members` against (`snippets.member_names`):
    rendering with `members & definition_member_names(...)` (None when empty) shows the same."""
    cut = _chunk(source, language, definition, trees)
    if cut is None or cut[3] is None:
        return frozenset()
    syntax, chunk, _, node = cut
    return member_names(node, chunk, syntax)


def _chunk(source: bytes, language: str, definition: object, trees: dict | None):
    """(syntax, the definition's dedented lines, their indent, its node in their parse) or None
    for a language without a grammar; the parse is kept in `trees` per digest of the lines."""
    syntax = syntax_for(language)
    if syntax is None:
        return None
    start = source.rfind(b"\n", 0, definition.start_byte) + 1  # type: ignore[attr-defined]
    end = definition.end_byte  # type: ignore[attr-defined]
    chunk = source[start:end]
    indent = chunk[: len(chunk) - len(chunk.lstrip(b" \t"))]
    if indent:
        chunk = b"\n".join(line[len(indent):] if line.startswith(indent) else line for line in chunk.split(b"\n"))
    key = (syntax.name, len(chunk), xxhash.xxh3_128_intdigest(chunk))
    tree = trees.get(key) if trees is not None else None
    if tree is None:
        tree = parse(syntax.name, chunk)
        if trees is not None:
            trees[key] = tree
    return syntax, chunk, indent, _definition_node(tree.root_node, syntax)


def container_header(definitions_named, definition: object, source: bytes) -> str:
    """The header line of the first definition (in document order) that contains `definition` and
    is named as its container ("" when it has none); `definitions_named(name)` gives the file's
    definitions of `name` in document order."""
    container = getattr(definition, "container", None)
    if not container:
        return ""
    start = definition.start_byte  # type: ignore[attr-defined]
    for other in definitions_named(container):
        if other.start_byte < start < other.end_byte:
            return _line_at(source, other.name_byte or other.start_byte).rstrip() + "\n"
    return ""


def _definition_node(root: object, syntax) -> object | None:
    stack = [root]
    while stack:
        node = stack.pop(0)
        if node.type in syntax.scopes:  # type: ignore[attr-defined]
            return node
        if node.type in syntax.wrappers or node is root:  # type: ignore[attr-defined]
            stack.extend(node.named_children)  # type: ignore[attr-defined]
    return None


def _reindent(text: str, indent: bytes, header: str) -> str:
    prefix = indent.decode("utf-8", "replace")
    if prefix:
        text = "\n".join(prefix + line if line else line for line in text.split("\n"))
    return header + text.rstrip() + "\n"


def _line_at(source: bytes, offset: int) -> str:
    start = source.rfind(b"\n", 0, offset) + 1
    end = source.find(b"\n", offset)
    return source[start: end if end >= 0 else len(source)].decode("utf-8", "replace")
