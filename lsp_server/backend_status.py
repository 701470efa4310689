"""What `arbor/status` says about the backends: `{state, backend, breaker, message}`.

- `state` is the server's: "idle", "working", "loading" or "error".
- `backend` and `breaker` name one backend and its breaker state: the one the status is about (a
  breaker that changed, a failure), else the first backend whose breaker is not closed (a request
  answered by a fallback still shows that the primary is down, and why), else the primary.
- `message` carries the last real cause of a failure, each backend named once
  ("fake is failing (ConnectError: All connection attempts failed); skipped for 30 s"), never a
  bare "circuit open". It holds no countdown, so identical situations give identical statuses and
  the server sends each once (`ArborServer.send_status` drops repeats).
- A breaker transition is a status of its own (`breaker_status`): "error" when a breaker opens or
  a probe is tried, "idle" when it closes.
"""

from __future__ import annotations

from typing import Any

from inference.router_slot import BackendSlot, BreakerEvent


def status_for(slots: list[BackendSlot], primary: BackendSlot | None, state: str, message: str = "",
               backend: str | None = None) -> dict[str, Any]:
    slot = next((s for s in slots if s.spec.name == backend), None) if backend else None
    if slot is None and not message:
        slot = next((s for s in slots if s.breaker.state != "closed"), None)
        if slot is not None and state == "idle":
            message = f"{slot.spec.name} is skipped ({slot.last_error or slot.breaker.last_cause}); " \
                      f"others answer"
    slot = slot or primary
    return {"state": state, "backend": slot.spec.name if slot else "",
            "breaker": slot.breaker.state if slot else "closed", "message": message}


def breaker_status(event: BreakerEvent) -> tuple[str, str]:
    """(state, message) of the status that reports a breaker transition."""
    return ("idle" if event.transition.new == "closed" else "error"), event.message
