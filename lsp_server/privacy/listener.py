"""`RedactingListener`: what a document listener (the index) sees of the open buffers.

Invariants:
- Denied buffers never reach the wrapped listener (no open, change or close).
- After every call, the wrapped listener's text of a buffer equals `privacy.redact_buffer` of the
  buffer's full text. Edits pass through unchanged while that holds; when a mask appears,
  disappears or moves, one more edit (the smallest span where the two texts differ) is appended,
  so the listener's incremental bookkeeping (tree edits) stays exact.
- Only buffers that hold a secret cost a second copy of their text (`_views`).
"""

from __future__ import annotations

from typing import Any

from ..positions import TextEdit
from .policy import Privacy


class RedactingListener:
    def __init__(self, inner: Any, privacy: Privacy) -> None:
        self.inner = inner
        self.privacy = privacy
        self._denied: set[str] = set()
        self._views: dict[str, str] = {}  # buffers whose redacted text differs from their text

    def did_open(self, path: str, text: str, language_id: str) -> None:
        if self.privacy.denies(path):
            self._denied.add(path)
            return
        masked = self.privacy.redact_buffer(text)
        self._remember(path, text, masked)
        self.inner.did_open(path, masked, language_id)

    def did_change(self, path: str, edits: list[Any], new_text: str) -> None:
        if path in self._denied:
            return
        masked = self.privacy.redact_buffer(new_text)
        view = self._views.get(path)
        if view is None and masked is new_text:
            self.inner.did_change(path, edits, new_text)
            return
        seen = new_text if view is None else _applied(view, edits)
        extra = difference(seen, masked)
        self._remember(path, new_text, masked)
        self.inner.did_change(path, [*edits, extra] if extra is not None else edits, masked)

    def did_close(self, path: str) -> None:
        self._views.pop(path, None)
        if path in self._denied:
            self._denied.discard(path)
            return
        self.inner.did_close(path)

    def _remember(self, path: str, text: str, masked: str) -> None:
        if masked is text or masked == text:
            self._views.pop(path, None)
        else:
            self._views[path] = masked


def _applied(text: str, edits: list[Any]) -> str:
    for edit in edits:
        start = min(max(int(edit.start), 0), len(text))
        end = min(max(int(edit.end), start), len(text))
        text = text[:start] + edit.text + text[end:]
    return text


def difference(a: str, b: str) -> TextEdit | None:
    """The one edit that turns `a` into `b` (None when they are equal): the span between their
    common prefix and common suffix."""
    if a == b:
        return None
    n = min(len(a), len(b))
    lo, hi = 0, n  # a[:lo] == b[:lo]; the first difference is before hi (or at n)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid
    start = lo if lo < n and a[lo] != b[lo] else hi
    tail_max = n - start
    lo, hi = 0, tail_max + 1  # common suffix length: a[len(a)-lo:] == b[len(b)-lo:]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[len(a) - mid:] == b[len(b) - mid:]:
            lo = mid
        else:
            hi = mid
    return TextEdit(start, len(a) - lo, b[start:len(b) - lo])
