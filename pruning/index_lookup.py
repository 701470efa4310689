"""`IndexLookup`: how one `build_context` call reads an index snapshot.

It answers, for the file being completed: which definitions a name resolves to (with the tier
the value model weighs), which files this file imports and how closely it uses each, which
local names are bound to modules, and the rendering of another file's definition.

Everything it keeps lives on the snapshot or its entries (indexer/snapshot.py, entry.py) and so
dies with them: renderings of a definition on its file's entry (`("renderings",)`, keyed by byte
span, form and the members a skeleton can show: those among the definition's own member names,
`("member_names",)`), and the parsed definition lines they are drawn from in the table the
file's successive entries share (`FileEntry.by_content`, `("chunk_trees",)`, keyed by a digest
of the lines, so a re-indexed buffer's unchanged definitions are not parsed again),
answers that depend on the set of files on the snapshot (tiers: `("found", ...)` keys; module
aliases: `IndexSnapshot.import_value`). Each kept value is a function of its key and of the entry
or snapshot that holds it, so reading it again or computing it afresh gives equal results.
"""

from __future__ import annotations

from typing import NamedTuple

from indexer import SAME_PACKAGE_LANGS, IndexSnapshot, language_for_path

from .definition_render import container_header, definition_member_names, render_definition
from .snippets import RenderedSnippet

MAX_RENDERINGS_PER_ENTRY = 512  # forms x member sets of one file's definitions kept on its entry
MAX_CHUNK_TREES_PER_FILE = 256  # parsed definitions kept for a file's successive entries
# A name an import binds, defined in at most this many files none of which the imports name,
# counts as in an imported file (tier 2): the import reached it through re-exports.
MAX_RE_EXPORTED_FILES = 2


class Found(NamedTuple):
    """A definition in another (or this) file, as the graph reports it."""

    path: str
    definition: object  # indexer.tags.Definition
    # 0 this file, 1 bound by an import or in the file's Go package, 2 in an imported file or
    # re-exported, 3 elsewhere
    tier: int


PACKAGE_FILES = frozenset({"__init__", "index", "mod"})  # a file that is its directory's module


def module_stem(path: str) -> str:
    """`a/b/utils.py` -> "utils"; `a/b/__init__.py`, `a/b/index.ts`, `a/b/mod.rs`, `a/b/any.go` -> "b"
    (what an import calls that module)."""
    directory, _, name = path.rpartition("/")
    stem = name.rsplit(".", 1)[0]
    return directory.rpartition("/")[2] if stem in PACKAGE_FILES or package_is_directory(path) else stem


def package_is_directory(path: str) -> bool:
    """Whether `path`'s module is its whole directory (a Go package: every file of it is what
    `import ".../dir"` names), not the file alone."""
    return path.endswith(".go")


class IndexLookup:
    def __init__(self, snapshot: IndexSnapshot | None, path: str) -> None:
        self.snapshot = snapshot
        self.path = path
        self._imports: set[str] | None = None
        self._best: float | None = None
        self._sources: dict[str, bytes | None] = {}  # files read for renderings, during this lookup

    @property
    def available(self) -> bool:
        return self.snapshot is not None

    def imported_files(self) -> set[str]:
        if self._imports is None:
            self._imports = set(self.snapshot.imports_of(self.path)) if self.snapshot is not None else set()
        return self._imports

    def closeness(self) -> dict[str, float]:
        """Weight of this file's references into each other file (the graph's out-edges: how
        often, and how specifically, this file uses names defined there; imports count too)."""
        return self.snapshot.out_edges(self.path) if self.snapshot is not None else {}

    def best_closeness(self) -> float:
        """The largest closeness of any other file (1.0 when there is none)."""
        if self._best is None:
            self._best = max((v for p, v in self.closeness().items() if p != self.path), default=0.0) or 1.0
        return self._best

    def definitions(self, name: str, limit: int = 8) -> list[Found]:
        """Definitions of `name` visible from this file, best first (the graph's order)."""
        snapshot = self.snapshot
        if snapshot is None:
            return []
        key = ("found", self.path, name, limit)
        found = snapshot.derived.get(key)
        if found is None:
            imported = self.imported_files()
            entry = snapshot.entry(self.path)
            is_bound = entry is not None and name in entry.bound_names
            answer = snapshot.definitions_of(name, self.path, limit)[:limit]
            # a bound name whose definition lies outside the files the import statements name
            # reached it through re-exports (`pub use`, an index.ts, a package's __init__)
            re_exported = is_bound and len({path for path, _ in answer}) <= MAX_RE_EXPORTED_FILES
            # a Go (or Java) file sees its directory's definitions as if its imports bound them
            same_package = entry is not None and entry.tags.language in SAME_PACKAGE_LANGS
            package = self.path.rpartition("/")[0] if same_package else None
            found = []
            for path, definition in answer:
                if path == self.path:
                    tier = 0
                elif package is not None and path.rpartition("/")[0] == package:
                    tier = 1
                elif path in imported:
                    tier = 1 if is_bound else 2
                else:
                    tier = 2 if re_exported else 3
                found.append(Found(path, definition, tier))
            found = snapshot.derived.setdefault(key, found)
        return found

    def builtins(self, predeclared: frozenset[str]) -> frozenset[str]:
        """The language's `predeclared` names less those this file imports from the workspace
        by name: Rust's `use crate::error::Result` binds the crate's alias, whose definition is
        shown, where the prelude's `Result` has none to show."""
        if self.snapshot is None:
            return predeclared
        bound = self.snapshot.workspace_bound_names(self.path)
        return predeclared if bound.isdisjoint(predeclared) else predeclared - bound

    def module_aliases(self) -> dict[str, str]:
        """Local names this file binds to modules -> the module's last dotted part
        (`from email import utils` -> utils: utils; `import x.y as z` -> z: y; Rust's
        `use crate::size_hint;` and `mod size_hint;` -> size_hint: size_hint)."""
        snapshot = self.snapshot
        entry = snapshot.entry(self.path) if snapshot is not None else None
        if entry is None:
            return {}
        return snapshot.import_value("module_aliases", self.path, lambda: self._module_aliases(entry.tags))

    def workspace_modules(self) -> frozenset[str]:
        """The local names of `module_aliases()` that name a module of the workspace (the stem of
        a file this file imports): `fmt.Sprintf` or `os.path` has no definition to show here."""
        if self.snapshot is None:
            return frozenset()
        return self.snapshot.import_value("workspace_modules", self.path, self._workspace_modules)

    def _workspace_modules(self) -> frozenset[str]:
        stems = self._imported_stems()
        return frozenset(alias for alias, stem in self.module_aliases().items() if stem in stems)

    def _imported_stems(self) -> set[str]:
        return {module_stem(path) for path in self.imported_files()}

    def _module_aliases(self, tags) -> dict[str, str]:
        aliases: dict[str, str] = {}
        stems = self._imported_stems()
        python = tags.language == "python"
        # Python's `from pkg import module` and Rust's `use crate::module;` can bind a module;
        # elsewhere a named import binds a member (`import { Subject } from './Subject'`)
        binds_modules = python or tags.language == "rust"
        for imp in tags.imports:
            module = _module_name(imp.module)
            if imp.alias:
                aliases[imp.alias] = module
            elif not imp.names and module:
                if python:  # `import a.b` binds `a`
                    aliases[imp.module.lstrip(".").split(".")[0]] = imp.module.lstrip(".").split(".")[0]
                else:  # Go's `import "github.com/spf13/pflag"` binds `pflag`
                    aliases[module] = module
            if not binds_modules:
                continue
            for original, local in zip(imp.names, imp.local_names):
                stem = original.rsplit(".", 1)[-1]
                if stem in stems or self._relative_module_exists(imp.module, original):
                    aliases.setdefault(local, stem)  # `from pkg import module`: a workspace module
        return aliases

    def _relative_module_exists(self, module: str, name: str) -> bool:
        """`from .pkg import name` where `name` is a module file next to this one (the graph may
        not list it among this file's imports when it was indexed after this file)."""
        level = len(module) - len(module.lstrip("."))
        if not level or not self.path.endswith(".py"):
            return False
        base = self.path.rsplit("/", 1)[0]
        for _ in range(level - 1):
            base = base.rsplit("/", 1)[0]
        parts = [p for p in module[level:].split(".") if p] + name.split(".")
        stem = "/".join([base, *parts])
        return any(self.snapshot.entry(stem + suffix) is not None for suffix in (".py", "/__init__.py"))

    def tagged_source(self) -> bytes | None:
        """The text this file's entry was made from, when it is an open buffer's (an entry can
        lag its buffer's latest edits: see `WorkspaceIndex.snapshot_for`)."""
        entry = self.snapshot.entry(self.path) if self.snapshot is not None else None
        return entry.source if entry is not None else None

    def fingerprint(self, path: str) -> str:
        return self.snapshot.fingerprint(path) if self.snapshot is not None else ""

    def language(self, path: str) -> str | None:
        entry = self.snapshot.entry(path) if self.snapshot is not None else None
        return entry.language if entry is not None else language_for_path(path)

    def source(self, path: str) -> bytes | None:
        """`path`'s entry's text, read from disk at most once per lookup (one context). A file on
        disk may have changed since its entry was made: offsets from the entry need checking."""
        if path not in self._sources:
            self._sources[path] = self.snapshot.source(path)
        return self._sources[path]

    def render(self, found: Found, form: str, members: frozenset[str] | None = None,
               limit: int = 12) -> RenderedSnippet | None:
        """`found` in `form` with its container's header line, from the text its entry was made
        from; kept on the entry (see the module docstring)."""
        definition = found.definition
        entry = self.snapshot.entry(found.path) if self.snapshot is not None else None
        if entry is None:
            return None
        span = (definition.start_byte, definition.end_byte)  # type: ignore[attr-defined]
        known_names = entry.derived.setdefault(("member_names",), {})
        wanted = _wanted(members if form == "skeleton" else None, known_names.get(span))
        renderings = entry.derived.setdefault(("renderings",), {})
        key = (*span, form, wanted, limit)
        if key in renderings:
            return renderings[key]
        source = self.source(found.path)
        result = None
        if source is not None:
            chunks = entry.by_content.setdefault(("chunk_trees",), {})
            if wanted is not None and span not in known_names:
                known_names[span] = definition_member_names(source, entry.language, definition, chunks)
                wanted = _wanted(wanted, known_names[span])
                key = (*span, form, wanted, limit)
                if key in renderings:
                    return renderings[key]
            header = container_header(entry.definitions_named, definition, source)
            result = render_definition(source, entry.language, definition, form, header, wanted, limit, chunks)
        if len(renderings) >= MAX_RENDERINGS_PER_ENTRY:
            renderings.clear()  # only the renderings: the entry's other values stay
        chunks = entry.by_content.get(("chunk_trees",))
        if chunks is not None and len(chunks) > MAX_CHUNK_TREES_PER_FILE:
            chunks.clear()
        renderings[key] = result
        return result


def _wanted(members: frozenset[str] | None, names: frozenset[str] | None) -> frozenset[str] | None:
    """The part of `members` a skeleton can show, given the definition's member `names` (None:
    not known yet); a skeleton with none of them shows the members in order, as with None."""
    if members is None or names is None:
        return members
    return members & names or None


def _module_name(module: str) -> str:
    """The last part of a module as written: `a.b.c` -> c, `./dir/file.js` -> file,
    `github.com/spf13/pflag` -> pflag, `crate::ast::visitor` -> visitor."""
    if "/" in module:
        return module.rsplit("/", 1)[-1].split(".", 1)[0]
    if "::" in module:
        return module.rsplit("::", 1)[-1]
    return module.lstrip(".").rsplit(".", 1)[-1]
