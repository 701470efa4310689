"""Typing-through: answer a request from a completion the user is already typing into.

A *record* remembers, for one request (path, prefix, suffix), the text shown on screen and the
model's text (possibly still streaming in). A new request in the same file is answered from a
record, without a model call, when:
- its prefix is the record's prefix plus characters `typed` that are the start of the record's
  text (`typed_since`, which also follows pruning's prefix window as it slides forward),
- its suffix agrees with the record's (the text after the cursor did not change),
- no file the record's prompt depended on has since changed fingerprint (records are dropped by
  `invalidate`, and a record whose dependencies contradict the request's is skipped).
The answer is the rest of the text after `typed`: the rest of the line, or, once the user has typed
a whole line and moved to the next, the following lines of a multi-line completion.

Text the user saw is served as is; text beyond what was shown (the model's unshown tail, or a
stream cut short by cancellation) is re-checked against the suffix first (`recheck.apply_verify`).
Records live in an LRU of `capacity` entries, most recent first when matching.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from ..api import CompletionRequest
from .keys import Dependencies
from .recheck import Verify, apply_verify
from .stats import TierStats

_ANCHOR = 64
_IDENT = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def typed_since(old: str, new: str, limit: int) -> str | None:
    """The characters appended to prefix `old` to get prefix `new` (at most `limit`), else None.

    Prefixes are windows on the file that end at the cursor. When the window's start moved
    forward, everything the new window holds before the typed characters must be the old window's
    identical tail: every character is checked, not just an anchor. A new window reaching further
    back than the old one holds text the old prompt never saw, so it does not match.
    """
    if len(new) >= len(old) and new.startswith(old):
        typed = new[len(old):]
        return typed if len(typed) <= limit else None
    if not old:
        return None
    anchor_len = min(len(old), _ANCHOR)
    anchor = old[-anchor_len:]
    lo = max(0, len(new) - limit - anchor_len)
    j = new.rfind(anchor, lo)
    while j != -1:
        end = j + anchor_len
        if end <= len(old) and new[:end] == old[len(old) - end:]:
            return new[end:]
        if end - 1 <= lo:
            break
        j = new.rfind(anchor, lo, end - 1)
    return None


def suffixes_agree(old: str, new: str) -> bool:
    """Same text after the cursor as far as both prompts see it: equal, or one suffix window is a
    whole-line head of the other (pruning hands leftover budget to the suffix, so its window
    shrinks by whole lines as the prefix grows). Anything else means the code after the cursor
    changed, or an editor auto-closed a bracket: the old completion is not served."""
    if old == new:
        return True
    short, long = (old, new) if len(old) < len(new) else (new, old)
    return short.endswith("\n") and long.startswith(short)


def safe_partial(text: str) -> str:
    """A stream cut short, trimmed to a boundary: whole lines if any, else no half identifier."""
    if "\n" in text:
        return text[: text.rfind("\n")]
    end = len(text)
    while end and text[end - 1] in _IDENT:
        end -= 1
    return text[:end]


def continuation(text: str, typed: str, multiline: bool) -> str | None:
    """The part of `text` after `typed`, one line of it for single-line requests; None if blank."""
    if len(text) <= len(typed) or not text.startswith(typed):
        return None
    rest = text[len(typed):]
    if not multiline:
        rest = rest.split("\n", 1)[0]
    return rest if rest.strip() else None


@dataclass(slots=True)
class Record:
    path: str
    prefix: str
    suffix: str
    deps: Dependencies
    shown: str = ""
    model_text: str = ""
    streaming: bool = False


def _contradicts(record_deps: Dependencies, request_deps: dict[str, str]) -> bool:
    return any(request_deps.get(path, fp) != fp for path, fp in record_deps)


class TypingThroughTier:
    name = "typing"

    def __init__(self, capacity: int):
        self.capacity = capacity
        self.stats = TierStats()
        self.records: OrderedDict[tuple[str, str, str], Record] = OrderedDict()

    def _record(self, request: CompletionRequest, deps: Dependencies) -> Record:
        key = (request.path, request.prefix, request.suffix)
        record = self.records.get(key)
        if record is None or record.deps != deps:
            record = Record(request.path, request.prefix, request.suffix, deps)
            self.records[key] = record
            self.stats.stores += 1
        self.records.move_to_end(key)
        while len(self.records) > self.capacity:
            self.records.popitem(last=False)
            self.stats.capacity += 1
        return record

    def note_shown(self, request: CompletionRequest, deps: Dependencies, text: str) -> None:
        if text:
            self._record(request, deps).shown = text

    def note_model_text(self, request: CompletionRequest, deps: Dependencies, text: str, *,
                        final: bool) -> None:
        if text:
            record = self._record(request, deps)
            record.model_text = text
            record.streaming = not final

    def lookup(self, request: CompletionRequest, deps: Dependencies,
               verify: Verify | None = None) -> str | None:
        current = dict(deps)
        for record in reversed(self.records.values()):
            if record.path != request.path or not suffixes_agree(record.suffix, request.suffix):
                continue
            if _contradicts(record.deps, current):
                continue
            served = self._serve(record, request, verify)
            if served is not None:
                self.stats.hits += 1
                return served
        self.stats.misses += 1
        return None

    def _serve(self, record: Record, request: CompletionRequest, verify: Verify | None) -> str | None:
        shown = record.shown
        if shown:
            typed = typed_since(record.prefix, request.prefix, len(shown))
            if typed is not None:
                rest = continuation(shown, typed, request.multiline)
                if rest is not None:
                    return rest
        model_text = safe_partial(record.model_text) if record.streaming else record.model_text
        if not model_text or model_text == shown:
            return None
        typed = typed_since(record.prefix, request.prefix, len(model_text))
        if typed is None:
            return None
        rest = continuation(model_text, typed, request.multiline)
        if rest is None:
            return None
        checked = apply_verify(rest, request.suffix, verify)
        if checked is None:
            self.stats.rejected += 1
        return checked

    def invalidate(self, path: str, fingerprint: str) -> int:
        stale = [key for key, record in self.records.items()
                 if any(p == path and fp != fingerprint for p, fp in record.deps)]
        for key in stale:
            del self.records[key]
        self.stats.invalidated += len(stale)
        return len(stale)

    def snapshot(self) -> dict:
        size = sum(len((r.shown + r.model_text).encode("utf-8", "surrogatepass")) for r in self.records.values())
        return {**self.stats.as_dict(), "entries": len(self.records), "bytes": size}
