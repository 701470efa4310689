"""What users do with shown completions: the `arbor/accepted` and `arbor/rejected` notifications.

Clients send them; the server counts them in `ServerStats`, so `arbor/stats` reports acceptance:

- `arbor/accepted` `{uri, kind: "full"|"word"|"line", acceptedChars, shownChars, client}`: the user
  took all of a completion (`full`) or its next word or line. VS Code reports full accepts (the
  inline item's command runs then); the Neovim plugin reports every accept.
- `arbor/rejected` `{uri, shownChars, reason: "dismissed"|"cleared", client}`: the user dismissed
  a shown completion (Escape, the dismiss key) or it was cleared by a cursor move or mode change.

Counters: `accepted`, `accepted_<kind>`, `accepted_chars`, `rejected`, `rejected_<reason>`,
`feedback_invalid`. A malformed payload is counted as invalid and otherwise ignored: feedback
never fails a client.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..server import ArborServer

log = logging.getLogger(__name__)

ACCEPTED = "arbor/accepted"
REJECTED = "arbor/rejected"
ACCEPT_KINDS = ("full", "word", "line")
REJECT_REASONS = ("dismissed", "cleared")


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


def _field(params: Any, name: str) -> Any:
    """A field of the notification's params: pygls hands over a namedtuple-like object or a dict."""
    if isinstance(params, Mapping):
        return params.get(name)
    return getattr(params, name, None)


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        return None
    return int(value)


def parse_accepted(params: Any) -> Accepted | None:
    """The accepted payload, or None when it is malformed."""
    uri, kind, client = _field(params, "uri"), _field(params, "kind"), _field(params, "client")
    accepted, shown = _count(_field(params, "acceptedChars")), _count(_field(params, "shownChars"))
    if not isinstance(uri, str) or kind not in ACCEPT_KINDS or accepted is None:
        return None
    return Accepted(uri, kind, accepted, shown if shown is not None else accepted,
                    client if isinstance(client, str) else "")


def parse_rejected(params: Any) -> Rejected | None:
    """The rejected payload, or None when it is malformed. A missing reason means "dismissed"."""
    uri, reason, client = _field(params, "uri"), _field(params, "reason"), _field(params, "client")
    reason = "dismissed" if reason is None else reason
    shown = _count(_field(params, "shownChars"))
    if not isinstance(uri, str) or reason not in REJECT_REASONS:
        return None
    return Rejected(uri, reason, shown or 0, client if isinstance(client, str) else "")


def record_accepted(stats: Any, params: Any) -> Accepted | None:
    event = parse_accepted(params)
    if event is None:
        stats.count("feedback_invalid")
        log.debug("ignored a malformed %s: %r", ACCEPTED, params)
        return None
    stats.count("accepted")
    stats.count(f"accepted_{event.kind}")
    stats.count("accepted_chars", event.accepted_chars)
    return event


def record_rejected(stats: Any, params: Any) -> Rejected | None:
    event = parse_rejected(params)
    if event is None:
        stats.count("feedback_invalid")
        log.debug("ignored a malformed %s: %r", REJECTED, params)
        return None
    stats.count("rejected")
    stats.count(f"rejected_{event.reason}")
    return event


def register(server: ArborServer) -> None:
    @server.feature(ACCEPTED)
    def accepted(ls: ArborServer, params: Any) -> None:
        record_accepted(ls.stats, params)

    @server.feature(REJECTED)
    def rejected(ls: ArborServer, params: Any) -> None:
        record_rejected(ls.stats, params)
