"""arbor/accepted and arbor/rejected: payload parsing and the counters they feed."""

from __future__ import annotations

from collections import namedtuple

from lsp_server.features.feedback import (
    Accepted,
    Rejected,
    parse_accepted,
    parse_rejected,
    record_accepted,
    record_rejected,
)
from lsp_server.stats import ServerStats

URI = "file:///w/main.py"


def test_accepted_payload_from_a_dict_or_a_pygls_object():
    payload = {"uri": URI, "kind": "word", "acceptedChars": 13, "shownChars": 25, "client": "neovim"}
    assert parse_accepted(payload) == Accepted(URI, "word", 13, 25, "neovim")
    # pygls gives custom notifications' params as a namedtuple-like object.
    Object = namedtuple("Object", payload.keys())
    assert parse_accepted(Object(**payload)) == Accepted(URI, "word", 13, 25, "neovim")


def test_accepted_defaults_and_malformed_payloads():
    assert parse_accepted({"uri": URI, "kind": "full", "acceptedChars": 5}) == Accepted(URI, "full", 5, 5, "")
    for bad in [
        {},
        {"uri": URI, "kind": "everything", "acceptedChars": 5},
        {"uri": URI, "kind": "full", "acceptedChars": -1},
        {"uri": URI, "kind": "full", "acceptedChars": True},
        {"uri": 3, "kind": "full", "acceptedChars": 5},
        None,
        "full",
    ]:
        assert parse_accepted(bad) is None, bad


def test_rejected_payload():
    assert parse_rejected({"uri": URI, "shownChars": 7, "reason": "cleared", "client": "vscode"}) == \
        Rejected(URI, "cleared", 7, "vscode")
    assert parse_rejected({"uri": URI}) == Rejected(URI, "dismissed", 0, "")
    assert parse_rejected({"uri": URI, "reason": "bored"}) is None
    assert parse_rejected({"reason": "dismissed"}) is None


def test_counters():
    stats = ServerStats()
    record_accepted(stats, {"uri": URI, "kind": "full", "acceptedChars": 5, "shownChars": 5})
    record_accepted(stats, {"uri": URI, "kind": "word", "acceptedChars": 3, "shownChars": 9})
    record_rejected(stats, {"uri": URI, "reason": "dismissed", "shownChars": 4})
    record_rejected(stats, {"uri": URI, "reason": "cleared", "shownChars": 4})
    record_accepted(stats, {"kind": "full"})
    record_rejected(stats, {"uri": URI, "reason": "nope"})
    assert stats.snapshot()["counters"] == {
        "accepted": 2, "accepted_full": 1, "accepted_word": 1, "accepted_chars": 8,
        "rejected": 2, "rejected_dismissed": 1, "rejected_cleared": 1, "feedback_invalid": 2,
    }
