"""Warm-start snapshot: per-file tags on disk, keyed by content hash, one store per workspace root.

Layout: `<cache_dir>/index/<xxh3 of the root path>/` is a diskcache `Cache`; each entry maps
`"<language>:<content hash>"` to the tags encoded with `marshal` (plain tuples only).

Invariants:
- An entry is only ever the output of `extract_tags` for exactly that language and content, so a
  hit can be used in place of parsing.
- The store is versioned by `SNAPSHOT_VERSION`: the format number plus a hash of every tags query
  and grammar version. On a version mismatch the store is cleared.
- A store that cannot be opened or read (corrupt database, bad entry) is discarded with a log
  line: the directory is deleted and recreated, or the store is disabled; it never raises.
"""

from __future__ import annotations

import logging
import marshal
import shutil
from importlib import metadata
from pathlib import Path

import xxhash

from indexer import languages
from indexer.references import References
from indexer.tags import Definition, FileTags, Import

log = logging.getLogger("arbor.indexer")

_FORMAT = 1
_GRAMMAR_PACKAGES = (
    "tree-sitter", "tree-sitter-python", "tree-sitter-javascript", "tree-sitter-typescript",
    "tree-sitter-go", "tree-sitter-rust", "tree-sitter-java", "tree-sitter-c", "tree-sitter-cpp",
)
_VERSION_KEY = "__snapshot_version__"
SIZE_LIMIT = 512 * 1024 * 1024


def _snapshot_version() -> str:
    h = xxhash.xxh3_64()
    h.update(str(_FORMAT).encode())
    for lang in languages.LANGUAGES:
        h.update(languages.query_source(lang).encode())
    for package in _GRAMMAR_PACKAGES:
        try:
            h.update(f"{package}={metadata.version(package)}".encode())
        except metadata.PackageNotFoundError:
            h.update(package.encode())
    return f"{_FORMAT}:{h.hexdigest()}"


def default_cache_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("arbor-ls"))


def workspace_key(root: str) -> str:
    return xxhash.xxh3_64_hexdigest(root.encode("utf-8", "surrogatepass"))


def encode_tags(tags: FileTags) -> bytes:
    return marshal.dumps((
        tags.language,
        tuple((d.name, d.kind, d.start_line, d.end_line, d.start_byte, d.end_byte, d.name_line,
               d.name_byte, d.container) for d in tags.definitions),
        _reference_rows(tags.references),
        tuple((i.module, i.names, i.local_names, i.alias, i.wildcard, i.kind, i.line) for i in tags.imports),
        tags.package,
        tags.fingerprint,
    ))


def _reference_rows(references) -> tuple:
    rows = getattr(references, "rows", None)
    if rows is not None:
        return rows()
    return tuple((r.name, r.kind, r.line, r.byte) for r in references)


def decode_tags(data: bytes) -> FileTags:
    language, defs, refs, imports, package, fingerprint = marshal.loads(data)
    return FileTags(
        language=language,
        definitions=tuple(Definition(*d) for d in defs),
        references=References.from_rows(refs),
        imports=tuple(Import(*i) for i in imports),
        package=package,
        fingerprint=fingerprint,
    )


class SnapshotStore:
    """The snapshot of one workspace root. `enabled` is False once the store proved unusable."""

    def __init__(self, root: str, cache_dir: Path | None = None) -> None:
        self.directory = (cache_dir or default_cache_dir()) / "index" / workspace_key(root)
        self.enabled = True
        self._cache = None
        self._open()

    def _open(self, retry: bool = True) -> None:
        import diskcache

        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            cache = diskcache.Cache(str(self.directory), size_limit=SIZE_LIMIT)
            version = _snapshot_version()
            if cache.get(_VERSION_KEY) != version:
                cache.clear()
                cache.set(_VERSION_KEY, version)
            self._cache = cache
        except Exception as exc:  # sqlite3.DatabaseError, OSError, pickle errors...
            log.warning("index: discarding unreadable snapshot %s: %s", self.directory, exc)
            self._cache = None
            shutil.rmtree(self.directory, ignore_errors=True)
            if retry:
                self._open(retry=False)
            else:
                self.enabled = False

    def get(self, language: str, content_hash: str) -> FileTags | None:
        if self._cache is None:
            return None
        try:
            data = self._cache.get(f"{language}:{content_hash}")
            return decode_tags(data) if data is not None else None
        except Exception as exc:
            self._discard(exc)
            return None

    def put(self, content_hash: str, tags: FileTags) -> None:
        if self._cache is not None:
            self.put_encoded(tags.language, content_hash, encode_tags(tags))

    def put_encoded(self, language: str, content_hash: str, encoded: bytes) -> None:
        """Store tags already encoded with `encode_tags` (a scan worker's result)."""
        if self._cache is None:
            return
        try:
            self._cache.set(f"{language}:{content_hash}", encoded)
        except Exception as exc:
            self._discard(exc)

    def _discard(self, exc: Exception) -> None:
        log.warning("index: discarding corrupt snapshot %s: %s", self.directory, exc)
        self.close()
        shutil.rmtree(self.directory, ignore_errors=True)
        self._open(retry=False)

    def close(self) -> None:
        if self._cache is not None:
            try:
                self._cache.close()
            except Exception:
                pass
            self._cache = None
