"""A per-backend circuit breaker over a rolling window of outcomes.

States and transitions:
- "closed": requests flow. Each outcome is kept for `window_seconds` (at most `window_max`
  outcomes). Once the window holds at least `min_requests` outcomes and the share of failures
  (errors and timeouts) is at least `error_rate`, the breaker opens.
- "open": requests skip the backend for the current open period, `open_seconds` at first.
- "half-open": the period has passed; exactly one request (the probe) is admitted. Its success
  closes the breaker (the window starts empty, the period returns to `open_seconds`); its failure
  opens it again for twice the period, at most `max_open_seconds`. A probe that ends without an
  outcome (cancelled, superseded, the model still loading) hands the probe to the next request.
- Outcomes of requests admitted before the breaker opened are not counted: they describe the
  backend as it was, and the probe alone decides when it closes.

Every transition is returned once, as a `Transition`, by the call that caused or noticed it
(`admit`, `succeeded`, `failed`), carrying the last real failure cause; the router logs and
reports each one once. The clock is injectable; tests advance it.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

CLOSED, OPEN, HALF_OPEN = "closed", "open", "half-open"


@dataclass(slots=True, kw_only=True)
class BreakerSettings:
    """The `breaker` settings section, shared by every backend's breaker."""

    error_rate: float = 0.5
    min_requests: int = 20
    open_seconds: float = 30.0
    max_open_seconds: float = 300.0
    window_seconds: float = 60.0

    def __post_init__(self) -> None:
        if not 0 < self.error_rate <= 1:
            raise ValueError("errorRate must lie in (0, 1]")
        if self.min_requests < 1:
            raise ValueError("minRequests must be at least 1")
        if self.open_seconds <= 0 or self.window_seconds <= 0:
            raise ValueError("openSeconds and windowSeconds must be positive")
        if self.max_open_seconds < self.open_seconds:
            raise ValueError("maxOpenSeconds must not be below openSeconds")


@dataclass(frozen=True, slots=True)
class Transition:
    old: str
    new: str
    cause: str  # the last real failure ("" when none is known)
    open_for_s: float  # the open period now in force (0 once closed)


@dataclass(frozen=True, slots=True)
class Ticket:
    """One admitted request; `probe` marks the half-open trial."""

    generation: int
    probe: bool


class CircuitBreaker:
    def __init__(self, settings: BreakerSettings | None = None, *,
                 clock: Callable[[], float] = time.monotonic):
        self.settings = settings or BreakerSettings()
        self._clock = clock
        self._outcomes: deque[tuple[float, bool]] = deque()  # (time, failed), closed state only
        self._window_max = max(100, 5 * self.settings.min_requests)
        self._state = CLOSED
        self._opened_at = 0.0
        self._open_for = self.settings.open_seconds
        self._probe_out = False
        self._generation = 0  # bumped at each opening: older tickets no longer count
        self.last_cause = ""

    # --- reading -----------------------------------------------------------------------------
    @property
    def state(self) -> str:
        """The state as of now (an elapsed open period reads as "half-open")."""
        if self._state == OPEN and self._clock() - self._opened_at >= self._open_for:
            return HALF_OPEN
        return self._state

    @property
    def open_for_s(self) -> float:
        return self._open_for if self._state != CLOSED else 0.0

    def retry_in_s(self) -> float:
        """Seconds until the next probe may go (0 when requests flow)."""
        if self._state != OPEN:
            return 0.0
        return max(0.0, self._opened_at + self._open_for - self._clock())

    def failure_rate(self) -> tuple[int, int]:
        """(failures, outcomes) in the current window."""
        self._prune()
        return sum(failed for _, failed in self._outcomes), len(self._outcomes)

    # --- the protocol --------------------------------------------------------------------------
    def admit(self) -> tuple[Ticket | None, Transition | None]:
        """A ticket when a request may go to the backend, else None; and the transition noticed."""
        transition = None
        if self._state == OPEN and self._clock() - self._opened_at >= self._open_for:
            self._state = HALF_OPEN
            transition = Transition(OPEN, HALF_OPEN, self.last_cause, self._open_for)
        if self._state == CLOSED:
            return Ticket(self._generation, probe=False), transition
        if self._state == HALF_OPEN and not self._probe_out:
            self._probe_out = True
            return Ticket(self._generation, probe=True), transition
        return None, transition

    def succeeded(self, ticket: Ticket) -> Transition | None:
        if ticket.probe and ticket.generation == self._generation and self._state == HALF_OPEN:
            self._close()
            return Transition(HALF_OPEN, CLOSED, self.last_cause, 0.0)
        if self._state == CLOSED and ticket.generation == self._generation:
            self._record(False)
        return None

    def failed(self, ticket: Ticket, cause: str) -> Transition | None:
        if ticket.generation != self._generation:
            return None
        self.last_cause = cause or self.last_cause
        if ticket.probe and self._state == HALF_OPEN:
            self._open(min(self._open_for * 2, self.settings.max_open_seconds))
            return Transition(HALF_OPEN, OPEN, self.last_cause, self._open_for)
        if self._state != CLOSED:
            return None
        self._record(True)
        failures, total = self.failure_rate()
        if total >= self.settings.min_requests and failures >= self.settings.error_rate * total:
            self._open(self.settings.open_seconds)
            return Transition(CLOSED, OPEN, self.last_cause, self._open_for)
        return None

    def released(self, ticket: Ticket) -> None:
        """The request ended without an outcome; a probe's turn passes to the next request."""
        if ticket.probe and ticket.generation == self._generation and self._state == HALF_OPEN:
            self._probe_out = False

    # --- internals ---------------------------------------------------------------------------
    def _record(self, failed: bool) -> None:
        self._outcomes.append((self._clock(), failed))
        self._prune()

    def _prune(self) -> None:
        horizon = self._clock() - self.settings.window_seconds
        while self._outcomes and (self._outcomes[0][0] < horizon or len(self._outcomes) > self._window_max):
            self._outcomes.popleft()

    def _open(self, seconds: float) -> None:
        self._state = OPEN
        self._opened_at = self._clock()
        self._open_for = seconds
        self._probe_out = False
        self._generation += 1
        self._outcomes.clear()

    def _close(self) -> None:
        self._state = CLOSED
        self._open_for = self.settings.open_seconds
        self._probe_out = False
        self._generation += 1
        self._outcomes.clear()
