"""Which files of a workspace get indexed, and reading them safely.

Invariants:
- A file is a candidate when its extension is supported, it matches an include glob, matches no
  exclude glob, and no `.gitignore` between its root and itself ignores it (nor any directory
  above it). Directories that are excluded or ignored are never entered.
- `read_source` never raises for bad content: files over `max_file_bytes` are skipped without
  being read ("too_large"), files with a NUL byte in their first 8 KiB are "binary", files that are
  not valid UTF-8 are "not_utf8", unreadable ones "unreadable"; each skip is logged with its reason.
- With a `SourceGuard`, a file it refuses is skipped unread (its reason: "denied",
  "outside_workspace") and the bytes returned are the guard's redaction (same length).
- Paths are absolute and '/'-separated.
"""

from __future__ import annotations

import logging
import os
import posixpath
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Protocol

from indexer.documents import is_memory_path
from indexer.ignore import GlobSet, IgnoreRule, gitignore_verdict, parse_gitignore
from indexer.languages import language_for_path

log = logging.getLogger("arbor.indexer")

MAX_FILE_BYTES = 1024 * 1024
MAX_FILES = 25_000  # files in the index of all roots together; a scan past it indexes the first ones
MAX_PARSED_BUFFERS = 64  # open buffers holding a parse tree; the least recently used let go of theirs
DEFAULT_INCLUDE: tuple[str, ...] = ("**/*",)
DEFAULT_EXCLUDE: tuple[str, ...] = (
    "**/.git/**", "**/.hg/**", "**/.svn/**", "**/node_modules/**", "**/__pycache__/**",
    "**/.venv/**", "**/.tox/**", "**/.mypy_cache/**", "**/.pytest_cache/**",
)
_BINARY_PROBE = 8192


@dataclass(frozen=True, slots=True)
class ScanOptions:
    """What to index under each root (the `index.*` settings). `workers`: processes that parse
    during a scan (0: one per CPU, at most 8; 1: all in the scanning process)."""

    include: tuple[str, ...] = DEFAULT_INCLUDE
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    max_file_bytes: int = MAX_FILE_BYTES
    max_files: int = MAX_FILES
    max_parsed_buffers: int = MAX_PARSED_BUFFERS
    workers: int = 0
    included: GlobSet = field(init=False, repr=False, compare=False)  # `include`, compiled
    excluded: GlobSet = field(init=False, repr=False, compare=False)  # `exclude`, compiled

    def __post_init__(self) -> None:
        object.__setattr__(self, "included", GlobSet(self.include))
        object.__setattr__(self, "excluded", GlobSet(self.exclude))
        if self.max_file_bytes <= 0:
            raise ValueError("max_file_bytes must be positive")
        if self.max_files <= 0:
            raise ValueError("max_files must be positive")
        if self.max_parsed_buffers <= 0:
            raise ValueError("max_parsed_buffers must be positive")
        if self.workers < 0:
            raise ValueError("workers must be 0 (automatic) or positive")


@dataclass(frozen=True, slots=True)
class Skipped:
    path: str
    reason: str


@dataclass(slots=True)
class SourceFile:
    """A readable, supported file: its language and bytes."""

    path: str
    language: str
    source: bytes


@dataclass(slots=True)
class ScanReport:
    """Totals of one scan (what `arbor-ls index` prints)."""

    files: int = 0
    symbols: int = 0
    bytes: int = 0
    seconds: float = 0.0
    parsed: int = 0
    from_snapshot: int = 0
    languages: dict[str, int] = field(default_factory=dict)
    skipped: list[Skipped] = field(default_factory=list)
    beyond_max_files: int = 0  # candidates left out because the index holds `max_files` files

    def to_json(self) -> dict:
        reasons: dict[str, int] = {}
        for s in self.skipped:
            reasons[s.reason] = reasons.get(s.reason, 0) + 1
        return {
            "files": self.files,
            "symbols": self.symbols,
            "bytes": self.bytes,
            "seconds": round(self.seconds, 4),
            "parsed": self.parsed,
            "from_snapshot": self.from_snapshot,
            "languages": dict(sorted(self.languages.items())),
            "skipped": {
                "count": len(self.skipped),
                "by_reason": dict(sorted(reasons.items())),
                "files": [{"path": s.path, "reason": s.reason} for s in self.skipped],
            },
            "beyond_max_files": self.beyond_max_files,
        }


def normalize_path(path: str) -> str:
    """Absolute, normalised, '/'-separated form of `path`. A memory document's
    URI (`indexer.documents.is_memory_path`) is its own normal form."""
    if is_memory_path(path):
        return path
    return os.path.abspath(path).replace(os.sep, "/")


class GitignoreCache:
    """Parsed `.gitignore` rules per directory (read once per scan)."""

    def __init__(self) -> None:
        self._rules: dict[str, tuple[IgnoreRule, ...]] = {}

    def rules(self, directory: str) -> tuple[IgnoreRule, ...]:
        rules = self._rules.get(directory)
        if rules is None:
            try:
                with open(posixpath.join(directory, ".gitignore"), encoding="utf-8", errors="replace") as f:
                    rules = parse_gitignore(f.read())
            except OSError:
                rules = ()
            self._rules[directory] = rules
        return rules

    def ignored(self, root: str, path: str, is_dir: bool) -> bool:
        """Whether `path` (under `root`) is ignored by the `.gitignore` files from root down."""
        verdict = False
        directory = root
        rel_parts = posixpath.relpath(path, root).split("/")
        for depth in range(len(rel_parts)):
            rules = self.rules(directory)
            if rules:
                rel = "/".join(rel_parts[depth:])
                v = gitignore_verdict(rules, rel, is_dir)
                if v is not None:
                    verdict = v
            directory = posixpath.join(directory, rel_parts[depth])
        return verdict


def is_candidate(root: str, path: str, options: ScanOptions, gitignores: GitignoreCache | None = None) -> bool:
    """Whether `path` would be indexed under `root` (ancestors' ignore rules included)."""
    if language_for_path(path) is None:
        return False
    rel = posixpath.relpath(path, root)
    if rel.startswith("../") or rel == "..":
        return False
    if not options.included.match(rel) or options.excluded.match(rel):
        return False
    gitignores = gitignores or GitignoreCache()
    parts = rel.split("/")
    for i in range(1, len(parts)):
        directory = posixpath.join(root, *parts[:i])
        if options.excluded.match("/".join(parts[:i]) + "/") or gitignores.ignored(root, directory, True):
            return False
    return not gitignores.ignored(root, path, False)


def iter_candidates(root: str, options: ScanOptions) -> Iterator[tuple[str, str]]:
    """(path, language) of every candidate file under `root`, in sorted walk order."""
    root = normalize_path(root)
    gitignores = GitignoreCache()
    stack = [root]
    while stack:
        directory = stack.pop()
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            log.info("index: skipping directory %s: %s", directory, exc)
            continue
        subdirs: list[str] = []
        for entry in entries:
            path = directory + "/" + entry.name
            rel = path[len(root) + 1:]
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = entry.is_file(follow_symlinks=True)
            except OSError:
                continue
            if is_dir:
                if options.excluded.match(rel + "/") or gitignores.ignored(root, path, True):
                    continue
                subdirs.append(path)
            elif is_file:
                lang = language_for_path(entry.name)
                if lang is None:
                    continue
                if not options.included.match(rel) or options.excluded.match(rel):
                    continue
                if gitignores.ignored(root, path, False):
                    continue
                yield path, lang
        stack.extend(reversed(subdirs))


class SourceGuard(Protocol):
    """Which files may be read, and what of their content may be kept (the server's privacy policy)."""

    def refuse(self, path: str) -> str | None: ...
    def redact(self, path: str, data: bytes) -> bytes: ...


def read_source(path: str, max_file_bytes: int = MAX_FILE_BYTES, guard: SourceGuard | None = None) -> bytes | Skipped:
    """The file's bytes if it is indexable, else why not (logged)."""
    refused = guard.refuse(path) if guard is not None else None
    if refused:
        return _skip(path, refused, "privacy")
    try:
        size = os.stat(path).st_size
        if size > max_file_bytes:
            return _skip(path, "too_large", f"{size} bytes > {max_file_bytes}")
        with open(path, "rb") as f:
            data = f.read(max_file_bytes + 1)
    except OSError as exc:
        return _skip(path, "unreadable", str(exc))
    if len(data) > max_file_bytes:
        return _skip(path, "too_large", f"more than {max_file_bytes} bytes")
    if b"\x00" in data[:_BINARY_PROBE]:
        return _skip(path, "binary", "NUL byte in the first 8 KiB")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _skip(path, "not_utf8", f"invalid UTF-8 at byte {exc.start}")
    return guard.redact(path, data) if guard is not None else data


def _skip(path: str, reason: str, detail: str) -> Skipped:
    log.info("index: skipped %s (%s: %s)", path, reason, detail)
    return Skipped(path, reason)


def read_go_module(directory: str) -> str | None:
    """The module path declared by `directory/go.mod`, if any."""
    try:
        with open(posixpath.join(directory, "go.mod"), encoding="utf-8", errors="replace") as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 2 and parts[0] == "module":
                    return parts[1].strip('"')
    except OSError:
        return None
    return None
