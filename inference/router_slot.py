"""`BackendSlot`: one configured backend as the router keeps it, with its breaker, its in-flight
cap, its last real error and its measured prefill speed; and `BreakerEvent`, a breaker transition
as the router reports it.

The in-flight cap is the backend's `maxInFlight` setting when it is positive; else what the
backend detected (`max_in_flight`, or `total_slots`: llama-server's slot count from `/props`), read before
each request so a detection made by the first request applies from the next; else the kind's
default: 1 for single-slot servers (Ollama, llama-server), 4 for batching servers (OpenAI-
compatible, TGI), none for in-process backends (the embedded engine batches and schedules).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .api import Backend
from .backend_spec import BackendSpec
from .breaker import BreakerSettings, CircuitBreaker, Transition
from .inflight_cap import InflightCap
from .prefill_speed import PrefillSpeed
from .templates import FimTemplate, template_for

IN_PROCESS_KINDS = ("embedded", "python")
DEFAULT_MAX_IN_FLIGHT = {"ollama": 1, "llamacpp": 1, "openai": 4, "tgi": 4}


def strip_name(message: str, name: str) -> str:
    """`message` without leading `name: ` prefixes (backends name themselves in their errors)."""
    prefix = f"{name}: "
    while name and message.startswith(prefix):
        message = message[len(prefix):]
    return message


@dataclass(frozen=True, slots=True)
class BreakerEvent:
    backend: str
    transition: Transition

    @property
    def message(self) -> str:
        t = self.transition
        cause = t.cause or "no error recorded"
        if t.new == "open" and t.old == "closed":
            return f"{self.backend} is failing ({cause}); skipped for {t.open_for_s:.0f} s"
        if t.new == "open":
            return f"{self.backend} is still failing ({cause}); skipped for {t.open_for_s:.0f} s"
        if t.new == "half-open":
            return f"{self.backend}: trying one request after {t.open_for_s:.0f} s (last error: {cause})"
        return f"{self.backend} answers again"


@dataclass(slots=True)
class BackendSlot:
    spec: BackendSpec
    backend: Backend
    breaker: CircuitBreaker
    cap: InflightCap
    last_error: str = ""
    prefill: PrefillSpeed = field(default_factory=PrefillSpeed)
    urgent: int = 0  # interactive requests asked of this backend: waiting for a place or in flight

    @classmethod
    def create(cls, spec: BackendSpec, backend: Backend, breaker: BreakerSettings,
               clock: Callable[[], float] = time.monotonic) -> BackendSlot:
        slot = cls(spec, backend, CircuitBreaker(breaker, clock=clock), InflightCap())
        slot.refresh_cap()
        return slot

    def refresh_cap(self) -> None:
        """Set the cap from the setting, else the backend's detection, else the kind's default."""
        if self.spec.max_in_flight > 0:
            self.cap.limit = self.spec.max_in_flight
            return
        detected = getattr(self.backend, "max_in_flight", None) or getattr(self.backend, "total_slots", None)
        if isinstance(detected, int) and not isinstance(detected, bool) and detected > 0:
            self.cap.limit = detected
        else:
            self.cap.limit = 0 if self.in_process else DEFAULT_MAX_IN_FLIGHT.get(self.spec.kind, 4)

    @property
    def prefill_speed(self) -> PrefillSpeed:
        """The backend's own measure where it keeps one (the embedded engine times its steps),
        else the router's, from the usage that backends report."""
        return getattr(self.backend, "prefill_speed", None) or self.prefill

    @property
    def in_process(self) -> bool:
        return self.spec.kind in IN_PROCESS_KINDS

    @property
    def template(self) -> FimTemplate:
        return template_for(self.spec.model_family or getattr(self.backend, "model_family", ""))

    def status_row(self) -> dict[str, Any]:
        failures, outcomes = self.breaker.failure_rate()
        row: dict[str, Any] = {
            "name": self.spec.name, "kind": self.spec.kind, "model": self.spec.model,
            "breaker": self.breaker.state, "lastError": self.last_error,
            "retryInS": round(self.breaker.retry_in_s(), 1), "recentFailures": failures,
            "recentRequests": outcomes, "inFlight": self.cap.in_flight, "maxInFlight": self.cap.limit,
            "prefillTokensPerS": round(self.prefill_speed.tokens_per_s or 0.0, 1),
        }
        stats = getattr(self.backend, "stats", None)
        if callable(stats):
            row["stats"] = stats()
        return row
