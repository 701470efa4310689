"""Warm-start snapshot: per-file tags on disk, keyed by content hash, one store per workspace root.

Layout: `<cache_dir>/index/<xxh3 of the root path>/` is a diskcache `Cache`; each entry maps
`"<language>:<content hash>"` to the tags encoded by `encode_tags`: an 8-byte xxh3 checksum of the
rest, then `marshal` (plain values only) of
  (language, package, fingerprint, definition names, marshalled definition rows,
   reference name counts, marshalled reference rows, import rows).
Definitions and references stay marshalled in the decoded `FileTags` (`Definitions`,
`References.from_encoded`) until something reads them: indexing a file needs only the names and
counts, so a warm start decodes little more than those.

Invariants:
- An entry is only ever the output of `extract_tags` for exactly that language and content, so a
  hit can be used in place of parsing; `decode_tags(encode_tags(t)) == t`.
- An entry whose checksum does not match is rejected by `decode_tags` (`CorruptEntry`) before
  anything is built from it, so the lazily unmarshalled parts are always intact.
- The store is versioned by `SNAPSHOT_VERSION`: the format number plus a hash of every tags query
  and grammar version. On a version mismatch the store is cleared.
- A store that cannot be opened or read (corrupt database, bad entry) is discarded with a log
  line: the directory is deleted and recreated, or the store is disabled; it never raises.
"""

from __future__ import annotations

import logging
import marshal
import shutil
from itertools import starmap
from importlib import metadata
from pathlib import Path

import xxhash

from indexer import languages
from indexer.definitions import Definitions, definition_names, definition_rows
from indexer.references import References
from indexer.tags import FileTags, Import

log = logging.getLogger("arbor.indexer")

_FORMAT = 2
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


class CorruptEntry(ValueError):
    """A snapshot entry that is not what `encode_tags` wrote."""


_CHECKSUM_BYTES = 8


def encode_tags(tags: FileTags) -> bytes:
    definitions = tags.definitions
    def_encoded = definitions.encoded() if isinstance(definitions, Definitions) else \
        marshal.dumps(definition_rows(definitions))
    payload = marshal.dumps((
        tags.language,
        tags.package,
        tags.fingerprint,
        tuple(definition_names(definitions)),
        def_encoded,
        _name_counts(tags.references),
        _encoded_references(tags.references),
        tuple((i.module, i.names, i.local_names, i.alias, i.wildcard, i.kind, i.line) for i in tags.imports),
    ))
    return xxhash.xxh3_64_digest(payload) + payload


def _name_counts(references) -> dict[str, int]:
    counts = getattr(references, "name_counts", None)
    if counts is not None:
        return dict(counts())
    found: dict[str, int] = {}
    for r in references:
        found[r.name] = found.get(r.name, 0) + 1
    return found


def _encoded_references(references) -> bytes:
    encoded = getattr(references, "encoded", None)
    if encoded is not None:
        return encoded()
    return marshal.dumps(tuple((r.name, r.kind, r.line, r.byte) for r in references))


def decode_tags(data: bytes) -> FileTags:
    """The tags `encode_tags` encoded as `data`; raises `CorruptEntry` (or a marshal error) if
    `data` is anything else."""
    payload = memoryview(data)[_CHECKSUM_BYTES:]
    if len(data) <= _CHECKSUM_BYTES or xxhash.xxh3_64_digest(payload) != data[:_CHECKSUM_BYTES]:
        raise CorruptEntry("snapshot entry checksum mismatch")
    language, package, fingerprint, names, def_encoded, counts, ref_encoded, imports = marshal.loads(payload)
    return FileTags(
        language=language,
        definitions=Definitions.from_encoded(names, def_encoded),
        references=References.from_encoded(ref_encoded, counts),
        imports=tuple(starmap(Import, imports)),
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
