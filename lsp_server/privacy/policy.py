"""`Privacy`: the one object that decides what may leave the server, and counts what it held back.

Invariants:
- A denied file (`privacy.denyFiles`) is never read from disk, never indexed, and an open buffer
  of one gets no completion: its content reaches no prompt, index, cache or snapshot.
- A file on disk is read only when its resolved path lies under a workspace root (`roots()`):
  a symlink out of the workspace (to `/etc/passwd`, to another project) is refused.
- Text is redacted where it enters: a file's bytes as the indexer reads them (`redact`), an open
  buffer's text before the index sees it (`RedactingListener`) and before a prompt is built
  (`redact_text`). The mask keeps lengths, so offsets into the text stay valid.
- `scrub` (messages: errors, notifications, stats, log lines) always redacts, whatever
  `redactSecrets` says, and also masks the known secrets (the API keys the backends read).
- Counters are only incremented; `stats()` is their snapshot (`arbor/stats`' `privacy`).
"""

from __future__ import annotations

import base64
import os
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import unquote, urlsplit

from .denylist import Denylist, outside
from .patterns import mask_literals, redact
from .settings import PrivacySettings


class Privacy:
    def __init__(self, settings: PrivacySettings | None = None,
                 roots: Callable[[], Iterable[str]] = tuple) -> None:
        self.roots = roots
        self._lock = threading.Lock()
        self._counters: Counter[str] = Counter()
        self._redactions: Counter[str] = Counter()
        self.known_secrets: frozenset[str] = frozenset()
        self.views: Any = None  # the RedactingListener of the open buffers, if any
        self.apply(settings or PrivacySettings())

    def apply(self, settings: PrivacySettings, known_secrets: Iterable[str] = ()) -> None:
        self.settings = settings
        self.denylist = Denylist(settings.deny_files)
        self.known_secrets = frozenset(s for s in known_secrets if s and len(s) >= 4)

    def count(self, name: str, n: int = 1) -> None:
        with self._lock:
            self._counters[name] += n

    def _count_kind(self, kind: str) -> None:
        with self._lock:
            self._redactions[kind] += 1

    # ---- files
    def denies(self, path: str) -> bool:
        """Whether `path` is a denied file (its buffer gets no completion and is not indexed)."""
        return self.denylist.denies(path)

    def refuse(self, path: str) -> str | None:
        """Why the file at `path` may not be read from disk ("denied", "outside_workspace"), or None."""
        if self.denylist.denies(path):
            self.count("denied_files")
            return "denied"
        if outside(path, self.roots()):
            self.count("outside_workspace")
            return "outside_workspace"
        return None

    def redact(self, path: str, data: bytes) -> bytes:
        """A file's bytes as read from disk, with its secrets masked (same byte length)."""
        if not self.settings.redact_secrets:
            return data
        text = data.decode("utf-8", "surrogatepass")
        masked = redact(text, self._count_kind)
        if masked is text:
            return data
        self.count("files_redacted")
        return masked.encode("utf-8", "surrogatepass")

    # ---- text
    def redact_buffer(self, text: str) -> str:
        """An open buffer's text as the index sees it (not counted: this runs per keystroke)."""
        return redact(text) if self.settings.redact_secrets else text

    def redact_text(self, text: str, path: str | None = None) -> str:
        """A buffer's text about to become a prompt; counted per kind of secret masked (except
        when the open buffer `path`'s current redaction is reused: then only per prompt)."""
        if not self.settings.redact_secrets:
            return text
        masked = self.views.masked(path, text) if path is not None and self.views is not None else None
        if masked is None:
            masked = redact(text, self._count_kind)
        if masked is not text:
            self.count("prompts_redacted")
        return masked

    def scrub(self, text: str) -> str:
        """A message (error, notification, stats value, log line) with every secret masked."""
        return mask_literals(redact(text), self.known_secrets)

    def scrub_json(self, value: Any) -> Any:
        """`scrub` applied to every string inside JSON-like `value`."""
        if isinstance(value, str):
            return self.scrub(value)
        if isinstance(value, dict):
            return {k: self.scrub_json(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.scrub_json(v) for v in value]
        return value

    def stats(self) -> dict[str, Any]:
        with self._lock:
            counters, kinds = dict(self._counters), dict(self._redactions)
        return {"redactions": sum(kinds.values()), "redactionsByKind": kinds,
                "promptsRedacted": counters.get("prompts_redacted", 0),
                "filesRedacted": counters.get("files_redacted", 0),
                "deniedFiles": counters.get("denied_files", 0),
                "outsideWorkspace": counters.get("outside_workspace", 0),
                "deniedCompletions": counters.get("denied_completions", 0),
                "redactSecrets": self.settings.redact_secrets}


def api_keys_of(backends: Iterable[Any]) -> list[str]:
    """The backends' credentials: API keys given in the settings (`apiKey`) or read from
    `apiKeyEnv`, and the userinfo of their URLs (whole, its password, its Basic-auth base64 form)."""
    keys: list[str] = []
    for spec in backends:
        keys.append(getattr(spec, "api_key", ""))
        if getattr(spec, "api_key_env", ""):
            keys.append(os.environ.get(spec.api_key_env, ""))
        userinfo = urlsplit(getattr(spec, "url", "")).netloc.rpartition("@")[0]
        if userinfo:
            keys += [userinfo, *userinfo.split(":", 1)[1:], base64.b64encode(unquote(userinfo).encode()).decode()]
    return [key for key in keys if key]
