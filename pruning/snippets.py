"""Render a definition as prompt text: its full body, its signature, or a class skeleton.

Forms:
- "full": the definition's whole lines, as written;
- "line": the definition's own header (no decorators or doc comment) on one line, whitespace
  runs collapsed (+ ` ...` in Python, where a header alone does not parse; a brace language's
  header reads as a declaration without its body); at most `MAX_LINE_CHARS` characters (cut
  with ` ...`) unless its name alone is longer. The cheapest form that still names the
  definition and its first parameters;
- "signature": header (decorators, modifiers, parameters, return type) + the first line of its
  docstring or doc comment + the language's body placeholder (`...`, `{ /* ... */ }`);
- "skeleton": a class/interface/struct header with each member reduced to one line: methods to
  signatures, fields kept, nested types to signatures; the closing brace kept for brace languages.

With `parents=True` the headers of enclosing scopes are prepended (one line each), so that a method
rendered alone still shows which class it belongs to. Every rendered snippet keeps its provenance:
`start_line`/`end_line` (0-based, inclusive) of the source it was taken from.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from indexer import Syntax

from .scopes import as_scope, body_of, name_of

CLASS_KINDS = frozenset({"class", "interface", "struct", "enum", "impl", "type", "namespace"})


class RenderedSnippet(NamedTuple):
    text: str
    start_line: int
    end_line: int
    form: str


def render(node: object, source: bytes, syntax: Syntax, form: str, *, parents: bool = False,
           members: frozenset[str] | None = None, limit: int = 12) -> RenderedSnippet:
    """Renders definition `node` of `source` in `form` ("full", "line", "signature" or "skeleton").

    For a skeleton, `members` (when given) limits the methods shown to those names; fields and
    constructors are always shown.
    """
    kind = syntax.scopes.get(node.type, "")  # type: ignore[attr-defined]
    scope = as_scope(node, kind, syntax, source)
    if form == "full":
        text = _whole_lines(source, scope.outer.start_byte, node.end_byte)  # type: ignore[attr-defined]
    elif form == "line":
        text = _indent_of(source, scope.outer.start_byte) + one_line(node, source, syntax)  # type: ignore[attr-defined]
    elif form == "skeleton" and kind in CLASS_KINDS:
        text = skeleton(node, source, syntax, members, limit)
    else:
        form = "signature"
        text = signature(node, source, syntax)
    if parents:
        text = _parent_headers(node, source, syntax) + text
    return RenderedSnippet(text=text.rstrip() + "\n", start_line=scope.start_line, end_line=scope.end_line, form=form)


def signature(node: object, source: bytes, syntax: Syntax) -> str:
    """Header + doc first line + placeholder, indented as in the source."""
    kind = syntax.scopes.get(node.type, "")  # type: ignore[attr-defined]
    scope = as_scope(node, kind, syntax, source)
    body = body_of(node)
    start = scope.outer.start_byte  # type: ignore[attr-defined]
    indent = _indent_of(source, start)
    if body is None or kind == "type" and not syntax.indent_blocks:
        text = _whole_lines(source, start, node.end_byte)  # type: ignore[attr-defined]
        return _doc_comment(scope.outer, source, syntax, indent) + text
    header = _whole_lines(source, start, body.start_byte).rstrip()  # type: ignore[attr-defined]
    if syntax.indent_blocks:
        inner = indent + "    "
        doc = _python_docstring(body, source)
        return header + (f"\n{inner}{doc}" if doc else f" {syntax.placeholder}")
    return _doc_comment(scope.outer, source, syntax, indent) + f"{header} {syntax.placeholder}"


MAX_LINE_CHARS = 56
_NAME_END = re.compile(r"[(<\[{=:]")  # where a definition's name ends


def one_line(node: object, source: bytes, syntax: Syntax) -> str:
    """The "line" form of definition `node`: its header from the node's own start (after any
    decorator) to its body, or its whole text when it has none, on one line (see the module
    docstring)."""
    body = body_of(node)
    end = body.start_byte if body is not None else node.end_byte  # type: ignore[attr-defined]
    text = collapse(source[node.start_byte:end].decode("utf-8", "replace"))  # type: ignore[attr-defined]
    if body is not None and syntax.indent_blocks:
        text = f"{text} {syntax.placeholder}"
    return text


def collapse(text: str, limit: int | None = None) -> str:
    """`text` on one line: each run of whitespace one space, none just inside brackets, no comma
    before a closing bracket; longer than `limit` characters: cut after a space, `(` or `,`,
    ending ` ...`, but never before the first bracket when that would leave under half of it
    (`function buildClientInfoFromHomeAccountId(` stays whole)."""
    out: list[str] = []
    for word in text.split():
        if out and (out[-1].endswith(("(", "[", "<")) or word.startswith((")", "]", ">"))):
            if out[-1].endswith(",") and word.startswith((")", "]", ">")):
                out[-1] = out[-1][:-1]
            out[-1] += word
        else:
            out.append(word)
    line = " ".join(out)
    limit = MAX_LINE_CHARS if limit is None else limit
    if len(line) > limit:
        keep = limit - 4
        cut = max(line.rfind(" ", 0, keep), line.rfind("(", 0, keep) + 1, line.rfind(",", 0, keep) + 1)
        if cut < keep // 2:  # the cut would drop a long name: keep the words up to its first bracket
            bracket = _NAME_END.search(line)
            cut = bracket.end() if bracket is not None else keep
        line = line[:cut].rstrip() + " ..."
    return line


MAX_SKELETON_MEMBERS = 12


def _elision(syntax: Syntax) -> str:
    return "..." if syntax.indent_blocks else f"{syntax.line_comment} ..."


CONSTRUCTORS = frozenset({"__init__", "__new__", "constructor", "new", "init"})


def skeleton(node: object, source: bytes, syntax: Syntax, members: frozenset[str] | None = None,
             limit: int = 12) -> str:
    """A class-like definition with every member reduced to one line or a signature."""
    body = body_of(node)
    if body is None:
        return signature(node, source, syntax)
    kind = syntax.scopes.get(node.type, "")  # type: ignore[attr-defined]
    scope = as_scope(node, kind, syntax, source)
    start = scope.outer.start_byte  # type: ignore[attr-defined]
    indent = _indent_of(source, start)
    header = _whole_lines(source, start, body.start_byte).rstrip()  # type: ignore[attr-defined]
    lines = [_doc_comment(scope.outer, source, syntax, indent) + header]
    if not syntax.indent_blocks:
        lines[0] += " {"
    class_name = scope.name
    if members is not None and not members & member_names(node, source, syntax):
        members = None  # none of the wanted names is a member here: show the members in order
    shown = 0
    for index, member in enumerate(body.named_children):  # type: ignore[attr-defined]
        if members is not None and not _wanted(member, syntax, source, members, class_name):
            continue
        line = _member_line(member, source, syntax, first=index == 0)
        if not line:
            continue
        if shown == limit:
            lines.append(_indent_of(source, member.start_byte) + _elision(syntax))  # type: ignore[attr-defined]
            break
        lines.append(line)
        shown += 1
    if syntax.indent_blocks and len(lines) == 1:
        lines.append(indent + "    " + syntax.placeholder)
    if not syntax.indent_blocks:
        lines.append(indent + "}")
    return "\n".join(lines)


def _unwrapped(member: object, syntax: Syntax) -> object:
    """The definition inside a member's wrappers (decorators, `export`)."""
    inner = member
    while inner.type in syntax.wrappers and inner.named_children:  # type: ignore[attr-defined]
        inner = inner.named_children[-1]  # type: ignore[attr-defined]
    return inner


def member_names(node: object, source: bytes, syntax: Syntax) -> frozenset[str]:
    """The names the members of class-like `node` define: a skeleton's `members` matter only
    where they are among these (none among them: the members are shown in order)."""
    body = body_of(node)
    if body is None:
        return frozenset()
    return frozenset(filter(None, (_member_name(m, syntax, source) for m in body.named_children)))  # type: ignore[attr-defined]


def _member_name(member: object, syntax: Syntax, source: bytes) -> str:
    """The name a member defines ("" for a field, a statement or a comment)."""
    inner = _unwrapped(member, syntax)
    return name_of(inner, source) if inner.type in syntax.scopes else ""  # type: ignore[attr-defined]


def _wanted(member: object, syntax: Syntax, source: bytes, members: frozenset[str], class_name: str) -> bool:
    name = _member_name(member, syntax, source)
    return not name or name in members or name in CONSTRUCTORS or name == class_name


def _member_line(member: object, source: bytes, syntax: Syntax, *, first: bool) -> str:
    inner = _unwrapped(member, syntax)
    if inner.type in syntax.comments:  # type: ignore[attr-defined]
        return ""
    if inner.type in syntax.scopes:  # type: ignore[attr-defined]
        return signature(inner, source, syntax)
    text = _whole_lines(source, member.start_byte, member.end_byte).rstrip()  # type: ignore[attr-defined]
    if syntax.indent_blocks and inner.type == "expression_statement":  # type: ignore[attr-defined]
        child = inner.named_children[0] if inner.named_children else None  # type: ignore[attr-defined]
        if child is not None and child.type == "string":
            if not first:
                return ""
            doc = _first_doc_line(child, source)
            return _indent_of(source, member.start_byte) + doc if doc else ""  # type: ignore[attr-defined]
        if child is None or child.type not in ("assignment", "augmented_assignment"):
            return ""
    return text.split("\n")[0]


def _parent_headers(node: object, source: bytes, syntax: Syntax) -> str:
    headers: list[str] = []
    parent = node.parent  # type: ignore[attr-defined]
    while parent is not None:
        kind = syntax.scopes.get(parent.type)
        if kind in CLASS_KINDS:
            scope = as_scope(parent, kind, syntax, source)
            header = _whole_lines(source, scope.outer.start_byte, scope.body_start_byte).rstrip()  # type: ignore[attr-defined]
            headers.append(header + ("" if syntax.indent_blocks else " {"))
        parent = parent.parent
    return "".join(h + "\n" for h in reversed(headers))


def _python_docstring(body: object, source: bytes) -> str:
    children = body.named_children  # type: ignore[attr-defined]
    if not children or children[0].type != "expression_statement":
        return ""
    string = children[0].named_children[0] if children[0].named_children else None
    if string is None or string.type != "string":
        return ""
    return _first_doc_line(string, source)


def _first_doc_line(string: object, source: bytes) -> str:
    raw = source[string.start_byte:string.end_byte].decode("utf-8", "replace")  # type: ignore[attr-defined]
    quote_at = min((raw.find(q) for q in ('"""', "'''", '"', "'") if raw.find(q) >= 0), default=-1)
    if quote_at < 0:
        return ""
    quote = '"""' if raw.startswith('"""', quote_at) else "'''" if raw.startswith("'''", quote_at) else raw[quote_at]
    content = raw[quote_at + len(quote): len(raw) - len(quote)]
    for line in content.splitlines():
        line = line.strip().replace(quote, "")
        if line:
            return f"{raw[:quote_at]}{quote}{line.rstrip(chr(92))}{quote}"
    return ""


def _doc_comment(outer: object, source: bytes, syntax: Syntax, indent: str) -> str:
    """First text line of a comment that ends on the line just above the definition."""
    previous = outer.prev_sibling  # type: ignore[attr-defined]
    if previous is None or previous.type not in syntax.comments:
        return ""
    if previous.end_point[0] + 1 != outer.start_point[0]:  # type: ignore[attr-defined]
        return ""
    text = source[previous.start_byte:previous.end_byte].decode("utf-8", "replace")
    for line in text.splitlines():
        line = line.strip().lstrip("/*#!").strip().rstrip("*/").strip()
        if line and not line.startswith("@"):
            return f"{indent}{syntax.line_comment} {line}\n"
    return ""


def _whole_lines(source: bytes, start: int, end: int) -> str:
    """Source from `start` up to `end`, widened to the line start when only indentation precedes
    `start` on its line (so the text keeps its indentation)."""
    line_start = source.rfind(b"\n", 0, start) + 1
    if source[line_start:start].strip():
        line_start = start
    return source[line_start:end].decode("utf-8", "replace")


def _indent_of(source: bytes, offset: int) -> str:
    line_start = source.rfind(b"\n", 0, offset) + 1
    line = source[line_start:offset].decode("utf-8", "replace")
    indent = line[: len(line) - len(line.lstrip())]
    return indent if len(indent) == len(line) else ""
