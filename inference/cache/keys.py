"""Cache keys and dependency tags: pure functions of a request, its rendered prompt and the model.

Invariants:
- Every key is a 32-hex-digit xxh3-128 digest; the inputs are length-prefixed, so no two distinct
  input tuples encode to the same byte string.
- A request's *foreign dependencies* are its `depends_on` entries minus the file being edited:
  the edited file's text around the cursor is already inside the key (prompt or semantic key),
  and its fingerprint changes on nearly every keystroke, so tagging with it would evict the very
  entries typing-through needs. Cross-file context is what invalidation has to catch.
- Keys are versioned by the foreign dependencies' fingerprints: a request built after a file
  changed can never compute the key of an entry made before, in any tier, even when the prompt
  text itself did not change (a signature-only snippet of a function whose body changed).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

import xxhash

from ..api import CompletionRequest

Dependencies = tuple[tuple[str, str], ...]


def _digest(parts: Iterable[str]) -> str:
    h = xxhash.xxh3_128()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def is_same_file(dep_path: str, request_path: str) -> bool:
    """`dep_path` names the edited file: equal, or one is the other's workspace-relative tail."""
    if not dep_path or not request_path:
        return False
    if dep_path == request_path:
        return True
    a, b = dep_path.replace("\\", "/"), request_path.replace("\\", "/")
    return a.endswith("/" + b) or b.endswith("/" + a)


def canonical_path(path: str, root: str | None) -> str:
    """`path` relative to the workspace `root` ('/'-separated) when it lies inside it, else as is.

    Pruning reports dependencies workspace-relative and the index reports changes with absolute
    paths; both meet here.
    """
    if root and os.path.isabs(path):
        try:
            relative = os.path.relpath(path, root)
        except ValueError:
            return path
        if not relative.startswith(".."):
            return relative.replace(os.sep, "/")
    return path


def foreign_dependencies(request: CompletionRequest, root: str | None = None) -> Dependencies:
    """(path, fingerprint) of every file other than the edited one, sorted by path, deduplicated;
    paths made workspace-relative (`canonical_path`)."""
    deps = {canonical_path(path, root): fp for path, fp in request.depends_on
            if not is_same_file(path, request.path)}
    return tuple(sorted(deps.items()))


def sampling_signature(request: CompletionRequest) -> tuple[str, ...]:
    """Everything about how a completion is sampled that changes its text for a fixed prompt."""
    return (str(request.max_tokens), repr(float(request.temperature)), repr(float(request.top_p)),
            "\x1f".join(request.stop), "multi" if request.multiline else "single")


def _dependency_parts(deps: Dependencies) -> list[str]:
    return [f"{path}\x1f{fp}" for path, fp in deps]


def exact_key(request: CompletionRequest, prompt: str, model_id: str, template: str,
              deps: Dependencies | None = None) -> str:
    """xxh3 of (model id, prompt format, full prompt, sampling settings, dependency versions)."""
    deps = foreign_dependencies(request) if deps is None else deps
    return _digest(["exact", model_id, template, prompt, *sampling_signature(request),
                    *_dependency_parts(deps)])


_COMMENT_STARTS = ("#", "//", "/*", "*", "--", ";")
TAIL_LINES = 4


def local_tail(prefix: str, lines: int = TAIL_LINES) -> str:
    """The code right before the cursor, normalised: the cursor line and the `lines - 1` non-blank
    lines above it, each with runs of whitespace collapsed to one space.

    Comments are kept: the line after a comment often says what the comment announced, so a
    comment right above the cursor is part of the local context (comment changes further away
    do not touch the tail).
    """
    out: list[str] = []
    end = len(prefix)
    while end >= 0 and len(out) < lines:
        start = prefix.rfind("\n", 0, end) + 1
        line = " ".join(prefix[start:end].split())
        if not out or line:
            out.append(line)
        if start == 0:
            break
        end = start - 1
    return "\n".join(reversed(out))


def semantic_cache_key(request: CompletionRequest, model_id: str, template: str,
                       deps: Dependencies | None = None) -> str | None:
    """Key of the normalised local context, or None when pruning gave no `semantic_key`.

    The local context itself (scope syntax fingerprint, normalised cursor line, snippet
    fingerprints) is pruning's `semantic_key`; this adds what else decides the completion's text:
    the model, its prompt format, the sampling settings, the file, the language, the dependency
    versions and `local_tail` (the last few non-blank lines before the cursor, whitespace-blind).
    The tail keeps keys apart where pruning's scope fingerprint is coarse (at module level it is
    the cursor line alone), and the file keeps look-alike places in different files apart:
    otherwise two different places would share one answer. No key (None) when the tail holds no
    code at all.
    """
    if not request.semantic_key:
        return None
    tail = local_tail(request.prefix)
    if not any(line and not line.startswith(_COMMENT_STARTS) for line in tail.split("\n")):
        return None  # no code before the cursor: nothing local to be equivalent to
    deps = foreign_dependencies(request) if deps is None else deps
    return _digest(["semantic", model_id, template, request.path, request.language, request.semantic_key,
                    tail, *sampling_signature(request), *_dependency_parts(deps)])


def dependency_group(deps: Dependencies) -> str | None:
    """A tag naming one exact set of dependency versions (None when there are none).

    Entries that share a group are invalidated together: when any of the group's files gets a
    new fingerprint, every entry of the group is stale.
    """
    if not deps:
        return None
    return "g:" + _digest(["deps", *_dependency_parts(deps)])


def conflicts(deps: Dependencies, current: dict[str, str]) -> bool:
    """True when some dependency's fingerprint differs from the one currently known for its path."""
    for path, fp in deps:
        known = current.get(path)
        if known is not None and known != fp:
            return True
    return False
