"""Target lines for the context benchmark: lines of real code that use a name another file of the
same package defines, in any language the index supports.

A reference to `name` on a line is a target when `name` is a top-level definition (function,
class, type, constant...) of one to three other files of the package, the file does not define
it itself, and the reference can only mean that definition:
- a bare name must be bound by one of the file's imports (`from m import name`, `import {name}`,
  `use crate::m::Name`), or, in Go, be defined in another file of the same directory (a Go
  package's files see each other's names without an import);
- `owner.name` needs `owner` to be a module the file imports whose last part names the defining
  file's module (Python, TypeScript namespace imports) or directory (Go packages).
`loop.run` on some object is a method call, not a use of a top-level `run` elsewhere, and a bare
name no import binds is a builtin: neither is a target. Import lines themselves are never targets.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

TOP_KINDS = frozenset({"function", "class", "variable", "constant", "interface", "type", "struct", "enum",
                       "trait", "union", "macro"})
MAX_DEFINING_FILES = 3


@dataclass(frozen=True, slots=True)
class Target:
    path: str  # absolute, as the index names it
    line: int  # 0-based
    names: dict[str, list[tuple[str, int]]]  # name -> (defining file, its definition's name line)


def sample_targets(graph, files: list[str], count: int, seed: int) -> list[Target]:
    """Up to `count` target lines of `files` (paths indexed in `graph`), drawn with `seed`."""
    top: dict[str, list[tuple[str, int]]] = {}
    for path in files:
        for d in graph.tags(path).definitions:
            if d.container is None and d.kind in TOP_KINDS and len(d.name) > 2 and not d.name.startswith("__"):
                top.setdefault(d.name, []).append((path, d.name_line))
    candidates = []
    for path in files:
        tags = graph.tags(path)
        source = _source(path)
        own = {d.name for d in tags.definitions}
        bound, modules = import_bindings(tags)
        by_line: dict[int, set[str]] = {}
        for ref in tags.references:
            where = [w for w in top.get(ref.name, ()) if w[0] != path]
            if ref.name in own or not where or len({p for p, _ in where}) > MAX_DEFINING_FILES:
                continue
            if means_definition(tags.language, path, owner_before(source, ref.byte), ref.name, bound, modules, where):
                by_line.setdefault(ref.line, set()).add(ref.name)
        import_lines = {imp.line for imp in tags.imports}
        for line, names in sorted(by_line.items()):
            if line not in import_lines:
                candidates.append(Target(path, line, {n: [w for w in top[n] if w[0] != path] for n in sorted(names)}))
    random.Random(seed).shuffle(candidates)
    return candidates[:count]


def means_definition(language: str, path: str, owner: str | None, name: str, bound: set[str],
                     modules: dict[str, str], where: list[tuple[str, int]]) -> bool:
    """Whether a reference to `name` (after `owner.`, or bare when `owner` is None) in `path` can
    only mean one of the top-level definitions `where` (see the module docstring)."""
    if owner is None:
        if name in bound:
            return True
        return language == "go" and any(_directory(p) == _directory(path) for p, _ in where)
    module = modules.get(owner)
    if module is None:
        return False
    stem = module_stem_of(module)
    if language == "go":
        return any(_directory(p).rpartition("/")[2] == stem for p, _ in where)
    return stem in {module_stem(p) for p, _ in where}


def import_bindings(tags) -> tuple[set[str], dict[str, str]]:
    """Names bound by the file's imports, and local module names -> the module they name."""
    bound: set[str] = set()
    modules: dict[str, str] = {}
    for imp in tags.imports:
        for original, local in zip(imp.names, imp.local_names):
            bound.add(local)
            modules[local] = f"{imp.module}.{original}"
        if imp.alias:
            modules[imp.alias] = imp.module
        elif not imp.names:
            last = _last_part(imp.module)
            modules[last] = imp.module
    return bound, modules


def owner_before(source: bytes, byte: int) -> str | None:
    """For `owner.name` (or Rust's `owner::name`) at `byte`, the owner's last identifier ("" when
    it is not one); None when the name follows neither."""
    before = source[:byte].rstrip()
    if before.endswith(b"::"):
        end = len(before) - 2
    elif before.endswith(b"."):
        end = len(before) - 1
    else:
        return None
    while end > 0 and before[end - 1:end].isspace():
        end -= 1
    start = end
    while start > 0 and (before[start - 1:start].isalnum() or before[start - 1:start] == b"_"):
        start -= 1
    return before[start:end].decode("utf-8", "replace")


def module_stem_of(dotted: str) -> str:
    return _last_part(dotted.rstrip("."))


def module_stem(path: str) -> str:
    directory, _, name = path.rpartition("/")
    stem = name.rsplit(".", 1)[0]
    return directory.rpartition("/")[2] if stem in ("__init__", "index", "mod") else stem


def _last_part(module: str) -> str:
    """`a.b.c` -> c, `crate::a::b` -> b, `./dir/file.js` -> file, `github.com/x/pkg` -> pkg."""
    if "/" in module:
        module = module.rsplit("/", 1)[-1]
        return module.split(".", 1)[0] if module not in ("", ".", "..") else module
    for separator in ("::", "."):
        module = module.rsplit(separator, 1)[-1] if separator in module else module
    return module


def _directory(path: str) -> str:
    return path.rpartition("/")[0]


def _source(path: str) -> bytes:
    """The bytes `path`'s tags were made from (a scanned file's, read back from disk)."""
    with open(path, "rb") as handle:
        return handle.read()
