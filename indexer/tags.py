"""Tags of one file: what it defines, what it refers to and what it imports (pure: tree -> data).

A tags query (`queries/<lang>-tags.scm`) uses these captures (read with `captures()`, so parts of
one definition are paired by position, not by match):
- `@definition.<kind>` on the whole definition node and `@name.<kind>` on its name: a definition's
  name is the first `@name.<kind>` capture starting inside it (queries are written so that a
  definition's own name precedes any nested definition's name of the same kind);
- `@container.name` inside a definition and before its name: the type a method belongs to when it
  is written outside it (Go receivers, C++ `A::f`); `@scope` + `@scope.name`: a container that
  is not a definition (Rust `impl A`);
- `@reference.call|type|attribute` on a referring name node;
- `@skip` on comments and strings (left out of the fingerprint);
- import statements as `@import`, `@include`, `@mod` or `@reexport` with parts (see
  `import_syntax.py`); `@package.name` for a Go/Java package clause.

Invariants:
- Lines are 0-based, bytes are offsets into the UTF-8 source the tree was parsed from.
- Definitions are in document order; one definition per name node (the widest node wins, so a
  decorated Python function spans its decorators).
- Each name node appears in `references` at most once, with the most specific kind
  (call > type > attribute > identifier); definition names are never references. Plain
  identifier references are kept only for names bound by this file's imports.
- `FileTags.fingerprint` is `fingerprint.semantic_fingerprint` of this file's tags and code words.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from indexer import languages
from indexer.fingerprint import semantic_fingerprint
from indexer.import_syntax import build_imports
from indexer.references import Reference, References
from indexer.spans import LineIndex, unique_sorted
from indexer.tag_chunks import ChunkAnalysis, analyze_chunk, bound_names_key, identifier_references

DEFINITION_KINDS = frozenset(
    {"function", "method", "class", "struct", "interface", "enum", "type", "variable", "constant", "module"}
)
REFERENCE_KINDS = ("call", "type", "attribute", "identifier")
CLASS_LIKE = frozenset({"class", "struct", "interface", "enum"})
_GENERIC_KIND_RANK = {"variable": 0, "type": 1}


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
    definitions: Sequence[Definition] = ()  # a tuple, or a lazily decoded `Definitions` from the snapshot
    references: Sequence[Reference] = ()  # a `References` (lazy) or a tuple
    imports: tuple[Import, ...] = ()
    package: str | None = None
    fingerprint: str = ""


def extract_tags(lang: str, tree: languages.Tree, source: bytes) -> FileTags:
    """The tags of `source` (parsed as `tree`) for language `lang`."""
    caps = languages.tag_captures(lang, tree)
    return assemble(lang, source, [(0, analyze_chunk(caps, source, 0, len(source)))])


IdentifierRefs = Callable[[int, ChunkAnalysis, tuple[bytes, ...]], list]


def assemble(
    lang: str,
    source: bytes,
    parts: Sequence[tuple[int, ChunkAnalysis]],
    extra: dict[str, list[tuple[int, int]]] | None = None,
    identifier_refs: IdentifierRefs | None = None,
) -> FileTags:
    """`FileTags` from the analyses of consecutive chunks (offset, analysis) covering the file,
    plus `extra` captures (absolute spans) of nodes larger than any chunk.
    `identifier_refs(offset, analysis, names)` may serve plain-identifier references from a
    cache; by default they are found in the chunk's text."""
    lines = LineIndex(source)
    structure: dict[str, list[tuple[int, int]]] = {key: list(spans) for key, spans in (extra or {}).items()}
    for offset, analysis in parts:
        for key, spans in analysis.structure.items():
            bucket = structure.setdefault(key, [])
            bucket.extend(spans if not offset else [(s + offset, e + offset) for s, e in spans])
    definitions = _definitions(structure, source, lines)
    imports, statements = build_imports(lang, structure, source, lines)
    bound = {name for imp in imports for name in imp.local_names}
    bound.update(imp.alias for imp in imports if imp.alias)
    names = bound_names_key(bound)
    spans: list[tuple[int, int, str]] = []
    words: list[bytes] = []
    for offset, analysis in parts:
        refs = analysis.references
        if names:
            if identifier_refs is not None:
                extra_refs = identifier_refs(offset, analysis, names)
            else:
                chunk = source[offset:offset + analysis.length] if offset or analysis.length < len(source) else source
                extra_refs = identifier_references(analysis, chunk, names)
            if extra_refs:
                kept = [r for r in extra_refs
                        if source[offset + r[0] - 1:offset + r[0]] != b"." and not statements.contains(r[0] + offset)]
                refs = sorted(refs + kept) if kept else refs
        spans.extend(refs if not offset else [(s + offset, e + offset, k) for s, e, k in refs])
        words.extend(analysis.words)
    package_spans = structure.get("package.name")
    return FileTags(
        language=lang,
        definitions=tuple(definitions),
        references=References.from_spans(source, spans, lines),
        imports=tuple(imports),
        package=_text(source, min(package_spans)) if package_spans else None,
        fingerprint=semantic_fingerprint(definitions, imports, words),
    )


def _text(source: bytes, span: tuple) -> str:
    return source[span[0]:span[1]].decode("utf-8", "replace")


def _first_inside(spans: list, starts: list, outer: tuple, before: int | None = None) -> tuple | None:
    """The first span of sorted `spans` that starts in `outer` (and before `before`) and ends in it."""
    i = bisect_left(starts, outer[0])
    if i == len(spans):
        return None
    span = spans[i]
    limit = outer[1] if before is None else before
    if span[0] >= limit or span[1] > outer[1]:
        return None
    return span


def _definitions(caps: dict, source: bytes, lines: LineIndex) -> list[Definition]:
    names: dict[str, tuple[list, list]] = {}
    for key, spans in caps.items():
        if key.startswith("name."):
            ordered = unique_sorted(spans)
            names[key[5:]] = (ordered, [s[0] for s in ordered])
    containers = unique_sorted(caps.get("container.name", ()))
    container_starts = [s[0] for s in containers]
    raw: dict[int, tuple] = {}  # name start byte -> (span, kind, name span, container span)
    for key, spans in caps.items():
        if not key.startswith("definition."):
            continue
        kind = key[11:]
        kind_names = names.get(kind)
        if kind_names is None:
            continue
        for span in set(spans):
            name_span = _first_inside(kind_names[0], kind_names[1], span)
            if name_span is None:
                continue
            container = _first_inside(containers, container_starts, span, before=name_span[0]) if containers else None
            old = raw.get(name_span[0])
            if old is None or _wider(span, kind, old[0], old[1]):
                raw[name_span[0]] = (span, kind, name_span, container)
    scope_names = unique_sorted(caps.get("scope.name", ()))
    scope_starts = [s[0] for s in scope_names]
    scopes = []
    for span in unique_sorted(caps.get("scope", ())):
        name_span = _first_inside(scope_names, scope_starts, span)
        if name_span is not None:
            scopes.append((span[0], span[1], _text(source, name_span)))
    return _build_definitions(raw, scopes, source, lines)


def _wider(span: tuple, kind: str, old_span: tuple, old_kind: str) -> bool:
    """Whether a definition match should replace another on the same name node: the wider node
    wins; on equal width a specific kind beats "type", which beats "variable"."""
    width, old_width = span[1] - span[0], old_span[1] - old_span[0]
    if width != old_width:
        return width > old_width
    return _GENERIC_KIND_RANK.get(kind, 2) > _GENERIC_KIND_RANK.get(old_kind, 2)


def _build_definitions(raw_defs: dict, scopes: list, source: bytes, lines: LineIndex) -> list[Definition]:
    """Definitions in document order, each with its container (innermost class-like or scope)."""
    ordered = sorted(raw_defs.values(), key=lambda d: (d[0][0], -d[0][1]))
    stack: list[tuple[int, str, str]] = []  # (end byte, kind, name) of enclosing definitions
    scope_stack: list[tuple[int, str]] = []
    scope_index = 0
    out: list[Definition] = []
    newlines = lines.newlines
    line_of = bisect_left
    for span, kind, name_span, explicit_container in ordered:
        start, end = span
        while stack and stack[-1][0] <= start:
            stack.pop()
        while scope_index < len(scopes) and scopes[scope_index][0] <= start:
            scope_stack.append((scopes[scope_index][1], scopes[scope_index][2]))
            scope_index += 1
        while scope_stack and scope_stack[-1][0] <= start:
            scope_stack.pop()
        name = source[name_span[0]:name_span[1]].decode("utf-8", "replace")
        if explicit_container:
            container: str | None = source[explicit_container[0]:explicit_container[1]].decode("utf-8", "replace")
        elif stack or scope_stack:
            container = _innermost_class(stack, scope_stack)
        else:
            container = None
        if kind == "function":
            if explicit_container or (stack and stack[-1][1] in CLASS_LIKE) or (
                    scope_stack and (not stack or scope_stack[-1][0] <= stack[-1][0])):
                kind = "method"
        elif kind == "variable" and _looks_constant(name):
            kind = "constant"
        out.append(Definition(
            name, kind, line_of(newlines, start), line_of(newlines, max(start, end - 1)), start, end,
            line_of(newlines, name_span[0]), name_span[0], container,
        ))
        stack.append((end, kind, name))
    return out


def _innermost_class(stack: list, scope_stack: list) -> str | None:
    for stack_end, kind, name in reversed(stack):
        if kind in CLASS_LIKE:
            if scope_stack and scope_stack[-1][0] < stack_end:
                return scope_stack[-1][1]
            return name
    return scope_stack[-1][1] if scope_stack else None


def _looks_constant(name: str) -> bool:
    return name.isupper() and len(name) > 1
