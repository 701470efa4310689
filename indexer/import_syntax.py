"""Turn the captured parts of import statements into `Import`s, per language (pure string work).

`tags.extract_tags` groups a statement's captures by (statement, module) into dicts with keys
"kind", "statement" (span), and optionally "import.module", "import.path", "import.default",
"import.wildcard", "alias" (span of the module's local name) and "pairs" (list of
(name span, alias span or None)). This module reads only those spans' text.

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
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from indexer.tags import Import

_RUST_TOKEN = re.compile(r"::|[{},*]|[A-Za-z_][A-Za-z0-9_]*|r#[A-Za-z_][A-Za-z0-9_]*")


def build_imports(lang: str, statements: dict, source: bytes) -> list[Import]:
    """Imports in statement order for the grouped captures of one file."""
    from indexer.tags import Import

    out: list[Import] = []
    for (_, _), group in sorted(statements.items()):
        line = group["statement"][2]
        kind = group["kind"]
        path_span = group.get("import.path")
        if path_span is not None:
            text = _text(source, path_span)
            if lang == "rust":
                out.extend(_rust_use(text, line))
            elif lang == "java":
                out.append(_java_import(text, "import.wildcard" in group, line))
            continue
        module_span = group.get("import.module")
        module = _text(source, module_span) if module_span else ""
        if lang == "python" and module in ("", "__future__"):
            continue
        names: list[str] = []
        local_names: list[str] = []
        default = group.get("import.default")
        if default is not None:
            names.append("default")
            local_names.append(_text(source, default))
        for name_span, alias_span in group.get("pairs", ()):
            name = _text(source, name_span)
            names.append(name)
            local_names.append(_text(source, alias_span) if alias_span else name.split(".")[-1])
        alias_span = group.get("alias")
        alias = _text(source, alias_span) if alias_span else None
        wildcard = "import.wildcard" in group
        if lang == "go" and alias == ".":
            alias, wildcard = None, True
        elif lang == "go" and alias == "_":
            alias = None
        if kind == "include":
            if module.startswith("<"):
                kind = "system_include"
            module = module.strip('<>"')
        out.append(
            Import(
                module=module, names=tuple(names), local_names=tuple(local_names),
                alias=alias, wildcard=wildcard, kind=kind, line=line,
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
