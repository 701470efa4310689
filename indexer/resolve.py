"""Import resolution: which workspace files an `Import` of a given file refers to.

`ModuleIndex` holds lookup tables over the set of indexed paths and is updated as files come and
go; `resolve_import(index, path, lang, imp)` is a pure lookup over it. Paths are absolute and
'/'-separated (POSIX); nothing here touches the file system.

Rules per language (first existing candidate wins unless noted; ties broken by nearness to the
importing file, then by path):
- python: relative imports climb `level - 1` directories from the importing file's directory;
  absolute imports match any file whose dotted path ends with the module (`a/b/c.py`,
  `a/b/c/__init__.py`, `.pyi` too) and that the import can name from a directory on the module
  search path: the directory above the module's first package is not a package itself (holds no
  `__init__.py`), so `import collections` in a package is the standard library's, not the
  package's own `pkg/_internal/collections.py`. `from m import x` also yields the submodule `m/x`
  if indexed.
- javascript/typescript/tsx: relative specifiers only; tries the path as is, with each source
  extension, a `.js`-style suffix swapped for `.ts`/`.tsx`, and `index.*` inside a directory.
- go: the package directory by `go.mod` module prefix, else by the longest directory suffix
  matching at least two path segments (or the whole path); every `.go` file in that directory.
- rust: `crate::`/`self::`/`super::` paths and `mod x;` walk module directories (`x.rs` or
  `x/mod.rs`); the crate root is the nearest directory holding `lib.rs` or `main.rs`.
- java: files whose `package` is the module (wildcard: all; otherwise the one named after the
  class, else all of the package); static imports resolve through their class.
- c/cpp: `"x.h"` relative to the including file first, then any file whose path ends with
  `/x.h`; `<x.h>` only by that suffix.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from dataclasses import dataclass, field

from indexer.tags import Import

_JS_EXTS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
_JS_LANGS = frozenset({"javascript", "typescript", "tsx"})


@dataclass(slots=True)
class ModuleIndex:
    """Lookup tables over indexed paths (kept in step by `add` / `remove`)."""

    paths: set[str] = field(default_factory=set)
    by_dir: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    python_suffixes: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    path_suffixes: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    java_packages: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    go_dir_suffixes: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    go_modules: dict[str, str] = field(default_factory=dict)  # module path -> directory

    def add(self, path: str, package: str | None = None, lang: str | None = None) -> None:
        if path in self.paths:
            self.remove(path)
        self.paths.add(path)
        self.by_dir[posixpath.dirname(path)].add(path)
        parts = path.strip("/").split("/")
        for i in range(1, min(len(parts), 6) + 1):
            self.path_suffixes["/".join(parts[-i:])].add(path)
        for key in _python_keys(parts):
            self.python_suffixes[key].add(path)
        if lang == "java" and package:
            self.java_packages[package].add(path)
        if path.endswith(".go"):
            dir_parts = parts[:-1]
            for i in range(1, min(len(dir_parts), 8) + 1):
                self.go_dir_suffixes["/".join(dir_parts[-i:])].add("/" + "/".join(dir_parts))

    def remove(self, path: str) -> None:
        if path not in self.paths:
            return
        self.paths.discard(path)
        _discard(self.by_dir, posixpath.dirname(path), path)
        parts = path.strip("/").split("/")
        for i in range(1, min(len(parts), 6) + 1):
            _discard(self.path_suffixes, "/".join(parts[-i:]), path)
        for key in _python_keys(parts):
            _discard(self.python_suffixes, key, path)
        for package in [p for p, files in self.java_packages.items() if path in files]:
            _discard(self.java_packages, package, path)
        directory = posixpath.dirname(path)
        if path.endswith(".go") and not any(p.endswith(".go") for p in self.by_dir.get(directory, ())):
            dir_parts = parts[:-1]
            for i in range(1, min(len(dir_parts), 8) + 1):
                _discard(self.go_dir_suffixes, "/".join(dir_parts[-i:]), directory)


def _discard(table: dict[str, set[str]], key: str, path: str) -> None:
    bucket = table.get(key)
    if bucket is not None:
        bucket.discard(path)
        if not bucket:
            del table[key]


def _python_keys(parts: list[str]) -> list[str]:
    name = parts[-1]
    stem, dot, ext = name.rpartition(".")
    if not dot or ext not in ("py", "pyi", "pyw"):
        return []
    segments = parts[:-1] if stem == "__init__" else parts[:-1] + [stem]
    return [".".join(segments[-i:]) for i in range(1, len(segments) + 1)]


def resolve_import(index: ModuleIndex, path: str, lang: str, imp: Import) -> tuple[str, ...]:
    """Workspace files `imp` (found in `path`, of language `lang`) refers to, best first."""
    if lang == "python":
        found = _python(index, path, imp)
    elif lang in _JS_LANGS:
        found = _javascript(index, path, imp.module)
    elif lang == "go":
        found = _go(index, imp.module)
    elif lang == "rust":
        found = _rust(index, path, imp)
    elif lang == "java":
        found = _java(index, imp)
    elif lang in ("c", "cpp"):
        found = _include(index, path, imp)
    else:
        found = []
    found = [f for f in dict.fromkeys(found) if f != path]
    return tuple(found)


def _nearest(candidates: set[str] | None, path: str) -> list[str]:
    if not candidates:
        return []
    return sorted(candidates, key=lambda c: (-shared_path_length(c, path), c))


def shared_path_length(a: str, b: str) -> int:
    """Length of the longest common path of `a` and `b` ('/'-separated), as
    `len(posixpath.commonpath([a, b]))` for two absolute paths (0 when only one is absolute):
    how near two files sit."""
    if a[:1] != b[:1] and "/" in (a[:1], b[:1]):
        return 0
    common = 0
    for x, y in zip(a.split("/"), b.split("/")):
        if x != y:
            break
        common += 1
    if common == 0:
        return 0
    if common == 1 and a[:1] == "/":
        return 1
    return len("/".join(a.split("/", common)[:common]))


def _python(index: ModuleIndex, path: str, imp: Import) -> list[str]:
    module = imp.module
    level = len(module) - len(module.lstrip("."))
    if level:
        base = posixpath.dirname(path)
        for _ in range(level - 1):
            base = posixpath.dirname(base)
        rest = module[level:]
        base = posixpath.join(base, *rest.split(".")) if rest else base
        found = _python_files(index, base)
        for name in imp.names:
            found += _python_files(index, posixpath.join(base, *name.split(".")), package=False)
        return found
    found = _nearest(_importable(index, module), path)[:1]
    for name in imp.names:
        found += _nearest(_importable(index, f"{module}.{name}"), path)[:1]
    return found


def _importable(index: ModuleIndex, module: str) -> set[str]:
    """The files whose dotted path ends with `module` and that an absolute import of `module`
    names: the directory above the module's first package holds no `__init__.py` (or `.pyi`)."""
    out = set()
    for candidate in index.python_suffixes.get(module, ()):
        above = posixpath.dirname(candidate)  # the directory of the module's last segment
        if posixpath.basename(candidate).startswith("__init__."):
            above = posixpath.dirname(above)
        for _ in range(module.count(".")):
            above = posixpath.dirname(above)
        if above + "/__init__.py" not in index.paths and above + "/__init__.pyi" not in index.paths:
            out.add(candidate)
    return out


def _python_files(index: ModuleIndex, base: str, package: bool = True) -> list[str]:
    candidates = [base + ".py", base + ".pyi", base + "/__init__.py", base + "/__init__.pyi"]
    return [c for c in candidates if c in index.paths]


def _javascript(index: ModuleIndex, path: str, module: str) -> list[str]:
    if not module.startswith("."):
        return []
    base = posixpath.normpath(posixpath.join(posixpath.dirname(path), module))
    candidates = [base] + [base + ext for ext in _JS_EXTS]
    stem, ext = posixpath.splitext(base)
    if ext in (".js", ".jsx", ".mjs", ".cjs"):
        candidates += [stem + e for e in (".ts", ".tsx", ".mts", ".cts", ".d.ts")]
    candidates += [posixpath.join(base, "index" + e) for e in _JS_EXTS]
    for candidate in candidates:
        if candidate in index.paths:
            return [candidate]
    return []


def _go(index: ModuleIndex, module: str) -> list[str]:
    directory = None
    for mod_path in sorted(index.go_modules, key=len, reverse=True):
        if module == mod_path or module.startswith(mod_path + "/"):
            rest = module[len(mod_path):].strip("/")
            directory = posixpath.join(index.go_modules[mod_path], rest) if rest else index.go_modules[mod_path]
            break
    if directory is None:
        segments = module.split("/")
        for n in range(len(segments), 0, -1):
            if n < 2 and n != len(segments):
                break
            dirs = index.go_dir_suffixes.get("/".join(segments[-n:]))
            if dirs:
                directory = sorted(dirs)[0]
                break
    if directory is None:
        return []
    return sorted(p for p in index.by_dir.get(directory, ()) if p.endswith(".go"))


def _rust(index: ModuleIndex, path: str, imp: Import) -> list[str]:
    if imp.kind == "mod":
        return _rust_module_file(index, _rust_module_dir(path), imp.module)
    segments = [s for s in imp.module.split("::") if s]
    if not segments:
        return []
    head = segments[0]
    if head == "crate":
        directory, rest = _rust_crate_dir(index, path), segments[1:]
    elif head == "self":
        directory, rest = _rust_module_dir(path), segments[1:]
    elif head == "super":
        directory, rest = _rust_module_dir(path), segments
        while rest and rest[0] == "super":
            directory, rest = posixpath.dirname(directory), rest[1:]
    else:  # a sibling module of the current one, else a crate-level path
        directory, rest = _rust_module_dir(path), segments
        if not _rust_module_file(index, directory, head):
            directory = _rust_crate_dir(index, path)
    if directory is None:
        return []
    found: list[str] = []
    current = directory
    module_file: list[str] = _rust_root_file(index, current) if not rest else []
    for segment in rest:
        module_file = _rust_module_file(index, current, segment)
        if not module_file:
            return found
        current = posixpath.join(current, segment)
    found += module_file
    for name in imp.names:
        found += _rust_module_file(index, current, name)
    return found


def _rust_module_dir(path: str) -> str:
    directory, name = posixpath.split(path)
    if name in ("mod.rs", "lib.rs", "main.rs"):
        return directory
    return posixpath.join(directory, name[:-3] if name.endswith(".rs") else name)


def _rust_crate_dir(index: ModuleIndex, path: str) -> str | None:
    directory = posixpath.dirname(path)
    while True:
        if directory + "/lib.rs" in index.paths or directory + "/main.rs" in index.paths:
            return directory
        parent = posixpath.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _rust_root_file(index: ModuleIndex, directory: str) -> list[str]:
    names = ("lib.rs", "main.rs", "mod.rs")
    return [posixpath.join(directory, n) for n in names if posixpath.join(directory, n) in index.paths][:1]


def _rust_module_file(index: ModuleIndex, directory: str, name: str) -> list[str]:
    for candidate in (posixpath.join(directory, name + ".rs"), posixpath.join(directory, name, "mod.rs")):
        if candidate in index.paths:
            return [candidate]
    return []


def _java(index: ModuleIndex, imp: Import) -> list[str]:
    if imp.wildcard:
        return sorted(index.java_packages.get(imp.module, ()))
    files = index.java_packages.get(imp.module)
    class_name = imp.names[0] if imp.names else ""
    if not files:  # static import: module is "pkg.Class"
        package, _, class_name = imp.module.rpartition(".")
        files = index.java_packages.get(package)
    if not files:
        return []
    named = [f for f in sorted(files) if posixpath.basename(f) == class_name + ".java"]
    return named or sorted(files)


def _include(index: ModuleIndex, path: str, imp: Import) -> list[str]:
    target = imp.module.strip()
    if not target:
        return []
    if imp.kind == "include":
        local = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
        if local in index.paths:
            return [local]
    suffix = posixpath.normpath(target).lstrip("./")
    if suffix.count("/") < 6:
        return _nearest(index.path_suffixes.get(suffix), path)[:1]
    return []
