"""The router: for each request, a route of backends tried in order under one deadline.

Policy (see `routing` for the routes and deadlines, `breaker`, `inflight_cap`):
- A request tries the backends of its mode's route (`route.single` / `route.multi`) in order. For
  each, the cache is consulted first; then, unless its breaker is open, the backend gets
  `min(timeoutMs, time left before the deadline)`, and its place under the backend's in-flight cap
  is waited for within that time.
- A failure, a timeout, an open breaker, a model still loading or a place lost to a newer request
  falls through to the next backend while the deadline leaves time. Each backend's cache entries
  (exact, then an equivalent context through the semantic tier) are asked before the backend,
  those of the backends the deadline left no time for at the end; else `complete` raises `BackendError` naming each
  backend's last real cause once (or `BackendLoading` when every backend tried was loading). The
  server answers that with an empty result: the client never sees an internal error.
- Breaker outcomes: an error (`BackendError`, or anything unexpected a backend raises) counts as
  a failure; so does a remote backend's timeout once its request was sent (a hung server must be
  skipped). An in-process backend's timeout (an embedded engine busy past the deadline is slow,
  not broken), a model still loading, a cancellation, a cache hit and a request that never got a
  place count as nothing.
- Cancelling `complete` cancels the backend stream at once (HTTP connection closed, engine
  sequence aborted). In single-line mode the stream is closed as soon as a line is complete.
- Every breaker transition is logged once and passed to `listeners`; a failure that repeats the
  previous one is logged at most once per minute, with the count of those left out.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

from .api import (PRIORITY_BACKGROUND, Backend, BackendConfigError, BackendError, BackendLoading, CompletionRequest,
                  CompletionResult, SamplingParams)
from .backend_spec import BackendSpec
from .backends import create_backend
from .breaker import CLOSED, BreakerSettings, Transition
from .inflight_cap import Displaced
from .repeat_limiter import RepeatLimiter
from .router_slot import BackendSlot, BreakerEvent, strip_name
from .routing import RouteSettings, resolve_routes
from .stops import StopScanner
from .templates import FimTemplate, template_for

log = logging.getLogger(__name__)


class _Skip(Exception):
    """An attempt that produced nothing; `cause` says why (without the backend's name)."""

    def __init__(self, cause: str, loading: bool = False):
        super().__init__(cause)
        self.cause, self.loading = cause, loading


class Router:
    def __init__(self, specs: list[BackendSpec], cache: Any = None,
                 factory: Callable[[BackendSpec], Backend] = create_backend, *,
                 breaker: BreakerSettings | None = None, route: RouteSettings | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.cache = cache
        self.route_settings = route or RouteSettings()
        self.slots: list[BackendSlot] = []
        self.problems: list[str] = []
        self.listeners: list[Callable[[BreakerEvent], None]] = []
        self._repeats = RepeatLimiter(60.0, clock=clock)
        for spec in specs:
            try:
                self.slots.append(BackendSlot.create(spec, factory(spec), breaker or BreakerSettings(), clock))
            except BackendConfigError as exc:
                self.problems.append(str(exc))
                log.error("%s", exc)
        self.routes, route_problems = resolve_routes(self.route_settings, [s.spec.name for s in self.slots])
        for problem in route_problems:
            self.problems.append(problem)
            log.error("%s", problem)

    def route(self, multiline: bool) -> list[BackendSlot]:
        return [self.slots[i] for i in self.routes.order(multiline)]

    def status(self) -> list[dict[str, Any]]:
        """One entry per backend; backends that keep their own counters (the embedded engine's
        steps, prefix-cache hits, free KV blocks) add them under `stats`."""
        return [s.status_row() for s in self.slots]

    def loading_backends(self) -> list[BackendSlot]:
        """Slots whose backend is still starting (an embedded model loading)."""
        return [s for s in self.slots if getattr(s.backend, "loading", False)]

    async def wait_loaded(self) -> list[str]:
        """Wait until every backend has started; returns one line per backend that failed to."""
        failures = []
        for slot in self.slots:
            wait = getattr(slot.backend, "wait_loaded", None)
            if wait is None:
                continue
            try:
                await wait()
            except BackendConfigError as exc:
                slot.last_error = str(exc)
                failures.append(str(exc))
        return failures

    @property
    def primary(self) -> BackendSlot | None:
        """The first backend of the single-line route (most requests), whose speed sizes prompts."""
        route = self.route(False)
        return route[0] if route else None

    @property
    def preempts(self) -> bool:
        """Whether the primary backend puts background work below real requests inside itself
        (the embedded engine gives way between two layers); a remote server evaluates a prompt it
        was sent to its end, so background work there delays the next keystroke's request."""
        primary = self.primary
        return primary is not None and primary.in_process

    @property
    def warms(self) -> bool:
        """Whether the primary backend has a prompt cache that `warm` fills."""
        primary = self.primary
        return primary is not None and any(hasattr(primary.backend, name) for name in ("warm", "warm_request"))

    def prompt_budget(self, seconds: float, ceiling: int) -> int:
        """Prompt tokens the primary backend evaluates in `seconds` at its measured speed (at most
        `ceiling`; `ceiling` until a speed has been measured)."""
        primary = self.primary
        return primary.prefill_speed.budget(seconds, ceiling) if primary else ceiling

    def primary_template(self) -> FimTemplate:
        primary = self.primary
        return primary.template if primary else template_for("")

    async def complete(self, request: CompletionRequest, *,
                       verify: Callable[[str], str | None] | None = None) -> CompletionResult:
        """`verify` re-checks cached text made for another suffix (see inference.cache)."""
        started = time.perf_counter()
        route = self.route(request.multiline)
        longest = max((slot.spec.timeout_ms for slot in route), default=0)
        deadline_ms = request.deadline_ms or self.route_settings.deadline_ms(request.multiline, longest)
        deadline = started + deadline_ms / 1000
        causes: list[str] = list(self.problems)
        tried = loading = 0
        looked_up = 0
        for slot in route:
            looked_up += 1
            prompt = slot.template.render(request)  # the cache's key and the backend's input
            hit = self._cached(slot, request, prompt, verify, started)
            if hit is not None:
                return hit
            ticket, transition = slot.breaker.admit()
            self._announce(slot, transition)
            if ticket is None:
                causes.append(f"{slot.spec.name}: {slot.last_error or slot.breaker.last_cause or 'unavailable'} "
                              f"(circuit open for {slot.breaker.open_for_s:.0f} s)")
                continue
            timeout = min(slot.spec.timeout_ms / 1000, deadline - time.perf_counter())
            if timeout <= 0:
                slot.breaker.released(ticket)
                causes.append(f"{slot.spec.name}: the deadline passed before it was asked")
                break
            tried += 1
            try:
                result = await self._attempt(slot, request, prompt, timeout)
            except _Skip as skip:
                slot.breaker.released(ticket)
                loading += skip.loading
                causes.append(f"{slot.spec.name}: {skip.cause}")
                continue
            except BackendError as exc:
                self._failed(slot, ticket, strip_name(str(exc), slot.spec.name))
            except asyncio.CancelledError:
                slot.breaker.released(ticket)
                raise
            except Exception as exc:  # a backend's bug must not reach the client
                log.debug("backend %s raised", slot.spec.name, exc_info=True)
                self._failed(slot, ticket, f"{type(exc).__name__}: {exc}")
            else:
                self._announce(slot, slot.breaker.succeeded(ticket))
                slot.last_error = ""
                return result
            causes.append(f"{slot.spec.name}: {slot.last_error}")
        for slot in route[looked_up:]:  # backends the deadline left no time to ask
            hit = self._cached(slot, request, slot.template.render(request), verify, started)
            if hit is not None:
                return hit
        if tried and loading == tried:
            raise BackendLoading("; ".join(causes))
        raise BackendError("; ".join(causes) or "no backend is configured")

    def _cached(self, slot: BackendSlot, request: CompletionRequest, prompt: str, verify: Any,
                started: float) -> CompletionResult | None:
        """The cached answer to `prompt` (`request` rendered by `slot`'s template), if any."""
        if self.cache is None:
            return None
        hit = self.cache.lookup(request, prompt, slot.backend.model_id, slot.template.name, verify=verify)
        if hit is None:
            return None
        return CompletionResult(hit.text, backend=slot.spec.name, cache=hit.tier, prompt=prompt,
                                latency_ms={"cache": _ms(started)}, usage={"prefilled_tokens": 0})

    async def _attempt(self, slot: BackendSlot, request: CompletionRequest, prompt: str,
                       timeout: float) -> CompletionResult:
        """One backend's answer to `prompt` (`request` rendered by `slot`'s template) within
        `timeout` s, its place under the cap included. Raises `_Skip` for what is not the
        backend's fault, `BackendError` (or anything) for what is."""
        template = slot.template
        params = SamplingParams(
            max_tokens=request.max_tokens or slot.spec.max_tokens,
            temperature=request.temperature, top_p=request.top_p,
            stop=tuple(dict.fromkeys((*request.stop, *template.stop, *slot.spec.stop))),
            priority=request.priority, deadline_ms=timeout * 1000, request=request,
        )
        slot.refresh_cap()
        asked = time.perf_counter()
        sent: list[float] = []
        first_text_at: list[float] = []

        def on_text(so_far: str) -> None:
            if not first_text_at:
                first_text_at.append(time.perf_counter())
            if self.cache is not None:
                self.cache.note_partial(request, so_far)

        async def run() -> str:
            async with slot.cap.place(request.priority):
                sent.append(time.perf_counter())
                return await collect(slot.backend, prompt, params, request.multiline, on_text,
                                     budget_s=request.multiline_budget_ms / 1000)

        urgent = request.priority < PRIORITY_BACKGROUND
        slot.urgent += urgent
        try:
            text = await _within(run(), timeout)
        except Displaced as exc:
            raise _Skip(f"busy ({exc})") from None
        except BackendLoading as exc:
            raise _Skip(strip_name(str(exc), slot.spec.name), loading=True) from None
        except TimeoutError:
            if not sent:
                raise _Skip(f"no free place within {timeout * 1000:.0f} ms "
                            f"({slot.cap.in_flight} in flight, at most {slot.cap.limit})") from None
            usage_now = getattr(slot.backend, "last_usage", None) if first_text_at else None
            log.info("%s: timed out after %.0f ms (first text after %s ms; prompt %s)", slot.spec.name,
                     timeout * 1000, _ms_or_none(first_text_at, sent[0]), usage_now)
            cause = f"timed out after {timeout * 1000:.0f} ms"
            if slot.in_process:
                slot.last_error = cause
                raise _Skip(cause) from None
            raise BackendError(cause) from None
        finally:
            slot.urgent -= urgent
        if self.cache is not None:
            self.cache.store(request, prompt, slot.backend.model_id, template.name, text,
                             write_behind=asyncio.get_running_loop().call_soon)
        usage = dict(getattr(slot.backend, "last_usage", None) or {})
        log.info("%s: %d chars in %.0f ms (first text after %s ms; %s)", slot.spec.name, len(text),
                 _ms(sent[0]), _ms_or_none(first_text_at, sent[0]), usage)
        if first_text_at and "prefilled_tokens" in usage and slot.prefill_speed is slot.prefill:
            slot.prefill.observe(usage["prefilled_tokens"], first_text_at[0] - sent[0])
        return CompletionResult(text, backend=slot.spec.name, cache="miss", prompt=prompt,
                                latency_ms={"backend": _ms(asked)}, usage=usage)

    def _failed(self, slot: BackendSlot, ticket: Any, cause: str) -> None:
        slot.last_error = cause
        transition = slot.breaker.failed(ticket, cause)
        if transition is not None:
            self._announce(slot, transition)
            return
        if slot.breaker.state != CLOSED:
            return  # an outcome from before the breaker opened; the opening was announced
        suppressed = self._repeats.allow((slot.spec.name, cause))
        if suppressed is not None:
            more = f" (and {suppressed} more like it in the last minute)" if suppressed else ""
            log.warning("backend %s failed: %s%s", slot.spec.name, cause, more)

    def _announce(self, slot: BackendSlot, transition: Transition | None) -> None:
        """Log a breaker transition once and pass it to the listeners."""
        if transition is None:
            return
        event = BreakerEvent(slot.spec.name, transition)
        level = logging.INFO if transition.new == "half-open" else logging.WARNING
        log.log(level, "%s", event.message)
        if transition.new == CLOSED:
            self._repeats.forget((slot.spec.name, slot.last_error))
        for listener in list(self.listeners):
            try:
                listener(event)
            except Exception:  # a listener's failure must not fail the request
                log.debug("breaker listener failed", exc_info=True)

    async def warm(self, request: CompletionRequest) -> int:
        """Prefill `request`'s prompt into the first usable backend of its route that can warm its
        KV cache (`warm_request(request, prompt, gives_way)` or `warm(prompt)` -> tokens evaluated);
        best effort: 0 when none can or the backend has no free place (a warm-up never waits for
        one), never a breaker outcome. `gives_way()` is true while an interactive request is asked
        of that backend (waiting for a place or in flight)."""
        for slot in self.route(request.multiline):
            if slot.breaker.state != CLOSED or getattr(slot.backend, "loading", False):
                continue
            warm_request = getattr(slot.backend, "warm_request", None)  # servers that lay out FIM themselves
            warm = getattr(slot.backend, "warm", None)
            if warm is None and warm_request is None:
                return 0
            slot.refresh_cap()
            if not slot.cap.has_room():
                return 0
            prompt = slot.template.render(request)
            try:
                async with slot.cap.place(request.priority):
                    if warm_request is not None:  # in steps, stopping for an interactive request
                        return await warm_request(request, prompt, lambda: slot.urgent > 0)
                    return await warm(prompt)
            except Exception as exc:  # best effort: whatever goes wrong, the next request will tell
                log.debug("warm-up on %s failed: %s", slot.spec.name, exc)
                return 0
        return 0

    async def aclose(self) -> None:
        for slot in self.slots:
            with contextlib.suppress(Exception):
                await slot.backend.aclose()
        # the cache outlives routers (the server owns it and closes it at shutdown)


async def _within(awaitable, timeout: float):
    """`await awaitable`, raising TimeoutError after `timeout` s. With `asyncio.timeout` (3.11)
    it runs in the caller's task, so a backend that answers without waiting on I/O (a cache-like
    or in-process one) does not hand the event loop to other requests in between; `wait_for`
    would run it as a new task queued behind every request already waiting."""
    timeout_cm = getattr(asyncio, "timeout", None)
    if timeout_cm is None:  # Python 3.10
        return await asyncio.wait_for(awaitable, timeout)
    async with timeout_cm(timeout):
        return await awaitable


async def collect(backend: Backend, prompt: str, params: SamplingParams, multiline: bool,
                  on_text: Callable[[str], None] | None = None, *, budget_s: float = 0.0,
                  clock: Callable[[], float] = time.perf_counter) -> str:
    """Read a backend stream to its end, a stop string, or (single-line) the first full line.
    A multi-line stream read for `budget_s` seconds or more (0: no limit) ends at the next line
    break: the whole lines so far are the answer. `on_text` sees the text so far after every
    chunk (typing-through serves a stream in flight)."""
    scanner = StopScanner(params.stop)
    out: list[str] = []
    over_at = clock() + budget_s if budget_s > 0 else None
    async with contextlib.aclosing(backend.stream(prompt, params)) as chunks:
        async for chunk in chunks:
            out.append(scanner.feed(chunk))
            if on_text is not None:
                on_text("".join(out))
            if scanner.stopped:
                break
            if not multiline or (over_at is not None and clock() >= over_at):
                text = "".join(out)
                if _has_full_line(text):
                    return text if not multiline else text[: text.rfind("\n")]
        else:
            out.append(scanner.flush())
    return "".join(out)


def _has_full_line(text: str) -> bool:
    """True once a newline follows some non-blank text (a leading newline does not end a line)."""
    stripped = text.lstrip("\n")
    return "\n" in stripped and bool(stripped.split("\n", 1)[0].strip())


def _ms_or_none(times: list[float], since: float) -> float | None:
    return round((times[0] - since) * 1000) if times else None


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 3)
