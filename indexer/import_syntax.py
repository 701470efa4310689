"""Turn the captured parts of import statements into `Import`s, per language (pure string work).

Statements are captured as `@import`, `@include`, `@mod` or `@reexport` (they never nest); their
parts, each assigned to the statement containing it, are `@import.module` (a module as written),
`@import.path` (a whole path to split per language: Rust use trees, Java dotted names),
`@import.name` (an imported name), `@import.alias` (a local name), `@import.default` (a JS default
import's local name), `@import.wildcard`, and `@import.pair` (a node holding one name or module
with its alias). An alias inside a pair with a name renames that name; any other alias names the
module (in a statement with several modules, the module in its pair).

Conventions of the resulting `Import.module`:
- python: as written, relative dots kept ("..pkg.mod", "."); `from __future__` imports are dropped.
- javascript/typescript: the string's content ("./util", "react").
- go: the import path ("example.com/m/pkg"); a `.` import is a wildcard.
- rust: "::"-joined path without the last segment ("crate::a::b"); `mod x;` gives kind "mod".
- java: the package or class path ("a.b" with names ("C",), or "a.b" wildcard); static imports
  give the class path ("a.b.C") with the member as the name.
- c/cpp: the include path; `<...>` includes get kind "system_include".
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import TYPE_CHECKING

from indexer.spans import LineIndex, SpanSet, unique_sorted

if TYPE_CHECKING:
    from indexer.tags import Import

_RUST_TOKEN = re.compile(r"::|[{},*]|[A-Za-z_][A-Za-z0-9_]*|r#[A-Za-z_][A-Za-z0-9_]*")
_STATEMENT_KINDS = {"import": "import", "include": "include", "mod": "mod", "reexport": "reexport"}
_PART_KEYS = ("import.module", "import.path", "import.name", "import.alias", "import.default",
              "import.wildcard", "import.pair")


def build_imports(lang: str, caps: dict, source: bytes, lines: LineIndex) -> tuple[list[Import], SpanSet]:
    """Imports in statement order, and the set of statement spans."""
    statements: dict[tuple[int, int], str] = {}
    for key, kind in _STATEMENT_KINDS.items():
        for span in caps.get(key, ()):
            statements.setdefault(span, kind)
    ordered = unique_sorted(statements)
    starts = [s[0] for s in ordered]
    parts: list[dict[str, list]] = [{} for _ in ordered]
    for key in _PART_KEYS:
        for span in caps.get(key, ()):
            i = bisect_right(starts, span[0]) - 1
            if i >= 0 and ordered[i][1] >= span[1]:
                bucket = parts[i].setdefault(key, [])
                if span not in bucket:
                    bucket.append(span)
    out: list[Import] = []
    for span, group in zip(ordered, parts):
        out.extend(_statement_imports(lang, statements[span], group, source, lines.line_of(span[0])))
    return out, SpanSet(ordered)


def _statement_imports(lang: str, kind: str, group: dict, source: bytes, line: int) -> list[Import]:
    from indexer.tags import Import

    paths = group.get("import.path")
    if paths:
        text = _text(source, paths[0])
        if lang == "rust":
            return _rust_use(text, line)
        if lang == "java":
            return [_java_import(text, "import.wildcard" in group, line)]
        return []
    modules = sorted(group.get("import.module", ()))
    if not modules:
        return []
    pairs = group.get("import.pair", ())
    names = sorted(group.get("import.name", ()))
    aliases = group.get("import.alias", ())

    def pair_of(span: tuple) -> tuple | None:
        for pair in pairs:
            if pair[0] <= span[0] and span[1] <= pair[1]:
                return pair
        return None

    name_alias: dict[tuple, tuple] = {}
    module_alias: dict[tuple, tuple] = {}
    for alias in aliases:
        pair = pair_of(alias)
        if pair is not None:
            paired_name = next((n for n in names if pair_of(n) == pair), None)
            if paired_name is not None:
                name_alias[paired_name] = alias
                continue
            paired_module = next((m for m in modules if pair_of(m) == pair), None)
            if paired_module is not None:
                module_alias[paired_module] = alias
                continue
        module_alias.setdefault(modules[0], alias)
    out: list[Import] = []
    for module_span in modules:
        module = _text(source, module_span)
        if lang == "python" and module == "__future__":
            continue
        own_names = names if len(modules) == 1 else []
        imported: list[str] = []
        local: list[str] = []
        if len(modules) == 1:
            for default in group.get("import.default", ()):
                imported.append("default")
                local.append(_text(source, default))
        for name_span in own_names:
            name = _text(source, name_span)
            imported.append(name)
            alias_span = name_alias.get(name_span)
            local.append(_text(source, alias_span) if alias_span else name.split(".")[-1])
        alias_span = module_alias.get(module_span)
        alias = _text(source, alias_span) if alias_span else None
        wildcard = "import.wildcard" in group
        import_kind = kind
        if lang == "go" and alias == ".":
            alias, wildcard = None, True
        elif lang == "go" and alias == "_":
            alias = None
        if kind == "include":
            if module.startswith("<"):
                import_kind = "system_include"
            module = module.strip('<>"')
        out.append(
            Import(
                module=module, names=tuple(imported), local_names=tuple(local),
                alias=alias, wildcard=wildcard, kind=import_kind, line=line,
            )
        )
    return out


def _text(source: bytes, span: tuple) -> str:
    return source[span[0]:span[1]].decode("utf-8", "replace")


def _java_import(path: str, wildcard: bool, line: int) -> Import:
    from indexer.tags import Import

    path = "".join(path.split())
    if wildcard:
        return Import(module=path, wildcard=True, line=line)
    # `import a.b.C` and `import static a.b.C.m` both split at the last dot.
    module, _, name = path.rpartition(".")
    return Import(module=module, names=(name,), local_names=(name,), line=line)


def _rust_use(text: str, line: int) -> list[Import]:
    """Expand a Rust use tree (`a::b::{c, d as e, f::*}`) into one `Import` per leaf."""
    from indexer.tags import Import

    tokens = _RUST_TOKEN.findall(text)
    leaves: list[tuple[list[str], str | None, bool]] = []
    _rust_tree(tokens, 0, [], leaves)
    out: list[Import] = []
    for path, alias, wildcard in leaves:
        if wildcard:
            out.append(Import(module="::".join(path), wildcard=True, line=line))
        elif path and path[-1] == "self":
            module = "::".join(path[:-1])
            local = alias or (path[-2] if len(path) > 1 else None)
            out.append(Import(module=module, alias=local, line=line))
        elif len(path) == 1:
            out.append(Import(module=path[0], alias=alias, line=line))
        elif path:
            name = path[-1]
            out.append(
                Import(
                    module="::".join(path[:-1]), names=(name,), local_names=(alias or name,), line=line
                )
            )
    return out


def _rust_tree(tokens: list[str], i: int, prefix: list[str], leaves: list) -> int:
    """Parse one use tree starting at tokens[i]; append leaves; return the index after it."""
    if i >= len(tokens):
        return i
    tok = tokens[i]
    if tok == "{":
        i += 1
        while i < len(tokens) and tokens[i] != "}":
            if tokens[i] == ",":
                i += 1
                continue
            i = _rust_tree(tokens, i, prefix, leaves)
        return i + 1
    if tok == "*":
        leaves.append((prefix, None, True))
        return i + 1
    if tok in (",", "}", "::"):
        return i + 1
    path = prefix + [tok]
    i += 1
    if i < len(tokens) and tokens[i] == "::":
        return _rust_tree(tokens, i + 1, path, leaves)
    if i + 1 < len(tokens) and tokens[i] == "as":
        leaves.append((path, tokens[i + 1], False))
        return i + 2
    leaves.append((path, None, False))
    return i
