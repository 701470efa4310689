"""arbor/shown, arbor/accepted and arbor/rejected: payload parsing, the counters they feed and the
acceptance figures `arbor/stats` reports from them."""

from __future__ import annotations

from collections import namedtuple

from lsp_server.features.feedback import (
    Accepted,
    Rejected,
    Shown,
    ShownLedger,
    parse_accepted,
    parse_rejected,
    parse_shown,
    record_accepted,
    record_rejected,
    record_shown,
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


def test_shown_payload():
    assert parse_shown({"uri": URI, "shownChars": 12, "client": "vscode"}) == Shown(URI, 12, "vscode")
    for bad in [{"uri": URI}, {"shownChars": 3}, {"uri": URI, "shownChars": -2}, {"uri": URI, "shownChars": "3"}, None]:
        assert parse_shown(bad) is None, bad


def feed(stats, ledger, *events):
    record = {"shown": record_shown, "accepted": record_accepted, "rejected": record_rejected}
    for method, payload in events:
        record[method](stats, {"uri": URI, "client": "neovim", **payload}, ledger)


def test_acceptance_rate_counts_a_completion_once_however_it_is_accepted():
    stats, ledger = ServerStats(), ShownLedger()
    feed(stats, ledger,
         ("shown", {"shownChars": 20}), ("accepted", {"kind": "full", "acceptedChars": 20}),      # taken whole
         ("shown", {"shownChars": 30}), ("accepted", {"kind": "word", "acceptedChars": 6}),
         ("accepted", {"kind": "word", "acceptedChars": 4}), ("rejected", {"reason": "dismissed"}),  # in part
         ("shown", {"shownChars": 10}), ("accepted", {"kind": "line", "acceptedChars": 5}),
         ("accepted", {"kind": "full", "acceptedChars": 5}),                                     # in part, then the rest
         ("shown", {"shownChars": 40}), ("rejected", {"reason": "cleared"}))                     # not at all
    acceptance = stats.snapshot()["acceptance"]
    assert acceptance == {
        "shown": 4, "shownChars": 100, "acceptedCompletions": 3, "acceptedChars": 40,
        "fullAccepts": 2, "partialAccepts": 3, "rejected": 2, "rate": 0.75, "charsPerShownChar": 0.4,
    }


def test_accepts_without_a_shown_report_do_not_raise_the_rate():
    stats, ledger = ServerStats(), ShownLedger()
    feed(stats, ledger, ("accepted", {"kind": "full", "acceptedChars": 5}))
    assert stats.snapshot()["acceptance"]["acceptedCompletions"] == 0
    assert stats.snapshot()["acceptance"]["rate"] is None  # nothing shown yet
    feed(stats, ledger, ("shown", {"shownChars": 8}), ("accepted", {"kind": "full", "acceptedChars": 8}),
         ("accepted", {"kind": "full", "acceptedChars": 8}))  # a second accept of a closed completion
    assert stats.snapshot()["acceptance"]["acceptedCompletions"] == 1


def test_ledger_keeps_clients_and_documents_apart_and_stays_bounded():
    ledger = ShownLedger(capacity=2)
    ledger.shown("neovim", "a")
    ledger.shown("vscode", "a")
    assert ledger.accepted("vscode", "a", whole=False) is True
    assert ledger.accepted("vscode", "a", whole=False) is False
    assert ledger.accepted("neovim", "a", whole=True) is True
    ledger.shown("neovim", "b")
    ledger.shown("neovim", "c")  # over capacity: ("vscode", "a") is the least recently shown
    assert ledger.accepted("vscode", "a", whole=True) is False
    assert ledger.accepted("neovim", "b", whole=True) is True
