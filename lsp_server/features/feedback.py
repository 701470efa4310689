"""What users do with shown completions: the `arbor/shown`, `arbor/accepted` and `arbor/rejected`
notifications (the events Copilot's language server calls didShowCompletion,
didPartiallyAcceptCompletion with the accepted length, and accept / dismiss).

Clients send them; the server counts them in `ServerStats`, so `arbor/stats` reports acceptance.
Nothing leaves the machine: the counts live in the server process and are read by `arbor/stats`.

- `arbor/shown` `{uri, shownChars, client}`: a completion appeared as ghost text. The remainder of
  a completion the user is typing through or accepting in parts is the same completion, not a new
  one: clients send `arbor/shown` once per completion.
- `arbor/accepted` `{uri, kind: "full"|"word"|"line", acceptedChars, shownChars, client}`: an
  accept command inserted `acceptedChars` characters: all that was left of the completion (`full`)
  or its next word or line (a partial accept).
- `arbor/rejected` `{uri, shownChars, reason: "dismissed"|"cleared", client}`: the user dismissed
  a shown completion (Escape, the dismiss key) or it was cleared by a cursor move or mode change.

Counters: `shown`, `shown_chars`, `accepted`, `accepted_<kind>`, `accepted_chars`,
`accepted_completions` (shown completions of which any part was accepted: counted once, at the
first accept after their `arbor/shown`), `rejected`, `rejected_<reason>`, `feedback_invalid`.
A malformed payload is counted as invalid and otherwise ignored: feedback never fails a client.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..server import ArborServer

log = logging.getLogger(__name__)

SHOWN = "arbor/shown"
ACCEPTED = "arbor/accepted"
REJECTED = "arbor/rejected"
ACCEPT_KINDS = ("full", "word", "line")
REJECT_REASONS = ("dismissed", "cleared")


@dataclass(frozen=True, slots=True)
class Shown:
    uri: str
    shown_chars: int
    client: str


@dataclass(frozen=True, slots=True)
class Accepted:
    uri: str
    kind: str
    accepted_chars: int
    shown_chars: int
    client: str


@dataclass(frozen=True, slots=True)
class Rejected:
    uri: str
    reason: str
    shown_chars: int
    client: str


def param_field(params: Any, name: str) -> Any:
    """A field of the notification's params: pygls hands over a namedtuple-like object or a dict."""
    if isinstance(params, Mapping):
        return params.get(name)
    return getattr(params, name, None)


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        return None
    return int(value)


def _client(params: Any) -> str:
    client = param_field(params, "client")
    return client if isinstance(client, str) else ""


def parse_shown(params: Any) -> Shown | None:
    """The shown payload, or None when it is malformed."""
    uri, shown = param_field(params, "uri"), _count(param_field(params, "shownChars"))
    if not isinstance(uri, str) or shown is None:
        return None
    return Shown(uri, shown, _client(params))


def parse_accepted(params: Any) -> Accepted | None:
    """The accepted payload, or None when it is malformed."""
    uri, kind = param_field(params, "uri"), param_field(params, "kind")
    accepted, shown = _count(param_field(params, "acceptedChars")), _count(param_field(params, "shownChars"))
    if not isinstance(uri, str) or kind not in ACCEPT_KINDS or accepted is None:
        return None
    return Accepted(uri, kind, accepted, shown if shown is not None else accepted, _client(params))


def parse_rejected(params: Any) -> Rejected | None:
    """The rejected payload, or None when it is malformed. A missing reason means "dismissed"."""
    uri, reason = param_field(params, "uri"), param_field(params, "reason")
    reason = "dismissed" if reason is None else reason
    shown = _count(param_field(params, "shownChars"))
    if not isinstance(uri, str) or reason not in REJECT_REASONS:
        return None
    return Rejected(uri, reason, shown or 0, _client(params))


class ShownLedger:
    """Which shown completions have had any part accepted, one open completion per (client, uri).

    Invariant: a completion is counted in `accepted_completions` at most once, and only after its
    `arbor/shown`; a new `arbor/shown`, a full accept or a rejection closes the open one. At most
    `capacity` documents are tracked (the least recently shown is forgotten first).
    """

    def __init__(self, capacity: int = 1024):
        self.capacity = capacity
        self._open: OrderedDict[tuple[str, str], bool] = OrderedDict()  # -> any part accepted

    def shown(self, client: str, uri: str) -> None:
        self._open.pop((client, uri), None)
        self._open[(client, uri)] = False
        while len(self._open) > self.capacity:
            self._open.popitem(last=False)

    def accepted(self, client: str, uri: str, whole: bool) -> bool:
        """True when this accept is the first one of the open completion."""
        key = (client, uri)
        first = self._open.get(key) is False
        if whole:
            self._open.pop(key, None)
        elif key in self._open:
            self._open[key] = True
        return first

    def closed(self, client: str, uri: str) -> None:
        self._open.pop((client, uri), None)


def _invalid(stats: Any, method: str, params: Any) -> None:
    stats.count("feedback_invalid")
    log.debug("ignored a malformed %s: %r", method, params)


def record_shown(stats: Any, params: Any, ledger: ShownLedger | None = None) -> Shown | None:
    event = parse_shown(params)
    if event is None:
        _invalid(stats, SHOWN, params)
        return None
    stats.count("shown")
    stats.count("shown_chars", event.shown_chars)
    if ledger is not None:
        ledger.shown(event.client, event.uri)
    return event


def record_accepted(stats: Any, params: Any, ledger: ShownLedger | None = None) -> Accepted | None:
    event = parse_accepted(params)
    if event is None:
        _invalid(stats, ACCEPTED, params)
        return None
    stats.count("accepted")
    stats.count(f"accepted_{event.kind}")
    stats.count("accepted_chars", event.accepted_chars)
    if ledger is not None and ledger.accepted(event.client, event.uri, whole=event.kind == "full"):
        stats.count("accepted_completions")
    return event


def record_rejected(stats: Any, params: Any, ledger: ShownLedger | None = None) -> Rejected | None:
    event = parse_rejected(params)
    if event is None:
        _invalid(stats, REJECTED, params)
        return None
    stats.count("rejected")
    stats.count(f"rejected_{event.reason}")
    if ledger is not None:
        ledger.closed(event.client, event.uri)
    return event


def register(server: ArborServer) -> None:
    ledger = ShownLedger()  # one per server: its state is this server's clients' open completions

    @server.feature(SHOWN)
    def shown(ls: ArborServer, params: Any) -> None:
        record_shown(ls.stats, params, ledger)

    @server.feature(ACCEPTED)
    def accepted(ls: ArborServer, params: Any) -> None:
        record_accepted(ls.stats, params, ledger)

    @server.feature(REJECTED)
    def rejected(ls: ArborServer, params: Any) -> None:
        record_rejected(ls.stats, params, ledger)
