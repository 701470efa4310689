"""How the pruner reads the workspace index: sources, definitions, closeness, fingerprints.

`IndexLookup` wraps an `indexer.WorkspaceIndex` (its `graph_for`, `tagged_source` and `text`)
for the duration of one `build_context` call, and renders other files' definitions without
needing their whole tree: the definition's own lines are re-parsed on their own (dedented to
column 0), rendered, and re-indented. The graph's `definitions_of` answers are memoised and kept
in step with the graph's change journal (a re-index drops only the answers it can change).
Rendered snippets are memoised by the
definition's text and language for open buffers, and by (path, file fingerprint, definition
position) for files on disk, plus form and wanted members, so nearby requests reuse them; the
memo is transparent: its value is a pure function of its key.
"""

from __future__ import annotations

import threading
import weakref
from functools import lru_cache
from typing import NamedTuple

import xxhash

from indexer import languages

from .memo import MISSING, LruMemo
from .snippets import RenderedSnippet, render
from .syntax import syntax_for

_RENDER_MEMO: LruMemo[RenderedSnippet | None] = LruMemo(1024)
# A completion renders a few dozen definitions and edits elsewhere keep their renderings (keyed by
# text for open buffers), so 1,024 covers the working set; in a 10-minute soak 4,096 entries took
# ~200 s to fill and ~15 MB.
_ALIASES: LruMemo[tuple[object, int, dict[str, str]]] = LruMemo(64)  # path -> (tags, layout, aliases)


@lru_cache(maxsize=256)
def encode(text: str) -> bytes:
    """UTF-8 bytes of `text` (memoised: str hashes are cached, so hits cost no re-hashing)."""
    return text.encode("utf-8", "surrogatepass")


class Found(NamedTuple):
    """A definition in another (or this) file, as the graph reports it."""

    path: str
    definition: object  # indexer.tags.Definition
    tier: int  # 0 this file, 1 bound by an import, 2 in an imported file, 3 elsewhere


class IndexLookup:
    def __init__(self, index: object | None, path: str) -> None:
        self.index = index
        self.path = path
        # the graph as a completion in `path` needs it (its own entry may lag its latest edits)
        self.graph = index.graph_for(path) if index is not None else None  # type: ignore[attr-defined]
        self._imports: set[str] | None = None
        self._rank: dict[str, float] | None = None
        self._best_rank: float | None = None
        self._bound: set[str] | None = None
        self._tagged: dict[str, bytes | None] = {}  # one completion reads each text once

    @property
    def available(self) -> bool:
        return self.graph is not None

    def imported_files(self) -> set[str]:
        if self._imports is None:
            self._imports = set(self.graph.imports_of(self.path)) if self.graph is not None else set()
        return self._imports

    def closeness(self) -> dict[str, float]:
        """Weight of this file's references into each other file (the graph's out-edges: how
        often, and how specifically, this file uses names defined there; imports count too).

        Out-edges are cached per file in the graph and rebuilt only for this file when its tags
        change, unlike a workspace-wide PageRank, which every new definition invalidates."""
        if self._rank is None:
            self._rank = self.graph.out_edges(self.path) if self.graph is not None else {}
        return self._rank

    def best_closeness(self) -> float:
        """The largest closeness of any other file (1.0 when there is none), computed once."""
        if self._best_rank is None:
            self._best_rank = max((v for p, v in self.closeness().items() if p != self.path), default=0.0) or 1.0
        return self._best_rank

    def definitions(self, name: str, limit: int = 8) -> list[Found]:
        """Definitions of `name` visible from this file, best first (the graph's order)."""
        if self.graph is None:
            return []
        imported = self.imported_files()
        is_bound = name in self._bound_names()
        answer = _definitions_of(self.graph, name, self.path)
        key = (self.path, name, limit)
        memo = _FOUND.get(key)  # the same graph answer seen from the same imports: the same list
        if memo is not None and memo[0] is answer and memo[2] == is_bound and memo[1] == imported:
            return memo[3]
        found: list[Found] = []
        for path, definition in answer[:limit]:
            if path == self.path:
                tier = 0
            elif path in imported:
                tier = 1 if is_bound else 2
            else:
                tier = 3
            found.append(Found(path, definition, tier))
        _FOUND.put(key, (answer, frozenset(imported), is_bound, found))
        return found

    def module_aliases(self) -> dict[str, str]:
        """Local names this file binds to modules -> the module's last dotted part
        (`from email import utils` -> utils: utils; `import x.y as z` -> z: y). Memoised per
        file for its graph entry and the workspace's set of files (`SymbolGraph.layout_version`)."""
        tags = self.graph.tags(self.path) if self.graph is not None else None
        if tags is None:
            return {}
        memo = _ALIASES.get(self.path)
        layout = self.graph.layout_version  # type: ignore[union-attr]
        if memo is not None and memo[0] is tags and memo[1] == layout:
            return memo[2]
        aliases: dict[str, str] = {}
        stems = {module_stem(path) for path in self.imported_files()}
        for imp in tags.imports:
            module = imp.module.lstrip(".").rsplit(".", 1)[-1]
            if imp.alias:
                aliases[imp.alias] = module
            elif not imp.names and module:
                aliases[imp.module.lstrip(".").split(".")[0]] = imp.module.lstrip(".").split(".")[0]
            for original, local in zip(imp.names, imp.local_names):
                stem = original.rsplit(".", 1)[-1]
                if stem in stems or self._relative_module_exists(imp.module, original):
                    aliases.setdefault(local, stem)  # `from pkg import module`: a workspace module
        _ALIASES.put(self.path, (tags, layout, aliases))
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
        return any(self.graph.tags(stem + suffix) is not None for suffix in (".py", "/__init__.py"))

    def _bound_names(self) -> set[str]:
        if self._bound is None:
            tags = self.graph.tags(self.path) if self.graph is not None else None
            self._bound = {local for imp in tags.imports for local in imp.local_names} if tags is not None else set()
        return self._bound

    def tagged_source(self) -> bytes | None:
        """The text this file's graph entry was made from, when the index says (an open buffer's
        entry can lag its latest edits: see `WorkspaceIndex.graph_for`)."""
        return self._tagged_source(self.path)

    def fingerprint(self, path: str) -> str:
        value = self.graph.fingerprint(path) if self.graph is not None else None
        return value or ""

    def source(self, path: str) -> bytes | None:
        """The text `path`'s graph entry was made from (an open buffer's may lag its edits)."""
        if self.index is None:
            return None
        tagged = self._tagged_source(path)
        if tagged is not None:
            return tagged
        text = self.index.text(path)  # type: ignore[attr-defined]
        if text is None:
            return None
        return text if isinstance(text, bytes) else encode(text)

    def language(self, path: str) -> str | None:
        tags = self.graph.tags(path) if self.graph is not None else None
        return tags.language if tags is not None else languages.language_for_path(path)

    def render(self, found: Found, form: str, members: frozenset[str] | None = None,
               limit: int = 12) -> RenderedSnippet | None:
        """Renders `found` in `form` with its container's header line, memoised twice: by
        position while the file's graph entry stands (a dictionary lookup), and across entries
        (`_render`) for an open buffer by the definition's own text and language (other edits in
        that buffer, or the same text in another buffer, share the rendering), for a file on disk
        by the file's fingerprint and the definition's position."""
        definition = found.definition
        entry = self.graph.tags(found.path) if self.graph is not None else None
        if entry is None:
            return self._render(found, form, members, limit)
        by_entry = _RENDERED_BY_ENTRY.get(found.path)
        if by_entry is None or by_entry[0] is not entry or len(by_entry[1]) >= _MAX_RENDERED_PER_ENTRY:
            by_entry = _RENDERED_BY_ENTRY.put(found.path, (entry, {}))
        wanted = (definition.start_byte, definition.end_byte, form, members, limit)  # type: ignore[attr-defined]
        result = by_entry[1].get(wanted, MISSING)
        if result is MISSING:
            result = by_entry[1][wanted] = self._render(found, form, members, limit)
        return result

    def _render(self, found: Found, form: str, members: frozenset[str] | None,
                limit: int) -> RenderedSnippet | None:
        definition = found.definition
        start, end = definition.start_byte, definition.end_byte  # type: ignore[attr-defined]
        tagged = self._tagged_source(found.path)
        if tagged is not None:
            header = self._container_header(found, tagged)
            text = tagged[tagged.rfind(b"\n", 0, start) + 1:end]
            key: tuple = (self.language(found.path), "text", xxhash.xxh3_64_intdigest(text), header, form, members, limit)
        else:
            key = (found.path, self.fingerprint(found.path), start, end, form, members, limit)
        hit = _RENDER_MEMO.get(key, MISSING) if key[1] else MISSING
        if hit is not MISSING:
            if hit is None or tagged is None:
                return hit
            return hit._replace(start_line=definition.start_line, end_line=definition.end_line)  # type: ignore[attr-defined]
        source = tagged if tagged is not None else self.source(found.path)
        language = self.language(found.path)
        result = None
        if source is not None and language is not None:
            header = header if tagged is not None else self._container_header(found, source)
            result = render_definition(source, language, definition, form, header, members, limit)
        if key[1]:
            _RENDER_MEMO.put(key, result)
        return result

    def _tagged_source(self, path: str) -> bytes | None:
        if path not in self._tagged:
            self._tagged[path] = self.index.tagged_source(path) if self.index is not None else None  # type: ignore[attr-defined]
        return self._tagged[path]

    def _container_header(self, found: Found, source: bytes) -> str:
        container = getattr(found.definition, "container", None)
        tags = self.graph.tags(found.path) if self.graph is not None else None
        if not container or tags is None:
            return ""
        start = found.definition.start_byte  # type: ignore[attr-defined]
        for other in tags.definitions:
            if other.name == container and other.start_byte < start < other.end_byte:
                return _line_at(source, other.name_byte or other.start_byte).rstrip() + "\n"
        return ""


# path -> (graph entry, {(start, end, form, members, limit): rendering}): while a file's entry
# stands, its renderings are looked up by position alone; a new entry starts a new table
_RENDERED_BY_ENTRY: LruMemo[tuple[object, dict]] = LruMemo(256)
_MAX_RENDERED_PER_ENTRY = 512
_FOUND: LruMemo[tuple[list, frozenset[str], bool, list[Found]]] = LruMemo(1024)  # see `definitions`


class _GraphMemo:
    """`definitions_of` answers for one graph, kept in step with it through its change journal
    (`SymbolGraph.changes_since`): a re-indexed file drops only the answers its change can
    affect (the paths and names `SymbolGraph._record` journals), so typing in one buffer does
    not empty the memo for every other name. A change that can affect anything (a file added or
    removed), a different graph, or a journal that no longer reaches back, empties it."""

    def __init__(self) -> None:
        self.graph: weakref.ref | None = None
        self.serial = -1
        self.answers: dict[tuple[str, str], list] = {}
        self.by_name: dict[str, set[tuple[str, str]]] = {}
        self.by_path: dict[str, set[tuple[str, str]]] = {}

    def sync(self, graph: object) -> None:
        """Drop what changed in `graph` since the answers were read (all, if unknown)."""
        current = self.graph() if self.graph is not None else None
        serial = graph.change_serial  # type: ignore[attr-defined]
        if current is graph and serial == self.serial:
            return
        changes = graph.changes_since(self.serial) if current is graph else None  # type: ignore[attr-defined]
        if changes is None or any(names is None for _, names in changes):
            self.answers, self.by_name, self.by_path = {}, {}, {}
        else:
            for paths, names in changes:
                for key_set in [self.by_path.pop(p, ()) for p in paths] + [self.by_name.pop(n, ()) for n in names]:
                    for key in key_set:
                        self.answers.pop(key, None)
        self.graph, self.serial = weakref.ref(graph), serial

    def store(self, key: tuple[str, str], answer: list) -> None:
        if len(self.answers) >= _MEMO_SIZE:
            self.answers, self.by_name, self.by_path = {}, {}, {}
        self.answers[key] = answer
        self.by_name.setdefault(key[0], set()).add(key)
        self.by_path.setdefault(key[1], set()).add(key)


_MEMO = _GraphMemo()
_MEMO_LOCK = threading.Lock()
_MEMO_SIZE = 8192


def _definitions_of(graph: object, name: str, path: str) -> list:
    with _MEMO_LOCK:
        _MEMO.sync(graph)
        serial = _MEMO.serial
        answer = _MEMO.answers.get((name, path))
    if answer is None:
        answer = graph.definitions_of(name, path)  # type: ignore[attr-defined]
        with _MEMO_LOCK:
            if _MEMO.serial == serial:  # a change meanwhile is journalled after `serial`
                _MEMO.store((name, path), answer)
    return answer


def module_stem(path: str) -> str:
    """`a/b/utils.py` -> "utils"; `a/b/__init__.py` -> "b" (what `import` calls that module)."""
    directory, _, name = path.rpartition("/")
    stem = name.rsplit(".", 1)[0]
    return directory.rpartition("/")[2] if stem == "__init__" else stem


def render_definition(source: bytes, language: str, definition: object, form: str,
                      container_header: str = "", members: frozenset[str] | None = None,
                      limit: int = 12) -> RenderedSnippet | None:
    """Renders one definition of `source` by parsing only its own (dedented) lines."""
    syntax = syntax_for(language)
    if syntax is None:
        return None
    start = source.rfind(b"\n", 0, definition.start_byte) + 1  # type: ignore[attr-defined]
    end = definition.end_byte  # type: ignore[attr-defined]
    chunk = source[start:end]
    indent = chunk[: len(chunk) - len(chunk.lstrip(b" \t"))]
    if indent:
        chunk = b"\n".join(line[len(indent):] if line.startswith(indent) else line for line in chunk.split(b"\n"))
    start_line, end_line = definition.start_line, definition.end_line  # type: ignore[attr-defined]
    node = _definition_node(_parse_chunk(syntax.name, chunk).root_node, syntax)
    if node is None:
        lines = chunk.decode("utf-8", "replace").split("\n")[:3]
        text = "\n".join(lines)
        return RenderedSnippet(_reindent(text, indent, container_header), start_line, end_line, "full")
    snippet = render(node, chunk, syntax, form, members=members, limit=limit)
    return RenderedSnippet(_reindent(snippet.text, indent, container_header), start_line, end_line, snippet.form)


# (language, first line) -> (text, tree); trees of large classes take megabytes: keep those of the
# definitions in use
_CHUNK_TREES: LruMemo[tuple[bytes, object]] = LruMemo(16)


def _parse_chunk(language: str, chunk: bytes) -> object:
    """The tree of one definition's dedented text, kept per first line (a class, say): the same
    text again (a skeleton rendered with other members, which one shows depends on the names
    near the cursor) reuses the tree, and a changed text (its buffer was re-indexed) is parsed
    incrementally from the last one. A full parse of a large class costs milliseconds."""
    head = (language, chunk.split(b"\n", 1)[0])
    last = _CHUNK_TREES.get(head)
    if last is not None and last[0] == chunk:
        return last[1]
    tree = _reparse(language, last[0], last[1], chunk) if last is not None else languages.parse(language, chunk)
    _CHUNK_TREES.put(head, (chunk, tree))
    return tree


def _reparse(language: str, old: bytes, old_tree: object, new: bytes) -> object:
    """Parse `new` reusing `old_tree` (the tree of `old`, left unchanged): the difference is
    described as one edit between their common prefix and common suffix."""
    limit = min(len(old), len(new))
    prefix = _common_length(lambda k: old[:k] == new[:k], limit)
    suffix = _common_length(lambda k: old[len(old) - k:] == new[len(new) - k:], limit - prefix)
    old_end, new_end = len(old) - suffix, len(new) - suffix
    edited = old_tree.copy()  # type: ignore[attr-defined]
    languages.edit_tree(edited, prefix, old_end, new_end, _point(old, prefix), _point(old, old_end),
                        _point(new, new_end))
    return languages.parse(language, new, edited)


def _common_length(equal, limit: int) -> int:
    """The largest k <= limit with equal(k), for a predicate true up to some k (binary search:
    each probe is one slice comparison)."""
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if equal(middle):
            low = middle
        else:
            high = middle - 1
    return low


def _point(text: bytes, offset: int) -> tuple[int, int]:
    """(row, byte column) of `offset` in `text`."""
    return text.count(b"\n", 0, offset), offset - (text.rfind(b"\n", 0, offset) + 1)


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
