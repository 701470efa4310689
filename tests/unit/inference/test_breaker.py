"""The rolling-window breaker, on a clock the tests advance."""

from __future__ import annotations

import pytest

from inference.breaker import BreakerSettings, CircuitBreaker


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make(**settings):
    clock = Clock()
    return CircuitBreaker(BreakerSettings(**settings), clock=clock), clock


def outcome(breaker, failed: bool, cause: str = "ConnectError: refused"):
    ticket, _ = breaker.admit()
    assert ticket is not None
    return breaker.failed(ticket, cause) if failed else breaker.succeeded(ticket)


def test_defaults_are_the_documented_ones():
    s = BreakerSettings()
    assert (s.error_rate, s.min_requests, s.open_seconds, s.max_open_seconds) == (0.5, 20, 30.0, 300.0)


def test_it_opens_at_half_failures_over_twenty_requests_and_not_before():
    breaker, _ = make()
    for _ in range(19):
        assert outcome(breaker, True) is None  # 19 failures: fewer than minRequests
    assert breaker.state == "closed"
    transition = outcome(breaker, True)
    assert (transition.old, transition.new, transition.cause, transition.open_for_s) == (
        "closed", "open", "ConnectError: refused", 30.0)
    assert breaker.state == "open" and breaker.admit()[0] is None


def test_a_failure_rate_below_half_keeps_it_closed():
    breaker, _ = make()
    for i in range(200):
        assert outcome(breaker, failed=i % 5 < 2) is None  # 40% failures
    assert breaker.state == "closed"


def test_exactly_half_opens_it():
    breaker, _ = make(min_requests=20)
    for i in range(19):
        outcome(breaker, failed=i % 2 == 1)  # 9 failures in 19
    assert breaker.state == "closed"
    assert outcome(breaker, True).new == "open"  # 10 in 20


def test_outcomes_older_than_the_window_are_forgotten():
    breaker, clock = make(window_seconds=60)
    for _ in range(15):
        outcome(breaker, True)
    clock.now += 61
    for _ in range(10):
        outcome(breaker, True)
    assert breaker.state == "closed" and breaker.failure_rate() == (10, 10)


def open_it(breaker):
    for _ in range(breaker.settings.min_requests):
        outcome(breaker, True)
    assert breaker.state == "open"


def test_open_thirty_seconds_then_one_probe_and_a_failed_probe_doubles_the_period_up_to_300():
    breaker, clock = make()
    open_it(breaker)
    periods = []
    for _ in range(6):
        clock.now += breaker.open_for_s - 0.01
        assert breaker.admit()[0] is None  # still open just before the period ends
        clock.now += 0.01
        probe, transition = breaker.admit()
        assert probe is not None and probe.probe and transition.new == "half-open"
        assert breaker.admit()[0] is None  # exactly one probe
        transition = breaker.failed(probe, "HTTP 503: overloaded")
        assert (transition.old, transition.new, transition.cause) == ("half-open", "open", "HTTP 503: overloaded")
        periods.append(transition.open_for_s)
    assert periods == [60, 120, 240, 300, 300, 300]


def test_a_successful_probe_closes_it_and_the_period_starts_again_at_thirty():
    breaker, clock = make()
    open_it(breaker)
    clock.now += 30
    probe, _ = breaker.admit()
    breaker.failed(probe, "boom")
    clock.now += 60
    probe, _ = breaker.admit()
    transition = breaker.succeeded(probe)
    assert (transition.old, transition.new) == ("half-open", "closed")
    assert breaker.state == "closed" and breaker.failure_rate() == (0, 0)
    open_it(breaker)
    assert breaker.open_for_s == 30


def test_a_probe_without_an_outcome_hands_the_probe_on():
    breaker, clock = make()
    open_it(breaker)
    clock.now += 30
    probe, _ = breaker.admit()
    assert breaker.admit()[0] is None
    breaker.released(probe)  # cancelled, superseded or loading
    again, transition = breaker.admit()
    assert again is not None and again.probe and transition is None  # half-open was announced once


def test_outcomes_of_requests_admitted_before_it_opened_do_not_count():
    breaker, clock = make()
    early, _ = breaker.admit()
    open_it(breaker)
    assert breaker.succeeded(early) is None and breaker.state == "open"
    assert breaker.failed(early, "late") is None and breaker.last_cause != "late"
    clock.now += 30
    probe, _ = breaker.admit()
    breaker.succeeded(probe)
    assert breaker.failed(early, "late") is None and breaker.failure_rate() == (0, 0)


def test_retry_in_counts_down_on_the_clock():
    breaker, clock = make()
    open_it(breaker)
    clock.now += 12
    assert breaker.retry_in_s() == pytest.approx(18)


@pytest.mark.parametrize("bad", [{"error_rate": 0}, {"error_rate": 1.5}, {"min_requests": 0},
                                 {"open_seconds": 0}, {"open_seconds": 60, "max_open_seconds": 30}])
def test_bad_settings_are_refused(bad):
    with pytest.raises(ValueError):
        BreakerSettings(**bad)
