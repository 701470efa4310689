"""`RedactingListener`: what a document listener (the index) sees of the open buffers.

Invariants:
- Denied buffers never reach the wrapped listener (no open, change or close).
- After every call, the wrapped listener's text of a buffer equals `privacy.redact_buffer` of the
  buffer's full text. Edits pass through unchanged while that holds; when a mask appears,
  disappears or moves, one more edit (the smallest span where the two texts differ) is appended,
  so the listener's incremental bookkeeping (tree edits) stays exact.
- Every secret but a private key block lies within one line (`patterns`), so after a single edit
  only the lines it touched are redacted again; a buffer holding "PRIVATE KEY" is redacted whole.
  `_keyed` holds exactly the buffers whose text holds "PRIVATE KEY": a single edit to another
  buffer can only bring it in where the edit wrote, so only there is it looked for.
- `masked(path, text)` is `privacy.redact_buffer(text)`, or None when it would cost a whole
  redaction: the buffer's last redaction when `text` is the very string the buffer was last given,
  else that redaction with the one edit that turns the buffer into `text` applied and only the
  lines it touched redacted again (a speculation's prompt is the buffer with a suggestion
  inserted). A buffer holding "PRIVATE KEY", or an edit that writes it, gets None.
- Only buffers that hold a secret cost a second copy of their text (`_views`).
"""

from __future__ import annotations

from typing import Any

from ..positions import TextEdit
from .patterns import redact
from .policy import Privacy

_MULTILINE_SECRET = "PRIVATE KEY"


class RedactingListener:
    def __init__(self, inner: Any, privacy: Privacy) -> None:
        self.inner = inner
        self.privacy = privacy
        self._denied: set[str] = set()
        self._views: dict[str, str] = {}  # buffers whose redacted text differs from their text
        self._last: dict[str, str] = {}  # the text each buffer was last given (the same object)
        self._keyed: set[str] = set()  # buffers whose text holds _MULTILINE_SECRET
        privacy.views = self  # prompts of open buffers reuse these redactions (`masked`)

    def did_open(self, path: str, text: str, language_id: str) -> None:
        if self.privacy.denies(path):
            self._denied.add(path)
            return
        masked = self.privacy.redact_buffer(text)
        self._note_key(path, _MULTILINE_SECRET in text)
        self._remember(path, text, masked)
        self.inner.did_open(path, masked, language_id)

    def did_change(self, path: str, edits: list[Any], new_text: str) -> None:
        if path in self._denied:
            return
        view = self._views.get(path)
        seen = new_text if view is None else _applied(view, edits)
        single = len(edits) == 1
        was_keyed = path in self._keyed
        keyed = _writes_key(new_text, edits[0]) if single and not was_keyed else _MULTILINE_SECRET in new_text
        self._note_key(path, keyed)
        if not self.privacy.settings.redact_secrets:
            masked = new_text
        elif single and not was_keyed and not keyed:
            masked = _redact_lines(seen, new_text, edits[0])
        else:
            masked = redact(new_text)
        self._remember(path, new_text, masked)
        if masked is seen or masked == seen:
            self.inner.did_change(path, edits, new_text if view is None else masked)
            return
        self.inner.did_change(path, [*edits, difference(seen, masked)], masked)

    def did_close(self, path: str) -> None:
        self._keyed.discard(path)
        self._views.pop(path, None)
        self._last.pop(path, None)
        if path in self._denied:
            self._denied.discard(path)
            return
        self.inner.did_close(path)

    def masked(self, path: str, text: str) -> str | None:
        last = self._last.get(path)
        if last is None:
            return None
        if last is text:
            return self._views.get(path, text)
        if path in self._keyed or not self.privacy.settings.redact_secrets:
            return None
        edit = difference(last, text)
        if edit is None:
            view = self._views.get(path)
            return text if view is None else view
        if _writes_key(text, edit):
            return None
        view = self._views.get(path)
        return _redact_lines(text if view is None else _applied(view, [edit]), text, edit)

    def _note_key(self, path: str, holds: bool) -> None:
        if holds:
            self._keyed.add(path)
        else:
            self._keyed.discard(path)

    def _remember(self, path: str, text: str, masked: str) -> None:
        self._last[path] = text
        if masked is text or masked == text:
            self._views.pop(path, None)
        else:
            self._views[path] = masked


def _writes_key(new_text: str, edit: Any) -> bool:
    """Whether `new_text` holds "PRIVATE KEY" overlapping what `edit` wrote (the only place a
    single edit can bring it into a text that did not hold it)."""
    start = min(max(int(edit.start), 0), len(new_text))
    reach = len(_MULTILINE_SECRET) - 1
    return new_text.find(_MULTILINE_SECRET, max(0, start - reach), start + len(edit.text) + reach) >= 0


def _redact_lines(seen: str, new_text: str, edit: Any) -> str:
    """`redact(new_text)`, given `seen` (the previous redaction with `edit` applied): only the
    lines `edit` touched can change."""
    start = min(max(int(edit.start), 0), len(new_text))
    stop = min(start + len(edit.text), len(new_text))
    low = new_text.rfind("\n", 0, start) + 1
    high = new_text.find("\n", stop)
    high = len(new_text) if high == -1 else high
    lines = new_text[low:high]
    masked = redact(lines)
    if masked is lines and seen[low:high] == lines:
        return seen
    return seen[:low] + masked + seen[high:]


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
