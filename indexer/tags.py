"""Tags of one file: what it defines, what it refers to and what it imports (pure: tree -> data).

A tags query (`queries/<lang>-tags.scm`) uses these captures:
- `@definition.<kind>` on the whole definition node with `@name` on its name; optionally
  `@container.name` naming the type a method belongs to when it is written outside it (Go receivers,
  C++ `A::f`, Rust `impl A`), and `@scope` + `@scope.name` for containers that are not definitions.
- `@reference.call|type|attribute` on a referring name node.
- `@identifier` on every identifier-like node (the fingerprint's token stream).
- an import statement captured as `@import`, `@include`, `@mod` or `@reexport`, with parts
  `@import.module`, `@import.name`, `@import.alias`, `@import.wildcard`, `@import.path`
  (see `import_syntax.py` for how each language's parts become `Import`s).
- `@package.name` for a Go/Java package clause.

Invariants:
- Lines are 0-based, bytes are offsets into the UTF-8 source the tree was parsed from.
- Definitions are in document order; one definition per name node (the widest node wins, so a
  decorated Python function spans its decorators).
- Each name node appears in `references` at most once, with the most specific kind
  (call > type > attribute > identifier); definition names are never references. Plain
  identifier references are kept only for names bound by this file's imports.
- `FileTags.fingerprint` is `fingerprint.semantic_fingerprint` of this file's tags.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from indexer import languages
from indexer.fingerprint import semantic_fingerprint
from indexer.import_syntax import build_imports

DEFINITION_KINDS = frozenset(
    {"function", "method", "class", "struct", "interface", "enum", "type", "variable", "constant", "module"}
)
REFERENCE_KINDS = ("call", "type", "attribute", "identifier")
CLASS_LIKE = frozenset({"class", "struct", "interface", "enum"})
_REF_RANK = {"reference.call": 0, "reference.type": 1, "reference.attribute": 2}
_GENERIC_KIND_RANK = {"variable": 0, "type": 1}
_NEWLINE = re.compile(b"\n")
_IMPORT_STATEMENTS = {"import": "import", "include": "include", "mod": "mod", "reexport": "reexport"}


@dataclass(frozen=True, slots=True)
class Definition:
    """A named definition. `container` is the enclosing class/struct/impl's name, if any."""

    name: str
    kind: str
    start_line: int
    end_line: int
    start_byte: int
    end_byte: int
    name_line: int
    name_byte: int = 0
    container: str | None = None


@dataclass(frozen=True, slots=True)
class Reference:
    """A use of `name` at `line`/`byte` (the name node's start)."""

    name: str
    kind: str
    line: int
    byte: int


@dataclass(frozen=True, slots=True)
class Import:
    """One imported module, as written.

    `module` keeps the source spelling ("..pkg.mod", "./util", "fmt", "crate::a::b", "stdio.h").
    `names` are the imported names as the target spells them, `local_names` (same length) the
    names they are bound to here; `alias` is the local name bound to the module itself.
    `kind` is "import", "include", "system_include", "mod" (Rust `mod x;`) or "reexport".
    """

    module: str
    names: tuple[str, ...] = ()
    local_names: tuple[str, ...] = ()
    alias: str | None = None
    wildcard: bool = False
    kind: str = "import"
    line: int = 0


@dataclass(frozen=True, slots=True)
class FileTags:
    """Everything the index knows about one file's content (positions included)."""

    language: str
    definitions: tuple[Definition, ...] = ()
    references: tuple[Reference, ...] = ()
    imports: tuple[Import, ...] = ()
    package: str | None = None
    fingerprint: str = ""


def extract_tags(lang: str, tree: languages.Tree, source: bytes) -> FileTags:
    """The tags of `source` (parsed as `tree`) for language `lang`."""
    identifiers: list[tuple[int, int]] = []
    raw_defs: dict[int, tuple] = {}  # name start byte -> (span, kind, name span, explicit container)
    scopes: list[tuple[int, int, str]] = []
    refs: dict[int, tuple[int, str, tuple]] = {}  # name start byte -> (rank, kind, span)
    statements: dict[tuple[int, str], dict[str, list]] = {}
    package: str | None = None

    for match in languages.tag_matches(lang, tree):
        ids = match.get("identifier")
        if ids is not None:
            identifiers.extend(ids)
            continue
        name_spans = match.get("name")
        if name_spans is not None:
            _collect_definition(match, name_spans[0], raw_defs)
            continue
        handled = False
        for key, spans in match.items():
            rank = _REF_RANK.get(key)
            if rank is not None:
                span = spans[0]
                old = refs.get(span[0])
                if old is None or old[0] > rank:
                    refs[span[0]] = (rank, key[10:], span)
                handled = True
            elif key in _IMPORT_STATEMENTS:
                _collect_import_part(match, key, statements)
                handled = True
            elif key == "scope":
                scope_name = match.get("scope.name")
                if scope_name:
                    span = spans[0]
                    scopes.append((span[0], span[1], _text(source, scope_name[0])))
                handled = True
            elif key == "package.name":
                package = _text(source, spans[0])
                handled = True
            if handled:
                break

    definitions = _build_definitions(raw_defs, scopes, source)
    imports = build_imports(lang, statements, source)
    def_name_bytes = {d.name_byte for d in definitions}
    import_spans = sorted((g["statement"][0], g["statement"][1]) for g in statements.values())
    references = _build_references(refs, identifiers, imports, import_spans, def_name_bytes, source)
    fingerprint = semantic_fingerprint(
        definitions, imports, (source[s:e] for s, e in identifiers)
    )
    return FileTags(
        language=lang,
        definitions=tuple(definitions),
        references=references,
        imports=tuple(imports),
        package=package,
        fingerprint=fingerprint,
    )


def _text(source: bytes, span: tuple) -> str:
    return source[span[0]:span[1]].decode("utf-8", "replace")


def _collect_definition(match: dict, name_span: tuple, raw_defs: dict) -> None:
    for key, spans in match.items():
        if key.startswith("definition."):
            span = spans[0]
            container = match.get("container.name")
            kind = key[11:]
            old = raw_defs.get(name_span[0])
            if old is None or _wider(span, kind, old[0], old[1]):
                raw_defs[name_span[0]] = (span, kind, name_span, container[0] if container else None)
            return


def _wider(span: tuple, kind: str, old_span: tuple, old_kind: str) -> bool:
    """Whether a definition match should replace another on the same name node: the wider node
    wins; on equal width a specific kind beats "type", which beats "variable"."""
    width, old_width = span[1] - span[0], old_span[1] - old_span[0]
    if width != old_width:
        return width > old_width
    return _GENERIC_KIND_RANK.get(kind, 2) > _GENERIC_KIND_RANK.get(old_kind, 2)


def _collect_import_part(match: dict, statement_key: str, statements: dict) -> None:
    stmt = match[statement_key][0]
    module = match.get("import.module") or match.get("import.path")
    group_key = (stmt[0], module[0][0] if module else -1)
    group = statements.get(group_key)
    if group is None:
        group = statements[group_key] = {"kind": _IMPORT_STATEMENTS[statement_key], "statement": stmt}
    for key, spans in match.items():
        if key.startswith("import."):
            if key == "import.name":
                alias = match.get("import.alias")
                group.setdefault("pairs", []).append((spans[0], alias[0] if alias else None))
            elif key == "import.alias":
                if "import.name" not in match:
                    group["alias"] = spans[0]
            else:
                group.setdefault(key, spans[0])


def _build_definitions(raw_defs: dict, scopes: list, source: bytes) -> list[Definition]:
    """Definitions in document order, each with its container (innermost class-like or scope)."""
    ordered = sorted(raw_defs.values(), key=lambda d: (d[0][0], -d[0][1]))
    containers: list[tuple[int, int, str]] = sorted(scopes, key=lambda s: (s[0], -s[1]))
    stack: list[tuple[int, str, str]] = []  # (end byte, kind, name) of open definitions
    scope_stack: list[tuple[int, str]] = []
    scope_index = 0
    out: list[Definition] = []
    for span, kind, name_span, explicit_container in ordered:
        start = span[0]
        while stack and stack[-1][0] <= start:
            stack.pop()
        while scope_index < len(containers) and containers[scope_index][0] <= start:
            scope_stack.append((containers[scope_index][1], containers[scope_index][2]))
            scope_index += 1
        while scope_stack and scope_stack[-1][0] <= start:
            scope_stack.pop()
        name = _text(source, name_span)
        container = _text(source, explicit_container) if explicit_container else None
        if container is None:
            container = _innermost_class(stack, scope_stack, span[1])
        direct_parent_is_class = bool(stack) and stack[-1][1] in CLASS_LIKE
        in_scope = bool(scope_stack) and (not stack or scope_stack[-1][0] <= stack[-1][0])
        if kind == "function" and (explicit_container or direct_parent_is_class or in_scope):
            kind = "method"
        elif kind == "variable" and _looks_constant(name):
            kind = "constant"
        out.append(
            Definition(
                name=name, kind=kind,
                start_line=span[2], end_line=span[3], start_byte=span[0], end_byte=span[1],
                name_line=name_span[2], name_byte=name_span[0], container=container,
            )
        )
        stack.append((span[1], kind, name))
    return out


def _innermost_class(stack: list, scope_stack: list, end: int) -> str | None:
    for stack_end, kind, name in reversed(stack):
        if kind in CLASS_LIKE and stack_end >= end:
            if scope_stack and scope_stack[-1][0] < stack_end:
                return scope_stack[-1][1]
            return name
    return scope_stack[-1][1] if scope_stack else None


def _looks_constant(name: str) -> bool:
    return name.isupper() and len(name) > 1


def _build_references(
    refs: dict, identifiers: list, imports: list, import_spans: list, def_name_bytes: set, source: bytes
) -> tuple[Reference, ...]:
    out = [
        Reference(_text(source, span), kind, span[2], start)
        for start, (_, kind, span) in refs.items()
        if start not in def_name_bytes
    ]
    bound = {name.encode() for imp in imports for name in imp.local_names}
    bound.update(imp.alias.encode() for imp in imports if imp.alias)
    if bound:
        import_starts = [s for s, _ in import_spans]
        newlines: list[int] | None = None
        for start, end in identifiers:
            if start in refs or start in def_name_bytes:
                continue
            text = source[start:end]
            if text not in bound:
                continue
            i = bisect_right(import_starts, start) - 1
            if i >= 0 and import_spans[i][1] > start:
                continue
            if newlines is None:
                newlines = [m.start() for m in _NEWLINE.finditer(source)]
            line = bisect_right(newlines, start - 1)
            out.append(Reference(text.decode("utf-8", "replace"), "identifier", line, start))
    out.sort(key=lambda r: r.byte)
    return tuple(out)
